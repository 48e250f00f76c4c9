// What the disk cache trusts below its top folder: every shard folder and entry must be this
// user's and private, a FIFO planted as an entry is a miss (not a hang), and `clear` refuses a
// folder that does not have the cache's layout, deleting nothing (rtcg/cache.hpp).
#include <rtcg/cache.hpp>
#include <rtcg/error.hpp>
#include <rtcg/log.hpp>

#include <gtest/gtest.h>
#include <spdlog/sinks/ringbuffer_sink.h>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <string>

namespace fs = std::filesystem;
using rtcg::CacheConfig;
using rtcg::CacheKey;
using rtcg::CacheMode;
using rtcg::DiskCache;

namespace {

class LogCapture {
public:
  LogCapture() : sink_(std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(200)) { rtcg::log().sinks().push_back(sink_); }
  ~LogCapture() {
    auto& sinks = rtcg::log().sinks();
    sinks.erase(std::remove(sinks.begin(), sinks.end(), sink_), sinks.end());
  }
  std::string text() const {
    std::string all;
    for (const auto& line : sink_->last_formatted()) all += line;
    return all;
  }

private:
  std::shared_ptr<spdlog::sinks::ringbuffer_sink_mt> sink_;
};

class CacheTrust : public ::testing::Test {
protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "rtdg-test-cache-trust-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    root_ = pattern;
    dir_ = root_ / "cache";
  }
  void TearDown() override {
    std::error_code error;
    fs::remove_all(root_, error);
  }
  CacheConfig config() const {
    CacheConfig c;
    c.dir = dir_;
    c.mode = CacheMode::on;
    c.max_bytes = 1ull << 30;
    return c;
  }
  static CacheKey key(const std::string& source) {
    CacheKey k;
    k.add("schema", "1").add("backend", "host").add("source", source);
    return k;
  }
  fs::path root_, dir_;
};

TEST_F(CacheTrust, AWorldWritableShardFolderIsAMissWithAWarning) {
  DiskCache cache(config());
  cache.store(key("k"), "payload");
  const fs::path shard = cache.entry_path(key("k").digest()).parent_path();
  ASSERT_EQ(::chmod(shard.c_str(), 0777), 0);
  LogCapture log;
  EXPECT_EQ(cache.load(key("k")), std::nullopt);
  EXPECT_NE(log.text().find("not using " + shard.string() + " (the shard folder is writable by others (mode 0777))"),
            std::string::npos)
      << log.text();
}

TEST_F(CacheTrust, AGroupWritableEntryIsAMissAndIsKept) {
  DiskCache cache(config());
  cache.store(key("k"), "payload");
  const fs::path entry = cache.entry_path(key("k").digest());
  ASSERT_EQ(::chmod(entry.c_str(), 0660), 0);
  LogCapture log;
  EXPECT_EQ(cache.load(key("k")), std::nullopt);
  EXPECT_NE(log.text().find("the entry is writable by others (mode 0660)"), std::string::npos) << log.text();
  EXPECT_TRUE(fs::exists(entry));
}

TEST_F(CacheTrust, AnEntryOfAnotherUserIsAMiss) {
  DiskCache cache(config());
  cache.store(key("k"), "payload");
  const fs::path entry = cache.entry_path(key("k").digest());
  if (::chown(entry.c_str(), 12345, 12345) != 0) GTEST_SKIP() << "changing an owner needs root";
  LogCapture log;
  EXPECT_EQ(cache.load(key("k")), std::nullopt);
  EXPECT_NE(log.text().find("the entry belongs to uid 12345"), std::string::npos) << log.text();
}

TEST_F(CacheTrust, AFifoEntryIsAMissNotAHang) {
  DiskCache cache(config());
  cache.store(key("other"), "x");  // makes the folder
  const fs::path entry = cache.entry_path(key("k").digest());
  fs::create_directories(entry.parent_path());
  ::chmod(entry.parent_path().c_str(), 0700);
  ASSERT_EQ(::mkfifo(entry.c_str(), 0600), 0);
  auto result = std::async(std::launch::async, [&] { return cache.load(key("k")); });
  ASSERT_EQ(result.wait_for(std::chrono::seconds(10)), std::future_status::ready) << "load() blocked on a FIFO";
  EXPECT_EQ(result.get(), std::nullopt);
}

TEST_F(CacheTrust, ClearRefusesAFolderThatIsNotACacheAndDeletesNothing) {
  DiskCache cache(config());
  cache.store(key("k"), "payload");
  const fs::path entry = cache.entry_path(key("k").digest());
  std::ofstream(dir_ / "thesis.tex") << "a user's file";
  try {
    cache.clear();
    FAIL() << "expected a refusal";
  } catch (const rtcg::Error& e) {
    EXPECT_NE(std::string(e.what()).find("refusing to clear " + dir_.string() + ": it is not an rtdg compile cache"),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find((dir_ / "thesis.tex").string()), std::string::npos) << e.what();
  }
  EXPECT_TRUE(fs::exists(dir_ / "thesis.tex"));
  EXPECT_TRUE(fs::exists(entry));
  // A file of another kind inside a shard folder stops it too.
  fs::remove(dir_ / "thesis.tex");
  std::ofstream(entry.parent_path() / "notes.txt") << "x";
  EXPECT_THROW(cache.clear(), rtcg::Error);
  EXPECT_TRUE(fs::exists(entry));
  fs::remove(entry.parent_path() / "notes.txt");
  cache.clear();
  EXPECT_FALSE(fs::exists(entry));
}

}  // namespace
