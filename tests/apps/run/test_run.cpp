// `rtdg run` end to end on the host backend (runner/run.hpp).
#include "run_support.hpp"
#include "cylinder_series.hpp"

#include <dg/plan.hpp>
#include <output/hdf5_solution.hpp>
#include <rtcg/tuning_db.hpp>

#include <gtest/gtest.h>
#include <hdf5.h>

#include <cmath>
#include <complex>
#include <cstdlib>
#include <chrono>
#include <cstring>
#include <regex>
#include <sys/wait.h>
#include <type_traits>
#include <fstream>
#include <numbers>
#include <optional>
#include <sstream>

namespace rtdg::runner {
namespace {

namespace fs = std::filesystem;
using test::Quiet;

// The 2D cavity, small and short: order 2 on the coarse square, outputs and checkpoints
// every 0.1.
std::vector<std::string> small_cavity(const fs::path& dir) {
  return {"run.backend=host", "run.output_dir=\"" + dir.string() + "\"", "discretization.order=2", "mesh.parameters.h=0.5",
          "time.final=0.3", "output.interval=0.1", "checkpoint.interval=0.1", "checkpoint.keep=5",
          "output.vtu=false"};
}

// The cavity configs mesh square.geo with Gmsh; builds without Gmsh skip these tests.
class Run : public ::testing::Test {
protected:
  void SetUp() override {
    if (!RTDG_TEST_HAVE_GMSH) GTEST_SKIP() << "this rtdg was built without Gmsh (the configs mesh .geo files)";
    // Runs use the default plan unless a test asks for tuning (it sets RTDG_TUNE itself).
    ::setenv("RTDG_TUNE", "off", 1);
  }
};

RunOptions cavity_options(const fs::path& dir) {
  RunOptions options;
  options.config = test::data("maxwell/cavity2d.toml");
  options.overrides = small_cavity(dir);
  return options;
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

TEST_F(Run, CavityReachesTheFinalTimeWithASmallError) {
  const fs::path dir = test::scratch();
  Quiet quiet;
  const RunSummary summary = quiet.run(cavity_options(dir));
  EXPECT_FALSE(summary.interrupted);
  EXPECT_EQ(summary.time, 0.3);  // the last step lands exactly on the final time
  ASSERT_TRUE(summary.error.has_value());
  EXPECT_LT(*summary.error, 0.03);  // order 2 on h = 0.5: 0.012
  EXPECT_TRUE(fs::exists(dir / "config.toml"));
  EXPECT_TRUE(fs::exists(dir / "summary.json"));
  for (int i = 0; i <= 3; ++i) {
    char name[64];
    std::snprintf(name, sizeof name, "cavity2d_%04d.h5", i);
    const output::Solution sol = output::read_solution(dir / "snapshots" / name);
    EXPECT_NEAR(sol.time, 0.1 * i, 1e-12) << name;  // snapshots land on the output times
  }
  const output::Solution last = output::read_solution(summary.last_checkpoint);
  EXPECT_EQ(last.time, 0.3);
  EXPECT_EQ(last.step, summary.final_step);
  EXPECT_NE(last.effective_config.find("[discretization]"), std::string::npos);
}

TEST_F(Run, RestartReproducesTheUninterruptedRunBitForBit) {
  const fs::path straight = test::scratch() / "straight";
  const fs::path broken = straight.parent_path() / "broken";
  Quiet quiet;
  const RunSummary full = quiet.run(cavity_options(straight));

  RunOptions first = cavity_options(broken);
  first.stop_after_steps = 17;  // stops between checkpoints, as a signal would
  const RunSummary stopped = quiet.run(first);
  ASSERT_TRUE(stopped.interrupted);
  EXPECT_EQ(stopped.final_step, 17);

  RunOptions resume;
  resume.restart = stopped.last_checkpoint;
  const RunSummary resumed = quiet.run(resume);
  EXPECT_FALSE(resumed.interrupted);
  EXPECT_EQ(resumed.final_step, full.final_step);
  EXPECT_EQ(resumed.time, full.time);

  const output::Solution a = output::read_solution(full.last_checkpoint);
  const output::Solution b = output::read_solution(resumed.last_checkpoint);
  EXPECT_TRUE(same_bits(a.values, b.values)) << "restarted run differs from the uninterrupted one";
  // The snapshot written after the restart matches too.
  const output::Solution sa = output::read_solution(straight / "snapshots" / "cavity2d_0003.h5");
  const output::Solution sb = output::read_solution(broken / "snapshots" / "cavity2d_0003.h5");
  EXPECT_TRUE(same_bits(sa.values, sb.values));
}

// Sets environment variables for one scope, restoring what was there.
class EnvironmentGuard {
public:
  void set(const char* name, const std::string& value) {
    const char* old = std::getenv(name);
    saved_.push_back({name, old ? std::optional<std::string>(old) : std::nullopt});
    ::setenv(name, value.c_str(), 1);
  }
  ~EnvironmentGuard() {
    for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
      if (it->second) ::setenv(it->first.c_str(), it->second->c_str(), 1);
      else ::unsetenv(it->first.c_str());
    }
  }

private:
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

// Runs tune at set-up whatever the database holds (force: the process-wide database may have
// been opened by an earlier test of this process, so its file is not necessarily this test's).
void force_tuning(EnvironmentGuard& environment, const fs::path& root) {
  environment.set("RTDG_TUNE", "force");
  environment.set("RTDG_TUNING_DB", (root / "tuning.json").string());
  environment.set("RTDG_TUNE_BUDGET", "300");
}

// RTDG_TUNE=auto: the first run tunes its kernels and stores the winner, the next one reuses
// it, and a restart keeps the checkpoint's plan (bit for bit) even when tuning is off.
TEST_F(Run, TunedPlanIsStoredReusedAndKeptOnRestart) {
  const fs::path root = test::scratch();
  EnvironmentGuard environment;
  force_tuning(environment, root);
  Quiet quiet;
  const RunSummary tuned = quiet.run(cavity_options(root / "first"));
  EXPECT_EQ(tuned.plan_source.rfind("tuned now: ", 0), 0u) << tuned.plan_source;
  EXPECT_TRUE(fs::exists(rtcg::tune::global_tuning_db().path()));

  environment.set("RTDG_TUNE", "auto");
  const RunSummary reused = quiet.run(cavity_options(root / "second"));
  EXPECT_EQ(reused.plan_source.rfind("tuning database (exact", 0), 0u) << reused.plan_source;
  EXPECT_EQ(reused.plan, tuned.plan);
  const output::Solution a = output::read_solution(tuned.last_checkpoint);
  const output::Solution b = output::read_solution(reused.last_checkpoint);
  EXPECT_TRUE(same_bits(a.values, b.values));
  EXPECT_EQ(dg::plan_from_text(a.plan).describe(), tuned.plan);

  RunOptions first = cavity_options(root / "broken");
  first.stop_after_steps = 11;
  const RunSummary stopped = quiet.run(first);
  ASSERT_TRUE(stopped.interrupted);
  environment.set("RTDG_TUNE", "off");  // the checkpoint's plan wins over the default too
  RunOptions resume;
  resume.restart = stopped.last_checkpoint;
  const RunSummary resumed = quiet.run(resume);
  EXPECT_EQ(resumed.plan_source, "the checkpoint's");
  EXPECT_EQ(resumed.plan, tuned.plan);
  const output::Solution c = output::read_solution(resumed.last_checkpoint);
  EXPECT_TRUE(same_bits(a.values, c.values)) << "the restarted run differs from the uninterrupted one";
}

// A zero initial state is zero even when the kernels were tuned at set-up (the tuner steps the
// solver from a state of its own): a PEC cavity started at zero stays zero.
TEST_F(Run, ZeroInitialStateSurvivesTuningAtSetUp) {
  const fs::path root = test::scratch();
  EnvironmentGuard environment;
  force_tuning(environment, root);
  Quiet quiet;
  RunOptions options = cavity_options(root / "zero");
  options.overrides.push_back("initial.condition=\"zero\"");
  options.overrides.push_back("output.error=false");
  const RunSummary summary = quiet.run(options);
  EXPECT_EQ(summary.plan_source.rfind("tuned now: ", 0), 0u) << summary.plan_source;
  for (const char* name : {"cavity2d_0000.h5", "cavity2d_0003.h5"}) {
    const output::Solution s = output::read_solution(root / "zero" / "snapshots" / name);
    double largest = 0;
    for (const double v : s.values) largest = std::max(largest, std::abs(v));
    EXPECT_EQ(largest, 0.0) << name;
  }
}

TEST_F(Run, SummaryNamesTheDefaultPlanWhenTuningIsOff) {
  const fs::path dir = test::scratch();
  Quiet quiet;
  const RunSummary summary = quiet.run(cavity_options(dir));  // SetUp sets RTDG_TUNE=off
  EXPECT_EQ(summary.plan, dg::Plan{}.describe());
  EXPECT_EQ(summary.plan_source, "default (RTDG_TUNE=off)");
  EXPECT_NE(format_summary(summary).find("kernel plan: unfused, field_major"), std::string::npos) << format_summary(summary);
  std::ifstream json(dir / "summary.json");
  std::stringstream text;
  text << json.rdbuf();
  EXPECT_NE(text.str().find("\"plan_source\": \"default (RTDG_TUNE=off)\""), std::string::npos) << text.str();
}

// Set-up, start-up (launch to the first step) and peak host memory: in the summary and in
// summary.json, positive, start-up at least the set-up (it holds it), memory at least the
// process's size now.
TEST_F(Run, SummaryGivesSetUpStartUpAndPeakMemory) {
  const fs::path dir = test::scratch();
  Quiet quiet;
  const auto before = std::chrono::steady_clock::now();
  const RunSummary summary = quiet.run(cavity_options(dir));
  const double run_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - before).count();
  EXPECT_GT(summary.setup_seconds, 0.0);
  EXPECT_LT(summary.setup_seconds, run_seconds);
  EXPECT_GE(summary.startup_seconds, summary.setup_seconds);
  EXPECT_GT(summary.peak_memory_bytes, 1LL << 20);
  EXPECT_LT(summary.peak_memory_bytes, 1LL << 36);
  std::ifstream json(dir / "summary.json");
  std::stringstream text;
  text << json.rdbuf();
  for (const std::string key : {"setup_seconds", "startup_seconds", "peak_memory_bytes"})
    EXPECT_NE(text.str().find("\"" + key + "\": "), std::string::npos) << key << " missing in " << text.str();
  EXPECT_NE(format_summary(summary).find(" s from launch to the first step), peak host memory "), std::string::npos)
      << format_summary(summary);
}

TEST_F(Run, FloatRunRestartsBitForBit) {
  const fs::path straight = test::scratch() / "straight";
  const fs::path broken = straight.parent_path() / "broken";
  Quiet quiet;
  RunOptions options = cavity_options(straight);
  options.overrides.push_back("run.precision=float");
  const RunSummary full = quiet.run(options);
  RunOptions first = cavity_options(broken);
  first.overrides.push_back("run.precision=float");
  first.stop_after_steps = 9;
  const RunSummary stopped = quiet.run(first);
  RunOptions resume;
  resume.restart = stopped.last_checkpoint;
  const RunSummary resumed = quiet.run(resume);
  EXPECT_TRUE(same_bits(output::read_solution(full.last_checkpoint).values,
                        output::read_solution(resumed.last_checkpoint).values));
}

// Deletes the root attribute node_set: the checkpoint then looks like one of an rtdg from
// before issue 14.
void remove_node_set(const fs::path& file) {
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  ASSERT_GE(f, 0) << file;
  EXPECT_GE(H5Adelete(f, "node_set"), 0) << file;
  H5Fclose(f);
}

std::string restart_error(const fs::path& checkpoint) {
  RunOptions resume;
  resume.restart = checkpoint;
  Quiet quiet;
  try {
    quiet.run(resume);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no error)";
}

// Issue 14: before the fix rtdg's triangle nodes of order 6 were not the book's. A checkpoint
// of that era (no node_set attribute) must be refused, this rtdg's own order-6 checkpoint
// continued.
TEST_F(Run, RestartRefusesAnOrderSixTriangleCheckpointOfTheOldNodes) {
  const fs::path dir = test::scratch();
  RunOptions first = cavity_options(dir);
  first.overrides.push_back("discretization.order=6");
  first.stop_after_steps = 2;
  Quiet quiet;
  const RunSummary stopped = quiet.run(first);
  ASSERT_TRUE(stopped.interrupted);
  EXPECT_EQ(output::read_node_set(stopped.last_checkpoint), "warp_blend_v2");

  const fs::path old = dir / "checkpoints" / "old.h5";
  fs::copy_file(stopped.last_checkpoint, old);
  remove_node_set(old);
  const std::string e = restart_error(old);
  EXPECT_EQ(e.rfind(old.string() + ": cannot restart from this checkpoint: its values sit at the triangle nodes of "
                                   "order 6 of rtdg before issue 14",
                    0),
            0u)
      << e;
  EXPECT_NE(e.find("rtdg run <output folder>/config.toml --overwrite"), std::string::npos) << e;
  fs::remove(old);

  RunOptions resume;
  resume.restart = stopped.last_checkpoint;
  const RunSummary resumed = quiet.run(resume);
  EXPECT_FALSE(resumed.interrupted);
  EXPECT_EQ(resumed.time, 0.3);
}

TEST_F(Run, CheckpointsWithoutANodeSetOfOtherOrdersStillRestart) {
  const fs::path dir = test::scratch();
  RunOptions first = cavity_options(dir);
  first.stop_after_steps = 3;
  Quiet quiet;
  const RunSummary stopped = quiet.run(first);
  ASSERT_TRUE(stopped.interrupted);
  remove_node_set(stopped.last_checkpoint);
  EXPECT_EQ(output::read_node_set(stopped.last_checkpoint), "warp_blend_v1");
  RunOptions resume;
  resume.restart = stopped.last_checkpoint;
  const RunSummary resumed = quiet.run(resume);
  EXPECT_FALSE(resumed.interrupted);
  EXPECT_EQ(resumed.time, 0.3);
}

// Whatever its attributes say, a checkpoint whose node coordinates are not the run's is refused.
TEST_F(Run, RestartRefusesACheckpointWhoseNodesAreElsewhere) {
  const fs::path dir = test::scratch();
  RunOptions first = cavity_options(dir);
  first.stop_after_steps = 3;
  Quiet quiet;
  const RunSummary stopped = quiet.run(first);
  ASSERT_TRUE(stopped.interrupted);
  output::Solution moved = output::read_solution(stopped.last_checkpoint);
  moved.x[1 * static_cast<std::size_t>(moved.Np) + 4] += 1e-6;  // node 4 of element 1
  output::write_solution(stopped.last_checkpoint, moved);
  const std::string e = restart_error(stopped.last_checkpoint);
  EXPECT_NE(e.find("the checkpoint " + stopped.last_checkpoint.string() +
                   " holds its values at other nodes than this rtdg places on the mesh: node 4 of element 1 is 1e-06 "
                   "away from where this rtdg puts it"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("rtdg run <output folder>/config.toml --overwrite"), std::string::npos) << e;
}

TEST_F(Run, BlowUpNamesStepTimeFieldAndElementAndKeepsTheLastGoodCheckpoint) {
  const fs::path dir = test::scratch();
  RunOptions options = cavity_options(dir);
  // Far above the stable step: the solution overflows within a few hundred steps. The growth
  // check is off (run.blowup_factor = 0), so the finiteness check stops it.
  options.overrides.insert(options.overrides.end(), {"time.cfl=4.0", "time.allow_unstable=true", "time.final=100", "output.interval=0.5",
                                                     "checkpoint.interval=0.5", "run.blowup_factor=0"});
  Quiet quiet;
  try {
    quiet.run(options);
    FAIL() << "expected the run to stop on a non-finite solution";
  } catch (const RunFailure& e) {
    const std::string text = e.what();
    EXPECT_EQ(text.rfind("the solution stopped being finite: at step ", 0), 0u) << text;
    EXPECT_NE(text.find("at step "), std::string::npos) << text;
    EXPECT_NE(text.find("t = "), std::string::npos) << text;
    EXPECT_NE(text.find("field "), std::string::npos) << text;
    EXPECT_NE(text.find("in element "), std::string::npos) << text;
    const auto at = text.find("the last good checkpoint is ");
    ASSERT_NE(at, std::string::npos) << text;
    // The checkpoint named exists and holds finite values.
    const std::string rest = text.substr(at + std::strlen("the last good checkpoint is "));
    const fs::path file = rest.substr(0, rest.find(". "));
    ASSERT_TRUE(fs::exists(file)) << file;
    const output::Solution good = output::read_solution(file);
    for (double v : good.values) ASSERT_TRUE(std::isfinite(v));
  }
}

double largest_abs(const std::vector<double>& values) {
  double largest = 0;
  for (double v : values) largest = std::max(largest, std::abs(v));
  return largest;
}

std::string format_g(double value) {
  char text[64];
  std::snprintf(text, sizeof text, "%.6g", value);
  return text;
}

// The 2D cavity at time.cfl = 10 (4x the limit at order 2, docs/running.md): the solution grows
// by about 1e3 a step. Checkpoints at every step (the interval is below dt = 0.3125).
RunOptions growing_cavity(const fs::path& dir) {
  RunOptions options = cavity_options(dir);
  options.overrides.insert(options.overrides.end(),
                           {"time.cfl=10", "time.allow_unstable=true", "time.final=2", "output.interval=0", "checkpoint.interval=0.01"});
  return options;
}

// Issue 12: a solution that grows past run.blowup_factor (1e6) x its starting scale stops the
// run long before it overflows, with step, time, field, element and node of the largest value,
// the limit and what it came from, and the last good checkpoint (kept, within the limit).
TEST_F(Run, GrowthPastTheBlowUpFactorStopsTheRun) {
  static_assert(std::is_base_of_v<std::runtime_error, RunFailure>, "rtdg's main maps std::exception to exit code 1");
  const fs::path dir = test::scratch();
  Quiet quiet;
  std::string text;
  try {
    quiet.run(growing_cavity(dir));
    FAIL() << "expected the run to stop on a growing solution";
  } catch (const RunFailure& e) {
    text = e.what();
  }
  // The scale: the initial state's largest |value| (snapshot 0 holds it).
  const double scale = largest_abs(output::read_solution(dir / "snapshots" / "cavity2d_0000.h5").values);
  EXPECT_NEAR(scale, 1.0, 0.01);  // sin(pi x) sin(pi y) at the nodes nearest the centre
  const std::string limit = format_g(1e6 * scale);
  // Steps of 0.3125: within the limit after steps 1 and 2, past it after step 3.
  const std::string head = "the solution is growing without bound: at step 3, t = 0.9375, field Ez is ";
  ASSERT_EQ(text.rfind(head, 0), 0u) << text;
  const std::regex place(R"(^([-0-9.e+]+) in element ([0-9]+) \(node ([0-9]+) at x = [-0-9.e+]+, y = [-0-9.e+]+\), )");
  std::smatch match;
  const std::string rest = text.substr(head.size());
  ASSERT_TRUE(std::regex_search(rest, match, place)) << text;
  EXPECT_GT(std::abs(std::stod(match[1].str())), 1e6 * scale) << text;
  EXPECT_LT(std::stoi(match[2].str()), 20) << text;  // a few elements on h = 0.5
  const std::string checkpoint = (dir / "checkpoints" / "checkpoint_000000002.h5").string();
  EXPECT_EQ(match.suffix().str(),
            "above the limit " + limit + " = run.blowup_factor (1e+06) x " + format_g(scale) +
                " (the initial state's largest |value|); it was within the limit at step 2 (t = 0.625); the last good "
                "checkpoint is " + checkpoint + ". A smaller time.cfl or time.dt usually cures a blow-up.")
      << text;
  // The checkpoint before is kept and holds the state of step 2, within the limit.
  ASSERT_TRUE(fs::exists(checkpoint));
  const output::Solution good = output::read_solution(checkpoint);
  EXPECT_EQ(good.step, 2);
  EXPECT_LE(largest_abs(good.values), 1e6 * scale);
  EXPECT_FALSE(fs::exists(dir / "checkpoints" / "checkpoint_000000003.h5"));
  EXPECT_FALSE(fs::exists(dir / "summary.json"));  // the run did not finish
  // The run warned about the step at the start.
  EXPECT_NE(quiet.log.str().find("[rtdg] warning: time.cfl = 10 is above "), std::string::npos) << quiet.log.str();
}

// A run continued from the last good checkpoint judges growth against the original run's scale
// (the initial state, recomputed) and stops at the same step, naming that checkpoint.
TEST_F(Run, GrowthCheckOfARestartUsesTheOriginalScale) {
  const fs::path dir = test::scratch();
  Quiet quiet;
  std::string first, second;
  try {
    quiet.run(growing_cavity(dir));
  } catch (const RunFailure& e) {
    first = e.what();
  }
  const fs::path checkpoint = dir / "checkpoints" / "checkpoint_000000002.h5";
  RunOptions resume;
  resume.restart = checkpoint;
  try {
    quiet.run(resume);
    FAIL() << "expected the continued run to stop too";
  } catch (const RunFailure& e) {
    second = e.what();
  }
  ASSERT_EQ(first.rfind("the solution is growing without bound: at step 3, t = 0.9375, field Ez is ", 0), 0u) << first;
  // The same step, value, limit and checkpoint.
  EXPECT_EQ(second, first);
  EXPECT_TRUE(fs::exists(checkpoint));
}

// A scattering run starts from zero: its scale is the incident wave's amplitude.
TEST_F(Run, GrowthOfAScatteringRunIsJudgedAgainstTheIncidentAmplitude) {
  const fs::path dir = test::scratch();
  RunOptions options;
  options.config = test::data("maxwell/cylinder2d.toml");
  options.overrides = {"run.backend=host", "run.output_dir=\"" + dir.string() + "\"", "discretization.order=1",
                       "output.interval=0", "output.vtu=false", "checkpoint.interval=0", "run.progress_every=1",
                       "time.cfl=10", "time.allow_unstable=true", "incident.amplitude=2"};
  Quiet quiet;
  try {
    quiet.run(options);
    FAIL() << "expected the run to stop on a growing solution";
  } catch (const RunFailure& e) {
    const std::string text = e.what();
    EXPECT_EQ(text.rfind("the solution is growing without bound: at step ", 0), 0u) << text;
    EXPECT_NE(text.find(", above the limit 2e+06 = run.blowup_factor (1e+06) x 2 (the incident wave's amplitude); it "
                        "was within the limit at step "),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("; no checkpoint was written. "), std::string::npos) << text;
  }
}

// The command line reports the failure and exits with status 1 (rtdg's main maps exceptions).
TEST_F(Run, GrowthPastTheBlowUpFactorExitsNonZero) {
  const fs::path rtdg = fs::canonical("/proc/self/exe").parent_path() / ".." / ".." / ".." / "apps" / "rtdg";
  if (!fs::exists(rtdg)) GTEST_SKIP() << "no rtdg executable at " << rtdg;
  const fs::path dir = test::scratch();
  std::string command = "'" + rtdg.string() + "' run '" + test::data("maxwell/cavity2d.toml").string() + "'";
  for (const std::string& o : growing_cavity(dir).overrides) command += " --set '" + o + "'";
  command += " > '" + (dir / "stdout.txt").string() + "' 2> '" + (dir / "stderr.txt").string() + "'";
  const int status = std::system(command.c_str());
  ASSERT_TRUE(WIFEXITED(status)) << command;
  EXPECT_EQ(WEXITSTATUS(status), 1) << command;
  std::ifstream err(dir / "stderr.txt");
  std::stringstream text;
  text << err.rdbuf();
  EXPECT_NE(text.str().find("rtdg: error: the solution is growing without bound: at step 3, t = 0.9375, field Ez is "),
            std::string::npos)
      << text.str();
  EXPECT_TRUE(fs::exists(dir / "checkpoints" / "checkpoint_000000002.h5"));
}

// A run at the default step stays far within the limit: even a factor of 2 over the cavity
// mode's amplitude does not trip, checked after every step; and no warning.
TEST_F(Run, AStableRunDoesNotTripTheGrowthCheckOrWarn) {
  const fs::path dir = test::scratch();
  RunOptions options = cavity_options(dir);
  options.overrides.insert(options.overrides.end(), {"run.blowup_factor=2", "run.progress_every=1"});
  Quiet quiet;
  const RunSummary summary = quiet.run(options);
  EXPECT_FALSE(summary.interrupted);
  EXPECT_EQ(summary.time, 0.3);
  EXPECT_EQ(quiet.log.str().find("warning"), std::string::npos) << quiet.log.str();
}

// time.cfl (or the Courant number of a fixed time.dt) above the integrator's measured limit
// gives one warning line at the start; the default and the largest stable values do not.
TEST_F(Run, ALargeCourantNumberWarnsAtStart) {
  const fs::path root = test::scratch();
  auto log_of = [&](const std::string& name, std::vector<std::string> extra) {
    RunOptions options = cavity_options(root / name);
    options.overrides.insert(options.overrides.end(), extra.begin(), extra.end());
    options.overrides.push_back("time.allow_unstable=true");  // a warning, not a refusal (test_time_settings.cpp)
    options.stop_after_steps = 1;
    Quiet quiet;
    quiet.run(options);
    return quiet.log.str();
  };
  auto warnings = [](const std::string& log) {
    std::vector<std::string> lines;
    std::istringstream in(log);
    for (std::string line; std::getline(in, line);)
      if (line.find("warning") != std::string::npos) lines.push_back(line);
    return lines;
  };
  const std::vector<std::string> lserk = warnings(log_of("lserk", {"time.cfl=3"}));
  ASSERT_EQ(lserk.size(), 1u);
  EXPECT_EQ(lserk[0], "[rtdg] warning: time.cfl = 3 is above " + format_g(stable_cfl_limit("lserk4")) +
                          ", where lserk4 goes unstable at some orders (docs/running.md, \"Time step\"): the solution "
                          "will likely blow up; use a smaller time.cfl");
  const std::vector<std::string> ssp = warnings(log_of("ssp", {"time.cfl=2", "time.integrator=\"ssprk3\""}));
  ASSERT_EQ(ssp.size(), 1u);
  EXPECT_EQ(ssp[0].rfind("[rtdg] warning: time.cfl = 2 is above " + format_g(stable_cfl_limit("ssprk3")) + ", where ssprk3 goes", 0), 0u)
      << ssp[0];
  // A fixed dt of 3x the cfl = 1 step (order 2 on h = 0.5: 0.03125) is a Courant number of 3
  // (the table replaces the config's time.cfl).
  const std::vector<std::string> fixed = warnings(log_of("fixed", {"time={ final = 0.3, dt = 0.09375 }"}));
  ASSERT_EQ(fixed.size(), 1u);
  EXPECT_EQ(fixed[0].rfind("[rtdg] warning: time.dt = 0.09375 is a Courant number of 3", 0), 0u) << fixed[0];
  EXPECT_TRUE(warnings(log_of("default", {})).empty());
  EXPECT_TRUE(warnings(log_of("at_limit", {"time.cfl=" + format_g(stable_cfl_limit("lserk4"))})).empty());
}

TEST_F(Run, ANewRunRefusesAnEarlierRunsFolderUnlessOverwrite) {
  const fs::path dir = test::scratch();
  Quiet quiet;
  quiet.run(cavity_options(dir));
  try {
    quiet.run(cavity_options(dir));
    FAIL() << "expected a refusal";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("--overwrite"), std::string::npos) << e.what();
  }
  RunOptions again = cavity_options(dir);
  again.overwrite = true;
  EXPECT_NO_THROW(quiet.run(again));
}

// run.plan names the plan the run takes (over the database and the default plan); the log
// gives the plan in the same words, the checkpoint keeps it, and the answer is the default
// plan's to rounding. A bad word or a plan that does not fit is an error naming run.plan.
TEST_F(Run, ConfigPlanIsTheOneRun) {
  const fs::path root = test::scratch();
  Quiet quiet;
  const RunSummary reference = quiet.run(cavity_options(root / "default"));
  const std::string text = "fusion=stage layout=element_major elements=4 nodes_per_thread=1 operators=global "
                           "derivative=flux products=tensor prefetch=on";
  RunOptions options = cavity_options(root / "named");
  options.overrides.push_back("run.plan=\"" + text + "\"");
  const RunSummary named = quiet.run(options);
  EXPECT_EQ(named.plan_source, "the config's run.plan");
  EXPECT_EQ(named.plan, dg::plan_from_text(text).describe());
  EXPECT_NE(quiet.log.str().find("[rtdg] plan as run.plan: \"" + dg::to_text(dg::plan_from_text(text)) + "\""),
            std::string::npos)
      << quiet.log.str();
  const output::Solution a = output::read_solution(reference.last_checkpoint);
  const output::Solution b = output::read_solution(named.last_checkpoint);
  EXPECT_EQ(dg::plan_from_text(b.plan), dg::plan_from_text(text));
  ASSERT_EQ(a.values.size(), b.values.size());
  double scale = 0, worst = 0;
  for (std::size_t i = 0; i < a.values.size(); ++i) {
    scale = std::max(scale, std::abs(a.values[i]));
    worst = std::max(worst, std::abs(a.values[i] - b.values[i]));
  }
  EXPECT_LE(worst, 1e-12 * scale);

  // A restart with run.plan set over a checkpoint of another plan takes run.plan and says that
  // the continuation is not bit for bit.
  RunOptions first = cavity_options(root / "interrupted");
  first.stop_after_steps = 5;
  const RunSummary stopped = quiet.run(first);
  ASSERT_TRUE(stopped.interrupted);
  RunOptions resume;
  resume.restart = stopped.last_checkpoint;
  resume.overrides = {"run.plan=\"" + text + "\""};
  const RunSummary resumed = quiet.run(resume);
  EXPECT_EQ(resumed.plan_source, "the config's run.plan");
  EXPECT_NE(quiet.log.str().find("[rtdg] note: run.plan is not the plan the checkpoint was computed with"),
            std::string::npos)
      << quiet.log.str();

  auto error_of = [&](const std::string& plan) {
    RunOptions bad = cavity_options(root / "bad");
    bad.overrides.push_back("run.plan=\"" + plan + "\"");
    try {
      quiet.run(bad);
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string word = error_of("fusion=stage layout=diagonal");
  EXPECT_NE(word.find("--set run.plan=\"fusion=stage layout=diagonal\": error: 'run.plan': plan 'fusion=stage "
                      "layout=diagonal': unknown layout 'diagonal'; valid values: field_major, element_major"),
            std::string::npos)
      << word;
  const std::string fit = error_of("fusion=stage layout=element_major elements=4 nodes_per_thread=2 operators=global "
                                   "derivative=flux products=tensor");
  EXPECT_NE(fit.find("'run.plan': the plan does not fit: tensor-core products compute one node per thread"),
            std::string::npos)
      << fit;
}

TEST_F(Run, BoundaryErrorsNameTheConfigLocationAndTheChoices) {
  const fs::path dir = test::scratch();
  RunOptions options = cavity_options(dir);
  options.overrides.push_back("boundary={ wall = \"pec\" }");
  Quiet quiet;
  try {
    quiet.run(options);
    FAIL() << "expected an error";
  } catch (const std::exception& e) {
    const std::string text = e.what();
    EXPECT_NE(text.find("no boundary named 'wall'; its boundaries are: walls"), std::string::npos) << text;
    EXPECT_NE(text.find("--set"), std::string::npos) << text;
    EXPECT_NE(text.find("the mesh boundary 'walls' has no boundary condition"), std::string::npos) << text;
  }
}

TEST_F(Run, UnknownConditionListsTheLawsConditions) {
  const fs::path dir = test::scratch();
  RunOptions options = cavity_options(dir);
  options.overrides.push_back("boundary.walls=\"perfect\"");
  Quiet quiet;
  try {
    quiet.run(options);
    FAIL() << "expected an error";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("has no boundary condition 'perfect'; its conditions are: pec, pmc"),
              std::string::npos)
        << e.what();
  }
}


// |Ez| of the field a PEC cylinder of radius a scatters from the unit TM plane wave exp(i k x),
// at (r, phi): the separation-of-variables series (Balanis, Advanced Engineering
// Electromagnetics, 11.5), -sum_n eps_n i^n J_n(ka) / H_n(ka) H_n(kr) cos(n phi).
double cylinder_scattered_amplitude(double k, double a, double r, double phi) {
  using C = std::complex<double>;
  C sum = 0;
  for (int n = 0; n <= 40; ++n) {
    const double order = n;
    const C hankel_a(std::cyl_bessel_j(order, k * a), std::cyl_neumann(order, k * a));
    const C hankel_r(std::cyl_bessel_j(order, k * r), std::cyl_neumann(order, k * r));
    sum -= (n == 0 ? 1.0 : 2.0) * std::pow(C(0, 1), n) * std::cyl_bessel_j(order, k * a) / hankel_a * hankel_r *
           std::cos(order * phi);
  }
  return std::abs(sum);
}

// Largest |value| of CSV column `column` over rows with time >= t0.
double peak_after(const fs::path& csv, std::size_t column, double t0) {
  std::ifstream in(csv);
  std::string line;
  std::getline(in, line);  // header
  double peak = 0;
  while (std::getline(in, line)) {
    std::stringstream cells(line);
    std::vector<double> row;
    for (std::string cell; std::getline(cells, cell, ',');) row.push_back(std::stod(cell));
    if (row.size() > column && row[0] >= t0) peak = std::max(peak, std::abs(row[column]));
  }
  return peak;
}

// Runs a cylinder config (order 3) and checks its probes against the series.
void expect_cylinder_probes(const std::string& config, const char* label) {
  const fs::path dir = test::scratch();
  RunOptions options;
  options.config = test::data(config);
  options.overrides = {"run.backend=host", "run.output_dir=\"" + dir.string() + "\"", "discretization.order=3",
                       "output.interval=0", "output.vtu=false", "checkpoint.interval=0"};
  Quiet quiet;
  quiet.run(options);
  const double k = 2 * std::numbers::pi, a = 0.5;
  struct Check {
    const char* file;
    std::size_t column;
    double r, phi;
  };
  for (const Check& c : {Check{"axis.csv", 2, 1.0, std::numbers::pi}, Check{"axis.csv", 3, 1.0, 0.0},
                         Check{"side.csv", 4, 1.0, std::numbers::pi / 2}}) {
    const double expected = cylinder_scattered_amplitude(k, a, c.r, c.phi);
    const double measured = peak_after(dir / c.file, c.column, 4.0);
    std::printf("%s: r = %g, phi = %g: analytic %.4f, measured %.4f\n", label, c.r, c.phi, expected, measured);
    EXPECT_NEAR(measured, expected, 0.02 * expected) << config << ": " << c.file << " column " << c.column;
  }
}

// cylinder2d.toml (order 3): after the ramp, the scattered Ez at the probes oscillates with the
// amplitude of the analytic series (ka = pi), to within what the first-order absorbing box
// allows (measured: -0.4 %, +0.6 %, -0.2 %).
TEST_F(Run, Cylinder2DScatteringMatchesTheAnalyticSeries) { expect_cylinder_probes("maxwell/cylinder2d.toml", "cylinder"); }

// The same checks for cylinder2d_pml.toml: the Silver-Mueller box replaced by a PML of width
// 0.5 with PEC behind it (measured: -0.4 %, -0.6 %, +0.2 %).
TEST_F(Run, Cylinder2DInAPmlMatchesTheAnalyticSeries) {
  expect_cylinder_probes("maxwell/cylinder2d_pml.toml", "cylinder in a PML");
}

// dielectric_cylinder2d.toml (eps = 4 in the disk, ka = 1, total field through the incident
// box), box 6, order 2: after the ramp, the total Ez on the axis in front of, inside and
// behind the cylinder oscillates with the series' amplitude (measured: +0.49 %, -0.74 %,
// +0.17 %; the same at order 3, so the first-order box dominates; at box 4 the centre is 5 %
// off). Checks the jumping-impedance interface flux and materials per region.
TEST_F(Run, DielectricCylinderNearFieldMatchesTheSeries) {
  const fs::path dir = test::scratch();
  RunOptions options;
  options.config = test::data("maxwell/dielectric_cylinder2d.toml");
  options.overrides = {"run.backend=host", "run.output_dir=\"" + dir.string() + "\"", "discretization.order=2",
                       "mesh.parameters.box=6.0", "mesh.parameters.h=0.5", "mesh.parameters.h_in=0.1",
                       "time.final=14.0", "output.interval=0", "output.vtu=false", "checkpoint.interval=0"};
  Quiet quiet;
  quiet.run(options);
  const double k = 2.0, a = 0.5, m = 2.0;
  struct Check {
    std::size_t column;
    double r, phi;
  };
  for (const Check& c : {Check{2, 0.75, std::numbers::pi}, Check{3, 0.0, 0.0}, Check{4, 0.75, 0.0}}) {
    const double expected = test::dielectric_cylinder_amplitude(k, a, m, c.r, c.phi);
    const double measured = peak_after(dir / "axis.csv", c.column, 10.0);
    std::printf("dielectric cylinder: r = %g, phi = %g: series %.4f, measured %.4f\n", c.r, c.phi, expected, measured);
    EXPECT_NEAR(measured, expected, 0.02 * expected) << "column " << c.column;
  }
}

}  // namespace
}  // namespace rtdg::runner
