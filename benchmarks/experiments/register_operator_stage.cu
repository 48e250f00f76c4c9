// Experiment (session 25, 2026-11-27; not built by CMake, not used by rtdg): can the products of a
// fused LSERK stage run *under* its memory traffic instead of after it?
//
// Why: the tuned stage kernels of session 23 take 94-106 % of T_mem + T_flop at double orders 3-6
// (T_mem: the four state arrays at the measured copy rate; T_flop: the useful flops at the measured
// FP64 FMA rate), so their products and their loads do not overlap. The profiles put both on the
// L1/shared-memory pipe: an `m8n8k4` product reads its column fragment (256 bytes, 2 wavefronts)
// from shared memory and its operator fragment through L1, about 2.5-3 wavefronts per `mma`, which
// at the FP64 tensor rate is more than the pipe's one wavefront per clock.
//
// What this kernel does differently (3D Maxwell, upwind, element-major state q[(k 6 + c) NP + i],
// order N, groups of NE elements, derivative of the state):
// - Persistent blocks, one producer warp (or P) issuing the copies of the next groups (state, res,
//   neighbours' traces through vmapP, geometry) into a ring of S stages with cp.async and
//   mbarriers, and W consumer warps computing, as in warp_specialized_stage.cu (session 19).
// - The operators stay in registers for the whole kernel: each consumer warp owns MR row tiles of
//   either the stacked volume operator [Dr; Ds; Dt] (3 NP x NP) or LIFT (NP x 4 NFP), with all their
//   k steps, as `m8n8k4` A fragments (MR x K doubles per lane), so no operator byte crosses L1 after
//   the start, and each column fragment read from shared memory serves MR `mma`.
// - Face fluxes written over the traces, products into a shared output buffer [column][row], the
//   node-wise curl, LIFT sum and update written straight to global memory.
// Timing of the full stage and of its parts (MODE bits: 1 loads, 2 products, 4 stores, 8 without
// the face fluxes and the node phase), against a
// 4-array copy measured in the same run; agreement with a host reference on sampled elements.
// Random operators and geometry, synthetic connectivity (face neighbours k +- 1, k +- 53 by default).
// Measured on the H100 (benchmarks/results/dg-experiments-h100-2026-11-27-session25.log): the
// products do run under the loads (the parts add up to 1.1-1.8x the stage). With m8n8k4 no
// variant beats the generated kernel: order 4 best 0.983 ms per stage against 0.906 (products
// alone 0.58 ms, above the 0.459 ms bound; face fluxes and node phase, one group at a time per
// role in one block per SM, latency-bound at 0.26-0.71 ms), order 3 0.424 against 0.433. With
// PAIR (m16n8k4) the two-role kernel beats it: order 4 0.819 against 0.907 ms, order 2 0.203
// against 0.225 (literal operators), order 3 (four roles) 0.420 against 0.433; with neighbours at
// k +- 2809 1.06x (order 4) and 1.11x (order 2), with random neighbours 0.94x and 0.80x.
// Later designs in the file: stage3 (three roles), stage4 (four roles; BULK: TMA copies).
//   nvcc -O3 -std=c++17 -arch=sm_90 register_operator_stage.cu -o register_operator_stage
//   ./register_operator_stage [K] [all|pair] [spread: face neighbours k +- 1, k +- spread; 0 random]
#include <cuda_runtime.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "stage_harness.cuh"

// Leading dimension (doubles) of a [column][k] operand in shared memory: a multiple of 4 that is
// 4 or 12 modulo 16, so the 16 lanes of a half-warp reading a column fragment (columns lane / 4,
// k = lane % 4) hit 16 different 8-byte banks.
constexpr int pad_ld(int n) { return ((n + 3) / 4 * 4) % 8 == 0 ? (n + 3) / 4 * 4 + 4 : (n + 3) / 4 * 4; }
// Leading dimension of the output buffer [column][row]: 2 modulo 8, so an accumulator store (rows
// lane / 4, columns 2 (lane % 4) + j) is conflict-free per half-warp.
constexpr int pad_out(int n) { return n + ((10 - n % 8) % 8); }

__constant__ int c_fmask[4 * 36];

// TMA (sm_90): a contiguous copy of `bytes` (a multiple of 16, both addresses 16-byte aligned)
// that counts its bytes on `bar`, and the arrival that tells `bar` how many bytes to expect.
__device__ __forceinline__ void bulk_copy(void* dst, const void* src, unsigned bytes, uint64_t* bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
               :: "r"(smem(dst)), "l"(src), "r"(bytes), "r"(smem(bar)) : "memory");
}
__device__ __forceinline__ void mbar_expect(uint64_t* bar, unsigned bytes) {
  asm volatile("{\n .reg .b64 st;\n mbarrier.arrive.expect_tx.shared::cta.b64 st, [%0], %1;\n}" :: "r"(smem(bar)), "r"(bytes)
               : "memory");
}
// D (8 x 8) += A (8 x 4, row-major) B (4 x 8, column-major); lane l holds A[l / 4][l % 4],
// B[l % 4][l / 4] and D[l / 4][2 (l % 4) + 0, 1].
__device__ __forceinline__ void dmma(double& d0, double& d1, double a, double b) {
  asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};" : "+d"(d0), "+d"(d1) : "d"(a), "d"(b));
}
// Two 8-row tiles at once (sm_90, twice the m8n8k4 rate on the H100): a0 and d0, d1 as dmma's for
// the first tile, a1 and d2, d3 for the second (rows g + 8).
__device__ __forceinline__ void dmma16(double& d0, double& d1, double& d2, double& d3, double a0, double a1, double b) {
  asm("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};"
      : "+d"(d0), "+d"(d1), "+d"(d2), "+d"(d3) : "d"(a0), "d"(a1), "d"(b));
}

