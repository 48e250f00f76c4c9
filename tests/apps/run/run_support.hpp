// Helpers for the run tests: a scratch output folder per test and a quiet run.
#pragma once

#include <runner/run.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

namespace rtdg::runner::test {

inline std::filesystem::path data(const std::string& relative) {
  return std::filesystem::path(RTDG_SOURCE_DIR) / "data" / relative;
}

// A fresh folder under the system temp folder, named after the running test and the test
// program's path: two builds testing at once on one machine (two clones, or a build and its
// sanitizer build) get folders of their own instead of wiping each other's output, and a rerun of
// one build reuses its folders instead of piling up new ones.
inline std::filesystem::path scratch() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::error_code error;
  const std::string program = std::filesystem::read_symlink("/proc/self/exe", error).string();
  const std::string build = std::to_string(std::hash<std::string>{}(program) % 1000000007ULL);
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("rtdg-run-" + build + "-" + info->test_suite_name() + "-" + info->name());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

struct Quiet {
  std::ostringstream log;
  RunSummary run(RunOptions options) {
    options.log = &log;
    return rtdg::runner::run(options);
  }
};

}  // namespace rtdg::runner::test
