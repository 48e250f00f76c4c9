// Memory pools, as PyCUDA's DeviceMemoryPool: arrays get their memory here, so allocating and
// freeing arrays of similar sizes in a loop costs no driver call.
//
// - cuda: stream-ordered (cuMemAllocAsync / cuMemFreeAsync on the backend's stream, from the
//   device's default memory pool with its release threshold raised, so freed memory stays
//   with the pool). A block freed by an array may be reused by work queued after the free,
//   never by work still running before it.
// - host: a caching pool over Backend::allocate. Sizes are rounded up to bins (eight per
//   power of two, so at most 12.5 % is wasted), and freed blocks wait in their bin for reuse.
//
// On out-of-memory either pool hands back everything it holds and retries once; if that fails
// too it throws OutOfMemoryError saying how many bytes were requested and how many are free.
#pragma once

#include <rtcg/backend.hpp>
#include <rtcg/error.hpp>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

namespace rtcg {

class OutOfMemoryError : public DeviceError {
public:
  OutOfMemoryError(std::string message, std::size_t requested_bytes, std::size_t free_bytes)
      : DeviceError(std::move(message)), requested_bytes_(requested_bytes), free_bytes_(free_bytes) {}
  std::size_t requested_bytes() const noexcept { return requested_bytes_; }
  std::size_t free_bytes() const noexcept { return free_bytes_; }

private:
  std::size_t requested_bytes_;
  std::size_t free_bytes_;
};

struct PoolStats {
  std::uint64_t bytes_in_use = 0;       // handed out and not yet returned (rounded sizes)
  std::uint64_t bytes_cached = 0;       // held by the pool for reuse (host pool only)
  std::uint64_t allocations = 0;        // allocate() calls that returned memory
  std::uint64_t reused = 0;             // of those, served from the pool's cache
  std::uint64_t backend_allocations = 0;  // of those, that went to the backend or driver
  std::uint64_t out_of_memory_retries = 0;  // times the pool freed its cache to retry
};

class MemoryPool {
public:
  virtual ~MemoryPool() = default;
  MemoryPool(const MemoryPool&) = delete;
  MemoryPool& operator=(const MemoryPool&) = delete;

  // At least `bytes` bytes, 256-byte aligned; nullptr for 0 bytes. Throws OutOfMemoryError.
  virtual void* allocate(std::size_t bytes) = 0;
  // Returns a block from allocate() with the size it was asked for. Never throws.
  virtual void deallocate(void* pointer, std::size_t bytes) noexcept = 0;
  // Hands memory the pool holds but nobody uses back to the backend (or driver).
  virtual void release_cached() noexcept = 0;
  virtual PoolStats stats() const = 0;

  Backend& backend() const noexcept { return *backend_; }

protected:
  explicit MemoryPool(Backend& backend) : backend_(&backend) {}

private:
  Backend* backend_;
};

// The caching pool over Backend::allocate; used on host, and on cuda when the device has no
// memory-pool support.
class CachingPool final : public MemoryPool {
public:
  explicit CachingPool(Backend& backend);
  ~CachingPool() override;
  void* allocate(std::size_t bytes) override;
  void deallocate(void* pointer, std::size_t bytes) noexcept override;
  void release_cached() noexcept override;
  PoolStats stats() const override;

  // The bin a request of `bytes` is served from: 256 bytes at least, then eight bins per
  // power of two (e.g. 1000 -> 1024, 1100 -> 1152).
  static std::size_t bin_size(std::size_t bytes);

private:
  void count_retry();

  mutable std::mutex mutex_;
  std::map<std::size_t, std::vector<void*>> free_blocks_;  // bin size -> blocks waiting for reuse
  std::unordered_map<void*, std::size_t> in_use_;          // block -> bin size
  PoolStats stats_;
};

// The pool arrays on `backend` allocate from; created at first use, lives with the process.
MemoryPool& memory_pool(Backend& backend);

// A block of pool memory owned by one object (what Array<T> holds). Move-only.
class PoolBlock {
public:
  PoolBlock() = default;
  PoolBlock(MemoryPool& pool, std::size_t bytes) : pool_(&pool), pointer_(pool.allocate(bytes)), bytes_(bytes) {}
  ~PoolBlock() { reset(); }
  PoolBlock(PoolBlock&& other) noexcept
      : pool_(std::exchange(other.pool_, nullptr)), pointer_(std::exchange(other.pointer_, nullptr)),
        bytes_(std::exchange(other.bytes_, 0)) {}
  PoolBlock& operator=(PoolBlock&& other) noexcept {
    if (this != &other) {
      reset();
      pool_ = std::exchange(other.pool_, nullptr);
      pointer_ = std::exchange(other.pointer_, nullptr);
      bytes_ = std::exchange(other.bytes_, 0);
    }
    return *this;
  }
  PoolBlock(const PoolBlock&) = delete;
  PoolBlock& operator=(const PoolBlock&) = delete;

  void* get() const noexcept { return pointer_; }
  std::size_t bytes() const noexcept { return bytes_; }
  void reset() noexcept {
    if (pool_ && pointer_) pool_->deallocate(pointer_, bytes_);
    pointer_ = nullptr;
    bytes_ = 0;
  }

private:
  MemoryPool* pool_ = nullptr;
  void* pointer_ = nullptr;
  std::size_t bytes_ = 0;
};

}  // namespace rtcg
