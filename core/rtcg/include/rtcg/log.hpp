// rtdg's logger (spdlog). Level from RTDG_LOG_LEVEL (trace, debug, info, warn, error, off);
// default info. Everything goes to stderr so stdout stays for results.
#pragma once

#include <spdlog/spdlog.h>

#include <string>

namespace rtcg {

spdlog::logger& log();

// Logs `message` at warn level the first time `key` is seen in this process.
void warn_once(const std::string& key, const std::string& message);

}  // namespace rtcg
