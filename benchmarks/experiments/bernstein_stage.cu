// Experiment (session 26, 2026-11-27; not built by CMake, not used by rtdg): how fast can a fused
// LSERK stage of 3D Maxwell be in the Bernstein-Bezier basis, with the derivatives as a stencil on
// the multi-index lattice instead of matrix products?
//
// Why: the tuned nodal stages do their memory traffic and their products one after the other
// (docs/tuning.md, "Where the numbers stand"), and from order 4 on the products are the larger
// part. In the Bernstein basis (Chan & Warburton, SISC 2017) the same polynomial's derivative
// coefficients are (d u / d lambda_j)_alpha = sum_k alpha_k c_{alpha - e_k + e_j} (degree-elevated
// back to N), so d/dr = (d_1 - d_0) / 2, d/ds = (d_2 - d_0) / 2, d/dt = (d_3 - d_0) / 2 take the
// 13 coefficients at lattice distance <= 1 of alpha: about 42 flops per node and field instead of
// 6 Np for the nodal D_r, D_s, D_t (210 at order 4, 720 at order 7). The coefficients of face f
// are those with alpha_f' = 0 (f' the vertex opposite f), so face traces are a gather as in the
// nodal kernels, and the upwind flux, linear in the traces, acts on them coefficient by
// coefficient. LIFT: a dense product (m8n8k4 DMMA, or m16n8k4 pairs: PAIR, the operator's
// fragments from global memory) of random entries, or (LAYERED) the true Bernstein LIFT in
// Chan and Warburton's layers: per face, layer 0 = L0 F (L0 sparse: about 6 entries per row) and
// layer i = c_i E^T layer i - 1 (3 entries per row, c_i = -(N - i + 1) / (i + 1)), one barrier
// per layer, from tables. PREFETCH: the neighbours' traces copied with the state (cp.async).
//
// What is measured (double, random coefficients and geometry, synthetic neighbours at k +- 1 and
// k +- spread; no boundary faces): one stage against a 4-array copy in the same run, with and
// without the LIFT products, the stencil and the face fluxes; agreement of the kernel with a host
// reference on sampled elements; the stencil formula against finite differences of the
// Bernstein polynomial at random points; the closed-form Bernstein LIFT (M^-1 M_f) against its
// layers. Measured on the H100 (benchmarks/results/dg-experiments-h100-2026-11-27-session26.log,
// calls 6-8): everything agrees (2e-16 dense, 1e-15 to 4e-13 layered, stencil 2e-10 against the
// differences, layers 4e-13 against M^-1 M_f); the stencil costs 0.12-0.36 ms per stage at orders
// 4-7; with dense m16n8k4 LIFT and prefetch the stage takes 0.98 / 1.58 / 3.12 / 5.14 ms at
// orders 4-7 (neighbours k +- 2809; random: 1.14 / 1.82 / 3.56 / 5.46), against the tuned nodal
// stages' 0.913 / 1.672 / 3.537 / 5.522 on the sphere (session 23); the layered LIFT as written
// here (a barrier per layer, table lookups) is 2-3x slower than the dense one.
//
// Session 27 (REG, Shape's FS > 0): the layered LIFT fully unrolled at compile time, one thread per
// flux column (or FS threads, the faces split between them, each with its own sO): y = L0 x_f in
// registers (L0 a 7-point stencil on the face lattice, weights in constant memory), then each
// layer in place from the previous one with constant weights -(b_k + 1) / (i + 1), added to sO.
// About 4 (L0 nnz + 3 (NP - NFP)) FMAs per column: 1,824 at order 7 against 17,280 dense. Measured
// (benchmarks/results/dg-experiments-h100-2026-11-27-session27.log): 0.349 / 0.524 / 0.842 / 1.520
// / 2.370 / 3.624 ms per stage at orders 2-7 (neighbours k +- 2809), against the tuned nodal
// stages' 0.2186 / 0.4313 / 0.9130 / 1.6720 / 3.5369 / 5.5217: behind at orders 2-3, 8-10 % ahead
// at orders 4-5, 1.49x and 1.52x at orders 6 and 7. Agreement with the host 1e-15 to 4e-13 (the
// closed-form LIFT's own rounding). Warp-specializing it (SP) loses: its extra shared memory
// costs a block per SM. `--host` runs the REG checks without a GPU.
//   nvcc -O3 -std=c++20 -arch=sm_90 bernstein_stage.cu -o bernstein_stage
//   ./bernstein_stage [K] [spread]     (./bernstein_stage --host: the checks without a GPU)
#include <cuda_runtime.h>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "stage_harness.cuh"

// D (8 x 8) += A (8 x 4) B (4 x 8): lane l holds A[l / 4][l % 4], B[l % 4][l / 4], D[l / 4][2 (l % 4) + 0, 1].
__device__ __forceinline__ void dmma(double& d0, double& d1, double a, double b) {
  asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};" : "+d"(d0), "+d"(d1) : "d"(a), "d"(b));
}

// Two 8-row tiles at once (sm_90, twice the m8n8k4 rate on the H100): a0 with d0, d1 (rows g),
// a1 with d2, d3 (rows g + 8).
__device__ __forceinline__ void dmma16(double& d0, double& d1, double& d2, double& d3, double a0, double a1, double b) {
  asm("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};"
      : "+d"(d0), "+d"(d1), "+d"(d2), "+d"(d3) : "d"(a0), "d"(a1), "d"(b));
}

// FS > 0: the register-resident layered LIFT (REG below), FS threads per column (the four faces
// split between them), each with its own sO; the strides odd so that threads one column apart
// hit different banks.
// SP (with FS > 0): warp-specialized REG, the LIFT threads' warps beside the others, which compute
// the volume term into sR [COLS][NP] meanwhile.
template <int N_, int NE_, int FS = 0, bool SP = false>
struct Shape {
  static constexpr int N = N_, NE = NE_, NP = np_of(N), NFP = nfp_of(N), NFN = 4 * NFP, COLS = NE * 6, CT = COLS / 8;
  static constexpr int FSPLIT = FS;
  static constexpr bool SPEC = SP;
  static_assert(!SP || FS > 0, "SP: with the REG LIFT only");
  static_assert(COLS % 8 == 0, "NE: a multiple of 4");
  static_assert(FS == 0 || FS == 1 || FS == 2 || FS == 4, "FS: 0 (not REG), 1, 2 or 4");
  static constexpr int LDQ = NP;                                   // sQ [COLS][NP]
  static constexpr int LDT = FS ? (NFN | 1) : NFN % 8 == 0 ? NFN + 4 : NFN;  // sF [COLS][LDT]: 4 mod 8 for the fragment loads
  static constexpr int RT8 = (NP + 7) / 8, RT = (NP + 15) / 16 * 2, KL = NFN / 4;  // LIFT: row tiles (RT: an even count), k steps
  static constexpr int LDO = FS ? (NP | 1) : RT * 8 + 2;           // sO [max(FS, 1)][COLS][LDO]
  static constexpr int Q = 0, F = Q + COLS * LDQ, O = F + COLS * LDT, R = O + (FS ? FS : 1) * COLS * LDO,
                       Y = R + (SP ? COLS * NP : 0), DOUBLES = Y + (FS ? 0 : 2 * COLS * NFP);
};

