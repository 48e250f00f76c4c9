// The tuner: generates every variant of a search space, compiles them in parallel on all CPU
// cores, drops those that fail (compile, spill, cannot launch, crash, wrong output) with the
// reason kept, and times the rest one at a time: warm-up, L2 flushed before every timed run,
// repeated runs, median and spread, and an early stop for a variant once it is clearly
// slower than the best so far. The fastest median wins.
//
//   rtcg::tune::Job job = ...;             // a family, a space, a generator, a runner
//   rtcg::tune::Tuner tuner(backend);
//   auto result = tuner.tune(job);
//   std::cout << rtcg::tune::format_table(result);
//   rtcg::tune::global_tuning_db().store(result.record());
#pragma once

#include <rtcg/backend.hpp>
#include <rtcg/module.hpp>
#include <rtcg/program.hpp>
#include <rtcg/search_space.hpp>
#include <rtcg/tuning_db.hpp>

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rtcg::tune {

// What a point of the space turns into.
struct Variant {
  Program program;
  // The kernels it launches with their shapes: checked against each kernel's limits (block
  // size, shared memory, occupancy) and its local memory (spills) before anything runs.
  std::vector<std::pair<std::string, LaunchShape>> launches;
  // Runs the variant once on the job's data (asynchronously on CUDA).
  std::function<void(const Module&)> run;
  // Local memory per thread this variant may use, in place of TimingOptions::max_local_bytes:
  // for a variant that asks for spills (a register cap), where only its timing can tell.
  std::optional<std::size_t> max_local_bytes;
};

// Thrown by a generator for a point that a rule says cannot win (it would lose occupancy, it
// repeats another point): the variant is dropped before compiling, with status "pruned" and
// the message as its reason, and is not counted as a failure.
class Pruned : public Error {
public:
  using Error::Error;
};

struct Job {
  std::string family;         // e.g. "axpy": the kernel family in the database
  ProblemClass problem;
  std::string template_hash;  // see template_hash(): changes whenever the generator does
  SearchSpace space;
  Point default_point;        // the generator's built-in default; must be in the space
  // Point -> variant. Called from several threads at once (it must only read shared state).
  std::function<Variant(const Point&)> generate;
  // Optional: points to add once the variant of `point` has compiled, from what its kernels use
  // (registers, threads, shared memory, blocks per SM), e.g. a register cap where a kernel's
  // registers limit its blocks per SM, which only the compiler can tell. Called from one thread
  // after every point of the space has compiled; the tuner generates, compiles and times the
  // points it returns with the rest (a point already there is not added twice; a derived
  // point derives nothing).
  std::function<std::vector<Point>(const Point& point, const std::vector<KernelUse>& uses)> derive;
  // Optional: points to try once every other point has been timed, from the winner so far:
  // the same variant run another way, say, where trying it on every point would cost timing
  // that only a winner repays. Called once, from one thread; the tuner generates, compiles and
  // times the points it returns (a point already there is not added twice) and chooses the
  // winner over all of them.
  std::function<std::vector<Point>(const Point& winner)> refine;
  // Optional: puts the outputs back to their initial state (before each check).
  std::function<void()> reset;
  // Optional: after one run from the reset state, "" when the output matches the reference
  // (plain loops on the host, or the default variant), else what differs.
  std::function<std::string()> check;
  double bytes_per_run = 0;   // memory traffic of one run, for GB/s (0: not reported)
};

struct TimingOptions {
  int warmup_runs = 2;
  int min_runs = 5;             // timed runs before any stop rule applies
  int max_runs = 25;
  double stable_spread = 0.02;  // stop repeating once the interquartile range is this fraction of the median
  double clear_margin = 0.25;   // stop a variant once its fastest run is this much slower than the best median
  std::size_t flush_bytes = 0;  // written between timed runs to evict caches; 0: twice the L2 (32 MiB on host)
  unsigned compile_threads = 0;  // 0: every CPU core
  bool check = true;            // run Job::check when the job has one
  // Local memory per thread a variant may use and still be timed; more is dropped as "spill".
  // 0 drops any. A kernel that calls double-precision sin/cos has a small stack frame (about
  // 40 bytes, for the rarely taken large-argument reduction) that is not a spill.
  std::size_t max_local_bytes = 0;
  // Wall-clock budget for the whole tuning, compile included; 0: none. Once spent, the
  // variants not yet timed are dropped with status "budget" (the default point is always
  // timed first, so a tuning that ran out of time still has a winner).
  double time_budget_seconds = 0;
};

struct TuningResult {
  std::string family;
  ProblemClass problem;
  DeviceFingerprint device;
  std::string template_hash;
  std::vector<Timing> variants;        // in the order of the space
  std::optional<std::size_t> winner;   // index into variants; none when every variant was dropped
  double compile_seconds = 0;
  double timing_seconds = 0;
  double bytes_per_run = 0;
  bool budget_exhausted = false;       // some variants were not timed (TimingOptions::time_budget_seconds)

  const Timing& best() const;  // throws when there is no winner, listing why each was dropped
  TuningRecord record() const;  // what the database stores: every timing and the winner
};

class Tuner {
public:
  explicit Tuner(Backend& backend, TimingOptions options = {});
  // Throws rtcg::Error for an invalid job (no points, a default point outside the space);
  // variants that fail are dropped, not thrown.
  TuningResult tune(const Job& job) const;
  Backend& backend() const noexcept { return *backend_; }
  const TimingOptions& options() const noexcept { return options_; }

private:
  Backend* backend_;
  TimingOptions options_;
};

// What `kernel` uses when launched with `shape`: its registers, the shape's threads and dynamic
// shared memory, and the blocks per SM the backend's occupancy calculator allows, counted
// against `max_threads_per_multiprocessor` (DeviceInfo); 0 where the backend does not say.
// The tuner records this for every variant that fits (Timing::kernels).
KernelUse kernel_use(const std::string& name, const Kernel& kernel, const LaunchShape& shape,
                     int max_threads_per_multiprocessor);
// The most registers per thread and the fewest blocks per SM over a variant's kernels (0 where
// none says): what limits the occupancy of a variant that launches several.
struct ResourceLimit {
  int registers = 0;
  int blocks_per_multiprocessor = 0;
};
ResourceLimit resource_limit(const std::vector<KernelUse>& kernels);

// The table `rtdg tune` prints: every variant with its median, spread, GB/s (when the job
// gives its traffic) and status, the winner marked, and a summary line.
std::string format_table(const TuningResult& result);

// A short hash of a generator's template text (the source it writes for a canonical point).
std::string template_hash(std::string_view generator_text);

// Statistics of a list of timings (used by the tuner, exposed for tests and benchmarks).
double median(std::vector<double> values);
double interquartile_spread(std::vector<double> values);  // (q3 - q1) / median

// What RTDG_TUNE asks for a job: off: the built-in default, nothing read or measured;
// auto: the exact record if the database has one, else tune and store; force: tune and
// store. `tuned` is set when the job was measured now.
struct Decision {
  Point point;
  LookupStep step = LookupStep::builtin_default;
  std::optional<TuningResult> tuned;
  std::optional<TuningRecord> stored;
};
Decision tune_or_reuse(const Tuner& tuner, TuningDb& db, const Job& job, TuneMode mode);

}  // namespace rtcg::tune
