// Vendor baselines for bench_arrays, compiled by nvcc (cuda_baselines.cu): CUB's device
// reduction (what thrust::reduce runs), thrust::reduce itself, cuBLAS ddot and dnrm2, and
// cudaMemcpy. Plain C++ interface, so bench_arrays.cpp needs no CUDA headers.
//
// Each runs once to warm up, then `repeats` times, each timed with CUDA events on the legacy
// default stream; callers synchronise their own streams before and after. Errors throw
// std::runtime_error naming the call and the CUDA or cuBLAS status.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace rtdg::bench {

struct BaselineRun {
  std::vector<double> times_ms;
  double value = 0;  // the last result (reductions)
};

// Selects the device the rtcg backend uses (RTDG_CUDA_DEVICE, default 0).
void baseline_select_device(int ordinal);
BaselineRun cub_sum(const double* x, std::size_t n, int repeats);         // result on the device
BaselineRun thrust_reduce(const double* x, std::size_t n, int repeats);   // result on the host, as thrust returns it
BaselineRun cublas_ddot(const double* x, const double* y, std::size_t n, int repeats);  // device pointer mode
BaselineRun cublas_dnrm2(const double* x, std::size_t n, int repeats);                  // device pointer mode
BaselineRun cuda_memcpy(void* destination, const void* source, std::size_t bytes, int repeats);
std::string baseline_versions();  // "CUDA runtime 13000, cuBLAS 130000, CCCL 3.0.0"

}  // namespace rtdg::bench
