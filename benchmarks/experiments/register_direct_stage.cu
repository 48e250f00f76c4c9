// Experiment (session 18, 2026-11-26; not built by CMake, not used by rtdg): a fused LSERK stage
// of 3D Maxwell (upwind) without shared-memory staging or block barriers, as a question for issue
// 10: can one warp per 8 elements, building its tensor-core column fragments in registers straight
// from global memory, beat the generated kernels' shared-memory design at orders 2-6? Measured on
// the H100 (benchmarks/results/dg-experiments-h100-2026-11-26-session18.log): no. Element-major
// state: 53 % of the 4-array roofline at order 2, 42 % at 3, 15-33 % at 4-7 (the generated
// winners: 57-66 %); node-major state (q[(c NP + i) K + k]) half that again. Only order 1 was
// faster than the generated kernel (0.0985 against 0.110 ms per stage).
//   nvcc -O3 -std=c++17 -arch=sm_90 register_direct_stage.cu -o register_direct_stage && ./register_direct_stage
// Timing only: random operators and geometry, synthetic connectivity (face neighbours k +- 1,
// k +- 53), a stand-in for fmask; the answers are not checked.
//
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

__host__ __device__ constexpr int np_of(int N) { return (N + 1) * (N + 2) * (N + 3) / 6; }
__host__ __device__ constexpr int nfp_of(int N) { return (N + 1) * (N + 2) / 2; }

template <int n> __device__ __forceinline__ double pick(const double (&v)[n], int x) {
  double r = v[0];
#pragma unroll
  for (int y = 1; y < n; ++y) r = x == y ? v[y] : r;
  return r;
}
__device__ __forceinline__ void mma16(double (&d)[4], double a0, double a1, double b) {
  asm volatile("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};"
               : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3]) : "d"(a0), "d"(a1), "d"(b));
}
__device__ __forceinline__ void mma8(double (&d)[4], double a0, double, double b) {
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};"
               : "+d"(d[0]), "+d"(d[1]) : "d"(a0), "d"(b));
}

