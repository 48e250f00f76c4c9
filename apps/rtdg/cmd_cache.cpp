// `rtdg cache info|clear|explain`: look into the on-disk compile cache (docs/cache.md).
#include "rtdg/command.hpp"

#include <rtcg/cache.hpp>
#include <rtcg/error.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

namespace rtdg::app {
namespace {

// "78.5 KiB", or "812 bytes".
std::string human_bytes(std::uint64_t bytes) {
  static constexpr const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  auto value = static_cast<double>(bytes);
  std::size_t unit = 0;
  while (value >= 1024 && unit + 1 < std::size(units)) {
    value /= 1024;
    ++unit;
  }
  if (unit == 0) return std::to_string(bytes) + " bytes";
  char text[32];
  std::snprintf(text, sizeof text, "%.1f %s", value, units[unit]);
  return text;
}

// "78.5 KiB (80364 bytes)": the rounded size and the exact one.
std::string exact_bytes(std::uint64_t bytes) {
  const auto rounded = human_bytes(bytes);
  return bytes < 1024 ? rounded : rounded + " (" + std::to_string(bytes) + " bytes)";
}

std::string state_of(const rtcg::DiskCache& cache) {
  if (!cache.usable()) return "memory only: " + cache.unusable_reason();
  return cache.config().mode == rtcg::CacheMode::readonly ? "usable, read only" : "usable";
}

void print_info(bool as_json) {
  auto& cache = rtcg::global_cache();
  const auto& config = cache.config();
  const auto stats = cache.stats();
  if (as_json) {
    const nlohmann::json info = {{"location", config.dir.string()},
                                 {"mode", std::string(rtcg::to_string(config.mode))},
                                 {"usable", cache.usable()},
                                 {"unusable_reason", cache.unusable_reason()},
                                 {"max_bytes", config.max_bytes},
                                 {"entries", stats.entries},
                                 {"bytes", stats.bytes},
                                 {"hits", stats.hits},
                                 {"misses", stats.misses},
                                 {"compile_seconds", stats.compile_seconds}};
    std::cout << info.dump(2) << "\n";
    return;
  }
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.2f", stats.compile_seconds);
  const std::vector<std::pair<std::string, std::string>> rows = {
      {"location", config.dir.empty() ? "(none)" : config.dir.string()},
      {"mode", std::string(rtcg::to_string(config.mode)) + ", RTDG_CACHE"},
      {"state", state_of(cache)},
      {"cap", exact_bytes(config.max_bytes) + ", RTDG_CACHE_MAX_BYTES"},
      {"entries", std::to_string(stats.entries)},
      {"bytes", exact_bytes(stats.bytes)},
      {"hits", std::to_string(stats.hits)},
      {"misses", std::to_string(stats.misses)},
      {"compile seconds", seconds},
  };
  for (const auto& [label, value] : rows) {
    std::printf("%-16s %s\n", label.c_str(), value.c_str());
  }
}

void clear_cache() {
  auto& cache = rtcg::global_cache();
  if (!cache.usable()) {
    std::cout << "nothing cleared: the disk cache is not in use (" << cache.unusable_reason()
              << ")\n";
    return;
  }
  const auto before = cache.stats();
  cache.clear();  // throws, saying why, in readonly mode
  std::cout << "cleared " << before.entries << " entries (" << human_bytes(before.bytes)
            << "), explain records and stats from " << cache.config().dir.string() << "\n";
}

void explain(const std::string& name) {
  auto& cache = rtcg::global_cache();
  if (name.empty()) {
    const auto names = cache.explained_names();
    if (names.empty()) {
      std::cout << "no explain records in " << (cache.config().dir / "explain").string()
                << " (one is written on each compile that misses the cache)\n";
      return;
    }
    std::cout << "programs with explain records, most recently compiled first:\n";
    for (const auto& each : names) std::cout << "  " << each << "\n";
    return;
  }
  const auto fields = cache.explain(name);
  if (fields.empty()) {
    throw rtcg::Error("no explain record for \"" + name + "\" in " +
                      (cache.config().dir / "explain").string() +
                      "; `rtdg cache explain` without a name lists the programs that have one");
  }
  std::size_t label_width = std::string("field").size();
  std::size_t previous_width = std::string("previous compile").size();
  for (const auto& field : fields) {
    label_width = std::max(label_width, field.label.size());
    previous_width = std::max(previous_width, field.previous.size());
  }
  const bool first_compile =
      std::all_of(fields.begin(), fields.end(), [](const auto& f) { return f.previous.empty(); });
  const auto changed =
      std::count_if(fields.begin(), fields.end(), [](const auto& f) { return f.changed; });
  std::cout << name << ": key fields of the last compile beside the compile before it\n\n";
  const auto row = [&](const std::string& mark, const std::string& label,
                       const std::string& previous, const std::string& current) {
    std::printf("%-1s %-*s  %-*s  %s\n", mark.c_str(), static_cast<int>(label_width), label.c_str(),
                static_cast<int>(previous_width), previous.empty() ? "-" : previous.c_str(),
                current.empty() ? "-" : current.c_str());
  };
  row(" ", "field", "previous compile", "last compile");
  for (const auto& field : fields) {
    row(field.changed && !first_compile ? "*" : " ", field.label, field.previous, field.current);
  }
  std::cout << "\n";
  if (first_compile) {
    std::cout << "only one compile of " << name << " is recorded: nothing to compare with\n";
  } else if (changed == 0) {
    std::cout
        << "no key field changed: the entry was evicted, cleared or damaged since the compile "
           "before, or that compile could not use the disk cache\n";
  } else {
    std::cout << "* " << changed << " of " << fields.size() << " fields changed, so the key did\n";
  }
}

void setup_cache(CLI::App& rtdg) {
  auto* cache = rtdg.add_subcommand("cache", "Inspect or clear the on-disk compile cache");
  cache->require_subcommand(1);

  auto* info = cache->add_subcommand(
      "info", "Location, mode, cap, entries, bytes, hits, misses, compile time");
  auto as_json = std::make_shared<bool>(false);
  info->add_flag("--json", *as_json, "Print the same as a JSON object");
  info->callback([as_json] { print_info(*as_json); });

  auto* clear = cache->add_subcommand("clear", "Remove every entry, explain record and the stats");
  clear->callback([] { clear_cache(); });

  auto* why = cache->add_subcommand(
      "explain", "Why a program recompiled: its key fields beside those of the compile before");
  auto name = std::make_shared<std::string>();
  why->add_option("name", *name, "Program name (without one: list the names that have records)");
  why->callback([name] { explain(*name); });
}

RTDG_COMMAND(setup_cache);

}  // namespace
}  // namespace rtdg::app
