// bench_arrays: the acceptance measurement for the array operations, on a CUDA device.
//
//   bench_arrays [result.json] [bytes per array, default 1 GiB]
//
// In one run: the copy bandwidth (cuMemcpyDtoD through the backend, cudaMemcpy, and a copy
// kernel; the best is the reference), then the tuner on axpy-wide (60 variants: its compile
// and timing time is the "50-variant space" figure), sum, dot and norm2, then the tuned
// operations beside CUB (cub::DeviceReduce::Sum, what thrust::reduce runs), thrust::reduce and
// cuBLAS (ddot, dnrm2) on the same arrays. Every result is checked against host references
// (the inputs are multiples of 1/8, so f64 sums are exact in any order), and sum is checked
// to give the same bits run after run. Prints a table and writes JSON.
//
// Exit status: 0 measured and verified (the acceptance verdict is in the output and JSON),
// 1 a wrong result or an error. Without a GPU it says so and exits 0.
#include <rtcg/array.hpp>
#include <rtcg/array_ops.hpp>
#include <rtcg/array_tuning.hpp>
#include <rtcg/backend.hpp>
#include <rtcg/elementwise.hpp>
#include <rtcg/tuner.hpp>
#include <rtcg/tuning_db.hpp>

#if RTDG_HAVE_CUDA_BASELINES
#include "baselines/cuda_baselines.hpp"
#endif

#include <nlohmann/json.hpp>

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using nlohmann::json;

constexpr int kRepeats = 20;

struct Row {
  std::string operation;
  std::string implementation;
  double median_ms = 0;
  double bytes = 0;  // memory traffic of one run
  double gbps() const { return bytes / (median_ms * 1e-3) / 1e9; }
};

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

std::string git_commit() {
#ifdef RTDG_SOURCE_DIR
  const std::string command = std::string("git -C '") + RTDG_SOURCE_DIR + "' rev-parse HEAD 2>/dev/null";
  if (FILE* pipe = ::popen(command.c_str(), "r")) {
    char line[128] = {};
    const bool got = std::fgets(line, sizeof line, pipe) != nullptr;
    ::pclose(pipe);
    std::string commit = got ? line : "";
    while (!commit.empty() && (commit.back() == '\n' || commit.back() == '\r')) commit.pop_back();
    if (!commit.empty()) return commit;
  }
#endif
  return "unknown";
}

// Median time of `repeats` runs of `work` on the backend's stream (after one warm-up).
double time_median(rtcg::Backend& backend, const std::function<void()>& work, int repeats = kRepeats) {
  work();
  backend.synchronize();
  std::vector<double> times;
  for (int r = 0; r < repeats; ++r) times.push_back(backend.time_ms(work));
  return rtcg::tune::median(times);
}

void verify(bool ok, const std::string& what) {
  if (!ok) throw std::runtime_error("wrong result: " + what);
  std::printf("  verified: %s\n", what.c_str());
}

double x_value(std::size_t i) { return static_cast<double>(static_cast<long long>((i * 7919 + 13) % 17) - 8) * 0.125; }
double y_value(std::size_t i) { return static_cast<double>(static_cast<long long>((i * 104729 + 7) % 13) - 6) * 0.25; }

