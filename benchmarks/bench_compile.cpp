// Cold compile and warm load of a small and a large generated kernel, on every usable
// backend, and the cost of the cache lookup itself.
//
//   cold compile: the compiler alone (no cache), median of several runs
//   warm load:    what a new process pays on a cache hit: key + digest, disk read with checksum,
//                 deserialize, load the module (cuModuleLoadData / dlopen), look up the kernel
//   key:          building the key (source, headers, options) and hashing it
//
// Usage: bench_compile [results.json]
#include <rtcg/backend.hpp>
#include <rtcg/cache.hpp>
#include <rtcg/compiler.hpp>
#include <rtcg/source_writer.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <random>
#include <vector>

namespace {

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

rtcg::Program small_program(const std::string& tag) {
  rtcg::SourceWriter w;
  w.line("// benchmark " + tag);
  {
    auto kernel = w.block("RTCG_KERNEL(axpy)(double* RTCG_RESTRICT y, const double* RTCG_RESTRICT x, double a, long long n)");
    auto loop = w.block("RTCG_GLOBAL_LOOP(i, n)");
    w.line("y[i] = a * x[i] + y[i];");
  }
  rtcg::Program program;
  program.name = "bench_small";
  program.source = w.str();
  return program;
}

// A dense 48x48 operator with its entries baked in, applied per element: the shape of a DG
// volume kernel at order 5 on tetrahedra (Np = 56 would be larger still). ~2300 FMA lines.
rtcg::Program large_program(const std::string& tag) {
  constexpr int n = 48;
  std::mt19937 random(7);
  std::uniform_real_distribution<double> entry(-1.0, 1.0);
  rtcg::SourceWriter w;
  w.line("// benchmark " + tag);
  {
    auto kernel = w.block("RTCG_KERNEL(apply)(double* RTCG_RESTRICT out, const double* RTCG_RESTRICT in, long long K)");
    auto loop = w.block("RTCG_GLOBAL_LOOP(k, K)");
    w.line("const double* u = in + k * " + std::to_string(n) + ";");
    w.line("double* v = out + k * " + std::to_string(n) + ";");
    char buffer[64];
    for (int i = 0; i < n; ++i) {
      w.line("{");
      w.indent();
      w.line("double sum = 0.0;");
      for (int j = 0; j < n; ++j) {
        std::snprintf(buffer, sizeof buffer, "%.17g", entry(random));
        w.line(std::string("sum += ") + buffer + " * u[" + std::to_string(j) + "];");
      }
      w.line("v[" + std::to_string(i) + "] = sum;");
      w.dedent();
      w.line("}");
    }
  }
  rtcg::Program program;
  program.name = "bench_large";
  program.source = w.str();
  return program;
}

nlohmann::json measure(rtcg::Backend& backend, const rtcg::Program& program, const std::string& kernel_name,
                       int cold_runs) {
  const auto& compiler = backend.compiler();
  std::vector<double> cold;
  std::string payload;
  for (int i = 0; i < cold_runs; ++i) {
    const double start = now_ms();
    payload = compiler.compile(program).serialize();
    cold.push_back(now_ms() - start);
  }
  // Publish once so the warm path below finds it on disk.
  const auto key = compiler.cache_key(program);
  rtcg::global_cache().store(key, payload);

  std::vector<double> key_ms, warm_ms, disk_ms;
  for (int i = 0; i < 30; ++i) {
    const double t0 = now_ms();
    const auto fresh_key = compiler.cache_key(program);
    const auto digest = fresh_key.digest();
    const double t1 = now_ms();
    const auto stored = rtcg::global_cache().load(fresh_key);
    const double t2 = now_ms();
    if (!stored) throw rtcg::Error("the entry just stored is missing: is the cache usable? (rtdg cache info)");
    auto module = backend.load(rtcg::Binary::deserialize(*stored));
    auto kernel = module->kernel(kernel_name);
    const double t3 = now_ms();
    key_ms.push_back(t1 - t0);
    disk_ms.push_back(t2 - t1);
    warm_ms.push_back(t3 - t0);
    (void)digest;
  }
  return {{"program", program.name},
          {"source_bytes", program.source.size()},
          {"binary_bytes", payload.size()},
          {"cold_compile_ms_median", median(cold)},
          {"cold_runs", cold_runs},
          {"warm_load_ms_median", median(warm_ms)},
          {"key_ms_median", median(key_ms)},
          {"disk_read_ms_median", median(disk_ms)}};
}

}  // namespace

int main(int argc, char** argv) {
  try {
    // A fresh tag per run so cold compiles are cold for the disk cache too.
    const std::string tag = std::to_string(std::chrono::system_clock::now().time_since_epoch().count());
    nlohmann::json results = nlohmann::json::array();
    std::vector<std::string> backends = {"host"};
    if (rtcg::cuda_available()) backends.insert(backends.begin(), "cuda");
    else std::cout << "no usable CUDA device (" << rtcg::cuda_unavailable_reason() << "); host backend only\n";
    std::printf("%-6s %-12s %10s %10s %14s %12s %10s %10s\n", "backend", "program", "src bytes", "bin bytes",
                "cold compile", "warm load", "key", "disk read");
    for (const auto& which : backends) {
      auto& backend = rtcg::backend(which);
      const bool host = which == "host";
      for (const auto& [program, kernel] :
           {std::pair{small_program(tag), std::string("axpy")}, std::pair{large_program(tag), std::string("apply")}}) {
        auto row = measure(backend, program, kernel, host ? 2 : 5);
        row["backend"] = which;
        row["device"] = backend.device_info().name;
        row["compiler"] = backend.compiler().identity();
        std::printf("%-6s %-12s %10zu %10zu %11.2f ms %9.3f ms %7.3f ms %7.3f ms\n", which.c_str(),
                    program.name.c_str(), row["source_bytes"].get<std::size_t>(), row["binary_bytes"].get<std::size_t>(),
                    row["cold_compile_ms_median"].get<double>(), row["warm_load_ms_median"].get<double>(),
                    row["key_ms_median"].get<double>(), row["disk_read_ms_median"].get<double>());
        results.push_back(row);
      }
    }
    if (argc > 1) std::ofstream(argv[1]) << results.dump(2) << "\n";
  } catch (const std::exception& error) {
    std::cerr << "bench_compile: " << error.what() << "\n";
    return 1;
  }
  return 0;
}
