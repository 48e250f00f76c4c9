// Warp & blend nodes on the interval and the triangle (book sections 3.1 and 6.1: JacobiGL,
// Warpfactor, Nodes2D, xytors).
#include "dg/basis.hpp"
#include "dg/error.hpp"
#include "dg/jacobi.hpp"
#include "dg/nodes.hpp"
#include "lattice.hpp"

#include <array>
#include <cmath>
#include <numbers>
#include <string>

namespace rtdg::dg {
namespace {

// Book Nodes2D, alpopt(N) for N = 1..15 (Table 6.1; the published Codes1.1 Nodes2D.m has the
// same digits). N = 6 is 0.9800: rtdg had 0.9808 until issue 14, which moved its order-6
// triangle nodes by up to 1.9e-5 from the book's. Solution files record the node set
// (apps/output hdf5_solution.hpp, "node_set") so that checkpoints of that era are refused.
constexpr std::array<double, 15> alpha_opt_triangle = {
    0.0000, 0.0000, 1.4152, 0.1001, 0.2751, 0.9800, 1.0999, 1.2832,
    1.3648, 1.4773, 1.4959, 1.5743, 1.5770, 1.6223, 1.6258};

void check_order(int N, const char* what) {
  if (N < 1) throw Error(std::string("dg: ") + what + " needs order N >= 1, got " + std::to_string(N));
}

}  // namespace

double alpha_opt_2d(int N) {
  check_order(N, "alpha_opt_2d");
  return N <= 15 ? alpha_opt_triangle[static_cast<std::size_t>(N - 1)] : 5.0 / 3.0;
}

Eigen::MatrixXd nodes_1d(int N) {
  check_order(N, "nodes_1d");
  return jacobi_gl(0.0, 0.0, N);
}

Eigen::VectorXd warp_factor(int N, const Eigen::VectorXd& rout) {
  check_order(N, "warp_factor");
  const Eigen::VectorXd r_lgl = jacobi_gl(0.0, 0.0, N);
  const Eigen::VectorXd r_eq = Eigen::VectorXd::LinSpaced(N + 1, -1.0, 1.0);
  // The interpolant of (LGL - equispaced) through the equispaced points, evaluated at rout.
  const Eigen::MatrixXd V_eq = vandermonde(Shape::interval, N, r_eq);
  const Eigen::MatrixXd V_out = vandermonde(Shape::interval, N, rout);
  Eigen::VectorXd warp = V_out * V_eq.partialPivLu().solve(r_lgl - r_eq);
  // Divide by 1 - r^2 so the blend (which vanishes like 1 - r^2 at the edge's ends) can
  // multiply it back; the warp is zero at the ends.
  for (Eigen::Index n = 0; n < rout.size(); ++n) {
    const bool inside = std::abs(rout(n)) < 1.0 - 1.0e-10;
    warp(n) = inside ? warp(n) / (1.0 - rout(n) * rout(n)) : 0.0;
  }
  return warp;
}

Eigen::MatrixXd nodes_2d_equilateral(int N, double alpha) {
  check_order(N, "nodes_2d_equilateral");
  const auto lattice = detail::lattice_indices(2, N);
  const Eigen::Index Np = static_cast<Eigen::Index>(lattice.size());
  // Barycentric coordinates of the lattice: L1 grows towards vertex (-1,1) (the s index),
  // L3 towards (1,-1) (the r index), L2 towards (-1,-1).
  Eigen::VectorXd L1(Np), L2(Np), L3(Np);
  for (Eigen::Index n = 0; n < Np; ++n) {
    const auto& ijk = lattice[static_cast<std::size_t>(n)];
    L1(n) = static_cast<double>(ijk[1]) / N;
    L3(n) = static_cast<double>(ijk[0]) / N;
  }
  L2 = (1.0 - L1.array() - L3.array()).matrix();

  const double sqrt3 = std::sqrt(3.0);
  Eigen::ArrayXd x = -L2.array() + L3.array();
  Eigen::ArrayXd y = (-L2.array() - L3.array() + 2.0 * L1.array()) / sqrt3;

  // One blend per edge, vanishing on the other two edges; the 1 + (alpha L)^2 factor moves
  // interior nodes further (alpha = 0 is plain warp & blend).
  const Eigen::ArrayXd blend1 = 4.0 * L2.array() * L3.array();
  const Eigen::ArrayXd blend2 = 4.0 * L1.array() * L3.array();
  const Eigen::ArrayXd blend3 = 4.0 * L1.array() * L2.array();
  const Eigen::ArrayXd warpf1 = warp_factor(N, L3 - L2).array();
  const Eigen::ArrayXd warpf2 = warp_factor(N, L1 - L3).array();
  const Eigen::ArrayXd warpf3 = warp_factor(N, L2 - L1).array();
  const Eigen::ArrayXd warp1 = blend1 * warpf1 * (1.0 + (alpha * L1.array()).square());
  const Eigen::ArrayXd warp2 = blend2 * warpf2 * (1.0 + (alpha * L2.array()).square());
  const Eigen::ArrayXd warp3 = blend3 * warpf3 * (1.0 + (alpha * L3.array()).square());

  // Each edge's warp acts along that edge's direction.
  const double c2 = std::cos(2.0 * std::numbers::pi / 3.0), s2 = std::sin(2.0 * std::numbers::pi / 3.0);
  const double c4 = std::cos(4.0 * std::numbers::pi / 3.0), s4 = std::sin(4.0 * std::numbers::pi / 3.0);
  x += warp1 + c2 * warp2 + c4 * warp3;
  y += s2 * warp2 + s4 * warp3;

  Eigen::MatrixXd xy(Np, 2);
  xy.col(0) = x.matrix();
  xy.col(1) = y.matrix();
  return xy;
}

Eigen::MatrixXd xy_to_rs(const Eigen::MatrixXd& xy) {
  const double sqrt3 = std::sqrt(3.0);
  const Eigen::ArrayXd x = xy.col(0).array(), y = xy.col(1).array();
  const Eigen::ArrayXd L1 = (sqrt3 * y + 1.0) / 3.0;
  const Eigen::ArrayXd L2 = (-3.0 * x - sqrt3 * y + 2.0) / 6.0;
  const Eigen::ArrayXd L3 = (3.0 * x - sqrt3 * y + 2.0) / 6.0;
  Eigen::MatrixXd rs(xy.rows(), 2);
  rs.col(0) = (-L2 + L3 - L1).matrix();
  rs.col(1) = (-L2 - L3 + L1).matrix();
  return rs;
}

Eigen::MatrixXd nodes_2d(int N) { return xy_to_rs(nodes_2d_equilateral(N, alpha_opt_2d(N))); }

}  // namespace rtdg::dg
