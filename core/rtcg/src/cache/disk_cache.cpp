// DiskCache: the on-disk half of the compile cache. rtcg/cache.hpp says what it promises;
// docs/cache.md describes the layout. Layout under the cache folder:
//
//   <2 hex>/<digest>.bin    entries (format in cache/entry.hpp)
//   <2 hex>/<digest>.lock   per-key lock files, present only while a compile holds or awaits one
//   explain/<name>.json     explain records (cache/explain.hpp)
//   stats.json              hits, misses and compile seconds merged from every process
//   cache.lock, stats.lock, explain.lock   cache-wide locks (eviction and clear; stats; explain)
#include <rtcg/cache.hpp>
#include <rtcg/error.hpp>
#include <rtcg/log.hpp>

#include "cache/entry.hpp"
#include "cache/explain.hpp"
#include "cache/files.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <memory>
#include <system_error>
#include <tuple>
#include <utility>

namespace rtcg {

using cache_detail::check_entry_header;
using cache_detail::EntryHeaderCheck;
using cache_detail::FileLock;
using cache_detail::is_digest;
using cache_detail::is_temporary_name;
using cache_detail::kEntryHeaderSize;
using cache_detail::make_private_dir;
using cache_detail::open_nofollow;
using cache_detail::read_small_file;
using cache_detail::UniqueFd;
using cache_detail::write_file_atomically;
namespace fs = std::filesystem;

namespace {

constexpr std::string_view kEntrySuffix = ".bin";
constexpr std::string_view kLockSuffix = ".lock";
constexpr const char* kStatsFile = "stats.json";
constexpr const char* kStatsLock = "stats.lock";
constexpr const char* kCacheLock = "cache.lock";
constexpr const char* kExplainDir = "explain";
constexpr const char* kExplainLock = "explain.lock";
// A temporary file this old belongs to a writer that died; younger ones may be in flight.
constexpr std::int64_t kStaleTemporaryNs = 3600LL * 1000 * 1000 * 1000;

enum class Access { none, read, write };

std::string errno_text(int error) { return std::generic_category().message(error); }

std::int64_t mtime_ns(const struct stat& info) {
  return static_cast<std::int64_t>(info.st_mtim.tv_sec) * 1000000000LL + info.st_mtim.tv_nsec;
}

double unix_seconds_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::int64_t unix_ns_now() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// For temporary files: one this old belongs to a writer that died.
void remove_if_stale(const fs::path& path, std::int64_t now_ns) {
  struct stat info {};
  if (::lstat(path.c_str(), &info) == 0 && now_ns - mtime_ns(info) > kStaleTemporaryNs) {
    ::unlink(path.c_str());
  }
}

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

// Calls visit(name) for each entry of a folder but "." and ".."; a missing folder has none.
template <class Visit>
void for_each_name(const fs::path& dir, Visit&& visit) {
  const std::unique_ptr<DIR, int (*)(DIR*)> stream(::opendir(dir.c_str()), &::closedir);
  if (!stream) return;
  while (const dirent* entry = ::readdir(stream.get())) {
    const std::string_view name = entry->d_name;
    if (name != "." && name != "..") visit(std::string(name));
  }
}

bool is_shard_name(std::string_view name) {
  return name.size() == 2 && std::all_of(name.begin(), name.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

struct ScannedEntry {
  fs::path path;
  std::uint64_t size = 0;
  std::int64_t mtime_ns = 0;
};

struct PersistedStats {
  std::uint64_t hits = 0;
  std::uint64_t misses = 0;
  double compile_seconds = 0;
};

std::string octal_mode(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
  return text;
}

// An entry larger than this is not one rtdg wrote (a generated module is kilobytes to a few
// megabytes): refused as damaged before its payload is allocated.
constexpr std::uint64_t kMaxEntryBytes = 256ull << 20;

// Why a shard folder or an entry (`info` from lstat/fstat) must not be trusted: it is not this
// user's, or others may write it (rtdg makes both private: 0700 and 0600). Empty when fine.
std::string distrust(const struct stat& info, const char* what) {
  if (info.st_uid != ::geteuid())
    return std::string(what) + " belongs to uid " + std::to_string(info.st_uid) + ", not to this user (uid " +
           std::to_string(::geteuid()) + ")";
  if ((info.st_mode & (S_IWGRP | S_IWOTH)) != 0)
    return std::string(what) + " is writable by others (mode " + octal_mode(info.st_mode) + ")";
  return "";
}

// Whether `name` in the top folder of a cache is one the cache makes.
bool is_cache_top_name(std::string_view name) {
  return is_shard_name(name) || name == kStatsFile || name == kStatsLock || name == kCacheLock || name == kExplainDir ||
         name == kExplainLock || is_temporary_name(name);
}

}  // namespace

struct DiskCache::State {
  explicit State(const CacheConfig& cache_config) : config(cache_config) {}

  const CacheConfig& config;  // DiskCache::config_, which outlives this
  std::atomic<Access> access{Access::none};
  // This process's counters not yet merged into stats.json.
  std::atomic<std::uint64_t> hits{0};
  std::atomic<std::uint64_t> misses{0};
  mutable std::mutex mutex;  // guards compile_seconds and reason
  double compile_seconds = 0;
  std::string reason;  // why access is none

  bool writable() const { return access.load(std::memory_order_relaxed) == Access::write; }
  bool readable() const { return access.load(std::memory_order_relaxed) != Access::none; }

  fs::path entry_path(const std::string& digest) const {
    return config.dir / digest.substr(0, 2) / (digest + std::string(kEntrySuffix));
  }
  fs::path lock_path(const std::string& digest) const {
    return config.dir / digest.substr(0, 2) / (digest + std::string(kLockSuffix));
  }

  // Memory only from now on, with one warning per folder and process.
  void disable(const std::string& why) {
    {
      const std::lock_guard lock(mutex);
      if (reason.empty()) reason = why;
    }
    access.store(Access::none);
    warn_once("rtcg.cache.disabled:" + config.dir.string(),
              "compile cache disabled, compiling in memory only for the rest of this run: " + why);
  }

  void disable_after_write_failure(const std::system_error& error) {
    disable("cannot write in " + config.dir.string() + " (" + error.what() +
            "); free some space or set RTDG_CACHE_DIR to a writable folder (RTDG_CACHE=off skips "
            "the disk cache)");
  }

  void open_directory();
  std::optional<std::string> lookup(const std::string& digest);
  void discard(const fs::path& path, int fd, const std::string& problem, bool damaged);
  bool publish(const std::string& digest, std::string_view payload);
  std::vector<ScannedEntry> scan(bool remove_stale_temporaries) const;
  void evict_if_over_cap();
  void record_explain(const std::string& name, const std::string& digest, const CacheKey& key);
  PersistedStats read_stats() const;
  void merge_stats();           // this process's counters into stats.json, under its lock
  void flush_stats() noexcept;  // merge_stats, never failing
  void reset_counters() {
    hits = 0;
    misses = 0;
    const std::lock_guard lock(mutex);
    compile_seconds = 0;
  }
};

void DiskCache::State::open_directory() {
  const auto& dir = config.dir;
  const std::string shown = dir.string();
  if (config.mode == CacheMode::off) {
    // The user's choice: no warning.
    const std::lock_guard lock(mutex);
    reason = "turned off by RTDG_CACHE=off";
    return;
  }
  if (dir.empty()) {
    disable(
        "there is no folder for it (RTDG_CACHE_DIR, XDG_CACHE_HOME and HOME are unset and "
        "the password database has no home folder); set RTDG_CACHE_DIR to a private folder");
    return;
  }
  struct stat info {};
  if (::lstat(dir.c_str(), &info) != 0) {
    const int error = errno;
    // ENOTDIR: a file where a parent folder should be; creating it says so more plainly.
    if (error != ENOENT && error != ENOTDIR) {
      disable(shown + " is not accessible (" + errno_text(error) + ")");
      return;
    }
    if (config.mode == CacheMode::readonly) {
      disable(shown + " does not exist, and RTDG_CACHE=readonly never creates it");
      return;
    }
    try {
      cache_detail::make_private_dirs(dir);
    } catch (const std::system_error& e) {
      disable("cannot create " + shown + " (" + e.code().message() +
              "); set RTDG_CACHE_DIR to a folder you can create or write");
      return;
    }
    if (::lstat(dir.c_str(), &info) != 0) {
      disable(shown + " vanished right after rtdg created it (" + errno_text(errno) + ")");
      return;
    }
  }
  if (S_ISLNK(info.st_mode)) {
    disable(shown +
            " is a symbolic link, which rtdg refuses: whoever can change the link decides "
            "which binaries rtdg loads and runs; set RTDG_CACHE_DIR to the real folder");
    return;
  }
  if (!S_ISDIR(info.st_mode)) {
    disable(shown + " exists but is not a folder; remove it or set RTDG_CACHE_DIR elsewhere");
    return;
  }
  if (info.st_uid != ::geteuid()) {
    disable(shown + " belongs to uid " + std::to_string(info.st_uid) + ", not to this user (uid " +
            std::to_string(::geteuid()) +
            "), who could plant binaries there that rtdg would run; set RTDG_CACHE_DIR to a "
            "folder of your own");
    return;
  }
  if ((info.st_mode & S_IWOTH) != 0) {
    disable(shown + " is world-writable (mode " + octal_mode(info.st_mode) +
            "), so any user could plant binaries there that rtdg would run; `chmod 700` it or set "
            "RTDG_CACHE_DIR to a private folder");
    return;
  }
  const bool write = config.mode == CacheMode::on;
  if (::access(dir.c_str(), write ? (R_OK | W_OK | X_OK) : (R_OK | X_OK)) != 0) {
    disable(shown + (write ? " is not writable (" : " is not readable (") + errno_text(errno) +
            ")" + (write ? "; RTDG_CACHE=readonly uses its entries without writing" : ""));
    return;
  }
  access = write ? Access::write : Access::read;
}

void DiskCache::State::discard(const fs::path& path, int fd, const std::string& problem,
                               bool damaged) {
  const bool replace = writable();
  if (damaged) {
    log().warn("compile cache entry {} is damaged ({}); treating it as a miss{}", path.string(),
               problem, replace ? " and replacing it" : "");
  } else {
    log().debug("compile cache entry {} is unusable ({}); treating it as a miss", path.string(),
                problem);
  }
  if (!replace) return;
  // Only if the path still names the file we read: another process may have replaced it with a
  // good entry since.
  struct stat opened {};
  struct stat current {};
  if (::fstat(fd, &opened) == 0 && ::lstat(path.c_str(), &current) == 0 &&
      opened.st_dev == current.st_dev && opened.st_ino == current.st_ino) {
    ::unlink(path.c_str());
  }
}

std::optional<std::string> DiskCache::State::lookup(const std::string& digest) {
  if (!readable()) return std::nullopt;
  const auto path = entry_path(digest);
  // The shard folder is checked as the top folder is: a planted or shared one is not trusted
  // (open_nofollow guards only the entry's own name against a link).
  {
    struct stat shard {};
    if (::lstat(path.parent_path().c_str(), &shard) != 0) return std::nullopt;  // the ordinary miss
    // A file in its place is only a miss (publishing says what is wrong); a link is distrusted.
    if (!S_ISDIR(shard.st_mode) && !S_ISLNK(shard.st_mode)) return std::nullopt;
    std::string problem = S_ISLNK(shard.st_mode) ? "the shard folder is a symbolic link" : distrust(shard, "the shard folder");
    if (!problem.empty()) {
      log().warn("compile cache: not using {} ({}); treating it as a miss", path.parent_path().string(), problem);
      return std::nullopt;
    }
  }
  // O_NONBLOCK: a FIFO planted as an entry must not block the open (it is refused below).
  const UniqueFd fd = open_nofollow(path, O_RDONLY | O_NONBLOCK);
  if (!fd) {
    // ENOENT is the ordinary miss (or an entry evicted a moment ago).
    if (errno != ENOENT) {
      log().debug("compile cache: cannot open {} ({})", path.string(), errno_text(errno));
    }
    return std::nullopt;
  }
  try {
    struct stat info {};
    if (::fstat(fd.get(), &info) != 0) cache_detail::throw_errno(errno, "fstat", path);
    if (!S_ISREG(info.st_mode)) {
      discard(path, fd.get(), "not a regular file", true);
      return std::nullopt;
    }
    if (const std::string problem = distrust(info, "the entry"); !problem.empty()) {
      // Not ours to delete either: left where it is.
      log().warn("compile cache: not using {} ({}); treating it as a miss", path.string(), problem);
      return std::nullopt;
    }
    if (static_cast<std::uint64_t>(info.st_size) > kMaxEntryBytes) {
      discard(path, fd.get(), "larger than any entry (" + std::to_string(info.st_size) + " bytes)", true);
      return std::nullopt;
    }
    char header[kEntryHeaderSize];
    const auto header_size = cache_detail::read_at(fd.get(), header, sizeof header, 0, path);
    const auto check = check_entry_header(std::string_view(header, header_size),
                                          static_cast<std::uint64_t>(info.st_size), digest);
    if (check.verdict != EntryHeaderCheck::Verdict::valid) {
      discard(path, fd.get(), check.problem, check.verdict == EntryHeaderCheck::Verdict::corrupt);
      return std::nullopt;
    }
    std::string payload(check.payload_size, '\0');
    if (cache_detail::read_at(fd.get(), payload.data(), payload.size(), kEntryHeaderSize, path) !=
        payload.size()) {
      discard(path, fd.get(), "shorter than its header says", true);
      return std::nullopt;
    }
    Sha256 sha;
    if (sha.update(payload).finish() != check.payload_sha256) {
      discard(path, fd.get(), "payload checksum mismatch", true);
      return std::nullopt;
    }
    // Least recently used is judged by mtime: a hit makes the entry recent. Best effort: a
    // failure only makes eviction a little less fair.
    if (writable()) ::futimens(fd.get(), nullptr);
    return payload;
  } catch (const std::system_error& e) {
    log().debug("compile cache: cannot read {} ({})", path.string(), e.what());
    return std::nullopt;
  }
}

bool DiskCache::State::publish(const std::string& digest, std::string_view payload) {
  if (!writable()) return false;
  const auto path = entry_path(digest);
  try {
    make_private_dir(path.parent_path());
    write_file_atomically(path, {cache_detail::encode_entry_header(digest, payload), payload});
    return true;
  } catch (const std::system_error& e) {
    disable_after_write_failure(e);
    return false;
  }
}

std::vector<ScannedEntry> DiskCache::State::scan(bool remove_stale_temporaries) const {
  std::vector<ScannedEntry> entries;
  const auto now_ns = unix_ns_now();
  for_each_name(config.dir, [&](const std::string& shard) {
    if (!is_shard_name(shard)) return;
    const auto shard_dir = config.dir / shard;
    for_each_name(shard_dir, [&](const std::string& name) {
      const auto path = shard_dir / name;
      struct stat info {};
      if (::lstat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) return;  // gone meanwhile
      if (is_temporary_name(name)) {
        if (remove_stale_temporaries) remove_if_stale(path, now_ns);
        return;
      }
      if (!ends_with(name, kEntrySuffix) ||
          !is_digest(name.substr(0, name.size() - kEntrySuffix.size()))) {
        return;
      }
      entries.push_back(
          ScannedEntry{path, static_cast<std::uint64_t>(info.st_size), mtime_ns(info)});
    });
  });
  return entries;
}

void DiskCache::State::evict_if_over_cap() {
  if (!writable()) return;
  const auto total_of = [](const std::vector<ScannedEntry>& entries) {
    std::uint64_t total = 0;
    for (const auto& entry : entries) total += entry.size;
    return total;
  };
  // The unlocked scan keeps the common case (under the cap) free of the cache-wide lock.
  if (total_of(scan(false)) <= config.max_bytes) return;
  try {
    const FileLock lock = FileLock::acquire(config.dir / kCacheLock);
    // Again under the lock: another process may have evicted meanwhile.
    auto entries = scan(true);
    auto total = total_of(entries);
    std::sort(entries.begin(), entries.end(), [](const ScannedEntry& a, const ScannedEntry& b) {
      return std::tie(a.mtime_ns, a.path) < std::tie(b.mtime_ns, b.path);
    });
    std::size_t evicted = 0;
    for (const auto& entry : entries) {
      if (total <= config.max_bytes) break;
      // A reader that opened the entry keeps reading it; one that comes later just misses.
      if (::unlink(entry.path.c_str()) == 0 || errno == ENOENT) {
        total -= entry.size;
        ++evicted;
      }
    }
    log().debug(
        "compile cache over its cap of {} bytes: evicted {} least recently used entries, "
        "{} bytes left",
        config.max_bytes, evicted, total);
  } catch (const std::system_error& e) {
    disable_after_write_failure(e);
  }
}

void DiskCache::State::record_explain(const std::string& name, const std::string& digest,
                                      const CacheKey& key) {
  if (!writable()) return;
  try {
    make_private_dir(config.dir / kExplainDir);
    // Read-modify-write of the record: serialised so two compiles of one name keep both.
    const FileLock lock = FileLock::acquire(config.dir / kExplainLock);
    const auto path = config.dir / kExplainDir / (cache_detail::explain_file_stem(name) + ".json");
    nlohmann::json old_record = nullptr;
    if (const auto text = read_small_file(path)) {
      old_record = nlohmann::json::parse(*text, nullptr, false);
    }
    const auto record = cache_detail::next_explain_record(
        name, cache_detail::explain_snapshot(digest, key, unix_seconds_now()), old_record);
    // Not fsynced: a record lost in a crash only makes `explain` show one compile fewer.
    write_file_atomically(path, {record.dump(1)}, cache_detail::Durability::none);
  } catch (const std::system_error& e) {
    disable_after_write_failure(e);
  }
}

PersistedStats DiskCache::State::read_stats() const {
  PersistedStats stats;
  if (!readable()) return stats;
  std::optional<std::string> text;
  try {
    text = read_small_file(config.dir / kStatsFile);
  } catch (const std::system_error& e) {
    log().debug("compile cache: cannot read its stats ({})", e.what());
  }
  if (!text) return stats;
  const auto json = nlohmann::json::parse(*text, nullptr, false);
  if (!json.is_object() || !json.value("hits", nlohmann::json()).is_number_unsigned() ||
      !json.value("misses", nlohmann::json()).is_number_unsigned() ||
      !json.value("compile_seconds", nlohmann::json()).is_number()) {
    warn_once("rtcg.cache.stats:" + config.dir.string(),
              "compile cache stats file " + (config.dir / kStatsFile).string() +
                  " is malformed; counting hits and misses afresh");
    return stats;
  }
  stats.hits = json["hits"].get<std::uint64_t>();
  stats.misses = json["misses"].get<std::uint64_t>();
  stats.compile_seconds = json["compile_seconds"].get<double>();
  return stats;
}

void DiskCache::State::flush_stats() noexcept {
  try {
    try {
      merge_stats();
    } catch (const std::system_error& e) {
      disable_after_write_failure(e);
    }
  } catch (...) {
    // Out of memory, or a logger that failed: the counts stay in memory, and a destructor
    // (this runs in ~DiskCache) is no place to fail.
  }
}

void DiskCache::State::merge_stats() {
  if (!writable()) return;
  const auto new_hits = hits.load();
  const auto new_misses = misses.load();
  double new_seconds = 0;
  {
    const std::lock_guard lock(mutex);
    new_seconds = compile_seconds;
  }
  if (new_hits == 0 && new_misses == 0 && new_seconds == 0) return;
  // Read, add and write under the lock, so concurrent processes' counts all survive.
  const FileLock lock = FileLock::acquire(config.dir / kStatsLock);
  auto stats = read_stats();
  const nlohmann::json json = {{"hits", stats.hits + new_hits},
                               {"misses", stats.misses + new_misses},
                               {"compile_seconds", stats.compile_seconds + new_seconds}};
  // Not fsynced: a crash can at worst lose counts (a damaged file is read as zero).
  write_file_atomically(config.dir / kStatsFile, {json.dump() + "\n"},
                        cache_detail::Durability::none);
  // Subtract what was merged: other threads may have counted more meanwhile.
  hits -= new_hits;
  misses -= new_misses;
  const std::lock_guard guard(mutex);
  compile_seconds -= new_seconds;
}

DiskCache::DiskCache(CacheConfig config)
    : config_(std::move(config)), state_(std::make_unique<State>(config_)) {
  state_->open_directory();
}

DiskCache::~DiskCache() { state_->flush_stats(); }

bool DiskCache::usable() const noexcept { return state_->readable(); }

std::string DiskCache::unusable_reason() const {
  if (state_->readable()) return "";
  const std::lock_guard lock(state_->mutex);
  return state_->reason;
}

fs::path DiskCache::entry_path(const std::string& digest) const {
  RTCG_VERIFY(is_digest(digest),
              "not a cache key digest (64 lowercase hex expected): \"" << digest << "\"");
  return state_->entry_path(digest);
}

std::optional<std::string> DiskCache::load(const CacheKey& key) {
  auto payload = state_->lookup(key.digest());
  ++(payload ? state_->hits : state_->misses);
  return payload;
}

void DiskCache::store(const CacheKey& key, const std::string& payload) {
  if (state_->publish(key.digest(), payload)) state_->evict_if_over_cap();
}

std::string DiskCache::get_or_compute(const CacheKey& key, const std::string& name,
                                      const std::function<std::string()>& compute) {
  State& state = *state_;
  const auto digest = key.digest();
  if (auto payload = state.lookup(digest)) {
    ++state.hits;
    return std::move(*payload);
  }
  std::optional<FileLock> lock;
  if (state.writable()) {
    try {
      make_private_dir(state.entry_path(digest).parent_path());
      lock = FileLock::acquire(state.lock_path(digest));
    } catch (const std::system_error& e) {
      state.disable_after_write_failure(e);
    }
  }
  // Whoever holds the key's lock deletes the lock file when done (FileLock explains why that
  // is safe), so lock files exist only while a compile is running or awaited.
  if (lock) {
    // Another process may have published while we waited for the lock.
    if (auto payload = state.lookup(digest)) {
      lock->remove();
      ++state.hits;
      return std::move(*payload);
    }
  }
  const auto start = std::chrono::steady_clock::now();
  std::string payload;
  try {
    payload = compute();
  } catch (...) {
    if (lock) lock->remove();
    throw;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const bool published = state.publish(digest, payload);
  if (lock) lock->remove();
  ++state.misses;
  {
    const std::lock_guard guard(state.mutex);
    state.compile_seconds += seconds;
  }
  state.record_explain(name, digest, key);
  if (published) state.evict_if_over_cap();
  state.flush_stats();  // a compile just took milliseconds at least; merging is cheap beside it
  return payload;
}

CacheStats DiskCache::stats() const {
  CacheStats stats;
  if (state_->readable()) {
    for (const auto& entry : state_->scan(false)) {
      ++stats.entries;
      stats.bytes += entry.size;
    }
  }
  const auto persisted = state_->read_stats();
  stats.hits = persisted.hits + state_->hits.load();
  stats.misses = persisted.misses + state_->misses.load();
  const std::lock_guard lock(state_->mutex);
  stats.compile_seconds = persisted.compile_seconds + state_->compile_seconds;
  return stats;
}

void DiskCache::clear() {
  if (config_.mode == CacheMode::readonly) {
    throw Error("RTDG_CACHE=readonly: refusing to clear the compile cache in " +
                config_.dir.string() + "; unset RTDG_CACHE (or set it to on) to clear it");
  }
  if (state_->writable()) {
    const auto& dir = config_.dir;
    // Only a folder with the cache's layout is cleared: anything else in it (a cache folder set
    // to a folder of the user's by mistake) stops the clear before anything is deleted.
    std::string foreign;
    for_each_name(dir, [&](const std::string& name) {
      if (!foreign.empty()) return;
      if (!is_cache_top_name(name)) {
        foreign = (dir / name).string();
        return;
      }
      if (is_shard_name(name)) {
        for_each_name(dir / name, [&](const std::string& file) {
          if (foreign.empty() && !ends_with(file, kEntrySuffix) && !ends_with(file, kLockSuffix) && !is_temporary_name(file))
            foreign = (dir / name / file).string();
        });
      } else if (name == kExplainDir) {
        for_each_name(dir / name, [&](const std::string& file) {
          if (foreign.empty() && !ends_with(file, ".json") && !is_temporary_name(file)) foreign = (dir / name / file).string();
        });
      }
    });
    if (!foreign.empty())
      throw Error("refusing to clear " + dir.string() + ": it is not an rtdg compile cache, or holds more than one (" +
                  foreign + " is not a cache file), and clearing it could delete files that are not rtdg's; check "
                  "RTDG_CACHE_DIR, or delete the folder yourself");
    try {
      const FileLock cache_lock = FileLock::acquire(dir / kCacheLock);
      const auto now_ns = unix_ns_now();
      for_each_name(dir, [&](const std::string& shard) {
        if (!is_shard_name(shard)) return;
        for_each_name(dir / shard, [&](const std::string& name) {
          const auto path = dir / shard / name;
          if (is_temporary_name(name)) {
            // Removing one in flight would fail that publish and cost its process the disk
            // cache: only stale ones go, as in eviction.
            remove_if_stale(path, now_ns);
          } else if (ends_with(name, kLockSuffix)) {
            // A lock someone holds is theirs; it goes away when their compile ends.
            if (auto lock = FileLock::try_acquire_existing(path)) lock->remove();
          } else if (ends_with(name, kEntrySuffix)) {
            ::unlink(path.c_str());
          }
        });
      });
      {
        const FileLock explain_lock = FileLock::acquire(dir / kExplainLock);
        for_each_name(dir / kExplainDir, [&](const std::string& name) {
          ::unlink((dir / kExplainDir / name).c_str());
        });
      }
      const FileLock stats_lock = FileLock::acquire(dir / kStatsLock);
      if (::unlink((dir / kStatsFile).c_str()) != 0 && errno != ENOENT) {
        cache_detail::throw_errno(errno, "unlink", dir / kStatsFile);
      }
    } catch (const std::system_error& e) {
      throw Error("cannot clear the compile cache in " + dir.string() + ": " + e.what());
    }
  }
  state_->reset_counters();
}

std::vector<ExplainField> DiskCache::explain(const std::string& name) const {
  if (!state_->readable()) return {};
  const auto path = config_.dir / kExplainDir / (cache_detail::explain_file_stem(name) + ".json");
  std::optional<std::string> text;
  try {
    text = read_small_file(path);
  } catch (const std::system_error& e) {
    log().debug("compile cache: cannot read {} ({})", path.string(), e.what());
  }
  if (!text) return {};
  const auto record = nlohmann::json::parse(*text, nullptr, false);
  // The name check guards against two names that share a file stem.
  if (!record.is_object() || record.value("name", std::string()) != name) return {};
  return cache_detail::compare_explain_record(record);
}

std::vector<std::string> DiskCache::explained_names() const {
  if (!state_->readable()) return {};
  std::vector<std::pair<double, std::string>> records;
  const auto dir = config_.dir / kExplainDir;
  for_each_name(dir, [&](const std::string& file) {
    if (!ends_with(file, ".json")) return;
    std::optional<std::string> text;
    try {
      text = read_small_file(dir / file);
    } catch (const std::system_error&) {
      return;  // removed meanwhile, or unreadable: not a record to list
    }
    if (!text) return;
    const auto record = nlohmann::json::parse(*text, nullptr, false);
    if (!record.is_object() || !record.value("name", nlohmann::json()).is_string()) return;
    double time = 0;
    if (record.contains("current") && record["current"].is_object()) {
      time = record["current"].value("time", 0.0);
    }
    records.emplace_back(time, record["name"].get<std::string>());
  });
  std::sort(records.begin(), records.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  std::vector<std::string> names;
  names.reserve(records.size());
  for (auto& record : records) names.push_back(std::move(record.second));
  return names;
}

DiskCache& global_cache() {
  // Constructed at first use, so a malformed variable is reported by whatever first compiles;
  // if from_environment throws, the next call tries again (and throws again).
  static DiskCache cache(CacheConfig::from_environment());
  return cache;
}

}  // namespace rtcg
