// The tuner: parallel compile, checks, then timing one variant at a time.
#include <rtcg/error.hpp>
#include <rtcg/hash.hpp>
#include <rtcg/log.hpp>
#include <rtcg/memory_pool.hpp>
#include <rtcg/tune_stop.hpp>
#include <rtcg/tuner.hpp>

#include "compile_support.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <ctime>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

namespace rtcg::tune {

std::atomic<bool>& stop_tuning() {
  static std::atomic<bool> flag{false};
  return flag;
}

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

std::string first_line(const std::string& text) {
  const auto end = text.find('\n');
  return end == std::string::npos ? text : text.substr(0, end);
}

// The first line of the compiler log that says "error", else the message's first line.
std::string compile_reason(const CompileError& error) {
  std::istringstream log(error.log());
  for (std::string line; std::getline(log, line);)
    if (line.find("error") != std::string::npos) return line;
  return first_line(error.what());
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

struct Compiled {
  Variant variant;
  std::shared_ptr<const Module> module;
};

// Why a compiled variant cannot run as generated ("" when it can); sets status.
std::string launch_problem(const Variant& variant, const Module& module, std::size_t max_local_bytes,
                           int max_shared_optin, std::string& status) {
  for (const auto& [name, shape] : variant.launches) {
    const auto kernel = module.kernel(name);
    const KernelAttributes attributes = kernel->attributes();
    const unsigned threads = shape.block.x * shape.block.y * shape.block.z;
    if (attributes.local_bytes > 0 && static_cast<std::size_t>(attributes.local_bytes) > max_local_bytes) {
      status = "spill";
      return "kernel `" + name + "` uses " + std::to_string(attributes.local_bytes) +
             " bytes of local memory per thread (register spills or a stack array; " +
             std::to_string(attributes.registers) + " registers; at most " + std::to_string(max_local_bytes) +
             " allowed)";
    }
    if (attributes.max_threads_per_block > 0 && threads > static_cast<unsigned>(attributes.max_threads_per_block)) {
      status = "launch";
      return "kernel `" + name + "` can run at most " + std::to_string(attributes.max_threads_per_block) +
             " threads per block (" + std::to_string(attributes.registers) +
             " registers per thread); the variant asks for " + std::to_string(threads);
    }
    // A launch above the kernel's current dynamic shared-memory limit (48 KiB until it opts
    // in) is fine up to the device's opt-in limit: the CUDA backend opts in when it launches.
    const int opt_in = max_shared_optin > 0 ? max_shared_optin - attributes.static_shared_bytes : 0;
    const int allowed = std::max(attributes.max_dynamic_shared_bytes, opt_in);
    if (shape.shared_bytes > 0 && allowed > 0 && shape.shared_bytes > static_cast<unsigned>(allowed)) {
      status = "launch";
      return "kernel `" + name + "` asks for " + std::to_string(shape.shared_bytes) +
             " bytes of dynamic shared memory; at most " + std::to_string(allowed) + " fit";
    }
    if (const auto occupancy = kernel->occupancy(static_cast<int>(threads), shape.shared_bytes);
        occupancy && *occupancy <= 0) {
      status = "launch";
      return "kernel `" + name + "` cannot have one block of " + std::to_string(threads) + " threads resident";
    }
  }
  return {};
}

// What each launch of a variant that fits uses.
std::vector<KernelUse> kernel_uses(const Variant& variant, const Module& module, int max_threads_per_sm) {
  std::vector<KernelUse> uses;
  for (const auto& [name, shape] : variant.launches) uses.push_back(kernel_use(name, *module.kernel(name), shape, max_threads_per_sm));
  return uses;
}

void summarise(Timing& timing) {
  const auto& t = timing.times_ms;
  timing.median_ms = median(t);
  timing.min_ms = *std::min_element(t.begin(), t.end());
  timing.max_ms = *std::max_element(t.begin(), t.end());
  timing.spread = interquartile_spread(t);
}

}  // namespace

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t middle = values.size() / 2;
  return values.size() % 2 ? values[middle] : 0.5 * (values[middle - 1] + values[middle]);
}

double interquartile_spread(std::vector<double> values) {
  if (values.size() < 2) return 0;
  std::sort(values.begin(), values.end());
  auto quantile = [&](double q) {
    const double position = q * static_cast<double>(values.size() - 1);
    const auto low = static_cast<std::size_t>(position);
    const std::size_t high = std::min(low + 1, values.size() - 1);
    const double fraction = position - static_cast<double>(low);
    return values[low] * (1 - fraction) + values[high] * fraction;
  };
  const double mid = median(values);
  return mid > 0 ? (quantile(0.75) - quantile(0.25)) / mid : 0;
}

