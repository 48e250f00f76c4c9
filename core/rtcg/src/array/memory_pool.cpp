// The per-backend pool registry.
#include <rtcg/memory_pool.hpp>

#include "array/pool_support.hpp"

#include <map>
#include <mutex>

namespace rtcg {

MemoryPool& memory_pool(Backend& backend) {
  // Backends live for the process (rtcg::backend()), so their address identifies them. A
  // backend made for a test must not use this registry (make a CachingPool directly).
  static std::mutex mutex;
  static std::map<const Backend*, std::unique_ptr<MemoryPool>> pools;
  std::lock_guard lock(mutex);
  auto& pool = pools[&backend];
  if (!pool)
    pool = backend.kind() == BackendKind::cuda ? detail::make_cuda_pool(backend) : std::make_unique<CachingPool>(backend);
  return *pool;
}

}  // namespace rtcg
