// The stream-ordered CUDA pool: cuMemAllocAsync / cuMemFreeAsync on the backend's stream,
// from the device's default memory pool.
#include <rtcg/log.hpp>
#include <rtcg/memory_pool.hpp>

#include "array/pool_support.hpp"
#include "cuda/cuda_backend.hpp"
#include "cuda/driver.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>

namespace rtcg {
namespace {

using cuda::check;
using cuda::driver;

class CudaStreamPool final : public MemoryPool {
public:
  CudaStreamPool(CudaBackend& backend, CUmemoryPool pool) : MemoryPool(backend), cuda_(backend), pool_(pool) {
    // By default the driver returns freed memory to the OS at every synchronisation; keeping
    // it is what makes the pool a pool.
    std::uint64_t threshold = std::numeric_limits<std::uint64_t>::max();
    check(driver().cuMemPoolSetAttribute(pool_, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &threshold),
          "cuMemPoolSetAttribute(CU_MEMPOOL_ATTR_RELEASE_THRESHOLD)");
  }

  void* allocate(std::size_t bytes) override {
    if (bytes == 0) return nullptr;
    auto attempt = [&]() -> void* {
      cuda_.make_current();
      CUdeviceptr pointer = 0;
      const CUresult result = driver().cuMemAllocAsync(&pointer, bytes, cuda_.stream());
      if (result == CUDA_ERROR_OUT_OF_MEMORY) throw DeviceError("cuMemAllocAsync: CUDA_ERROR_OUT_OF_MEMORY");
      check(result, "cuMemAllocAsync");
      return reinterpret_cast<void*>(pointer);
    };
    void* pointer = nullptr;
    try {
      pointer = attempt();
    } catch (const DeviceError& first) {
      {
        std::lock_guard lock(mutex_);
        ++stats_.out_of_memory_retries;
      }
      pointer = detail::retry_after_release(*this, bytes, first.what(), attempt);
    }
    std::lock_guard lock(mutex_);
    stats_.bytes_in_use += bytes;
    ++stats_.allocations;
    ++stats_.backend_allocations;  // the driver's pool decides whether it reuses memory
    return pointer;
  }

  void deallocate(void* pointer, std::size_t bytes) noexcept override {
    if (!pointer) return;
    const auto* d = cuda::try_driver();
    if (!d) return;
    try {
      cuda_.make_current();
    } catch (...) {
      return;  // the context is gone (process exit): nothing left to free into
    }
    const CUresult result = d->cuMemFreeAsync(reinterpret_cast<CUdeviceptr>(pointer), cuda_.stream());
    if (result != CUDA_SUCCESS)
      log().error("cuMemFreeAsync of {} bytes failed (CUDA error {})", bytes, static_cast<int>(result));
    std::lock_guard lock(mutex_);
    stats_.bytes_in_use -= std::min<std::uint64_t>(stats_.bytes_in_use, bytes);
  }

  void release_cached() noexcept override {
    const auto* d = cuda::try_driver();
    if (!d) return;
    try {
      cuda_.make_current();
    } catch (...) {
      return;
    }
    // Frees queued on the stream return memory to the pool only once they have run.
    d->cuStreamSynchronize(cuda_.stream());
    d->cuMemPoolTrimTo(pool_, 0);
  }

  PoolStats stats() const override {
    std::lock_guard lock(mutex_);
    return stats_;
  }

private:
  CudaBackend& cuda_;
  CUmemoryPool pool_;
  mutable std::mutex mutex_;
  PoolStats stats_;
};

}  // namespace

std::unique_ptr<MemoryPool> detail::make_cuda_pool(Backend& backend) {
  auto* cuda_backend = dynamic_cast<CudaBackend*>(&backend);
  RTCG_VERIFY(cuda_backend, "internal error: a cuda-kind backend that is not rtcg's CudaBackend");
  cuda_backend->make_current();
  int supported = 0;
  check(driver().cuDeviceGetAttribute(&supported, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, cuda_backend->device()),
        "cuDeviceGetAttribute(CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED)");
  if (!supported) {
    warn_once("cuda-pool-unsupported",
              "this CUDA device or driver has no stream-ordered memory pools; arrays use a caching pool over "
              "cuMemAlloc instead");
    return std::make_unique<CachingPool>(backend);
  }
  CUmemoryPool pool = nullptr;
  check(driver().cuDeviceGetDefaultMemPool(&pool, cuda_backend->device()), "cuDeviceGetDefaultMemPool");
  return std::make_unique<CudaStreamPool>(*cuda_backend, pool);
}

}  // namespace rtcg