// One warp per 8 elements (e0 ..): lane (g = lane / 4, t = lane % 4) builds the column fragment of
// element e0 + g, node (or face node) 4 kt + t, from global loads, and holds output rows
// TR mt + g (+ 8) of elements e0 + 2 t, + 1.
// TR: tile rows (8: m8n8k4, 16: m16n8k4). RS: warps per 8 elements, each computing 6 / RS of the
// components. LAY: 0 node-major q[(c NP + i) K + k], 1 element-major q[(k 6 + c) NP + i].
// MODE: bits 1 volume, 2 surface, 4 update (without it, res = the right-hand side), 8 the update
// through a per-warp shared buffer (coalesced) instead of straight from the accumulators.
template <typename real, int N, int TR, int RS, int LAY, int MODE>
__global__ void __launch_bounds__(128) stage(const real* __restrict__ q, real* __restrict__ qo, real* __restrict__ res,
                                             const real* __restrict__ drdx, const real* __restrict__ fgeo,
                                             const int* __restrict__ vmapP, const int* __restrict__ bcode,
                                             const double* __restrict__ AV, const double* __restrict__ AL,
                                             real a, real b, real dt, int K) {
  constexpr int NP = np_of(N), NFP = nfp_of(N), NFN = 4 * NFP;
  constexpr int MT = (NP + TR - 1) / TR;        // row tiles
  constexpr int MTW = MT;  // all row tiles
  constexpr int NCW = 6 / RS;  // components per warp
  constexpr int LDE = ((NP + 3) / 8) * 8 + 4;  // 4 mod 8
  constexpr int KT = (NP + 3) / 4, KTL = (NFN + 3) / 4;
  const int lane = threadIdx.x & 31;
  const int wglob = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const int tile = wglob / RS, split = wglob % RS;
  const int e0 = tile * 8;
  if (e0 >= K) return;
  const int g = lane >> 2, t = lane & 3;
  const int eB = e0 + g;
  const bool vB = eB < K;
  const int mt0 = 0;
  const int c0 = split * NCW;
  double gm[9];
#pragma unroll
  for (int x = 0; x < 9; ++x) gm[x] = vB ? double(drdx[eB * 9 + x]) : 0.0;
  double acc[NCW][MTW][4] = {};
#define QI(c, i, k) (LAY == 0 ? ((c) * NP + (i)) * K + (k) : ((k) * 6 + (c)) * NP + (i))
  if constexpr ((MODE & 1) != 0) {
  // Volume: G_{c,a} = sum_d g[a][d] F_{c,d}(q_j), acc_c += (-D_a) G_{c,a}.
#pragma unroll
  for (int kt = 0; kt < KT; ++kt) {
    const int j = kt * 4 + t;
    double u[6];
#pragma unroll
    for (int c = 0; c < 6; ++c) u[c] = (j < NP && vB) ? double(q[QI(c, j, eB)]) : 0.0;
    double F[6][3] = {{0, -u[5], u[4]}, {u[5], 0, -u[3]}, {-u[4], u[3], 0},
                      {0, u[2], -u[1]}, {-u[2], 0, u[0]}, {u[1], -u[0], 0}};
    double Fx[6], Fy[6], Fz[6];
#pragma unroll
    for (int c = 0; c < 6; ++c) { Fx[c] = F[c][0]; Fy[c] = F[c][1]; Fz[c] = F[c][2]; }
#pragma unroll
    for (int ad = 0; ad < 3; ++ad) {
      double G[NCW];
#pragma unroll
      for (int c = 0; c < NCW; ++c) { const double f0 = pick(Fx, c0 + c), f1 = pick(Fy, c0 + c), f2 = pick(Fz, c0 + c); G[c] = gm[3 * ad] * f0 + gm[3 * ad + 1] * f1 + gm[3 * ad + 2] * f2; }
#pragma unroll
      for (int m = 0; m < MTW; ++m) {
        const int mt = mt0 + m;
        if (mt >= MT) break;
        const double2 A = __ldg(reinterpret_cast<const double2*>(AV) + ((ad * MT + mt) * KT + kt) * 32 + lane);
#pragma unroll
        for (int c = 0; c < NCW; ++c) {
          if constexpr (TR == 16) mma16(acc[c][m], A.x, A.y, G[c]);
          else mma8(acc[c][m], A.x, A.y, G[c]);
        }
      }
    }
  }
  }
  if constexpr ((MODE & 2) != 0) {
  // Surface: upwind flux at face node m of element eB, acc_c += LIFT (Fscale flux_c).
#pragma unroll
  for (int kt = 0; kt < KTL; ++kt) {
    const int m = kt * 4 + t;
    double fl[6] = {};
    if (m < NFN && vB) {
      const int f = m / NFP;
      // fmask stand-in: face f's nodes at a spread of volume nodes (timing only).
      const int iM = (m * 7 + f) % NP;
      double uM[6], uP[6];
#pragma unroll
      for (int c = 0; c < 6; ++c) uM[c] = double(q[QI(c, iM, eB)]);
      const int code = bcode[eB * 4 + f];
      if (code == 0) {
        const int p = vmapP[eB * NFN + m];
        const int kP = p / NP, iP = p - kP * NP;
#pragma unroll
        for (int c = 0; c < 6; ++c) uP[c] = double(q[QI(c, iP, kP)]);
      } else {
#pragma unroll
        for (int c = 0; c < 3; ++c) { uP[c] = -uM[c]; uP[c + 3] = uM[c + 3]; }
      }
      const real* fg = fgeo + (eB * 4 + f) * 4;
      const double nx = fg[0], ny = fg[1], nz = fg[2], fs = fg[3];
      const double dEx = uP[0] - uM[0], dEy = uP[1] - uM[1], dEz = uP[2] - uM[2];
      const double dHx = uP[3] - uM[3], dHy = uP[4] - uM[4], dHz = uP[5] - uM[5];
      const double ndE = nx * dEx + ny * dEy + nz * dEz, ndH = nx * dHx + ny * dHy + nz * dHz;
      const double h = 0.5 * fs;
      fl[0] = h * (ny * dHz - nz * dHy + (dEx - ndE * nx));
      fl[1] = h * (nz * dHx - nx * dHz + (dEy - ndE * ny));
      fl[2] = h * (nx * dHy - ny * dHx + (dEz - ndE * nz));
      fl[3] = h * (-ny * dEz + nz * dEy + (dHx - ndH * nx));
      fl[4] = h * (-nz * dEx + nx * dEz + (dHy - ndH * ny));
      fl[5] = h * (-nx * dEy + ny * dEx + (dHz - ndH * nz));
    }
#pragma unroll
    for (int mm = 0; mm < MTW; ++mm) {
      const int mt = mt0 + mm;
      if (mt >= MT) break;
      const double2 A = __ldg(reinterpret_cast<const double2*>(AL) + (mt * KTL + kt) * 32 + lane);
#pragma unroll
      for (int c = 0; c < NCW; ++c) {
        if constexpr (TR == 16) mma16(acc[c][mm], A.x, A.y, pick(fl, c0 + c));
        else mma8(acc[c][mm], A.x, A.y, pick(fl, c0 + c));
      }
    }
  }
  }
  if constexpr ((MODE & 8) != 0) {
    // Per component: the tile into the warp's shared buffer [8][LDE], then a coalesced update.
    __shared__ double sbuf[4][8 * LDE];
    double* sy = sbuf[(threadIdx.x >> 5)];
#pragma unroll
    for (int c = 0; c < NCW; ++c) {
#pragma unroll
      for (int mm = 0; mm < MTW; ++mm)
#pragma unroll
        for (int h = 0; h < TR / 8; ++h) {
          const int i = mm * TR + g + 8 * h;
          if (i >= NP) continue;
          sy[(2 * t) * LDE + i] = acc[c][mm][2 * h];
          sy[(2 * t + 1) * LDE + i] = acc[c][mm][2 * h + 1];
        }
      __syncwarp();
      const int ne = K - e0 < 8 ? K - e0 : 8;
      for (int s2 = lane; s2 < ne * NP; s2 += 32) {
        const int e = s2 / NP, i = s2 - e * NP;
        const long idx = QI(c0 + c, i, e0 + e);
        const real rr = a * res[idx] + dt * real(sy[e * LDE + i]);
        res[idx] = rr;
        qo[idx] = q[idx] + b * rr;
      }
      __syncwarp();
    }
  } else {
  // Update: lane holds rows mt TR + g (+ 8), columns (elements) e0 + 2t, + 1.
#pragma unroll
  for (int c = 0; c < NCW; ++c)
#pragma unroll
    for (int mm = 0; mm < MTW; ++mm)
#pragma unroll
      for (int h = 0; h < TR / 8; ++h) {
        const int i = (mt0 + mm) * TR + g + 8 * h;
        if (mt0 + mm >= MT || i >= NP) continue;
#pragma unroll
        for (int cc = 0; cc < 2; ++cc) {
          const int e = e0 + 2 * t + cc;
          if (e >= K) continue;
          const long idx = QI(c0 + c, i, e);
          if constexpr ((MODE & 4) != 0) {
            const real rr = a * res[idx] + dt * real(acc[c][mm][2 * h + cc]);
            res[idx] = rr;
            qo[idx] = q[idx] + b * rr;
          } else {
            res[idx] = real(acc[c][mm][2 * h + cc]);
          }
        }
      }
  }
}