// Sizes and the stage buffer's layout (offsets in doubles; each part 16-byte aligned).
// CONTIG: the state's columns as in global memory (LDQ = NP), so one bulk copy moves them.
// PAIR: the products pair a warp's row tiles into m16n8k4.
template <int N, int NE, bool CONTIG = false, bool PAIR_ = false>
struct Shape {
  static constexpr bool PAIR = PAIR_;
  static constexpr int NP = np_of(N), NFP = nfp_of(N), NFN = 4 * NFP, COLS = NE * 6, CT = COLS / 8;
  static_assert(COLS % 8 == 0 && NE % 2 == 0, "NE: a multiple of 4");
  static constexpr int LDQ = CONTIG ? NP : pad_ld(NP), LDT = pad_ld(NFN);
  static constexpr int RTV = (3 * NP + 7) / 8, KV = (NP + 3) / 4;  // volume: row tiles, k steps
  static constexpr int RTL = (NP + 7) / 8, KL = NFN / 4;          // LIFT
  static constexpr int VROWS = RTV * 8, LDO = pad_out(VROWS + RTL * 8);
  // Q [COLS][LDQ] state columns (padding zero), T [COLS][LDT] neighbours' traces, then face fluxes,
  // R [COLS][NP] res as in global memory, DR [NE][9] dr_a/dx_d, FG [NE][4 faces][nx ny nz Fscale].
  static constexpr int Q = 0, T = Q + COLS * LDQ, R = T + COLS * LDT, DR = R + COLS * NP, FG = DR + NE * 9,
                       STAGE = FG + NE * 16, OUT = COLS * LDO;
};

// Consumer warp w's operator tiles: the W warps are split between the volume operator and LIFT in
// proportion to their fragments (but no operator with more warps than units of row tiles), and
// each operator's units as evenly as possible among its warps. A unit is one row tile, or with
// PAIR two (the last of an odd count alone).
template <class SH, int W, int w>
struct Role {
  static constexpr int U = SH::PAIR ? 2 : 1, RUV = (SH::RTV + U - 1) / U, RUL = (SH::RTL + U - 1) / U;
  static constexpr int FV = SH::RTV * SH::KV, FL = SH::RTL * SH::KL;
  static constexpr int WV0 = (2 * W * FV + FV + FL) / (2 * (FV + FL));
  static constexpr int WV1 = WV0 < W - RUL ? W - RUL : WV0 > RUV ? RUV : WV0;
  static constexpr int WV = WV1 < 1 ? 1 : WV1 > W - 1 ? W - 1 : WV1;
  static constexpr bool VOL = w < WV;
  static constexpr int NWO = VOL ? WV : W - WV, RT = VOL ? SH::RTV : SH::RTL, j = VOL ? w : w - WV;
  static constexpr int RU = VOL ? RUV : RUL;
  static_assert(RU >= NWO, "more warps than row tiles for one operator");
  static constexpr int MU = RU / NWO + (j < RU % NWO ? 1 : 0);
  static constexpr int T0 = U * (j * (RU / NWO) + (j < RU % NWO ? j : RU % NWO));
  static constexpr int MR = U * MU < RT - T0 ? U * MU : RT - T0;
  static constexpr int K = VOL ? SH::KV : SH::KL;
  static constexpr int CHAINS = MR == 1 ? 2 : 1;  // independent accumulators for a warp of one row tile
};

// Face fluxes of the group's face nodes: Fscale / 2 times the upwind flux, over the traces.
template <class SH, int NT>
__device__ __noinline__ void face_fluxes(double* st, int ct) {
  constexpr int NP = SH::NP, NFP = SH::NFP, NFN = SH::NFN;
  for (int s = ct; s < (SH::COLS / 6) * NFN; s += NT) {
    const int e = s / NFN, m = s - e * NFN, f = m / NFP;
    const int iM = c_fmask[m];
    double d[6];
#pragma unroll
    for (int c = 0; c < 6; ++c) d[c] = st[SH::Q + (e * 6 + c) * SH::LDQ + iM] - st[SH::T + (e * 6 + c) * SH::LDT + m];
    const double* g = st + SH::FG + (e * 4 + f) * 4;
    const double nx = g[0], ny = g[1], nz = g[2], fs = g[3];
    double F[6];
    upwind_flux(d, nx, ny, nz, F);
#pragma unroll
    for (int c = 0; c < 6; ++c) st[SH::T + (e * 6 + c) * SH::LDT + m] = 0.5 * fs * F[c];
    (void)NP;
  }
}

// Face fluxes as face_fluxes, the neighbours' traces read from global memory through vmapP
// (the stage's T is scratch for the fluxes only).
template <class SH, int NT>
__device__ __noinline__ void face_fluxes_gather(double* st, int ct, long k0, const int* __restrict__ vmapP,
                                                const double* __restrict__ q) {
  constexpr int NP = SH::NP, NFP = SH::NFP, NFN = SH::NFN;
  for (int s = ct; s < (SH::COLS / 6) * NFN; s += NT) {
    const int e = s / NFN, m = s - e * NFN, f = m / NFP;
    const int iM = c_fmask[m];
    const int gp = __ldg(vmapP + k0 * NFN + s), kP = gp / NP, iP = gp - kP * NP;
    double d[6];
#pragma unroll
    for (int c = 0; c < 6; ++c) d[c] = st[SH::Q + (e * 6 + c) * SH::LDQ + iM] - __ldg(q + (long(kP) * 6 + c) * NP + iP);
    const double* g = st + SH::FG + (e * 4 + f) * 4;
    const double nx = g[0], ny = g[1], nz = g[2], fs = g[3];
    double F[6];
    upwind_flux(d, nx, ny, nz, F);
#pragma unroll
    for (int c = 0; c < 6; ++c) st[SH::T + (e * 6 + c) * SH::LDT + m] = 0.5 * fs * F[c];
  }
}

