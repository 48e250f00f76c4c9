// Experiment (session 36, 2026-11-29; not built by CMake, not used by rtdg): does the allocation path
// change the rate of a stage's memory traffic? Nsight Compute's profiles of the fused stage (e.g.
// benchmarks/results/ncu-h100-N2-N3-N4-low-orders-2026-11-26.txt) report every store as "L2 Compression
// Input Sectors", none compressed, with an estimated 26 % speed-up: is the stream-ordered pool's memory
// (rtcg's arrays: cuMemAllocAsync from the default pool) compressible, and does that cost bandwidth
// against the cuMemAlloc buffers that rtcg::measure_roofline copies?
// A 2-read-2-write kernel (the LSERK update's traffic: read q and res, write both; ping-pong) over
// four 196 MB arrays from each of: cuMemAlloc, cuMemAllocAsync on the default pool, cuMemCreate
// without compression, cuMemCreate with CU_MEM_ALLOCATION_COMP_GENERIC.
// Measured on the H200 (benchmarks/results/gpu-tests-h200-2026-11-29-session36-call2.log.gz, head):
// no. All four within 0.8 % (3888-3917 GB/s, the pool fastest), twice in one call, although the
// device reports generic compression as supported and cuMemCreate grants it. The profile's
// compression counters are not a cost of rtcg's pool.
//   nvcc -O3 -arch=sm_90 allocation_probe.cu -o allocation_probe -lcuda && ./allocation_probe
#include <cuda.h>
#include <cstdio>
#include <vector>
#define CK(x) do { CUresult r = (x); if (r != CUDA_SUCCESS) { const char* s; cuGetErrorString(r, &s); std::printf("%s: %s\n", #x, s); return 1; } } while (0)
__global__ void stage(const double* __restrict__ qi, const double* __restrict__ ri, double* __restrict__ qo, double* __restrict__ ro, long n) {
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x) {
    const double q = qi[i], r = ri[i];
    const double rn = 0.5 * r + 1e-3 * q;
    ro[i] = rn; qo[i] = q + 0.25 * rn;
  }
}
__global__ void fill(double* a, long n, double v) { for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x) a[i] = v * (double)(i % 977) + 1e-7 * (double)i; }
CUdeviceptr create(size_t bytes, int dev, unsigned char comp, size_t* out_bytes, int* got_comp) {
  CUmemAllocationProp p = {};
  p.type = CU_MEM_ALLOCATION_TYPE_PINNED; p.location.type = CU_MEM_LOCATION_TYPE_DEVICE; p.location.id = dev;
  p.allocFlags.compressionType = comp;
  size_t g = 0; cuMemGetAllocationGranularity(&g, &p, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED);
  bytes = (bytes + g - 1) / g * g;
  CUmemGenericAllocationHandle h; if (cuMemCreate(&h, bytes, &p, 0) != CUDA_SUCCESS) return 0;
  CUmemAllocationProp q = {}; cuMemGetAllocationPropertiesFromHandle(&q, h); *got_comp = q.allocFlags.compressionType;
  CUdeviceptr ptr; cuMemAddressReserve(&ptr, bytes, 0, 0, 0); cuMemMap(ptr, bytes, 0, h, 0);
  CUmemAccessDesc a = {}; a.location = p.location; a.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE; cuMemSetAccess(ptr, bytes, &a, 1);
  *out_bytes = bytes; return ptr;
}
int main() {
  CK(cuInit(0)); CUdevice dev; CK(cuDeviceGet(&dev, 0)); CUcontext ctx; CK(cuDevicePrimaryCtxRetain(&ctx, dev)); CK(cuCtxSetCurrent(ctx));
  int comp = 0; cuDeviceGetAttribute(&comp, CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED, dev);
  std::printf("generic compression supported: %d\n", comp);
  const long n = 98L * 1000 * 1000 / 8 * 2;  // 196 MB per array
  const size_t bytes = n * 8;
  CUstream st; CK(cuStreamCreate(&st, 0));
  CUmemoryPool pool; CK(cuDeviceGetDefaultMemPool(&pool, dev));
  for (int mode = 0; mode < 4; ++mode) {
    CUdeviceptr a[4]; int got = -1;
    for (int j = 0; j < 4; ++j) {
      size_t b = 0;
      if (mode == 0) CK(cuMemAlloc(&a[j], bytes));
      else if (mode == 1) CK(cuMemAllocAsync(&a[j], bytes, st));
      else a[j] = create(bytes, dev, mode == 2 ? 0 : CU_MEM_ALLOCATION_COMP_GENERIC, &b, &got);
      if (!a[j]) { std::printf("mode %d: allocation failed\n", mode); return 1; }
    }
    CK(cuStreamSynchronize(st));
    for (int j = 0; j < 4; ++j) fill<<<1056, 256, 0, st>>>((double*)a[j], n, 1.0 + j);
    CUevent e0, e1; cuEventCreate(&e0, 0); cuEventCreate(&e1, 0);
    double best = 1e9;
    for (int rep = 0; rep < 5; ++rep) {
      cuEventRecord(e0, st);
      for (int it = 0; it < 20; ++it) {
        const double* qi = (const double*)a[it % 2 ? 2 : 0]; double* qo = (double*)a[it % 2 ? 0 : 2];
        const double* ri = (const double*)a[it % 2 ? 3 : 1]; double* ro = (double*)a[it % 2 ? 1 : 3];
        stage<<<132 * 16, 256, 0, st>>>(qi, ri, qo, ro, n);
      }
      cuEventRecord(e1, st); cuEventSynchronize(e1);
      float ms; cuEventElapsedTime(&ms, e0, e1); best = ms / 20 < best ? ms / 20 : best;
    }
    const char* names[] = {"cuMemAlloc", "cuMemAllocAsync (default pool)", "cuMemCreate, no compression", "cuMemCreate, generic compression"};
    std::printf("%-34s compression=%d  %.4f ms  %.1f GB/s\n", names[mode], got, best, 4.0 * bytes / (best * 1e-3) / 1e9);
    for (int j = 0; j < 4; ++j) { if (mode == 0) cuMemFree(a[j]); else if (mode == 1) cuMemFreeAsync(a[j], st); }
    cuStreamSynchronize(st);
  }
  return 0;
}
