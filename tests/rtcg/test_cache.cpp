// The on-disk compile cache: keys, entries, damage, concurrency between processes, fallbacks
// to memory, eviction, explain records and the environment controls. Each test works in its
// own temporary folder.
#include <rtcg/cache.hpp>
#include <rtcg/error.hpp>
#include <rtcg/hash.hpp>
#include <rtcg/log.hpp>

#include <gtest/gtest.h>
#include <spdlog/sinks/base_sink.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace fs = std::filesystem;
using rtcg::CacheConfig;
using rtcg::CacheKey;
using rtcg::CacheMode;
using rtcg::DiskCache;

namespace {

constexpr std::size_t kHeaderSize = 88;  // the entry header, see docs/cache.md

// Collects what rtcg::log() writes while it lives, so tests can count warnings.
class LogCapture {
public:
  LogCapture() : sink_(std::make_shared<Sink>()), level_(rtcg::log().level()) {
    rtcg::log().sinks().push_back(sink_);
    if (level_ > spdlog::level::warn) rtcg::log().set_level(spdlog::level::warn);
  }
  ~LogCapture() {
    auto& sinks = rtcg::log().sinks();
    sinks.erase(std::remove(sinks.begin(), sinks.end(), sink_), sinks.end());
    rtcg::log().set_level(level_);
  }
  LogCapture(const LogCapture&) = delete;
  LogCapture& operator=(const LogCapture&) = delete;

  std::vector<std::string> warnings() const { return sink_->messages(spdlog::level::warn); }
  std::string all_warnings() const {
    std::string text;
    for (const auto& warning : warnings()) text += warning + "\n";
    return text;
  }

private:
  class Sink : public spdlog::sinks::base_sink<std::mutex> {
  public:
    std::vector<std::string> messages(spdlog::level::level_enum level) {
      const std::lock_guard lock(mutex_);
      std::vector<std::string> result;
      for (const auto& [message_level, text] : messages_) {
        if (message_level == level) result.push_back(text);
      }
      return result;
    }

  protected:
    void sink_it_(const spdlog::details::log_msg& message) override {
      messages_.emplace_back(message.level,
                             std::string(message.payload.data(), message.payload.size()));
    }
    void flush_() override {}

  private:
    std::vector<std::pair<spdlog::level::level_enum, std::string>> messages_;
  };

  std::shared_ptr<Sink> sink_;
  spdlog::level::level_enum level_;
};

// Sets environment variables for one test and restores them afterwards.
class EnvironmentGuard {
public:
  ~EnvironmentGuard() {
    for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
      if (it->second) {
        ::setenv(it->first.c_str(), it->second->c_str(), 1);
      } else {
        ::unsetenv(it->first.c_str());
      }
    }
  }
  void set(const std::string& name, const std::string& value) {
    save(name);
    ::setenv(name.c_str(), value.c_str(), 1);
  }
  void unset(const std::string& name) {
    save(name);
    ::unsetenv(name.c_str());
  }

private:
  void save(const std::string& name) {
    const char* value = std::getenv(name.c_str());
    saved_.emplace_back(name, value != nullptr ? std::optional<std::string>(value) : std::nullopt);
  }
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

CacheKey make_key(const std::string& source, const std::string& option = "-O3") {
  CacheKey key;
  key.add("schema", "1").add("backend", "host").add("source", source).add("option", option);
  return key;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void write_file(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

mode_t permissions(const fs::path& path) {
  struct stat info {};
  if (::lstat(path.c_str(), &info) != 0) return 0;
  return info.st_mode & 07777;
}

void set_mtime(const fs::path& path, std::chrono::seconds age) {
  const auto now = std::chrono::system_clock::now() - age;
  const auto since_epoch = now.time_since_epoch();
  timespec times[2];
  times[0].tv_sec = times[1].tv_sec =
      static_cast<time_t>(std::chrono::duration_cast<std::chrono::seconds>(since_epoch).count());
  times[0].tv_nsec = times[1].tv_nsec = 0;
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, 0), 0) << path;
}

std::int64_t mtime_ns(const fs::path& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return -1;
  return static_cast<std::int64_t>(info.st_mtim.tv_sec) * 1000000000LL + info.st_mtim.tv_nsec;
}

std::size_t count_lines(const fs::path& path) {
  std::ifstream in(path);
  std::size_t lines = 0;
  for (std::string line; std::getline(in, line);) ++lines;
  return lines;
}

// Appends one line to `path` (O_APPEND: lines from concurrent processes never interleave).
void append_line(const fs::path& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) throw std::runtime_error("cannot open " + path.string());
  const std::string line = std::to_string(::getpid()) + "\n";
  const auto wrote = ::write(fd, line.data(), line.size());
  ::close(fd);
  if (wrote != static_cast<ssize_t>(line.size()))
    throw std::runtime_error("short write to " + path.string());
}

// Files under `dir` whose names end with `suffix`, recursively.
std::vector<fs::path> files_ending_with(const fs::path& dir, const std::string& suffix) {
  std::vector<fs::path> found;
  if (!fs::exists(dir)) return found;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    const auto name = entry.path().filename().string();
    if (name.size() >= suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      found.push_back(entry.path());
    }
  }
  return found;
}

// Runs body(i) in `count` forked children that start together (they wait on a pipe that the
// parent closes); returns their exit codes. A child never returns into the test framework.
std::vector<int> run_in_children(int count, const std::function<int(int)>& body) {
  int gate[2];
  if (::pipe(gate) != 0) throw std::runtime_error("pipe failed");
  std::fflush(nullptr);  // or the children would write the parent's buffered output again
  std::vector<pid_t> children;
  for (int i = 0; i < count; ++i) {
    const pid_t pid = ::fork();
    if (pid < 0) throw std::runtime_error("fork failed");
    if (pid == 0) {
      ::close(gate[1]);
      char byte = 0;
      while (::read(gate[0], &byte, 1) < 0 && errno == EINTR) {
      }
      int status = 1;
      try {
        status = body(i);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "child %d: %s\n", i, e.what());
        status = 2;
      }
      ::_exit(status);
    }
    children.push_back(pid);
  }
  ::close(gate[0]);
  ::close(gate[1]);  // end of file: every child starts now
  std::vector<int> codes;
  for (const pid_t pid : children) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    codes.push_back(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
  }
  return codes;
}

