// Warp & blend nodes on the tetrahedron (book section 10.1: Nodes3D, WarpShiftFace3D,
// EvalShift, EvalWarp, xyztorst). Each face of the regular tetrahedron carries the 2D warp &
// blend shift, blended into the interior.
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

using Array = Eigen::ArrayXd;
using Vector3 = Eigen::RowVector3d;

// Book Nodes3D, alphastore(N) for N = 1..15 (checked digit by digit against Codes1.1 Nodes3D.m).
constexpr std::array<double, 15> alpha_opt_tetrahedron = {
    0.0, 0.0, 0.0, 0.1002, 1.1332, 1.5608, 1.3413, 1.2577,
    1.1603, 1.10153, 0.6080, 0.4523, 0.8856, 0.8717, 0.9655};

// Book EvalWarp: the 1D warp (interpolant of LGL - equispaced) divided by 1 - x^2, written as
// a Lagrange product that leaves out the two end points. xnodes: the LGL nodes in the order
// of the equispaced points x_i = -1 + 2(p - i)/p (descending).
Array eval_warp(int p, const Eigen::VectorXd& xnodes, const Array& xout) {
  std::vector<double> xeq(static_cast<std::size_t>(p + 1));
  for (int i = 0; i <= p; ++i) xeq[static_cast<std::size_t>(i)] = -1.0 + 2.0 * (p - i) / p;
  Array warp = Array::Zero(xout.size());
  for (int i = 0; i <= p; ++i) {
    const double xi = xeq[static_cast<std::size_t>(i)];
    Array d = Array::Constant(xout.size(), xnodes(i) - xi);
    for (int j = 1; j < p; ++j) {
      if (i != j) d = d * (xout - xeq[static_cast<std::size_t>(j)]) / (xi - xeq[static_cast<std::size_t>(j)]);
    }
    if (i != 0) d = -d / (xi - xeq.front());
    if (i != p) d = d / (xi - xeq.back());
    warp += d;
  }
  return warp;
}

// Book EvalShift: the 2D warp & blend displacement (dx, dy) on the equilateral triangle with
// barycentric coordinates L1, L2, L3 and blending parameter pval.
std::array<Array, 2> eval_shift(int p, double pval, const Array& L1, const Array& L2,
                                const Array& L3) {
  const Eigen::VectorXd gauss_x = -jacobi_gl(0.0, 0.0, p);
  const Array blend1 = L2 * L3, blend2 = L1 * L3, blend3 = L1 * L2;
  const Array warpfactor1 = 4.0 * eval_warp(p, gauss_x, L3 - L2);
  const Array warpfactor2 = 4.0 * eval_warp(p, gauss_x, L1 - L3);
  const Array warpfactor3 = 4.0 * eval_warp(p, gauss_x, L2 - L1);
  const Array warp1 = blend1 * warpfactor1 * (1.0 + (pval * L1).square());
  const Array warp2 = blend2 * warpfactor2 * (1.0 + (pval * L2).square());
  const Array warp3 = blend3 * warpfactor3 * (1.0 + (pval * L3).square());
  const double pi = std::numbers::pi;
  return {warp1 + std::cos(2.0 * pi / 3.0) * warp2 + std::cos(4.0 * pi / 3.0) * warp3,
          std::sin(2.0 * pi / 3.0) * warp2 + std::sin(4.0 * pi / 3.0) * warp3};
}

// Book WarpShiftFace3D: the shift on the face opposite barycentric coordinate La (which the
// book passes but does not use), in that face's tangent frame.
std::array<Array, 2> warp_shift_face_3d(int p, double pval, const Array& Lb, const Array& Lc,
                                        const Array& Ld) {
  return eval_shift(p, pval, Lb, Lc, Ld);
}

// Vertices of the regular tetrahedron the book warps on (v1..v4 of Nodes3D).
std::array<Vector3, 4> regular_vertices() {
  const double sqrt3 = std::sqrt(3.0), sqrt6 = std::sqrt(6.0);
  return {Vector3(-1.0, -1.0 / sqrt3, -1.0 / sqrt6), Vector3(1.0, -1.0 / sqrt3, -1.0 / sqrt6),
          Vector3(0.0, 2.0 / sqrt3, -1.0 / sqrt6), Vector3(0.0, 0.0, 3.0 / sqrt6)};
}

}  // namespace

double alpha_opt_3d(int N) {
  if (N < 1) throw Error("dg: alpha_opt_3d needs order N >= 1, got " + std::to_string(N));
  return N <= 15 ? alpha_opt_tetrahedron[static_cast<std::size_t>(N - 1)] : 1.0;
}