// Compile-time loops: fn(std::integral_constant<int, I>) for I in [B, E), so that every index
// computed from I is a constant and register arrays indexed by it stay in registers.
template <int B, int E, class Fn>
__host__ __device__ __forceinline__ void static_for(Fn&& fn) {
  if constexpr (B < E) {
    fn(std::integral_constant<int, B>{});
    static_for<B + 1, E>(fn);
  }
}

// The lattice of order N at compile time (rtdg's node order: alpha_1 fastest, then alpha_2, then
// alpha_3; alpha_0 = N - the rest). Face f's opposite vertex is o = {3, 2, 0, 1}[f]; its
// coefficients in face-local coordinates (b0, b1, b2) are the alpha components other than o in
// ascending order, and layer i of face f is the set with alpha_o = i.
template <int N>
struct BBIndex {
  static constexpr int NP = np_of(N), NFP = nfp_of(N);
  __host__ __device__ static constexpr int opposite(int f) { return f == 0 ? 3 : f == 1 ? 2 : f == 2 ? 0 : 1; }
  __host__ __device__ static constexpr int component(int f, int q) {
    int c = 0;
    for (int k = 0; k < 4; ++k) {
      if (k == opposite(f)) continue;
      if (c == q) return k;
      ++c;
    }
    return -1;
  }
  __host__ __device__ static constexpr int volume(int a1, int a2, int a3) {
    int idx = 0;
    for (int k = 0; k < a3; ++k) idx += nfp_of(N - k);
    for (int j = 0; j < a2; ++j) idx += N - a3 - j + 1;
    return idx + a1;
  }
  // The volume index of face f's layer-i coefficient (b1, b2), b0 = N - i - b1 - b2.
  __host__ __device__ static constexpr int at(int f, int i, int b1, int b2) {
    int a[4] = {0, 0, 0, 0};
    a[opposite(f)] = i;
    a[component(f, 0)] = N - i - b1 - b2;
    a[component(f, 1)] = b1;
    a[component(f, 2)] = b2;
    return volume(a[1], a[2], a[3]);
  }
  // Position of face f's coefficient (b1, b2) in the face's trace (ascending volume index).
  __host__ __device__ static constexpr int position(int f, int b1, int b2) {
    const int v = at(f, 0, b1, b2);
    int c = 0;
    for (int k = 0; k <= N; ++k)
      for (int j = 0; j + k <= N; ++j)
        for (int i = 0; i + j + k <= N; ++i) {
          const int a[4] = {N - i - j - k, i, j, k};
          if (a[opposite(f)] == 0 && volume(i, j, k) < v) ++c;
        }
    return c;
  }
  // Face-local index of (b1, b2) in degree N (rows of constant b2).
  __host__ __device__ static constexpr int local(int b1, int b2) { return b2 * (N + 1) - b2 * (b2 - 1) / 2 + b1; }
  // L0's 7-point pattern: (b1, b2) plus one of e_j - e_k in face-local coordinates.
  __host__ __device__ static constexpr int d1(int s) { return s == 1 || s == 6 ? -1 : s == 2 || s == 5 ? 1 : 0; }
  __host__ __device__ static constexpr int d2(int s) { return s == 3 || s == 5 ? -1 : s == 4 || s == 6 ? 1 : 0; }
  __host__ __device__ static constexpr bool inside(int b1, int b2) { return b1 >= 0 && b2 >= 0 && b1 + b2 <= N; }
};

// L0 of each face, [4][NFP][7] by face-local row and pattern slot (up to order 7).
__constant__ double c_l0[4 * 36 * 7];

// One column's LIFT (REG): for each face of [F0, F1), y = L0 x_f in registers, then layer by layer
// y <- c_i E^T y in place (de Casteljau order: (b1, b2) ascending, so the three inputs (b1, b2),
// (b1 + 1, b2), (b1, b2 + 1) of degree N - i + 1 are read before they are overwritten), each layer
// added to o at its volume coefficients. w: L0 ([4][NFP][7], c_l0 on the device); x: the
// column's flux [4 NFP] (fmask order); o: [NP].
template <int N, int F0, int F1>
__host__ __device__ __forceinline__ void lift_column(const double* w, const double* x, double* o) {
  using I = BBIndex<N>;
  constexpr int NFP = I::NFP;
  static_for<F0, F1>([&](auto FF) {
    constexpr int f = decltype(FF)::value;
#ifdef __CUDA_ARCH__
    // Keeps the next face's loads from being hoisted above this point (their registers would add
    // to this face's: 255 and spills at order 7 without it).
    if constexpr (f > F0) asm volatile("" ::: "memory");
#endif
    double xf[NFP];
    static_for<0, NFP>([&](auto M) { xf[decltype(M)::value] = x[f * NFP + decltype(M)::value]; });
    double y[N + 1][N + 1];
    static_for<0, N + 1>([&](auto B2) {
      constexpr int b2 = decltype(B2)::value;
      static_for<0, N + 1 - b2>([&](auto B1) {
        constexpr int b1 = decltype(B1)::value;
        double v = 0;
        static_for<0, 7>([&](auto S) {
          constexpr int s = decltype(S)::value, c1 = b1 + I::d1(s), c2 = b2 + I::d2(s);
          if constexpr (I::inside(c1, c2)) {
            constexpr int m = I::position(f, c1, c2);
            v = fma(w[(f * NFP + I::local(b1, b2)) * 7 + s], xf[m], v);
          }
        });
        y[b1][b2] = v;
        constexpr int a = I::at(f, 0, b1, b2);
        if constexpr (f == F0) o[a] = v; else o[a] += v;
      });
    });
    static_for<1, N + 1>([&](auto II) {
      constexpr int i = decltype(II)::value, m = N - i;
      static_for<0, m + 1>([&](auto B2) {
        constexpr int b2 = decltype(B2)::value;
        static_for<0, m + 1 - b2>([&](auto B1) {
          constexpr int b1 = decltype(B1)::value, b0 = m - b1 - b2;
          constexpr double w0 = -(b0 + 1.0) / (i + 1), w1 = -(b1 + 1.0) / (i + 1), w2 = -(b2 + 1.0) / (i + 1);
          const double v = fma(w2, y[b1][b2 + 1], fma(w1, y[b1 + 1][b2], w0 * y[b1][b2]));
          y[b1][b2] = v;
          constexpr int a = I::at(f, i, b1, b2);
          if constexpr (f == F0) o[a] = v; else o[a] += v;
        });
      });
    });
  });
}