class DiskCacheTest : public ::testing::Test {
protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "rtdg-test-cache-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    root_ = pattern;
    dir_ = root_ / "cache";
  }
  void TearDown() override {
    // Give back write permission that a test took away, so everything can be removed.
    std::error_code error;
    for (auto it = fs::recursive_directory_iterator(root_, error);
         !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
      if (it->is_directory(error) && !it->is_symlink(error)) ::chmod(it->path().c_str(), 0700);
    }
    ::chmod(root_.c_str(), 0700);
    fs::remove_all(root_, error);
  }

  CacheConfig config(std::uint64_t max_bytes = 1ull << 30, CacheMode mode = CacheMode::on) const {
    CacheConfig result;
    result.dir = dir_;
    result.mode = mode;
    result.max_bytes = max_bytes;
    return result;
  }

  fs::path root_;
  fs::path dir_;
};

// ---------------------------------------------------------------------------------------------
// SHA-256 and keys

TEST(HashTest, Sha256MatchesKnownVectors) {
  EXPECT_EQ(rtcg::Sha256::hex(""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(rtcg::Sha256::hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  rtcg::Sha256 incremental;
  const auto digest = incremental.update("a").update("").update("bc").finish();
  EXPECT_EQ(rtcg::to_hex(digest.data(), digest.size()), rtcg::Sha256::hex("abc"));
  const std::uint8_t bytes[] = {0x00, 0x0f, 0xa0, 0xff};
  EXPECT_EQ(rtcg::to_hex(bytes, sizeof bytes), "000fa0ff");
}

TEST(HashTest, UseAfterFinishThrows) {
  rtcg::Sha256 sha;
  sha.update("x").finish();
  EXPECT_THROW(sha.update("y"), rtcg::Error);
  EXPECT_THROW(sha.finish(), rtcg::Error);
}

TEST(CacheKeyTest, DigestIsTheDocumentedEncoding) {
  // (u64 little-endian length, label, u64 length, value) per field, in order.
  const auto field = [](const std::string& label, const std::string& value) {
    std::string out;
    for (const auto* text : {&label, &value}) {
      auto length = static_cast<std::uint64_t>(text->size());
      for (int i = 0; i < 8; ++i, length >>= 8) out.push_back(static_cast<char>(length & 0xff));
      out += *text;
    }
    return out;
  };
  CacheKey key;
  key.add("source", "__global__ void k() {}").add("option", "-O3");
  EXPECT_EQ(key.digest(),
            rtcg::Sha256::hex(field("source", "__global__ void k() {}") + field("option", "-O3")));
  EXPECT_EQ(CacheKey().digest(), rtcg::Sha256::hex(""));
  ASSERT_EQ(key.fields().size(), 2u);
  EXPECT_EQ(key.fields()[1].label, "option");
  EXPECT_EQ(key.fields()[1].value, "-O3");
}

TEST(CacheKeyTest, DigestChangesWhenAnyFieldChanges) {
  const auto base = [] {
    CacheKey key;
    key.add("schema", "1").add("source", "kernel").add("option", "-O3");
    return key;
  };
  const CacheKey reference = base();
  std::vector<CacheKey> keys;
  keys.push_back(reference);
  for (std::size_t changed = 0; changed < 3; ++changed) {
    CacheKey label_changed;
    CacheKey value_changed;
    for (std::size_t i = 0; i < 3; ++i) {
      const auto& field = reference.fields()[i];
      label_changed.add(i == changed ? field.label + "!" : field.label, field.value);
      value_changed.add(field.label, i == changed ? field.value + "!" : field.value);
    }
    keys.push_back(label_changed);
    keys.push_back(value_changed);
  }
  keys.push_back(CacheKey(base()).add("option", "-g"));                   // one more
  keys.push_back(CacheKey().add("schema", "1").add("source", "kernel"));  // one fewer
  keys.push_back(
      CacheKey().add("source", "kernel").add("schema", "1").add("option", "-O3"));  // order
  std::set<std::string> digests;
  for (const auto& key : keys) digests.insert(key.digest());
  EXPECT_EQ(digests.size(), keys.size());
  EXPECT_EQ(base().digest(), base().digest());
}

TEST(CacheKeyTest, LengthPrefixesPreventAmbiguousConcatenations) {
  // Each pair concatenates to the same bytes; only the field boundaries differ.
  const std::vector<std::pair<CacheKey, CacheKey>> pairs = {
      {CacheKey().add("option", "ab").add("option", "c"),
       CacheKey().add("option", "a").add("boption", "c")},
      {CacheKey().add("ab", "c"), CacheKey().add("a", "bc")},
      {CacheKey().add("x", "ab"), CacheKey().add("x", "a").add("", "b")},
      {CacheKey().add("", ""), CacheKey()},
  };
  for (const auto& [first, second] : pairs) {
    const auto concatenate = [](const CacheKey& key) {
      std::string all;
      for (const auto& field : key.fields()) all += field.label + field.value;
      return all;
    };
    EXPECT_EQ(concatenate(first), concatenate(second));
    EXPECT_NE(first.digest(), second.digest());
  }
}

// ---------------------------------------------------------------------------------------------
// Hits, misses, entries

TEST_F(DiskCacheTest, MissThenHit) {
  DiskCache cache(config());
  ASSERT_TRUE(cache.usable()) << cache.unusable_reason();
  const auto key = make_key("kernel");
  const std::string payload("binary\0with\xff bytes", 18);
  int computed = 0;
  const auto compute = [&] {
    ++computed;
    return payload;
  };
  EXPECT_EQ(cache.get_or_compute(key, "kernel", compute), payload);
  EXPECT_EQ(cache.get_or_compute(key, "kernel", compute), payload);
  EXPECT_EQ(computed, 1);
  EXPECT_EQ(cache.load(key), payload);
  const auto stats = cache.stats();
  EXPECT_EQ(stats.entries, 1u);
  EXPECT_EQ(stats.bytes, kHeaderSize + payload.size());
  EXPECT_EQ(stats.hits, 2u);
  EXPECT_EQ(stats.misses, 1u);
  EXPECT_GE(stats.compile_seconds, 0.0);
}

TEST_F(DiskCacheTest, EntriesAndStatsOutliveTheProcessInstance) {
  const auto key = make_key("kernel");
  {
    DiskCache cache(config());
    cache.get_or_compute(key, "kernel", [] {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      return std::string("payload");
    });
    EXPECT_EQ(cache.load(key), "payload");
  }
  DiskCache later(config());
  EXPECT_EQ(later.get_or_compute(key, "kernel",
                                 []() -> std::string { throw std::runtime_error("not cached"); }),
            "payload");
  const auto stats = later.stats();
  EXPECT_EQ(stats.hits, 2u);
  EXPECT_EQ(stats.misses, 1u);
  EXPECT_GE(stats.compile_seconds, 0.015);
  EXPECT_TRUE(fs::exists(dir_ / "stats.json"));
}

TEST_F(DiskCacheTest, LayoutIsShardedAndOwnerOnly) {
  DiskCache cache(config());
  const auto key = make_key("kernel");
  cache.get_or_compute(key, "kernel", [] { return std::string(100, 'x'); });
  const auto digest = key.digest();
  const auto entry = dir_ / digest.substr(0, 2) / (digest + ".bin");
  EXPECT_EQ(cache.entry_path(digest), entry);
  ASSERT_TRUE(fs::is_regular_file(entry));
  EXPECT_EQ(fs::file_size(entry), kHeaderSize + 100);
  EXPECT_EQ(read_file(entry).substr(0, 8), "RTDGCACH");
  EXPECT_EQ(permissions(dir_), 0700u);
  EXPECT_EQ(permissions(entry.parent_path()), 0700u);
  EXPECT_EQ(permissions(entry), 0600u);
  // Neither temporary files nor the key's lock file stay behind after a compile: only the
  // cache-wide locks of the stats and explain records.
  std::set<fs::path> locks;
  for (const auto& lock : files_ending_with(dir_, ".lock")) locks.insert(lock);
  EXPECT_EQ(locks, (std::set<fs::path>{dir_ / "explain.lock", dir_ / "stats.lock"}));
  for (const auto& entry_file : fs::recursive_directory_iterator(dir_)) {
    EXPECT_EQ(entry_file.path().filename().string().find(".tmp."), std::string::npos)
        << entry_file.path();
  }
  EXPECT_THROW(cache.entry_path("not-a-digest"), rtcg::Error);
}

TEST_F(DiskCacheTest, StoreAndLoadRoundTripAnyBytes) {
  DiskCache cache(config());
  std::string all_bytes;
  for (int i = 0; i < 256; ++i) all_bytes.push_back(static_cast<char>(i));
  const std::vector<std::string> payloads = {"", std::string(1, '\0'), all_bytes,
                                             std::string(300000, 'z')};
  for (std::size_t i = 0; i < payloads.size(); ++i) {
    const auto key = make_key("kernel " + std::to_string(i));
    EXPECT_EQ(cache.load(key), std::nullopt);
    cache.store(key, payloads[i]);
    EXPECT_EQ(cache.load(key), payloads[i]) << "payload " << i;
  }
  // Storing again replaces the entry in place.
  cache.store(make_key("kernel 0"), "replaced");
  EXPECT_EQ(cache.load(make_key("kernel 0")), "replaced");
}

TEST_F(DiskCacheTest, FailedComputeStoresNothingAndReleasesTheLock) {
  DiskCache cache(config());
  const auto key = make_key("kernel");
  EXPECT_THROW(cache.get_or_compute(key, "kernel",
                                    []() -> std::string { throw rtcg::Error("compile failed"); }),
               rtcg::Error);
  EXPECT_FALSE(fs::exists(cache.entry_path(key.digest())));
  EXPECT_TRUE(cache.usable());
  // The lock is free again: this would block forever otherwise.
  EXPECT_EQ(cache.get_or_compute(key, "kernel", [] { return std::string("ok"); }), "ok");
  EXPECT_EQ(cache.load(key), "ok");
}

// ---------------------------------------------------------------------------------------------
// Damaged entries

TEST_F(DiskCacheTest, TruncatedEntriesAreRecompiledAndReplaced) {
  const std::string payload(1000, 'p');
  const std::vector<std::size_t> lengths = {
      0, 10, kHeaderSize - 1, kHeaderSize, kHeaderSize + 500, kHeaderSize + payload.size() - 1};
  for (const auto length : lengths) {
    SCOPED_TRACE("truncated to " + std::to_string(length) + " bytes");
    const auto key = make_key("kernel truncated to " + std::to_string(length));
    DiskCache cache(config());
    cache.store(key, payload);
    const auto entry = cache.entry_path(key.digest());
    fs::resize_file(entry, length);
    LogCapture log;
    int computed = 0;
    EXPECT_EQ(cache.get_or_compute(key, "kernel",
                                   [&] {
                                     ++computed;
                                     return payload;
                                   }),
              payload);
    EXPECT_EQ(computed, 1);
    ASSERT_EQ(log.warnings().size(), 1u) << log.all_warnings();
    EXPECT_NE(log.warnings()[0].find(entry.string()), std::string::npos) << log.warnings()[0];
    EXPECT_NE(log.warnings()[0].find("damaged"), std::string::npos) << log.warnings()[0];
    // Replaced by a good entry.
    EXPECT_EQ(fs::file_size(entry), kHeaderSize + payload.size());
    EXPECT_EQ(cache.load(key), payload);
    EXPECT_TRUE(cache.usable());
  }
}

TEST_F(DiskCacheTest, BitFlippedEntriesAreRecompiledAndReplaced) {
  const std::string payload(1000, 'p');
  // Offsets into the entry: magic, version, header size, payload size, key, payload checksum,
  // first, middle and last payload byte.
  const std::vector<std::size_t> offsets = {
      0, 8, 12, 16, 30, 60, kHeaderSize, kHeaderSize + 500, kHeaderSize + payload.size() - 1};
  for (const auto offset : offsets) {
    SCOPED_TRACE("bit flipped at byte " + std::to_string(offset));
    const auto key = make_key("kernel flipped at " + std::to_string(offset));
    DiskCache cache(config());
    cache.store(key, payload);
    const auto entry = cache.entry_path(key.digest());
    auto bytes = read_file(entry);
    bytes[offset] = static_cast<char>(bytes[offset] ^ 0x04);
    write_file(entry, bytes);
    LogCapture log;
    int computed = 0;
    EXPECT_EQ(cache.get_or_compute(key, "kernel",
                                   [&] {
                                     ++computed;
                                     return payload;
                                   }),
              payload);
    EXPECT_EQ(computed, 1);
    // A flipped version field reads as another rtdg's entry (replaced quietly); all other
    // damage is reported.
    if (offset != 8) {
      EXPECT_EQ(log.warnings().size(), 1u) << log.all_warnings();
    }
    EXPECT_EQ(read_file(entry).substr(kHeaderSize), payload);
    EXPECT_EQ(cache.load(key), payload);
  }
}

TEST_F(DiskCacheTest, EntryCopiedUnderAnotherKeysNameIsAMiss) {
  DiskCache cache(config());
  const auto key_a = make_key("a");
  const auto key_b = make_key("b");
  cache.store(key_a, "payload of a");
  const auto entry_b = cache.entry_path(key_b.digest());
  fs::create_directories(entry_b.parent_path());
  fs::copy_file(cache.entry_path(key_a.digest()), entry_b, fs::copy_options::overwrite_existing);
  LogCapture log;
  EXPECT_EQ(cache.load(key_b), std::nullopt);
  ASSERT_EQ(log.warnings().size(), 1u);
  EXPECT_NE(log.warnings()[0].find("another key"), std::string::npos) << log.warnings()[0];
  EXPECT_FALSE(fs::exists(entry_b)) << "the damaged entry is removed";
  EXPECT_EQ(cache.load(key_a), "payload of a");
}

// ---------------------------------------------------------------------------------------------
// Concurrency

TEST_F(DiskCacheTest, ProcessesRacingOnOneKeyCompileItOnce) {
  constexpr int kProcesses = 8;
  { DiskCache create(config()); }
  const auto key = make_key("contended kernel");
  const auto counter = root_ / "compiles";
  const auto codes = run_in_children(kProcesses, [&](int) {
    LogCapture log;
    std::string payload;
    {
      DiskCache cache(config());
      payload = cache.get_or_compute(key, "contended", [&] {
        append_line(counter);
        // Long enough that every other process arrives while this one holds the key's lock.
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        return std::string(5000, 'c');
      });
    }
    if (payload != std::string(5000, 'c')) return 3;
    if (!log.warnings().empty()) {
      std::fprintf(stderr, "unexpected warning: %s\n", log.warnings()[0].c_str());
      return 4;
    }
    return 0;
  });
  EXPECT_EQ(codes, std::vector<int>(kProcesses, 0));
  EXPECT_EQ(count_lines(counter), 1u);
  DiskCache cache(config());
  EXPECT_EQ(cache.load(key), std::string(5000, 'c'));
  const auto stats = cache.stats();
  EXPECT_EQ(stats.entries, 1u);
  EXPECT_EQ(stats.misses, 1u);
  // Seven from the processes that found the entry after waiting, one from the load above.
  EXPECT_EQ(stats.hits, static_cast<std::uint64_t>(kProcesses));
  EXPECT_TRUE(files_ending_with(dir_ / key.digest().substr(0, 2), ".lock").empty());
}

TEST_F(DiskCacheTest, ProcessesWithDifferentKeysCompileInParallel) {
  constexpr int kProcesses = 8;
  { DiskCache create(config()); }
  const auto started = root_ / "started";
  fs::create_directory(started);
  const auto codes = run_in_children(kProcesses, [&](int i) {
    DiskCache cache(config());
    const auto payload =
        cache.get_or_compute(make_key("kernel " + std::to_string(i)), "parallel", [&] {
          append_line(root_ / ("compiles-" + std::to_string(i)));
          // A barrier: every compile waits until all have started. If different keys were
          // serialised, the first would wait here alone and time out.
          write_file(started / std::to_string(i), "");
          const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
          while (std::distance(fs::directory_iterator(started), fs::directory_iterator()) <
                 kProcesses) {
            if (std::chrono::steady_clock::now() > deadline)
              throw std::runtime_error("compiles did not overlap");
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
          }
          return "payload " + std::to_string(i);
        });
    return payload == "payload " + std::to_string(i) ? 0 : 3;
  });
  EXPECT_EQ(codes, std::vector<int>(kProcesses, 0));
  DiskCache cache(config());
  for (int i = 0; i < kProcesses; ++i) {
    EXPECT_EQ(count_lines(root_ / ("compiles-" + std::to_string(i))), 1u) << i;
    EXPECT_EQ(cache.load(make_key("kernel " + std::to_string(i))), "payload " + std::to_string(i));
  }
  EXPECT_EQ(cache.stats().entries, static_cast<std::uint64_t>(kProcesses));
  EXPECT_EQ(cache.stats().misses, static_cast<std::uint64_t>(kProcesses));
}

TEST_F(DiskCacheTest, ThreadsRacingOnOneKeyCompileItOnce) {
  DiskCache cache(config());
  const auto key = make_key("kernel");
  std::atomic<int> computed{0};
  std::vector<std::thread> threads;
  std::vector<std::string> results(4);
  for (std::size_t i = 0; i < results.size(); ++i) {
    threads.emplace_back([&, i] {
      results[i] = cache.get_or_compute(key, "kernel", [&] {
        ++computed;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        return std::string("payload");
      });
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(computed.load(), 1);
  EXPECT_EQ(results, std::vector<std::string>(4, "payload"));
}

TEST_F(DiskCacheTest, LockOfADeadProcessDoesNotBlock) {
  DiskCache cache(config());
  const auto key = make_key("kernel");
  const auto digest = key.digest();
  const auto lock_file = dir_ / digest.substr(0, 2) / (digest + ".lock");
  fs::create_directories(lock_file.parent_path());
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  std::fflush(nullptr);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const int fd = ::open(lock_file.c_str(), O_RDWR | O_CREAT, 0600);
    if (fd < 0 || ::flock(fd, LOCK_EX) != 0) ::_exit(1);
    const char byte = 'x';
    if (::write(ready[1], &byte, 1) != 1) ::_exit(1);
    for (;;) ::pause();  // holds the lock until killed
  }
  char byte = 0;
  ASSERT_EQ(::read(ready[0], &byte, 1), 1);
  ::close(ready[0]);
  ::close(ready[1]);
  {
    // The lock really is held by the child.
    const int fd = ::open(lock_file.c_str(), O_RDWR);
    ASSERT_GE(fd, 0);
    EXPECT_NE(::flock(fd, LOCK_EX | LOCK_NB), 0);
    ::close(fd);
  }
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  ::alarm(10);  // a blocked get_or_compute fails the run instead of hanging it
  EXPECT_EQ(cache.get_or_compute(key, "kernel", [] { return std::string("payload"); }), "payload");
  ::alarm(0);
}

// ---------------------------------------------------------------------------------------------
// Unusable folders: memory only, one warning

TEST_F(DiskCacheTest, MissingFolderIsCreatedOwnerOnly) {
  dir_ = root_ / "a" / "b" / "cache";
  LogCapture log;
  DiskCache cache(config());
  EXPECT_TRUE(cache.usable()) << cache.unusable_reason();
  EXPECT_TRUE(fs::is_directory(dir_));
  EXPECT_EQ(permissions(dir_), 0700u);
  EXPECT_EQ(permissions(root_ / "a"), 0700u);
  EXPECT_TRUE(log.warnings().empty()) << log.all_warnings();
}

TEST_F(DiskCacheTest, UncreatableFolderWarnsOnceAndRunsInMemory) {
  write_file(root_ / "file", "a regular file, so nothing can be created under it");
  dir_ = root_ / "file" / "cache";
  LogCapture log;
  int computed = 0;
  for (int round = 0; round < 2; ++round) {
    DiskCache cache(config());
    EXPECT_FALSE(cache.usable());
    EXPECT_NE(cache.unusable_reason().find("cannot create"), std::string::npos)
        << cache.unusable_reason();
    for (int i = 0; i < 2; ++i) {
      EXPECT_EQ(cache.get_or_compute(make_key("kernel"), "kernel",
                                     [&] {
                                       ++computed;
                                       return std::string("payload");
                                     }),
                "payload");
    }
    cache.store(make_key("other"), "x");
    EXPECT_EQ(cache.load(make_key("other")), std::nullopt);
    EXPECT_EQ(cache.stats().misses, 3u) << "counted in memory: two compiles and the load";
  }
  EXPECT_EQ(computed, 4);
  ASSERT_EQ(log.warnings().size(), 1u) << log.all_warnings();
  EXPECT_NE(log.warnings()[0].find(dir_.string()), std::string::npos);
  EXPECT_NE(log.warnings()[0].find("memory only"), std::string::npos);
}

TEST_F(DiskCacheTest, ReadOnlyFolderWarnsOnceAndRunsInMemory) {
  {
    DiskCache populate(config());
    populate.store(make_key("kernel"), "payload");
  }
  ASSERT_EQ(::chmod(dir_.c_str(), 0500), 0);
  if (const int probe = ::open((dir_ / "probe").c_str(), O_WRONLY | O_CREAT, 0600); probe >= 0) {
    ::close(probe);
    GTEST_SKIP()
        << "running with privileges that ignore permission bits (root): chmod 0500 cannot make "
           "a folder read-only here; WriteFailureWarnsOnceAndRunsInMemory covers the same fallback";
  }
  LogCapture log;
  DiskCache cache(config());
  EXPECT_FALSE(cache.usable());
  int computed = 0;
  for (int i = 0; i < 3; ++i) {
    cache.get_or_compute(make_key("new kernel"), "kernel", [&] {
      ++computed;
      return std::string("payload");
    });
  }
  EXPECT_EQ(computed, 3);
  ASSERT_EQ(log.warnings().size(), 1u) << log.all_warnings();
  EXPECT_NE(log.warnings()[0].find("not writable"), std::string::npos) << log.warnings()[0];
  EXPECT_NE(log.warnings()[0].find("RTDG_CACHE=readonly"), std::string::npos) << log.warnings()[0];
  // RTDG_CACHE=readonly reads the same folder.
  DiskCache readonly(config(1ull << 30, CacheMode::readonly));
  EXPECT_EQ(readonly.load(make_key("kernel")), "payload");
}

TEST_F(DiskCacheTest, WriteFailureWarnsOnceAndRunsInMemory) {
  // A regular file where an entry's shard folder belongs: every write there fails, whoever
  // runs the test (root included), as a full or read-only disk would.
  const auto key = make_key("kernel");
  DiskCache cache(config());
  ASSERT_TRUE(cache.usable());
  cache.store(make_key("stored before"), "old");
  write_file(dir_ / key.digest().substr(0, 2), "not a folder");
  LogCapture log;
  int computed = 0;
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(cache.get_or_compute(key, "kernel",
                                   [&] {
                                     ++computed;
                                     return std::string("payload");
                                   }),
              "payload");
  }
  cache.store(make_key("stored after"), "new");
  EXPECT_EQ(computed, 3);
  EXPECT_FALSE(cache.usable());
  EXPECT_EQ(cache.load(make_key("stored before")), std::nullopt)
      << "memory only after a write failure";
  ASSERT_EQ(log.warnings().size(), 1u) << log.all_warnings();
  EXPECT_NE(log.warnings()[0].find("cannot write"), std::string::npos) << log.warnings()[0];
}

TEST_F(DiskCacheTest, ReadonlyModeReadsButNeverWrites) {
  const auto key = make_key("kernel");
  {
    DiskCache cache(config());
    cache.get_or_compute(key, "kernel", [] { return std::string("payload"); });
  }
  const auto entry = dir_ / key.digest().substr(0, 2) / (key.digest() + ".bin");
  set_mtime(entry, std::chrono::seconds(100));
  const auto entry_mtime = mtime_ns(entry);
  const auto stats_before = read_file(dir_ / "stats.json");
  std::set<fs::path> files_before;
  for (const auto& file : fs::recursive_directory_iterator(dir_)) files_before.insert(file.path());

  LogCapture log;
  {
    DiskCache cache(config(1ull << 30, CacheMode::readonly));
    EXPECT_TRUE(cache.usable());
    EXPECT_EQ(cache.load(key), "payload");
    int computed = 0;
    for (int i = 0; i < 2; ++i) {
      cache.get_or_compute(make_key("new"), "new", [&] {
        ++computed;
        return std::string("new payload");
      });
    }
    EXPECT_EQ(computed, 2);
    EXPECT_THROW(cache.clear(), rtcg::Error);
  }
  std::set<fs::path> files_after;
  for (const auto& file : fs::recursive_directory_iterator(dir_)) files_after.insert(file.path());
  EXPECT_EQ(files_after, files_before);
  EXPECT_EQ(read_file(dir_ / "stats.json"), stats_before);
  EXPECT_EQ(mtime_ns(entry), entry_mtime);
  EXPECT_TRUE(log.warnings().empty()) << log.all_warnings();
}

TEST_F(DiskCacheTest, ReadonlyModeWithAMissingFolderWarnsAndCreatesNothing) {
  LogCapture log;
  DiskCache cache(config(1ull << 30, CacheMode::readonly));
  EXPECT_FALSE(cache.usable());
  EXPECT_FALSE(fs::exists(dir_));
  ASSERT_EQ(log.warnings().size(), 1u);
  EXPECT_NE(log.warnings()[0].find("does not exist"), std::string::npos) << log.warnings()[0];
}

TEST_F(DiskCacheTest, OffModeTouchesNothingAndSaysNothing) {
  LogCapture log;
  DiskCache cache(config(1ull << 30, CacheMode::off));
  EXPECT_FALSE(cache.usable());
  EXPECT_NE(cache.unusable_reason().find("RTDG_CACHE=off"), std::string::npos);
  int computed = 0;
  for (int i = 0; i < 2; ++i) {
    cache.get_or_compute(make_key("kernel"), "kernel", [&] {
      ++computed;
      return std::string("payload");
    });
  }
  EXPECT_EQ(computed, 2);
  EXPECT_FALSE(fs::exists(dir_));
  EXPECT_TRUE(log.warnings().empty()) << log.all_warnings();
}

TEST_F(DiskCacheTest, SymlinkedFolderIsRefused) {
  fs::create_directory(root_ / "real");
  ::chmod((root_ / "real").c_str(), 0700);
  fs::create_directory_symlink(root_ / "real", dir_);
  LogCapture log;
  DiskCache cache(config());
  EXPECT_FALSE(cache.usable());
  cache.get_or_compute(make_key("kernel"), "kernel", [] { return std::string("payload"); });
  EXPECT_TRUE(fs::is_empty(root_ / "real"));
  ASSERT_EQ(log.warnings().size(), 1u);
  EXPECT_NE(log.warnings()[0].find("symbolic link"), std::string::npos) << log.warnings()[0];
  EXPECT_NE(log.warnings()[0].find("RTDG_CACHE_DIR"), std::string::npos) << log.warnings()[0];
}

TEST_F(DiskCacheTest, WorldWritableFolderIsRefused) {
  for (const mode_t mode : {mode_t{0777}, mode_t{01777}, mode_t{0703}}) {
    char shown[8];
    std::snprintf(shown, sizeof shown, "%04o", static_cast<unsigned>(mode));
    SCOPED_TRACE(std::string("mode ") + shown);
    dir_ = root_ / (std::string("cache-") + shown);
    fs::create_directory(dir_);
    ASSERT_EQ(::chmod(dir_.c_str(), mode), 0);
    LogCapture log;
    DiskCache cache(config());
    EXPECT_FALSE(cache.usable());
    cache.get_or_compute(make_key("kernel"), "kernel", [] { return std::string("payload"); });
    EXPECT_TRUE(fs::is_empty(dir_));
    ASSERT_EQ(log.warnings().size(), 1u);
    EXPECT_NE(log.warnings()[0].find("world-writable"), std::string::npos) << log.warnings()[0];
  }
}

TEST_F(DiskCacheTest, FolderOfAnotherUserIsRefused) {
  fs::create_directory(dir_);
  ::chmod(dir_.c_str(), 0700);
  if (::chown(dir_.c_str(), 4242, 4242) != 0) {
    GTEST_SKIP() << "cannot give a folder to another user without root; the check is the same uid "
                    "comparison that runs for every cache folder";
  }
  LogCapture log;
  DiskCache cache(config());
  EXPECT_FALSE(cache.usable());
  ASSERT_EQ(log.warnings().size(), 1u);
  EXPECT_NE(log.warnings()[0].find("belongs to uid 4242"), std::string::npos) << log.warnings()[0];
}

// ---------------------------------------------------------------------------------------------
// Eviction

TEST_F(DiskCacheTest, EvictionKeepsBytesUnderTheCapAndDropsLeastRecentlyUsed) {
  const std::string payload(1000, 'e');
  const auto entry_bytes = kHeaderSize + payload.size();
  const auto cap = 3 * entry_bytes + entry_bytes / 2;  // room for three entries
  DiskCache cache(config(cap));
  const auto key = [](int i) { return make_key("kernel " + std::to_string(i)); };
  const auto path = [&](int i) { return cache.entry_path(key(i).digest()); };
  for (int i = 1; i <= 3; ++i) cache.store(key(i), payload);
  EXPECT_EQ(cache.stats().entries, 3u);
  // Ages that leave no doubt about the order: 1 oldest, then 2, then 3.
  set_mtime(path(1), std::chrono::seconds(300));
  set_mtime(path(2), std::chrono::seconds(200));
  set_mtime(path(3), std::chrono::seconds(100));
  ASSERT_EQ(cache.load(key(1)), payload);  // a hit makes entry 1 the most recently used
  EXPECT_GT(mtime_ns(path(1)), mtime_ns(path(3)));

  cache.store(key(4), payload);
  EXPECT_FALSE(fs::exists(path(2))) << "least recently used";
  EXPECT_TRUE(fs::exists(path(1)));
  EXPECT_TRUE(fs::exists(path(3)));
  EXPECT_TRUE(fs::exists(path(4)));
  EXPECT_LE(cache.stats().bytes, cap);
  EXPECT_EQ(cache.load(key(2)), std::nullopt);

  cache.get_or_compute(key(5), "kernel", [&] { return payload; });
  EXPECT_FALSE(fs::exists(path(3)));
  EXPECT_TRUE(fs::exists(path(1)));
  EXPECT_TRUE(fs::exists(path(5)));
  const auto stats = cache.stats();
  EXPECT_EQ(stats.entries, 3u);
  EXPECT_LE(stats.bytes, cap);
}

// ---------------------------------------------------------------------------------------------
// Explain

TEST_F(DiskCacheTest, ExplainShowsWhichFieldsChanged) {
  DiskCache cache(config());
  const std::string long_source(500, 's');
  const auto compile = [&](const CacheKey& key) {
    cache.get_or_compute(key, "axpy_f64", [] { return std::string("bin"); });
  };
  compile(CacheKey()
              .add("schema", "1")
              .add("source", long_source)
              .add("option", "-O3")
              .add("option", "-DN=4"));
  {
    const auto first = cache.explain("axpy_f64");
    ASSERT_EQ(first.size(), 4u);
    for (const auto& field : first) {
      EXPECT_TRUE(field.previous.empty());
      EXPECT_TRUE(field.changed) << "a first compile has nothing to compare with";
    }
  }
  compile(CacheKey()
              .add("schema", "1")
              .add("source", long_source + "!")
              .add("option", "-O3")
              .add("option", "-DN=8"));
  const auto fields = cache.explain("axpy_f64");
  ASSERT_EQ(fields.size(), 4u);
  EXPECT_EQ(fields[0].label, "schema");
  EXPECT_FALSE(fields[0].changed);
  EXPECT_EQ(fields[0].previous, "\"1\"");
  EXPECT_EQ(fields[1].label, "source");
  EXPECT_TRUE(fields[1].changed);
  EXPECT_EQ(fields[1].previous,
            "sha256 " + rtcg::Sha256::hex(long_source).substr(0, 16) + ", 500 bytes");
  EXPECT_EQ(fields[1].current,
            "sha256 " + rtcg::Sha256::hex(long_source + "!").substr(0, 16) + ", 501 bytes");
  EXPECT_EQ(fields[2].label, "option");
  EXPECT_FALSE(fields[2].changed);
  EXPECT_EQ(fields[3].label, "option");
  EXPECT_TRUE(fields[3].changed);
  EXPECT_EQ(fields[3].previous, "\"-DN=4\"");
  EXPECT_EQ(fields[3].current, "\"-DN=8\"");

  // A field dropped and one added.
  compile(CacheKey()
              .add("schema", "1")
              .add("source", long_source + "!")
              .add("option", "-O3")
              .add("target", "sm_90"));
  const auto third = cache.explain("axpy_f64");
  ASSERT_EQ(third.size(), 5u);
  EXPECT_EQ(third[3].label, "target");
  EXPECT_TRUE(third[3].previous.empty());
  EXPECT_EQ(third[3].current, "\"sm_90\"");
  EXPECT_EQ(third[4].label, "option");
  EXPECT_EQ(third[4].previous, "\"-DN=8\"");
  EXPECT_TRUE(third[4].current.empty());
  EXPECT_TRUE(third[4].changed);
  EXPECT_FALSE(third[2].changed);

  // A hit records nothing.
  compile(CacheKey()
              .add("schema", "1")
              .add("source", long_source + "!")
              .add("option", "-O3")
              .add("target", "sm_90"));
  EXPECT_EQ(cache.explain("axpy_f64").size(), 5u);
  EXPECT_TRUE(cache.explain("never compiled").empty());
}

TEST_F(DiskCacheTest, ExplainNamesAreSanitisedAndListedMostRecentFirst) {
  DiskCache cache(config());
  const std::vector<std::string> names = {"plain_name", "../../escape", "with space/and:colon",
                                          ".hidden", std::string(200, 'n')};
  for (std::size_t i = 0; i < names.size(); ++i) {
    cache.get_or_compute(make_key("kernel " + std::to_string(i)), names[i],
                         [] { return std::string("bin"); });
  }
  const std::vector<std::string> newest_first(names.rbegin(), names.rend());
  EXPECT_EQ(cache.explained_names(), newest_first);
  for (const auto& name : names) EXPECT_EQ(cache.explain(name).size(), 4u) << name;
  // Every record stays inside explain/, and the plain name keeps its own name.
  std::size_t records = 0;
  for (const auto& file : fs::recursive_directory_iterator(root_)) {
    if (file.path().extension() == ".json" && file.path().filename() != "stats.json") {
      EXPECT_EQ(file.path().parent_path(), dir_ / "explain") << file.path();
      EXPECT_NE(file.path().filename().string().front(), '.') << file.path();
      ++records;
    }
  }
  EXPECT_EQ(records, names.size());
  EXPECT_TRUE(fs::exists(dir_ / "explain" / "plain_name.json"));
}

TEST_F(DiskCacheTest, ClearRemovesEntriesExplainRecordsAndStats) {
  DiskCache cache(config());
  for (int i = 0; i < 3; ++i) {
    cache.get_or_compute(make_key("kernel " + std::to_string(i)), "kernel",
                         [] { return std::string("bin"); });
  }
  cache.load(make_key("kernel 0"));
  ASSERT_EQ(cache.stats().entries, 3u);
  cache.clear();
  const auto stats = cache.stats();
  EXPECT_EQ(stats.entries, 0u);
  EXPECT_EQ(stats.bytes, 0u);
  EXPECT_EQ(stats.hits, 0u);
  EXPECT_EQ(stats.misses, 0u);
  EXPECT_EQ(stats.compile_seconds, 0.0);
  EXPECT_TRUE(cache.explained_names().empty());
  EXPECT_TRUE(files_ending_with(dir_, ".bin").empty());
  EXPECT_FALSE(fs::exists(dir_ / "stats.json"));
  EXPECT_EQ(cache.load(make_key("kernel 0")), std::nullopt);
  // Still usable afterwards.
  cache.get_or_compute(make_key("kernel 0"), "kernel", [] { return std::string("bin"); });
  EXPECT_EQ(cache.load(make_key("kernel 0")), "bin");
}

TEST_F(DiskCacheTest, ClearRemovesStaleTemporaryFilesButNotOnesInFlight) {
  DiskCache cache(config());
  const auto key = make_key("kernel");
  cache.store(key, "payload");
  const auto entry = cache.entry_path(key.digest());
  const auto stale = fs::path(entry.string() + ".tmp.999999.0");    // a writer that died
  const auto in_flight = fs::path(entry.string() + ".tmp.999999.1");  // a writer still busy
  write_file(stale, "partial");
  write_file(in_flight, "partial");
  set_mtime(stale, std::chrono::hours(2));
  cache.clear();
  EXPECT_FALSE(fs::exists(entry));
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(in_flight));
  EXPECT_EQ(cache.stats().bytes, 0u) << "temporary files are not entries";
}

TEST_F(DiskCacheTest, MalformedStatsFileWarnsOnceAndCountsAfresh) {
  {
    DiskCache cache(config());
    cache.get_or_compute(make_key("kernel"), "kernel", [] { return std::string("payload"); });
  }
  write_file(dir_ / "stats.json", "{\"hits\": \"many\"");
  LogCapture log;
  {
    DiskCache cache(config());
    EXPECT_EQ(cache.stats().misses, 0u);
    cache.get_or_compute(make_key("other"), "kernel", [] { return std::string("payload"); });
    EXPECT_EQ(cache.stats().misses, 1u);
  }
  ASSERT_EQ(log.warnings().size(), 1u) << log.all_warnings();
  EXPECT_NE(log.warnings()[0].find("stats.json is malformed"), std::string::npos);
  EXPECT_EQ(DiskCache(config()).stats().misses, 1u) << "the file was rewritten whole";
}

// ---------------------------------------------------------------------------------------------
// Environment

TEST(CacheConfigTest, DefaultsFollowXdgThenHome) {
  EnvironmentGuard environment;
  environment.unset("RTDG_CACHE_DIR");
  environment.unset("RTDG_CACHE");
  environment.unset("RTDG_CACHE_MAX_BYTES");
  environment.set("XDG_CACHE_HOME", "/xdg/cache");
  environment.set("HOME", "/home/someone");
  auto config = CacheConfig::from_environment();
  EXPECT_EQ(config.dir, fs::path("/xdg/cache/rtdg"));
  EXPECT_EQ(config.mode, CacheMode::on);
  EXPECT_EQ(config.max_bytes, 2ull << 30);
  environment.set("XDG_CACHE_HOME", "relative/is/ignored");
  EXPECT_EQ(CacheConfig::from_environment().dir, fs::path("/home/someone/.cache/rtdg"));
  environment.unset("XDG_CACHE_HOME");
  EXPECT_EQ(CacheConfig::from_environment().dir, fs::path("/home/someone/.cache/rtdg"));
  environment.set("RTDG_CACHE_DIR", "/explicit/dir");
  EXPECT_EQ(CacheConfig::from_environment().dir, fs::path("/explicit/dir"));
  environment.set("RTDG_CACHE_DIR", "relative");
  EXPECT_EQ(CacheConfig::from_environment().dir, fs::current_path() / "relative");
}

TEST(CacheConfigTest, ParsesModesAndSizes) {
  EnvironmentGuard environment;
  const std::vector<std::pair<std::string, CacheMode>> modes = {{"on", CacheMode::on},
                                                                {"off", CacheMode::off},
                                                                {"readonly", CacheMode::readonly},
                                                                {"OFF", CacheMode::off}};
  for (const auto& [text, mode] : modes) {
    environment.set("RTDG_CACHE", text);
    EXPECT_EQ(CacheConfig::from_environment().mode, mode) << text;
  }
  const std::vector<std::pair<std::string, std::uint64_t>> sizes = {
      {"1", 1},     {"1048576", 1048576},   {"4K", 4096},
      {"4k", 4096}, {"512M", 512ull << 20}, {"2G", 2ull << 30}};
  for (const auto& [text, bytes] : sizes) {
    environment.set("RTDG_CACHE_MAX_BYTES", text);
    EXPECT_EQ(CacheConfig::from_environment().max_bytes, bytes) << text;
  }
  // Empty counts as unset.
  environment.set("RTDG_CACHE", "");
  environment.set("RTDG_CACHE_MAX_BYTES", "");
  EXPECT_EQ(CacheConfig::from_environment().mode, CacheMode::on);
  EXPECT_EQ(CacheConfig::from_environment().max_bytes, 2ull << 30);
  EXPECT_EQ(rtcg::to_string(CacheMode::readonly), "readonly");
}

TEST(CacheConfigTest, MalformedValuesNameTheVariableTheValueAndTheValidValues) {
  EnvironmentGuard environment;
  const auto message = [] {
    try {
      CacheConfig::from_environment();
    } catch (const rtcg::Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  environment.set("RTDG_CACHE", "maybe");
  EXPECT_EQ(message(), "RTDG_CACHE=\"maybe\" is not valid: expected one of on, off, readonly");
  environment.unset("RTDG_CACHE");
  for (const std::string bad :
       {"12X", "-5", "1.5G", "G", "12 M", " 12", "4KB", "99999999999999999999", "17179869184G"}) {
    environment.set("RTDG_CACHE_MAX_BYTES", bad);
    EXPECT_EQ(message(),
              "RTDG_CACHE_MAX_BYTES=\"" + bad +
                  "\" is not valid: expected a whole number of bytes, optionally followed by K, "
                  "M or G (powers of 1024), e.g. 2147483648 or 512M");
  }
  environment.set("RTDG_CACHE_MAX_BYTES", "0");
  EXPECT_NE(
      message().find(
          "RTDG_CACHE_MAX_BYTES=\"0\" is not valid: the cap must be above 0 (use RTDG_CACHE=off"),
      std::string::npos)
      << message();
}

// ---------------------------------------------------------------------------------------------
// The logger and errors the cache relies on

TEST(LogTest, WarnOnceWarnsOncePerKey) {
  LogCapture log;
  for (int i = 0; i < 3; ++i) rtcg::warn_once("test_cache.warn_once.key", "said once");
  rtcg::warn_once("test_cache.warn_once.other key", "said for another key");
  EXPECT_EQ(log.warnings(), (std::vector<std::string>{"said once", "said for another key"}));
}

TEST(ErrorTest, VerifyThrowsAnRtcgErrorWithTheMessage) {
  try {
    RTCG_VERIFY(1 + 1 == 3, "arithmetic is off by " << 1);
    FAIL() << "RTCG_VERIFY did not throw";
  } catch (const rtcg::Error& e) {
#ifdef NDEBUG
    EXPECT_STREQ(e.what(), "arithmetic is off by 1");
#else
    EXPECT_EQ(std::string(e.what()).rfind("arithmetic is off by 1 [test_cache.cpp:", 0), 0u)
        << e.what();
#endif
  }
  EXPECT_NO_THROW(RTCG_VERIFY(true, "never"));
}

}  // namespace
