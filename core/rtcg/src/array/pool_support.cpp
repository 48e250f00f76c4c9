#include "array/pool_support.hpp"

#include <rtcg/log.hpp>

#include <cstdio>
#include <new>

namespace rtcg::detail {

std::string format_bytes(std::size_t bytes) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024.0 && unit < 4) {
    value /= 1024.0;
    ++unit;
  }
  char text[64];
  if (unit == 0) std::snprintf(text, sizeof text, "%zu bytes", bytes);
  else std::snprintf(text, sizeof text, "%.2f %s (%zu bytes)", value, units[unit], bytes);
  return text;
}

void* retry_after_release(MemoryPool& pool, std::size_t requested, const std::string& first_error,
                          const std::function<void*()>& attempt) {
  const PoolStats before = pool.stats();
  pool.release_cached();
  log().info("memory pool ({}): out of memory for {}; released {} the pool held and retrying once",
             pool.backend().name(), format_bytes(requested), format_bytes(before.bytes_cached));
  std::string second_error;
  try {
    return attempt();
  } catch (const DeviceError& error) {
    second_error = error.what();
  } catch (const std::bad_alloc&) {
    second_error = "std::bad_alloc";
  }
  std::size_t free = 0;
  try {
    free = pool.backend().free_memory();
  } catch (const Error&) {
    // The free count is for the message only; report 0 rather than hide the real error.
  }
  const PoolStats now = pool.stats();
  throw OutOfMemoryError("out of memory on the " + pool.backend().name() + " backend: requested " +
                             format_bytes(requested) + ", " + format_bytes(free) + " free (" +
                             format_bytes(now.bytes_in_use) + " in use by this process's arrays; the pool's " +
                             "cache was released and the allocation retried once). First error: " + first_error +
                             "; second: " + second_error,
                         requested, free);
}

}  // namespace rtcg::detail
