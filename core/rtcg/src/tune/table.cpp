// The table of a tuning run, as `rtdg tune` prints it.
#include <rtcg/tuner.hpp>

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace rtcg::tune {

std::string format_table(const TuningResult& result) {
  std::ostringstream out;
  out << "tuning " << result.family << " (" << result.problem.describe() << ") on " << result.device.describe() << "\n";
  std::size_t point_width = 7;
  for (const auto& v : result.variants) point_width = std::max(point_width, to_string(v.point).size());
  const int width = static_cast<int>(point_width);
  const bool rates = result.bytes_per_run > 0;
  char line[512];
  std::snprintf(line, sizeof line, "   %-*s %11s %11s %8s %5s %s\n", width, "variant", "median ms", "min ms", "spread",
                "runs", rates ? "   GB/s  status" : "status");
  out << line;
  for (std::size_t k = 0; k < result.variants.size(); ++k) {
    const Timing& v = result.variants[k];
    const char* mark = result.winner && *result.winner == k ? " * " : "   ";
    const std::string point = to_string(v.point);
    if (v.ok()) {
      const char* status = v.stopped_early ? "ok (stopped early: clearly slower)" : "ok";
      std::snprintf(line, sizeof line, "%s%-*s %11.4f %11.4f %7.1f%% %5zu ", mark, width, point.c_str(), v.median_ms,
                    v.min_ms, 100 * v.spread, v.times_ms.size());
      out << line;
      if (rates) {
        std::snprintf(line, sizeof line, "%7.1f  ", result.bytes_per_run / (v.median_ms * 1e-3) / 1e9);
        out << line;
      }
      out << status << "\n";
    } else {
      std::snprintf(line, sizeof line, "%s%-*s %11s %11s %8s %5s %s", mark, width, point.c_str(), "-", "-", "-", "-",
                    rates ? "      -  " : "");
      out << line << "dropped (" << v.status << "): " << v.reason << "\n";
    }
  }
  const auto pruned =
      std::count_if(result.variants.begin(), result.variants.end(), [](const Timing& t) { return t.status == "pruned"; });
  const auto dropped =
      std::count_if(result.variants.begin(), result.variants.end(), [](const Timing& t) { return !t.ok(); }) - pruned;
  std::snprintf(line, sizeof line, "%zu variants, %ld dropped", result.variants.size(), static_cast<long>(dropped));
  out << line;
  if (pruned > 0) out << ", " << pruned << " pruned";
  if (result.compile_seconds > 0 || result.timing_seconds > 0) {
    std::snprintf(line, sizeof line, "; compiled in %.1f s, timed in %.1f s", result.compile_seconds, result.timing_seconds);
    out << line;
  }  // else a stored record: the database keeps timings, not how long tuning took
  out << "\n";
  if (result.winner) {
    const Timing& best = result.variants[*result.winner];
    std::snprintf(line, sizeof line, " (%.4f ms", best.median_ms);
    out << "winner: " << to_string(best.point) << line;
    if (rates) {
      std::snprintf(line, sizeof line, ", %.1f GB/s", result.bytes_per_run / (best.median_ms * 1e-3) / 1e9);
      out << line;
    }
    out << ")\n";
  } else {
    out << "winner: none (every variant was dropped)\n";
  }
  return out.str();
}

}  // namespace rtcg::tune
