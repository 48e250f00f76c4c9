// A stop request (rtcg::stop_compiling, set by rtdg's SIGINT/SIGTERM handler while a run is set
// up) ends a compile in progress within a second and caches nothing (rtcg/tune_stop.hpp). No GPU
// needed: NVRTC compiles for sm_90 without one.
#include <rtcg/cache.hpp>
#include <rtcg/compiler.hpp>
#include <rtcg/tune_stop.hpp>

#include <gtest/gtest.h>

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

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

// The pids of processes whose command line names `text` (a compile's scratch folder: the
// compiler driver and cc1plus are given paths in it).
std::vector<long> processes_naming(const std::string& text) {
  std::vector<long> pids;
  std::error_code error;
  for (fs::directory_iterator it("/proc", error), end; !error && it != end; it.increment(error)) {
    const std::string name = it->path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(it->path() / "cmdline", std::ios::binary);
    std::stringstream content;
    content << in.rdbuf();
    if (content.str().find(text) != std::string::npos) pids.push_back(std::stol(name));
  }
  return pids;
}

// Field 22 of /proc/self/stat: when this process started, as rtcg's markers record it.
std::string own_start_ticks() {
  std::ifstream in("/proc/self/stat");
  std::string stat;
  std::getline(in, stat);
  std::istringstream fields(stat.substr(stat.rfind(')') + 1));
  std::vector<std::string> rest;
  for (std::string field; fields >> field;) rest.push_back(field);
  return rest.at(19);
}

std::vector<fs::path> scratch_folders(const fs::path& tmp) {
  std::vector<fs::path> folders;
  for (const auto& entry : fs::directory_iterator(tmp))
    if (entry.path().filename().string().starts_with("rtcg-host-") && entry.is_directory() && !entry.is_symlink())
      folders.push_back(entry.path());
  return folders;
}

// A folder that looks like a scratch folder of process `pid` (rtcg's naming and marker).
void make_lookalike(const fs::path& folder, const std::string& marker_of) {
  fs::create_directories(folder);
  fs::permissions(folder, fs::perms::owner_all, fs::perm_options::replace);
  std::ofstream(folder / ".rtcg-scratch") << marker_of;
  std::ofstream(folder / "user.txt") << "not rtdg's to delete\n";
}

// A process started in this test that compiles a slow program with the host compiler.
pid_t start_host_compile(int statements) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    try {
      rtcg::make_host_compiler()->compile(slow_program(statements));
    } catch (...) {
      ::_exit(2);
    }
    ::_exit(0);
  }
  return pid;
}

// Run by the test below as a new process: making a host compiler removes the scratch folders of
// processes that have ended (once per process, hence not in a fork of a process that made one).
TEST(CompileStopHelper, MakesAHostCompiler) {
  if (!std::getenv("RTDG_TEST_MAKE_HOST_COMPILER")) GTEST_SKIP() << "run by CompileStop.AHostCompilerDiesWith... only";
  rtcg::make_host_compiler();
}

