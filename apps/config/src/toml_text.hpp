// Writing TOML text: the pieces the effective config (effective.cpp) and the --set fallback
// (a bare word read as a string) need. Every value written here reads back to the same value.
#pragma once

#include "config/run_config.hpp"

#include <string>
#include <string_view>

namespace rtdg::config::detail {

// A basic string "..." with TOML's escapes; UTF-8 passes through.
std::string toml_string(std::string_view text);
// A bare key when it is one (A-Z a-z 0-9 _ -), else a quoted key.
std::string toml_key(std::string_view key);
// The shortest text that reads back as the same double, always a float ("2.0", "1e-05").
std::string toml_float(double value);

// The effective config: every key with its value, defaults filled in.
std::string effective_toml(const RunConfig& config);

}  // namespace rtdg::config::detail
