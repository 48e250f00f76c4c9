// One-dimensional Jacobi polynomials and Gauss quadratures (Hesthaven & Warburton, appendix A:
// JacobiP, GradJacobiP, JacobiGQ, JacobiGL). The building blocks of every basis and node set.
#pragma once

#include <Eigen/Dense>

namespace rtdg::dg {

// P_n^(alpha,beta)(x), normalised to be orthonormal on [-1, 1] under the weight
// (1-x)^alpha (1+x)^beta (book JacobiP). x: any length; result: same length.
Eigen::VectorXd jacobi_p(const Eigen::VectorXd& x, double alpha, double beta, int n);

// d/dx of jacobi_p (book GradJacobiP).
Eigen::VectorXd grad_jacobi_p(const Eigen::VectorXd& x, double alpha, double beta, int n);

// n+1 point Gauss-Jacobi quadrature for the weight (1-x)^alpha (1+x)^beta (book JacobiGQ):
// exact for polynomials of degree 2n+1. x ascending.
struct Quadrature1D {
  Eigen::VectorXd x;  // nodes, n+1
  Eigen::VectorXd w;  // weights, n+1
};
Quadrature1D jacobi_gq(double alpha, double beta, int n);

// n+1 Gauss-Lobatto-Jacobi nodes: -1, the roots of d/dx P_n^(alpha,beta), 1 (book JacobiGL).
// Ascending. With alpha = beta = 0 these are the Legendre-Gauss-Lobatto (LGL) nodes.
Eigen::VectorXd jacobi_gl(double alpha, double beta, int n);

}  // namespace rtdg::dg
