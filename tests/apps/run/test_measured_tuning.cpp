// The measured tuning (data/tuning/measured/*.json, dg::measured_tuning): the built-in
// documents parse, every record's template hash is the one today's generator gives the config
// it was measured with (a changed generator leaves records no run reaches, which this test
// reports), the lookup takes only records of a device of the same name, and choose_plan uses
// them after the user's database and before tuning.
#include "run_support.hpp"

#include <dg/error.hpp>
#include <dg/plan.hpp>
#include <dg/solver.hpp>
#include <dg/tuning.hpp>
#include <rtcg/backend.hpp>
#include <rtcg/tuning_db.hpp>
#include <runner/problem.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>
#include <string>

namespace rtdg::runner {
namespace {

namespace fs = std::filesystem;

const fs::path source_dir = RTDG_SOURCE_DIR;

// A record of `problem` and `hash` measured on `device`, whose winner is `plan`.
rtcg::tune::TuningRecord record_of(const rtcg::tune::DeviceFingerprint& device, const std::string& hash,
                                   const rtcg::tune::ProblemClass& problem, const dg::Plan& plan) {
  rtcg::tune::TuningRecord record;
  record.device = device;
  record.family = dg::plan_family;
  record.template_hash = hash;
  record.problem = problem;
  record.winner = dg::point_of(plan);
  record.created = "2026-12-02T00:00:00Z";
  return record;
}

TEST(MeasuredTuning, BuiltInDocumentsParseAndNameTheirConfigs) {
  const dg::MeasuredTuning& measured = dg::measured_tuning();
  for (const rtcg::tune::TuningRecord& record : measured.records) {
    ASSERT_TRUE(measured.configs.count(record.template_hash)) << record.problem.describe();
    EXPECT_TRUE(fs::exists(source_dir / measured.configs.at(record.template_hash)))
        << measured.configs.at(record.template_hash);
    EXPECT_EQ(record.device.backend, "cuda") << record.device.describe();
  }
}

// Every record's template hash, recomputed from its config on the host backend at order 1
// (the hash depends on the law, its boundaries and the precision, not on the order or mesh).
TEST(MeasuredTuning, TemplateHashesAreTodaysGenerators) {
  const dg::MeasuredTuning& measured = dg::measured_tuning();
  std::map<std::pair<std::string, std::string>, std::set<std::string>> wanted;  // (config, precision) -> hashes
  for (const rtcg::tune::TuningRecord& record : measured.records) {
    const std::string precision = record.problem.kind.find("/f32/") != std::string::npos ? "float" : "double";
    wanted[{measured.configs.at(record.template_hash), precision}].insert(record.template_hash);
  }
  if (wanted.empty()) GTEST_SKIP() << "no measured tuning is built in";
  test::Quiet quiet;
  for (const auto& [key, hashes] : wanted) {
    const auto& [config, precision] = key;
    auto problem = load_problem(source_dir / config,
                                {"mesh.file=\"" + (source_dir / "data/meshes/sphere.h5").string() + "\"",
                                 "run.backend=\"host\"", "discretization.order=1", "run.precision=\"" + precision + "\""});
    dg::Solver solver(rtcg::backend(problem->cfg.backend), problem->disc, problem->setup);
    const std::string hash = dg::kernel_hash(solver.kernel_spec());
    for (const std::string& stored : hashes)
      EXPECT_EQ(stored, hash) << config << " in " << precision << ": the measured tuning's records of template "
                              << stored << " were measured with another generator or law; today's template is " << hash
                              << ". Measure them again (scripts/ship-tuning, docs/tuning.md) or remove them.";
  }
}

TEST(MeasuredTuning, MalformedDocumentsAreRefusedWithTheirSource) {
  EXPECT_THROW(dg::parse_measured_tuning("{", "bad.json"), dg::Error);
  const std::string not_dg = R"({"schema": "rtdg-tuning-1", "configs": {"abc": "data/maxwell/sphere.toml"},
    "records": [{"device": {"backend": "cuda", "name": "X", "arch": "sm_90", "compute_capability_major": 9,
      "compute_capability_minor": 0, "multiprocessors": 1, "total_memory": 1, "memory_clock_khz": 1, "driver_version": 1},
      "family": "array_axpy", "template_hash": "abc", "problem": {"kind": "f64", "size_class": 3},
      "winner": {"block": 256}, "timings": [], "created": "x"}]})";
  try {
    dg::parse_measured_tuning(not_dg, "not_dg.json");
    FAIL() << "a record of another family was taken";
  } catch (const dg::Error& e) {
    EXPECT_NE(std::string(e.what()).find("not_dg.json"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("array_axpy"), std::string::npos) << e.what();
  }
}

// On the host backend: a record measured on a device of this name (another driver) is taken
// by choose_plan when the user's database has nothing; one of another name is not looked at.
TEST(MeasuredTuning, ChoosePlanTakesRecordsOfTheSameDeviceName) {
  test::Quiet quiet;
  const fs::path root = test::scratch();
  auto problem = load_problem(source_dir / "data/maxwell/sphere.toml",
                              {"mesh.file=\"" + (source_dir / "data/meshes/sphere.h5").string() + "\"",
                               "run.backend=\"host\"", "discretization.order=1"});
  rtcg::Backend& backend = rtcg::backend(problem->cfg.backend);
  dg::Solver solver(backend, problem->disc, problem->setup);
  const std::string hash = dg::kernel_hash(solver.kernel_spec());
  const rtcg::tune::ProblemClass problem_class = dg::plan_problem(solver);
  dg::Plan plan;
  plan.layout = dg::Layout::element_major;  // a tuned value (the point holds only those)
  ASSERT_NE(plan.describe(), dg::Plan{}.describe());

  rtcg::tune::DeviceFingerprint same_name = rtcg::tune::DeviceFingerprint::of(backend);
  same_name.driver_version += 1;
  rtcg::tune::ProblemClass other_size = problem_class;
  other_size.size_class += 3;
  dg::MeasuredTuning measured;
  measured.source = "test";
  measured.records = {record_of(same_name, hash, other_size, plan)};
  measured.configs[hash] = "data/maxwell/sphere.toml";

  const rtcg::tune::Lookup found = dg::measured_lookup(measured, rtcg::tune::DeviceFingerprint::of(backend), hash, problem_class);
  EXPECT_EQ(found.step, rtcg::tune::LookupStep::same_architecture);
  EXPECT_EQ(dg::plan_of(found.point).describe(), plan.describe());

  rtcg::tune::TuningDb empty(root / "tuning.json");
  const dg::PlanChoice choice =
      dg::choose_plan(solver, rtcg::tune::TuneMode::automatic, empty, 1.0, dg::PlanSpace::for_backend(backend.kind()),
                      nullptr, &measured);
  EXPECT_EQ(choice.source.rfind("measured tuning, test (same architecture", 0), 0u) << choice.source;
  EXPECT_EQ(choice.plan.describe(), plan.describe());
  EXPECT_EQ(solver.setup().plan.describe(), plan.describe());
  EXPECT_FALSE(choice.tuned);

  rtcg::tune::DeviceFingerprint other_name = same_name;
  other_name.name += " (another model)";
  measured.records = {record_of(other_name, hash, problem_class, plan)};
  EXPECT_EQ(dg::measured_lookup(measured, rtcg::tune::DeviceFingerprint::of(backend), hash, problem_class).step,
            rtcg::tune::LookupStep::builtin_default);
  // Another template (another law or generator) is never taken either.
  measured.records = {record_of(same_name, "0000000000000000", problem_class, plan)};
  EXPECT_EQ(dg::measured_lookup(measured, rtcg::tune::DeviceFingerprint::of(backend), hash, problem_class).step,
            rtcg::tune::LookupStep::builtin_default);
}

}  // namespace
}  // namespace rtdg::runner