// The node phase: reference derivatives and LIFT from `out`, curl through dr_a/dx_d, update.
template <class SH, int NT, bool STORE>
__device__ __noinline__ void node_update(const double* st, const double* out, int ct, long k0, double* __restrict__ qo,
                                         double* __restrict__ res, double a, double b, double dt) {
  constexpr int NP = SH::NP, LDO = SH::LDO;
  for (int t = ct; t < (SH::COLS / 6) * NP; t += NT) {
    const int e = t / NP, i = t - e * NP;
    const double* g = st + SH::DR + e * 9;
    double dx[6][3];
#pragma unroll
    for (int c = 0; c < 6; ++c) {
      const double* o = out + (e * 6 + c) * LDO + i;
      const double d0 = o[0], d1 = o[NP], d2 = o[2 * NP];
#pragma unroll
      for (int x = 0; x < 3; ++x) dx[c][x] = g[0 * 3 + x] * d0 + g[1 * 3 + x] * d1 + g[2 * 3 + x] * d2;
    }
    double rhs[6];
    maxwell_curl(dx, rhs);
#pragma unroll
    for (int c = 0; c < 6; ++c) {
      const double r = a * st[SH::R + (e * 6 + c) * NP + i] + dt * (rhs[c] + out[(e * 6 + c) * LDO + SH::VROWS + i]);
      const double q = st[SH::Q + (e * 6 + c) * SH::LDQ + i] + b * r;
      // Without STORE (timing the products alone) the values are still computed: stored only if
      // one is exactly 1e300, which none is.
      if (STORE || r == 1e300) {
        const long idx = ((k0 + e) * 6 + c) * NP + i;
        res[idx] = r;
        qo[idx] = q;
      }
    }
  }
}

// Warp `lane`'s products for one group: its MR row tiles, every column tile, into out[column][row].
template <class SH, class R>
__device__ __forceinline__ void products(const double (&A)[R::MR][R::K], const double* st, double* out, int lane) {
  constexpr int LDB = R::VOL ? SH::LDQ : SH::LDT;
  constexpr int ROW0 = (R::VOL ? 0 : SH::VROWS) + R::T0 * 8;
  const int bn = lane >> 2, bk = lane & 3;
  const double* B = st + (R::VOL ? SH::Q : SH::T) + bn * LDB + bk;
#pragma unroll 2
  for (int ct = 0; ct < SH::CT; ++ct) {
    double acc[R::CHAINS][R::MR][2] = {};
    const double* b = B + ct * 8 * LDB;
#pragma unroll
    for (int ks = 0; ks < R::K; ++ks) {
      const double bv = b[ks * 4];
      if constexpr (SH::PAIR) {
#pragma unroll
        for (int m = 0; m < R::MR; m += 2) {
          if (m + 1 < R::MR)
            dmma16(acc[ks % R::CHAINS][m][0], acc[ks % R::CHAINS][m][1], acc[ks % R::CHAINS][m + 1][0],
                   acc[ks % R::CHAINS][m + 1][1], A[m][ks], A[m + 1][ks], bv);
          else
            dmma(acc[ks % R::CHAINS][m][0], acc[ks % R::CHAINS][m][1], A[m][ks], bv);
        }
      } else {
#pragma unroll
        for (int m = 0; m < R::MR; ++m) dmma(acc[ks % R::CHAINS][m][0], acc[ks % R::CHAINS][m][1], A[m][ks], bv);
      }
    }
    double* o = out + (ct * 8 + 2 * bk) * SH::LDO + ROW0 + bn;
#pragma unroll
    for (int m = 0; m < R::MR; ++m) {
      double v0 = acc[0][m][0], v1 = acc[0][m][1];
      if (R::CHAINS == 2) {
        v0 += acc[R::CHAINS - 1][m][0];
        v1 += acc[R::CHAINS - 1][m][1];
      }
      o[m * 8] = v0;
      o[SH::LDO + m * 8] = v1;
    }
  }
}

struct Args {
  const double* q;
  double *qo, *res;
  const double *drdx, *fgeo, *fragV, *fragL;
  const int* vmapP;
  double a, b, dt;
  int K;
};

// Consumer warp w (template: its operator tiles live in registers for the whole kernel).
template <class SH, int W, int w, int S, int MODE>
__device__ __forceinline__ void consume(const Args& p, double* sm, uint64_t* full, uint64_t* empty, int ct) {
  using R = Role<SH, W, w>;
  const int lane = ct & 31;
  double A[R::MR][R::K];
  const double* frag = R::VOL ? p.fragV : p.fragL;
#pragma unroll
  for (int m = 0; m < R::MR; ++m)
#pragma unroll
    for (int ks = 0; ks < R::K; ++ks) A[m][ks] = __ldg(frag + ((R::T0 + m) * R::K + ks) * 32 + lane);
  double* out = sm + S * SH::STAGE;
  const int groups = p.K / (SH::COLS / 6);
  for (int g = blockIdx.x, n = 0; g < groups; g += gridDim.x, ++n) {
    const int s = n % S;
    double* st = sm + s * SH::STAGE;
    mbar_wait(&full[s], (n / S) & 1);
    if (!(MODE & 8)) face_fluxes<SH, W * 32>(st, ct);
    consumers_sync(W * 32);  // fluxes written; every warp done reading the last group's out
    if (MODE & 2) products<SH, R>(A, st, out, lane);
    consumers_sync(W * 32);  // out complete
    if (!(MODE & 8)) node_update<SH, W * 32, (MODE & 4) != 0>(st, out, ct, long(g) * (SH::COLS / 6), p.qo, p.res, p.a, p.b, p.dt);
    mbar_arrive(&empty[s]);
  }
}

template <class SH, int W, int S, int MODE, int w = 0>
__device__ __forceinline__ void dispatch(int warp, const Args& p, double* sm, uint64_t* full, uint64_t* empty, int ct) {
  if constexpr (w < W) {
    if (warp == w)
      consume<SH, W, w, S, MODE>(p, sm, full, empty, ct);
    else
      dispatch<SH, W, S, MODE, w + 1>(warp, p, sm, full, empty, ct);
  }
}

