// `rtdg run` with a nonlinear law (issue 13): data/euler/sod.toml (shock capturing from the
// config's [stabilization], the time step re-evaluated from the state every few steps), and a
// restart that continues the adaptive steps bit for bit.
#include "run_support.hpp"

#include <output/hdf5_solution.hpp>

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace rtdg::runner {
namespace {

namespace fs = std::filesystem;
using test::Quiet;

class EulerRun : public ::testing::Test {
protected:
  void SetUp() override {
    if (!RTDG_TEST_HAVE_GMSH) GTEST_SKIP() << "this rtdg was built without Gmsh (sod.toml meshes channel.geo)";
    ::setenv("RTDG_TUNE", "off", 1);
  }
};

// Sod at order 2 on 25 squares, to t = 0.1, a checkpoint every 0.025; dt re-evaluated every
// 7 steps, so the interrupted run stops between two re-evaluations.
RunOptions sod_options(const fs::path& dir) {
  RunOptions options;
  options.config = test::data("euler/sod.toml");
  options.overrides = {"run.backend=host",         "run.output_dir=\"" + dir.string() + "\"", "discretization.order=2",
                       "mesh.parameters.nx=25",    "mesh.parameters.width=0.04",            "time.final=0.1",
                       "time.dt_update_every=7",   "output.interval=0.05",                  "checkpoint.interval=0.025",
                       "checkpoint.keep=10",       "output.vtu=false"};
  return options;
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

TEST_F(EulerRun, AdaptiveStepsChangeTheStepAndARestartContinuesBitForBit) {
  const fs::path straight = test::scratch() / "straight";
  const fs::path broken = straight.parent_path() / "broken";
  Quiet quiet;
  const RunSummary full = quiet.run(sod_options(straight));
  EXPECT_FALSE(full.interrupted);
  EXPECT_EQ(full.time, 0.1);

  // The step follows the state: the waves leaving the diaphragm are faster than the initial
  // state's largest speed (sqrt(1.4) at rest), so the step shrinks.
  const output::Solution first = output::read_solution(straight / "snapshots" / "sod_0000.h5");
  const output::Solution last = output::read_solution(full.last_checkpoint);
  ASSERT_GT(first.dt, 0);
  ASSERT_GT(last.dt, 0);
  std::printf("dt %.6g at t = 0, %.6g at t = %g (%lld steps)\n", first.dt, last.dt, last.time, full.final_step);
  EXPECT_LT(last.dt, 0.9 * first.dt) << "first dt " << first.dt << ", last " << last.dt;

  RunOptions first_part = sod_options(broken);
  first_part.stop_after_steps = 25;  // not a multiple of 7: the restart needs the checkpoint's dt
  const RunSummary stopped = quiet.run(first_part);
  ASSERT_TRUE(stopped.interrupted);
  EXPECT_EQ(stopped.final_step, 25);

  RunOptions resume;
  resume.restart = stopped.last_checkpoint;
  const RunSummary resumed = quiet.run(resume);
  EXPECT_FALSE(resumed.interrupted);
  EXPECT_EQ(resumed.final_step, full.final_step);
  EXPECT_EQ(resumed.time, full.time);
  const output::Solution a = output::read_solution(full.last_checkpoint);
  const output::Solution b = output::read_solution(resumed.last_checkpoint);
  EXPECT_TRUE(same_bits(a.values, b.values)) << "the restarted run differs from the uninterrupted one";
  EXPECT_EQ(a.dt, b.dt);
}

TEST_F(EulerRun, APositiveQuantityThatIsNotAScalarOfTheStateIsRefusedWithItsLocation) {
  const fs::path dir = test::scratch();
  RunOptions options = sod_options(dir);
  options.overrides.push_back("stabilization.positive=[\"rho\", \"m\"]");
  Quiet quiet;
  try {
    quiet.run(options);
    FAIL() << "expected an error";
  } catch (const std::exception& e) {
    const std::string message = e.what();
    std::printf("%s\n", message.c_str());
    EXPECT_NE(message.find("--set stabilization.positive"), std::string::npos) << message;
    EXPECT_NE(message.find("a positive quantity must be a scalar"), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace rtdg::runner
