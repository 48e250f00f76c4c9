// The host caching pool (PyCUDA's DeviceMemoryPool, in C++).
#include <rtcg/log.hpp>
#include <rtcg/memory_pool.hpp>

#include "array/pool_support.hpp"

#include <bit>
#include <new>

namespace rtcg {

CachingPool::CachingPool(Backend& backend) : MemoryPool(backend) {}

CachingPool::~CachingPool() {
  release_cached();
  // Blocks still in use belong to arrays that outlive the pool (static arrays at exit): they
  // are left alone, the process is ending.
}

std::size_t CachingPool::bin_size(std::size_t bytes) {
  if (bytes <= 256) return 256;
  // Keep the top four bits (the leading one and three below it): eight bins per octave.
  const auto width = static_cast<int>(std::bit_width(bytes - 1));
  const std::size_t step = std::size_t{1} << (width - 4);
  return (bytes + step - 1) / step * step;
}

void* CachingPool::allocate(std::size_t bytes) {
  if (bytes == 0) return nullptr;
  const std::size_t bin = bin_size(bytes);
  {
    std::lock_guard lock(mutex_);
    auto it = free_blocks_.find(bin);
    if (it != free_blocks_.end() && !it->second.empty()) {
      void* pointer = it->second.back();
      it->second.pop_back();
      in_use_.emplace(pointer, bin);
      stats_.bytes_cached -= bin;
      stats_.bytes_in_use += bin;
      ++stats_.allocations;
      ++stats_.reused;
      return pointer;
    }
  }
  auto attempt = [&]() -> void* { return backend().allocate(bin); };
  void* pointer = nullptr;
  try {
    pointer = attempt();
  } catch (const DeviceError& first) {
    count_retry();
    pointer = detail::retry_after_release(*this, bytes, first.what(), attempt);
  } catch (const std::bad_alloc&) {
    count_retry();
    pointer = detail::retry_after_release(*this, bytes, "std::bad_alloc", attempt);
  }
  std::lock_guard lock(mutex_);
  in_use_.emplace(pointer, bin);
  stats_.bytes_in_use += bin;
  ++stats_.allocations;
  ++stats_.backend_allocations;
  return pointer;
}

void CachingPool::deallocate(void* pointer, std::size_t bytes) noexcept {
  if (!pointer) return;
  std::lock_guard lock(mutex_);
  const auto it = in_use_.find(pointer);
  if (it == in_use_.end()) {
    // Not ours: a bug in the caller. Freeing it could corrupt the heap; leaking is safer.
    log().error("memory pool: a block of {} bytes at {} was returned that the pool never handed out; leaked",
                bytes, pointer);
    return;
  }
  const std::size_t bin = it->second;
  in_use_.erase(it);
  try {
    free_blocks_[bin].push_back(pointer);
    stats_.bytes_cached += bin;
  } catch (...) {
    backend().deallocate(pointer);  // no memory to remember the block: give it back instead
  }
  stats_.bytes_in_use -= bin;
}

void CachingPool::release_cached() noexcept {
  std::map<std::size_t, std::vector<void*>> blocks;
  {
    std::lock_guard lock(mutex_);
    blocks.swap(free_blocks_);
    stats_.bytes_cached = 0;
  }
  for (auto& [bin, pointers] : blocks)
    for (void* pointer : pointers) backend().deallocate(pointer);
}

PoolStats CachingPool::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

void CachingPool::count_retry() {
  std::lock_guard lock(mutex_);
  ++stats_.out_of_memory_retries;
}

}  // namespace rtcg