// Producer threads pt = 0 .. 32 P - 1: the group's copies into stage st.
template <class SH, int NTP, int SLOTS>
__device__ __forceinline__ void issue_copies(double* st, int pt, long k0, const int (&gp)[SLOTS], const Args& p) {
  constexpr int NP = SH::NP, NE = SH::COLS / 6;
  const double* q = p.q + k0 * 6 * NP;
  for (int s = pt; s < NE * 6 * NP; s += NTP) {
    const int col = s / NP;
    cp8(st + SH::Q + col * SH::LDQ + (s - col * NP), q + s);
  }
  for (int s = pt; s < NE * 6 * NP / 2; s += NTP) cp16(st + SH::R + 2 * s, p.res + k0 * 6 * NP + 2 * s);
  for (int s = pt; s < NE * 9 / 2; s += NTP) cp16(st + SH::DR + 2 * s, p.drdx + k0 * 9 + 2 * s);
  for (int s = pt; s < NE * 16 / 2; s += NTP) cp16(st + SH::FG + 2 * s, p.fgeo + k0 * 16 + 2 * s);
#pragma unroll
  for (int j = 0; j < SLOTS; ++j) {
    const int s = pt + j * NTP;
    if (s >= NE * SH::NFN) break;
    const int e = s / SH::NFN, m = s - e * SH::NFN;
    const int kP = gp[j] / NP, iP = gp[j] - kP * NP;
#pragma unroll
    for (int c = 0; c < 6; ++c) cp8(st + SH::T + (e * 6 + c) * SH::LDT + m, p.q + (long(kP) * 6 + c) * NP + iP);
  }
}

template <class SH, int NTP, int SLOTS>
__device__ __forceinline__ void load_indices(int (&gp)[SLOTS], int pt, long k0, const int* __restrict__ vmapP) {
  constexpr int NE = SH::COLS / 6;
#pragma unroll
  for (int j = 0; j < SLOTS; ++j) {
    const int s = pt + j * NTP;
    gp[j] = s < NE * SH::NFN ? __ldg(vmapP + k0 * SH::NFN + s) : 0;
  }
}

// Producer threads t = 0 .. NTP - 1: for each of the block's groups (g = blockIdx.x, + gridDim.x,
// ..) wait until stage n % S is free, issue the group's copies (MODE bit 1) and arrive on
// full[n % S] when they land; the next group's vmapP entries are loaded one group ahead.
template <class SH, int NTP, int S, int MODE>
__device__ __forceinline__ void produce(const Args& p, double* sm, uint64_t* full, uint64_t* empty, int t) {
  constexpr int NE = SH::COLS / 6, SLOTS = (NE * SH::NFN + NTP - 1) / NTP;
  const int groups = p.K / NE;
  int gp[SLOTS];
  int g = blockIdx.x;
  if (g < groups) load_indices<SH, NTP>(gp, t, long(g) * NE, p.vmapP);
  for (int n = 0; g < groups; g += gridDim.x, ++n) {
    const int s = n % S;
    if (n >= S) mbar_wait(&empty[s], ((n / S) - 1) & 1);
    if (MODE & 1) {
      issue_copies<SH, NTP>(sm + s * SH::STAGE, t, long(g) * NE, gp, p);
      mbar_arrive_copies(&full[s]);
    } else {
      mbar_arrive(&full[s]);
    }
    const int gn = g + gridDim.x;
    if (gn < groups) load_indices<SH, NTP>(gp, t, long(gn) * NE, p.vmapP);
  }
}

// Persistent: gridDim.x = SMs x blocks per SM; block = P producer warps then W consumer warps.
template <int N, int NE, int W, int P, int S, int MODE, bool PAIR = false>
__global__ void __launch_bounds__((W + P) * 32, 1) stage(Args p) {
  using SH = Shape<N, NE, false, PAIR>;
  constexpr int NTP = 32 * P;
  extern __shared__ __align__(16) double sm[];
  __shared__ uint64_t full[S], empty[S];
  const int t = threadIdx.x;
  for (int i = t; i < S * SH::STAGE + SH::OUT; i += blockDim.x) sm[i] = 0;  // Q's padding stays 0
  if (t == 0)
    for (int s = 0; s < S; ++s) {
      mbar_init(&full[s], NTP);
      mbar_init(&empty[s], W * 32);
    }
  __syncthreads();
  if (t < NTP) {
    produce<SH, NTP, S, MODE>(p, sm, full, empty, t);
    return;
  }
  dispatch<SH, W, S, MODE>((t - NTP) / 32, p, sm, full, empty, t - NTP);
}

// Three roles (the second design): warps 0 .. P - 1 produce as above; WT tensor warps hold the
// operator tiles in registers and only multiply; WP pointwise warps compute the face fluxes of group
// n and then the node phase of group n - 1, while the tensor warps multiply group n. The output
// buffer is double-buffered (group n writes out[n % 2]). Hand-overs, all mbarriers:
//   full[s]      producer -> pointwise   the stage's copies landed
//   fluxed[s]    pointwise -> tensor     the stage's face fluxes are written over its traces
//   done[b]      tensor -> pointwise     out[b] holds the group's products
//   freed[b]     pointwise -> tensor     the node phase has read out[b]
//   empty[s]     pointwise -> producer   the node phase has read the stage
// No barrier can run two phases ahead of a waiter: each next arrival needs the waiter's hand-over.
template <class SH, int WT, int w, int S, int MODE>
__device__ __forceinline__ void multiply(const Args& p, double* sm, uint64_t* fluxed, uint64_t* done, uint64_t* freed, int lane) {
  using R = Role<SH, WT, w>;
  double A[R::MR][R::K];
  const double* frag = R::VOL ? p.fragV : p.fragL;
#pragma unroll
  for (int m = 0; m < R::MR; ++m)
#pragma unroll
    for (int ks = 0; ks < R::K; ++ks) A[m][ks] = __ldg(frag + ((R::T0 + m) * R::K + ks) * 32 + lane);
  const int groups = p.K / (SH::COLS / 6);
  for (int g = blockIdx.x, n = 0; g < groups; g += gridDim.x, ++n) {
    const int s = n % S, ob = n & 1;
    mbar_wait(&fluxed[s], (n / S) & 1);
    if (n >= 2) mbar_wait(&freed[ob], ((n >> 1) - 1) & 1);
    if (MODE & 2) products<SH, R>(A, sm + s * SH::STAGE, sm + S * SH::STAGE + ob * SH::OUT, lane);
    mbar_arrive(&done[ob]);
  }
}

template <class SH, int WT, int S, int MODE, int w = 0>
__device__ __forceinline__ void dispatch3(int warp, const Args& p, double* sm, uint64_t* fluxed, uint64_t* done, uint64_t* freed,
                                          int lane) {
  if constexpr (w < WT) {
    if (warp == w)
      multiply<SH, WT, w, S, MODE>(p, sm, fluxed, done, freed, lane);
    else
      dispatch3<SH, WT, S, MODE, w + 1>(warp, p, sm, fluxed, done, freed, lane);
  }
}

