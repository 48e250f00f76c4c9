// The discretization as the generated kernels read it (private to dg: the kernels own this
// layout): host arrays in the layouts dg/kernels.hpp documents, uploaded by the solver and by
// the library formulation that `rtdg bench` compares against.
#pragma once

#include "dg/discretization.hpp"
#include "dg/kernels.hpp"

#include <cstdint>
#include <vector>

namespace rtdg::dg {

struct Geometry {
  std::vector<double> drdx;  // [K][dim][dim] dr_a/dx_d
  std::vector<double> xyz;   // [dim][K][Np] node coordinates
  std::vector<double> D;     // [dim][Np][Np] D_a(i, j)
  std::vector<double> LIFT;  // [Np][Nfn]
  std::vector<double> DT;    // [dim][Np][Np] D_a(i, j) at (a, j, i)
  std::vector<double> LT;    // [Nfn][Np] LIFT(i, m) at (m, i)
  // Operator fragments for tensor-core products (Plan::products == tensor): an M x Kd
  // operator A cut into 8 x 4 tiles in the order the mma.m8n8k4 A operand takes them, tile
  // (mt, kt) at (mt * KT + kt) * 32 + lane with lane = 4 * (row % 8) + (col % 4), KT =
  // ceil(Kd / 4), zeros past M and Kd: a warp reads a tile as one coalesced 256-byte load.
  // The tile rows come in pairs (MT even, zeros in the last when M needs an odd count): on
  // sm_90 the kernels take tiles (2 mt, kt) and (2 mt + 1, kt) as the two A registers of
  // mma.m16n8k4, which runs at twice the rate of m8n8k4 on Hopper.
  std::vector<double> AVS;   // [D_r; D_s; D_t] stacked, (dim Np) x Np         (derivative = state)
  std::vector<double> AVF;   // [-D_r, -D_s, -D_t] side by side, Np x (dim Np)  (derivative = flux)
  std::vector<double> AL;    // LIFT, Np x Nfn
  std::vector<double> fgeo;  // [K][Nfaces][dim + 1] outward normal, Fscale
  std::vector<double> prm;   // the law's parameters (one 0 when it has none)
  std::vector<std::int32_t> vmapP;  // [K][Nfn] flat k * Np + i of the exterior twin
  std::vector<std::int32_t> bcode;  // [K][Nfaces] 0 interior, b + 1 boundary condition b
  // The curved element group (Discretization::curved, docs/curved.md); one-value placeholders
  // (0) when no element is curved. Kc curved elements, Nq cubature points. The affine arrays
  // above hold their node-0 factors, which the curved kernels' results replace.
  std::vector<std::int32_t> celem;  // [Kc] element numbers
  std::vector<double> cdrdx;        // [Kc][Np][dim][dim] dr_a/dx_d at each node
  std::vector<double> cfgeo;        // [Kc][Nfn][dim + 1] outward normal, sJ at each face node
  std::vector<double> cwadg;        // [Kc][Nq] 1/J at each cubature point
  std::vector<double> Vq;           // [Nq][Np] nodal values -> cubature points
  std::vector<double> Pq;           // [Np][Nq] M^-1 Vq^T diag(w): back onto the nodes
  // The nodal element's D [dim][Np][Np] and LIFT [Np][Nfn] for the curved kernels, which work on
  // nodal values whatever the plan's basis (D and LIFT above are a Bernstein plan's operators).
  std::vector<double> cD, cLIFT;
};

// The fragments of an M x Kd operator whose entries `at(row, col)` gives (see Geometry).
template <class At>
std::vector<double> mma_fragments(int M, int Kd, At at) {
  const int KT = (Kd + 3) / 4;
  std::vector<double> out(static_cast<std::size_t>(mma_fragment_reals(M, Kd)), 0.0);
  for (int row = 0; row < M; ++row)
    for (int col = 0; col < Kd; ++col)
      out[static_cast<std::size_t>(((row / 8) * KT + col / 4) * 32 + 4 * (row % 8) + col % 4)] = at(row, col);
  return out;
}

// Fills the operator arrays (D, LIFT, DT, LT, AVS, AVF, AL) from `element`'s D_a and LIFT: the
// nodal element's, or for a Bernstein plan bernstein_element's (dg/bernstein.hpp).
void set_operators(Geometry& geometry, const Element& element);

// `codes` are the face codes ([K][Nfaces]); `parameters` every law parameter's value. The
// operators are the nodal element's (set_operators).
Geometry kernel_geometry(const Discretization& disc, std::vector<std::int32_t> codes,
                         const std::vector<double>& parameters);

// vmapP compressed for the kernels with face connectivity (kernels.hpp: face_connectivity):
// [max_face_orders][Nfp] tables of face-node orders (the mesh's distinct ones, the rest zero),
// then [K][Nfaces] words w = base * max_face_orders + t, each standing for vmapP(k, f * Nfp + j)
// = base * stride + table[t][j], with stride = Np, or components * Nfp on a halo face (code
// -1). `vmapP` [K][Nfaces * Nfp] and `bcode` [K][Nfaces] as in Geometry. Throws dg::Error
// ("the plan does not fit: ...") when the faces take more than max_face_orders orders or a
// face's nodes do not lie on one neighbour (or halo face), or a base does not fit.
std::vector<std::int32_t> compressed_connectivity(const std::vector<std::int32_t>& vmapP,
                                                  const std::vector<std::int32_t>& bcode, int K, int Nfaces, int Nfp,
                                                  int Np, int components);

}  // namespace rtdg::dg
