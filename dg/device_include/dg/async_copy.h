// Copies from global into shared memory that do not hold the issuing thread (cp.async, compute
// capability 8.0 and newer): the load phase of Prefetch::async and of pipelined element groups
// (dg/src/kernels/fused/load.cpp). On the host a copy happens at once and the waits are empty.
//
//   RTDG_CP_ASYNC(dst, src, bytes)   copy `bytes` (4, 8 or 16: a literal) from src to dst, both
//                                    aligned to it; dst in shared memory
//   RTDG_COPY_REALS(dst, src, n)     the host's copy of n consecutive values
//   RTDG_ASYNC_COMMIT()              closes this thread's group of copies
//   RTDG_ASYNC_WAIT()                waits for all of this thread's copies (then a barrier makes
//                                    them visible to the block)
#ifndef RTDG_ASYNC_COPY_H
#define RTDG_ASYNC_COPY_H

#include <rtcg/kernel.h>

#if RTCG_CUDA
#define RTDG_CP_ASYNC(dst, src, bytes)                                                              \
  asm volatile("cp.async.ca.shared.global [%0], [%1], " #bytes ";" ::"r"(                           \
                   static_cast<unsigned>(__cvta_generic_to_shared(dst))),                           \
               "l"(src)                                                                             \
               : "memory")
#define RTDG_ASYNC_COMMIT() asm volatile("cp.async.commit_group;" ::: "memory")
#define RTDG_ASYNC_WAIT() asm volatile("cp.async.wait_all;" ::: "memory")
#else
#define RTDG_COPY_REALS(dst, src, n) \
  do {                               \
    for (int rtdg_r = 0; rtdg_r < (n); ++rtdg_r) (dst)[rtdg_r] = (src)[rtdg_r]; \
  } while (0)
#define RTDG_ASYNC_COMMIT()
#define RTDG_ASYNC_WAIT()
#endif

#endif  // RTDG_ASYNC_COPY_H