// The start of the three- and four-role kernels: the block's dynamic shared memory (`doubles`)
// zeroed (Q's padding stays 0), and the hand-overs initialised with their arrival counts: full by
// the producers, fluxed by the flux (pointwise) threads, empty and freed by the threads that run
// the node phase, done by the tensor threads. The fences make the barriers and the zeros visible
// to bulk copies (async proxy) too.
template <int S>
__device__ __forceinline__ void start_handovers(double* sm, int doubles, uint64_t* full, uint64_t* fluxed, uint64_t* empty,
                                                uint64_t* done, uint64_t* freed, unsigned producers, unsigned fluxers,
                                                unsigned updaters, unsigned tensors) {
  for (int i = threadIdx.x; i < doubles; i += blockDim.x) sm[i] = 0;
  if (threadIdx.x == 0) {
    for (int s = 0; s < S; ++s) {
      mbar_init(&full[s], producers);
      mbar_init(&fluxed[s], fluxers);
      mbar_init(&empty[s], updaters);
    }
    for (int b = 0; b < 2; ++b) {
      mbar_init(&done[b], tensors);
      mbar_init(&freed[b], updaters);
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
}

template <int N, int NE, int WT, int WP, int P, int S, int MODE, bool PAIR = false>
__global__ void __launch_bounds__((WT + WP + P) * 32, 1) stage3(Args p) {
  using SH = Shape<N, NE, false, PAIR>;
  constexpr int NTP = 32 * P, NPW = 32 * WP;
  static_assert(S >= 2, "the pointwise warps fill stage n + 1 before they release stage n");
  extern __shared__ __align__(16) double sm[];
  __shared__ uint64_t full[S], fluxed[S], empty[S], done[2], freed[2];
  const int t = threadIdx.x;
  start_handovers<S>(sm, S * SH::STAGE + 2 * SH::OUT, full, fluxed, empty, done, freed, NTP, NPW, NPW, WT * 32);
  const int groups = p.K / NE;
  if (t < NTP) {  // producer
    produce<SH, NTP, S, MODE>(p, sm, full, empty, t);
    return;
  }
  if (t < NTP + 32 * WT) {
    dispatch3<SH, WT, S, MODE>((t - NTP) / 32, p, sm, fluxed, done, freed, t & 31);
    return;
  }
  // Pointwise warps: face fluxes of group n, then the node phase of group n - 1.
  const int pt = t - NTP - 32 * WT;
  double* out = sm + S * SH::STAGE;
  auto finish = [&](int n, int g) {  // node phase of group n (block-local index), global group g
    const int s = n % S, ob = n & 1;
    mbar_wait(&done[ob], (n >> 1) & 1);
    if (!(MODE & 8))
      node_update<SH, NPW, (MODE & 4) != 0>(sm + s * SH::STAGE, out + ob * SH::OUT, pt, long(g) * NE, p.qo, p.res, p.a, p.b,
                                          p.dt);
    mbar_arrive(&freed[ob]);
    mbar_arrive(&empty[s]);
  };
  int n = 0;
  for (int g = blockIdx.x; g < groups; g += gridDim.x, ++n) {
    const int s = n % S;
    mbar_wait(&full[s], (n / S) & 1);
    if (!(MODE & 8)) face_fluxes<SH, NPW>(sm + s * SH::STAGE, pt);
    mbar_arrive(&fluxed[s]);
    if (n >= 1) finish(n - 1, g - gridDim.x);
  }
  if (n >= 1) finish(n - 1, blockIdx.x + (n - 1) * gridDim.x);
}

// Four roles (the third design): as stage3, but the pointwise work split between WF flux warps
// (face fluxes of group n as soon as its copies land) and WU update warps (node phase of group n as
// soon as its products are done), so neither waits for the other's latency. Hand-overs:
//   full[s] producer -> flux, fluxed[s] flux -> tensor, done[b] tensor -> update,
//   freed[b] update -> tensor, empty[s] update -> producer.
// BULK: the producer is one thread issuing four TMA bulk copies per group (state, res, dr_a/dx_d,
// face geometry: contiguous in element-major storage; the state lands with LDQ = NP), and the flux
// warps read the neighbours' traces from global memory themselves (face_fluxes_gather).
template <int N, int NE, int WT, int WF, int WU, int P, int S, int MODE, bool BULK = false, bool PAIR = false>
__global__ void __launch_bounds__((WT + WF + WU + P) * 32, 1) stage4(Args p) {
  using SH = Shape<N, NE, BULK, PAIR>;
  constexpr int NTP = 32 * P, NFW = 32 * WF, NUW = 32 * WU;
  extern __shared__ __align__(16) double sm[];
  __shared__ uint64_t full[S], fluxed[S], empty[S], done[2], freed[2];
  const int t = threadIdx.x;
  start_handovers<S>(sm, S * SH::STAGE + 2 * SH::OUT, full, fluxed, empty, done, freed, BULK ? 1 : NTP, NFW, NUW, WT * 32);
  const int groups = p.K / NE;
  if (BULK && t < NTP) {  // producer: one thread
    if (t != 0) return;
    constexpr unsigned QB = NE * 6 * SH::NP * 8, DB = NE * 9 * 8, FB = NE * 16 * 8;
    for (int g = blockIdx.x, n = 0; g < groups; g += gridDim.x, ++n) {
      const int s = n % S;
      if (n >= S) mbar_wait(&empty[s], ((n / S) - 1) & 1);
      double* st = sm + s * SH::STAGE;
      const long k0 = long(g) * NE;
      if (MODE & 1) {
        mbar_expect(&full[s], 2 * QB + DB + FB);
        bulk_copy(st + SH::Q, p.q + k0 * 6 * SH::NP, QB, &full[s]);
        bulk_copy(st + SH::R, p.res + k0 * 6 * SH::NP, QB, &full[s]);
        bulk_copy(st + SH::DR, p.drdx + k0 * 9, DB, &full[s]);
        bulk_copy(st + SH::FG, p.fgeo + k0 * 16, FB, &full[s]);
      } else {
        mbar_arrive(&full[s]);
      }
    }
    return;
  }
  if (t < NTP) {  // producer
    produce<SH, NTP, S, MODE>(p, sm, full, empty, t);
    return;
  }
  if (t < NTP + 32 * WT) {
    dispatch3<SH, WT, S, MODE>((t - NTP) / 32, p, sm, fluxed, done, freed, t & 31);
    return;
  }
  if (t < NTP + 32 * WT + NFW) {  // flux warps
    const int ft = t - NTP - 32 * WT;
    for (int g = blockIdx.x, n = 0; g < groups; g += gridDim.x, ++n) {
      const int s = n % S;
      mbar_wait(&full[s], (n / S) & 1);
      if (!(MODE & 8)) {
        if constexpr (BULK)
          face_fluxes_gather<SH, NFW>(sm + s * SH::STAGE, ft, long(g) * NE, p.vmapP, p.q);
        else
          face_fluxes<SH, NFW>(sm + s * SH::STAGE, ft);
      }
      mbar_arrive(&fluxed[s]);
    }
    return;
  }
  const int ut = t - NTP - 32 * WT - NFW;  // update warps
  double* out = sm + S * SH::STAGE;
  for (int g = blockIdx.x, n = 0; g < groups; g += gridDim.x, ++n) {
    const int s = n % S, ob = n & 1;
    mbar_wait(&done[ob], (n >> 1) & 1);
    if (!(MODE & 8))
      node_update<SH, NUW, (MODE & 4) != 0>(sm + s * SH::STAGE, out + ob * SH::OUT, ut, long(g) * NE, p.qo, p.res, p.a, p.b,
                                            p.dt);
    mbar_arrive(&freed[ob]);
    mbar_arrive(&empty[s]);
  }
}

// The problem on the host and the device, with the host reference of one stage.
template <int N>
struct Problem {
  static constexpr int NP = np_of(N), NFP = nfp_of(N), NFN = 4 * NFP;
  int K;
  long n;
  std::vector<double> q, r, g, f, D, L;  // D [3][NP][NP], L [NP][NFN]
  std::vector<int> vm, fm;
  double *dq, *dqo, *dres, *dres0, *dg, *dfg;
  int* dvm;
  // spread: the face neighbours of element k are k +- 1 and k +- spread; 0: random elements.
  Problem(int K_, int spread) : K(K_), n(6L * NP * K_) {
    std::mt19937 rng(1);
    std::uniform_real_distribution<double> U(-1, 1);
    q.resize(n); r.resize(n); g.resize(9L * K); f.resize(16L * K); D.resize(3 * NP * NP); L.resize(NP * NFN);
    for (auto& x : q) x = U(rng);
    for (auto& x : r) x = U(rng);
    for (auto& x : g) x = U(rng);
    for (auto& x : f) x = U(rng);
    for (auto& x : D) x = U(rng) * 0.1;
    for (auto& x : L) x = U(rng) * 0.1;
    vm.resize(long(NFN) * K); fm.resize(NFN);
    for (int m = 0; m < NFN; ++m) fm[m] = int(rng() % NP);
    const int off[4] = {1, -1, spread, -spread};
    for (int k = 0; k < K; ++k)
      for (int fc = 0; fc < 4; ++fc) {
        const int kP = spread > 0 ? ((k + off[fc]) % K + K) % K : int(rng() % K);
        for (int m = 0; m < NFP; ++m) vm[long(k) * NFN + fc * NFP + m] = kP * NP + int(rng() % NP);
      }
    CK(cudaMemcpyToSymbol(c_fmask, fm.data(), NFN * sizeof(int)));
    CK(cudaMalloc(&dq, n * 8)); CK(cudaMalloc(&dqo, n * 8)); CK(cudaMalloc(&dres, n * 8)); CK(cudaMalloc(&dres0, n * 8));
    CK(cudaMalloc(&dg, g.size() * 8)); CK(cudaMalloc(&dfg, f.size() * 8)); CK(cudaMalloc(&dvm, vm.size() * 4));
    CK(cudaMemcpy(dq, q.data(), n * 8, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dres0, r.data(), n * 8, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dg, g.data(), g.size() * 8, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dfg, f.data(), f.size() * 8, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dvm, vm.data(), vm.size() * 4, cudaMemcpyHostToDevice));
  }
  ~Problem() { cudaFree(dq); cudaFree(dqo); cudaFree(dres); cudaFree(dres0); cudaFree(dg); cudaFree(dfg); cudaFree(dvm); }
  // res and q_out of element k after one stage (a, b, dt), as the kernel computes them.
  void reference(int k, double a, double b, double dt, double* rk, double* qk) const {
    const double* u = q.data() + long(k) * 6 * NP;
    std::vector<double> du(6 * 3 * NP, 0.0), flux(6 * NFN), lift(6 * NP, 0.0);
    for (int c = 0; c < 6; ++c)
      for (int d = 0; d < 3; ++d)
        for (int i = 0; i < NP; ++i)
          for (int j = 0; j < NP; ++j) du[(c * 3 + d) * NP + i] += D[(d * NP + i) * NP + j] * u[c * NP + j];
    for (int m = 0; m < NFN; ++m) {
      const int gp = vm[long(k) * NFN + m], kP = gp / NP, iP = gp % NP, fc = m / NFP;
      double dd[6];
      for (int c = 0; c < 6; ++c) dd[c] = u[c * NP + fm[m]] - q[(long(kP) * 6 + c) * NP + iP];
      const double* gg = f.data() + (long(k) * 4 + fc) * 4;
      const double nx = gg[0], ny = gg[1], nz = gg[2], fs = gg[3];
      double F[6];
      upwind_flux(dd, nx, ny, nz, F);
      for (int c = 0; c < 6; ++c) flux[c * NFN + m] = 0.5 * fs * F[c];
    }
    for (int c = 0; c < 6; ++c)
      for (int i = 0; i < NP; ++i)
        for (int m = 0; m < NFN; ++m) lift[c * NP + i] += L[i * NFN + m] * flux[c * NFN + m];
    const double* gk = g.data() + long(k) * 9;
    for (int i = 0; i < NP; ++i) {
      double dx[6][3];
      for (int c = 0; c < 6; ++c)
        for (int x = 0; x < 3; ++x)
          dx[c][x] = gk[x] * du[(c * 3 + 0) * NP + i] + gk[3 + x] * du[(c * 3 + 1) * NP + i] + gk[6 + x] * du[(c * 3 + 2) * NP + i];
      double rhs[6];
      maxwell_curl(dx, rhs);
      for (int c = 0; c < 6; ++c) {
        const double rr = a * r[(long(k) * 6 + c) * NP + i] + dt * (rhs[c] + lift[c * NP + i]);
        rk[c * NP + i] = rr;
        qk[c * NP + i] = u[c * NP + i] + b * rr;
      }
    }
  }
};

// W consumer warps (two roles); with WP > 0, W tensor and WP pointwise warps (three roles); with
// WU > 0 as well, W tensor, WP flux and WU update warps (four roles).
template <int N, int NE, int W, int P, int S, int WP, int WU, int MODE, bool BULK, bool PAIR>
constexpr auto kernel_of() {
  if constexpr (WP == 0)
    return stage<N, NE, W, P, S, MODE, PAIR>;
  else if constexpr (WU == 0)
    return stage3<N, NE, W, WP, P, S, MODE, PAIR>;
  else
    return stage4<N, NE, W, WP, WU, P, S, MODE, BULK, PAIR>;
}

// BULK (four roles only): TMA copies and traces gathered by the flux warps. PAIR: m16n8k4 products.
template <int N, int NE, int W, int P, int S, int WP = 0, int WU = 0, bool BULK = false, bool PAIR = false>
void run(Problem<N>& pb, int sms, float t_copy) {
  using SH = Shape<N, NE, BULK, PAIR>;
  constexpr int NP = SH::NP;
  const int K = pb.K;
  // Operator fragments: fragV [RTV][KV][32] of [Dr; Ds; Dt], fragL [RTL][KL][32] of LIFT, zero padded.
  std::vector<double> fv(SH::RTV * SH::KV * 32), fl(SH::RTL * SH::KL * 32);
  for (int t = 0; t < SH::RTV; ++t)
    for (int ks = 0; ks < SH::KV; ++ks)
      for (int l = 0; l < 32; ++l) {
        const int row = t * 8 + l / 4, k = ks * 4 + l % 4;
        fv[(t * SH::KV + ks) * 32 + l] = row < 3 * NP && k < NP ? pb.D[row * NP + k] : 0.0;
      }
  for (int t = 0; t < SH::RTL; ++t)
    for (int ks = 0; ks < SH::KL; ++ks)
      for (int l = 0; l < 32; ++l) {
        const int row = t * 8 + l / 4, k = ks * 4 + l % 4;
        fl[(t * SH::KL + ks) * 32 + l] = row < NP ? pb.L[row * SH::NFN + k] : 0.0;
      }
  double *dfv, *dfl;
  CK(cudaMalloc(&dfv, fv.size() * 8)); CK(cudaMalloc(&dfl, fl.size() * 8));
  CK(cudaMemcpy(dfv, fv.data(), fv.size() * 8, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dfl, fl.data(), fl.size() * 8, cudaMemcpyHostToDevice));
  const double a = 0.5, b = 0.1, dt = 1e-3;
  Args args{pb.dq, pb.dqo, pb.dres, pb.dg, pb.dfg, dfv, dfl, pb.dvm, a, b, dt, K};
  const size_t bytes = (S * SH::STAGE + (WP ? 2 : 1) * SH::OUT) * 8;
  const int threads = (W + WP + WU + P) * 32;
  Timer tm;
  double* bufs[2] = {pb.dq, pb.dqo};
  int ping = 0;
  auto timed = [&](auto kernel, int& regs, int& occ) {
    CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, kernel, threads, bytes));
    cudaFuncAttributes at;
    CK(cudaFuncGetAttributes(&at, kernel));
    regs = at.numRegs;
    if (occ == 0) return -1.0f;
    const int grid = std::min(K / NE, sms * occ);
    const float ms = tm.ms([&] {
      Args x = args;
      x.q = bufs[ping];
      x.qo = bufs[1 - ping];
      kernel<<<grid, threads, bytes>>>(x);
      ping = 1 - ping;
    }, 20);
    CK(cudaGetLastError());
    return ms;
  };
  // Agreement first: one stage of the full kernel from q, res0.
  auto full = kernel_of<N, NE, W, P, S, WP, WU, 7, BULK, PAIR>();
  int occ = 0;
  CK(cudaFuncSetAttribute(full, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, full, threads, bytes));
  double err = -1;
  if (occ > 0) {
    CK(cudaMemcpy(pb.dq, pb.q.data(), pb.n * 8, cudaMemcpyHostToDevice));  // the timings before ping-pong it
    CK(cudaMemcpy(pb.dres, pb.dres0, pb.n * 8, cudaMemcpyDeviceToDevice));
    CK(cudaMemset(pb.dqo, 0, pb.n * 8));
    full<<<std::min(K / NE, sms * occ), threads, bytes>>>(args);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    std::vector<double> hr(pb.n), hq(pb.n), rk(6 * NP), qk(6 * NP);
    CK(cudaMemcpy(hr.data(), pb.dres, pb.n * 8, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hq.data(), pb.dqo, pb.n * 8, cudaMemcpyDeviceToHost));
    double diff = 0, scale = 0;
    for (int k = 0; k < K; k += 97) {
      pb.reference(k, a, b, dt, rk.data(), qk.data());
      for (int i = 0; i < 6 * NP; ++i) {
        diff = std::max({diff, std::abs(hr[long(k) * 6 * NP + i] - rk[i]), std::abs(hq[long(k) * 6 * NP + i] - qk[i])});
        scale = std::max(scale, std::abs(qk[i]));
      }
    }
    err = diff / scale;
  }
  CK(cudaMemcpy(pb.dres, pb.dres0, pb.n * 8, cudaMemcpyDeviceToDevice));
  int r7, o7, r5, o5, r2, o2, r10, o10, r0, o0;
  const float t7 = timed(kernel_of<N, NE, W, P, S, WP, WU, 7, BULK, PAIR>(), r7, o7);
  const float t5 = timed(kernel_of<N, NE, W, P, S, WP, WU, 5, BULK, PAIR>(), r5, o5);
  const float t2 = timed(kernel_of<N, NE, W, P, S, WP, WU, 2, BULK, PAIR>(), r2, o2);
  const float t10 = timed(kernel_of<N, NE, W, P, S, WP, WU, 10, BULK, PAIR>(), r10, o10);
  const float t0 = timed(kernel_of<N, NE, W, P, S, WP, WU, 0, BULK, PAIR>(), r0, o0);
  printf("N%d NE%2d W%2d WP%d WU%d P%d S%d%s%s | %3d regs %d blocks/SM %6.1f KB | stage %.4f ms %5.1f %% of copy4 | no products %.4f ms %5.1f %% "
         "| products + node phases, no loads/stores %.4f ms | sum of parts / stage %.2f | rel. error %.1e\n"
         "    products alone %.4f ms | face fluxes and node phase alone %.4f ms\n",
         N, NE, W, WP, WU, P, S, BULK ? " bulk" : "", PAIR ? " m16n8k4" : "", r7, o7, bytes / 1024.0, t7, 100.0 * t_copy / t7, t5, 100.0 * t_copy / t5, t2, (t5 + t2) / t7, err,
         t10, t0);
  fflush(stdout);
  cudaFree(dfv); cudaFree(dfl);
}

