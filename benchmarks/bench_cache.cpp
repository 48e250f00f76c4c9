// What the compile cache costs a run: computing a key's digest, a warm hit, a miss, and the
// bookkeeping of a miss that compiles (lock, atomic publish with fsync, explain record,
// stats). Medians over many repetitions in a private temporary folder.
//
//   bench_cache [results.json]
#include <rtcg/cache.hpp>
#include <rtcg/hash.hpp>

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

namespace {

struct Result {
  std::string name;
  int repetitions = 0;
  double median_us = 0;
  double p90_us = 0;
  double bytes = 0;  // processed per repetition, for a rate; 0 when a rate means nothing
};

// Times `body` `repetitions` times, each separately (the operations are microseconds long,
// far above the clock's resolution).
Result measure(const std::string& name, int repetitions, double bytes,
               const std::function<void(int)>& body) {
  std::vector<double> times;
  times.reserve(static_cast<std::size_t>(repetitions));
  body(-1);  // warm-up: page cache, OpenSSL's algorithm fetch, first allocations
  for (int i = 0; i < repetitions; ++i) {
    const auto start = std::chrono::steady_clock::now();
    body(i);
    times.push_back(
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
            .count());
  }
  std::sort(times.begin(), times.end());
  const auto at = [&](double fraction) {
    return times[static_cast<std::size_t>(fraction * static_cast<double>(times.size() - 1))];
  };
  return Result{name, repetitions, at(0.5), at(0.9), bytes};
}

// A key shaped like the ones Compiler::cache_key builds: a few short fields and the source.
rtcg::CacheKey realistic_key(const std::string& source, int variant) {
  rtcg::CacheKey key;
  key.add("schema", "1")
      .add("backend", "cuda")
      .add("identity", "nvrtc 13.0")
      .add("target", "sm_90");
  for (const char* option : {"-std=c++17", "--use_fast_math", "-DNP=35", "-DNFP=15", "-lineinfo"}) {
    key.add("option", option);
  }
  key.add("header:rtcg/kernel.h", std::string(4000, 'h'));
  key.add("source", source + "// variant " + std::to_string(variant));
  return key;
}

rtcg::CacheKey small_key(const std::string& tag, int variant) {
  rtcg::CacheKey key;
  key.add("source", tag + std::to_string(variant));
  return key;
}

}  // namespace

int main(int argc, char** argv) {
  std::string pattern =
      (std::filesystem::temp_directory_path() / "rtdg-bench-cache-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    std::cerr << "bench_cache: cannot create a temporary folder under " << pattern << "\n";
    return 1;
  }
  const std::filesystem::path root = pattern;
  rtcg::CacheConfig config;
  config.dir = root / "cache";
  config.mode = rtcg::CacheMode::on;
  std::vector<Result> results;
  {
    rtcg::DiskCache cache(config);
    if (!cache.usable()) {
      std::cerr << "bench_cache: the cache in " << config.dir
                << " is unusable: " << cache.unusable_reason() << "\n";
      return 1;
    }
    for (const std::size_t source_bytes : {std::size_t{2} << 10, std::size_t{200} << 10}) {
      const std::string source(source_bytes, 's');
      const auto key = realistic_key(source, 0);
      std::size_t key_bytes = 0;
      for (const auto& field : key.fields())
        key_bytes += field.label.size() + field.value.size() + 16;
      results.push_back(measure("digest, " + std::to_string(source_bytes >> 10) + " KB source",
                                2000, static_cast<double>(key_bytes), [&](int) {
                                  const auto digest = key.digest();
                                  if (digest.size() != 64) std::abort();
                                }));
    }
    for (const std::size_t payload_bytes : {std::size_t{16} << 10, std::size_t{256} << 10}) {
      const std::string tag = "hit " + std::to_string(payload_bytes);
      cache.store(small_key(tag, 0), std::string(payload_bytes, 'p'));
      results.push_back(measure("load hit, " + std::to_string(payload_bytes >> 10) + " KB entry",
                                2000, static_cast<double>(payload_bytes), [&](int) {
                                  if (!cache.load(small_key(tag, 0))) std::abort();
                                }));
    }
    results.push_back(measure("load miss (no entry)", 2000, 0, [&](int i) {
      if (cache.load(small_key("absent", i))) std::abort();
    }));
    // Everything a miss that compiles adds to the compile itself; the compile here is free.
    const std::string payload(16 << 10, 'c');
    results.push_back(measure("get_or_compute miss overhead, 16 KB", 100, 0, [&](int i) {
      cache.get_or_compute(small_key("compile", i + 1), "bench", [&] { return payload; });
    }));
  }
  std::error_code ignored;
  std::filesystem::remove_all(root, ignored);

  std::printf("%-38s %10s %10s %8s %12s\n", "operation", "median us", "p90 us", "reps",
              "rate MB/s");
  for (const auto& result : results) {
    std::printf("%-38s %10.2f %10.2f %8d ", result.name.c_str(), result.median_us, result.p90_us,
                result.repetitions);
    if (result.bytes > 0) {
      std::printf("%12.0f\n", result.bytes / result.median_us);  // bytes per us = MB/s
    } else {
      std::printf("%12s\n", "-");
    }
  }

  if (argc > 1) {
    nlohmann::json json = {{"benchmark", "cache"}, {"results", nlohmann::json::array()}};
    for (const auto& result : results) {
      json["results"].push_back(
          {{"name", result.name},
           {"repetitions", result.repetitions},
           {"median_us", result.median_us},
           {"p90_us", result.p90_us},
           {"bytes", result.bytes},
           {"rate_mb_per_s", result.bytes > 0 ? result.bytes / result.median_us : 0.0}});
    }
    std::ofstream out(argv[1]);
    out << json.dump(2) << "\n";
    if (!out) {
      std::cerr << "bench_cache: cannot write " << argv[1] << "\n";
      return 1;
    }
  }
  return 0;
}
