// The tuner and the tuning database on the host backend: search spaces, picking the fastest
// of variants whose relative cost is known, dropping broken variants with their reasons, the
// database's round trip and fallback steps, RTDG_TUNE, and the array operations' jobs.
#include <rtcg/array_tuning.hpp>
#include <rtcg/backend.hpp>
#include <rtcg/elementwise.hpp>
#include <rtcg/log.hpp>
#include <rtcg/tuner.hpp>
#include <rtcg/tuning_db.hpp>

#include <gtest/gtest.h>
#include <omp.h>
#include <spdlog/sinks/ringbuffer_sink.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <thread>

namespace {

namespace fs = std::filesystem;
using rtcg::tune::Point;

rtcg::Backend& host() { return rtcg::backend("host"); }

std::string message_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const rtcg::Error& error) {
    return error.what();
  }
  return "(no error)";
}

// A fresh folder per test, removed afterwards.
class TempDir {
public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "rtdg-tuner-XXXXXX").string();
    path_ = ::mkdtemp(pattern.data());
  }
  ~TempDir() {
    std::error_code error;
    fs::remove_all(path_, error);
  }
  const fs::path& path() const { return path_; }

private:
  fs::path path_;
};

// Captures what rtcg logs while it lives.
class LogCapture {
public:
  LogCapture() : sink_(std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(200)) { rtcg::log().sinks().push_back(sink_); }
  ~LogCapture() {
    auto& sinks = rtcg::log().sinks();
    sinks.erase(std::remove(sinks.begin(), sinks.end(), sink_), sinks.end());
  }
  std::string text() const {
    std::string all;
    for (const auto& line : sink_->last_formatted()) all += line;
    return all;
  }

private:
  std::shared_ptr<spdlog::sinks::ringbuffer_sink_mt> sink_;
};

rtcg::tune::TimingOptions fast_options() {
  rtcg::tune::TimingOptions options;
  options.warmup_runs = 1;
  options.min_runs = 3;
  options.max_runs = 7;
  options.flush_bytes = 1 << 20;
  return options;
}

// A trivial program every sleep-variant shares (compiled once through the memo).
rtcg::Program trivial_program() {
  rtcg::Program program;
  program.name = "tuner_trivial";
  program.source = "RTCG_KERNEL(tuner_trivial)(double* x, long long n) {\n  RTCG_GLOBAL_LOOP(i, n) { x[i] = 0; }\n}\n";
  return program;
}

// Variants whose cost is `cost` milliseconds of sleep: known relative cost, no noise to speak of.
rtcg::tune::Job sleeping_job(std::atomic<int>* generated = nullptr) {
  rtcg::tune::Job job;
  job.family = "sleep_test";
  job.problem = {"f64", 10};
  job.template_hash = rtcg::tune::template_hash("sleep_test v1");
  job.space.parameter("cost", {6, 2, 4, 12});
  job.default_point = {{"cost", 6}};
  job.generate = [generated](const Point& point) {
    if (generated) ++*generated;
    rtcg::tune::Variant variant;
    variant.program = trivial_program();
    const auto milliseconds = point.at("cost");
    variant.run = [milliseconds](const rtcg::Module&) {
      std::this_thread::sleep_for(std::chrono::milliseconds(milliseconds));
    };
    return variant;
  };
  return job;
}

// ---------------------------------------------------------------------------------------------