// pair: only the m16n8k4 variants (and one m8n8k4 reference per order).
template <int N>
void order(int K, int sms, bool pair, int spread) {
  Problem<N> pb(K, spread);
  Timer tm;
  const float t_copy = tm.ms([&] { copy4<double><<<sms * 16, 256>>>(pb.dq, pb.dres0, pb.dqo, pb.dres, pb.n); }, 20);
  CK(cudaGetLastError());
  printf("N%d K %d, neighbours %s: copy4 %.4f ms (%.0f GB/s)\n", N, K,
         spread > 0 ? ("k +- 1, k +- " + std::to_string(spread)).c_str() : "random", t_copy, 4.0 * pb.n * 8 / t_copy * 1e-6);
  // <N, NE, W, P, S, WP, WU, BULK, PAIR>: two roles (S = 1: loads and compute in turn), three,
  // four, four with TMA; PAIR: m16n8k4.
  if (pair) {
    if constexpr (N == 2) {
      run<N, 8, 4, 1, 2>(pb, sms, t_copy);
      run<N, 8, 3, 1, 2, 0, 0, false, true>(pb, sms, t_copy);
      if (spread == 53) {
        run<N, 16, 3, 1, 2, 0, 0, false, true>(pb, sms, t_copy);
        run<N, 16, 3, 1, 3, 0, 0, false, true>(pb, sms, t_copy);
        run<N, 16, 3, 1, 3, 4, 4, false, true>(pb, sms, t_copy);
      }
    } else if constexpr (N == 4) {
      run<N, 8, 8, 1, 2>(pb, sms, t_copy);
      run<N, 8, 10, 1, 2, 0, 0, false, true>(pb, sms, t_copy);
      if (spread == 53) {
        run<N, 8, 10, 1, 3, 0, 0, false, true>(pb, sms, t_copy);
        run<N, 4, 10, 1, 3, 0, 0, false, true>(pb, sms, t_copy);
        run<N, 4, 10, 1, 4, 0, 0, false, true>(pb, sms, t_copy);
        run<N, 8, 10, 2, 3, 0, 0, false, true>(pb, sms, t_copy);
      }
    }
    return;
  }
  if constexpr (N == 3) {
    run<N, 8, 8, 1, 2>(pb, sms, t_copy);
    run<N, 8, 8, 1, 1>(pb, sms, t_copy);
    run<N, 8, 8, 1, 3, 8>(pb, sms, t_copy);
    run<N, 8, 8, 1, 3, 4, 4>(pb, sms, t_copy);
    run<N, 4, 8, 1, 4, 4, 4>(pb, sms, t_copy);
    run<N, 8, 8, 1, 3, 8, 4, true>(pb, sms, t_copy);
    run<N, 4, 8, 1, 6, 4, 4, true>(pb, sms, t_copy);
    run<N, 8, 5, 1, 2, 0, 0, false, true>(pb, sms, t_copy);
    run<N, 8, 5, 1, 3, 4, 4, false, true>(pb, sms, t_copy);
  } else if constexpr (N == 4) {
    run<N, 8, 8, 1, 2>(pb, sms, t_copy);
    run<N, 8, 8, 1, 1>(pb, sms, t_copy);
    run<N, 8, 8, 1, 2, 8>(pb, sms, t_copy);
    run<N, 4, 8, 2, 5, 6>(pb, sms, t_copy);
    run<N, 4, 8, 1, 4, 4, 4>(pb, sms, t_copy);
    run<N, 8, 8, 1, 2, 4, 4>(pb, sms, t_copy);
    run<N, 8, 8, 1, 2, 4, 4, true>(pb, sms, t_copy);
    run<N, 4, 8, 1, 4, 4, 4, true>(pb, sms, t_copy);
    run<N, 8, 8, 1, 2, 0, 0, false, true>(pb, sms, t_copy);
    run<N, 8, 10, 1, 2, 0, 0, false, true>(pb, sms, t_copy);
    run<N, 4, 10, 2, 5, 6, 0, false, true>(pb, sms, t_copy);
    run<N, 8, 10, 1, 2, 4, 4, false, true>(pb, sms, t_copy);
    run<N, 4, 10, 1, 4, 4, 4, false, true>(pb, sms, t_copy);
  }
}

int main(int argc, char** argv) {
  const int K = (argc > 1 ? atoi(argv[1]) : 205256) / 16 * 16;  // whole groups of up to 16 elements
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const bool pair = argc > 2 && std::string(argv[2]) == "pair";
  const int spread = argc > 3 ? atoi(argv[3]) : 53;  // 0: random neighbours
  order<4>(K, sms, pair, spread);
  if (!pair) order<3>(K, sms, pair, spread);
  if (pair) order<2>(K, sms, pair, spread);
  return 0;
}
