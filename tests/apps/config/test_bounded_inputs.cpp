// Configs and law files are read only from regular files under a size limit
// (fluxes/text_file.hpp): a FIFO, a device or a huge file gives a message naming the path,
// at once, instead of a hang or a process killed for its memory.
#include <config/run_config.hpp>
#include <fluxes/diagnostics.hpp>
#include <fluxes/law.hpp>

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>

namespace {

namespace fs = std::filesystem;

fs::path scratch() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const fs::path dir = fs::temp_directory_path() / ("rtdg-bounded-" + std::to_string(::getpid()) + "-" + info->name());
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// The error of `read`, which must come within 10 seconds.
template <class Read>
std::string error_within_seconds(Read read) {
  auto result = std::async(std::launch::async, [&]() -> std::string {
    try {
      read();
    } catch (const std::exception& e) {
      return e.what();
    }
    return "(no error)";
  });
  if (result.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
    ADD_FAILURE() << "the read blocked";
    std::abort();  // a blocked read cannot be cancelled
  }
  return result.get();
}

TEST(BoundedInputs, AConfigThatIsAFifoIsRefusedUnread) {
  const fs::path dir = scratch();
  const fs::path fifo = dir / "config.toml";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string e = error_within_seconds([&] { rtdg::config::read_config(fifo); });
  EXPECT_EQ(e, fifo.string() + ": error: is not a regular file (a FIFO, device or socket); rtdg reads a config file "
                               "only from a regular file");
  fs::remove_all(dir);
}

TEST(BoundedInputs, AHugeConfigIsRefusedBySize) {
  const fs::path dir = scratch();
  const fs::path big = dir / "big.toml";
  std::ofstream(big) << "# a comment\n";
  fs::resize_file(big, 9u << 20);  // sparse: no 9 MB written
  const std::string e = error_within_seconds([&] { rtdg::config::read_config(big); });
  EXPECT_EQ(e, big.string() + ": error: is 9437184 bytes, more than a config file can be (the limit is 8 MB): check "
                              "that this is the file you meant");
  fs::remove_all(dir);
}

TEST(BoundedInputs, ALawFileThatIsADeviceIsRefusedUnread) {
  const std::string e = error_within_seconds([] { fluxes::read_law("/dev/zero"); });
  EXPECT_EQ(e, "/dev/zero: error: is not a regular file (a FIFO, device or socket); rtdg reads a law file only from a "
               "regular file");
}

TEST(BoundedInputs, AnUnreadableConfigSaysWhy) {
  if (::geteuid() == 0) GTEST_SKIP() << "root reads any file";
  const fs::path dir = scratch();
  const fs::path file = dir / "locked.toml";
  std::ofstream(file) << "[run]\n";
  ::chmod(file.c_str(), 0);
  const std::string e = error_within_seconds([&] { rtdg::config::read_config(file); });
  EXPECT_EQ(e, file.string() + ": error: cannot open the config file: Permission denied");
  fs::remove_all(dir);
}

TEST(BoundedInputs, AMissingConfigOrAFolderStillSaySo) {
  const fs::path dir = scratch();
  EXPECT_EQ(error_within_seconds([&] { rtdg::config::read_config(dir / "none.toml"); }),
            (dir / "none.toml").string() + ": error: config file not found");
  EXPECT_EQ(error_within_seconds([&] { rtdg::config::read_config(dir); }),
            dir.string() + ": error: is a folder, not a config file");
  fs::remove_all(dir);
}

}  // namespace
