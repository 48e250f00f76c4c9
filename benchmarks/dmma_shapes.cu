// Throughput of the FP64 tensor-core (DMMA) shapes on this GPU: mma.sync m8n8k4 (sm_80 and
// newer) against m16n8k4, m16n8k8 and m16n8k16 (sm_90 and newer), each warp running CH
// independent accumulator chains; and a check of the m16n8k8 / m16n8k16 fragment layouts
// against loops. Why: the fused DG kernel's tensor products (dg/src/kernels/fused.cpp, plan
// value tile_rows) chose their shape from this (benchmarks/results/README.md, 2026-11-25).
// Build and run on the GPU machine:
//   nvcc -arch=sm_90 -O3 -o dmma_shapes benchmarks/dmma_shapes.cu && ./dmma_shapes
#include <cstdio>
#include <cuda_runtime.h>
__device__ __forceinline__ void m8n8k4(double (&d)[2], double a, double b) {
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};" : "+d"(d[0]), "+d"(d[1]) : "d"(a), "d"(b));
}
__device__ __forceinline__ void m16n8k4(double (&d)[4], double a0, double a1, double b) {
  asm volatile("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};" : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3]) : "d"(a0), "d"(a1), "d"(b));
}
__device__ __forceinline__ void m16n8k8(double (&d)[4], const double (&a)[4], const double (&b)[2]) {
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};" : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3]) : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
}
__device__ __forceinline__ void m16n8k16(double (&d)[4], const double (&a)[8], const double (&b)[4]) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7,%8,%9,%10,%11}, {%12,%13,%14,%15}, {%0,%1,%2,%3};" : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3]) : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]), "d"(a[7]), "d"(b[0]), "d"(b[1]), "d"(b[2]), "d"(b[3]));
}
constexpr int ITER = 4096, CH = 4;
__global__ void k_m8n8k4(double* out, double s) {
  double d[CH][2] = {}; double a = s * threadIdx.x, b = s + threadIdx.x;
  for (int i = 0; i < ITER; ++i)
#pragma unroll
    for (int c = 0; c < CH; ++c) m8n8k4(d[c], a, b);
  double t = 0; for (int c = 0; c < CH; ++c) t += d[c][0] + d[c][1];
  if (t == 12345.678) out[0] = t;
}
__global__ void k_m16n8k4(double* out, double s) {
  double d[CH][4] = {}; double a = s * threadIdx.x, b = s + threadIdx.x;
  for (int i = 0; i < ITER; ++i)
#pragma unroll
    for (int c = 0; c < CH; ++c) m16n8k4(d[c], a, b, b);
  double t = 0; for (int c = 0; c < CH; ++c) t += d[c][0] + d[c][3];
  if (t == 12345.678) out[0] = t;
}
__global__ void k_m16n8k8(double* out, double s) {
  double d[CH][4] = {}; double a[4], b[2];
  for (int j = 0; j < 4; ++j) a[j] = s * (threadIdx.x + j);
  for (int j = 0; j < 2; ++j) b[j] = s + threadIdx.x + j;
  for (int i = 0; i < ITER; ++i)
#pragma unroll
    for (int c = 0; c < CH; ++c) m16n8k8(d[c], a, b);
  double t = 0; for (int c = 0; c < CH; ++c) t += d[c][0] + d[c][3];
  if (t == 12345.678) out[0] = t;
}
__global__ void k_m16n8k16(double* out, double s) {
  double d[CH][4] = {}; double a[8], b[4];
  for (int j = 0; j < 8; ++j) a[j] = s * (threadIdx.x + j);
  for (int j = 0; j < 4; ++j) b[j] = s + threadIdx.x + j;
  for (int i = 0; i < ITER; ++i)
#pragma unroll
    for (int c = 0; c < CH; ++c) m16n8k16(d[c], a, b);
  double t = 0; for (int c = 0; c < CH; ++c) t += d[c][0] + d[c][3];
  if (t == 12345.678) out[0] = t;
}
// Fragment-layout check of m16n8k8: D = A B with A 16x8 row, B 8x8 col, against loops.
__global__ void check_k8(const double* A, const double* B, double* D) {
  int lane = threadIdx.x, g = lane >> 2, t = lane & 3;
  double a[4] = {A[g * 8 + t], A[(g + 8) * 8 + t], A[g * 8 + t + 4], A[(g + 8) * 8 + t + 4]};
  double b[2] = {B[g * 8 + t], B[g * 8 + t + 4]};  // B stored by column: B[n*8 + k]
  double d[4] = {};
  m16n8k8(d, a, b);
  D[g * 8 + 2 * t] = d[0]; D[g * 8 + 2 * t + 1] = d[1]; D[(g + 8) * 8 + 2 * t] = d[2]; D[(g + 8) * 8 + 2 * t + 1] = d[3];
}
__global__ void check_k16(const double* A, const double* B, double* D) {
  int lane = threadIdx.x, g = lane >> 2, t = lane & 3;
  double a[8], b[4];
  for (int j = 0; j < 4; ++j) { a[2 * j] = A[g * 16 + t + 4 * j]; a[2 * j + 1] = A[(g + 8) * 16 + t + 4 * j]; b[j] = B[g * 16 + t + 4 * j]; }
  double d[4] = {};
  m16n8k16(d, a, b);
  D[g * 8 + 2 * t] = d[0]; D[g * 8 + 2 * t + 1] = d[1]; D[(g + 8) * 8 + 2 * t] = d[2]; D[(g + 8) * 8 + 2 * t + 1] = d[3];
}
template <class F> void run(const char* name, F kernel, int mnk) {
  double* out; cudaMalloc(&out, 8);
  int sms; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  for (int warps : {4, 8, 16}) {
    dim3 grid(sms * 4), block(32 * warps);
    kernel<<<grid, block>>>(out, 1.0);
    if (cudaDeviceSynchronize() != cudaSuccess || cudaGetLastError() != cudaSuccess) {
      printf("%-10s %2d warps/block: does not launch (registers)\n", name, warps);
      continue;
    }
    cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
    cudaEventRecord(e0); kernel<<<grid, block>>>(out, 1.0); cudaEventRecord(e1); cudaEventSynchronize(e1);
    float ms; cudaEventElapsedTime(&ms, e0, e1);
    double flops = 2.0 * mnk * ITER * CH * double(grid.x) * warps;
    printf("%-10s %2d warps/block x 4 blocks/SM: %.1f TFLOP/s\n", name, warps, flops / ms / 1e9);
  }
  cudaFree(out);
}
int main() {
  run("m8n8k4", k_m8n8k4, 8 * 8 * 4);
  run("m16n8k4", k_m16n8k4, 16 * 8 * 4);
  run("m16n8k8", k_m16n8k8, 16 * 8 * 8);
  run("m16n8k16", k_m16n8k16, 16 * 8 * 16);
  double hA[16 * 16], hB[8 * 16], hD[128], *A, *B, *D;
  for (int i = 0; i < 256; ++i) hA[i] = (i * 37 % 101) / 7.0;
  for (int i = 0; i < 128; ++i) hB[i] = (i * 53 % 97) / 5.0;
  cudaMalloc(&A, sizeof hA); cudaMalloc(&B, sizeof hB); cudaMalloc(&D, sizeof hD);
  cudaMemcpy(A, hA, sizeof hA, cudaMemcpyHostToDevice); cudaMemcpy(B, hB, sizeof hB, cudaMemcpyHostToDevice);
  for (int K : {8, 16}) {
    // A as 16 x K row-major, B as 8 columns of K.
    double a2[256], b2[128];
    for (int r = 0; r < 16; ++r) for (int k = 0; k < K; ++k) a2[r * K + k] = hA[r * 16 + k];
    for (int n = 0; n < 8; ++n) for (int k = 0; k < K; ++k) b2[n * K + k] = hB[n * 16 + k];
    cudaMemcpy(A, a2, 16 * K * 8, cudaMemcpyHostToDevice); cudaMemcpy(B, b2, 8 * K * 8, cudaMemcpyHostToDevice);
    if (K == 8) check_k8<<<1, 32>>>(A, B, D); else check_k16<<<1, 32>>>(A, B, D);
    cudaMemcpy(hD, D, sizeof hD, cudaMemcpyDeviceToHost);
    double err = 0;
    for (int r = 0; r < 16; ++r) for (int n = 0; n < 8; ++n) {
      double s = 0; for (int k = 0; k < K; ++k) s += a2[r * K + k] * b2[n * K + k];
      err = fmax(err, fabs(s - hD[r * 8 + n]) / fmax(1.0, fabs(s)));
    }
    printf("m16n8k%d fragment layout check: max rel err %.3g\n", K, err);
  }
  return 0;
}
