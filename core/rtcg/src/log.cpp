// rtdg's logger and warn_once. See rtcg/log.hpp.
#include <rtcg/log.hpp>

#include <spdlog/sinks/stdout_color_sinks.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_set>
#include <utility>

namespace rtcg {
namespace {

constexpr const char* kLevelNames = "trace, debug, info, warn, error, off";

// Our own table rather than spdlog::level::from_str, which maps every unknown name to "off"
// and so would silence the log on a typo such as "wran".
bool parse_level(std::string name, spdlog::level::level_enum& level) {
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  static const std::pair<const char*, spdlog::level::level_enum> table[] = {
      {"trace", spdlog::level::trace},  {"debug", spdlog::level::debug},
      {"info", spdlog::level::info},    {"warn", spdlog::level::warn},
      {"warning", spdlog::level::warn}, {"error", spdlog::level::err},
      {"off", spdlog::level::off}};
  for (const auto& [candidate, value] : table) {
    if (name == candidate) {
      level = value;
      return true;
    }
  }
  return false;
}

std::shared_ptr<spdlog::logger> make_logger() {
  // Someone (an application embedding rtcg) may have configured "rtdg" already: use theirs.
  if (auto existing = spdlog::get("rtdg")) return existing;
  auto logger = std::make_shared<spdlog::logger>(
      "rtdg", std::make_shared<spdlog::sinks::stderr_color_sink_mt>());
  logger->set_pattern("%^[rtdg %l]%$ %v");
  logger->set_level(spdlog::level::info);
  std::string bad_level;
  if (const char* env = std::getenv("RTDG_LOG_LEVEL"); env != nullptr && *env != '\0') {
    spdlog::level::level_enum level = spdlog::level::info;
    if (parse_level(env, level)) {
      logger->set_level(level);
    } else {
      bad_level = env;
    }
  }
  try {
    spdlog::register_logger(logger);
  } catch (const spdlog::spdlog_ex&) {
    // Registered by another thread between get() and here: use that one.
    if (auto existing = spdlog::get("rtdg")) return existing;
  }
  // A bad level is a warning, not an exception: log() is called from destructors and catch
  // blocks, where a throw would terminate the process.
  if (!bad_level.empty()) {
    logger->warn("RTDG_LOG_LEVEL=\"{}\" is not valid (expected one of {}); using info", bad_level,
                 kLevelNames);
  }
  return logger;
}

}  // namespace

spdlog::logger& log() {
  // Deliberately never destroyed: objects with static storage (the global cache, backends)
  // log from their destructors at exit, possibly after a static logger would be gone.
  static const auto* const logger = new std::shared_ptr<spdlog::logger>(make_logger());
  return **logger;
}

void warn_once(const std::string& key, const std::string& message) {
  // Never destroyed, for the same reason as the logger.
  static auto* const mutex = new std::mutex;
  static auto* const seen = new std::unordered_set<std::string>;
  {
    const std::lock_guard lock(*mutex);
    if (!seen->insert(key).second) return;
  }
  log().warn("{}", message);
}

}  // namespace rtcg
