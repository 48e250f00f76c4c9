// SIGINT during the tuning at set-up stops it after the variant being timed and ends the run
// before its first step, writing no snapshot (runner/run.hpp, rtcg/tune_stop.hpp).
#include "run_support.hpp"

#include <gtest/gtest.h>

#include <csignal>
#include <thread>
#include <unistd.h>

namespace rtdg::runner {
namespace {

namespace fs = std::filesystem;

void ignore(int) {}

TEST(SignalsAtSetUp, SigintDuringTuningStopsTheRunBeforeItsFirstStep) {
  if (!RTDG_TEST_HAVE_GMSH) GTEST_SKIP() << "this rtdg was built without Gmsh (the configs mesh .geo files)";
  const fs::path dir = test::scratch();
  ::setenv("RTDG_TUNE", "force", 1);
  ::setenv("RTDG_TUNING_DB", (dir / "tuning.json").c_str(), 1);
  ::setenv("RTDG_TUNE_BUDGET", "300", 1);
  // A signal that comes before run() installs its handler must not end the test program.
  struct sigaction quiet {}, old {};
  quiet.sa_handler = ignore;
  sigemptyset(&quiet.sa_mask);
  sigaction(SIGINT, &quiet, &old);
  RunOptions o;
  o.config = test::data("maxwell/cavity2d.toml");
  o.overrides = {"run.backend=host", "run.output_dir=\"" + (dir / "out").string() + "\"", "discretization.order=3",
                 "mesh.parameters.h=0.5", "time.final=0.3", "output.vtu=false"};
  std::thread sender([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // set-up is meshed and tuning by then
    ::kill(::getpid(), SIGINT);
  });
  test::Quiet quiet_log;
  std::string message = "(no error)";
  try {
    quiet_log.run(o);
  } catch (const std::exception& e) {
    message = e.what();
  }
  sender.join();
  sigaction(SIGINT, &old, nullptr);
  ::setenv("RTDG_TUNE", "off", 1);
  ::unsetenv("RTDG_TUNE_BUDGET");
  EXPECT_EQ(message, "interrupted (SIGINT) while setting up the run; nothing was written") << quiet_log.log.str();
  EXPECT_FALSE(fs::exists(dir / "out" / "snapshots" / "cavity2d_0000.h5"));
}

}  // namespace
}  // namespace rtdg::runner