struct Args {
  const double *q, *res0;
  double *qo, *res;
  const double *drdx, *fgeo, *fragL;
  const int *vmapP, *fmask, *stencil;  // stencil [12][NP] lattice indices, then [NP] packed alpha
  double a, b, dt;
  // The layered LIFT (LAYERED): per face f, layer 0 = L0_f (sparse, CSR over the face's NFP
  // coefficients: l0_ptr [4][NFP + 1], l0_col / l0_val), layer i = c_i E^T layer i - 1 (3 terms:
  // lay_pred [4][NP][3] positions in the previous layer, lay_w the weights), entry p of layer i
  // at volume coefficient lay_alpha [4][NP] (layers of a face one after the other, from 0).
  const int *l0_ptr, *l0_col, *lay_pred, *lay_alpha, *lay_start;  // lay_start [4][N + 2]
  const double *l0_val, *lay_w;
};

// The volume term at node i of the block's element e: the stencil derivatives, the chain rule and
// the curl (zero without MODE bit 2).
template <class SH, int MODE>
__device__ __forceinline__ void volume_term(const Args& p, const double* sQ, long k0, int e, int i, double (&rhs)[6]) {
  constexpr int NP = SH::NP;
  int nb[12];
#pragma unroll
  for (int s = 0; s < 12; ++s) nb[s] = __ldg(p.stencil + s * NP + i);
  const int packed = __ldg(p.stencil + 12 * NP + i);
  const double al[4] = {double(packed & 255), double((packed >> 8) & 255), double((packed >> 16) & 255),
                        double((packed >> 24) & 255)};
  const double* g = p.drdx + (k0 + e) * 9;
  double G[9];
#pragma unroll
  for (int x = 0; x < 9; ++x) G[x] = __ldg(g + x);
  double dx[6][3];
#pragma unroll
  for (int c = 0; c < 6; ++c) {
    const double* u = sQ + (e * 6 + c) * SH::LDQ;
    double dr[3] = {0, 0, 0};
    if (MODE & 2) {
      // v[j][k] = c_{alpha - e_k + e_j}, slot j * 3 + (k < j ? k : k - 1); v[j][j] = c_alpha.
      const double self = u[i];
      double v[4][4];
#pragma unroll
      for (int j = 0; j < 4; ++j)
#pragma unroll
        for (int k = 0; k < 4; ++k) v[j][k] = j == k ? self : u[nb[j * 3 + (k < j ? k : k - 1)]];
#pragma unroll
      for (int j = 1; j < 4; ++j) {
        double s = 0;
#pragma unroll
        for (int k = 0; k < 4; ++k) s += al[k] * (v[j][k] - v[0][k]);
        dr[j - 1] = 0.5 * s;  // d/dr_j = (d_j - d_0) / 2
      }
    }
#pragma unroll
    for (int x = 0; x < 3; ++x) dx[c][x] = G[x] * dr[0] + G[3 + x] * dr[1] + G[6 + x] * dr[2];
  }
  maxwell_curl(dx, rhs);
}

