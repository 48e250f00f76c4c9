// The tuning database: what the tuner measured, on disk as JSON, so winners are reused by
// later runs. Keyed by the device fingerprint, the kernel family, a hash of the generator's
// template (a changed generator never reuses stale winners) and the problem class. Every
// variant's timing is stored, not only the winner's.
//
// Lookup falls back in steps, and logs which one it used:
//   exact              same device, family, template and problem class
//   nearest_problem    same device, family and template; same problem kind, nearest size class
//   same_architecture  another device of the same backend and architecture (e.g. sm_90),
//                      nearest size class of the same kind
//   builtin_default    the generator's own default
//
// File: RTDG_TUNING_DB, else $XDG_DATA_HOME/rtdg/tuning.json (~/.local/share/rtdg/...).
// Written atomically (temp file + rename) under a lock, merging with what other processes
// stored meanwhile. A corrupt file is a warning and an empty database (kept aside as
// <file>.corrupt when the next store replaces it), never a failed run.
#pragma once

#include <rtcg/backend.hpp>
#include <rtcg/kernel_arguments.hpp>
#include <rtcg/search_space.hpp>

#include <cstdint>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace rtcg::tune {

struct DeviceFingerprint {
  std::string backend;  // "cuda" or "host"
  std::string name;     // "NVIDIA H100 80GB HBM3"
  std::string arch;     // "sm_90", "host"
  int compute_capability_major = 0;
  int compute_capability_minor = 0;
  int multiprocessors = 0;
  std::uint64_t total_memory = 0;
  int memory_clock_khz = 0;
  int driver_version = 0;

  static DeviceFingerprint of(const Backend& backend);
  bool operator==(const DeviceFingerprint&) const = default;
  bool same_architecture(const DeviceFingerprint& other) const {
    return backend == other.backend && arch == other.arch;
  }
  std::string describe() const;  // "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs, driver 13000)"
};

struct ProblemClass {
  std::string kind;             // must match exactly: element type, layout... ("f64")
  std::int64_t size_class = 0;  // compared by distance, e.g. ceil(log2(n))

  bool operator==(const ProblemClass&) const = default;
  std::string describe() const;  // "f64, size class 28"
};

// Array operations: kind is the element type, size class ceil(log2(n)) (0 for n <= 1).
ProblemClass array_problem(ScalarType type, std::size_t n);

// What one of a variant's kernels uses, as compiled and launched: the compiler's registers per
// thread, the launch's threads and dynamic shared memory per block, and the thread blocks per
// multiprocessor the backend's occupancy calculator allows for that launch (CUDA:
// cuOccupancyMaxActiveBlocksPerMultiprocessor). 0 where the backend does not say (the host).
struct KernelUse {
  std::string kernel;
  int registers = 0;
  int threads = 0;
  std::size_t shared_bytes = 0;
  int blocks_per_multiprocessor = 0;
  bool operator==(const KernelUse&) const = default;
};

// One variant's measurements (or why it was dropped).
struct Timing {
  Point point;
  std::string status;  // "ok", or why dropped: "pruned", "generate", "compile", "spill", "launch", "run", "check"
  std::string reason;  // the details for a dropped variant
  std::vector<double> times_ms;  // every timed run, in order
  double median_ms = 0;
  double min_ms = 0;
  double max_ms = 0;
  double spread = 0;          // interquartile range over median
  bool stopped_early = false;  // timing stopped once it was clearly slower than the best
  std::vector<KernelUse> kernels;  // one per launch, in launch order (variants that compiled and fit)
  bool ok() const { return status == "ok"; }
};

struct TuningRecord {
  DeviceFingerprint device;
  std::string family;
  std::string template_hash;
  ProblemClass problem;
  Point winner;
  std::vector<Timing> timings;
  std::string created;  // UTC, ISO 8601
};

enum class LookupStep { exact, nearest_problem, same_architecture, builtin_default };
const char* to_string(LookupStep step);

struct Lookup {
  LookupStep step = LookupStep::builtin_default;
  Point point;
  std::optional<TuningRecord> record;  // the record the point came from (none for the default)
};

// The lookup's fallback chain over a list of records (what TuningDb::lookup runs on its file's
// records): records of another family or template, or without a winner, never match. Logs
// the step used at info level, naming `origin` (a file, or a built-in database).
Lookup lookup_records(const std::vector<TuningRecord>& records, const DeviceFingerprint& device,
                      const std::string& family, const std::string& template_hash, const ProblemClass& problem,
                      const Point& builtin_default, const std::string& origin);

// A tuning database document ({"schema": "rtdg-tuning-1", "records": [...]}, the file format
// TuningDb writes); keys other than these two are ignored. Throws rtcg::Error naming `origin`
// for a malformed document.
std::vector<TuningRecord> parse_tuning_records(const std::string& text, const std::string& origin);

class TuningDb {
public:
  // Loads `file` (missing: empty). Never throws for a missing or corrupt file.
  explicit TuningDb(std::filesystem::path file);
  static std::filesystem::path default_path();
  const std::filesystem::path& path() const noexcept { return file_; }

  // Adds the record, replacing one with the same key; writes the file. Throws rtcg::Error
  // when the file cannot be written (saying where and why).
  void store(const TuningRecord& record);
  std::vector<TuningRecord> records() const;
  std::optional<TuningRecord> find_exact(const DeviceFingerprint& device, const std::string& family,
                                         const std::string& template_hash, const ProblemClass& problem) const;
  // The fallback chain above; logs the step used at info level.
  Lookup lookup(const DeviceFingerprint& device, const std::string& family, const std::string& template_hash,
                const ProblemClass& problem, const Point& builtin_default) const;
  // Reads the file again (another process may have stored since).
  void reload();

private:
  std::filesystem::path file_;
  mutable std::mutex mutex_;
  std::vector<TuningRecord> records_;
};

// The database at default_path(), loaded at first use.
TuningDb& global_tuning_db();

// RTDG_TUNE: off (built-in defaults; the database is neither read nor written), auto (the
// default: use the database, falling back as above; `rtdg tune` measures what is missing),
// force (measure again and store, also for array operations at their first use).
enum class TuneMode { off, automatic, force };
TuneMode tune_mode();  // throws rtcg::Error naming the valid values for a bad RTDG_TUNE
const char* to_string(TuneMode mode);

}  // namespace rtcg::tune
