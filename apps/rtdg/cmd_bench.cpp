// rtdg bench dg <config.toml> [--orders 1-7] [--precision float,double] [--json file]
// The performance claim as a user reproduces it: per order and precision, one Runge-Kutta
// stage of the config's law and mesh with the untuned default plan, the tuned plan (from the
// tuning database, or tuned now as RTDG_TUNE says) and the library formulation (cuBLAS on
// CUDA, Eigen on host), each against the roofline measured in the same run (docs/tuning.md).
#include "rtdg/command.hpp"
#include "rtdg/dg_sweep.hpp"

#include <dg/library_formulation.hpp>
#include <dg/plan.hpp>
#include <dg/tuning.hpp>
#include <rtcg/backend.hpp>
#include <rtcg/error.hpp>
#include <rtcg/roofline.hpp>
#include <rtcg/tuner.hpp>
#include <runner/problem.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace rtdg::app {
namespace {

struct BenchOptions {
  std::string config;
  std::string orders;
  std::string precision;
  std::vector<std::string> overrides;
  std::string json;
  std::vector<std::string> space;  // --space name=values: changes to the plan space tuned now
  std::vector<std::string> plans;  // --plan: further plans timed beside the others (run.plan's words)
  int runs = 10;
  double budget = 120;  // seconds of tuning per case when RTDG_TUNE tunes
};

// One variant's figures for one stage.
struct Figures {
  bool ok = false;
  std::string what;   // plan or formulation
  std::string note;   // where the plan came from, or why the variant is missing
  double ms_stage = 0;
  double dofs_per_s = 0;
  double gbs = 0;     // minimal stage traffic / time
  double gflops = 0;  // useful flops / time
  double roofline = 0;  // bound time / time
  double serial = 0;    // (memory time + compute time) / time: near 1 = the two done one after the other
  std::vector<rtcg::tune::KernelUse> kernels;  // the plan's kernels (DG plans only)
};

// "56 registers, 7 blocks/SM" for a plan's kernels (the most registers and fewest blocks over
// them: what limits its occupancy), or "" where the backend does not say.
std::string resources_text(const std::vector<rtcg::tune::KernelUse>& kernels) {
  const auto [registers, blocks] = rtcg::tune::resource_limit(kernels);
  if (registers == 0 && blocks == 0) return {};
  return std::to_string(registers) + " registers, " + std::to_string(blocks) + " blocks/SM";
}

nlohmann::json to_json(const Figures& f) {
  nlohmann::json j = {{"ok", f.ok}, {"what", f.what}, {"note", f.note}};
  if (f.ok) {
    j["ms_per_stage"] = f.ms_stage;
    j["dofs_per_second"] = f.dofs_per_s;
    j["gbytes_per_second"] = f.gbs;
    j["gflops"] = f.gflops;
    j["roofline_fraction"] = f.roofline;
    j["serial_fraction"] = f.serial;
  }
  if (!f.kernels.empty()) {
    nlohmann::json kernels = nlohmann::json::array();
    for (const rtcg::tune::KernelUse& k : f.kernels)
      kernels.push_back({{"kernel", k.kernel},
                         {"registers", k.registers},
                         {"threads", k.threads},
                         {"shared_bytes", k.shared_bytes},
                         {"blocks_per_multiprocessor", k.blocks_per_multiprocessor}});
    j["kernels"] = kernels;
  }
  return j;
}

std::vector<double> random_state(std::size_t n) {
  std::mt19937_64 random(11);
  std::vector<double> values(n);
  for (double& v : values) v = static_cast<double>(random() >> 11) * 0x1.0p-53 * 2.0 - 1.0;
  return values;
}

// Median of `runs` timed calls after two untimed ones.
double median_ms(rtcg::Backend& backend, int runs, const std::function<void()>& work) {
  work();
  work();
  backend.synchronize();
  std::vector<double> times;
  for (int r = 0; r < runs; ++r) times.push_back(backend.time_ms(work));
  return rtcg::tune::median(times);
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

std::string cell(const Figures& f, int width) {
  char text[64];
  if (!f.ok) std::snprintf(text, sizeof text, "%*s", width, "-");
  else std::snprintf(text, sizeof text, "%*.4f", width, f.ms_stage);
  return text;
}

void run_bench_dg(const BenchOptions& options) {
  for (const std::string& change : options.space) {
    dg::PlanSpace check;
    dg::set_space_values(check, change);  // a bad --space fails before anything runs
  }
  std::vector<dg::Plan> plans;
  for (const std::string& text : options.plans) {
    try {
      plans.push_back(dg::plan_from_text(text));  // a bad --plan fails before anything runs
    } catch (const std::exception& error) {
      throw rtcg::Error("--plan \"" + text + "\": " + error.what());
    }
  }
  auto problem = runner::load_problem(options.config, options.overrides);
  const std::vector<int> orders = options.orders.empty() ? std::vector<int>{problem->cfg.order} : parse_orders(options.orders);
  const std::vector<std::string> precisions =
      options.precision.empty() ? std::vector<std::string>{problem->cfg.precision} : parse_precisions(options.precision);
  if (options.runs < 1) throw rtcg::Error("--runs must be at least 1");
  auto& backend = rtcg::backend(problem->cfg.backend);
  const auto mode = rtcg::tune::tune_mode();
  auto& db = rtcg::tune::global_tuning_db();
  dg::PlanSpace space = dg::PlanSpace::for_backend(backend.kind());
  for (const std::string& change : options.space) dg::set_space_values(space, change);

  std::cout << "rtdg bench dg: " << problem->law.name << " on " << problem->disc.K << " "
            << dg::shape_name(problem->disc.element.shape) << "s, backend " << backend.name() << " ("
            << backend.device_info().name << "), RTDG_TUNE=" << rtcg::tune::to_string(mode) << "\n";
  const rtcg::Roofline roof = rtcg::measure_roofline(backend);
  std::cout << "roofline (measured now): " << roof.describe() << "\n";

  nlohmann::json out = {{"date", utc_now()},
                        {"config", problem->cfg.file.string()},
                        {"law", problem->law.name},
                        {"elements", problem->disc.K},
                        {"backend", backend.name()},
                        {"device", rtcg::tune::DeviceFingerprint::of(backend).describe()},
                        {"tune_mode", rtcg::tune::to_string(mode)},
                        {"roofline",
                         {{"copy_gbs", roof.copy_gbs},
                          {"fp64_gflops", roof.fp64_gflops},
                          {"fp32_gflops", roof.fp32_gflops},
                          {"copy_method", roof.copy_method}}},
                        {"cases", nlohmann::json::array()}};
  if (const char* commit = std::getenv("RTDG_COMMIT")) out["commit"] = commit;

  std::printf("%-6s %2s %9s %11s %11s %11s %11s %8s %8s %8s %8s %8s %9s %9s\n", "prec", "N", "DOFs", "bound ms", "default",
              "tuned", "library", "%roof", "%serial", "GB/s", "GFLOP/s", "DOF/s", "x default", "x library");
  for (const std::string& precision : precisions) {
    problem->set_precision(precision);
    const bool single = precision == "float";
    for (const int N : orders) {
      problem->set_order(N);
      dg::Solver solver(backend, problem->disc, problem->setup);
      const int stages = dg::stages(problem->setup.integrator);
      const double bytes = dg::minimal_stage_bytes(solver);
      const double flops = dg::useful_stage_flops(solver);
      const double dofs = static_cast<double>(solver.size());
      const double bound_ms = roof.bound_seconds(bytes, flops, single) * 1e3;
      const double memory_ms = roof.memory_seconds(bytes) * 1e3, compute_ms = roof.compute_seconds(flops, single) * 1e3;
      const std::vector<double> start = random_state(solver.size());
      solver.set_state(start);
      double dt = 1e-3;
      try {
        dt = solver.stable_dt(0.5);
      } catch (const std::exception&) {
        // A law whose wave speed the random state makes undefined: a small fixed step.
      }
      auto figures = [&](double ms_stage, std::string what, std::string note) {
        Figures f;
        f.ok = true;
        f.what = std::move(what);
        f.note = std::move(note);
        f.ms_stage = ms_stage;
        f.dofs_per_s = dofs / (ms_stage * stages * 1e-3);
        f.gbs = bytes / (ms_stage * 1e6);
        f.gflops = flops / (ms_stage * 1e6);
        f.roofline = bound_ms / ms_stage;
        f.serial = (memory_ms + compute_ms) / ms_stage;
        return f;
      };
      auto time_solver = [&] {
        solver.set_state(start);
        return median_ms(backend, options.runs, [&] { solver.step(0.5, dt); }) / stages;
      };

      Figures untuned = figures(time_solver(), dg::Plan{}.describe(), "default plan");
      untuned.kernels = solver.kernel_uses();
      Figures tuned;
      tuned.what = "tuned plan";
      if (problem->plan) {
        // The config names the plan: it is the one measured (where it fits this order and
        // precision), not the database's.
        try {
          solver.set_plan(*problem->plan);
          tuned = figures(time_solver(), solver.setup().plan.describe(), "the config's run.plan");
          tuned.kernels = solver.kernel_uses();
        } catch (const std::exception& error) {
          tuned.note = std::string("run.plan does not run here: ") + error.what();
        }
      } else if (mode == rtcg::tune::TuneMode::off) {
        tuned.note = "not measured: RTDG_TUNE=off";
      } else {
        try {
          const dg::PlanChoice choice = dg::choose_plan(solver, mode, db, options.budget, space);
          tuned = figures(time_solver(), choice.plan.describe(), choice.source);
          tuned.kernels = solver.kernel_uses();
        } catch (const std::exception& error) {
          tuned.note = std::string("tuning failed: ") + error.what();
        }
      }
      Figures library;
      library.what = "library formulation";
      try {
        dg::LibraryFormulation formulation(solver);
        formulation.set_state(start);
        const double ms = median_ms(backend, options.runs, [&] {
          for (int s = 0; s < stages; ++s) formulation.stage(0.5, dg::Lserk4::a[static_cast<std::size_t>(s % 5)],
                                                             dg::Lserk4::b[static_cast<std::size_t>(s % 5)], dt);
        });
        library = figures(ms / stages, formulation.describe(), "");
      } catch (const std::exception& error) {
        library.note = std::string("not measured: ") + error.what();
      }

      // The --plan plans, after the library formulation (which reads the solver's own plan).
      std::vector<Figures> given;
      for (std::size_t i = 0; i < plans.size(); ++i) {
        Figures f;
        f.what = options.plans[i];
        try {
          solver.set_plan(plans[i]);
          f = figures(time_solver(), solver.setup().plan.describe(), "--plan " + options.plans[i]);
          f.kernels = solver.kernel_uses();
        } catch (const std::exception& error) {
          f.note = std::string("--plan does not run here: ") + error.what();
        }
        given.push_back(std::move(f));
      }

      const Figures& best = tuned.ok && tuned.ms_stage < untuned.ms_stage ? tuned : untuned;
      char ratio_default[32] = "-", ratio_library[32] = "-";
      if (tuned.ok) std::snprintf(ratio_default, sizeof ratio_default, "%.2f", untuned.ms_stage / tuned.ms_stage);
      if (library.ok) std::snprintf(ratio_library, sizeof ratio_library, "%.2f", library.ms_stage / best.ms_stage);
      std::printf("%-6s %2d %9.3g %11.4f %s %s %s %7.1f%% %7.1f%% %8.0f %8.0f %8.3g %9s %9s\n", precision.c_str(), N,
                  dofs, bound_ms, cell(untuned, 11).c_str(), cell(tuned, 11).c_str(), cell(library, 11).c_str(),
                  100 * best.roofline, 100 * best.serial, best.gbs, best.gflops, best.dofs_per_s, ratio_default,
                  ratio_library);
      const std::string resources = tuned.ok ? resources_text(tuned.kernels) : std::string();
      std::printf("         tuned: %s%s%s%s\n", tuned.ok ? tuned.what.c_str() : "",
                  resources.empty() ? "" : (" (" + resources + ")").c_str(), tuned.ok ? " <- " : "", tuned.note.c_str());
      std::printf("         library: %s\n", library.ok ? library.what.c_str() : library.note.c_str());
      for (std::size_t i = 0; i < given.size(); ++i) {
        if (!given[i].ok) {
          std::printf("         plan %zu: %s\n", i + 1, given[i].note.c_str());
          continue;
        }
        char against[48] = "";
        if (tuned.ok) std::snprintf(against, sizeof against, ", %.3f x the tuned plan's time", given[i].ms_stage / tuned.ms_stage);
        std::printf("         plan %zu: %.4f ms/stage%s (%.1f%% of roofline): %s\n", i + 1, given[i].ms_stage, against,
                    100 * given[i].roofline, given[i].what.c_str());
      }
      std::fflush(stdout);

      out["cases"].push_back({{"precision", precision},
                              {"order", N},
                              {"Np", problem->disc.element.Np},
                              {"dofs", dofs},
                              {"stages_per_step", stages},
                              {"minimal_bytes_per_stage", bytes},
                              {"useful_flops_per_stage", flops},
                              {"bound_ms_per_stage", bound_ms},
                              {"memory_ms_per_stage", memory_ms},
                              {"compute_ms_per_stage", compute_ms},
                              {"default", to_json(untuned)},
                              {"tuned", to_json(tuned)},
                              {"library", to_json(library)}});
      if (!given.empty()) {
        nlohmann::json list = nlohmann::json::array();
        for (std::size_t i = 0; i < given.size(); ++i) {
          nlohmann::json j = to_json(given[i]);
          j["plan"] = options.plans[i];
          list.push_back(std::move(j));
        }
        out["cases"].back()["plans"] = std::move(list);
      }
    }
  }
  if (!options.json.empty()) {
    std::ofstream file(options.json);
    file << out.dump(2) << "\n";
    if (!file) throw rtcg::Error("cannot write " + options.json);
    std::cout << "wrote " << options.json << " (plot it with scripts/plot-bench " << options.json << ")\n";
  }
}

void setup_bench(CLI::App& rtdg) {
  auto* bench = rtdg.add_subcommand("bench", "Benchmarks: `rtdg bench dg` times the DG stage per order");
  bench->require_subcommand(1);
  auto options = std::make_shared<BenchOptions>();
  auto* dg = bench->add_subcommand(
      "dg", "Time a DG stage per order and precision: default plan, tuned plan and a cuBLAS/Eigen formulation against "
            "the roofline measured in the same run");
  dg->add_option("config", options->config, "the run's config file (TOML)")->required()->check(CLI::ExistingFile);
  dg->add_option("--orders", options->orders, "orders, e.g. 1-7 or 2,4 (default: the config's)");
  dg->add_option("--precision", options->precision, "float, double or float,double (default: the config's)");
  dg->add_option("--set", options->overrides, "override a config value: dotted.key=value");
  dg->add_option("--json", options->json, "write the results as JSON to this file");
  dg->add_option("--space", options->space,
                 "replace one list of the plan space for plans tuned now: name=v1,v2,... (e.g. groups=1,2,4)");
  dg->add_option("--plan", options->plans,
                 "also time this plan, in run.plan's words (repeat to compare several plans in one run)");
  dg->add_option("--runs", options->runs, "timed steps per variant (the median is reported)")->capture_default_str();
  dg->add_option("--tune-budget", options->budget, "seconds of tuning per case when a plan is tuned now")
      ->capture_default_str();
  dg->callback([options] { run_bench_dg(*options); });
}

}  // namespace

RTDG_COMMAND(setup_bench);

}  // namespace rtdg::app