// MODE bits: 1 LIFT products, 2 stencil (volume term), 4 face fluxes. PAIR: LIFT with m16n8k4.
// PREFETCH: the neighbours' traces copied (cp.async) into sF with the state, so their latencies
// overlap, and the face fluxes written over them.
template <class SH, int NT, int MODE, bool PAIR, bool PREFETCH, bool LAYERED = false>
__global__ void __launch_bounds__(NT) bb_stage(Args p) {
  constexpr int NP = SH::NP, NFP = SH::NFP, NFN = SH::NFN, NE = SH::NE, N = SH::N;
  extern __shared__ double sm[];
  double* sQ = sm + SH::Q;
  double* sF = sm + SH::F;
  double* sO = sm + SH::O;
  const int tid = threadIdx.x;
  const long k0 = long(blockIdx.x) * NE;
  if (PREFETCH) {
    for (int s = tid; s < NE * 6 * NP; s += NT) cp8(sQ + s, p.q + k0 * 6 * NP + s);
    if (MODE & 4)
      for (int s = tid; s < NE * NFN; s += NT) {
        const int e = s / NFN, m = s - e * NFN;
        const int gp = __ldg(p.vmapP + k0 * NFN + s), kP = gp / NP, iP = gp - kP * NP;
#pragma unroll
        for (int c = 0; c < 6; ++c) cp8(sF + (e * 6 + c) * SH::LDT + m, p.q + (long(kP) * 6 + c) * NP + iP);
      }
    asm volatile("cp.async.wait_all;" ::: "memory");
  } else {
    for (int s = tid; s < NE * 6 * NP; s += NT) sQ[s] = __ldg(p.q + k0 * 6 * NP + s);
  }
  __syncthreads();
  // Face fluxes: Fscale / 2 times the upwind flux at every face coefficient.
  for (int s = tid; s < NE * NFN; s += NT) {
    const int e = s / NFN, m = s - e * NFN, f = m / NFP;
    double F[6] = {};
    if (MODE & 4) {
      const int iM = __ldg(p.fmask + m);
      double d[6];
      if (PREFETCH) {
#pragma unroll
        for (int c = 0; c < 6; ++c) d[c] = sQ[(e * 6 + c) * SH::LDQ + iM] - sF[(e * 6 + c) * SH::LDT + m];
      } else {
        const int gp = __ldg(p.vmapP + k0 * NFN + s), kP = gp / NP, iP = gp - kP * NP;
#pragma unroll
        for (int c = 0; c < 6; ++c) d[c] = sQ[(e * 6 + c) * SH::LDQ + iM] - __ldg(p.q + (long(kP) * 6 + c) * NP + iP);
      }
      const double* g = p.fgeo + ((k0 + e) * 4 + f) * 4;
      const double nx = __ldg(g), ny = __ldg(g + 1), nz = __ldg(g + 2), fs = 0.5 * __ldg(g + 3);
      upwind_flux(d, nx, ny, nz, F);
#pragma unroll
      for (int c = 0; c < 6; ++c) F[c] *= fs;
    }
#pragma unroll
    for (int c = 0; c < 6; ++c) sF[(e * 6 + c) * SH::LDT + m] = F[c];
  }
  __syncthreads();
  // LIFT (NP x NFN) times the block's flux columns, into sO [column][row].
  if constexpr ((MODE & 1) && SH::FSPLIT > 0) {
    // REG: FS threads per column, each with its share of the faces and its own sO.
    constexpr int FS = SH::FSPLIT;
    static_assert(NT >= FS * SH::COLS, "REG: a thread per column and face share");
    constexpr int LT = SH::SPEC ? (FS * SH::COLS + 31) / 32 * 32 : 0;  // SPEC: the LIFT warps' threads
    static_assert(!SH::SPEC || NT > LT, "SPEC: threads beyond the LIFT warps");
    if (SH::SPEC && tid >= LT) {
      for (int t = tid - LT; t < NE * NP; t += NT - LT) {
        const int e = t / NP, i = t - e * NP;
        double rhs[6];
        volume_term<SH, MODE>(p, sQ, k0, e, i, rhs);
#pragma unroll
        for (int c = 0; c < 6; ++c) sm[SH::R + (e * 6 + c) * NP + i] = rhs[c];
      }
    } else if (tid < FS * SH::COLS) {
      const int part = tid / SH::COLS, col = tid - part * SH::COLS;
      const double* x = sF + col * SH::LDT;
      double* o = sO + (part * SH::COLS + col) * SH::LDO;
      if constexpr (FS == 1) {
        lift_column<N, 0, 4>(c_l0, x, o);
      } else if constexpr (FS == 2) {
        if (part == 0) lift_column<N, 0, 2>(c_l0, x, o); else lift_column<N, 2, 4>(c_l0, x, o);
      } else {
        if (part == 0) lift_column<N, 0, 1>(c_l0, x, o);
        else if (part == 1) lift_column<N, 1, 2>(c_l0, x, o);
        else if (part == 2) lift_column<N, 2, 3>(c_l0, x, o);
        else lift_column<N, 3, 4>(c_l0, x, o);
      }
    }
    __syncthreads();
  } else if ((MODE & 1) && LAYERED) {
    // Face by face, layer by layer: y_0 = L0_f F_f, y_i = c_i E^T y_(i-1), each layer's entries
    // added to (face 0: written into) sO at their volume coefficients.
    double* sY = sm + SH::Y;
    for (int f = 0; f < 4; ++f) {
      for (int s = tid; s < SH::COLS * NFP; s += NT) {
        const int col = s / NFP, r = s - col * NFP;
        const double* x = sF + col * SH::LDT + f * NFP;
        double v = 0;
        for (int j = __ldg(p.l0_ptr + f * (NFP + 1) + r), je = __ldg(p.l0_ptr + f * (NFP + 1) + r + 1); j < je; ++j)
          v += __ldg(p.l0_val + j) * x[__ldg(p.l0_col + j)];
        sY[col * NFP + r] = v;
        const int at = __ldg(p.lay_alpha + f * NP + r);
        if (f == 0) sO[col * SH::LDO + at] = v; else sO[col * SH::LDO + at] += v;
      }
      __syncthreads();
#pragma unroll 1
      for (int i = 1; i <= N; ++i) {
        const int b0 = __ldg(p.lay_start + f * (N + 2) + i), size = __ldg(p.lay_start + f * (N + 2) + i + 1) - b0;
        const double* prev = sY + ((i - 1) & 1) * SH::COLS * NFP;
        double* cur = sY + (i & 1) * SH::COLS * NFP;
        for (int s = tid; s < SH::COLS * size; s += NT) {
          const int col = s / size, r = s - col * size, e = b0 + r;
          const int* pr = p.lay_pred + (f * NP + e) * 3;
          const double* w = p.lay_w + (f * NP + e) * 3;
          const double* y = prev + col * NFP;
          const double v = __ldg(w) * y[__ldg(pr)] + __ldg(w + 1) * y[__ldg(pr + 1)] + __ldg(w + 2) * y[__ldg(pr + 2)];
          cur[col * NFP + r] = v;
          const int at = __ldg(p.lay_alpha + f * NP + e);
          if (f == 0) sO[col * SH::LDO + at] = v; else sO[col * SH::LDO + at] += v;
        }
        __syncthreads();
      }
    }
  } else if (MODE & 1) {
    const int warp = tid >> 5, lane = tid & 31, bn = lane >> 2, bk = lane & 3;
    if (PAIR) {
      for (int item = warp; item < SH::RT / 2 * SH::CT; item += NT / 32) {
        const int mp = item / SH::CT, ct = item - mp * SH::CT;
        double d0 = 0, d1 = 0, d2 = 0, d3 = 0;
        const double* B = sF + (ct * 8 + bn) * SH::LDT + bk;
        const double* A0 = p.fragL + (2 * mp) * SH::KL * 32 + lane;
        const double* A1 = A0 + SH::KL * 32;
#pragma unroll 4
        for (int ks = 0; ks < SH::KL; ++ks) dmma16(d0, d1, d2, d3, __ldg(A0 + ks * 32), __ldg(A1 + ks * 32), B[ks * 4]);
        double* o = sO + (ct * 8 + 2 * bk) * SH::LDO + mp * 16 + bn;
        o[0] = d0;
        o[SH::LDO] = d1;
        o[8] = d2;
        o[SH::LDO + 8] = d3;
      }
    } else {
      for (int item = warp; item < SH::RT8 * SH::CT; item += NT / 32) {
        const int mt = item / SH::CT, ct = item - mt * SH::CT;
        double d0 = 0, d1 = 0, e0 = 0, e1 = 0;
        const double* B = sF + (ct * 8 + bn) * SH::LDT + bk;
        const double* A = p.fragL + mt * SH::KL * 32 + lane;
#pragma unroll 4
        for (int ks = 0; ks < SH::KL; ks += 2) {
          dmma(d0, d1, __ldg(A + ks * 32), B[ks * 4]);
          if (ks + 1 < SH::KL) dmma(e0, e1, __ldg(A + (ks + 1) * 32), B[(ks + 1) * 4]);
        }
        double* o = sO + (ct * 8 + 2 * bk) * SH::LDO + mt * 8 + bn;
        o[0] = d0 + e0;
        o[SH::LDO] = d1 + e1;
      }
    }
    __syncthreads();
  }
  // Node phase: the volume term (from sR under SPEC), LIFT's sum and the update.
  for (int t = tid; t < NE * NP; t += NT) {
    const int e = t / NP, i = t - e * NP;
    double rhs[6];
    if constexpr (SH::SPEC && (MODE & 1)) {
#pragma unroll
      for (int c = 0; c < 6; ++c) rhs[c] = sm[SH::R + (e * 6 + c) * NP + i];
    } else {
      volume_term<SH, MODE>(p, sQ, k0, e, i, rhs);
    }
#pragma unroll
    for (int c = 0; c < 6; ++c) {
      const long idx = ((k0 + e) * 6 + c) * NP + i;
      double lift = 0.0;
      if (MODE & 1) {
#pragma unroll
        for (int q = 0; q < (SH::FSPLIT ? SH::FSPLIT : 1); ++q) lift += sO[(q * SH::COLS + e * 6 + c) * SH::LDO + i];
      }
      const double r = p.a * __ldg(p.res0 + idx) + p.dt * (rhs[c] + lift);
      p.res[idx] = r;
      p.qo[idx] = sQ[(e * 6 + c) * SH::LDQ + i] + p.b * r;
    }
  }
}