int run(const std::string& json_path, std::size_t bytes_per_array) {
  if (!rtcg::cuda_available()) {
    std::printf("bench_arrays: no CUDA device (%s); nothing measured\n", rtcg::cuda_unavailable_reason().c_str());
    if (!json_path.empty()) std::ofstream(json_path) << json{{"benchmark", "arrays"}, {"skipped", rtcg::cuda_unavailable_reason()}}.dump(2) << "\n";
    return 0;
  }
  auto& backend = rtcg::backend("cuda");
  const auto info = backend.device_info();
  const std::size_t n = bytes_per_array / sizeof(double);
  const double bytes = static_cast<double>(n * sizeof(double));
  std::printf("bench_arrays on %s (%s, %d SMs, driver %d): %zu doubles per array (%.2f GiB)\n", info.name.c_str(),
              info.arch.c_str(), info.multiprocessors, info.driver_version, n, bytes / (1u << 30));

  // Inputs: multiples of 1/8, so every f64 sum below is exact in any order.
  std::vector<double> host_x(n), host_y(n);
  long double sum_x = 0, dot_xy = 0, squares = 0;
  for (std::size_t i = 0; i < n; ++i) {
    host_x[i] = x_value(i);
    host_y[i] = y_value(i);
    sum_x += host_x[i];
    dot_xy += static_cast<long double>(host_x[i]) * host_y[i];
    squares += static_cast<long double>(host_x[i]) * host_x[i];
  }
  auto x = rtcg::Array<double>::from_host(backend, host_x);
  auto y = rtcg::Array<double>::from_host(backend, host_y);
  rtcg::Array<double> z(backend, n);
  rtcg::Array<double> result(backend, std::size_t{1});
  std::vector<Row> rows;

  // 1. Copy bandwidth: the reference every rate is compared with.
  rows.push_back({"copy", "cuMemcpyDtoD", time_median(backend, [&] { backend.copy_on_device(z.data(), x.data(), n * 8); }), 2 * bytes});
  rtcg::ElementwiseKernel copy(backend, "const double* x, double* z", "z[i] = x[i]", "copy_f64", {256, 4, 0, true});
  rows.push_back({"copy", "copy kernel", time_median(backend, [&] { copy(x, z); }), 2 * bytes});
#if RTDG_HAVE_CUDA_BASELINES
  const char* device_env = std::getenv("RTDG_CUDA_DEVICE");
  rtdg::bench::baseline_select_device(device_env ? std::atoi(device_env) : 0);
  backend.synchronize();
  rows.push_back({"copy", "cudaMemcpy", rtcg::tune::median(rtdg::bench::cuda_memcpy(z.data(), x.data(), n * 8, kRepeats).times_ms), 2 * bytes});
#endif
  double copy_gbps = 0;
  for (const auto& row : rows) copy_gbps = std::max(copy_gbps, row.gbps());

  // 2. Tuning: axpy-wide is the >= 50-variant space; every job checks each variant's output.
  json tuning = json::array();
  const rtcg::tune::Tuner tuner(backend);
  for (const char* job_name : {"axpy-wide", "sum", "dot", "norm2"}) {
    const auto job = rtcg::make_array_tuning_job(job_name, backend, rtcg::ScalarType::f64, n);
    const auto tuned = tuner.tune(job);
    std::printf("\n%s", rtcg::tune::format_table(tuned).c_str());
    (void)tuned.best();  // throws, listing the reasons, when every variant was dropped
    rtcg::tune::global_tuning_db().store(tuned.record());
    std::size_t dropped = 0;
    for (const auto& v : tuned.variants) dropped += v.ok() ? 0u : 1u;
    tuning.push_back({{"job", job_name},
                      {"variants", tuned.variants.size()},
                      {"dropped", dropped},
                      {"compile_s", tuned.compile_seconds},
                      {"timing_s", tuned.timing_seconds},
                      {"total_s", tuned.compile_seconds + tuned.timing_seconds},
                      {"winner", rtcg::tune::to_string(tuned.best().point)}});
  }
  rtcg::reset_array_plans();  // the operations look the new records up

  // 3. The tuned operations (plans from the database just written: logged as "exact").
  std::printf("\n");
  rows.push_back({"axpy", "rtcg (tuned)", time_median(backend, [&] { rtcg::axpy(0.5, x, y); }), 3 * bytes});
  rows.push_back({"sum", "rtcg (tuned)", time_median(backend, [&] { rtcg::sum_into(x, result); }), bytes});
  rows.push_back({"dot", "rtcg (tuned)", time_median(backend, [&] { rtcg::dot_into(x, y, result); }), 2 * bytes});
  rows.push_back({"norm2", "rtcg (tuned)", time_median(backend, [&] { rtcg::norm2_into(x, result); }), bytes});

  // 4. Results: exact references, and the same bits run after run.
  std::printf("checks:\n");
  y.copy_from_host(host_y);
  rtcg::axpy(0.5, x, y);
  {
    const auto got = y.to_host();
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < n; ++i) wrong += got[i] != 0.5 * host_x[i] + host_y[i] ? 1u : 0u;
    verify(wrong == 0, "axpy matches a*x + y at all " + std::to_string(n) + " elements");
  }
  y.copy_from_host(host_y);
  const double sum = rtcg::sum(x);
  verify(static_cast<long double>(sum) == sum_x, "sum is exact (" + std::to_string(sum) + ")");
  for (int k = 0; k < 5; ++k)
    if (std::bit_cast<std::uint64_t>(rtcg::sum(x)) != std::bit_cast<std::uint64_t>(sum)) verify(false, "sum repeats its bits");
  verify(true, "sum gives the same bits in 6 runs");
  verify(static_cast<long double>(rtcg::dot(x, y)) == dot_xy, "dot is exact");
  const double norm = rtcg::norm2(x);
  verify(norm == std::sqrt(static_cast<double>(squares)), "norm2 is sqrt of the exact sum of squares");

#if RTDG_HAVE_CUDA_BASELINES
  // 5. Vendor baselines on the same arrays (on the default stream: synchronise around them).
  backend.synchronize();
  const auto cub = rtdg::bench::cub_sum(x.data(), n, kRepeats);
  rows.push_back({"sum", "CUB DeviceReduce::Sum", rtcg::tune::median(cub.times_ms), bytes});
  verify(static_cast<long double>(cub.value) == sum_x, "CUB sum is exact");
  const auto thrust = rtdg::bench::thrust_reduce(x.data(), n, kRepeats);
  rows.push_back({"sum", "thrust::reduce", rtcg::tune::median(thrust.times_ms), bytes});
  verify(static_cast<long double>(thrust.value) == sum_x, "thrust::reduce is exact");
  const auto ddot = rtdg::bench::cublas_ddot(x.data(), y.data(), n, kRepeats);
  rows.push_back({"dot", "cublasDdot", rtcg::tune::median(ddot.times_ms), 2 * bytes});
  verify(static_cast<long double>(ddot.value) == dot_xy, "cublasDdot is exact");
  const auto dnrm2 = rtdg::bench::cublas_dnrm2(x.data(), n, kRepeats);
  rows.push_back({"norm2", "cublasDnrm2", rtcg::tune::median(dnrm2.times_ms), bytes});
  verify(std::fabs(dnrm2.value - norm) <= 1e-12 * norm, "cublasDnrm2 agrees within 1e-12");
  const std::string versions = rtdg::bench::baseline_versions();