TEST(SearchSpace, EnumeratesInOrderAndAppliesConstraints) {
  rtcg::tune::SearchSpace space;
  space.parameter("block", {128, 256, 512})
      .parameter("items", {1, 2, 4})
      .constraint("block * items <= 512", [](const Point& p) { return p.at("block") * p.at("items") <= 512; });
  const auto points = space.points();
  ASSERT_EQ(points.size(), 6u);  // 128x{1,2,4}, 256x{1,2}, 512x{1}
  EXPECT_EQ(rtcg::tune::to_string(points[0]), "block=128 items=1");
  EXPECT_EQ(rtcg::tune::to_string(points[2]), "block=128 items=4");
  EXPECT_EQ(rtcg::tune::to_string(points[5]), "block=512 items=1");
  std::string why;
  EXPECT_FALSE(space.contains({{"block", 512}, {"items", 2}}, &why));
  EXPECT_NE(why.find("block * items <= 512"), std::string::npos);
  EXPECT_FALSE(space.contains({{"block", 64}, {"items", 1}}, &why));
  EXPECT_NE(why.find("block=64 is not a candidate"), std::string::npos);
  EXPECT_EQ(space.describe(), "block in {128, 256, 512}; items in {1, 2, 4}; where block * items <= 512");
  EXPECT_NE(message_of([&] { space.parameter("block", {1}); }).find("declared twice"), std::string::npos);
  EXPECT_NE(message_of([&] { space.parameter("grid", {}); }).find("no candidate values"), std::string::npos);
}

// Constraints that name what they read prune partial points; the result is the full product's,
// filtered, in the same order. A predicate that reads a parameter it does not name is an error.
TEST(SearchSpace, ConstraintsOnPartialPointsGiveTheFilteredProduct) {
  auto build = [](bool name_reads) {
    rtcg::tune::SearchSpace space;
    space.parameter("a", {0, 1, 2}).parameter("b", {0, 1, 2, 3}).parameter("c", {1, 2}).parameter("d", {5, 6, 7});
    auto reads = [name_reads](std::vector<std::string> names) {
      return name_reads ? names : std::vector<std::string>{};
    };
    space.constraint("a <= b", reads({"a", "b"}), [](const Point& p) { return p.at("a") <= p.at("b"); })
        .constraint("c = 2 only with a = 1", reads({"c", "a"}), [](const Point& p) { return p.at("c") == 1 || p.at("a") == 1; })
        .constraint("d odd with b even", reads({"b", "d"}), [](const Point& p) { return p.at("b") % 2 == 1 || p.at("d") % 2 == 1; })
        .constraint("a + d < 9", [](const Point& p) { return p.at("a") + p.at("d") < 9; });
    return space;
  };
  const auto pruned = build(true).points(), full = build(false).points();
  ASSERT_FALSE(full.empty());
  EXPECT_EQ(pruned, full);
  for (const Point& p : full) EXPECT_TRUE(build(true).contains(p)) << rtcg::tune::to_string(p);
  rtcg::tune::SearchSpace wrong;
  wrong.parameter("a", {1, 2}).parameter("b", {1, 2});
  wrong.constraint("a < b (names a only)", {"a"}, [](const Point& p) { return p.at("a") < p.at("b"); });
  EXPECT_NE(message_of([&] { (void)wrong.points(); }).find("reads a parameter it does not name"), std::string::npos);
  rtcg::tune::SearchSpace unknown;
  unknown.parameter("a", {1});
  unknown.constraint("c", {"z"}, [](const Point&) { return true; });
  EXPECT_NE(message_of([&] { (void)unknown.points(); }).find("`z`, which is not a parameter"), std::string::npos);
  rtcg::tune::SearchSpace whole;
  whole.parameter("a", {1});
  whole.constraint("reads z", [](const Point& p) { return p.at("z") == 1; });
  EXPECT_NE(message_of([&] { (void)whole.points(); }).find("reads a parameter the space does not have"), std::string::npos);
}

TEST(Statistics, MedianAndSpread) {
  EXPECT_EQ(rtcg::tune::median({3, 1, 2}), 2);
  EXPECT_EQ(rtcg::tune::median({4, 1, 3, 2}), 2.5);
  EXPECT_NEAR(rtcg::tune::interquartile_spread({1, 1, 1, 1}), 0, 1e-15);
  EXPECT_NEAR(rtcg::tune::interquartile_spread({1, 2, 3, 4, 5}), (4.0 - 2.0) / 3.0, 1e-12);
}

