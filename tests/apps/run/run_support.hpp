// Helpers for the run tests: a scratch output folder per test and a quiet run.
#pragma once

#include <runner/run.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

namespace rtdg::runner::test {

inline std::filesystem::path data(const std::string& relative) {
  return std::filesystem::path(RTDG_SOURCE_DIR) / "data" / relative;
}

// A fresh folder under the system temp folder, named after the running test.
inline std::filesystem::path scratch() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("rtdg-run-" + std::string(info->test_suite_name()) + "-" + info->name());
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
