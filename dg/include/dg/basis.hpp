// Orthonormal polynomial bases of the reference elements and their Vandermonde matrices
// (Hesthaven & Warburton sections 3.1, 6.1, 10.1: Simplex2DP, GradSimplex2DP, Simplex3DP,
// GradSimplex3DP, Vandermonde1D/2D/3D, GradVandermonde1D/2D/3D).
//
// Mode ordering (the columns of every Vandermonde matrix):
//   interval     n = 0..N                                       (Legendre P_n)
//   triangle     i = 0..N, then j = 0..N-i                      (psi_ij, degree i+j)
//   tetrahedron  i = 0..N, then j = 0..N-i, then k = 0..N-i-j   (psi_ijk, degree i+j+k)
// Every basis is orthonormal in L2 of its reference element.
#pragma once

#include "dg/shape.hpp"

#include <Eigen/Dense>

#include <vector>

namespace rtdg::dg {

// Collapsed coordinates of the simplex (book rstoab, rsttoabc): a, b (and c) in [-1, 1]^d.
// rs: M x 2 -> ab: M x 2; rst: M x 3 -> abc: M x 3.
Eigen::MatrixXd rs_to_ab(const Eigen::MatrixXd& rs);
Eigen::MatrixXd rst_to_abc(const Eigen::MatrixXd& rst);

// Basis function psi_ij of the triangle at collapsed points a, b (book Simplex2DP).
Eigen::VectorXd simplex_2d_p(const Eigen::VectorXd& a, const Eigen::VectorXd& b, int i, int j);
// Its r and s derivatives, M x 2 (book GradSimplex2DP).
Eigen::MatrixXd grad_simplex_2d_p(const Eigen::VectorXd& a, const Eigen::VectorXd& b, int i, int j);

// Basis function psi_ijk of the tetrahedron at collapsed points (book Simplex3DP).
Eigen::VectorXd simplex_3d_p(const Eigen::VectorXd& a, const Eigen::VectorXd& b,
                             const Eigen::VectorXd& c, int i, int j, int k);
// Its r, s and t derivatives, M x 3 (book GradSimplex3DP).
Eigen::MatrixXd grad_simplex_3d_p(const Eigen::VectorXd& a, const Eigen::VectorXd& b,
                                  const Eigen::VectorXd& c, int i, int j, int k);

// V(m, n) = phi_n(point m), points: M x dim(shape) reference coordinates; result M x Np.
Eigen::MatrixXd vandermonde(Shape shape, int N, const Eigen::MatrixXd& points);

// [Vr, Vs, Vt][d](m, n) = d phi_n / d r_d at point m; dim(shape) matrices of M x Np.
std::vector<Eigen::MatrixXd> grad_vandermonde(Shape shape, int N, const Eigen::MatrixXd& points);

}  // namespace rtdg::dg
