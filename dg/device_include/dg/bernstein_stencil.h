// The Bernstein lattice stencil's index arithmetic (Operators::stencil, dg/bernstein.hpp): the
// derivative of a Bernstein polynomial at node alpha reads only the lattice neighbours
// alpha - e_k + e_j, so a node's stencil is DIM (DIM + 1) neighbour indices and its multi-index
// alpha. The generator writes the table (its values depend on the order) and the flux code;
// reading the table and the stencil sums are these functions, the same for every order.
//
// A node's entry is four 32-bit words: the neighbour indices 8 bits each, slot j DIM +
// (k < j ? k : k - 1) for the neighbour alpha - e_k + e_j, in words 0-2 (at most 12 slots, DIM
// = 3), and alpha_0 .. alpha_DIM 8 bits each in word 3. On CUDA the table is an int4 array
// (one 16-byte load per node), on the host an int array of 4 per node.
//
//   rtdg_stencil_words(table, node, sw)      sw[0..3] = the node's four words
//   rtdg_stencil_unpack<DIM>(sw, nb, al)     nb = its neighbour indices, al = alpha (as reals)
//   rtdg_stencil_d0<DIM>(u, i, nb, al)       (d_0 u)(i) = sum_k alpha_k u(alpha - e_k + e_0)
//   rtdg_stencil_d<DIM, J>(u, i, nb, al, d0) (D_(J-1) u)(i) = ((d_J u)(i) - (d_0 u)(i)) / 2
// where (d_j u)(alpha) = sum_k alpha_k u(alpha - e_k + e_j) (k = j reads u(alpha) itself), and
// u is one component's column of Np values.
#ifndef RTDG_BERNSTEIN_STENCIL_H
#define RTDG_BERNSTEIN_STENCIL_H

#include <rtcg/kernel.h>

// Template parameters are spelled Dim and Jk: a generated program defines DIM, NP, NCOMP, ... as
// macros before it includes this.
// C++ linkage for the templates, also where a generated program includes this inside its
// extern "C" block.
extern "C++" {

#if RTCG_CUDA
#define RTDG_STENCIL_FN __device__ __forceinline__
RTDG_STENCIL_FN void rtdg_stencil_words(const int4* table, int node, int (&sw)[4]) {
  const int4 t = table[node];
  sw[0] = t.x;
  sw[1] = t.y;
  sw[2] = t.z;
  sw[3] = t.w;
}
#else
#define RTDG_STENCIL_FN inline
RTDG_STENCIL_FN void rtdg_stencil_words(const int* table, int node, int (&sw)[4]) {
  for (int q = 0; q < 4; ++q) sw[q] = table[4 * node + q];
}
#endif

template <int Dim, typename Real>
RTDG_STENCIL_FN void rtdg_stencil_unpack(const int (&sw)[4], int* nb, Real* al) {  // nb[Dim (Dim + 1)], al[Dim + 1]
  for (int x = 0; x < Dim * (Dim + 1); ++x) nb[x] = (sw[x / 4] >> (8 * (x % 4))) & 255;
  for (int k = 0; k <= Dim; ++k) al[k] = Real((sw[3] >> (8 * k)) & 255);
}

template <int Dim, typename Real>
RTDG_STENCIL_FN Real rtdg_stencil_d0(const Real* u, int i, const int* nb, const Real* al) {
  Real v = al[0] * u[i];
  for (int k = 1; k <= Dim; ++k) v += al[k] * u[nb[k - 1]];
  return v;
}

template <int Dim, int Jk, typename Real>
RTDG_STENCIL_FN Real rtdg_stencil_d(const Real* u, int i, const int* nb, const Real* al, Real d0) {
  Real v = -d0;
  for (int k = 0; k <= Dim; ++k) v += al[k] * (k == Jk ? u[i] : u[nb[Jk * Dim + (k < Jk ? k : k - 1)]]);
  return Real(0.5) * v;
}

#undef RTDG_STENCIL_FN

}  // extern "C++"

#endif  // RTDG_BERNSTEIN_STENCIL_H