// The lattice of order N in rtdg's node order (i for r fastest, then j, then k), alpha =
// (N - i - j - k, i, j, k); faces f0 t = -1 (alpha_3 = 0), f1 s = -1 (alpha_2 = 0), f2
// r + s + t = -1 (alpha_0 = 0), f3 r = -1 (alpha_1 = 0), each in ascending index.
template <int N>
struct Lattice {
  static constexpr int NP = np_of(N), NFP = nfp_of(N);
  std::vector<std::array<int, 4>> alpha;
  std::vector<int> fmask, stencil;  // stencil: [12][NP] then packed alpha [NP]
  int index(const std::array<int, 4>& a) const {
    for (int n = 0; n < NP; ++n)
      if (alpha[n] == a) return n;
    return -1;
  }
  Lattice() {
    for (int k = 0; k <= N; ++k)
      for (int j = 0; j + k <= N; ++j)
        for (int i = 0; i + j + k <= N; ++i) alpha.push_back({N - i - j - k, i, j, k});
    const int opposite[4] = {3, 2, 0, 1};
    for (int f = 0; f < 4; ++f)
      for (int n = 0; n < NP; ++n)
        if (alpha[n][opposite[f]] == 0) fmask.push_back(n);
    stencil.assign(13 * NP, 0);
    for (int n = 0; n < NP; ++n) {
      for (int j = 0; j < 4; ++j)
        for (int k = 0; k < 4; ++k) {
          if (j == k) continue;
          std::array<int, 4> a = alpha[n];
          int target = n;  // alpha_k = 0: the term has weight 0, any valid index
          if (a[k] > 0) {
            --a[k];
            ++a[j];
            target = index(a);
          }
          stencil[(j * 3 + (k < j ? k : k - 1)) * NP + n] = target;
        }
      stencil[12 * NP + n] = alpha[n][0] | alpha[n][1] << 8 | alpha[n][2] << 16 | alpha[n][3] << 24;
    }
  }
  // The Bernstein LIFT, M^-1 M_f for the four faces side by side (NP x 4 NFP, columns in fmask
  // order), from the closed-form mass matrices: int_T B_a B_b = (N!)^2 / (a! b!) 3! (a + b)! /
  // (2N + 3)! |T| and on a face (both multi-indices without the opposite vertex) the same with
  // 2! and (2N + 2)!, |T| = 4/3 and |face| = 2 (the reference measures LIFT uses).
  std::vector<double> lift() const {
    auto mf = [](const std::array<int, 4>& a) { double v = 1; for (int q = 0; q < 4; ++q) v *= std::tgamma(a[q] + 1.0); return v; };
    const double nf = std::tgamma(N + 1.0);
    std::vector<double> M(NP * NP), X(NP * 4 * NFP, 0.0);
    for (int x = 0; x < NP; ++x)
      for (int y = 0; y < NP; ++y) {
        std::array<int, 4> ab;
        for (int q = 0; q < 4; ++q) ab[q] = alpha[x][q] + alpha[y][q];
        M[x * NP + y] = nf * nf / (mf(alpha[x]) * mf(alpha[y])) * 6.0 * mf(ab) / std::tgamma(2 * N + 4.0) * (4.0 / 3.0);
      }
    const int opposite[4] = {3, 2, 0, 1};
    for (int f = 0; f < 4; ++f)
      for (int x = 0; x < NP; ++x) {
        if (alpha[x][opposite[f]] != 0) continue;
        for (int m = 0; m < NFP; ++m) {
          const int y = fmask[f * NFP + m];
          std::array<int, 4> ab;
          for (int q = 0; q < 4; ++q) ab[q] = alpha[x][q] + alpha[y][q];
          X[x * 4 * NFP + f * NFP + m] = nf * nf / (mf(alpha[x]) * mf(alpha[y])) * 2.0 * mf(ab) / std::tgamma(2 * N + 3.0) * 2.0;
        }
      }
    // Solve M L = X by Gaussian elimination with partial pivoting.
    const int C = 4 * NFP;
    for (int col = 0; col < NP; ++col) {
      int piv = col;
      for (int r = col + 1; r < NP; ++r)
        if (std::abs(M[r * NP + col]) > std::abs(M[piv * NP + col])) piv = r;
      for (int j = 0; j < NP; ++j) std::swap(M[col * NP + j], M[piv * NP + j]);
      for (int j = 0; j < C; ++j) std::swap(X[col * C + j], X[piv * C + j]);
      for (int r = 0; r < NP; ++r) {
        if (r == col) continue;
        const double fct = M[r * NP + col] / M[col * NP + col];
        if (fct == 0) continue;
        for (int j = 0; j < NP; ++j) M[r * NP + j] -= fct * M[col * NP + j];
        for (int j = 0; j < C; ++j) X[r * C + j] -= fct * X[col * C + j];
      }
    }
    for (int r = 0; r < NP; ++r)
      for (int j = 0; j < C; ++j) X[r * C + j] /= M[r * NP + r];
    return X;
  }
  // The layered form of `L` (lift()): l0 CSR rows per face, and each face's layers in order.
  struct Layers {
    std::vector<int> l0_ptr, l0_col, pred, at, start;
    std::vector<double> l0_val, w;
  };
  Layers layers(const std::vector<double>& L) const {
    const int opposite[4] = {3, 2, 0, 1};
    Layers t;
    double largest = 0;
    for (double v : L) largest = std::max(largest, std::abs(v));
    t.pred.assign(4 * NP * 3, 0);
    t.w.assign(4 * NP * 3, 0.0);
    t.at.assign(4 * NP, 0);
    for (int f = 0; f < 4; ++f) {
      const int o = opposite[f];
      std::vector<int> order;  // the face's layers, each in ascending coefficient index
      std::vector<int> first;
      for (int i = 0; i <= N; ++i) {
        first.push_back(int(order.size()));
        for (int n = 0; n < NP; ++n)
          if (alpha[n][o] == i) order.push_back(n);
      }
      first.push_back(NP);
      for (int v : first) t.start.push_back(v);
      t.l0_ptr.push_back(int(t.l0_col.size()));
      for (int r = 0; r < NFP; ++r) {
        for (int m = 0; m < NFP; ++m) {
          const double v = L[order[r] * 4 * NFP + f * NFP + m];
          if (std::abs(v) > 1e-12 * largest) {
            t.l0_col.push_back(m);
            t.l0_val.push_back(v);
          }
        }
        t.l0_ptr.push_back(int(t.l0_col.size()));
      }
      for (int e = 0; e < NP; ++e) {
        const int n = order[e], i = alpha[n][o];
        t.at[f * NP + e] = n;
        if (i == 0) continue;
        const double ci = -double(N - i + 1) / (i + 1);
        int slot = 0;
        for (int k = 0; k < 4; ++k) {
          if (k == o) continue;
          std::array<int, 4> b = alpha[n];
          ++b[k];
          --b[o];
          const int nb = index(b);
          const int pos = int(std::find(order.begin() + first[i - 1], order.begin() + first[i], nb) - order.begin()) - first[i - 1];
          t.pred[(f * NP + e) * 3 + slot] = pos;
          t.w[(f * NP + e) * 3 + slot] = ci * (alpha[n][k] + 1.0) / (N - i + 1.0);
          ++slot;
        }
      }
    }
    return t;
  }
  // The layers applied on the host to every unit face vector, against L: the largest difference
  // relative to L's largest entry (checks that L has the layered form).
  double check_layers(const std::vector<double>& L, const Layers& t) const {
    double diff = 0, largest = 0;
    for (double v : L) largest = std::max(largest, std::abs(v));
    for (int f = 0; f < 4; ++f)
      for (int m = 0; m < NFP; ++m) {
        std::vector<double> y(NP, 0.0), out(NP, 0.0);
        for (int r = 0; r < NFP; ++r)
          for (int j = t.l0_ptr[f * (NFP + 1) + r]; j < t.l0_ptr[f * (NFP + 1) + r + 1]; ++j)
            if (t.l0_col[j] == m) y[r] = t.l0_val[j];
        for (int e = 0; e < NP; ++e) {
          int layer = 0;
          while (t.start[f * (N + 2) + layer + 1] <= e) ++layer;
          if (layer > 0) {
            const int b0 = t.start[f * (N + 2) + layer - 1];
            double v = 0;
            for (int q = 0; q < 3; ++q) v += t.w[(f * NP + e) * 3 + q] * y[b0 + t.pred[(f * NP + e) * 3 + q]];
            y[e] = v;
          }
          out[t.at[f * NP + e]] = y[e];
        }
        for (int n = 0; n < NP; ++n) diff = std::max(diff, std::abs(out[n] - L[n * 4 * NFP + f * NFP + m]));
      }
    return diff / largest;
  }
  // The reference derivatives (d/dr, d/ds, d/dt) of the polynomial with coefficients c, as
  // coefficients, by the stencil.
  void derivatives(const double* c, double* dr) const {
    for (int n = 0; n < NP; ++n)
      for (int j = 1; j < 4; ++j) {
        double s = 0;
        for (int k = 0; k < 4; ++k) {
          if (alpha[n][k] == 0) continue;
          auto to = [&](int jj) {
            std::array<int, 4> a = alpha[n];
            --a[k];
            ++a[jj];
            return c[index(a)];
          };
          s += alpha[n][k] * (to(j) - to(0));
        }
        dr[(j - 1) * NP + n] = 0.5 * s;
      }
  }
  static double bernstein(const std::array<int, 4>& a, double r, double s, double t) {
    const double l[4] = {-(1 + r + s + t) / 2, (1 + r) / 2, (1 + s) / 2, (1 + t) / 2};
    double v = std::tgamma(N + 1.0);
    for (int q = 0; q < 4; ++q) v *= std::pow(l[q], a[q]) / std::tgamma(a[q] + 1.0);
    return v;
  }
  double evaluate(const double* c, double r, double s, double t) const {
    double v = 0;
    for (int n = 0; n < NP; ++n) v += c[n] * bernstein(alpha[n], r, s, t);
    return v;
  }
  // The stencil against central differences of the polynomial at random interior points: the
  // largest difference relative to the largest derivative.
  double check_stencil(std::mt19937& rng) const {
    std::uniform_real_distribution<double> U(-1, 1);
    std::vector<double> c(NP), dr(3 * NP);
    for (auto& x : c) x = U(rng);
    derivatives(c.data(), dr.data());
    double diff = 0, scale = 0;
    for (int trial = 0; trial < 20; ++trial) {
      double x[3];
      do {
        for (auto& v : x) v = U(rng);
      } while (x[0] + x[1] + x[2] > -1.0 + 1e-3);
      const double h = 1e-5;
      for (int d = 0; d < 3; ++d) {
        double xp[3] = {x[0], x[1], x[2]}, xm[3] = {x[0], x[1], x[2]};
        xp[d] += h;
        xm[d] -= h;
        const double fd = (evaluate(c.data(), xp[0], xp[1], xp[2]) - evaluate(c.data(), xm[0], xm[1], xm[2])) / (2 * h);
        const double st = evaluate(dr.data() + d * NP, x[0], x[1], x[2]);
        diff = std::max(diff, std::abs(fd - st));
        scale = std::max(scale, std::abs(fd));
      }
    }
    return diff / scale;
  }
};

