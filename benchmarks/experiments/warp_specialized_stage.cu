// Experiment (session 19, 2026-11-26; not built by CMake, not used by rtdg): does a warp-specialized
// fused LSERK stage (one producer warp issuing the next element groups' copies, consumer warps
// computing, a ring of stages in shared memory handed over with mbarriers, persistent blocks) hide
// the load phase that holds a third of the generated order-2 kernel's time? Compared in one run
// with the same arithmetic in the generated kernels' block structure (load, barrier, compute; one
// group per block; other blocks overlap the loads), and a 4-array copy (the roofline).
// 3D Maxwell, upwind, element-major state q[(k 6 + c) NP + i], scalar FMA products (DT, LT in
// global memory), face fluxes written over the traces. Timing and agreement of the two kernels
// only: random operators and geometry, synthetic connectivity (face neighbours k +- 1, k +- 53).
// Measured on the H100 (benchmarks/results/dg-experiments-h100-2026-11-26-session19.log, section 5):
// no. Specialized at best ties the blocked kernel (order 2: 0.260 against 0.258 ms per stage, 54 %
// of the 4-array copy), and loses with more stages or at order 3 (fewer blocks per SM). The blocked
// kernel with its arithmetic left out (MODE 0) runs at 74-77 % at order 2 and 80-82 % at order 3:
// the compute phases add their own time rather than hidden load latency, and at order 2 the loads
// and stores of this data layout alone stay under 80 %.
//   nvcc -O3 -std=c++17 -arch=sm_90 warp_specialized_stage.cu -o warp_specialized_stage
//   ./warp_specialized_stage [K] [0: orders 2-3 | 1: orders 4-6]
#include <cuda_runtime.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "stage_harness.cuh"

__constant__ int c_fmask[4 * 36];

// One stage buffer: the group's state, traces (then face fluxes), dr_a/dx_d and face geometry.
template <int N, int NE>
struct Layout {
  static constexpr int NP = np_of(N), NFP = nfp_of(N), NFN = 4 * NFP;
  static constexpr int Q = 0, T = NE * 6 * NP, DR = T + NE * 6 * NFN, FG = DR + NE * 9;
  static constexpr int SIZE = FG + NE * 16;  // doubles; every part starts 16-byte aligned when NE is even
};

// Face fluxes of the group's face nodes (threads ct = 0 .. NT - 1): Fscale * upwind flux over the
// neighbour's trace in the same slot of T.
template <int N, int NE, int NT>
__device__ __forceinline__ void face_fluxes(double* st, int ct, int nvalid) {
  using L = Layout<N, NE>;
  constexpr int NP = L::NP, NFP = L::NFP, NFN = L::NFN;
  for (int s = ct; s < NE * NFN; s += NT) {
    const int e = s / NFN, m = s - e * NFN, f = m / NFP;
    if (e >= nvalid) continue;
    const int iM = c_fmask[m];
    double u[6], d[6];
#pragma unroll
    for (int c = 0; c < 6; ++c) {
      u[c] = st[L::Q + (e * 6 + c) * NP + iM];
      d[c] = u[c] - st[L::T + (e * 6 + c) * NFN + m];
    }
    const double* g = st + L::FG + (e * 4 + f) * 4;
    const double nx = g[0], ny = g[1], nz = g[2], fs = g[3];
    double F[6];
    upwind_flux(d, nx, ny, nz, F);
#pragma unroll
    for (int c = 0; c < 6; ++c) st[L::T + (e * 6 + c) * NFN + m] = 0.5 * fs * F[c];
  }
}

