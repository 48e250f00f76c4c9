// `rtdg run` with a nonlinear law (issue 13): data/euler/sod.toml (shock capturing from the
// config's [stabilization], the time step re-evaluated from the state every few steps), and a
// restart that continues the adaptive steps bit for bit.
#include "run_support.hpp"

#include <output/hdf5_solution.hpp>

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

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

// The adaptive step's wave speed comes from the device reduction (dg/wave_speed.hpp): a law
// whose speed sqrt(u) + 1 turns NaN while the state stays finite (u drains below 0 at t = 0.25
// through its source) stops at the first re-evaluation after, with the runner's message.
TEST_F(EulerRun, AWaveSpeedThatTurnsNanStopsTheRun) {
  const fs::path dir = test::scratch();
  {
    std::ofstream law(dir / "draining.toml");
    law << R"law(name = "draining"
dimension = 2
max_wave_speed = "sqrt(u) + 1"
[fields]
u = "scalar"
[volume_flux]
u = "vec(1, 0)*u"
[numerical_flux]
form = "full"
u = "dot(vec(1, 0), normal)*avg(u) + 1/2*abs(dot(vec(1, 0), normal))*jump(u)"
[source]
u = "-1"
[boundary.wall]
u = "u.int"
[initial]
u = "0.25"
)law";
    std::ofstream config(dir / "draining_run.toml");
    config << "[law]\nfile = \"draining.toml\"\n[mesh]\nfile = \"" << test::data("geometries/channel.geo").string()
           << "\"\n[mesh.parameters]\nlength = 1.0\nwidth = 0.1\nnx = 10\nny = 1\n[discretization]\norder = 1\n"
              "[time]\nfinal = 1.0\ncfl = 0.5\ndt_update_every = 1\n[boundary]\nxmin = \"wall\"\nxmax = \"wall\"\n"
              "walls = \"wall\"\n[initial]\ncondition = \"law\"\n[output]\ninterval = 1.0\nvtu = false\n";
  }
  RunOptions options;
  options.config = dir / "draining_run.toml";
  options.overrides = {"run.backend=host", "run.output_dir=\"" + (dir / "out").string() + "\""};
  Quiet quiet;
  try {
    quiet.run(options);
    FAIL() << "expected the run to stop";
  } catch (const RunFailure& e) {
    const std::string message = e.what();
    std::printf("%s\n", message.c_str());
    EXPECT_NE(message.find("the largest wave speed of the state is nan"), std::string::npos) << message;
    EXPECT_NE(message.find("time.dt_update_every"), std::string::npos) << message;
    // Stopped soon after u crossed 0 at t = 0.25, not at the end.
    const std::size_t at = message.find(", t = ");
    ASSERT_NE(at, std::string::npos) << message;
    const double t = std::strtod(message.c_str() + at + 6, nullptr);
    EXPECT_GT(t, 0.25);
    EXPECT_LT(t, 0.35);
  }
}

}  // namespace
}  // namespace rtdg::runner