static std::string sci(double v) {
  char b[32];
  snprintf(b, sizeof b, "%.1e", v);
  return b;
}

// REG's L0 weights ([4][NFP][7], for c_l0) from the Bernstein LIFT L (NP x 4 NFP), with checks:
// that the compile-time indices agree with the lattice (exits if not), L0's largest entry outside
// the 7-point pattern relative to L's largest (pattern_error), and the unrolled code run on the
// host against L on random flux columns, whole and split over faces (unrolled_error).
template <int N>
std::vector<double> reg_weights(const Lattice<N>& lat, const std::vector<double>& L, double& pattern_error,
                                double& unrolled_error, std::mt19937& rng) {
  using I = BBIndex<N>;
  constexpr int NP = np_of(N), NFP = nfp_of(N), NFN = 4 * NFP;
  std::vector<double> w(4 * 36 * 7, 0.0);
  double largest = 0, outside = 0;
  for (double v : L) largest = std::max(largest, std::abs(v));
  for (int f = 0; f < 4; ++f)
    for (int b2 = 0; b2 <= N; ++b2)
      for (int b1 = 0; b1 + b2 <= N; ++b1) {
        const int row = I::at(f, 0, b1, b2);
        if (lat.fmask[f * NFP + I::position(f, b1, b2)] != row) {
          printf("REG: face %d (%d, %d): index mismatch\n", f, b1, b2);
          exit(1);
        }
        std::vector<bool> used(NFP, false);
        for (int sl = 0; sl < 7; ++sl) {
          const int c1 = b1 + I::d1(sl), c2 = b2 + I::d2(sl);
          if (!I::inside(c1, c2)) continue;
          const int m = I::position(f, c1, c2);
          used[m] = true;
          w[(f * NFP + I::local(b1, b2)) * 7 + sl] = L[row * NFN + f * NFP + m];
        }
        for (int m = 0; m < NFP; ++m)
          if (!used[m]) outside = std::max(outside, std::abs(L[row * NFN + f * NFP + m]));
      }
  pattern_error = outside / largest;
  std::uniform_real_distribution<double> U(-1, 1);
  double diff = 0, scale = 0;
  for (int trial = 0; trial < 8; ++trial) {
    std::vector<double> x(NFN), o(NP, 0.0), o2(NP, 0.0), o3(NP, 0.0);
    for (auto& v : x) v = U(rng);
    if (trial % 2) {
      lift_column<N, 0, 1>(w.data(), x.data(), o.data());
      lift_column<N, 1, 2>(w.data(), x.data(), o2.data());
      lift_column<N, 2, 4>(w.data(), x.data(), o3.data());
    } else {
      lift_column<N, 0, 4>(w.data(), x.data(), o.data());
    }
    for (int r = 0; r < NP; ++r) {
      double ref = 0;
      for (int m = 0; m < NFN; ++m) ref += L[r * NFN + m] * x[m];
      diff = std::max(diff, std::abs(o[r] + o2[r] + o3[r] - ref));
      scale = std::max(scale, std::abs(ref));
    }
  }
  unrolled_error = diff / scale;
  return w;
}