TEST(Tuner, PicksTheFastestOfVariantsWithKnownRelativeCost) {
  const rtcg::tune::Tuner tuner(host(), fast_options());
  const auto result = tuner.tune(sleeping_job());
  ASSERT_TRUE(result.winner);
  EXPECT_EQ(result.best().point.at("cost"), 2);
  for (const auto& v : result.variants) {
    EXPECT_TRUE(v.ok()) << v.reason;
    EXPECT_GE(v.median_ms, static_cast<double>(v.point.at("cost")));
    EXPECT_LT(v.median_ms, static_cast<double>(v.point.at("cost")) * 3 + 5);
  }
  // 12 ms is clearly slower than the 6 ms default timed first: stopped at min_runs.
  const auto slowest = std::find_if(result.variants.begin(), result.variants.end(),
                                    [](const auto& v) { return v.point.at("cost") == 12; });
  EXPECT_TRUE(slowest->stopped_early);
  EXPECT_EQ(slowest->times_ms.size(), 3u);
  const std::string table = rtcg::tune::format_table(result);
  EXPECT_NE(table.find(" * cost=2"), std::string::npos) << table;
  EXPECT_NE(table.find("winner: cost=2"), std::string::npos) << table;
  EXPECT_NE(table.find("stopped early"), std::string::npos) << table;
}

TEST(Tuner, PicksTheCheapestRealKernel) {
  // Each variant does `reps` dependent updates per element: cost grows with reps.
  rtcg::tune::Job job;
  job.family = "reps_test";
  job.problem = {"f64", 18};
  job.template_hash = rtcg::tune::template_hash("reps_test v1");
  job.space.parameter("reps", {16, 1, 64});
  job.default_point = {{"reps", 16}};
  auto x = std::make_shared<rtcg::Array<double>>(rtcg::Array<double>::filled(host(), {1u << 18}, 1.0));
  job.generate = [x](const Point& point) {
    const rtcg::ElementwiseSpec spec{"reps_" + std::to_string(point.at("reps")), "double* x",
                                     "double v = x[i]; for (int r = 0; r < " + std::to_string(point.at("reps")) +
                                         "; ++r) v = sqrt(v * 1.0000001 + 1e-9); x[i] = v",
                                     ""};
    rtcg::tune::Variant variant;
    variant.program = rtcg::elementwise_program(spec, {});
    variant.launches = {{spec.name, rtcg::elementwise_shape({}, x->size(), 1)}};
    variant.run = [x, spec](const rtcg::Module& module) {
      module.kernel(spec.name)->operator()(rtcg::LaunchShape{{1}, {256}}, x->data(), static_cast<long long>(x->size()));
    };
    return variant;
  };
  // One OpenMP thread: with tests running in parallel, many threads per kernel are at the
  // mercy of the scheduler (a 16-core machine showed 3x stalls), which would swamp the
  // known cost ratios this test relies on.
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  const auto result = rtcg::tune::Tuner(host(), fast_options()).tune(job);
  omp_set_num_threads(threads);
  EXPECT_EQ(result.best().point.at("reps"), 1) << rtcg::tune::format_table(result);
  // Each timed variant records its kernel's launch; the host gives no registers or occupancy.
  for (const rtcg::tune::Timing& t : result.variants) {
    ASSERT_EQ(t.kernels.size(), 1u) << rtcg::tune::to_string(t.point);
    EXPECT_EQ(t.kernels[0].kernel, "reps_" + std::to_string(t.point.at("reps")));
    EXPECT_EQ(t.kernels[0].threads, static_cast<int>(rtcg::elementwise_shape({}, x->size(), 1).block.x));
    EXPECT_EQ(t.kernels[0].registers, 0);
    EXPECT_EQ(t.kernels[0].blocks_per_multiprocessor, 0);
  }
}

