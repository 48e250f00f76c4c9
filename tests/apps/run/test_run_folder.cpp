// What rtdg may delete and write in an output folder (runner/run_folder.hpp): the manifest,
// --overwrite, checkpoint rotation, the lock, and restarts as new segments of a run.
#include "run_support.hpp"

#include <output/hdf5_solution.hpp>
#include <output/pvd.hpp>
#include <output/vtu.hpp>
#include <runner/run_folder.hpp>

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <unistd.h>

namespace rtdg::runner {
namespace {

namespace fs = std::filesystem;
using test::Quiet;

using Tree = std::map<std::string, std::string>;

std::string read_text(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void write_text(const fs::path& file, const std::string& text) {
  fs::create_directories(file.parent_path());
  std::ofstream(file, std::ios::binary) << text;
}

// Every file (with its contents) and folder under `dir`, by relative path: two trees are equal
// when nothing was deleted, added or changed.
Tree tree(const fs::path& dir) {
  Tree all;
  if (!fs::exists(dir)) return all;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    const std::string relative = entry.path().lexically_relative(dir).generic_string();
    all[relative] = entry.is_directory() ? std::string("<folder>") : read_text(entry.path());
  }
  return all;
}

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

// The 2D cavity, small and short (order 2, h = 0.5, to t = 0.3), a checkpoint and a snapshot
// every 0.1, and a probe: a config file of its own in `where` (absolute paths to the data).
fs::path cavity_config(const fs::path& where, const std::string& name = "cavity", const std::string& extra = "") {
  const fs::path file = where / (name + ".toml");
  write_text(file, "[run]\nname = \"" + name + "\"\nbackend = \"host\"\n" + extra +
                       "[law]\nfile = \"" + test::data("laws/maxwell2d_tm.toml").string() + "\"\n"
                       "[mesh]\nfile = \"" + test::data("geometries/square.geo").string() + "\"\n"
                       "[mesh.parameters]\nsize = 1.0\nh = 0.5\n"
                       "[discretization]\norder = 2\n"
                       "[time]\nfinal = 0.3\ncfl = 0.5\n"
                       "[boundary]\nwalls = \"pec\"\n"
                       "[initial]\ncondition = \"law\"\n"
                       "[output]\ninterval = 0.1\nvtu = " + std::string(output::vtu_available() ? "true" : "false") + "\n"
                       "[checkpoint]\ninterval = 0.1\nkeep = 5\n"
                       "[[probe]]\nname = \"centre\"\npoints = [[0.3, 0.4]]\nfields = [\"Ez\"]\n");
  return file;
}

RunOptions options_for(const fs::path& config, const fs::path& dir) {
  RunOptions options;
  options.config = config;
  options.overrides = {"run.output_dir=\"" + dir.string() + "\""};
  return options;
}

class RunFolderTest : public ::testing::Test {
protected:
  void SetUp() override {
    if (!RTDG_TEST_HAVE_GMSH) GTEST_SKIP() << "this rtdg was built without Gmsh (the configs mesh .geo files)";
    ::setenv("RTDG_TUNE", "off", 1);
  }
};

// ---- the manifest and the lock on their own (no run) ----

TEST(RunFolderManifest, ClaimsRecordsAndRemovesOnlyWhatItClaimed) {
  const fs::path dir = test::scratch() / "out";
  {
    RunFolder folder(dir);
    EXPECT_TRUE(fs::exists(dir / RunFolder::kLock));
    folder.prepare_new_run({"checkpoints/"}, false);
    folder.create_folder("checkpoints");
    folder.claim("checkpoints/checkpoint_000000002.h5", "checkpoint", 2, 0.2);
    folder.claim("checkpoints/checkpoint_000000001.h5", "checkpoint", 1, 0.1);
    write_text(dir / "checkpoints/checkpoint_000000001.h5", "one");
    write_text(dir / "checkpoints/checkpoint_000000002.h5", "two");
    write_text(dir / "checkpoints/checkpoint_000000000.h5", "a user's file named like a checkpoint");
    const auto listed = folder.of_kind("checkpoint");
    ASSERT_EQ(listed.size(), 2u);
    EXPECT_EQ(listed[0].first, "checkpoints/checkpoint_000000001.h5");  // by step
    EXPECT_FALSE(folder.remove("checkpoints/checkpoint_000000000.h5"));
    EXPECT_TRUE(folder.remove("checkpoints/checkpoint_000000001.h5"));
    // A file that exists and is not rtdg's is never claimed (so never replaced).
    EXPECT_THROW(folder.claim("checkpoints/checkpoint_000000000.h5", "checkpoint", 0, 0), RunFolderError);
  }
  EXPECT_FALSE(fs::exists(dir / RunFolder::kLock));  // released with the run
  RunFolder again(dir);                               // read back from the manifest
  EXPECT_FALSE(again.owns("checkpoints/checkpoint_000000001.h5"));
  EXPECT_TRUE(again.owns("checkpoints/checkpoint_000000002.h5"));
  EXPECT_FALSE(again.owns("checkpoints/checkpoint_000000000.h5"));
  EXPECT_EQ(read_text(dir / "checkpoints/checkpoint_000000000.h5"), "a user's file named like a checkpoint");
}

TEST(RunFolderManifest, ASecondHolderOfTheLockIsRefusedWithThePid) {
  const fs::path dir = test::scratch();
  RunFolder first(dir);
  const std::string message = message_of([&] { RunFolder second(dir); });
  EXPECT_NE(message.find("another rtdg run (pid " + std::to_string(::getpid()) + ")"), std::string::npos) << message;
  EXPECT_NE(message.find(dir.string()), std::string::npos) << message;
}

TEST(RunFolderManifest, ADamagedManifestIsRefusedWithItsLine) {
  const fs::path dir = test::scratch();
  write_text(dir / RunFolder::kManifest, "rtdg-manifest 1\n+ snapshot 0 0 snapshots/a.h5\n+ garbage\n");
  const std::string message = message_of([&] { RunFolder folder(dir); });
  EXPECT_NE(message.find("is damaged at line 3"), std::string::npos) << message;
  EXPECT_FALSE(fs::exists(dir / RunFolder::kLock));
}

TEST(RunFolderManifest, OverrideKeyIgnoresSpaces) {
  EXPECT_EQ(override_key(" run.output_dir = \"x\""), "run.output_dir");
  EXPECT_EQ(override_key("time.final=1"), "time.final");
}

// ---- item 1: --overwrite, the config copy, the lock ----

TEST_F(RunFolderTest, OverwriteRefusesAFolderHoldingUserFilesAndDeletesNothing) {
  const fs::path root = test::scratch();
  const fs::path dir = root / "out";
  Quiet quiet;
  const fs::path config = cavity_config(root);
  quiet.run(options_for(config, dir));
  write_text(dir / "snapshots/mine.txt", "user");
  write_text(dir / "snapshots/sub/deep.txt", "user, deeper");
  write_text(dir / "checkpoints/notes.txt", "user");
  write_text(dir / "farfield/x.csv", "user (a run without a far field)");
  const Tree before = tree(dir);
  RunOptions again = options_for(config, dir);
  again.overwrite = true;
  const std::string message = message_of([&] { quiet.run(again); });
  EXPECT_NE(message.find((dir / "checkpoints/notes.txt").string()), std::string::npos) << message;
  EXPECT_NE(message.find("which rtdg did not write"), std::string::npos) << message;
  EXPECT_EQ(tree(dir), before);
}

TEST_F(RunFolderTest, OverwriteDeletesTheEarlierRunsFilesAndKeepsUnrelatedOnes) {
  const fs::path root = test::scratch();
  const fs::path dir = root / "out";
  Quiet quiet;
  const fs::path config = cavity_config(root);
  quiet.run(options_for(config, dir));
  write_text(dir / "notes.txt", "a user's notes beside the run");
  RunOptions again = options_for(config, dir);
  again.overwrite = true;
  const RunSummary summary = quiet.run(again);
  EXPECT_EQ(read_text(dir / "notes.txt"), "a user's notes beside the run");
  EXPECT_TRUE(fs::exists(summary.last_checkpoint));
  // Everything else in the folder is in the new run's manifest.
  RunFolder folder(dir);
  for (const auto& [path, contents] : tree(dir))
    if (path != "notes.txt" && path != RunFolder::kManifest && path != RunFolder::kLock) {
      EXPECT_TRUE(folder.owns(path)) << path;
    }
}

TEST_F(RunFolderTest, TheConfigCopyNeverReplacesTheInputConfig) {
  const fs::path dir = test::scratch();
  // run.output_dir = "." beside a config named config.toml
  const fs::path written = cavity_config(dir, "config", "output_dir = \"" + dir.string() + "\"\n");
  const fs::path config = dir / "config.toml";
  ASSERT_EQ(written, config);
  const Tree before = tree(dir);
  for (const bool overwrite : {false, true}) {
    RunOptions options;
    options.config = config;
    options.overwrite = overwrite;
    Quiet quiet;
    const std::string message = message_of([&] { quiet.run(options); });
    EXPECT_NE(message.find("would replace"), std::string::npos) << message;
    EXPECT_EQ(tree(dir), before);
  }
}

TEST_F(RunFolderTest, ASecondRunIntoAHeldFolderFailsNamingTheOtherPid) {
  const fs::path root = test::scratch();
  const fs::path dir = root / "out";
  const fs::path config = cavity_config(root);
  RunFolder held(dir);  // as a run in progress holds it
  for (const bool overwrite : {false, true}) {
    RunOptions options = options_for(config, dir);
    options.overwrite = overwrite;
    Quiet quiet;
    const std::string message = message_of([&] { quiet.run(options); });
    EXPECT_NE(message.find("(pid " + std::to_string(::getpid()) + ")"), std::string::npos) << message;
  }
}

// ---- items 2 and 3: a restart as a new segment of the run ----

TEST_F(RunFolderTest, RestartWritesWhereRunOutputDirSaysAndLeavesTheOldFolderAlone) {
  const fs::path root = test::scratch();
  const fs::path dir = root / "out", next = root / "next";
  const fs::path config = cavity_config(root);
  Quiet quiet;
  RunOptions first = options_for(config, dir);
  first.stop_after_steps = 3;
  const RunSummary stopped = quiet.run(first);
  ASSERT_TRUE(stopped.interrupted);
  const Tree before = tree(dir);
  RunOptions resume;
  resume.restart = stopped.last_checkpoint;
  resume.overrides = {"run.output_dir=\"" + next.string() + "\""};
  const RunSummary resumed = quiet.run(resume);
  EXPECT_EQ(tree(dir), before);
  EXPECT_EQ(resumed.output_dir, next);
  EXPECT_EQ(resumed.last_checkpoint.parent_path(), next / "checkpoints");
  EXPECT_TRUE(fs::exists(resumed.last_checkpoint));
  EXPECT_TRUE(fs::exists(next / "summary.json"));
}

TEST_F(RunFolderTest, ACheckpointOutsideACheckpointsFolderNeedsRunOutputDir) {
  const fs::path root = test::scratch();
  const fs::path dir = root / "out";
  Quiet quiet;
  RunOptions first = options_for(cavity_config(root), dir);
  first.stop_after_steps = 3;
  const RunSummary stopped = quiet.run(first);
  const fs::path loose = root / "elsewhere" / "saved.h5";
  fs::create_directories(loose.parent_path());
  fs::copy_file(stopped.last_checkpoint, loose);
  const Tree before = tree(root);
  RunOptions resume;
  resume.restart = loose;
  const std::string message = message_of([&] { quiet.run(resume); });
  EXPECT_NE(message.find("--set run.output_dir="), std::string::npos) << message;
  EXPECT_EQ(tree(root), before);
}

TEST_F(RunFolderTest, RestartRefusesACheckpointThatAnotherRunPutInTheFolder) {
  const fs::path root = test::scratch();
  const fs::path a = root / "a", b = root / "b";
  const fs::path config = cavity_config(root);
  Quiet quiet;
  RunOptions first = options_for(config, a);
  first.stop_after_steps = 3;
  const RunSummary stopped = quiet.run(first);
  quiet.run(options_for(config, b));
  const fs::path planted = b / "checkpoints" / "checkpoint_000000003.h5";
  ASSERT_FALSE(fs::exists(planted));
  fs::copy_file(stopped.last_checkpoint, planted);
  const Tree before = tree(b);
  RunOptions resume;
  resume.restart = planted;
  const std::string message = message_of([&] { quiet.run(resume); });
  EXPECT_NE(message.find("is not one rtdg wrote into"), std::string::npos) << message;
  EXPECT_EQ(tree(b), before);
}

// A restart from an earlier point of a finished run: refused without --overwrite (nothing
// touched); with it, the later outputs go and the series, probes, checkpoints and summary agree.
TEST_F(RunFolderTest, RestartFromAnEarlierPointTruncatesTheLaterOutputsOnlyWithOverwrite) {
  const fs::path root = test::scratch();
  const fs::path dir = root / "out";
  Quiet quiet;
  const RunSummary full = quiet.run(options_for(cavity_config(root), dir));
  const std::vector<std::pair<std::string, RunFolder::Entry>> checkpoints = [&] {
    RunFolder folder(dir);
    return folder.of_kind("checkpoint");
  }();
  ASSERT_GE(checkpoints.size(), 3u);
  const fs::path earlier = dir / checkpoints[1].first;  // at t = 0.1
  const output::Solution from = output::read_solution(earlier);
  const Tree before = tree(dir);
  RunOptions resume;
  resume.restart = earlier;
  const std::string message = message_of([&] { quiet.run(resume); });
  EXPECT_NE(message.find("--overwrite"), std::string::npos) << message;
  EXPECT_NE(message.find("written after it"), std::string::npos) << message;
  EXPECT_EQ(tree(dir), before);

  resume.overwrite = true;
  const RunSummary resumed = quiet.run(resume);
  EXPECT_EQ(resumed.final_step, full.final_step);
  EXPECT_TRUE(fs::exists(resumed.last_checkpoint));
  // The summary names files that exist.
  const std::string summary = read_text(dir / "summary.json");
  EXPECT_NE(summary.find(resumed.last_checkpoint.string()), std::string::npos);
  // Checkpoints: those up to the restart and the new ones, each step once, the newest last.
  RunFolder folder(dir);
  long long previous = -1;
  for (const auto& [path, entry] : folder.of_kind("checkpoint")) {
    EXPECT_TRUE(fs::exists(dir / path)) << path;
    EXPECT_GT(entry.step, previous);
    previous = entry.step;
  }
  EXPECT_EQ(previous, resumed.final_step);
  // The probe's rows: times strictly increasing, one history.
  std::istringstream rows(read_text(dir / "centre.csv"));
  std::string row;
  std::getline(rows, row);  // header
  double last_time = -1;
  int count = 0;
  while (std::getline(rows, row)) {
    const double time = std::stod(row.substr(0, row.find(',')));
    EXPECT_GT(time, last_time) << row;
    last_time = time;
    ++count;
  }
  EXPECT_GT(count, 0);
  EXPECT_NEAR(last_time, 0.3, 1e-12);
  if (output::vtu_available()) {
    const output::PvdSeries series(dir / "cavity.pvd");
    double t = -1;
    for (const auto& e : series.entries()) {
      EXPECT_GT(e.time, t);
      t = e.time;
      EXPECT_TRUE(fs::exists(dir / e.file)) << e.file;
    }
    EXPECT_EQ(series.entries().size(), 4u);
  }
  EXPECT_GT(from.time, 0);
}

// Item 9: a '.' in run.name is part of the name, not an extension: every snapshot is kept.
TEST_F(RunFolderTest, ARunNameWithADotKeepsEverySnapshot) {
  const fs::path root = test::scratch();
  const fs::path dir = root / "out";
  Quiet quiet;
  quiet.run(options_for(cavity_config(root, "a.5"), dir));
  for (int i = 0; i <= 3; ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "a.5_%04d.h5", i);
    ASSERT_TRUE(fs::exists(dir / "snapshots" / name)) << name;
    EXPECT_NEAR(output::read_solution(dir / "snapshots" / name).time, 0.1 * i, 1e-12) << name;
  }
  EXPECT_FALSE(fs::exists(dir / "snapshots" / "a.h5"));
  if (output::vtu_available()) {
    const output::PvdSeries series(dir / "a.5.pvd");
    ASSERT_EQ(series.entries().size(), 4u);
    EXPECT_EQ(series.entries()[3].file.generic_string(), "snapshots/a.5_0003.vtu");
  }
}

}  // namespace
}  // namespace rtdg::runner
