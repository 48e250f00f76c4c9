// Shared by the hand-written stage experiments here (warp_specialized_stage.cu, session 19;
// register_operator_stage.cu, session 25; not built by CMake): error checks, tetrahedron sizes,
// the cp.async and mbarrier wrappers (sm_80 / sm_90), the 4-array copy the stages are measured
// against, and an event timer.
#pragma once
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

__host__ __device__ constexpr int np_of(int N) { return (N + 1) * (N + 2) * (N + 3) / 6; }
__host__ __device__ constexpr int nfp_of(int N) { return (N + 1) * (N + 2) / 2; }

// ---- shared-memory helpers (sm_80 cp.async, sm_90 mbarrier) ----
__device__ __forceinline__ unsigned smem(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }
__device__ __forceinline__ void cp8(void* dst, const void* src) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8;" :: "r"(smem(dst)), "l"(src) : "memory");
}
__device__ __forceinline__ void cp16(void* dst, const void* src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(smem(dst)), "l"(src) : "memory");
}
__device__ __forceinline__ void mbar_init(uint64_t* bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(smem(bar)), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_arrive(uint64_t* bar) {
  asm volatile("{\n .reg .b64 st;\n mbarrier.arrive.shared::cta.b64 st, [%0];\n}" :: "r"(smem(bar)) : "memory");
}
// Arrives on `bar` when all of this thread's earlier cp.async copies have landed (counts as one of its arrivals).
__device__ __forceinline__ void mbar_arrive_copies(uint64_t* bar) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" :: "r"(smem(bar)) : "memory");
}
__device__ __forceinline__ void mbar_wait(uint64_t* bar, unsigned parity) {
  asm volatile("{\n .reg .pred p;\n WAIT_%=:\n mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n @!p bra WAIT_%=;\n}"
               :: "r"(smem(bar)), "r"(parity) : "memory");
}
__device__ __forceinline__ void consumers_sync(int count) { asm volatile("bar.sync 1, %0;" :: "r"(count) : "memory"); }

// 3D Maxwell's upwind face flux (unit normal n) of the jump d = u- - u+ (Ex Ey Ez Hx Hy Hz), before
// the Fscale / 2 factor: F_E = -n x d_H + d_E - (n . d_E) n, F_H = n x d_E + d_H - (n . d_H) n.
__host__ __device__ inline void upwind_flux(const double (&d)[6], double nx, double ny, double nz, double (&F)[6]) {
  const double ndE = nx * d[0] + ny * d[1] + nz * d[2], ndH = nx * d[3] + ny * d[4] + nz * d[5];
  F[0] = -ny * d[5] + nz * d[4] + (d[0] - ndE * nx);
  F[1] = -nz * d[3] + nx * d[5] + (d[1] - ndE * ny);
  F[2] = -nx * d[4] + ny * d[3] + (d[2] - ndE * nz);
  F[3] = ny * d[2] - nz * d[1] + (d[3] - ndH * nx);
  F[4] = nz * d[0] - nx * d[2] + (d[4] - ndH * ny);
  F[5] = nx * d[1] - ny * d[0] + (d[5] - ndH * nz);
}

// Maxwell's right-hand side from the physical derivatives dx[c][x] = d u_c / d x_x of (E, H):
// dE/dt = curl H, dH/dt = -curl E.
__host__ __device__ inline void maxwell_curl(const double (&dx)[6][3], double (&rhs)[6]) {
  rhs[0] = dx[5][1] - dx[4][2];
  rhs[1] = dx[3][2] - dx[5][0];
  rhs[2] = dx[4][0] - dx[3][1];
  rhs[3] = -(dx[2][1] - dx[1][2]);
  rhs[4] = -(dx[0][2] - dx[2][0]);
  rhs[5] = -(dx[1][0] - dx[0][1]);
}

// The roofline's traffic: read a and b, write c and d (4 arrays of n).
template <typename T>
__global__ void copy4(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ c, T* __restrict__ d, long n) {
  for (long i = blockIdx.x * long(blockDim.x) + threadIdx.x; i < n; i += long(gridDim.x) * blockDim.x) {
    c[i] = a[i];
    d[i] = b[i] + 1;
  }
}

struct Timer {
  cudaEvent_t a, b;
  Timer() { cudaEventCreate(&a); cudaEventCreate(&b); }
  template <typename F> float ms(F f, int reps) {
    for (int r = 0; r < 3; ++r) f();
    cudaEventRecord(a);
    for (int r = 0; r < reps; ++r) f();
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float t = 0;
    cudaEventElapsedTime(&t, a, b);
    return t / reps;
  }
};
