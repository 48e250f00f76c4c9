// The tuning database: loading, atomic stores merged under a lock, and the fallback lookup.
#include <rtcg/error.hpp>
#include <rtcg/log.hpp>
#include <rtcg/tuning_db.hpp>

#include "tune/tuning_db_json.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <bit>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace rtcg::tune {
namespace fs = std::filesystem;

std::string DeviceFingerprint::describe() const {
  std::ostringstream text;
  text << name << " (" << arch;
  if (backend == "cuda") text << ", " << multiprocessors << " SMs, driver " << driver_version;
  text << ")";
  return text.str();
}

DeviceFingerprint DeviceFingerprint::of(const Backend& backend) {
  const DeviceInfo info = backend.device_info();
  DeviceFingerprint d;
  d.backend = backend.name();
  d.name = info.name;
  d.arch = info.arch;
  d.compute_capability_major = info.compute_capability_major;
  d.compute_capability_minor = info.compute_capability_minor;
  d.multiprocessors = info.multiprocessors;
  d.total_memory = info.total_memory;
  d.memory_clock_khz = info.memory_clock_khz;
  d.driver_version = info.driver_version;
  return d;
}

std::string ProblemClass::describe() const { return kind + ", size class " + std::to_string(size_class); }

ProblemClass array_problem(ScalarType type, std::size_t n) {
  return {short_name(type), n <= 1 ? 0 : static_cast<std::int64_t>(std::bit_width(n - 1))};
}

const char* to_string(LookupStep step) {
  switch (step) {
    case LookupStep::exact: return "exact";
    case LookupStep::nearest_problem: return "nearest problem class";
    case LookupStep::same_architecture: return "same architecture";
    case LookupStep::builtin_default: return "built-in default";
  }
  return "?";
}

namespace {

bool same_key(const TuningRecord& a, const TuningRecord& b) {
  return a.device == b.device && a.family == b.family && a.template_hash == b.template_hash && a.problem == b.problem;
}

// Reads the file; a missing file is empty, a corrupt one is a warning and empty.
std::vector<TuningRecord> read_records(const fs::path& file, bool* corrupt = nullptr) {
  if (corrupt) *corrupt = false;
  std::error_code error;
  if (!fs::exists(file, error)) return {};
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  try {
    return detail::parse(text.str());
  } catch (const std::exception& e) {
    if (corrupt) *corrupt = true;
    warn_once("tuning-db-corrupt:" + file.string(),
              "the tuning database " + file.string() + " is unreadable (" + e.what() +
                  "); using built-in defaults. The next store keeps it aside as " + file.string() + ".corrupt");
    return {};
  }
}

// An exclusive flock on <file>.lock for a read-modify-write; released by the kernel if the
// process dies.
class FileLock {
public:
  explicit FileLock(const fs::path& file) {
    const std::string lock_path = file.string() + ".lock";
    fd_ = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) throw Error("could not open " + lock_path + " to lock the tuning database: " + std::strerror(errno));
    while (::flock(fd_, LOCK_EX) != 0) {
      if (errno != EINTR) {
        const int saved = errno;
        ::close(fd_);
        throw Error("could not lock " + lock_path + ": " + std::strerror(saved));
      }
    }
  }
  ~FileLock() { ::close(fd_); }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

private:
  int fd_ = -1;
};

void write_atomically(const fs::path& file, const std::string& content) {
  const fs::path temp = file.string() + ".tmp." + std::to_string(::getpid());
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw Error("could not write the tuning database " + temp.string() + ": " + std::strerror(errno));
  std::size_t written = 0;
  while (written < content.size()) {
    const ssize_t n = ::write(fd, content.data() + written, content.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int saved = errno;
      ::close(fd);
      ::unlink(temp.c_str());
      throw Error("could not write the tuning database " + temp.string() + ": " + std::strerror(saved));
    }
    written += static_cast<std::size_t>(n);
  }
  ::fsync(fd);
  ::close(fd);
  if (::rename(temp.c_str(), file.c_str()) != 0) {
    const int saved = errno;
    ::unlink(temp.c_str());
    throw Error("could not replace the tuning database " + file.string() + ": " + std::strerror(saved));
  }
}

// The record of `candidates` with the problem kind asked for and the nearest size class
// (the smaller one on a tie).
const TuningRecord* nearest(const std::vector<const TuningRecord*>& candidates, const ProblemClass& problem) {
  const TuningRecord* best = nullptr;
  for (const auto* record : candidates) {
    if (record->problem.kind != problem.kind) continue;
    if (!best) {
      best = record;
      continue;
    }
    const auto distance = std::llabs(record->problem.size_class - problem.size_class);
    const auto best_distance = std::llabs(best->problem.size_class - problem.size_class);
    if (distance < best_distance || (distance == best_distance && record->problem.size_class < best->problem.size_class))
      best = record;
  }
  return best;
}

}  // namespace

TuningDb::TuningDb(fs::path file) : file_(std::move(file)), records_(read_records(file_)) {}