// The node phase: curl from D_a of the state, LIFT of the face fluxes, the LSERK update written to
// global memory. Thread ct < NE NP owns node (e, i); pre[] holds its res.
template <int N, int NE, int MODE = 7>
__device__ __forceinline__ void node_update(const double* st, int ct, int k0, int nvalid, const double* __restrict__ DT,
                                            const double* __restrict__ LT, const double (&pre)[6], double* __restrict__ qo,
                                            double* __restrict__ res, double a, double b, double dt) {
  using L = Layout<N, NE>;
  constexpr int NP = L::NP, NFN = L::NFN;
  const int e = ct / NP, i = ct - e * NP;
  if (ct >= NE * NP || e >= nvalid) return;
  double du[6][3] = {};
  if (MODE & 2)
  for (int j = 0; j < NP; ++j) {
    const double dr = __ldg(DT + (0 * NP + j) * NP + i), ds = __ldg(DT + (1 * NP + j) * NP + i),
                 dtt = __ldg(DT + (2 * NP + j) * NP + i);
#pragma unroll
    for (int c = 0; c < 6; ++c) {
      const double u = st[L::Q + (e * 6 + c) * NP + j];
      du[c][0] += dr * u;
      du[c][1] += ds * u;
      du[c][2] += dtt * u;
    }
  }
  const double* g = st + L::DR + e * 9;
  double dx[6][3];
#pragma unroll
  for (int c = 0; c < 6; ++c)
#pragma unroll
    for (int x = 0; x < 3; ++x) dx[c][x] = g[0 * 3 + x] * du[c][0] + g[1 * 3 + x] * du[c][1] + g[2 * 3 + x] * du[c][2];
  double rhs[6];
  maxwell_curl(dx, rhs);
  if (MODE & 4)
  for (int m = 0; m < NFN; ++m) {
    const double l = __ldg(LT + m * NP + i);
#pragma unroll
    for (int c = 0; c < 6; ++c) rhs[c] += l * st[L::T + (e * 6 + c) * NFN + m];
  }
  const int k = k0 + e;
#pragma unroll
  for (int c = 0; c < 6; ++c) {
    const long idx = (long(k) * 6 + c) * NP + i;
    const double r = a * pre[c] + dt * rhs[c];
    res[idx] = r;
    qo[idx] = st[L::Q + (e * 6 + c) * NP + i] + b * r;
  }
}

// Copies of group k0 .. k0 + NE - 1 into stage `st` by threads t = 0 .. NT - 1 (cp.async; the
// traces after this thread's vmapP entries, loaded into gp beforehand).
template <int N, int NE, int NT, int SLOTS>
__device__ __forceinline__ void issue_copies(double* st, int t, int k0, int nvalid, const int (&gp)[SLOTS],
                                             const double* __restrict__ q, const double* __restrict__ drdx,
                                             const double* __restrict__ fgeo) {
  using L = Layout<N, NE>;
  constexpr int NP = L::NP, NFN = L::NFN;
  const long q0 = long(k0) * 6 * NP;
  for (int s = t; s < nvalid * 6 * NP / 2; s += NT) cp16(st + L::Q + 2 * s, q + q0 + 2 * s);
  for (int s = t; s < nvalid * 9 / 2; s += NT) cp16(st + L::DR + 2 * s, drdx + long(k0) * 9 + 2 * s);
  if (t == 0 && (nvalid * 9) % 2) cp8(st + L::DR + nvalid * 9 - 1, drdx + long(k0) * 9 + nvalid * 9 - 1);
  for (int s = t; s < nvalid * 16 / 2; s += NT) cp16(st + L::FG + 2 * s, fgeo + long(k0) * 16 + 2 * s);
#pragma unroll
  for (int j = 0; j < SLOTS; ++j) {
    const int s = t + j * NT;
    if (s >= nvalid * NFN) break;
    const int e = s / NFN, m = s - e * NFN;
    const int kP = gp[j] / NP, iP = gp[j] - kP * NP;
#pragma unroll
    for (int c = 0; c < 6; ++c) cp8(st + L::T + (e * 6 + c) * NFN + m, q + (long(kP) * 6 + c) * NP + iP);
  }
}

template <int N, int NE, int NT, int SLOTS>
__device__ __forceinline__ void load_indices(int (&gp)[SLOTS], int t, int k0, int nvalid, const int* __restrict__ vmapP) {
  constexpr int NFN = 4 * nfp_of(N);
#pragma unroll
  for (int j = 0; j < SLOTS; ++j) {
    const int s = t + j * NT;
    gp[j] = s < nvalid * NFN ? __ldg(vmapP + long(k0) * NFN + s) : 0;
  }
}

