// A restart trusts only a checkpoint that proves itself (docs/running.md, "Restart"): its
// checksums, a finite state, and a step, time and dt that the run reaches before time.final.
// Each refusal names the file and what is wrong, and writes nothing.
#include "run_support.hpp"

#include <output/hdf5_solution.hpp>

#include <gtest/gtest.h>
#include <hdf5.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>

namespace rtdg::runner {
namespace {

namespace fs = std::filesystem;
using test::Quiet;

class CheckpointTrust : public ::testing::Test {
protected:
  void SetUp() override {
    if (!RTDG_TEST_HAVE_GMSH) GTEST_SKIP() << "this rtdg was built without Gmsh (the configs mesh .geo files)";
    ::setenv("RTDG_TUNE", "off", 1);
  }
  // The small 2D cavity stopped after 3 steps (a checkpoint there).
  RunSummary stopped_run(const fs::path& dir) {
    RunOptions o;
    o.config = test::data("maxwell/cavity2d.toml");
    o.overrides = {"run.backend=host", "run.output_dir=\"" + dir.string() + "\"", "discretization.order=2",
                   "mesh.parameters.h=0.5", "time.final=0.3", "output.interval=0.1", "checkpoint.interval=0.1",
                   "output.vtu=false"};
    o.stop_after_steps = 3;
    Quiet quiet;
    const RunSummary s = quiet.run(o);
    EXPECT_TRUE(s.interrupted);
    return s;
  }
};

std::map<std::string, std::string> tree(const fs::path& dir) {
  std::map<std::string, std::string> all;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    std::ifstream in(entry.path(), std::ios::binary);
    std::ostringstream text;
    if (entry.is_regular_file()) text << in.rdbuf();
    all[entry.path().lexically_relative(dir).generic_string()] = text.str();
  }
  return all;
}

// The restart's error, checking that the folder is as it was.
std::string restart_error(const fs::path& checkpoint, const fs::path& dir, std::vector<std::string> overrides = {}) {
  const auto before = tree(dir);
  RunOptions resume;
  resume.restart = checkpoint;
  resume.overrides = std::move(overrides);
  Quiet quiet;
  std::string message = "(no error)";
  try {
    quiet.run(resume);
  } catch (const std::exception& e) {
    message = e.what();
  }
  EXPECT_EQ(tree(dir), before) << "a refused restart changed its folder";
  return message;
}

void rewrite(const fs::path& checkpoint, const std::function<void(output::Solution&)>& edit) {
  output::Solution c = output::read_solution(checkpoint);
  edit(c);
  output::write_solution(checkpoint, c);
}

TEST_F(CheckpointTrust, AFlippedBitIsRefusedByTheChecksum) {
  const fs::path dir = test::scratch();
  const RunSummary s = stopped_run(dir);
  const hid_t f = H5Fopen(s.last_checkpoint.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  const hid_t d = H5Dopen2(f, "/fields/Ez", H5P_DEFAULT);
  const hid_t space = H5Dget_space(d);
  std::vector<double> values(static_cast<std::size_t>(H5Sget_simple_extent_npoints(space)));
  H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
  std::uint64_t bits;
  std::memcpy(&bits, &values[7], sizeof bits);
  bits ^= 1;  // one mantissa bit
  std::memcpy(&values[7], &bits, sizeof bits);
  H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
  H5Sclose(space);
  H5Dclose(d);
  H5Fclose(f);
  const std::string e = restart_error(s.last_checkpoint, dir);
  EXPECT_EQ(e.rfind(s.last_checkpoint.string() + ": dataset '/fields/Ez' does not match its checksum", 0), 0u) << e;
}

TEST_F(CheckpointTrust, ANonFiniteStateIsRefusedNamingFieldAndElement) {
  const fs::path dir = test::scratch();
  const RunSummary s = stopped_run(dir);
  rewrite(s.last_checkpoint, [](output::Solution& c) {
    const auto ez = static_cast<std::size_t>(std::find(c.names.begin(), c.names.end(), "Ez") - c.names.begin());
    ASSERT_LT(ez, c.names.size());
    c.values[(ez * static_cast<std::size_t>(c.K) + 2) * static_cast<std::size_t>(c.Np) + 1] =
        std::numeric_limits<double>::quiet_NaN();
  });
  const std::string e = restart_error(s.last_checkpoint, dir);
  EXPECT_EQ(e, "the checkpoint " + s.last_checkpoint.string() +
                   " holds nan in field Ez at element 2, node 1: a run writes only finite checkpoints, so this one is "
                   "damaged; restart from an earlier checkpoint of the run")
      << e;
}

TEST_F(CheckpointTrust, ImpossibleStepTimeOrDtAreRefused) {
  const fs::path dir = test::scratch();
  const RunSummary s = stopped_run(dir);
  const output::Solution good = output::read_solution(s.last_checkpoint);
  const std::string where = "the checkpoint " + s.last_checkpoint.string();
  auto with = [&](const std::function<void(output::Solution&)>& edit) {
    output::Solution c = good;
    edit(c);
    output::write_solution(s.last_checkpoint, c);
    return restart_error(s.last_checkpoint, dir);
  };
  std::string e = with([](output::Solution& c) { c.step = -5; });
  EXPECT_EQ(e.rfind(where + " says step = -5, which no run reaches", 0), 0u) << e;
  e = with([](output::Solution& c) { c.time = std::numeric_limits<double>::quiet_NaN(); });
  EXPECT_EQ(e.rfind(where + " says time = nan, which no run reaches", 0), 0u) << e;
  e = with([](output::Solution& c) { c.time = 0.5; });  // past time.final = 0.3
  EXPECT_EQ(e.rfind(where + " says time = 0.5 after 3 steps of dt = ", 0), 0u) << e;
  e = with([](output::Solution& c) { c.step = 0; });
  EXPECT_NE(e.find("which do not go together"), std::string::npos) << e;
  // The final time reached: nothing to run, and how to run on.
  output::write_solution(s.last_checkpoint, good);
  e = restart_error(s.last_checkpoint, dir, {"time.final=" + std::to_string(good.time / 2)});
  EXPECT_NE(e.find("at or past time.final"), std::string::npos) << e;
  EXPECT_NE(e.find("--set time.final=<a later time>"), std::string::npos) << e;
}

// A failure after a restart names the checkpoint it started from only because that one passed
// the checks above; a good checkpoint still restarts.
TEST_F(CheckpointTrust, AGoodCheckpointRestarts) {
  const fs::path dir = test::scratch();
  const RunSummary s = stopped_run(dir);
  RunOptions resume;
  resume.restart = s.last_checkpoint;
  Quiet quiet;
  const RunSummary resumed = quiet.run(resume);
  EXPECT_EQ(resumed.time, 0.3);
  EXPECT_EQ(quiet.log.str().find("carries no checksums"), std::string::npos) << quiet.log.str();
}

}  // namespace
}  // namespace rtdg::runner
