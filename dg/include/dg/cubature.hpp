// Cubature on the reference triangle and tetrahedron: the collapsed-coordinate (Stroud conical
// product) Gauss-Jacobi rules, for integrals the nodal quadrature does not do exactly: the
// weight-adjusted mass matrices of curved elements (docs/curved.md), L2 norms on curved meshes.
#pragma once

#include "dg/shape.hpp"

#include <Eigen/Dense>

namespace rtdg::dg {

struct Cubature {
  Eigen::MatrixXd points;  // Nq x dim reference coordinates (r, s, t)
  Eigen::VectorXd weights;  // Nq, summing to the reference element's measure (2, or 4/3)
};

// (n + 1)^dim points, exact for polynomials of degree 2n + 1 on the triangle or tetrahedron:
// a = GJ(0,0), b = GJ(1,0) (and c = GJ(2,0)) mapped by the Duffy collapse
// r = (1 + a)(1 - b)/2 - 1, s = b (2D); r = (1 + a)(1 - b)(1 - c)/4 - 1, s = (1 + b)(1 - c)/2 - 1,
// t = c (3D). Throws dg::Error for an interval or n < 0.
Cubature collapsed_cubature(Shape shape, int n);

// Points of collapsed_cubature(shape, n): (n + 1)^dim.
inline int cubature_points(Shape shape, int n) {
  const int m = n + 1;
  return shape == Shape::tetrahedron ? m * m * m : shape == Shape::triangle ? m * m : m;
}

// The n of the cubature of curved elements' weight-adjusted mass matrices at order N (exact for
// degree 2N + 3: the product of two order-N polynomials and a smooth 1/J).
inline int weight_adjusted_cubature(int N) { return N + 1; }

}  // namespace rtdg::dg