TEST(Tuner, DropsBrokenVariantsAndKeepsTheReasons) {
  rtcg::tune::Job job = sleeping_job();
  job.space = {};
  job.space.parameter("cost", {1, 2, 3, 4, 5});
  job.default_point = {{"cost", 1}};
  const auto sleep_generate = job.generate;
  auto last_cost = std::make_shared<std::int64_t>(0);
  job.generate = [sleep_generate, last_cost](const Point& point) {
    const auto cost = point.at("cost");
    if (cost == 2) throw rtcg::Error("no such variant");
    rtcg::tune::Variant variant = sleep_generate(point);
    if (cost == 3) variant.program.source = "this is not C++";
    if (cost == 4) variant.run = [](const rtcg::Module&) { throw rtcg::LaunchError("launch refused"); };
    if (cost == 5) variant.run = [last_cost](const rtcg::Module&) { *last_cost = 5; };
    if (cost == 1) variant.run = [last_cost](const rtcg::Module&) { *last_cost = 1; };
    return variant;
  };
  job.check = [last_cost]() -> std::string { return *last_cost == 5 ? "element 7 is 2, a plain loop gives 3" : ""; };
  const auto result = rtcg::tune::Tuner(host(), fast_options()).tune(job);
  ASSERT_EQ(result.variants.size(), 5u);
  EXPECT_TRUE(result.variants[0].ok());
  EXPECT_EQ(result.variants[1].status, "generate");
  EXPECT_EQ(result.variants[1].reason, "no such variant");
  EXPECT_EQ(result.variants[2].status, "compile");
  EXPECT_NE(result.variants[2].reason.find("error"), std::string::npos);
  EXPECT_EQ(result.variants[3].status, "run");
  EXPECT_EQ(result.variants[3].reason, "launch refused");
  EXPECT_EQ(result.variants[4].status, "check");
  EXPECT_EQ(result.variants[4].reason, "element 7 is 2, a plain loop gives 3");
  EXPECT_EQ(result.best().point.at("cost"), 1);
  const std::string table = rtcg::tune::format_table(result);
  EXPECT_NE(table.find("dropped (check): element 7 is 2"), std::string::npos) << table;
  EXPECT_NE(table.find("5 variants, 4 dropped"), std::string::npos) << table;
}

// A generator's Pruned: the point is dropped before compiling with status "pruned" and the
// rule as its reason; the others are compiled and timed as usual.
TEST(Tuner, PrunedPointsAreNotCompiled) {
  rtcg::tune::Job job = sleeping_job();
  job.space = {};
  // Costs far apart (2 and 12 ms timed), so a loaded machine's scheduling cannot swap them.
  job.space.parameter("cost", {2, 4, 12});
  job.default_point = {{"cost", 2}};
  const auto sleep_generate = job.generate;
  auto generated = std::make_shared<std::atomic<int>>(0);
  job.generate = [sleep_generate, generated](const Point& point) {
    if (point.at("cost") == 4) throw rtcg::tune::Pruned("it would lose occupancy: 1 block per SM instead of 2");
    ++*generated;
    return sleep_generate(point);
  };
  const auto result = rtcg::tune::Tuner(host(), fast_options()).tune(job);
  ASSERT_EQ(result.variants.size(), 3u);
  EXPECT_TRUE(result.variants[0].ok());
  EXPECT_EQ(result.variants[1].status, "pruned");
  EXPECT_EQ(result.variants[1].reason, "it would lose occupancy: 1 block per SM instead of 2");
  EXPECT_TRUE(result.variants[1].times_ms.empty());
  EXPECT_TRUE(result.variants[2].ok());
  EXPECT_EQ(generated->load(), 2);
  EXPECT_EQ(result.best().point.at("cost"), 2);
  const std::string table = rtcg::tune::format_table(result);
  EXPECT_NE(table.find("dropped (pruned): it would lose occupancy"), std::string::npos) << table;
  EXPECT_NE(table.find("3 variants, 0 dropped, 1 pruned; compiled in"), std::string::npos) << table;
}