TEST(CompileStop, SigtermEndsAHostCompileWithinASecondAndLeavesNoScratch) {
  const fs::path tmp = scratch("host-stop");
  const char* old_tmpdir = std::getenv("TMPDIR");
  const std::string saved_tmpdir = old_tmpdir ? old_tmpdir : "";
  ::setenv("TMPDIR", tmp.c_str(), 1);
  const auto compiler = rtcg::make_host_compiler();
  StopOnSigterm handler;
  std::string message = "(the compile ran to its end)";
  Clock::time_point signalled;
  std::thread signaller([&] {
    // Once the compiler works in its scratch folder.
    const auto start = Clock::now();
    while (seconds_since(start) < 60) {
      const auto folders = scratch_folders(tmp);
      if (folders.size() == 1 && !processes_naming(folders[0].string()).empty()) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    signalled = Clock::now();
    ::kill(::getpid(), SIGTERM);
  });
  try {
    compiler->compile(slow_program(4000));
  } catch (const rtcg::Interrupted& e) {
    message = e.what();
  }
  const Clock::time_point returned = Clock::now();
  signaller.join();
  const double latency = std::chrono::duration<double>(returned - signalled).count();
  EXPECT_EQ(message.substr(0, 14), "the compile (`") << message;
  EXPECT_NE(message.find("was stopped on request (a signal): nothing was cached"), std::string::npos) << message;
  EXPECT_LT(latency, 1.0);
  EXPECT_TRUE(scratch_folders(tmp).empty());
  EXPECT_TRUE(processes_naming(tmp.string()).empty());
  if (saved_tmpdir.empty()) ::unsetenv("TMPDIR");
  else ::setenv("TMPDIR", saved_tmpdir.c_str(), 1);
  fs::remove_all(tmp);
}

// A compiler that cannot be started is an error that says so.
TEST(CompileStop, AHostCompilerThatDoesNotExistIsAClearError) {
  const char* old_cxx = std::getenv("CXX");
  const std::string saved_cxx = old_cxx ? old_cxx : "";
  ::setenv("CXX", "rtdg-no-such-compiler", 1);
  std::string message;
  try {
    rtcg::make_host_compiler();
  } catch (const std::exception& e) {
    message = e.what();
  }
  if (saved_cxx.empty()) ::unsetenv("CXX");
  else ::setenv("CXX", saved_cxx.c_str(), 1);
  EXPECT_EQ(message, "the host compiler `rtdg-no-such-compiler` does not run (could not start `rtdg-no-such-compiler`: No "
                     "such file or directory); set CXX to a working C++ compiler");
}

TEST(CompileStop, AHostCompilerDiesWithItsKilledProcessAndTheNextOneRemovesItsScratch) {
  const fs::path tmp = scratch("host");
  const char* old_tmpdir = std::getenv("TMPDIR");
  const std::string saved_tmpdir = old_tmpdir ? old_tmpdir : "";
  ::setenv("TMPDIR", tmp.c_str(), 1);
  const pid_t helper = start_host_compile(4000);
  ASSERT_GT(helper, 0);
  // Until the compiler works in the helper's scratch folder.
  fs::path folder;
  std::vector<long> compiling;
  const auto start = Clock::now();
  while (compiling.empty() && seconds_since(start) < 60) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const auto folders = scratch_folders(tmp);
    if (folders.size() == 1) {
      folder = folders[0];
      compiling = processes_naming(folder.string());
    }
  }
  ASSERT_FALSE(compiling.empty()) << "no compiler started in " << tmp;
  // The folder's marker as rtcg writes it, before the helper goes.
  std::ifstream marker_in(folder / ".rtcg-scratch");
  std::stringstream marker;
  marker << marker_in.rdbuf();
  ::kill(helper, SIGKILL);
  int status = 0;
  ::waitpid(helper, &status, 0);
  const auto killed = Clock::now();
  while (!processes_naming(folder.string()).empty() && seconds_since(killed) < 5)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  const double gone_after = seconds_since(killed);
  EXPECT_TRUE(processes_naming(folder.string()).empty()) << "the compiler outlived its killed process by 5 s";
  EXPECT_LT(gone_after, 2.0);
  std::printf("the compiler ended %.3f s after its process was killed\n", gone_after);
  ASSERT_TRUE(fs::is_directory(folder)) << "nothing should have removed " << folder << " yet";

  // What the next host compiler must leave alone: a folder of a live process (this one), one
  // named otherwise with the dead helper's marker, a symbolic link named like a scratch folder
  // to a folder with that marker, and a user's folder; and a look-alike with a foreign marker.
  const std::string helper_marker = marker.str();
  ASSERT_NE(helper_marker.find("pid " + std::to_string(helper) + "\n"), std::string::npos) << helper_marker;
  const fs::path live = tmp / ("rtcg-host-" + std::to_string(::getpid()) + "-Live00");
  make_lookalike(live, "rtcg host compile scratch folder\npid " + std::to_string(::getpid()) + "\nstarted " +
                           own_start_ticks() + helper_marker.substr(helper_marker.find("\nnamespace")));
  const fs::path other_name = tmp / ("rtcg-host-" + std::to_string(helper) + "-longer-name");
  make_lookalike(other_name, helper_marker);
  const fs::path target = tmp / "target";
  make_lookalike(target, helper_marker);
  const fs::path link = tmp / ("rtcg-host-" + std::to_string(helper) + "-Link00");
  fs::create_directory_symlink(target, link);
  const fs::path foreign = tmp / ("rtcg-host-" + std::to_string(helper) + "-Fore00");
  make_lookalike(foreign, "a file of someone else's\n");
  const fs::path user = tmp / "mine";
  fs::create_directories(user);
  std::ofstream(user / "notes.txt") << "mine\n";

  // The next start: a new process (this test program again) that makes a host compiler.
  const pid_t next = ::fork();
  if (next == 0) {
    ::setenv("RTDG_TEST_MAKE_HOST_COMPILER", "1", 1);
    ::execl("/proc/self/exe", "test_compile_stop", "--gtest_filter=CompileStopHelper.MakesAHostCompiler", nullptr);
    ::_exit(127);
  }
  ASSERT_GT(next, 0);
  ::waitpid(next, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_FALSE(fs::exists(folder)) << folder << " (of a process that was killed) is still there";
  for (const fs::path& kept : {live, other_name, target, foreign})
    EXPECT_TRUE(fs::exists(kept / "user.txt")) << kept << " was not rtdg's to delete";
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_TRUE(fs::exists(user / "notes.txt"));

  if (saved_tmpdir.empty()) ::unsetenv("TMPDIR");
  else ::setenv("TMPDIR", saved_tmpdir.c_str(), 1);
  fs::remove_all(tmp);
}

}  // namespace
