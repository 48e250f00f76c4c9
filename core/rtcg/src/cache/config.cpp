// CacheConfig from the environment: RTDG_CACHE_DIR, RTDG_CACHE, RTDG_CACHE_MAX_BYTES.
#include <rtcg/cache.hpp>
#include <rtcg/error.hpp>

#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <limits>
#include <string>

namespace rtcg {
namespace {

constexpr const char* kMaxBytesValid =
    "expected a whole number of bytes, optionally followed by K, M or G (powers of 1024), "
    "e.g. 2147483648 or 512M";

// An empty value counts as unset: `RTDG_CACHE= rtdg ...` is how many people "unset" a variable.
const char* environment(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : nullptr;
}

std::string lowercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

std::filesystem::path default_dir() {
  // XDG says a relative XDG_CACHE_HOME is invalid and must be ignored.
  if (const char* xdg = environment("XDG_CACHE_HOME"); xdg != nullptr && xdg[0] == '/') {
    return std::filesystem::path(xdg) / "rtdg";
  }
  if (const char* home = environment("HOME"))
    return std::filesystem::path(home) / ".cache" / "rtdg";
  // No HOME (some batch systems and containers): the password database still knows.
  if (const passwd* entry = ::getpwuid(::geteuid());
      entry != nullptr && entry->pw_dir != nullptr && entry->pw_dir[0] == '/') {
    return std::filesystem::path(entry->pw_dir) / ".cache" / "rtdg";
  }
  return {};
}

}  // namespace

std::string_view to_string(CacheMode mode) {
  switch (mode) {
    case CacheMode::on:
      return "on";
    case CacheMode::off:
      return "off";
    case CacheMode::readonly:
      return "readonly";
  }
  return "unknown";
}

std::uint64_t CacheConfig::parse_max_bytes(std::string_view text) {
  const auto fail = [&]() -> std::uint64_t {
    throw Error("RTDG_CACHE_MAX_BYTES=\"" + std::string(text) +
                "\" is not valid: " + kMaxBytesValid);
  };
  std::size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits])) != 0)
    ++digits;
  if (digits == 0) return fail();
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < digits; ++i) {
    const auto digit = static_cast<std::uint64_t>(text[i] - '0');
    if (value > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) return fail();
    value = value * 10 + digit;
  }
  std::uint64_t unit = 1;
  const std::string suffix = lowercase(std::string(text.substr(digits)));
  if (suffix == "k") {
    unit = 1ull << 10;
  } else if (suffix == "m") {
    unit = 1ull << 20;
  } else if (suffix == "g") {
    unit = 1ull << 30;
  } else if (!suffix.empty()) {
    return fail();
  }
  if (value > std::numeric_limits<std::uint64_t>::max() / unit) return fail();
  // A cap of 0 would evict every entry as soon as it is written; RTDG_CACHE=off says that.
  if (value == 0) {
    throw Error("RTDG_CACHE_MAX_BYTES=\"" + std::string(text) +
                "\" is not valid: the cap must be above 0 (use RTDG_CACHE=off to turn the cache "
                "off); " +
                kMaxBytesValid);
  }
  return value * unit;
}

CacheConfig CacheConfig::from_environment() {
  CacheConfig config;
  if (const char* mode = environment("RTDG_CACHE")) {
    const std::string value = lowercase(mode);
    if (value == "on") {
      config.mode = CacheMode::on;
    } else if (value == "off") {
      config.mode = CacheMode::off;
    } else if (value == "readonly") {
      config.mode = CacheMode::readonly;
    } else {
      throw Error(std::string("RTDG_CACHE=\"") + mode +
                  "\" is not valid: expected one of on, off, readonly");
    }
  }
  if (const char* cap = environment("RTDG_CACHE_MAX_BYTES"))
    config.max_bytes = parse_max_bytes(cap);
  if (const char* dir = environment("RTDG_CACHE_DIR")) {
    // Absolute now, so a later chdir (a run changing into its output folder) cannot move it.
    std::error_code error;
    config.dir = std::filesystem::absolute(dir, error);
    if (error) {
      throw Error(std::string("RTDG_CACHE_DIR=\"") + dir +
                  "\" is not valid: cannot make it absolute (" + error.message() +
                  "); expected a folder path");
    }
  } else {
    config.dir = default_dir();
  }
  return config;
}

}  // namespace rtcg