// Job::derive: points added from what a compiled variant uses, once each, compiled and timed with
// the rest; a derived point derives nothing, and one the generator prunes is pruned.
TEST(Tuner, DerivedPointsAreCompiledAndTimedOnce) {
  rtcg::tune::Job job = sleeping_job();
  job.space = {};
  job.space.parameter("cost", {6, 24});  // derived: 1 ms, far below 6 on a loaded machine
  job.default_point = {{"cost", 6}};
  const auto sleep_generate = job.generate;
  job.generate = [sleep_generate](const Point& point) {
    if (point.at("cost") == 5) throw rtcg::tune::Pruned("five is pruned");
    rtcg::tune::Variant variant = sleep_generate(point);
    variant.launches = {{"tuner_trivial", rtcg::LaunchShape{{1}, {64}}}};
    return variant;
  };
  auto calls = std::make_shared<std::vector<std::int64_t>>();
  job.derive = [calls](const Point& point, const std::vector<rtcg::tune::KernelUse>& uses) {
    calls->push_back(point.at("cost"));
    EXPECT_EQ(uses.size(), 1u);
    if (!uses.empty()) {
      EXPECT_EQ(uses[0].kernel, "tuner_trivial");
      EXPECT_EQ(uses[0].threads, 64);
    }
    // 6 derives 1 (new), 24 (already there) and 5 (pruned); 24 derives 1 again (added once).
    if (point.at("cost") == 6) return std::vector<Point>{{{"cost", 1}}, {{"cost", 24}}, {{"cost", 5}}};
    return std::vector<Point>{{{"cost", 1}}};
  };
  const auto result = rtcg::tune::Tuner(host(), fast_options()).tune(job);
  std::sort(calls->begin(), calls->end());
  EXPECT_EQ(*calls, (std::vector<std::int64_t>{6, 24}));  // not called for the derived points
  ASSERT_EQ(result.variants.size(), 4u);
  EXPECT_EQ(result.variants[2].point.at("cost"), 1);
  EXPECT_TRUE(result.variants[2].ok()) << result.variants[2].reason;
  EXPECT_FALSE(result.variants[2].times_ms.empty());
  EXPECT_EQ(result.variants[3].point.at("cost"), 5);
  EXPECT_EQ(result.variants[3].status, "pruned");
  EXPECT_EQ(result.best().point.at("cost"), 1);
}

// Job::refine: called once, with the winner after every point was timed; its new points are
// compiled and timed after the rest (one already there is not added again), and the winner is
// chosen over all of them.
TEST(Tuner, RefinedPointsAreTimedAfterTheRestFromTheWinner) {
  rtcg::tune::Job job = sleeping_job();
  job.space = {};
  job.space.parameter("cost", {6, 24});
  job.default_point = {{"cost", 24}};
  auto calls = std::make_shared<std::vector<std::int64_t>>();
  job.refine = [calls](const Point& winner) {
    calls->push_back(winner.at("cost"));
    return std::vector<Point>{{{"cost", 1}}, {{"cost", 24}}, {{"cost", 12}}, {{"cost", 1}}};
  };
  const auto result = rtcg::tune::Tuner(host(), fast_options()).tune(job);
  EXPECT_EQ(*calls, std::vector<std::int64_t>{6});
  ASSERT_EQ(result.variants.size(), 4u);
  EXPECT_EQ(result.variants[2].point.at("cost"), 1);
  EXPECT_EQ(result.variants[3].point.at("cost"), 12);
  for (const rtcg::tune::Timing& t : result.variants) {
    EXPECT_TRUE(t.ok()) << t.reason;
    EXPECT_FALSE(t.times_ms.empty());
  }
  EXPECT_EQ(result.best().point.at("cost"), 1);

  // A refinement that loses leaves the winner as it was; one with nothing to add adds nothing.
  job.refine = [](const Point&) { return std::vector<Point>{{{"cost", 12}}}; };
  EXPECT_EQ(rtcg::tune::Tuner(host(), fast_options()).tune(job).best().point.at("cost"), 6);
  job.refine = [](const Point& winner) { return std::vector<Point>{winner}; };
  EXPECT_EQ(rtcg::tune::Tuner(host(), fast_options()).tune(job).variants.size(), 2u);
}

