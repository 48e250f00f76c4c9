// Book appendix A: JacobiP, GradJacobiP, JacobiGQ, JacobiGL.
#include "dg/jacobi.hpp"

#include "dg/error.hpp"

#include <Eigen/Eigenvalues>

#include <cmath>
#include <string>

namespace rtdg::dg {

Eigen::VectorXd jacobi_p(const Eigen::VectorXd& x, double alpha, double beta, int n) {
  if (n < 0) throw Error("dg: jacobi_p needs a degree >= 0, got " + std::to_string(n));
  // Three-term recurrence for the orthonormal polynomials; gamma0 and gamma1 are the squared
  // norms of the classical P_0 and P_1 under the weight.
  const double gamma0 = std::pow(2.0, alpha + beta + 1.0) / (alpha + beta + 1.0) *
                        std::tgamma(alpha + 1.0) * std::tgamma(beta + 1.0) /
                        std::tgamma(alpha + beta + 1.0);
  Eigen::VectorXd p_prev = Eigen::VectorXd::Constant(x.size(), 1.0 / std::sqrt(gamma0));
  if (n == 0) return p_prev;
  const double gamma1 = (alpha + 1.0) * (beta + 1.0) / (alpha + beta + 3.0) * gamma0;
  Eigen::VectorXd p = ((alpha + beta + 2.0) * x.array() / 2.0 + (alpha - beta) / 2.0) /
                      std::sqrt(gamma1);
  double a_old = 2.0 / (2.0 + alpha + beta) *
                 std::sqrt((alpha + 1.0) * (beta + 1.0) / (alpha + beta + 3.0));
  for (int i = 1; i < n; ++i) {
    const double di = i;
    const double h1 = 2.0 * di + alpha + beta;
    const double a_new = 2.0 / (h1 + 2.0) *
                         std::sqrt((di + 1.0) * (di + 1.0 + alpha + beta) * (di + 1.0 + alpha) *
                                   (di + 1.0 + beta) / (h1 + 1.0) / (h1 + 3.0));
    const double b_new = -(alpha * alpha - beta * beta) / h1 / (h1 + 2.0);
    Eigen::VectorXd p_next =
        (-a_old * p_prev.array() + (x.array() - b_new) * p.array()) / a_new;
    p_prev = std::move(p);
    p = std::move(p_next);
    a_old = a_new;
  }
  return p;
}

Eigen::VectorXd grad_jacobi_p(const Eigen::VectorXd& x, double alpha, double beta, int n) {
  if (n == 0) return Eigen::VectorXd::Zero(x.size());
  const double dn = n;
  return std::sqrt(dn * (dn + alpha + beta + 1.0)) * jacobi_p(x, alpha + 1.0, beta + 1.0, n - 1);
}

Quadrature1D jacobi_gq(double alpha, double beta, int n) {
  if (n < 0) throw Error("dg: jacobi_gq needs n >= 0, got " + std::to_string(n));
  Quadrature1D q;
  const double mu0 = std::pow(2.0, alpha + beta + 1.0) / (alpha + beta + 1.0) *
                     std::tgamma(alpha + 1.0) * std::tgamma(beta + 1.0) /
                     std::tgamma(alpha + beta + 1.0);
  if (n == 0) {
    q.x = Eigen::VectorXd::Constant(1, -(alpha - beta) / (alpha + beta + 2.0));
    // One point carries the whole integral of the weight function (2 for Legendre).
    q.w = Eigen::VectorXd::Constant(1, mu0);
    return q;
  }
  // Golub-Welsch: the nodes are the eigenvalues of the symmetric Jacobi matrix of the
  // recurrence, the weights mu0 times the squared first components of its eigenvectors.
  const Eigen::Index size = n + 1;
  Eigen::MatrixXd J = Eigen::MatrixXd::Zero(size, size);
  for (Eigen::Index i = 0; i < size; ++i) {
    const double h1 = 2.0 * static_cast<double>(i) + alpha + beta;
    // The recurrence's b_i (as in jacobi_p). The book's JacobiGQ writes half of it and then
    // adds J' to J; here both triangles are filled directly.
    // For i = 0 it simplifies to (beta - alpha) / (alpha + beta + 2), which also holds where
    // the general form is 0/0 (alpha + beta = 0).
    J(i, i) = i == 0 ? (beta - alpha) / (alpha + beta + 2.0)
                     : -(alpha * alpha - beta * beta) / (h1 + 2.0) / h1;
    if (i + 1 < size) {
      const double k = static_cast<double>(i + 1);
      J(i, i + 1) = 2.0 / (h1 + 2.0) *
                    std::sqrt(k * (k + alpha + beta) * (k + alpha) * (k + beta) / (h1 + 1.0) /
                              (h1 + 3.0));
      J(i + 1, i) = J(i, i + 1);
    }
  }
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(J);
  q.x = eigen.eigenvalues();
  q.w = eigen.eigenvectors().row(0).transpose().array().square() * mu0;
  return q;
}

Eigen::VectorXd jacobi_gl(double alpha, double beta, int n) {
  if (n < 1) throw Error("dg: jacobi_gl needs n >= 1, got " + std::to_string(n));
  Eigen::VectorXd x(n + 1);
  x(0) = -1.0;
  x(n) = 1.0;
  if (n >= 2) x.segment(1, n - 1) = jacobi_gq(alpha + 1.0, beta + 1.0, n - 2).x;
  return x;
}

}  // namespace rtdg::dg
