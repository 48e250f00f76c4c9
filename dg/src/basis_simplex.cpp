// The orthonormal simplex bases of the book (sections 6.1 and 10.1): Dubiner's collapsed-
// coordinate products of Jacobi polynomials, and their derivatives by the chain rule.
#include "dg/basis.hpp"
#include "dg/jacobi.hpp"

#include <cmath>

namespace rtdg::dg {
namespace {

using Array = Eigen::ArrayXd;

// x^e elementwise for an integer e >= 0, with 0^0 = 1.
Array power(const Array& x, int e) {
  Array result = Array::Ones(x.size());
  for (int i = 0; i < e; ++i) result *= x;
  return result;
}

// Collapsed coordinates are singular at the top vertex of each collapse; there every value of
// the collapsed coordinate gives the same polynomial value, and the book picks -1. Points
// closer than this to the singular line are treated as on it.
constexpr double collapse_tolerance = 1e-13;

}  // namespace

Eigen::MatrixXd rs_to_ab(const Eigen::MatrixXd& rs) {
  Eigen::MatrixXd ab(rs.rows(), 2);
  for (Eigen::Index n = 0; n < rs.rows(); ++n) {
    const double r = rs(n, 0), s = rs(n, 1);
    ab(n, 0) = 1.0 - s > collapse_tolerance ? 2.0 * (1.0 + r) / (1.0 - s) - 1.0 : -1.0;
    ab(n, 1) = s;
  }
  return ab;
}

Eigen::MatrixXd rst_to_abc(const Eigen::MatrixXd& rst) {
  Eigen::MatrixXd abc(rst.rows(), 3);
  for (Eigen::Index n = 0; n < rst.rows(); ++n) {
    const double r = rst(n, 0), s = rst(n, 1), t = rst(n, 2);
    abc(n, 0) = -s - t > collapse_tolerance ? 2.0 * (1.0 + r) / (-s - t) - 1.0 : -1.0;
    abc(n, 1) = 1.0 - t > collapse_tolerance ? 2.0 * (1.0 + s) / (1.0 - t) - 1.0 : -1.0;
    abc(n, 2) = t;
  }
  return abc;
}

Eigen::VectorXd simplex_2d_p(const Eigen::VectorXd& a, const Eigen::VectorXd& b, int i, int j) {
  const Array h1 = jacobi_p(a, 0.0, 0.0, i).array();
  const Array h2 = jacobi_p(b, 2.0 * i + 1.0, 0.0, j).array();
  return std::sqrt(2.0) * h1 * h2 * power(1.0 - b.array(), i);
}

Eigen::MatrixXd grad_simplex_2d_p(const Eigen::VectorXd& a, const Eigen::VectorXd& b, int i,
                                  int j) {
  const Array fa = jacobi_p(a, 0.0, 0.0, i).array();
  const Array dfa = grad_jacobi_p(a, 0.0, 0.0, i).array();
  const Array gb = jacobi_p(b, 2.0 * i + 1.0, 0.0, j).array();
  const Array dgb = grad_jacobi_p(b, 2.0 * i + 1.0, 0.0, j).array();
  const Array half_1mb = 0.5 * (1.0 - b.array());
  const Array half_1pa = 0.5 * (1.0 + a.array());

  // d/dr = da/dr d/da with da/dr = 2/(1-b); the (1-b)^i factor loses one power.
  Array dr = dfa * gb;
  if (i > 0) dr *= power(half_1mb, i - 1);
  // d/ds = da/ds d/da + d/db with da/ds = (1+a)/(1-b).
  Array ds = dfa * gb * half_1pa;
  if (i > 0) ds *= power(half_1mb, i - 1);
  Array tmp = dgb * power(half_1mb, i);
  if (i > 0) tmp -= 0.5 * i * gb * power(half_1mb, i - 1);
  ds += fa * tmp;

  // Undo the 2^-i of the half_1mb powers and apply the sqrt(2) normalisation.
  const double scale = std::pow(2.0, i + 0.5);
  Eigen::MatrixXd grad(a.size(), 2);
  grad.col(0) = scale * dr;
  grad.col(1) = scale * ds;
  return grad;
}

Eigen::VectorXd simplex_3d_p(const Eigen::VectorXd& a, const Eigen::VectorXd& b,
                             const Eigen::VectorXd& c, int i, int j, int k) {
  const Array h1 = jacobi_p(a, 0.0, 0.0, i).array();
  const Array h2 = jacobi_p(b, 2.0 * i + 1.0, 0.0, j).array();
  const Array h3 = jacobi_p(c, 2.0 * (i + j) + 2.0, 0.0, k).array();
  return 2.0 * std::sqrt(2.0) * h1 * h2 * power(1.0 - b.array(), i) * h3 *
         power(1.0 - c.array(), i + j);
}

Eigen::MatrixXd grad_simplex_3d_p(const Eigen::VectorXd& a, const Eigen::VectorXd& b,
                                  const Eigen::VectorXd& c, int i, int j, int k) {
  const Array fa = jacobi_p(a, 0.0, 0.0, i).array();
  const Array dfa = grad_jacobi_p(a, 0.0, 0.0, i).array();
  const Array gb = jacobi_p(b, 2.0 * i + 1.0, 0.0, j).array();
  const Array dgb = grad_jacobi_p(b, 2.0 * i + 1.0, 0.0, j).array();
  const Array hc = jacobi_p(c, 2.0 * (i + j) + 2.0, 0.0, k).array();
  const Array dhc = grad_jacobi_p(c, 2.0 * (i + j) + 2.0, 0.0, k).array();
  const Array half_1mb = 0.5 * (1.0 - b.array());
  const Array half_1mc = 0.5 * (1.0 - c.array());
  const Array half_1pa = 0.5 * (1.0 + a.array());
  const Array half_1pb = 0.5 * (1.0 + b.array());

  // r-derivative: only a depends on r.
  Array dr = dfa * gb * hc;
  if (i > 0) dr *= power(half_1mb, i - 1);
  if (i + j > 0) dr *= power(half_1mc, i + j - 1);

  // s-derivative: through a and b.
  Array ds = half_1pa * dr;
  Array tmp = dgb * power(half_1mb, i);
  if (i > 0) tmp += (-0.5 * i) * gb * power(half_1mb, i - 1);
  if (i + j > 0) tmp *= power(half_1mc, i + j - 1);
  tmp = fa * tmp * hc;
  ds += tmp;

  // t-derivative: through a, b and c.
  Array dt = half_1pa * dr + half_1pb * tmp;
  tmp = dhc * power(half_1mc, i + j);
  if (i + j > 0) tmp -= 0.5 * (i + j) * hc * power(half_1mc, i + j - 1);
  tmp = fa * gb * tmp * power(half_1mb, i);
  dt += tmp;

  const double scale = std::pow(2.0, 2 * i + j + 1.5);
  Eigen::MatrixXd grad(a.size(), 3);
  grad.col(0) = scale * dr;
  grad.col(1) = scale * ds;
  grad.col(2) = scale * dt;
  return grad;
}

}  // namespace rtdg::dg
