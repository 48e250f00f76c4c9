// A nodal reference element of order N: nodes and the operators a DG solver needs
// (Hesthaven & Warburton chapters 3, 6 and 10). Double precision.
//
// Faces (the book's numbering; face f's nodes are column f of Fmask):
//   interval     f0: r = -1          f1: r = 1
//   triangle     f0: s = -1          f1: r + s = 0        f2: r = -1
//   tetrahedron  f0: t = -1          f1: s = -1           f2: r + s + t = -1     f3: r = -1
// Within a face, nodes appear in ascending volume-node index (the book's find()), so
//   triangle f0 runs (-1,-1) -> (1,-1), f1 runs (1,-1) -> (-1,1), f2 runs (-1,-1) -> (-1,1).
//
// LIFT integrates over each face in that face's own reference coordinates, the ones the book
// uses for the face mass matrix: triangle f0, f1: r; f2: s. Tetrahedron f0: (r, s); f1: (r, t);
// f2, f3: (s, t). Each reference face thus has measure 2 (an edge of length 2, a triangle of
// area 2), and the physical face enters through Fscale = sJ / J (discretization.hpp).
#pragma once

#include "dg/shape.hpp"

#include <Eigen/Dense>

namespace rtdg::dg {

// Orders make_element accepts.
inline constexpr int min_order = 1;
inline constexpr int max_order = 10;

struct Element {
  Shape shape = Shape::interval;
  int dim = 1;     // 1, 2, 3
  int N = 1;       // polynomial order
  int Np = 2;      // nodes per element
  int Nfp = 1;     // nodes per face
  int Nfaces = 2;  // faces per element

  // Node coordinates, Np each; s and t are empty (size 0) below dimension 2 and 3.
  Eigen::VectorXd r, s, t;

  Eigen::MatrixXd V;     // Np x Np, V(i, n) = phi_n(node i), modes as in basis.hpp
  Eigen::MatrixXd invV;  // Np x Np
  Eigen::MatrixXd M;     // Np x Np mass matrix, (V V^T)^-1: M(i,j) = integral of l_i l_j
  // Differentiation matrices, Np x Np: (Dr u)(i) = du/dr at node i for u given at the nodes.
  // In Dr, Ds, Dt and LIFT the entries that are zero in exact arithmetic are exact zeros (the
  // rounding noise of their computation, below 1e-12 of the largest entry, is dropped), so
  // generated code can skip them.
  // Ds and Dt are empty (0 x 0) below dimension 2 and 3.
  Eigen::MatrixXd Dr, Ds, Dt;
  // Fmask(j, f) = volume index of node j of face f; Nfp x Nfaces.
  Eigen::MatrixXi Fmask;
  // Np x (Nfaces*Nfp): M^-1 E, E the face mass matrices placed at the face nodes. Column
  // f*Nfp + j belongs to node j of face f.
  Eigen::MatrixXd LIFT;

  // Reference-element coordinates as an Np x dim matrix (columns r, s, t).
  Eigen::MatrixXd nodes() const;
};

// Builds the element of the given shape and order; throws dg::Error unless
// min_order <= N <= max_order.
Element make_element(Shape shape, int N);

}  // namespace rtdg::dg