KernelUse kernel_use(const std::string& name, const Kernel& kernel, const LaunchShape& shape,
                     int max_threads_per_multiprocessor) {
  KernelUse use;
  use.kernel = name;
  use.registers = kernel.attributes().registers;
  use.threads = static_cast<int>(shape.block.x * shape.block.y * shape.block.z);
  use.shared_bytes = shape.shared_bytes;
  // The occupancy calculator gives the fraction of the SM's thread slots that resident blocks
  // of this launch fill: blocks = fraction x slots / threads (exact, up to rounding).
  if (const auto occupancy = kernel.occupancy(use.threads, shape.shared_bytes);
      occupancy && use.threads > 0 && max_threads_per_multiprocessor > 0)
    use.blocks_per_multiprocessor =
        static_cast<int>(std::lround(*occupancy * max_threads_per_multiprocessor / use.threads));
  return use;
}

ResourceLimit resource_limit(const std::vector<KernelUse>& kernels) {
  ResourceLimit limit;
  for (const KernelUse& k : kernels) {
    limit.registers = std::max(limit.registers, k.registers);
    if (k.blocks_per_multiprocessor > 0 &&
        (limit.blocks_per_multiprocessor == 0 || k.blocks_per_multiprocessor < limit.blocks_per_multiprocessor))
      limit.blocks_per_multiprocessor = k.blocks_per_multiprocessor;
  }
  return limit;
}

std::string template_hash(std::string_view generator_text) { return Sha256::hex(generator_text).substr(0, 16); }

const Timing& TuningResult::best() const {
  if (winner) return variants[*winner];
  std::ostringstream message;
  message << "tuning " << family << " (" << problem.describe() << "): every variant was dropped:";
  for (const auto& v : variants) message << "\n  " << to_string(v.point) << ": " << v.status << ": " << v.reason;
  throw Error(message.str());
}

TuningRecord TuningResult::record() const {
  TuningRecord record;
  record.device = device;
  record.family = family;
  record.template_hash = template_hash;
  record.problem = problem;
  if (winner) record.winner = variants[*winner].point;
  record.timings = variants;
  record.created = utc_now();
  return record;
}

Tuner::Tuner(Backend& backend, TimingOptions options) : backend_(&backend), options_(options) {
  RTCG_VERIFY(options_.min_runs >= 1 && options_.max_runs >= options_.min_runs && options_.warmup_runs >= 0,
              "tuner timing options: need 1 <= min_runs <= max_runs and warmup_runs >= 0");
}