// A: the generated kernels' structure. One group per block of NT threads: indices, copies, res
// into registers, wait, barrier, face fluxes, barrier, node phase.
// MODE (timing decomposition): bit 1 face fluxes, 2 volume derivatives, 4 LIFT; the loads, the
// barriers and the update's stores always.
template <int N, int NE, int NT, int MODE = 7>
__global__ void __launch_bounds__(NT) blocked(const double* __restrict__ q, double* __restrict__ qo, double* __restrict__ res,
                                              const double* __restrict__ drdx, const double* __restrict__ fgeo,
                                              const int* __restrict__ vmapP, const double* __restrict__ DT,
                                              const double* __restrict__ LT, double a, double b, double dt, int K) {
  using L = Layout<N, NE>;
  constexpr int NP = L::NP, SLOTS = (NE * L::NFN + NT - 1) / NT;
  extern __shared__ __align__(16) double sm[];
  const int k0 = blockIdx.x * NE, nvalid = min(NE, K - k0), t = threadIdx.x;
  int gp[SLOTS];
  load_indices<N, NE, NT>(gp, t, k0, nvalid, vmapP);
  double pre[6] = {};
  if (t < nvalid * NP)
    for (int c = 0; c < 6; ++c) pre[c] = res[(long(k0 + t / NP) * 6 + c) * NP + t % NP];
  issue_copies<N, NE, NT>(sm, t, k0, nvalid, gp, q, drdx, fgeo);
  asm volatile("cp.async.wait_all;" ::: "memory");
  __syncthreads();
  if (MODE & 1) face_fluxes<N, NE, NT>(sm, t, nvalid);
  __syncthreads();
  node_update<N, NE, MODE>(sm, t, k0, nvalid, DT, LT, pre, qo, res, a, b, dt);
}

// B: warp-specialized. Warp 0 produces: for each of the block's groups (g = blockIdx.x, + gridDim.x,
// ..) it waits until stage n % S is free, issues the group's copies and arrives on full[n % S] when
// they land; the next group's vmapP entries are loaded one group ahead. Warps 1 .. NT / 32 consume:
// res into registers, wait on full, face fluxes, barrier among themselves, node phase, arrive on
// empty. Persistent: gridDim.x = SMs x blocks per SM.
template <int N, int NE, int NT, int S>
__global__ void __launch_bounds__(NT + 32) specialized(const double* __restrict__ q, double* __restrict__ qo,
                                                       double* __restrict__ res, const double* __restrict__ drdx,
                                                       const double* __restrict__ fgeo, const int* __restrict__ vmapP,
                                                       const double* __restrict__ DT, const double* __restrict__ LT, double a,
                                                       double b, double dt, int K) {
  using L = Layout<N, NE>;
  constexpr int NP = L::NP, SLOTS = (NE * L::NFN + 31) / 32;
  extern __shared__ __align__(16) double sm[];
  __shared__ uint64_t full[S], empty[S];
  const int groups = (K + NE - 1) / NE;
  const int t = threadIdx.x;
  if (t == 0)
    for (int s = 0; s < S; ++s) {
      mbar_init(&full[s], 32);
      mbar_init(&empty[s], NT);
    }
  __syncthreads();
  if (t < 32) {
    int gp[SLOTS];
    int g = blockIdx.x;
    if (g < groups) load_indices<N, NE, 32>(gp, t, g * NE, min(NE, K - g * NE), vmapP);
    for (int n = 0; g < groups; g += gridDim.x, ++n) {
      const int s = n % S;
      if (n >= S) mbar_wait(&empty[s], ((n / S) - 1) & 1);
      const int k0 = g * NE, nvalid = min(NE, K - k0);
      double* st = sm + s * L::SIZE;
      issue_copies<N, NE, 32>(st, t, k0, nvalid, gp, q, drdx, fgeo);
      mbar_arrive_copies(&full[s]);
      const int gn = g + gridDim.x;
      if (gn < groups) load_indices<N, NE, 32>(gp, t, gn * NE, min(NE, K - gn * NE), vmapP);
    }
    return;
  }
  const int ct = t - 32;
  for (int g = blockIdx.x, n = 0; g < groups; g += gridDim.x, ++n) {
    const int s = n % S;
    const int k0 = g * NE, nvalid = min(NE, K - k0);
    double pre[6] = {};
    if (ct < nvalid * NP)
      for (int c = 0; c < 6; ++c) pre[c] = res[(long(k0 + ct / NP) * 6 + c) * NP + ct % NP];
    mbar_wait(&full[s], (n / S) & 1);
    double* st = sm + s * L::SIZE;
    face_fluxes<N, NE, NT>(st, ct, nvalid);
    consumers_sync(NT);
    node_update<N, NE>(st, ct, k0, nvalid, DT, LT, pre, qo, res, a, b, dt);
    mbar_arrive(&empty[s]);
  }
}

