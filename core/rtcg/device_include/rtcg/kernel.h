// rtcg's portable kernel dialect. Included before every program on both backends, so one
// generated source compiles with NVRTC (CUDA) and with the host C++ compiler.
//
//   RTCG_KERNEL(name)(params) { ... }   a kernel; extern "C" name unless extern_c is off
//   RTCG_DEVICE                          a helper function callable from kernels
//   RTCG_GLOBAL_LOOP(i, n) { ... }       every i in [0, n) exactly once: a grid-stride loop on
//                                        CUDA, an OpenMP parallel loop on host
//   RTCG_RESTRICT                        __restrict__
//   RTCG_CUDA / RTCG_HOST                which backend this is compiled for
//
// The C math functions (sqrt, sin, sqrtf, ...) are available on both backends: NVRTC has them
// built in, and the host variant includes <math.h> here, outside the extern "C" block that
// wraps a program's source.
//
// On host a launch calls the kernel function once, on the launching thread; the launch shape
// is available through rtcg_grid_dim() and rtcg_block_dim(). Kernels that need blocks
// to cooperate (shared memory, barriers) are written per backend under #if RTCG_CUDA by
// the generator that makes them.
#ifndef RTCG_KERNEL_H
#define RTCG_KERNEL_H

#if defined(__CUDACC_RTC__) || defined(__CUDACC__)
#define RTCG_CUDA 1
#define RTCG_HOST 0
#define RTCG_KERNEL(name) __global__ void name
#define RTCG_DEVICE __device__ __forceinline__
#define RTCG_RESTRICT __restrict__
#define RTCG_GLOBAL_LOOP(i, n)                                                         \
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;    \
       i < static_cast<long long>(n); i += static_cast<long long>(gridDim.x) * blockDim.x)
#else
#include <math.h>
#define RTCG_CUDA 0
#define RTCG_HOST 1
#define RTCG_KERNEL(name) void name
#define RTCG_DEVICE static inline
#define RTCG_RESTRICT __restrict__
#define RTCG_GLOBAL_LOOP(i, n) \
  _Pragma("omp parallel for simd schedule(static)") for (long long i = 0; i < static_cast<long long>(n); ++i)

#ifdef __cplusplus
extern "C++" {
struct rtcg_dim3 {
  unsigned x, y, z;
};
struct rtcg_launch_shape {
  rtcg_dim3 grid, block;
  unsigned shared_bytes;
};
// Set by the host backend for the duration of a launch.
inline thread_local rtcg_launch_shape rtcg_current_launch = {{1, 1, 1}, {1, 1, 1}, 0};
inline rtcg_dim3 rtcg_grid_dim() { return rtcg_current_launch.grid; }
inline rtcg_dim3 rtcg_block_dim() { return rtcg_current_launch.block; }
}
#endif
#endif

#endif  // RTCG_KERNEL_H
