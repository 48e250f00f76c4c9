// The on-disk compile cache: content-addressed entries under <dir>/<2 hex>/<digest>.bin.
//
// - Entries are published atomically (temp file in the same folder, fsync, rename) and carry
//   a SHA-256 of their payload: a truncated or corrupt entry is a miss, is logged and replaced.
// - A per-key lock (flock on <digest>.lock) around compilation: processes that want the same
//   key compile it once; different keys compile in parallel; readers take no lock; flock is
//   released by the kernel when a process dies, so a dead holder never blocks.
// - A byte cap with least-recently-used eviction (hits refresh the entry's mtime; eviction
//   runs under a cache-wide lock after each publish).
// - A read-only, missing or full directory never fails a run: one warning, then memory only.
//   A symlinked or world-writable directory is refused (one warning saying why).
// - Controls: RTDG_CACHE_DIR (default $XDG_CACHE_HOME/rtdg or ~/.cache/rtdg),
//   RTDG_CACHE=on|off|readonly, RTDG_CACHE_MAX_BYTES (default 2 GiB).
// docs/cache.md describes the layout and the guarantees in full.
#pragma once

#include <rtcg/hash.hpp>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rtcg {

// on: read and write; readonly: read entries, never write anything (no entries, locks, stats,
// explain records, mtime refreshes); off: no disk at all.
enum class CacheMode { on, off, readonly };
std::string_view to_string(CacheMode mode);

struct CacheConfig {
  std::filesystem::path dir;  // empty: no folder could be found (memory only, with a warning)
  CacheMode mode = CacheMode::on;
  std::uint64_t max_bytes = 2ull << 30;
  // Reads RTDG_CACHE_DIR, RTDG_CACHE, RTDG_CACHE_MAX_BYTES (an empty value counts as
  // unset); throws rtcg::Error naming the variable, its value and the valid values when one
  // is malformed. A relative RTDG_CACHE_DIR is made absolute against the current folder.
  static CacheConfig from_environment();
  // Parses an RTDG_CACHE_MAX_BYTES value: whole bytes, or with a K, M or G suffix (powers of
  // 1024). Throws rtcg::Error like from_environment.
  static std::uint64_t parse_max_bytes(std::string_view text);
};

struct CacheStats {
  std::uint64_t entries = 0;
  std::uint64_t bytes = 0;
  std::uint64_t hits = 0;       // over all processes since the last clear
  std::uint64_t misses = 0;
  double compile_seconds = 0;   // time spent compiling on misses
};

// One line of `rtdg cache explain`: a key field as stored for the previous compile of a
// program name and as it is now.
struct ExplainField {
  std::string label;
  // The value in quotes when it is short and printable, else "sha256 <16 hex>, <n> bytes".
  std::string previous;  // "" if the field is new
  std::string current;   // "" if the field is gone
  bool changed = false;
};

// Thread-safe; any number of processes may share one directory.
class DiskCache {
public:
  // Checks (and if missing creates) the directory; never throws for what it finds there.
  explicit DiskCache(CacheConfig config);
  ~DiskCache();  // merges this process's hit/miss counters into the stats file
  DiskCache(const DiskCache&) = delete;
  DiskCache& operator=(const DiskCache&) = delete;

  const CacheConfig& config() const noexcept { return config_; }
  // False once the directory proved unusable (or mode is off): memory-only from then on.
  bool usable() const noexcept;
  // Why the cache is memory-only ("" while it is usable): for `rtdg cache info`.
  std::string unusable_reason() const;
  // Where the entry for a key digest lives: <dir>/<first 2 hex>/<digest>.bin.
  std::filesystem::path entry_path(const std::string& digest) const;

  // The payload for `key`, or nullopt (a miss, a corrupt entry, an unusable cache). Counts a
  // hit or a miss. A hit refreshes the entry's mtime, which is what eviction orders by.
  std::optional<std::string> load(const CacheKey& key);
  // Publishes atomically; never throws for I/O problems (warns once instead).
  void store(const CacheKey& key, const std::string& payload);
  // load(); on a miss, takes the key's lock, loads again (another process may have
  // published meanwhile), else runs `compute`, stores and returns its result. `name` labels
  // the compile for `explain`. Exceptions from `compute` propagate; nothing is stored then.
  std::string get_or_compute(const CacheKey& key, const std::string& name,
                             const std::function<std::string()>& compute);

  CacheStats stats() const;
  // Removes all entries, explain records and the stats file, and resets the counters. Does
  // nothing when the cache is unusable; throws rtcg::Error in readonly mode (nothing may be
  // written then, and silently keeping the entries would be worse).
  void clear();
  // Why the last compile of `name` missed: its key fields beside those of the compile before.
  std::vector<ExplainField> explain(const std::string& name) const;
  // Names with explain records, most recent first.
  std::vector<std::string> explained_names() const;

private:
  struct State;  // counters, the usable/disabled state, and the work behind each call
  CacheConfig config_;
  std::unique_ptr<State> state_;
};

// The process-wide cache, configured from the environment at first use.
DiskCache& global_cache();

}  // namespace rtcg
