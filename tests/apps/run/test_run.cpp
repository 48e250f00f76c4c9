// `rtdg run` end to end on the host backend (runner/run.hpp).
#include "run_support.hpp"

#include <dg/plan.hpp>
#include <output/hdf5_solution.hpp>

#include <gtest/gtest.h>
#include <hdf5.h>

#include <cmath>
#include <complex>
#include <cstdlib>
#include <cstring>
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

// RTDG_TUNE=auto: the first run tunes its kernels and stores the winner, the next one reuses
// it, and a restart keeps the checkpoint's plan (bit for bit) even when tuning is off.
TEST_F(Run, TunedPlanIsStoredReusedAndKeptOnRestart) {
  const fs::path root = test::scratch();
  EnvironmentGuard environment;
  environment.set("RTDG_TUNE", "auto");
  environment.set("RTDG_TUNING_DB", (root / "tuning.json").string());
  environment.set("RTDG_TUNE_BUDGET", "300");
  Quiet quiet;
  const RunSummary tuned = quiet.run(cavity_options(root / "first"));
  EXPECT_EQ(tuned.plan_source.rfind("tuned now: ", 0), 0u) << tuned.plan_source;
  EXPECT_TRUE(fs::exists(root / "tuning.json"));

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
  // Far above the stable step: the solution overflows within a few hundred steps.
  options.overrides.insert(options.overrides.end(),
                           {"time.cfl=4.0", "time.final=100", "output.interval=0.5", "checkpoint.interval=0.5"});
  Quiet quiet;
  try {
    quiet.run(options);
    FAIL() << "expected the run to stop on a non-finite solution";
  } catch (const RunFailure& e) {
    const std::string text = e.what();
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

// cylinder2d.toml (order 3): after the ramp, the scattered Ez at the probes oscillates with the
// amplitude of the analytic series (ka = pi), to within what the first-order absorbing box
// allows (measured: 0.3 %, 0.1 %, 0.1 %).
TEST_F(Run, Cylinder2DScatteringMatchesTheAnalyticSeries) {
  const fs::path dir = test::scratch();
  RunOptions options;
  options.config = test::data("maxwell/cylinder2d.toml");
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
    std::printf("cylinder: r = %g, phi = %g: analytic %.4f, measured %.4f\n", c.r, c.phi, expected, measured);
    EXPECT_NEAR(measured, expected, 0.02 * expected) << c.file << " column " << c.column;
  }
}

}  // namespace
}  // namespace rtdg::runner