// Without a GPU: the REG code's checks on the host at orders 1-7.
template <int N>
void host_check() {
  const Lattice<N> lat;
  std::mt19937 rng(7);
  const std::vector<double> L = lat.lift();
  double pattern = 0, unrolled = 0;
  reg_weights(lat, L, pattern, unrolled, rng);
  printf("N%d: layers vs M^-1 M_f %.1e, L0 outside its 7 points %.1e, unrolled REG LIFT vs L %.1e\n", N,
         lat.check_layers(L, lat.layers(L)), pattern, unrolled);
}

template <int N, int NE, int NT, bool PAIR = false, bool PREFETCH = false, bool LAYERED = false, int FS = 0, bool SP = false>
void run(int K, int spread, int sms) {
  using SH = Shape<N, NE, FS, SP>;
  constexpr int NP = SH::NP, NFP = SH::NFP, NFN = SH::NFN;
  K = K / NE * NE;
  const Lattice<N> lat;
  std::mt19937 rng(7);
  const double stencil_error = lat.check_stencil(rng);
  std::uniform_real_distribution<double> U(-1, 1);
  const long n = long(K) * 6 * NP;
  std::vector<double> q(n), r0(n), g(long(K) * 9), f(long(K) * 16), L(NP * NFN);
  for (auto& x : q) x = U(rng);
  for (auto& x : r0) x = U(rng);
  for (auto& x : g) x = U(rng);
  for (auto& x : f) x = U(rng);
  for (auto& x : L) x = U(rng) * 0.1;
  double layer_error = -1;
  typename Lattice<N>::Layers lay;
  double pattern_error = -1;  // REG: L0's largest entry outside the 7-point pattern, relative
  if (LAYERED || FS) {
    L = lat.lift();
    lay = lat.layers(L);
    layer_error = lat.check_layers(L, lay);
  }
  if (FS) {
    double unrolled_error = 0;
    const std::vector<double> w = reg_weights(lat, L, pattern_error, unrolled_error, rng);
    printf("REG N%d: unrolled LIFT on the host against L: %.1e relative\n", N, unrolled_error);
    CK(cudaMemcpyToSymbol(c_l0, w.data(), w.size() * sizeof(double)));
  }
  std::vector<int> vm(long(K) * NFN);
  const int off[4] = {1, -1, spread, -spread};
  for (int k = 0; k < K; ++k)
    for (int fc = 0; fc < 4; ++fc) {
      const int kP = spread > 0 ? ((k + off[fc]) % K + K) % K : int(rng() % K);
      const int fP = int(rng() % 4);
      for (int m = 0; m < NFP; ++m) vm[long(k) * NFN + fc * NFP + m] = kP * NP + lat.fmask[fP * NFP + (NFP - 1 - m)];
    }
  // LIFT fragments [RT][KL][32], zero rows beyond NP.
  std::vector<double> fl(SH::RT * SH::KL * 32);
  for (int t = 0; t < SH::RT; ++t)
    for (int ks = 0; ks < SH::KL; ++ks)
      for (int l = 0; l < 32; ++l) {
        const int row = t * 8 + l / 4, k = ks * 4 + l % 4;
        fl[(t * SH::KL + ks) * 32 + l] = row < NP ? L[row * NFN + k] : 0.0;
      }
  double *dq, *dqo, *dres, *dres0, *dg, *df, *dfl;
  int *dvm, *dfm, *dst;
  CK(cudaMalloc(&dq, n * 8)); CK(cudaMalloc(&dqo, n * 8)); CK(cudaMalloc(&dres, n * 8)); CK(cudaMalloc(&dres0, n * 8));
  CK(cudaMalloc(&dg, g.size() * 8)); CK(cudaMalloc(&df, f.size() * 8)); CK(cudaMalloc(&dfl, fl.size() * 8));
  CK(cudaMalloc(&dvm, vm.size() * 4)); CK(cudaMalloc(&dfm, lat.fmask.size() * 4)); CK(cudaMalloc(&dst, lat.stencil.size() * 4));
  CK(cudaMemcpy(dq, q.data(), n * 8, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dres0, r0.data(), n * 8, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dg, g.data(), g.size() * 8, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(df, f.data(), f.size() * 8, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dfl, fl.data(), fl.size() * 8, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dvm, vm.data(), vm.size() * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dfm, lat.fmask.data(), lat.fmask.size() * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dst, lat.stencil.data(), lat.stencil.size() * 4, cudaMemcpyHostToDevice));
  int *dlp = nullptr, *dlc = nullptr, *dpr = nullptr, *dat = nullptr, *dls = nullptr;
  double *dlv = nullptr, *dw = nullptr;
  if (LAYERED) {
    auto upload = [](auto& dev, const auto& host) {
      CK(cudaMalloc(&dev, host.size() * sizeof(host[0])));
      CK(cudaMemcpy(dev, host.data(), host.size() * sizeof(host[0]), cudaMemcpyHostToDevice));
    };
    upload(dlp, lay.l0_ptr); upload(dlc, lay.l0_col); upload(dpr, lay.pred); upload(dat, lay.at); upload(dls, lay.start);
    upload(dlv, lay.l0_val); upload(dw, lay.w);
  }
  const double a = 0.5, b = 0.1, dt = 1e-3;
  Args args{dq, dres0, dqo, dres, dg, df, dfl, dvm, dfm, dst, a, b, dt, dlp, dlc, dpr, dat, dls, dlv, dw};
  const size_t bytes = SH::DOUBLES * 8;
  Timer tm;
  const float t_copy = tm.ms([&] { copy4<double><<<sms * 16, 256>>>(dq, dres0, dqo, dres, n); }, 20);
  auto timed = [&](auto kernel, int& regs, int& occ) {
    CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, kernel, NT, bytes));
    cudaFuncAttributes at;
    CK(cudaFuncGetAttributes(&at, kernel));
    regs = at.numRegs;
    if (occ == 0) return -1.0f;
    const float ms = tm.ms([&] { kernel<<<K / NE, NT, bytes>>>(args); }, 20);
    CK(cudaGetLastError());
    return ms;
  };
  // Agreement: the full kernel against the host on every 97th element.
  int regs = 0, occ = 0;
  const float t7 = timed(bb_stage<SH, NT, 7, PAIR, PREFETCH, LAYERED>, regs, occ);
  std::vector<double> hr(n), hq(n);
  CK(cudaMemcpy(hr.data(), dres, n * 8, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hq.data(), dqo, n * 8, cudaMemcpyDeviceToHost));
  double diff = 0, scale = 0;
  std::vector<double> dr(3 * NP), flux(6 * NFN);
  for (int k = 0; k < K; k += 97) {
    const double* u = q.data() + long(k) * 6 * NP;
    for (int m = 0; m < NFN; ++m) {
      const int gp = vm[long(k) * NFN + m], kP = gp / NP, iP = gp % NP, fc = m / NFP;
      double dd[6], F[6];
      for (int c = 0; c < 6; ++c) dd[c] = u[c * NP + lat.fmask[m]] - q[(long(kP) * 6 + c) * NP + iP];
      const double* gg = f.data() + (long(k) * 4 + fc) * 4;
      upwind_flux(dd, gg[0], gg[1], gg[2], F);
      for (int c = 0; c < 6; ++c) flux[c * NFN + m] = 0.5 * gg[3] * F[c];
    }
    double dxs[6][3][NP];
    for (int c = 0; c < 6; ++c) {
      lat.derivatives(u + c * NP, dr.data());
      for (int i = 0; i < NP; ++i)
        for (int x = 0; x < 3; ++x) {
          const double* gk = g.data() + long(k) * 9;
          dxs[c][x][i] = gk[x] * dr[i] + gk[3 + x] * dr[NP + i] + gk[6 + x] * dr[2 * NP + i];
        }
    }
    for (int i = 0; i < NP; ++i) {
      double dx[6][3], rhs[6];
      for (int c = 0; c < 6; ++c)
        for (int x = 0; x < 3; ++x) dx[c][x] = dxs[c][x][i];
      maxwell_curl(dx, rhs);
      for (int c = 0; c < 6; ++c) {
        double lift = 0;
        for (int m = 0; m < NFN; ++m) lift += L[i * NFN + m] * flux[c * NFN + m];
        const long idx = (long(k) * 6 + c) * NP + i;
        const double rr = a * r0[idx] + dt * (rhs[c] + lift), qq = u[c * NP + i] + b * rr;
        diff = std::max({diff, std::abs(hr[idx] - rr), std::abs(hq[idx] - qq)});
        scale = std::max(scale, std::abs(qq));
      }
    }
  }
  int r3, o3, r6, o6, r4, o4;
  const float t3 = timed(bb_stage<SH, NT, 3, PAIR, PREFETCH, LAYERED>, r3, o3);   // no face fluxes
  const float t6 = timed(bb_stage<SH, NT, 6, PAIR, PREFETCH, LAYERED>, r6, o6);   // no LIFT products
  const float t4 = timed(bb_stage<SH, NT, 4, PAIR, PREFETCH, LAYERED>, r4, o4);   // face fluxes and update only
  const float t0 = timed(bb_stage<SH, NT, 0, PAIR, PREFETCH, LAYERED>, r4, o4);   // loads, gathers' indices and stores only
  const std::string reg = FS ? " reg LIFT x" + std::to_string(FS) + (SP ? " spec" : "") + " (L0 outside 7 points " + sci(pattern_error) + ")" : "";
  printf("N%d NE%2d NT%4d%s%s%s%s | %3d regs %2d blocks/SM %6.1f KB | stage %.4f ms, %5.1f %% of copy4 (%.4f ms) | without: face fluxes %.4f, "
         "LIFT %.4f, LIFT and stencil %.4f, all %.4f ms | rel. error %.1e, stencil vs finite differences %.1e%s\n",
         N, NE, NT, PAIR ? " m16n8k4" : "", PREFETCH ? " prefetch" : "", LAYERED ? " layered LIFT" : "", reg.c_str(), regs, occ, bytes / 1024.0, t7, 100.0 * t_copy / t7, t_copy, t3, t6, t4, t0, diff / scale, stencil_error,
         LAYERED || FS ? (", layers vs M^-1 M_f " + sci(layer_error) + ", L0 " + std::to_string(lay.l0_col.size() / 4) +
                    " of " + std::to_string(NFP * NFP) + " per face").c_str() : "");
  fflush(stdout);
  cudaFree(dq); cudaFree(dqo); cudaFree(dres); cudaFree(dres0); cudaFree(dg); cudaFree(df); cudaFree(dfl);
  cudaFree(dvm); cudaFree(dfm); cudaFree(dst);
  if (LAYERED) { cudaFree(dlp); cudaFree(dlc); cudaFree(dpr); cudaFree(dat); cudaFree(dls); cudaFree(dlv); cudaFree(dw); }
}

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "--host") {
    host_check<1>(); host_check<2>(); host_check<3>(); host_check<4>(); host_check<5>(); host_check<6>(); host_check<7>();
    return 0;
  }
  const int K = argc > 1 ? atoi(argv[1]) : 204887;
  const int spread = argc > 2 ? atoi(argv[2]) : 2809;
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  printf("K %d, face neighbours %s\n", K, spread > 0 ? ("k +- 1, k +- " + std::to_string(spread)).c_str() : "random");
#ifdef ONLY
  ONLY;
