// Vendor baselines for bench_arrays (see cuda_baselines.hpp).
#include "cuda_baselines.hpp"

#include <cub/device/device_reduce.cuh>
#include <cublas_v2.h>
#include <cuda/version>
#include <cuda_runtime.h>
#include <thrust/execution_policy.h>
#include <thrust/reduce.h>

#include <climits>
#include <stdexcept>
#include <string>

namespace rtdg::bench {
namespace {

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorName(status) + ": " + cudaGetErrorString(status));
}

void check(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string(what) + ": " + cublasGetStatusName(status) + ": " + cublasGetStatusString(status));
}

// Device memory that frees itself.
struct DeviceBuffer {
  void* pointer = nullptr;
  explicit DeviceBuffer(std::size_t bytes) { check(cudaMalloc(&pointer, bytes > 0 ? bytes : 1), "cudaMalloc"); }
  ~DeviceBuffer() { cudaFree(pointer); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

struct Events {
  cudaEvent_t start = nullptr, stop = nullptr;
  Events() {
    check(cudaEventCreate(&start), "cudaEventCreate");
    check(cudaEventCreate(&stop), "cudaEventCreate");
  }
  ~Events() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
  Events(const Events&) = delete;
  Events& operator=(const Events&) = delete;
};

struct Cublas {
  cublasHandle_t handle = nullptr;
  Cublas() {
    check(cublasCreate(&handle), "cublasCreate");
    check(cublasSetPointerMode(handle, CUBLAS_POINTER_MODE_DEVICE), "cublasSetPointerMode");
  }
  ~Cublas() { cublasDestroy(handle); }
  Cublas(const Cublas&) = delete;
  Cublas& operator=(const Cublas&) = delete;
};

// One warm-up run, then `repeats` timed runs of `work` on the default stream.
template <class Work>
std::vector<double> time_runs(int repeats, Work work) {
  Events events;
  work();
  check(cudaDeviceSynchronize(), "warm-up");
  std::vector<double> times;
  for (int r = 0; r < repeats; ++r) {
    check(cudaEventRecord(events.start, 0), "cudaEventRecord");
    work();
    check(cudaEventRecord(events.stop, 0), "cudaEventRecord");
    check(cudaEventSynchronize(events.stop), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, events.start, events.stop), "cudaEventElapsedTime");
    times.push_back(ms);
  }
  return times;
}

double read_back(const double* device_value) {
  double value = 0;
  check(cudaMemcpy(&value, device_value, sizeof value, cudaMemcpyDeviceToHost), "cudaMemcpy (result)");
  return value;
}

int checked_int(std::size_t n) {
  if (n > static_cast<std::size_t>(INT_MAX)) throw std::runtime_error("cuBLAS baseline: n does not fit in an int");
  return static_cast<int>(n);
}

}  // namespace

void baseline_select_device(int ordinal) { check(cudaSetDevice(ordinal), "cudaSetDevice"); }

BaselineRun cub_sum(const double* x, std::size_t n, int repeats) {
  DeviceBuffer result(sizeof(double));
  auto* out = static_cast<double*>(result.pointer);
  std::size_t temp_bytes = 0;
  check(cub::DeviceReduce::Sum(nullptr, temp_bytes, x, out, static_cast<long long>(n)), "cub::DeviceReduce::Sum (size)");
  DeviceBuffer temp(temp_bytes);
  BaselineRun run;
  run.times_ms = time_runs(repeats, [&] {
    check(cub::DeviceReduce::Sum(temp.pointer, temp_bytes, x, out, static_cast<long long>(n)), "cub::DeviceReduce::Sum");
  });
  run.value = read_back(out);
  return run;
}

BaselineRun thrust_reduce(const double* x, std::size_t n, int repeats) {
  BaselineRun run;
  run.times_ms = time_runs(repeats, [&] { run.value = thrust::reduce(thrust::device, x, x + n, 0.0); });
  return run;
}

BaselineRun cublas_ddot(const double* x, const double* y, std::size_t n, int repeats) {
  Cublas blas;
  DeviceBuffer result(sizeof(double));
  auto* out = static_cast<double*>(result.pointer);
  BaselineRun run;
  run.times_ms = time_runs(repeats, [&] { check(cublasDdot(blas.handle, checked_int(n), x, 1, y, 1, out), "cublasDdot"); });
  run.value = read_back(out);
  return run;
}

BaselineRun cublas_dnrm2(const double* x, std::size_t n, int repeats) {
  Cublas blas;
  DeviceBuffer result(sizeof(double));
  auto* out = static_cast<double*>(result.pointer);
  BaselineRun run;
  run.times_ms = time_runs(repeats, [&] { check(cublasDnrm2(blas.handle, checked_int(n), x, 1, out), "cublasDnrm2"); });
  run.value = read_back(out);
  return run;
}

BaselineRun cuda_memcpy(void* destination, const void* source, std::size_t bytes, int repeats) {
  BaselineRun run;
  run.times_ms = time_runs(repeats, [&] {
    check(cudaMemcpyAsync(destination, source, bytes, cudaMemcpyDeviceToDevice, 0), "cudaMemcpyAsync");
  });
  return run;
}

std::string baseline_versions() {
  int runtime = 0, blas = 0;
  check(cudaRuntimeGetVersion(&runtime), "cudaRuntimeGetVersion");
  {
    Cublas handle;
    check(cublasGetVersion(handle.handle, &blas), "cublasGetVersion");
  }
  return "CUDA runtime " + std::to_string(runtime) + ", cuBLAS " + std::to_string(blas) + ", CCCL " +
         std::to_string(CCCL_MAJOR_VERSION) + "." + std::to_string(CCCL_MINOR_VERSION) + "." +
         std::to_string(CCCL_PATCH_VERSION);
}

}  // namespace rtdg::bench
