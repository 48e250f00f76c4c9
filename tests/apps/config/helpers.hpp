// Shared by the config tests: a scratch folder holding the files a config names, made the
// current folder so that messages name "cfg.toml" and paths resolve inside it.
#pragma once

#include "config/run_config.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <numbers>
#include <string>
#include <vector>

#include <unistd.h>

namespace rtdg::config::test {

namespace fs = std::filesystem;

// The smallest valid config: law, mesh and final time.
inline const std::string minimal = R"toml([law]
file = "law.toml"
[mesh]
file = "mesh.geo"
[time]
final = 1.0
)toml";

class ConfigTest : public ::testing::Test {
protected:
  void SetUp() override {
    previous_ = fs::current_path();
    dir_ = fs::temp_directory_path() /
           ("rtdg-config-test-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "sub");
    for (const char* name : {"law.toml", "mesh.geo", "mesh.msh", "mesh.h5", "sub/other.geo"}) {
      std::ofstream(dir_ / name) << "\n";
    }
    fs::current_path(dir_);
  }
  void TearDown() override {
    fs::current_path(previous_);
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  static RunConfig parse(const std::string& text, const std::vector<std::string>& overrides = {}) {
    return parse_config(text, "cfg.toml", overrides);
  }
  // what() of the error parsing `text` throws, or "(no error)".
  static std::string error_of(const std::string& text, const std::vector<std::string>& overrides = {}) {
    try {
      parse(text, overrides);
    } catch (const Error& e) {
      return e.what();
    }
    return "(no error)";
  }

  fs::path dir_;
  fs::path previous_;
};

}  // namespace rtdg::config::test