#else
  const std::string versions = "baselines not built (no CUDA compiler at configure time)";
#endif

  // 6. The table and the verdict.
  std::printf("\n%-6s %-24s %10s %9s %8s\n", "op", "implementation", "median ms", "GB/s", "of copy");
  for (const auto& row : rows)
    std::printf("%-6s %-24s %10.4f %9.1f %7.1f%%\n", row.operation.c_str(), row.implementation.c_str(), row.median_ms,
                row.gbps(), 100 * row.gbps() / copy_gbps);
  auto find = [&](const std::string& op, const std::string& implementation) -> const Row* {
    for (const auto& row : rows)
      if (row.operation == op && row.implementation == implementation) return &row;
    return nullptr;
  };
  json acceptance = json::object();
  bool all_pass = true;
  auto criterion = [&](const std::string& name, bool pass, const std::string& detail) {
    std::printf("  %s %s: %s\n", pass ? "PASS" : "FAIL", name.c_str(), detail.c_str());
    acceptance[name] = {{"pass", pass}, {"detail", detail}};
    all_pass = all_pass && pass;
  };
  std::printf("\nacceptance (copy reference %.1f GB/s):\n", copy_gbps);
  auto fraction = [&](const char* op, double target) {
    const Row* row = find(op, "rtcg (tuned)");
    char detail[128];
    std::snprintf(detail, sizeof detail, "%.1f%% of copy (target %.0f%%)", 100 * row->gbps() / copy_gbps, 100 * target);
    criterion(std::string(op) + " bandwidth", row->gbps() >= target * copy_gbps, detail);
  };
  fraction("axpy", 0.92);
  for (const char* op : {"sum", "dot", "norm2"}) fraction(op, 0.90);
  auto versus = [&](const char* op, const char* baseline) {
    const Row* ours = find(op, "rtcg (tuned)");
    const Row* theirs = find(op, baseline);
    if (!theirs) return criterion(std::string(op) + " vs " + baseline, false, "baseline not measured");
    char detail[128];
    std::snprintf(detail, sizeof detail, "%.4f ms vs %.4f ms", ours->median_ms, theirs->median_ms);
    criterion(std::string(op) + " vs " + baseline, ours->median_ms <= theirs->median_ms, detail);
  };
  versus("sum", "CUB DeviceReduce::Sum");
  versus("sum", "thrust::reduce");
  versus("dot", "cublasDdot");
  versus("norm2", "cublasDnrm2");
  const double axpy_space_seconds = tuning[0]["total_s"].get<double>();
  criterion("axpy-wide tuned in under a minute", axpy_space_seconds < 60,
            std::to_string(tuning[0]["variants"].get<std::size_t>()) + " variants in " + std::to_string(axpy_space_seconds) + " s");
  std::printf("acceptance: %s\n", all_pass ? "PASS" : "FAIL");

  if (!json_path.empty()) {
    json results = json::array();
    for (const auto& row : rows)
      results.push_back({{"operation", row.operation},
                         {"implementation", row.implementation},
                         {"median_ms", row.median_ms},
                         {"bytes", row.bytes},
                         {"gb_per_s", row.gbps()},
                         {"fraction_of_copy", row.gbps() / copy_gbps}});
    const json document = {
        {"benchmark", "arrays"},
        {"date", utc_now()},
        {"commit", git_commit()},
        {"device",
         {{"name", info.name},
          {"arch", info.arch},
          {"multiprocessors", info.multiprocessors},
          {"total_memory", info.total_memory},
          {"memory_clock_khz", info.memory_clock_khz},
          {"driver_version", info.driver_version}}},
        {"baselines", versions},
        {"bytes_per_array", n * sizeof(double)},
        {"copy_reference_gb_per_s", copy_gbps},
        {"results", results},
        {"tuning", tuning},
        {"acceptance", acceptance},
        {"acceptance_pass", all_pass}};
    std::ofstream(json_path) << document.dump(2) << "\n";
    std::printf("wrote %s\n", json_path.c_str());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::string json_path = argc > 1 ? argv[1] : "";
    const std::size_t bytes = argc > 2 ? std::stoull(argv[2]) : std::size_t{1} << 30;
    return run(json_path, bytes);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "bench_arrays: %s\n", error.what());
    return 1;
  }
}