template <int N, int NE, int NT, int S>
void run(int K, int sms) {
  using L = Layout<N, NE>;
  constexpr int NP = L::NP, NFP = L::NFP, NFN = L::NFN;
  const long n = 6L * NP * K;
  std::mt19937 rng(1);
  std::uniform_real_distribution<double> U(-1, 1);
  std::vector<double> hq(n), hr(n), hg(9L * K), hf(16L * K), hD(3 * NP * NP), hL(NFN * NP);
  for (auto& x : hq) x = U(rng);
  for (auto& x : hr) x = U(rng);
  for (auto& x : hg) x = U(rng);
  for (auto& x : hf) x = U(rng);
  for (auto& x : hD) x = U(rng) * 0.1;
  for (auto& x : hL) x = U(rng) * 0.1;
  std::vector<int> hv(long(NFN) * K), hm(NFN);
  for (int m = 0; m < NFN; ++m) hm[m] = int(rng() % NP);
  const int off[4] = {1, -1, 53, -53};
  for (int k = 0; k < K; ++k)
    for (int f = 0; f < 4; ++f) {
      const int kP = ((k + off[f]) % K + K) % K;
      for (int m = 0; m < NFP; ++m) hv[long(k) * NFN + f * NFP + m] = kP * NP + int(rng() % NP);
    }
  CK(cudaMemcpyToSymbol(c_fmask, hm.data(), NFN * sizeof(int)));
  double *q, *qo, *res, *res0, *g, *fg, *D, *Lt;
  int* vm;
  CK(cudaMalloc(&q, n * 8)); CK(cudaMalloc(&qo, n * 8)); CK(cudaMalloc(&res, n * 8)); CK(cudaMalloc(&res0, n * 8));
  CK(cudaMalloc(&g, hg.size() * 8)); CK(cudaMalloc(&fg, hf.size() * 8));
  CK(cudaMalloc(&D, hD.size() * 8)); CK(cudaMalloc(&Lt, hL.size() * 8)); CK(cudaMalloc(&vm, hv.size() * 4));
  CK(cudaMemcpy(q, hq.data(), n * 8, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(res0, hr.data(), n * 8, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(g, hg.data(), hg.size() * 8, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(fg, hf.data(), hf.size() * 8, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(D, hD.data(), hD.size() * 8, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(Lt, hL.data(), hL.size() * 8, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(vm, hv.data(), hv.size() * 4, cudaMemcpyHostToDevice));

  const int groups = (K + NE - 1) / NE;
  const size_t bytes_a = L::SIZE * 8, bytes_b = S * L::SIZE * 8;
  auto ka = blocked<N, NE, NT>;
  auto kb = specialized<N, NE, NT, S>;
  CK(cudaFuncSetAttribute(ka, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes_a)));
  CK(cudaFuncSetAttribute(kb, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes_b)));
  int occ_a = 0, occ_b = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ_a, ka, NT, bytes_a));
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ_b, kb, NT + 32, bytes_b));
  cudaFuncAttributes at_a, at_b;
  CK(cudaFuncGetAttributes(&at_a, ka));
  CK(cudaFuncGetAttributes(&at_b, kb));
  const int grid_b = std::min(groups, sms * occ_b);
  const double a = 0.5, b = 0.1, dt = 1e-3;

  // Agreement: one stage from the same input with each kernel.
  std::vector<double> ra(n), rb(n), qa(n), qb(n);
  CK(cudaMemcpy(res, res0, n * 8, cudaMemcpyDeviceToDevice));
  ka<<<groups, NT, bytes_a>>>(q, qo, res, g, fg, vm, D, Lt, a, b, dt, K);
  CK(cudaGetLastError());
  CK(cudaMemcpy(ra.data(), res, n * 8, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(qa.data(), qo, n * 8, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(res, res0, n * 8, cudaMemcpyDeviceToDevice));
  CK(cudaMemset(qo, 0, n * 8));
  kb<<<grid_b, NT + 32, bytes_b>>>(q, qo, res, g, fg, vm, D, Lt, a, b, dt, K);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(rb.data(), res, n * 8, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(qb.data(), qo, n * 8, cudaMemcpyDeviceToHost));
  double diff = 0, scale = 0;
  for (long i = 0; i < n; ++i) {
    diff = std::max(diff, std::max(std::abs(ra[i] - rb[i]), std::abs(qa[i] - qb[i])));
    scale = std::max(scale, std::abs(ra[i]));
  }

  Timer tm;
  double* bufs[2] = {q, qo};
  int ping = 0;
  const float t_a = tm.ms([&] {
    ka<<<groups, NT, bytes_a>>>(bufs[ping], bufs[1 - ping], res, g, fg, vm, D, Lt, a, b, dt, K);
    ping = 1 - ping;
  }, 20);
  const float t_b = tm.ms([&] {
    kb<<<grid_b, NT + 32, bytes_b>>>(bufs[ping], bufs[1 - ping], res, g, fg, vm, D, Lt, a, b, dt, K);
    ping = 1 - ping;
  }, 20);
  CK(cudaGetLastError());
  float t_mode[7];
  const int modes[7] = {0, 1, 2, 4, 3, 5, 6};
  auto time_mode = [&](auto kernel, int i) {
    CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes_a)));
    t_mode[i] = tm.ms([&] {
      kernel<<<groups, NT, bytes_a>>>(bufs[ping], bufs[1 - ping], res, g, fg, vm, D, Lt, a, b, dt, K);
      ping = 1 - ping;
    }, 20);
  };
  time_mode(blocked<N, NE, NT, 0>, 0); time_mode(blocked<N, NE, NT, 1>, 1); time_mode(blocked<N, NE, NT, 2>, 2);
  time_mode(blocked<N, NE, NT, 4>, 3); time_mode(blocked<N, NE, NT, 3>, 4); time_mode(blocked<N, NE, NT, 5>, 5);
  time_mode(blocked<N, NE, NT, 6>, 6);
  CK(cudaGetLastError());
  const float t_copy = tm.ms([&] { copy4<double><<<sms * 16, 256>>>(q, res, qo, res0, n); }, 20);
  printf("N%d NE%2d NT%3d S%d | blocked: %3d regs %2d blocks/SM %.4f ms %5.1f %% | specialized: %3d regs %2d blocks/SM %.4f ms %5.1f %% | "
         "copy4 %.4f ms (%.0f GB/s) | max diff %.1e (of %.1e)\n",
         N, NE, NT, S, at_a.numRegs, occ_a, t_a, 100.0 * t_copy / t_a, at_b.numRegs, occ_b, t_b, 100.0 * t_copy / t_b, t_copy,
         4.0 * n * 8 / t_copy * 1e-6, diff, scale);
  printf("   blocked with only (bits: 1 face fluxes, 2 volume, 4 LIFT):");
  for (int i = 0; i < 7; ++i) printf(" %d: %.4f ms (%.1f %%)", modes[i], t_mode[i], 100.0 * t_copy / t_mode[i]);
  printf("\n");
  cudaFree(q); cudaFree(qo); cudaFree(res); cudaFree(res0); cudaFree(g); cudaFree(fg); cudaFree(D); cudaFree(Lt); cudaFree(vm);
}

int main(int argc, char** argv) {
  const int K = argc > 1 ? atoi(argv[1]) : 204887;
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int which = argc > 2 ? atoi(argv[2]) : 0;
  if (which == 0) {  // the runs of the log's section 5
    run<2, 12, 128, 2>(K, sms);
    run<2, 6, 64, 2>(K, sms);
    run<2, 4, 64, 2>(K, sms);
    run<3, 6, 128, 2>(K, sms);
    run<3, 4, 96, 2>(K, sms);
  } else {  // orders 4-6
    run<4, 4, 160, 2>(K, sms);
    run<5, 4, 224, 2>(K, sms);
    run<6, 2, 192, 2>(K, sms);
    run<6, 4, 352, 2>(K, sms);
  }
  return 0;
}
