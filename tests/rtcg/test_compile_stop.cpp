// A stop request (rtcg::stop_compiling, set by rtdg's SIGINT/SIGTERM handler while a run is set
// up) ends a compile in progress within a second and caches nothing (rtcg/tune_stop.hpp). No GPU
// needed: NVRTC compiles for sm_90 without one.
#include <rtcg/cache.hpp>
#include <rtcg/compiler.hpp>
#include <rtcg/tune_stop.hpp>

#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("rtdg-test-compile-stop-" + std::to_string(::getpid()) + "-" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// A kernel of `statements` dependent multiply-adds in one block: NVRTC and g++ -O3 take seconds
// over it (their optimisers and register allocators see one long chain).
rtcg::Program slow_program(int statements) {
  rtcg::Program program;
  program.name = "slow";
  std::string source = "RTCG_KERNEL(slow)(double* y, const double* x) {\n  double a = x[0], b = x[1];\n";
  for (int i = 0; i < statements; ++i)
    source += "  a = a * b + " + std::to_string(i) + ".5; b = b * a - x[" + std::to_string(i % 97) + "];\n";
  source += "  y[0] = a + b;\n}\n";
  program.source = source;
  return program;
}

// As rtdg run's handler does at set-up: a signal asks the compile in progress to stop.
void request_stop(int) { rtcg::stop_compiling().store(true); }

class StopOnSigterm {
public:
  StopOnSigterm() {
    rtcg::stop_compiling().store(false);
    struct sigaction action {};
    action.sa_handler = request_stop;
    sigemptyset(&action.sa_mask);
    sigaction(SIGTERM, &action, &old_);
  }
  ~StopOnSigterm() {
    sigaction(SIGTERM, &old_, nullptr);
    rtcg::stop_compiling().store(false);
  }
  StopOnSigterm(const StopOnSigterm&) = delete;
  StopOnSigterm& operator=(const StopOnSigterm&) = delete;

private:
  struct sigaction old_ {};
};

std::size_t files_under(const fs::path& dir, const std::string& extension) {
  std::size_t count = 0;
  for (const auto& entry : fs::recursive_directory_iterator(dir))
    if (entry.is_regular_file() && entry.path().extension() == extension) ++count;
  return count;
}

TEST(CompileStop, SigtermEndsAnNvrtcCompileWithinASecondAndCachesNothing) {
  const fs::path dir = scratch("nvrtc");
  rtcg::DiskCache cache(rtcg::CacheConfig{dir / "cache"});
  const auto compiler = rtcg::make_nvrtc_compiler("sm_90");
  // Seconds of NVRTC work, so that the signal 100 ms in comes while it compiles.
  const rtcg::Program program = slow_program(6000);
  StopOnSigterm handler;
  Clock::time_point signalled;
  std::thread signaller([&signalled] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    signalled = Clock::now();
    ::kill(::getpid(), SIGTERM);
  });
  std::string message = "(the compile ran to its end)";
  // As rtcg::Backend::compile does: the cache stores what the compile returns.
  try {
    cache.get_or_compute(compiler->cache_key(program), program.name, [&] { return compiler->compile(program).serialize(); });
  } catch (const rtcg::Interrupted& e) {
    message = e.what();
  }
  const Clock::time_point returned = Clock::now();
  signaller.join();
  const double latency = std::chrono::duration<double>(returned - signalled).count();
  EXPECT_EQ(message, "the compile (NVRTC, `slow`) was stopped on request (a signal): nothing was cached");
  EXPECT_LT(latency, 1.0) << "the compile returned " << latency << " s after SIGTERM";
  // The abandoned compile ends at NVRTC's next check of its flow callback and writes nothing.
  const auto waiting = Clock::now();
  while (rtcg::abandoned_compiles_running() > 0 && seconds_since(waiting) < 120)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(rtcg::abandoned_compiles_running(), 0);
  std::printf("stopped %.3f s after SIGTERM; the abandoned compile ended %.2f s later\n", latency, seconds_since(waiting));
  EXPECT_EQ(cache.stats().entries, 0u);
  EXPECT_EQ(files_under(dir / "cache", ".bin"), 0u);
  fs::remove_all(dir);
}

// Unasked, the compile on its own thread gives the same binary as ever.
TEST(CompileStop, AnNvrtcCompileWithoutAStopRequestRunsToItsEnd) {
  StopOnSigterm handler;
  const auto binary = rtcg::make_nvrtc_compiler("sm_90")->compile(slow_program(20));
  EXPECT_EQ(binary.backend, "cuda");
  EXPECT_GT(binary.image.size(), 1000u);
  EXPECT_EQ(binary.image.compare(0, 4, "\x7f" "ELF"), 0);
  EXPECT_EQ(rtcg::abandoned_compiles_running(), 0);
}

}  // namespace
