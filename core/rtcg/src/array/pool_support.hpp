// What both pools do on out-of-memory, and byte counts for messages. Private to src/array.
#pragma once

#include <rtcg/memory_pool.hpp>

#include <cstddef>
#include <functional>
#include <memory>
#include <string>

namespace rtcg::detail {

// The second try after an allocation failed with `first_error`: releases everything `pool`
// caches, runs `attempt` once more and returns its result; if that fails too, throws
// OutOfMemoryError saying how many bytes were requested and how many are free.
void* retry_after_release(MemoryPool& pool, std::size_t requested, const std::string& first_error,
                          const std::function<void*()>& attempt);

// "1.50 GiB (1610612736 bytes)".
std::string format_bytes(std::size_t bytes);

// The stream-ordered pool for a CudaBackend, or a CachingPool (with a warning) when the
// device does not support memory pools.
std::unique_ptr<MemoryPool> make_cuda_pool(Backend& backend);

}  // namespace rtcg::detail
