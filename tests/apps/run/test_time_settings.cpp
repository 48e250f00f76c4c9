// Absurd time settings stop before the first step, with the value and where it came from
// (docs/running.md, "Time step"): a Courant number past the stability limit (unless
// time.allow_unstable), a wave speed that is not positive and finite or that gives a step
// outside [1e-12 x time.final, time.final], and more steps or snapshots than the bounds.
#include "run_support.hpp"

#include <rtcg/backend.hpp>

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

namespace rtdg::runner {
namespace {

namespace fs = std::filesystem;
using test::Quiet;

class TimeSettings : public ::testing::Test {
protected:
  void SetUp() override {
    if (!RTDG_TEST_HAVE_GMSH) GTEST_SKIP() << "this rtdg was built without Gmsh (the configs mesh .geo files)";
    ::setenv("RTDG_TUNE", "off", 1);
  }
  // The error of the small 2D cavity with `extra` overrides ("(no error)" when it runs).
  std::string error_of(std::vector<std::string> extra, const fs::path& law = {}) {
    const fs::path dir = test::scratch() / ("run" + std::to_string(count_++));
    RunOptions o;
    o.config = test::data("maxwell/cavity2d.toml");
    o.overrides = {"run.backend=host", "run.output_dir=\"" + dir.string() + "\"", "discretization.order=2",
                   "mesh.parameters.h=0.5", "time.final=0.3", "output.vtu=false"};
    if (!law.empty()) o.overrides.push_back("law.file=\"" + law.string() + "\"");
    o.overrides.insert(o.overrides.end(), extra.begin(), extra.end());
    o.stop_after_steps = 1;
    Quiet quiet;
    try {
      quiet.run(o);
    } catch (const std::exception& e) {
      return e.what();
    }
    return "(no error)";
  }
  // maxwell2d_tm.toml with its max_wave_speed replaced by `speed` (an expression).
  fs::path law_with_speed(const std::string& speed) {
    std::ifstream in(test::data("laws/maxwell2d_tm.toml"));
    std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    const auto at = text.find("max_wave_speed");
    EXPECT_NE(at, std::string::npos);
    const auto end = text.find('\n', at);
    text.replace(at, end - at, "max_wave_speed = \"" + speed + "\"");
    const fs::path file = test::scratch().parent_path() / ("rtdg-law-speed-" + std::to_string(count_++) + ".toml");
    std::ofstream(file) << text;
    return file;
  }
  int count_ = 0;
};

TEST_F(TimeSettings, ACourantNumberPastTheLimitStopsUnlessAllowed) {
  const std::string e = error_of({"time.cfl=1e6"});
  EXPECT_EQ(e.rfind("time.cfl = 1e+06 is above 1.5, where lserk4 goes unstable at some orders", 0), 0u) << e;
  EXPECT_NE(e.find("or set time.allow_unstable = true to run it anyway"), std::string::npos) << e;
  EXPECT_EQ(error_of({"time.cfl=3", "time.allow_unstable=true"}), "(no error)");
}

TEST_F(TimeSettings, AWaveSpeedThatIsNotPositiveStopsNamingTheLaw) {
  const fs::path law = law_with_speed("0");
  const std::string e = error_of({}, law);
  EXPECT_NE(e.find("the largest wave speed of the initial state is 0, from the law's max_wave_speed (" + law.string() + ")"),
            std::string::npos)
      << e;
}

TEST_F(TimeSettings, AWaveSpeedThatGivesAHugeStepStops) {
  const fs::path law = law_with_speed("1e-300");
  const std::string e = error_of({}, law);
  EXPECT_NE(e.find("above time.final = 0.3, because the largest wave speed is 1e-300, from the law's max_wave_speed (" +
                   law.string() + ")"),
            std::string::npos)
      << e;
}

TEST_F(TimeSettings, ATinyFixedStepStops) {
  const std::string e = error_of({"time={ final = 0.3, dt = 1e-300 }"});
  EXPECT_EQ(e, "time.dt = 1e-300 is below 1e-12 of time.final = 0.3: the run would not end; give a larger time.dt, or "
               "time.cfl instead");
}

TEST_F(TimeSettings, TooManyStepsOrSnapshotsAskForTheBoundToBeRaised) {
  std::string e = error_of({"time.max_steps=5"});
  EXPECT_NE(e.find("more than time.max_steps = 5; set time.max_steps higher if you mean it"), std::string::npos) << e;
  e = error_of({"output.interval=1e-300"});
  EXPECT_NE(e.find("output.interval = 1e-300 would write"), std::string::npos) << e;
  EXPECT_NE(e.find("more than output.max_snapshots = 100000"), std::string::npos) << e;
  EXPECT_EQ(error_of({"output.interval=0.001", "output.max_snapshots=1000"}), "(no error)");
}

}  // namespace
}  // namespace rtdg::runner