TuningResult Tuner::tune(const Job& job) const {
  RTCG_VERIFY(job.generate, "tuning job `" << job.family << "` has no generator");
  std::vector<Point> points = job.space.points();
  RTCG_VERIFY(!points.empty(), "tuning job `" << job.family << "`: the space has no points (" << job.space.describe() << ")");
  std::string why_not;
  RTCG_VERIFY(job.space.contains(job.default_point, &why_not),
              "tuning job `" << job.family << "`: the default point " << to_string(job.default_point)
                             << " is not in the space: " << why_not);

  TuningResult result;
  result.family = job.family;
  result.problem = job.problem;
  result.device = DeviceFingerprint::of(*backend_);
  result.template_hash = job.template_hash;
  result.bytes_per_run = job.bytes_per_run;
  result.variants.resize(points.size());
  for (std::size_t k = 0; k < points.size(); ++k) {
    result.variants[k].point = points[k];
    result.variants[k].status = "ok";
  }

  // 1. Generate and compile every variant on all cores. NVRTC and the host compiler are
  //    thread-safe, and Backend::compile shares one module per cache key.
  const auto compile_start = Clock::now();
  std::vector<std::optional<Compiled>> compiled(points.size());
  const int max_threads_per_sm = backend_->device_info().max_threads_per_multiprocessor;
  // Generates and compiles the variants of points [first, points.size()) on all cores.
  // A stop request (SIGINT, SIGTERM) during the compiles: the variants not yet compiled are
  // dropped as "stopped" and a host compile in progress is abandoned (rtcg::stop_compiling), but
  // the default point is compiled (shielded) and timed, so the tuning still has a winner.
  std::atomic<bool> stopped_compiling{false};
  const std::string not_compiled = "not compiled: the tuning was asked to stop (SIGINT or SIGTERM)";
  auto compile_from = [&](std::size_t first) {
    std::atomic<std::size_t> next{first};
    auto worker = [&] {
      for (std::size_t k; (k = next.fetch_add(1)) < points.size();) {
        Timing& timing = result.variants[k];
        Variant variant;
        try {
          variant = job.generate(points[k]);
        } catch (const Pruned& pruned) {
          timing.status = "pruned";
          timing.reason = first_line(pruned.what());
          continue;
        } catch (const std::exception& error) {
          timing.status = "generate";
          timing.reason = first_line(error.what());
          continue;
        }
        const bool is_default = points[k] == job.default_point;
        if (stop_tuning().load() && !is_default) {
          timing.status = "stopped";
          timing.reason = not_compiled;
          stopped_compiling = true;
          continue;
        }
        try {
          std::optional<detail::ShieldCompiles> shield;
          if (is_default) shield.emplace();
          auto module = backend_->compile(variant.program);
          compiled[k] = Compiled{std::move(variant), std::move(module)};
        } catch (const Interrupted&) {
          timing.status = "stopped";
          timing.reason = not_compiled;
          stopped_compiling = true;
        } catch (const CompileError& error) {
          timing.status = "compile";
          timing.reason = compile_reason(error);
        } catch (const std::exception& error) {
          timing.status = "compile";
          timing.reason = first_line(error.what());
        }
      }
    };
    unsigned threads = options_.compile_threads ? options_.compile_threads : std::thread::hardware_concurrency();
    threads = std::max(1u, std::min<unsigned>(threads, static_cast<unsigned>(points.size() - first)));
    std::vector<std::jthread> pool;
    for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker);
    worker();
  };
  compile_from(0);
  // Appends the points not already there (for Job::derive and Job::refine), generates and
  // compiles them; returns the index of the first one added.
  std::set<Point> known(points.begin(), points.end());
  auto add_and_compile = [&](std::vector<Point> more) {
    const std::size_t first = points.size();
    for (Point& point : more)
      if (known.insert(point).second) points.push_back(std::move(point));
    result.variants.resize(points.size());
    for (std::size_t k = first; k < points.size(); ++k) {
      result.variants[k].point = points[k];
      result.variants[k].status = "ok";
    }
    compiled.resize(points.size());
    if (points.size() > first) compile_from(first);
    return first;
  };
  // Points derived from what the compiled variants use (Job::derive), once each, compiled in
  // a second round and timed with the rest.
  if (job.derive) {
    std::vector<Point> derived;
    for (std::size_t k = 0; k < points.size(); ++k) {
      if (!compiled[k]) continue;
      std::vector<KernelUse> uses;
      try {
        uses = kernel_uses(compiled[k]->variant, *compiled[k]->module, max_threads_per_sm);
      } catch (const std::exception&) {
        continue;  // a variant that cannot launch as generated derives nothing (timing says why)
      }
      for (Point& point : job.derive(points[k], uses)) derived.push_back(std::move(point));
    }
    add_and_compile(std::move(derived));
  }
  result.compile_seconds = seconds_since(compile_start);

  // 2. One variant at a time: limits, a checked run, warm-up, timed runs.
  const auto timing_start = Clock::now();
  std::size_t flush_bytes = options_.flush_bytes;
  if (flush_bytes == 0) {
    const int l2 = backend_->device_info().l2_cache_bytes;
    flush_bytes = l2 > 0 ? 2 * static_cast<std::size_t>(l2) : std::size_t{32} << 20;
  }
  PoolBlock flush(memory_pool(*backend_), flush_bytes);
  unsigned char flush_value = 0;
  auto flush_caches = [&] { backend_->memset_bytes(flush.get(), ++flush_value, flush_bytes); };

  // The default point first, so the early-stop rule has a reference from the start.
  std::vector<std::size_t> order(points.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::stable_partition(order.begin(), order.end(), [&](std::size_t k) { return points[k] == job.default_point; });

  const int shared_optin = backend_->device_info().max_shared_memory_per_block_optin;
  double best_median = 0;
  auto time_variant = [&](std::size_t k) {
    Timing& timing = result.variants[k];
    if (!compiled[k]) return;
    if (stop_tuning().load() && points[k] != job.default_point) {
      timing.status = "stopped";
      timing.reason = "not timed: the tuning was asked to stop (SIGINT or SIGTERM)";
      result.budget_exhausted = true;
      return;
    }
    if (options_.time_budget_seconds > 0 && points[k] != job.default_point &&
        seconds_since(compile_start) > options_.time_budget_seconds) {
      timing.status = "budget";
      timing.reason = "not timed: the tuning's time budget of " + std::to_string(options_.time_budget_seconds) +
                      " s was spent";
      result.budget_exhausted = true;
      return;
    }
    const Variant& variant = compiled[k]->variant;
    const Module& module = *compiled[k]->module;
    try {
      std::string status;
      const std::size_t max_local_bytes = variant.max_local_bytes.value_or(options_.max_local_bytes);
      if (std::string problem = launch_problem(variant, module, max_local_bytes, shared_optin, status); !problem.empty()) {
        timing.status = status;
        timing.reason = problem;
        return;
      }
      timing.kernels = kernel_uses(variant, module, max_threads_per_sm);
      if (job.reset) job.reset();
      variant.run(module);
      backend_->synchronize();
      if (options_.check && job.check) {
        if (std::string mismatch = job.check(); !mismatch.empty()) {
          timing.status = "check";
          timing.reason = mismatch;
          return;
        }
      }
      for (int w = 1; w < options_.warmup_runs; ++w) variant.run(module);
      backend_->synchronize();
      for (int r = 0; r < options_.max_runs; ++r) {
        flush_caches();
        timing.times_ms.push_back(backend_->time_ms([&] { variant.run(module); }));
        if (static_cast<int>(timing.times_ms.size()) < options_.min_runs) continue;
        const double fastest = *std::min_element(timing.times_ms.begin(), timing.times_ms.end());
        if (best_median > 0 && fastest > best_median * (1 + options_.clear_margin)) {
          timing.stopped_early = true;
          break;
        }
        if (interquartile_spread(timing.times_ms) <= options_.stable_spread) break;
      }
      summarise(timing);
      if (best_median == 0 || timing.median_ms < best_median) best_median = timing.median_ms;
    } catch (const std::exception& error) {
      timing.status = "run";
      timing.reason = first_line(error.what());
      timing.times_ms.clear();
      try {
        backend_->synchronize();
      } catch (const std::exception&) {
        // A device error is sticky on CUDA; later variants report it themselves.
      }
    }
  };
  for (const std::size_t k : order) time_variant(k);

  auto winner_of = [&]() -> std::optional<std::size_t> {
    std::optional<std::size_t> best;
    for (std::size_t k = 0; k < result.variants.size(); ++k) {
      const Timing& t = result.variants[k];
      if (t.ok() && (!best || t.median_ms < result.variants[*best].median_ms)) best = k;
    }
    return best;
  };
  // Points from the winner (Job::refine), compiled and timed after the rest.
  double refine_compile_seconds = 0;
  if (job.refine)
    if (const std::optional<std::size_t> best = winner_of()) {
      const auto refine_start = Clock::now();
      const std::size_t first = add_and_compile(job.refine(points[*best]));
      refine_compile_seconds = seconds_since(refine_start);
      result.compile_seconds += refine_compile_seconds;
      for (std::size_t k = first; k < points.size(); ++k) time_variant(k);
    }
  result.timing_seconds = seconds_since(timing_start) - refine_compile_seconds;

  if (stopped_compiling) result.budget_exhausted = true;
  result.winner = winner_of();
  const auto pruned =
      std::count_if(result.variants.begin(), result.variants.end(), [](const Timing& t) { return t.status == "pruned"; });
  const auto dropped =
      std::count_if(result.variants.begin(), result.variants.end(), [](const Timing& t) { return !t.ok(); }) - pruned;
  log().info("tuned {} ({}) on {}: {} variants ({} dropped{}), compile {:.1f} s, timing {:.1f} s, winner {}", job.family,
             job.problem.describe(), result.device.describe(), points.size(), dropped,
             pruned ? ", " + std::to_string(pruned) + " pruned" : std::string(), result.compile_seconds,
             result.timing_seconds, result.winner ? to_string(result.variants[*result.winner].point) : "none");
  return result;
}

Decision tune_or_reuse(const Tuner& tuner, TuningDb& db, const Job& job, TuneMode mode) {
  Decision decision;
  if (mode == TuneMode::off) {
    decision.point = job.default_point;
    log().info("tuning: {} ({}): RTDG_TUNE=off, using the built-in default {}", job.family, job.problem.describe(),
               to_string(job.default_point));
    return decision;
  }
  if (mode == TuneMode::automatic) {
    const auto device = DeviceFingerprint::of(tuner.backend());
    if (auto stored = db.find_exact(device, job.family, job.template_hash, job.problem)) {
      decision.point = stored->winner;
      decision.step = LookupStep::exact;
      decision.stored = std::move(stored);
      return decision;
    }
  }
  decision.tuned = tuner.tune(job);
  decision.point = decision.tuned->best().point;
  decision.step = LookupStep::exact;
  db.store(decision.tuned->record());
  return decision;
}

}  // namespace rtcg::tune