#else
  // Session 27: the register-resident layered LIFT (REG) with 1 or 2 threads per column, plain
  // and warp-specialized (spec), against the dense m16n8k4 LIFT (session 26's best at order 4).
  run<2, 4, 128, false, true, false, 1>(K, spread, sms);
  run<2, 4, 128, false, true, false, 2>(K, spread, sms);
  run<3, 4, 128, false, true, false, 1>(K, spread, sms);
  run<3, 4, 128, false, true, false, 2>(K, spread, sms);
  run<4, 4, 128, true, true>(K, spread, sms);
  run<4, 4, 128, false, true, false, 2>(K, spread, sms);
  run<4, 4, 128, false, true, false, 2, true>(K, spread, sms);
  run<4, 4, 256, false, true, false, 2, true>(K, spread, sms);
  run<5, 4, 128, false, true, false, 1>(K, spread, sms);
  run<5, 4, 128, false, true, false, 1, true>(K, spread, sms);
  run<5, 4, 256, false, true, false, 1, true>(K, spread, sms);
  run<6, 4, 128, false, true, false, 1>(K, spread, sms);
  run<6, 4, 128, false, true, false, 1, true>(K, spread, sms);
  run<6, 4, 256, false, true, false, 1, true>(K, spread, sms);
  run<7, 4, 128, false, true, false, 1>(K, spread, sms);
  run<7, 4, 128, false, true, false, 1, true>(K, spread, sms);
  run<7, 4, 256, false, true, false, 1, true>(K, spread, sms);
#endif
  return 0;
}
