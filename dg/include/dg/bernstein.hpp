// The Bernstein-Bezier form of a simplex element's operators (Chan & Warburton, "GPU-accelerated
// Bernstein-Bezier discontinuous Galerkin methods for wave problems", SIAM J. Sci. Comput. 39,
// 2017): the sparse structure that makes the derivatives and LIFT cheap, for the kernels of a
// Bernstein plan (docs/design.md, "Where things go next"; not a plan value yet).
//
// Coefficient n belongs to the lattice point of node n, in the element's node order (i fastest,
// then j, then k): alpha = (N - i - j - k, i, j, k), and B_alpha = N! / (alpha_0! ... alpha_d!)
// lambda_0^alpha_0 ... lambda_d^alpha_d with the barycentric coordinates lambda_0 = -(r + s + t) / 2
// - 1 / 2 (triangles: -(r + s) / 2), lambda_1 = (1 + r) / 2, lambda_2 = (1 + s) / 2,
// lambda_3 = (1 + t) / 2. Nodal values u = V c.
//
// Derivatives. d/dr = (d_1 - d_0) / 2, d/ds = (d_2 - d_0) / 2, d/dt = (d_3 - d_0) / 2 with
// (d_j c)_alpha = sum_k alpha_k c_(alpha - e_k + e_j):
// at most 7 entries per row on tetrahedra, 5 on triangles, each an integer over 2 (against Np
// nodal entries per row).
//
// LIFT (M^-1 times the face mass matrices, the nodal LIFT's conventions: element.hpp), face by
// face in layers. On face f (opposite vertex o, lambda_o = 0 on the face) layer i is the set of
// coefficients with alpha_o = i, i = 0..N. Layer 0 = L0 x, x the face's Nfp values in Fmask
// order, L0 a stencil on the face's lattice (the point and its neighbours beta + e_j - e_k: at
// most 7 entries per row on tetrahedra, 3 on triangles). Layer i >= 1 from layer i - 1: entry
// beta (the multi-index without o, |beta| = N - i) is -1 / (i + 1) sum_k (beta_k + 1)
// y_(i-1)[beta + e_k] on both shapes (`reduction`: exact rationals). That is dim x (Np - Nfp) +
// nnz(L0) multiply-adds per face, against Np x Nfp dense: at order 7 on tetrahedra 456 against
// 4,320. make_bernstein checks the layers against M^-1 M_f; tests/dg/test_bernstein.cpp checks
// both forms against the nodal operators carried to the basis, up to order 10.
#pragma once

#include "dg/element.hpp"

#include <Eigen/Dense>

#include <array>
#include <vector>

namespace rtdg::dg {

struct BernsteinEntry {
  int index = 0;      // a coefficient (derivatives), a face position (L0) or a layer entry (reduction)
  double weight = 0;  // exact: an integer over 2 (derivatives), a rational (reduction); L0 to rounding
};

struct BernsteinFace {
  int opposite = 0;  // the vertex whose barycentric coordinate vanishes on the face
  // The face's layers: entries [layer_start[i], layer_start[i + 1]) are layer i (N + 2 values),
  // each layer in ascending coefficient index; volume[e] is entry e's coefficient ([Np]).
  std::vector<int> layer_start;
  std::vector<int> volume;
  // Layer 0 = L0 x: row e < Nfp, entries indexing x (the face's values in Fmask order).
  std::vector<std::vector<BernsteinEntry>> L0;
  // Entry e >= Nfp (layer i >= 1): the sum of weight * y[index] over its dim terms, index an
  // entry of layer i - 1 ([Np][dim]; the first Nfp rows unused).
  std::vector<std::vector<BernsteinEntry>> reduction;
};

struct BernsteinOperators {
  int dim = 3, N = 1, Np = 4, Nfp = 3, Nfaces = 4;
  std::vector<std::array<int, 4>> alpha;  // [Np] (alpha_0, ..., alpha_dim), zero beyond dim
  Eigen::MatrixXd V;                      // Np x Np: V(i, n) = B_n(node i); nodal = V c
  Eigen::MatrixXd invV;                   // Np x Np: c = invV nodal
  // D[a][n]: row n of d/dr_a (a < dim; r, s, t), distinct indices.
  std::array<std::vector<std::vector<BernsteinEntry>>, 3> D;
  std::vector<BernsteinFace> faces;  // [Nfaces], the element's face numbering

  // Dense forms (Np x Np; Np x Nfaces Nfp with the nodal LIFT's column order), for checks.
  Eigen::MatrixXd derivative(int a) const;
  Eigen::MatrixXd lift() const;
  // out[volume coefficient] += face f's layers applied to x (Nfp values, Fmask order); out: [Np].
  void add_lift(int f, const double* x, double* out) const;
};

// The Bernstein form of e's operators (triangles and tetrahedra). L0 comes from the closed-form
// Bernstein mass matrices (solved in long double); throws dg::Error for intervals, and if the
// layered form does not reproduce M^-1 M_f to 1e-12 of its largest entry (it always should: a
// check on the construction, not on the input).
BernsteinOperators make_bernstein(const Element& e);

// `e` with D_r, D_s (, D_t) and LIFT in their Bernstein forms, the dense matrices of the
// stencils and layers above (exact zeros where an entry is zero): what the kernels of a
// Bernstein plan apply. The nodes, V, invV, M and Fmask stay the nodal element's. Throws as
// make_bernstein.
Element bernstein_element(const Element& e);

}  // namespace rtdg::dg
