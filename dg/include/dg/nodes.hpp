// Interpolation nodes of the reference elements (Hesthaven & Warburton sections 3.1, 6.1, 10.1;
// Warburton, "An explicit construction of interpolation nodes on the simplex", J. Eng. Math. 2006).
//
// Node sets are returned as Np x dim matrices whose columns are r, s, t. Ordering (the book's):
//   interval     ascending r.
//   triangle     rows of constant s from s = -1 upwards; r ascending within a row. The first N+1
//                nodes lie on face 0 (s = -1).
//   tetrahedron  layers of constant t from t = -1 upwards; within a layer, rows of constant s
//                from the lowest upwards; r ascending within a row. The first (N+1)(N+2)/2 nodes
//                lie on face 0 (t = -1), in the triangle's order.
// The nodes are the equispaced lattice in this order, moved by the warp & blend map; node i of
// nodes_*(N) is the image of lattice point i of equispaced_nodes (equispaced.hpp).
#pragma once

#include <Eigen/Dense>

namespace rtdg::dg {

// Legendre-Gauss-Lobatto nodes, N+1 x 1 (book JacobiGL(0,0,N)).
Eigen::MatrixXd nodes_1d(int N);

// Warp & blend nodes on the triangle, (N+1)(N+2)/2 x 2, with the book's optimised alpha
// (Nodes2D followed by xytors).
Eigen::MatrixXd nodes_2d(int N);

// Warp & blend nodes on the tetrahedron, (N+1)(N+2)(N+3)/6 x 3, with the book's optimised alpha
// (Nodes3D followed by xyztorst).
Eigen::MatrixXd nodes_3d(int N);

// The blending parameter alpha the book found to minimise the Lebesgue constant; N >= 1.
// For N >= 16 the book's fall-backs: 5/3 (triangle) and 1 (tetrahedron).
double alpha_opt_2d(int N);
double alpha_opt_3d(int N);

// The book's building blocks, exposed for tests and for anyone who wants another alpha.

// Warp function of the 1D LGL nodes, divided by 1 - r^2 (book Warpfactor): evaluates the
// polynomial interpolating (LGL - equispaced) at rout, scaled by 1/(1 - rout^2) inside (-1, 1)
// and zero at the ends. rout: any length; result: same length.
Eigen::VectorXd warp_factor(int N, const Eigen::VectorXd& rout);

// Book Nodes2D: warp & blend nodes on the equilateral triangle with vertices (-1, -1/sqrt3),
// (1, -1/sqrt3), (0, 2/sqrt3), for any alpha. Np x 2 (x, y).
Eigen::MatrixXd nodes_2d_equilateral(int N, double alpha);

// Book xytors: equilateral (x, y) to reference (r, s). xy: M x 2; result M x 2.
Eigen::MatrixXd xy_to_rs(const Eigen::MatrixXd& xy);

// Book Nodes3D: warp & blend nodes on the regular tetrahedron with vertices
// (-1, -1/sqrt3, -1/sqrt6), (1, -1/sqrt3, -1/sqrt6), (0, 2/sqrt3, -1/sqrt6), (0, 0, 3/sqrt6),
// for any alpha. Np x 3 (x, y, z).
Eigen::MatrixXd nodes_3d_equilateral(int N, double alpha);

// Book xyztorst: regular-tetrahedron (x, y, z) to reference (r, s, t). M x 3 in and out.
Eigen::MatrixXd xyz_to_rst(const Eigen::MatrixXd& xyz);

}  // namespace rtdg::dg