Eigen::MatrixXd nodes_3d_equilateral(int N, double alpha) {
  if (N < 1) throw Error("dg: nodes_3d_equilateral needs order N >= 1, got " + std::to_string(N));
  constexpr double tol = 1e-10;
  const auto lattice = detail::lattice_indices(3, N);
  const Eigen::Index Np = static_cast<Eigen::Index>(lattice.size());

  // Barycentric coordinates of the lattice (book: L1 = (1+t)/2, L2 = (1+s)/2,
  // L3 = -(1+r+s+t)/2, L4 = (1+r)/2), from the integer indices to avoid rounding.
  Array L1(Np), L2(Np), L3(Np), L4(Np);
  for (Eigen::Index n = 0; n < Np; ++n) {
    const auto& ijk = lattice[static_cast<std::size_t>(n)];
    L1(n) = static_cast<double>(ijk[2]) / N;
    L2(n) = static_cast<double>(ijk[1]) / N;
    L4(n) = static_cast<double>(ijk[0]) / N;
    L3(n) = static_cast<double>(N - ijk[0] - ijk[1] - ijk[2]) / N;
  }

  const auto [v1, v2, v3, v4] = regular_vertices();
  // Unit tangents (t1, t2) of each face, in the book's face order of Nodes3D.
  std::array<Vector3, 4> t1 = {v2 - v1, v2 - v1, v3 - v2, v3 - v1};
  std::array<Vector3, 4> t2 = {v3 - 0.5 * (v1 + v2), v4 - 0.5 * (v1 + v2), v4 - 0.5 * (v2 + v3),
                               v4 - 0.5 * (v1 + v3)};
  for (std::size_t f = 0; f < 4; ++f) {
    t1[f].normalize();
    t2[f].normalize();
  }

  Eigen::MatrixXd xyz(Np, 3);
  for (Eigen::Index n = 0; n < Np; ++n) xyz.row(n) = L3(n) * v1 + L4(n) * v2 + L2(n) * v3 + L1(n) * v4;

  Eigen::MatrixXd shift = Eigen::MatrixXd::Zero(Np, 3);
  for (std::size_t face = 0; face < 4; ++face) {
    // La vanishes on the face; Lb, Lc, Ld are the face's barycentric coordinates.
    const Array* La = nullptr; const Array* Lb = nullptr; const Array* Lc = nullptr; const Array* Ld = nullptr;
    switch (face) {
      case 0: La = &L1; Lb = &L2; Lc = &L3; Ld = &L4; break;
      case 1: La = &L2; Lb = &L1; Lc = &L3; Ld = &L4; break;
      case 2: La = &L3; Lb = &L1; Lc = &L4; Ld = &L2; break;
      default: La = &L4; Lb = &L1; Lc = &L3; Ld = &L2; break;
    }
    const auto [warp1, warp2] = warp_shift_face_3d(N, alpha, *Lb, *Lc, *Ld);

    // Blend the face shift into the interior: 1 on the face, 0 on the other faces.
    Array blend = (*Lb) * (*Lc) * (*Ld);
    const Array denom = ((*Lb) + 0.5 * (*La)) * ((*Lc) + 0.5 * (*La)) * ((*Ld) + 0.5 * (*La));
    for (Eigen::Index n = 0; n < Np; ++n) {
      if (denom(n) > tol) blend(n) = (1.0 + std::pow(alpha * (*La)(n), 2)) * blend(n) / denom(n);
    }
    for (Eigen::Index n = 0; n < Np; ++n) {
      shift.row(n) += blend(n) * warp1(n) * t1[face] + blend(n) * warp2(n) * t2[face];
    }
    // On the face's edges and vertices the blend is 0/0: take the face's shift itself.
    for (Eigen::Index n = 0; n < Np; ++n) {
      const int inside = ((*Lb)(n) > tol) + ((*Lc)(n) > tol) + ((*Ld)(n) > tol);
      if ((*La)(n) < tol && inside < 3) shift.row(n) = warp1(n) * t1[face] + warp2(n) * t2[face];
    }
  }
  return xyz + shift;
}

Eigen::MatrixXd xyz_to_rst(const Eigen::MatrixXd& xyz) {
  const auto [v1, v2, v3, v4] = regular_vertices();
  // x = A (r, s, t)^T + offset, the affine map from the reference to the regular tetrahedron.
  Eigen::Matrix3d A;
  A.col(0) = 0.5 * (v2 - v1).transpose();
  A.col(1) = 0.5 * (v3 - v1).transpose();
  A.col(2) = 0.5 * (v4 - v1).transpose();
  const Eigen::Vector3d offset = 0.5 * (v2 + v3 + v4 - v1).transpose();
  const Eigen::MatrixXd rhs = xyz.transpose().colwise() - offset;
  return A.partialPivLu().solve(rhs).transpose();
}

Eigen::MatrixXd nodes_3d(int N) { return xyz_to_rst(nodes_3d_equilateral(N, alpha_opt_3d(N))); }

}  // namespace rtdg::dg
