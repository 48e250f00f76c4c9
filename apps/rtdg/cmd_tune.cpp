// `rtdg tune <job>`: runs a named tuning job, prints every variant's time and the winner, and
// stores the result in the tuning database (docs/tuning.md).
#include "rtdg/command.hpp"
#include "rtdg/dg_sweep.hpp"

#include <dg/plan_schema.hpp>
#include <dg/tuning.hpp>
#include <runner/problem.hpp>
#include <rtcg/array_tuning.hpp>
#include <rtcg/backend.hpp>
#include <rtcg/error.hpp>
#include <rtcg/tuner.hpp>
#include <rtcg/tuning_db.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <string>

namespace rtdg::app {
namespace {

struct TuneOptions {
  std::string job;
  std::string backend = "auto";
  std::string type = "f64";
  std::size_t size = 0;  // elements; 0: 1 GiB of the type on cuda, 4 Mi elements on host
  bool list = false;
  bool plan_values = false;
};

rtcg::ScalarType parse_type(const std::string& name) {
  for (auto type : {rtcg::ScalarType::f32, rtcg::ScalarType::f64, rtcg::ScalarType::i32, rtcg::ScalarType::i64})
    if (name == rtcg::short_name(type)) return type;
  throw rtcg::Error("unknown element type `" + name + "`; valid types: f32, f64, i32, i64");
}

// A stored record as a result, so it prints as the same table.
rtcg::tune::TuningResult result_of(const rtcg::tune::TuningRecord& record) {
  rtcg::tune::TuningResult result;
  result.family = record.family;
  result.problem = record.problem;
  result.device = record.device;
  result.template_hash = record.template_hash;
  result.variants = record.timings;
  for (std::size_t k = 0; k < result.variants.size(); ++k)
    if (result.variants[k].point == record.winner) result.winner = k;
  return result;
}

void list_jobs(const std::string& backend_name) {
  const auto kind = rtcg::parse_backend_kind(backend_name);
  std::cout << "tuning jobs (" << (kind == rtcg::BackendKind::cuda ? "cuda" : "host") << " search spaces):\n";
  for (const auto& name : rtcg::array_tuning_jobs()) {
    const auto space = rtcg::array_tuning_space(name, kind);
    std::cout << "  " << name << ": " << space.points().size() << " variants; " << space.describe() << "\n";
  }
}

void run_tune(const TuneOptions& options) {
  if (options.list) return list_jobs(options.backend);
  if (options.job.empty()) throw rtcg::Error("name a tuning job (rtdg tune --list shows them)");
  const auto mode = rtcg::tune::tune_mode();
  if (mode == rtcg::tune::TuneMode::off)
    throw rtcg::Error("RTDG_TUNE=off disables tuning; unset it (auto) or set RTDG_TUNE=force to measure again");
  auto& backend = rtcg::backend(options.backend);
  const auto type = parse_type(options.type);
  std::size_t n = options.size;
  if (n == 0) n = backend.kind() == rtcg::BackendKind::cuda ? (std::size_t{1} << 30) / rtcg::size_of(type) : std::size_t{1} << 22;

  const auto job = rtcg::make_array_tuning_job(options.job, backend, type, n);
  auto& db = rtcg::tune::global_tuning_db();
  const rtcg::tune::Tuner tuner(backend);
  const auto decision = rtcg::tune::tune_or_reuse(tuner, db, job, mode);
  if (decision.tuned) {
    std::cout << rtcg::tune::format_table(*decision.tuned);
    std::cout << "stored in " << db.path().string() << "\n";
  } else {
    auto stored = result_of(*decision.stored);
    stored.bytes_per_run = job.bytes_per_run;
    std::cout << rtcg::tune::format_table(stored);
    std::cout << "(stored " << decision.stored->created << " in " << db.path().string()
              << "; RTDG_TUNE=force measures again)\n";
  }
}

struct TuneDgOptions {
  std::string config;
  std::string orders;  // empty: the config's order
  std::string precision;  // empty: the config's precision
  std::vector<std::string> overrides;
  std::vector<std::string> space;  // --space name=values: changes to the backend's plan space
  bool explain = false;            // --explain: the pruning rules that applied, and what they dropped
};

// --explain: every rule of the table for this device's architecture, what it drops, how many
// variants it dropped in this sweep, and the measurements it rests on.
void explain_pruning(const rtcg::DeviceInfo& device, const std::map<std::string, int>& dropped, bool prune) {
  const dg::PruningRules& rules = dg::pruning_rules();
  const std::string arch = dg::architecture_of(device);
  std::cout << "== pruning rules (" << rules.source << ") for " << arch << (prune ? "" : ": not applied (prune=off)")
            << "\n";
  int listed = 0;
  for (const dg::PruningRule& rule : rules.rules) {
    if (!rules.find(rule.name, device)) continue;
    ++listed;
    const auto it = dropped.find(rule.name);
    std::cout << "  " << rule.name << ": dropped " << (it == dropped.end() ? 0 : it->second) << " variants\n"
              << "    drops: " << rule.drops << "\n    because: " << rule.finding << "\n";
    for (const auto& e : rule.rests_on)
      std::cout << "    measured: " << e.device << ", " << e.date << ", " << e.results << (e.commit.empty() ? "" : " at " + e.commit)
                << "\n";
  }
  if (listed == 0)
    std::cout << "  none: no rule lists " << arch << ", so the whole space is tried within the budget\n";
}

// rtdg tune dg: the DG plan space of the config's law and mesh, per order and precision; every
// variant's time, the winner stored in the tuning database.
void run_tune_dg(const TuneDgOptions& options) {
  if (rtcg::tune::tune_mode() == rtcg::tune::TuneMode::off)
    throw rtcg::Error("RTDG_TUNE=off disables tuning; unset it (auto) or set RTDG_TUNE=force");
  for (const std::string& change : options.space) {
    dg::PlanSpace check;
    dg::set_space_values(check, change);  // a bad --space fails before the mesh is read
  }
  auto problem = runner::load_problem(options.config, options.overrides);
  const std::vector<int> orders = options.orders.empty() ? std::vector<int>{problem->cfg.order} : parse_orders(options.orders);
  const std::vector<std::string> precisions =
      options.precision.empty() ? std::vector<std::string>{problem->cfg.precision} : parse_precisions(options.precision);
  auto& backend = rtcg::backend(problem->cfg.backend);
  auto& db = rtcg::tune::global_tuning_db();
  dg::PlanSpace space = dg::PlanSpace::for_backend(backend.kind());
  for (const std::string& change : options.space) dg::set_space_values(space, change);
  const auto sweep_start = std::chrono::steady_clock::now();
  std::vector<std::string> winners;
  std::map<std::string, int> dropped;  // variants each pruning rule dropped, over the sweep
  for (const std::string& precision : precisions) {
    problem->set_precision(precision);
    for (const int N : orders) {
      problem->set_order(N);
      const auto start = std::chrono::steady_clock::now();
      dg::Solver solver(backend, problem->disc, problem->setup);
      const dg::PlanJob job = dg::make_plan_job(solver, space);
      const rtcg::tune::Tuner tuner(backend, dg::plan_timing_options());
      const rtcg::tune::TuningResult result = tuner.tune(job.job);
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      std::cout << "== " << problem->law.name << ", " << problem->disc.K << " "
                << dg::shape_name(problem->disc.element.shape) << "s, order " << N << ", " << precision << ", "
                << backend.name() << " (" << backend.device_info().name << ")\n";
      std::cout << dg::format_plan_table(result, job);
      const rtcg::tune::Timing& best = result.best();
      const rtcg::tune::Timing* reference = nullptr;
      for (const auto& t : result.variants)
        if (t.point == job.job.default_point && t.ok()) reference = &t;
      char head[160];
      std::snprintf(head, sizeof head, "order %d %s: %.4f ms/stage%s, %.1f s to tune: ", N, precision.c_str(),
                    best.median_ms / job.stages_per_step,
                    reference ? (" (default plan " + std::to_string(reference->median_ms / best.median_ms).substr(0, 4) + "x slower)").c_str() : "",
                    seconds);
      // The plan as a reader knows it, and in the words a config's run.plan takes to pin it.
      const dg::Plan plan = dg::plan_of(best.point);
      winners.push_back(head + plan.describe() + "\n    as run.plan: \"" + dg::to_text(plan) + "\"");
      db.store(result.record());
      for (const auto& t : result.variants)
        if (const std::string rule = dg::pruning_rule_of(t); !rule.empty()) ++dropped[rule];
    }
  }
  if (options.explain) explain_pruning(backend.device_info(), dropped, space.prune);
  std::cout << "== winners (stored in " << db.path().string() << ")\n";
  for (const std::string& w : winners) std::cout << "  " << w << "\n";
  std::printf("sweep: %.1f s\n", std::chrono::duration<double>(std::chrono::steady_clock::now() - sweep_start).count());
}

void setup_tune(CLI::App& rtdg) {
  auto options = std::make_shared<TuneOptions>();
  auto* tune = rtdg.add_subcommand("tune", "Run a tuning job: time every variant, print the table, store the winner");
  tune->add_option("job", options->job, "Job: axpy, scale, sum, dot, max, norm2, or <job>-wide (see --list)");
  tune->add_option("--size", options->size, "Elements per array (default: 1 GiB on cuda, 4194304 on host)");
  tune->add_option("--type", options->type, "Element type: f32, f64, i32, i64")->capture_default_str();
  tune->add_option("--backend", options->backend, "cuda, host or auto")->capture_default_str();
  tune->add_flag("--list", options->list, "List the jobs and their search spaces");
  tune->add_flag("--plan-values", options->plan_values,
                 "Print the DG plan values' table (docs/tuning.md) from the plan schema");
  tune->callback([options, tune] {
    if (!tune->get_subcommands().empty()) return;  // a subcommand (dg) ran instead
    if (options->plan_values) {
      std::cout << dg::plan_fields_markdown();
      return;
    }
    run_tune(*options);
  });
  auto dg_options = std::make_shared<TuneDgOptions>();
  auto* dg = tune->add_subcommand("dg", "Tune the DG kernels of a run config: every plan per order and precision");
  dg->add_option("config", dg_options->config, "the run's config file (TOML)")->required()->check(CLI::ExistingFile);
  dg->add_option("--orders", dg_options->orders, "orders to tune, e.g. 1-7 or 2,4 (default: the config's)");
  dg->add_option("--precision", dg_options->precision, "float, double or float,double (default: the config's)");
  dg->add_option("--set", dg_options->overrides, "override a config value: dotted.key=value");
  dg->add_option("--space", dg_options->space,
                 "replace one list of the plan space: name=v1,v2,... (e.g. groups=1,2,4; prune=off keeps the plans "
                 "the pruning rules drop; docs/tuning.md)");
  dg->add_flag("--explain", dg_options->explain,
               "list the pruning rules for this device's architecture, what each dropped and the measurements "
               "they rest on");
  dg->callback([dg_options] { run_tune_dg(*dg_options); });
}

}  // namespace

RTDG_COMMAND(setup_tune);

}  // namespace rtdg::app
