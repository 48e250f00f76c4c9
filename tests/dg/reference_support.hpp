// Independent references for the reference-element tests: monomials and their exact integrals
// and derivatives, barycentric coordinates, and comparison of point sets.
//
// Monomials are taken in the shifted coordinates x = (1+r)/2, y = (1+s)/2, z = (1+t)/2, in
// which the reference simplex is 2^dim times the unit simplex {x, y, z >= 0, x+y+z <= 1}, so
//   integral over the element of x^a y^b z^c = 2^dim a! b! c! / (a+b+c+dim)!   (Dirichlet).
#pragma once

#include "dg/shape.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numeric>
#include <ostream>
#include <vector>

namespace rtdg::dg {

// Names shapes in GoogleTest output (found by argument-dependent lookup).
inline void PrintTo(Shape shape, std::ostream* os) { *os << shape_name(shape); }

}  // namespace rtdg::dg

namespace rtdg::dg::test {

using Exponent = std::array<int, 3>;

// All (a, b, c) with a + b + c <= degree; entries beyond dim are 0.
inline std::vector<Exponent> exponents(int dim, int degree) {
  std::vector<Exponent> out;
  for (int a = 0; a <= degree; ++a)
    for (int b = 0; b <= (dim >= 2 ? degree - a : 0); ++b)
      for (int c = 0; c <= (dim >= 3 ? degree - a - b : 0); ++c) out.push_back({a, b, c});
  return out;
}

inline int degree(const Exponent& e) { return e[0] + e[1] + e[2]; }

inline double factorial(int n) {
  double f = 1.0;
  for (int i = 2; i <= n; ++i) f *= i;
  return f;
}

// Exact integral of x^a y^b z^c over the reference element of dimension dim.
inline double monomial_integral(int dim, const Exponent& e) {
  return std::pow(2.0, dim) * factorial(e[0]) * factorial(e[1]) * factorial(e[2]) /
         factorial(degree(e) + dim);
}

// x^a y^b z^c at points (M x dim, reference coordinates); a power of -1 gives 0 (derivative
// of a constant).
inline Eigen::VectorXd monomial(const Eigen::MatrixXd& points, const Exponent& e) {
  Eigen::VectorXd v = Eigen::VectorXd::Ones(points.rows());
  for (Eigen::Index d = 0; d < points.cols(); ++d) {
    const int power = e[static_cast<std::size_t>(d)];
    if (power < 0) return Eigen::VectorXd::Zero(points.rows());
    v.array() *= (0.5 * (1.0 + points.col(d).array())).pow(power);
  }
  return v;
}

// d/d(r_d) of x^a y^b z^c: (e_d / 2) times the monomial with e_d lowered by one.
inline Eigen::VectorXd monomial_derivative(const Eigen::MatrixXd& points, const Exponent& e,
                                           int d) {
  Exponent lowered = e;
  lowered[static_cast<std::size_t>(d)] -= 1;
  return 0.5 * e[static_cast<std::size_t>(d)] * monomial(points, lowered);
}

// Barycentric coordinates (M x dim+1) of reference points: lambda_0 belongs to vertex 0
// (all coordinates -1), lambda_d (d >= 1) to the vertex with coordinate d-1 equal to +1.
inline Eigen::MatrixXd barycentric(const Eigen::MatrixXd& points) {
  const Eigen::Index dim = points.cols();
  Eigen::MatrixXd L(points.rows(), dim + 1);
  for (Eigen::Index d = 0; d < dim; ++d) L.col(d + 1) = 0.5 * (1.0 + points.col(d).array());
  L.col(0) = 1.0 - L.rightCols(dim).rowwise().sum().array();
  return L;
}

inline Eigen::MatrixXd from_barycentric(const Eigen::MatrixXd& L) {
  return (2.0 * L.rightCols(L.cols() - 1).array() - 1.0).matrix();
}

// Largest distance from a point of a to its nearest point of b (inf if sizes differ).
inline double set_distance(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  if (a.rows() != b.rows() || a.cols() != b.cols()) return std::numeric_limits<double>::infinity();
  double worst = 0.0;
  for (Eigen::Index i = 0; i < a.rows(); ++i) {
    double nearest = std::numeric_limits<double>::infinity();
    for (Eigen::Index j = 0; j < b.rows(); ++j) nearest = std::min(nearest, (a.row(i) - b.row(j)).norm());
    worst = std::max(worst, nearest);
  }
  return worst;
}

// All permutations of 0..n-1.
inline std::vector<std::vector<Eigen::Index>> permutations(Eigen::Index n) {
  std::vector<Eigen::Index> p(static_cast<std::size_t>(n));
  std::iota(p.begin(), p.end(), Eigen::Index{0});
  std::vector<std::vector<Eigen::Index>> all;
  do all.push_back(p); while (std::next_permutation(p.begin(), p.end()));
  return all;
}

inline const std::vector<Shape>& all_shapes() {
  static const std::vector<Shape> shapes = {Shape::interval, Shape::triangle, Shape::tetrahedron};
  return shapes;
}

}  // namespace rtdg::dg::test