template <typename real>
__global__ void copy4(const real* __restrict__ x, const real* __restrict__ y, real* __restrict__ u, real* __restrict__ v, long n) {
  for (long i = blockIdx.x * long(blockDim.x) + threadIdx.x; i < n; i += long(gridDim.x) * blockDim.x) {
    const real a = x[i], b = y[i];
    u[i] = a + b;
    v[i] = a - b;
  }
}

struct Timer {
  cudaEvent_t a, b;
  Timer() { cudaEventCreate(&a); cudaEventCreate(&b); }
  template <class F> float ms(F f, int reps) {
    f();
    CK(cudaDeviceSynchronize());
    cudaEventRecord(a);
    for (int r = 0; r < reps; ++r) f();
    cudaEventRecord(b);
    CK(cudaEventSynchronize(b));
    float x;
    cudaEventElapsedTime(&x, a, b);
    return x / reps;
  }
};

template <typename real, int N, int TR, int RS, int LAY = 0, int MODE = 7>
void run(int K, const char* name) {
  constexpr int NP = np_of(N), NFP = nfp_of(N), NFN = 4 * NFP;
  constexpr int MT = (NP + TR - 1) / TR, KT = (NP + 3) / 4, KTL = (NFN + 3) / 4;
  const long n = 6L * NP * K;
  std::mt19937 rng(1);
  std::uniform_real_distribution<double> U(-1, 1);
  std::vector<real> hq(n), hg(9L * K), hf(16L * K);
  for (auto& x : hq) x = real(U(rng));
  for (auto& x : hg) x = real(U(rng));
  for (auto& x : hf) x = real(U(rng));
  std::vector<int> hv(long(NFN) * K), hb(4L * K);
  const int off[4] = {1, -1, 53, -53};
  for (int k = 0; k < K; ++k)
    for (int f = 0; f < 4; ++f) {
      int kP = k + off[f];
      hb[k * 4 + f] = (kP < 0 || kP >= K) ? 1 : 0;
      kP = (kP + K) % K;
      for (int m = 0; m < NFP; ++m) hv[long(k) * NFN + f * NFP + m] = kP * NP + int(rng() % NP);
    }
  std::vector<double> hav(3L * MT * KT * 64), hal(long(MT) * KTL * 64);
  for (auto& x : hav) x = U(rng) * 0.1;
  for (auto& x : hal) x = U(rng) * 0.1;
  real *q, *qo, *res, *g, *fg;
  int *vm, *bc;
  double *av, *al;
  CK(cudaMalloc(&q, n * sizeof(real)));
  CK(cudaMalloc(&qo, n * sizeof(real)));
  CK(cudaMalloc(&res, n * sizeof(real)));
  CK(cudaMalloc(&g, hg.size() * sizeof(real)));
  CK(cudaMalloc(&fg, hf.size() * sizeof(real)));
  CK(cudaMalloc(&vm, hv.size() * sizeof(int)));
  CK(cudaMalloc(&bc, hb.size() * sizeof(int)));
  CK(cudaMalloc(&av, hav.size() * sizeof(double)));
  CK(cudaMalloc(&al, hal.size() * sizeof(double)));
  CK(cudaMemcpy(q, hq.data(), n * sizeof(real), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(res, hq.data(), n * sizeof(real), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(g, hg.data(), hg.size() * sizeof(real), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(fg, hf.data(), hf.size() * sizeof(real), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(vm, hv.data(), hv.size() * sizeof(int), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(bc, hb.data(), hb.size() * sizeof(int), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(av, hav.data(), hav.size() * sizeof(double), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(al, hal.data(), hal.size() * sizeof(double), cudaMemcpyHostToDevice));
  Timer tm;
  const int warps = (K + 7) / 8 * RS;
  const int blocks = (warps + 3) / 4;
  cudaFuncAttributes at;
  CK(cudaFuncGetAttributes(&at, stage<real, N, TR, RS, LAY, MODE>));
  int occ = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, stage<real, N, TR, RS, LAY, MODE>, 128, 0));
  real* bufs[2] = {q, qo};
  int ping = 0;
  const float t_stage = tm.ms([&] {
    stage<real, N, TR, RS, LAY, MODE><<<blocks, 128>>>(bufs[ping], bufs[1 - ping], res, g, fg, vm, bc, av, al, real(0.5), real(0.1), real(1e-3), K);
    ping = 1 - ping;
  }, 20);
  CK(cudaGetLastError());
  const float t_copy = tm.ms([&] { copy4<real><<<132 * 16, 256>>>(q, res, qo, res, n); }, 20);
  const double bytes = 4.0 * n * sizeof(real);
  printf("%-6s N%d TR%2d RS%d L%d M%d  regs %3d  blocks/SM %2d  stage %.4f ms  copy4 %.4f ms (%.0f GB/s)  roofline %.1f %%\n",
         name, N, TR, RS, LAY, MODE, at.numRegs, occ, t_stage, t_copy, bytes / t_copy * 1e-6, 100.0 * t_copy / t_stage);
  cudaFree(q); cudaFree(qo); cudaFree(res); cudaFree(g); cudaFree(fg); cudaFree(vm); cudaFree(bc); cudaFree(av); cudaFree(al);
}

int main(int argc, char** argv) {
  const int K = argc > 1 ? atoi(argv[1]) : 205255;
#define R(T, N, TR, RS, L, M) run<T, N, TR, RS, L, M>(K, #T)
  R(double, 1, 16, 1, 1, 7); R(double, 1, 16, 1, 1, 11); R(double, 1, 8, 1, 1, 11);
  R(double, 2, 16, 1, 1, 7); R(double, 2, 16, 1, 1, 11); R(double, 2, 16, 2, 1, 11); R(double, 2, 8, 1, 1, 11);
  R(double, 3, 16, 1, 1, 11); R(double, 3, 16, 2, 1, 11); R(double, 3, 16, 3, 1, 11); R(double, 3, 8, 2, 1, 11);
  R(double, 4, 16, 2, 1, 11); R(double, 4, 16, 3, 1, 11); R(double, 4, 16, 6, 1, 11); R(double, 4, 8, 3, 1, 11);
  R(double, 5, 16, 3, 1, 11); R(double, 5, 16, 6, 1, 11); R(double, 5, 8, 6, 1, 11);
  R(double, 6, 16, 3, 1, 11); R(double, 6, 16, 6, 1, 11);
  R(double, 7, 16, 6, 1, 11);
  R(float, 2, 16, 1, 1, 11); R(float, 2, 16, 2, 1, 11); R(float, 3, 16, 2, 1, 11); R(float, 3, 16, 3, 1, 11);
  R(float, 4, 16, 3, 1, 11); R(float, 4, 16, 6, 1, 11); R(float, 5, 16, 6, 1, 11); R(float, 6, 16, 6, 1, 11); R(float, 7, 16, 6, 1, 11);
  return 0;
}
