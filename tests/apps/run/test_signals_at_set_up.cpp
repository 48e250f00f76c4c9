// SIGINT during the tuning at set-up stops it after the variant being timed and ends the run
// before its first step, writing no snapshot (runner/run.hpp, rtcg/tune_stop.hpp).
#include "run_support.hpp"

#include <gtest/gtest.h>

#include <csignal>
#include <streambuf>
#include <unistd.h>

namespace rtdg::runner {
namespace {

namespace fs = std::filesystem;

void ignore(int) {}

// A log that raises SIGINT in the run's own thread when the run says it starts tuning: the
// signal arrives during the tuning whatever the machine's speed or the compile cache holds.
class SignalOnTuning : public std::streambuf {
public:
  std::string text;

protected:
  int overflow(int c) override {
    if (c != EOF) add(std::string(1, static_cast<char>(c)));
    return c;
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    add(std::string(s, static_cast<std::size_t>(n)));
    return n;
  }

private:
  void add(const std::string& more) {
    text += more;
    if (!raised_ && text.find("tuning the DG kernels") != std::string::npos) {
      raised_ = true;
      ::raise(SIGINT);
    }
  }
  bool raised_ = false;
};

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
  SignalOnTuning buffer;
  std::ostream log(&buffer);
  o.log = &log;
  std::string message = "(no error)";
  try {
    run(o);
  } catch (const std::exception& e) {
    message = e.what();
  }
  sigaction(SIGINT, &old, nullptr);
  ::setenv("RTDG_TUNE", "off", 1);
  ::unsetenv("RTDG_TUNE_BUDGET");
  EXPECT_EQ(message, "interrupted (SIGINT) while setting up the run; nothing was written") << buffer.text;
  // The tuning stopped after the default plan (timed first, so it is the winner): the other
  // variants were not timed.
  EXPECT_NE(buffer.text.find("some variants not timed"), std::string::npos) << buffer.text;
  EXPECT_FALSE(fs::exists(dir / "out" / "snapshots" / "cavity2d_0000.h5"));
}

}  // namespace
}  // namespace rtdg::runner