fs::path TuningDb::default_path() {
  if (const char* path = std::getenv("RTDG_TUNING_DB"); path && *path) return path;
  if (const char* data = std::getenv("XDG_DATA_HOME"); data && *data) return fs::path(data) / "rtdg" / "tuning.json";
  if (const char* home = std::getenv("HOME"); home && *home) return fs::path(home) / ".local" / "share" / "rtdg" / "tuning.json";
  return fs::path("rtdg-tuning.json");
}

void TuningDb::reload() {
  auto records = read_records(file_);
  std::lock_guard lock(mutex_);
  records_ = std::move(records);
}

void TuningDb::store(const TuningRecord& record) {
  std::error_code error;
  if (file_.has_parent_path()) fs::create_directories(file_.parent_path(), error);
  if (error)
    throw Error("could not create the folder of the tuning database " + file_.string() + ": " + error.message() +
                " (set RTDG_TUNING_DB to a writable file)");
  FileLock lock(file_);
  bool corrupt = false;
  auto records = read_records(file_, &corrupt);
  if (corrupt) {
    fs::rename(file_, file_.string() + ".corrupt", error);
    log().warn("kept the unreadable tuning database aside as {}.corrupt", file_.string());
  }
  std::erase_if(records, [&](const TuningRecord& r) { return same_key(r, record); });
  records.push_back(record);
  write_atomically(file_, detail::serialize(records));
  std::lock_guard memory_lock(mutex_);
  records_ = std::move(records);
}

std::vector<TuningRecord> TuningDb::records() const {
  std::lock_guard lock(mutex_);
  return records_;
}

std::optional<TuningRecord> TuningDb::find_exact(const DeviceFingerprint& device, const std::string& family,
                                                 const std::string& template_hash, const ProblemClass& problem) const {
  std::lock_guard lock(mutex_);
  for (const auto& record : records_)
    if (record.device == device && record.family == family && record.template_hash == template_hash &&
        record.problem == problem)
      return record;
  return std::nullopt;
}

Lookup lookup_records(const std::vector<TuningRecord>& records, const DeviceFingerprint& device,
                      const std::string& family, const std::string& template_hash, const ProblemClass& problem,
                      const Point& builtin_default, const std::string& origin) {
  Lookup result;
  std::vector<const TuningRecord*> same_device, same_arch;
  for (const auto& record : records) {
    if (record.family != family || record.template_hash != template_hash || record.winner.empty()) continue;
    if (record.device == device) same_device.push_back(&record);
    else if (record.device.same_architecture(device)) same_arch.push_back(&record);
  }
  const TuningRecord* found = nullptr;
  for (const auto* record : same_device)
    if (record->problem == problem) found = record;
  if (found) {
    result.step = LookupStep::exact;
  } else if ((found = nearest(same_device, problem))) {
    result.step = LookupStep::nearest_problem;
  } else if ((found = nearest(same_arch, problem))) {
    result.step = LookupStep::same_architecture;
  }
  if (found) {
    result.point = found->winner;
    result.record = *found;
  } else {
    result.step = LookupStep::builtin_default;
    result.point = builtin_default;
  }
  if (result.record) {
    log().info("tuning: {} ({}) on {}: {} from {} ({}{}{})", family, problem.describe(), device.describe(),
               to_string(result.point), origin, to_string(result.step),
               result.step == LookupStep::exact ? "" : ": measured for " + result.record->problem.describe(),
               result.step == LookupStep::same_architecture ? " on " + result.record->device.describe() : "");
  } else {
    log().info("tuning: {} ({}) on {}: {} (built-in default: nothing tuned for this family in {}; see `rtdg tune`)",
               family, problem.describe(), device.describe(), to_string(result.point), origin);
  }
  return result;
}

std::vector<TuningRecord> parse_tuning_records(const std::string& text, const std::string& origin) {
  try {
    return detail::parse(text);
  } catch (const Error& e) {
    throw Error(origin + ": " + e.what());
  } catch (const std::exception& e) {
    throw Error(origin + ": not a tuning database (" + e.what() + ")");
  }
}

Lookup TuningDb::lookup(const DeviceFingerprint& device, const std::string& family, const std::string& template_hash,
                        const ProblemClass& problem, const Point& builtin_default) const {
  std::vector<TuningRecord> records;
  {
    std::lock_guard lock(mutex_);
    records = records_;
  }
  return lookup_records(records, device, family, template_hash, problem, builtin_default,
                        "the tuning database " + file_.string());
}

TuningDb& global_tuning_db() {
  static TuningDb db(TuningDb::default_path());
  return db;
}

TuneMode tune_mode() {
  const char* value = std::getenv("RTDG_TUNE");
  const std::string mode = value ? value : "";
  if (mode.empty() || mode == "auto") return TuneMode::automatic;
  if (mode == "off") return TuneMode::off;
  if (mode == "force") return TuneMode::force;
  throw Error("RTDG_TUNE=" + mode + " is not a tuning mode; valid values: off, auto, force");
}

const char* to_string(TuneMode mode) {
  switch (mode) {
    case TuneMode::off: return "off";
    case TuneMode::automatic: return "auto";
    case TuneMode::force: return "force";
  }
  return "?";
}

}  // namespace rtcg::tune