namespace rtdg::runner {
namespace {

// Messages of `rtdg run` that say what to do in its own terms (issue: nothing lost, item 10).
class RunMessages : public ::testing::Test {
protected:
  void SetUp() override {
    if (!RTDG_TEST_HAVE_GMSH) GTEST_SKIP() << "this rtdg was built without Gmsh (the configs mesh .geo files)";
    ::setenv("RTDG_TUNE", "off", 1);
  }
  RunOptions cavity(const fs::path& dir) {
    RunOptions o;
    o.config = test::data("maxwell/cavity2d.toml");
    o.overrides = {"run.backend=host", "run.output_dir=\"" + dir.string() + "\"", "discretization.order=2",
                   "mesh.parameters.h=0.5", "time.final=0.3", "output.interval=0.1", "checkpoint.interval=0.1",
                   "output.vtu=false"};
    return o;
  }
};

TEST_F(RunMessages, NoGpuSaysHowARunPicksTheHostBackend) {
  if (rtcg::cuda_available()) GTEST_SKIP() << "a CUDA device is usable here";
  RunOptions o = cavity(test::scratch());
  o.overrides.push_back("run.backend=\"cuda\"");
  Quiet quiet;
  try {
    quiet.run(o);
    FAIL() << "expected an error";
  } catch (const std::exception& e) {
    const std::string text = e.what();
    EXPECT_NE(text.find("set run.backend = \"host\" (or \"auto\") in the config, or pass --set run.backend=host"),
              std::string::npos)
        << text;
    EXPECT_EQ(text.find("--backend host"), std::string::npos) << text;
  }
}

// A checkpoint that cannot be written (here a folder is in its place; a full disk the same)
// stops the run naming the last good checkpoint.
TEST_F(RunMessages, AFailedCheckpointWriteNamesTheLastGoodOne) {
  const fs::path dir = test::scratch();
  RunOptions first = cavity(dir);
  first.stop_after_steps = 3;
  Quiet quiet;
  const RunSummary stopped = quiet.run(first);
  char name[64];
  // The step of the checkpoint after the stop, from an uninterrupted run.
  const fs::path reference = dir.parent_path() / (dir.filename().string() + "-reference");
  fs::remove_all(reference);
  const RunSummary full = quiet.run([&] {
    RunOptions o = cavity(reference);
    o.overrides.push_back("checkpoint.keep=100");
    return o;
  }());
  long long next = -1;
  for (const auto& entry : fs::directory_iterator(full.last_checkpoint.parent_path())) {
    const long long step = std::stoll(entry.path().stem().string().substr(11));
    if (step > stopped.final_step && (next < 0 || step < next)) next = step;
  }
  ASSERT_GT(next, 0);
  std::snprintf(name, sizeof name, "checkpoint_%09lld.h5", next);
  fs::create_directories(dir / "checkpoints" / name / "in-the-way");
  RunOptions resume;
  resume.restart = stopped.last_checkpoint;
  try {
    quiet.run(resume);
    FAIL() << "expected an error";
  } catch (const RunFailure& e) {
    const std::string text = e.what();
    EXPECT_NE(text.find("; the last good checkpoint is " + stopped.last_checkpoint.string() +
                        " (continue from it once the problem is fixed)"),
              std::string::npos)
        << text;
  } catch (const std::exception& e) {
    // The folder in the way may be found before the first step (it is not rtdg's).
    EXPECT_NE(std::string(e.what()).find((dir / "checkpoints" / name).string()), std::string::npos) << e.what();
  }
  EXPECT_TRUE(fs::exists(stopped.last_checkpoint));
}

}  // namespace
}  // namespace rtdg::runner