// What limits a variant of several kernels: the most registers, the fewest blocks per SM that
// a backend reported (0, unknown, is not a limit).
TEST(Tuner, ResourceLimitIsTheWorstKernel) {
  EXPECT_EQ(rtcg::tune::resource_limit({}).registers, 0);
  EXPECT_EQ(rtcg::tune::resource_limit({}).blocks_per_multiprocessor, 0);
  const rtcg::tune::ResourceLimit limit =
      rtcg::tune::resource_limit({{"a", 40, 128, 0, 12}, {"b", 72, 128, 4096, 0}, {"c", 56, 256, 0, 7}});
  EXPECT_EQ(limit.registers, 72);
  EXPECT_EQ(limit.blocks_per_multiprocessor, 7);
}

TEST(Tuner, RejectsADefaultOutsideTheSpace) {
  rtcg::tune::Job job = sleeping_job();
  job.default_point = {{"cost", 3}};
  EXPECT_NE(message_of([&] { (void)rtcg::tune::Tuner(host()).tune(job); }).find("cost=3 is not a candidate value"),
            std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// The database

rtcg::tune::TuningRecord make_record(const std::string& device_name, const std::string& arch, std::int64_t size_class,
                                     std::int64_t block) {
  rtcg::tune::TuningRecord record;
  record.device.backend = "cuda";
  record.device.name = device_name;
  record.device.arch = arch;
  record.device.compute_capability_major = 9;
  record.device.multiprocessors = 132;
  record.device.total_memory = 85ull << 30;
  record.device.memory_clock_khz = 2619000;
  record.device.driver_version = 13000;
  record.family = "axpy";
  record.template_hash = "abc123";
  record.problem = {"f64", size_class};
  record.winner = {{"block", block}, {"items", 2}};
  rtcg::tune::Timing fast;
  fast.point = record.winner;
  fast.status = "ok";
  fast.times_ms = {1.5, 1.25, 1.75};
  fast.median_ms = 1.5;
  fast.min_ms = 1.25;
  fast.max_ms = 1.75;
  fast.spread = 0.25;
  fast.kernels = {{"axpy", 40, 256, 1024, 8}};
  rtcg::tune::Timing dropped;
  dropped.point = {{"block", 1024}, {"items", 8}};
  dropped.status = "spill";
  dropped.reason = "uses 64 bytes of local memory";
  record.timings = {fast, dropped};
  record.created = "2026-11-22T07:00:00Z";
  return record;
}

TEST(TuningDb, RoundTripsEveryTimingAndReplacesTheSameKey) {
  TempDir dir;
  const auto file = dir.path() / "sub" / "tuning.json";
  {
    rtcg::tune::TuningDb db(file);
    db.store(make_record("H100", "sm_90", 28, 256));
    db.store(make_record("H100", "sm_90", 20, 128));
    db.store(make_record("H100", "sm_90", 28, 512));  // replaces the first
  }
  rtcg::tune::TuningDb again(file);
  const auto records = again.records();
  ASSERT_EQ(records.size(), 2u);
  const auto stored = again.find_exact(records[0].device, "axpy", "abc123", {"f64", 28});
  ASSERT_TRUE(stored);
  EXPECT_EQ(stored->winner.at("block"), 512);
  ASSERT_EQ(stored->timings.size(), 2u);
  EXPECT_EQ(stored->timings[0].times_ms, (std::vector<double>{1.5, 1.25, 1.75}));
  EXPECT_EQ(stored->timings[0].median_ms, 1.5);
  EXPECT_EQ(stored->timings[0].kernels, (std::vector<rtcg::tune::KernelUse>{{"axpy", 40, 256, 1024, 8}}));
  EXPECT_TRUE(stored->timings[1].kernels.empty());
  EXPECT_EQ(stored->timings[1].status, "spill");
  EXPECT_EQ(stored->timings[1].reason, "uses 64 bytes of local memory");
  EXPECT_EQ(stored->device, make_record("H100", "sm_90", 0, 0).device);
  EXPECT_EQ(stored->created, "2026-11-22T07:00:00Z");
}

TEST(TuningDb, FallsBackInStepsAndLogsTheStep) {
  TempDir dir;
  rtcg::tune::TuningDb db(dir.path() / "tuning.json");
  db.store(make_record("H100", "sm_90", 28, 256));
  db.store(make_record("H100", "sm_90", 20, 128));
  db.store(make_record("H200", "sm_90", 24, 1024));
  const auto h100 = make_record("H100", "sm_90", 0, 0).device;
  auto other_gpu = make_record("GH200", "sm_90", 0, 0).device;
  other_gpu.multiprocessors = 144;
  const auto other_arch = make_record("A100", "sm_80", 0, 0).device;
  const Point fallback = {{"block", 64}};

  LogCapture log;
  auto exact = db.lookup(h100, "axpy", "abc123", {"f64", 20}, fallback);
  EXPECT_EQ(exact.step, rtcg::tune::LookupStep::exact);
  EXPECT_EQ(exact.point.at("block"), 128);
  EXPECT_NE(log.text().find("(exact)"), std::string::npos) << log.text();

  auto nearest = db.lookup(h100, "axpy", "abc123", {"f64", 26}, fallback);
  EXPECT_EQ(nearest.step, rtcg::tune::LookupStep::nearest_problem);
  EXPECT_EQ(nearest.point.at("block"), 256);  // 28 is nearer to 26 than 20
  EXPECT_NE(log.text().find("nearest problem class: measured for f64, size class 28"), std::string::npos) << log.text();

  auto arch = db.lookup(other_gpu, "axpy", "abc123", {"f64", 23}, fallback);
  EXPECT_EQ(arch.step, rtcg::tune::LookupStep::same_architecture);
  EXPECT_EQ(arch.point.at("block"), 1024);  // H200's size class 24 is the nearest
  EXPECT_NE(log.text().find("same architecture"), std::string::npos) << log.text();

  for (const auto& miss : {db.lookup(other_arch, "axpy", "abc123", {"f64", 28}, fallback),
                           db.lookup(h100, "axpy", "changed-generator", {"f64", 28}, fallback),
                           db.lookup(h100, "axpy", "abc123", {"f32", 28}, fallback),
                           db.lookup(h100, "dot", "abc123", {"f64", 28}, fallback)}) {
    EXPECT_EQ(miss.step, rtcg::tune::LookupStep::builtin_default);
    EXPECT_EQ(miss.point, fallback);
    EXPECT_FALSE(miss.record);
  }
  EXPECT_NE(log.text().find("built-in default"), std::string::npos) << log.text();
}

TEST(TuningDb, ACorruptFileIsAWarningAndKeptAside) {
  TempDir dir;
  const auto file = dir.path() / "tuning.json";
  std::ofstream(file) << "{\"schema\": \"rtdg-tuning-1\", \"records\": [ {\"family\": 3";
  LogCapture log;
  rtcg::tune::TuningDb db(file);
  EXPECT_TRUE(db.records().empty());
  EXPECT_NE(log.text().find("unreadable"), std::string::npos) << log.text();
  db.store(make_record("H100", "sm_90", 28, 256));
  EXPECT_TRUE(fs::exists(file.string() + ".corrupt"));
  EXPECT_EQ(rtcg::tune::TuningDb(file).records().size(), 1u);
}

TEST(TuneMode, ReadsRtdgTune) {
  ::unsetenv("RTDG_TUNE");
  EXPECT_EQ(rtcg::tune::tune_mode(), rtcg::tune::TuneMode::automatic);
  ::setenv("RTDG_TUNE", "off", 1);
  EXPECT_EQ(rtcg::tune::tune_mode(), rtcg::tune::TuneMode::off);
  ::setenv("RTDG_TUNE", "force", 1);
  EXPECT_EQ(rtcg::tune::tune_mode(), rtcg::tune::TuneMode::force);
  ::setenv("RTDG_TUNE", "sometimes", 1);
  EXPECT_NE(message_of([] { (void)rtcg::tune::tune_mode(); }).find("valid values: off, auto, force"), std::string::npos);
  ::unsetenv("RTDG_TUNE");
}

TEST(TuneOrReuse, AutoReusesAnExactRecordForceMeasuresAgainOffMeasuresNothing) {
  TempDir dir;
  rtcg::tune::TuningDb db(dir.path() / "tuning.json");
  const rtcg::tune::Tuner tuner(host(), fast_options());
  std::atomic<int> generated{0};
  const auto job = sleeping_job(&generated);

  auto first = rtcg::tune::tune_or_reuse(tuner, db, job, rtcg::tune::TuneMode::automatic);
  EXPECT_TRUE(first.tuned);
  EXPECT_EQ(first.point.at("cost"), 2);
  EXPECT_EQ(generated.load(), 4);

  auto second = rtcg::tune::tune_or_reuse(tuner, db, job, rtcg::tune::TuneMode::automatic);
  EXPECT_FALSE(second.tuned);
  ASSERT_TRUE(second.stored);
  EXPECT_EQ(second.stored->timings.size(), 4u);
  EXPECT_EQ(generated.load(), 4);

  auto forced = rtcg::tune::tune_or_reuse(tuner, db, job, rtcg::tune::TuneMode::force);
  EXPECT_TRUE(forced.tuned);
  EXPECT_EQ(generated.load(), 8);

  auto off = rtcg::tune::tune_or_reuse(tuner, db, job, rtcg::tune::TuneMode::off);
  EXPECT_EQ(off.point, job.default_point);
  EXPECT_EQ(off.step, rtcg::tune::LookupStep::builtin_default);
  EXPECT_EQ(generated.load(), 8);
}

// ---------------------------------------------------------------------------------------------
// The array operations' jobs

TEST(ArrayTuningJobs, TuneAndCheckOnTheHost) {
  for (const char* name : {"axpy", "sum", "dot", "max", "norm2"}) {
    const auto job = rtcg::make_array_tuning_job(name, host(), rtcg::ScalarType::f64, 100003);
    const auto result = rtcg::tune::Tuner(host(), fast_options()).tune(job);
    for (const auto& v : result.variants) EXPECT_TRUE(v.ok()) << name << " " << rtcg::tune::to_string(v.point) << ": " << v.reason;
    EXPECT_TRUE(result.winner) << name;
  }
  const auto job = rtcg::make_array_tuning_job("scale", host(), rtcg::ScalarType::i32, 1000);
  EXPECT_TRUE(rtcg::tune::Tuner(host(), fast_options()).tune(job).winner);
  EXPECT_NE(message_of([] { (void)rtcg::make_array_tuning_job("norm2", host(), rtcg::ScalarType::i64, 10); })
                .find("floating-point"),
            std::string::npos);
  EXPECT_NE(message_of([] { (void)rtcg::make_array_tuning_job("transpose", host(), rtcg::ScalarType::f64, 10); })
                .find("jobs: axpy, scale"),
            std::string::npos);
}

TEST(ArrayTuningJobs, TheWideAxpySpaceHasAtLeastFiftyCudaVariants) {
  // Counted without a GPU: the CUDA space is a property of the generator.
  const auto job = rtcg::make_array_tuning_job("axpy-wide", host(), rtcg::ScalarType::f64, 16);
  EXPECT_EQ(job.family, "axpy");
  EXPECT_GE(job.space.points().size(), 2u);  // on host only restrict varies
  const auto cuda_space = rtcg::array_tuning_space("axpy-wide", rtcg::BackendKind::cuda);
  EXPECT_EQ(cuda_space.points().size(), 60u) << cuda_space.describe();
  EXPECT_TRUE(cuda_space.contains(rtcg::array_tuning_space("axpy", rtcg::BackendKind::cuda).points().front()));
  for (const char* reduction : {"sum", "dot", "norm2"})
    EXPECT_GE(rtcg::array_tuning_space(reduction, rtcg::BackendKind::cuda).points().size(), 40u) << reduction;
}

}  // namespace
