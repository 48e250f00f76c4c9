// `rtdg demo`: the core end to end until the solver lands. Generates an axpy kernel in the
// portable dialect, compiles it through the cache on the chosen backend, runs it and checks
// the result against a plain loop.
#include "rtdg/command.hpp"

#include <rtcg/backend.hpp>
#include <rtcg/error.hpp>
#include <rtcg/source_writer.hpp>

#include <chrono>
#include <cmath>
#include <iostream>
#include <vector>

namespace {

rtcg::Program axpy_program() {
  rtcg::SourceWriter w;
  w.line("// y <- a*x + y over n doubles");
  {
    auto kernel = w.block("RTCG_KERNEL(axpy)(double* RTCG_RESTRICT y, const double* RTCG_RESTRICT x, double a, long long n)");
    auto loop = w.block("RTCG_GLOBAL_LOOP(i, n)");
    w.line("y[i] = a * x[i] + y[i];");
  }
  rtcg::Program program;
  program.name = "demo_axpy";
  program.source = w.str();
  return program;
}

void run(const std::string& which, long long n) {
  auto& backend = rtcg::backend(which);
  const auto start = std::chrono::steady_clock::now();
  auto module = backend.compile(axpy_program());
  const double compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  auto kernel = module->kernel("axpy");

  const auto count = static_cast<std::size_t>(n);
  std::vector<double> x(count), y(count);
  for (std::size_t i = 0; i < count; ++i) {
    x[i] = std::sin(static_cast<double>(i));
    y[i] = std::cos(static_cast<double>(i));
  }
  const std::size_t bytes = count * sizeof(double);
  void* dx = backend.allocate(bytes);
  void* dy = backend.allocate(bytes);
  backend.copy_to_device(dx, x.data(), bytes);
  backend.copy_to_device(dy, y.data(), bytes);
  const unsigned block = 256;
  const unsigned grid = static_cast<unsigned>(std::min<long long>((n + block - 1) / block, 65535));
  const double a = 0.5;
  const double run_ms = backend.time_ms([&] { (*kernel)(rtcg::LaunchShape{{grid}, {block}}, dy, dx, a, n); });
  std::vector<double> result(count);
  backend.copy_to_host(result.data(), dy, bytes);
  backend.deallocate(dx);
  backend.deallocate(dy);

  double max_error = 0;
  for (std::size_t i = 0; i < count; ++i) max_error = std::max(max_error, std::abs(result[i] - (a * x[i] + y[i])));
  const auto attributes = kernel->attributes();
  std::cout << "demo: axpy on " << n << " doubles, backend " << backend.name() << " ("
            << backend.device_info().name << ")\n"
            << "  compile (through the cache): " << compile_ms << " ms\n"
            << "  run: " << run_ms << " ms, " << 3.0 * static_cast<double>(bytes) / (run_ms * 1e6) << " GB/s\n"
            << "  registers/thread: " << attributes.registers << ", local bytes: " << attributes.local_bytes << "\n"
            << "  max |error| against a plain loop: " << max_error << "\n";
  if (max_error > 0) throw rtcg::Error("demo: the generated kernel's result differs from the plain loop");
  std::cout << "  result matches the plain loop exactly\n";
}

void setup(CLI::App& rtdg) {
  auto* command = rtdg.add_subcommand("demo", "Generate, compile and run a kernel on a backend (checks the result)");
  static std::string which = "auto";
  static long long n = 1 << 22;
  command->add_option("--backend", which, "cuda, host or auto")->capture_default_str();
  command->add_option("-n,--size", n, "Number of elements")->capture_default_str()->check(CLI::Range(1LL, 1LL << 31));
  command->callback([] { run(which, n); });
}

}  // namespace

RTDG_COMMAND(setup);
