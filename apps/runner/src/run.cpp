// `rtdg run` (runner/run.hpp): set-up, the time loop, output and restart.
#include "runner/run.hpp"

#include "farfield_run.hpp"
#include "progress.hpp"
#include "runner/problem.hpp"

#include <config/run_config.hpp>
#include <dg/discretization.hpp>
#include <dg/solver.hpp>
#include <dg/tuning.hpp>
#include <fluxes/law.hpp>
#include <fluxes/law_lowering.hpp>
#include <mesh/load.hpp>
#include <output/hdf5_solution.hpp>
#include <output/probes.hpp>
#include <output/pvd.hpp>
#include <output/solution.hpp>
#include <output/vtu.hpp>
#include <rtcg/backend.hpp>
#include <rtcg/hash.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

namespace rtdg::runner {
namespace fs = std::filesystem;

std::atomic<int>& stop_signal() {
  static std::atomic<int> flag{0};
  return flag;
}

namespace {

void handle_signal(int signal) { stop_signal().store(signal); }

// Installs the SIGINT/SIGTERM handlers for the duration of a run and restores the old ones.
class SignalGuard {
public:
  SignalGuard() {
    stop_signal().store(0);
    struct sigaction action {};
    action.sa_handler = handle_signal;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, &old_int_);
    sigaction(SIGTERM, &action, &old_term_);
  }
  ~SignalGuard() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }
  SignalGuard(const SignalGuard&) = delete;
  SignalGuard& operator=(const SignalGuard&) = delete;

private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

// A digest of what makes a mesh this mesh (vertices, elements, boundary groups), so a restart
// can tell that it re-created the same one.
std::string mesh_fingerprint(const mesh::Mesh& m) {
  rtcg::Sha256 hash;
  auto bytes = [&](const void* data, std::size_t size) { hash.update(std::string_view(static_cast<const char*>(data), size)); };
  bytes(&m.dim, sizeof m.dim);
  bytes(m.vertices.data(), m.vertices.size() * sizeof m.vertices[0]);
  bytes(m.EToV.data(), m.EToV.size() * sizeof m.EToV[0]);
  for (const mesh::BoundaryFace& f : m.boundary_faces) bytes(&f, sizeof f);
  for (const std::string& name : m.boundary_names) hash.update(name).update(std::string_view("\0", 1));
  const auto digest = hash.finish();
  return "sha256:" + rtcg::to_hex(digest.data(), digest.size());
}

std::string format_number(double value) {
  // printf writes "-nan" for the NaN a square root of a negative number gives on x86; the
  // sign of a NaN means nothing to a user.
  if (std::isnan(value)) return "nan";
  char text[64];
  std::snprintf(text, sizeof text, "%.6g", value);
  return text;
}

// Everything a run holds once set up: the problem (config, law, mesh, discretization, solver
// set-up) and what the run adds.
struct Setup : Problem {
  std::string fingerprint;
  std::unique_ptr<dg::Solver> solver;
  std::string plan_source;  // where the solver's plan came from (database, tuned now, checkpoint, ...)
  double dt = 0;            // the step in use (time.dt_update_every changes it); checkpoints record it
};

// `restart_plan`: the plan a checkpoint was computed with (dg::to_text), kept on restart so
// the continuation does the same arithmetic; empty for a new run (RTDG_TUNE decides).
void build(Setup& s, std::ostream& log, const std::string& restart_plan) {
  load(s);
  s.fingerprint = mesh_fingerprint(s.mesh);
  const config::RunConfig& cfg = s.cfg;
  const dg::SolverSetup& setup = s.setup;
  rtcg::Backend& backend = rtcg::backend(cfg.backend);
  log << "[rtdg] " << s.law.name << " on " << s.disc.K << " " << dg::shape_name(s.disc.element.shape) << "s of order "
      << cfg.order << " (" << s.law.state_components() << " x " << s.disc.K << " x " << s.disc.element.Np
      << " values), backend " << backend.name() << " (" << backend.device_info().name << "), " << cfg.precision << "\n";
  const auto start = std::chrono::steady_clock::now();
  s.solver = std::make_unique<dg::Solver>(backend, s.disc, setup);
  if (!restart_plan.empty()) {
    s.solver->set_plan(dg::plan_from_text(restart_plan));
    s.plan_source = "the checkpoint's";
  } else {
    const dg::PlanChoice choice = dg::choose_plan(*s.solver, rtcg::tune::tune_mode(), rtcg::tune::global_tuning_db(),
                                                  dg::tune_budget_seconds(), dg::PlanSpace::for_backend(backend.kind()), &log);
    s.plan_source = choice.source;
  }
  log << "[rtdg] kernels ready in "
      << format_number(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()) << " s ("
      << s.solver->kernels().name << "; plan: " << s.solver->setup().plan.describe() << ", from " << s.plan_source
      << ")\n";
}

output::Solution snapshot(const Setup& s, double t, long long step) {
  output::Solution sol = output::make_solution(s.disc);
  sol.names = s.solver->component_names();
  sol.values = s.solver->state();
  sol.precision = s.cfg.precision;
  sol.time = t;
  sol.step = step;
  sol.rtdg_version = RTDG_VERSION;
  sol.law_name = s.law.name;
  sol.law_file = s.cfg.law_file.string();
  sol.mesh_file = s.cfg.mesh_file.string();
  sol.mesh_fingerprint = s.fingerprint;
  sol.integrator = s.cfg.integrator;
  sol.effective_config = s.cfg.effective_toml;
  sol.plan = dg::to_text(s.solver->setup().plan);
  sol.dt = s.dt;
  return sol;
}

// A new run refuses a folder that already holds an earlier run's files unless --overwrite,
// and then removes only what a run writes there.
void prepare_output_dir(const fs::path& dir, const config::RunConfig& cfg, bool overwrite) {
  std::vector<fs::path> ours = {dir / "config.toml", dir / (cfg.name + ".pvd"), dir / "snapshots", dir / "checkpoints",
                                dir / "summary.json", dir / "farfield"};
  for (std::size_t p = 0; p < cfg.probes.size(); ++p) ours.push_back(dir / (cfg.probes[p].name + ".csv"));
  std::vector<fs::path> found;
  for (const fs::path& path : ours)
    if (fs::exists(path)) found.push_back(path);
  if (!found.empty() && !overwrite)
    throw std::runtime_error("the output folder " + dir.string() + " already holds an earlier run's files (e.g. " +
                             found.front().string() +
                             "); pass --overwrite to replace them, set run.output_dir to another folder, or continue "
                             "the earlier run with --restart <checkpoint>");
  for (const fs::path& path : found) fs::remove_all(path);
  fs::create_directories(dir);
}

// ", field Ez is 3.2e+07 in element 5 (node 3 at x = 0.25, y = 0.5)": where a value sits.
std::string value_place(const Setup& s, const dg::Solver::BadValue& v) {
  std::ostringstream text;
  text << ", field " << s.solver->component_names().at(static_cast<std::size_t>(v.component)) << " is "
       << format_number(v.value) << " in element " << v.element << " (node " << v.node
       << " at x = " << format_number(s.disc.x(v.node, v.element));
  if (s.disc.dim > 1) text << ", y = " << format_number(s.disc.y(v.node, v.element));
  if (s.disc.dim > 2) text << ", z = " << format_number(s.disc.z(v.node, v.element));
  text << ")";
  return text.str();
}

std::string checkpoint_text(const fs::path& last_checkpoint) {
  return last_checkpoint.empty() ? std::string("; no checkpoint was written")
                                 : "; the last good checkpoint is " + last_checkpoint.string();
}

std::string failure_text(const Setup& s, long long step, double t, long long good_step, double good_t,
                         const fs::path& last_checkpoint) {
  std::ostringstream text;
  text << "the solution stopped being finite: at step " << step << ", t = " << format_number(t);
  if (const auto bad = s.solver->find_bad_value()) text << value_place(s, *bad);
  text << "; it was finite at step " << good_step << " (t = " << format_number(good_t) << ")";
  text << checkpoint_text(last_checkpoint);
  text << ". A smaller time.cfl or time.dt usually cures a blow-up.";
  return text.str();
}

double largest_abs(const std::vector<double>& values) {
  double largest = 0;
  for (const double v : values) largest = std::max(largest, std::abs(v));
  return largest;
}

// What a growing solution is judged against (docs/running.md, "Signals and failures"): the run
// stops when the state's largest |value| exceeds factor x scale. The scale is the larger of
// the initial state's largest |value| and the incident wave's amplitude; 0 when both are zero
// (a zero start and no incident field: nothing to compare with, so only finiteness is checked).
struct GrowthLimit {
  double factor = 0;  // run.blowup_factor; 0: no growth check
  double scale = 0;
  std::string scale_from;  // what gave the scale, for the message
  double limit() const { return factor * scale; }
};

std::string growth_text(const Setup& s, long long step, double t, double largest, const GrowthLimit& growth,
                        long long good_step, double good_t, const fs::path& last_checkpoint) {
  std::ostringstream text;
  text << "the solution is growing without bound: at step " << step << ", t = " << format_number(t);
  if (const auto big = s.solver->find_largest_value()) text << value_place(s, *big);
  else text << ", its largest |value| is " << format_number(largest);
  text << ", above the limit " << format_number(growth.limit()) << " = run.blowup_factor (" << format_number(growth.factor)
       << ") x " << format_number(growth.scale) << " (" << growth.scale_from << ")";
  text << "; it was within the limit at step " << good_step << " (t = " << format_number(good_t) << ")";
  text << checkpoint_text(last_checkpoint);
  text << ". A smaller time.cfl or time.dt usually cures a blow-up.";
  return text.str();
}

// "[rtdg] warning: ..." when the time step is above the integrator's stability limit.
void warn_about_cfl(const config::RunConfig& cfg, const dg::Solver& solver, double dt, std::ostream& log) {
  const double limit = stable_cfl_limit(cfg.integrator);
  double cfl = cfg.cfl.value_or(0.5);
  if (cfg.dt) {
    try {
      cfl = *cfg.dt / solver.stable_dt(1.0);  // the Courant number of a fixed step
    } catch (const std::exception&) {
      return;  // no wave speed to measure it by
    }
  }
  if (!(cfl > limit)) return;
  log << "[rtdg] warning: "
      << (cfg.dt ? "time.dt = " + format_number(dt) + " is a Courant number of " + format_number(cfl)
                 : "time.cfl = " + format_number(cfl) + " is")
      << " above " << format_number(limit) << ", where " << cfg.integrator
      << " goes unstable at some orders (docs/running.md, \"Time step\"): the solution will likely blow up; use a "
         "smaller time.cfl\n";
}

// The checkpoint's node coordinates must be the run's: same mesh (the fingerprint says so) and
// same reference nodes. This catches values at other nodes whatever the node_set attribute
// says (output::check_restart_nodes has refused the known cases with a fuller message).
void check_checkpoint_nodes(const fs::path& file, const output::Solution& checkpoint, const dg::Discretization& disc) {
  const Eigen::MatrixXd* now[3] = {&disc.x, &disc.y, &disc.z};
  const std::vector<double>* stored[3] = {&checkpoint.x, &checkpoint.y, &checkpoint.z};
  const Eigen::Index Np = disc.element.Np;
  for (Eigen::Index k = 0; k < disc.K; ++k) {
    double extent = 0, magnitude = 0, worst = 0;
    Eigen::Index worst_node = 0;
    for (int d = 0; d < disc.dim; ++d) {
      const auto column = now[d]->col(k);
      extent = std::max(extent, column.maxCoeff() - column.minCoeff());
      magnitude = std::max(magnitude, column.cwiseAbs().maxCoeff());
      for (Eigen::Index i = 0; i < Np; ++i) {
        const double gap = std::abs((*stored[d])[static_cast<std::size_t>(k * Np + i)] - column(i));
        // A NaN gap is kept (a later finite one must not replace it): it is refused below.
        if (!(gap <= worst) && !std::isnan(worst)) {
          worst = gap;
          worst_node = i;
        }
      }
    }
    // Rounding (another compiler, say) moves nodes by a few ulps of the coordinates; the old
    // order-6 triangle nodes are 1e-5 of the element's size away.
    if (!(worst <= 1e-10 * extent + 1e-13 * magnitude)) {
      throw std::runtime_error(
          "the checkpoint " + file.string() + " holds its values at other nodes than this rtdg places on the mesh: node " +
          std::to_string(worst_node) + " of element " + std::to_string(k) + " is " + format_number(worst) +
          " away from where this rtdg puts it (the element is " + format_number(extent) +
          " across), so the checkpoint was written by an rtdg with other reference nodes; finish the run with that "
          "rtdg, or start it again from t = 0 with this one (rtdg run <output folder>/config.toml --overwrite)");
    }
  }
}

}  // namespace

// Measured (docs/running.md, "Time step"): the smallest limits over orders 1-6 of the 2D and 3D
// cavities are 1.60 (LSERK4) and 0.86 (SSP-RK3), both at order 1 in 3D; rounded down with a
// margin for other meshes.
double stable_cfl_limit(const std::string& integrator) { return integrator == "ssprk3" ? 0.8 : 1.5; }

RunSummary run(const RunOptions& options) {
  std::ostream& log = options.log ? *options.log : std::cerr;
  SignalGuard signals;
  Setup s;
  std::optional<output::Solution> restart;
  fs::path output_dir;
  if (options.restart) {
    restart = output::read_solution(*options.restart);
    // Values at other reference nodes than this rtdg's (the order-6 triangle nodes before
    // issue 14) are refused before anything is built.
    output::check_restart_nodes(*options.restart, *restart);
    s.cfg = config::parse_config(restart->effective_config, *options.restart, options.overrides);
    // The checkpoint lives in <output_dir>/checkpoints/: continue in that folder.
    output_dir = fs::absolute(*options.restart).parent_path().parent_path();
  } else {
    s.cfg = config::read_config(options.config, options.overrides);
    output_dir = s.cfg.output_dir;
  }
  const config::RunConfig& cfg = s.cfg;
  try {
    build(s, log, restart ? restart->plan : std::string());
  } catch (const std::exception&) {
    // Ctrl-C during set-up also stops a kernel compile in progress (the compiler is in the same
    // process group): say that, not "compile failed".
    if (const int signal = stop_signal().load())
      throw std::runtime_error(std::string(signal == SIGINT ? "interrupted (SIGINT)" : "terminated") +
                               " while setting up the run; nothing was written");
    throw;
  }
  dg::Solver& solver = *s.solver;
  rtcg::Backend& backend = solver.backend();

  double t = 0;
  long long step = 0;
  double initial_scale = 0;  // the initial state's largest |value| (host values, also on a restart)
  if (restart) {
    if (restart->mesh_fingerprint != s.fingerprint)
      throw std::runtime_error("the checkpoint " + options.restart->string() + " was written on a different mesh than " +
                               cfg.mesh_file.string() + " gives now (fingerprint " + restart->mesh_fingerprint +
                               " vs " + s.fingerprint + "); restart with the mesh the run started from");
    if (restart->names != solver.component_names() || restart->K != s.disc.K || restart->N != cfg.order)
      throw std::runtime_error("the checkpoint " + options.restart->string() +
                               " does not match the run's fields, elements or order");
    check_checkpoint_nodes(*options.restart, *restart, s.disc);
    solver.set_state(restart->values);
    // The growth check's scale is the original run's (see below), so a continued run stops
    // where the uninterrupted one would.
    if (cfg.initial == "law" && cfg.blowup_factor > 0) initial_scale = largest_abs(solver.initial_values());
    t = restart->time;
    step = restart->step;
    log << "[rtdg] restarting from " << options.restart->string() << " at step " << step << ", t = " << format_number(t)
        << "\n";
  } else {
    prepare_output_dir(output_dir, cfg, options.overwrite);
    if (cfg.initial == "law") {
      const std::vector<double> values = solver.initial_values();
      initial_scale = largest_abs(values);
      solver.set_state(values);
    }
  }
  fs::create_directories(output_dir / "snapshots");
  fs::create_directories(output_dir / "checkpoints");
  {
    std::ofstream out(output_dir / "config.toml");
    out << cfg.effective_toml;
  }

  // With time.dt_update_every = n the step is re-evaluated from the state at steps 0, n, 2n, ...
  // (below); in between, a restart continues with the step its checkpoint records.
  s.dt = cfg.dt ? *cfg.dt : restart && restart->dt > 0 && cfg.dt_update_every > 0 ? restart->dt
                                                                                  : solver.stable_dt(cfg.cfl.value_or(0.5));
  double& dt = s.dt;
  warn_about_cfl(cfg, solver, dt, log);
  // The far-field transform (docs/scattering.md); a restart continues its sums.
  std::unique_ptr<FarFieldRun> farfield;
  if (cfg.farfield.enabled) {
    farfield = std::make_unique<FarFieldRun>(s, solver, dt, log);
    if (restart) farfield->restore(*restart);
  }
  const double T = cfg.final_time;
  const std::size_t dofs = solver.size();

  RunSummary summary;
  summary.output_dir = output_dir;
  summary.dt = dt;
  summary.dofs = dofs;
  summary.backend = backend.name();
  summary.device = backend.device_info().name;
  summary.precision = cfg.precision;
  summary.plan = solver.setup().plan.describe();
  summary.plan_source = s.plan_source;
  // A failure before the first checkpoint of a continued run names the one it started from.
  if (restart) summary.last_checkpoint = *options.restart;

  // Output: probes, snapshots (HDF5 + VTU + PVD) and checkpoints.
  std::vector<output::ProbeSpec> probe_specs;
  for (const config::Probe& p : cfg.probes) probe_specs.push_back({p.name, p.points, p.fields, p.every});
  output::Probes probes(s.disc, s.mesh, solver.component_names(), probe_specs);
  probes.open(output_dir, restart ? std::optional<double>(t) : std::nullopt);
  // Probes read only their elements' values: a small copy per step instead of the whole state.
  std::vector<int> probe_elements;
  for (std::size_t p = 0; p < probes.size(); ++p)
    for (const output::ProbePoint& point : probes.points(p)) probe_elements.push_back(point.element);
  std::sort(probe_elements.begin(), probe_elements.end());
  probe_elements.erase(std::unique(probe_elements.begin(), probe_elements.end()), probe_elements.end());
  std::vector<double> probe_values(probe_elements.empty() ? 0 : solver.size(), 0.0);
  auto record_probes = [&] {
    solver.copy_elements(probe_elements, probe_values);
    probes.record(probe_values, t, step);
  };
  const bool write_vtu = cfg.vtu && output::vtu_available();
  if (cfg.vtu && !write_vtu)
    log << "[rtdg] note: this rtdg was built without VTK, so no VTU files are written; convert the HDF5 snapshots with "
           "`rtdg export` on a machine that has VTK\n";
  std::optional<output::PvdSeries> pvd;
  if (write_vtu) {
    pvd.emplace(output_dir / (cfg.name + ".pvd"));
    summary.pvd = output_dir / (cfg.name + ".pvd");
  }
  auto write_snapshot = [&](long long index) {
    const output::Solution sol = snapshot(s, t, step);
    char stem[64];
    std::snprintf(stem, sizeof stem, "_%04lld", index);
    const fs::path base = output_dir / "snapshots" / (cfg.name + stem);
    if (cfg.hdf5) output::write_solution(fs::path(base).replace_extension(".h5"), sol);
    if (write_vtu) {
      output::write_vtu(fs::path(base).replace_extension(".vtu"), sol);
      pvd->add(t, fs::path(base).replace_extension(".vtu"));
    }
    if (cfg.error) {
      std::vector<double> difference = sol.values;
      const std::vector<double> exact = solver.exact_values(t);
      for (std::size_t i = 0; i < difference.size(); ++i) difference[i] -= exact[i];
      summary.error = solver.l2_norm(difference);
      log << "[rtdg] t = " << format_number(t) << ": L2 error " << *summary.error << "\n";
    }
  };
  auto write_checkpoint = [&] {
    char name[64];
    std::snprintf(name, sizeof name, "checkpoint_%09lld.h5", step);
    const fs::path file = output_dir / "checkpoints" / name;
    output::Solution checkpoint = snapshot(s, t, step);
    if (farfield) farfield->store(checkpoint);
    output::write_solution(file, checkpoint);
    if (farfield) farfield->write(output_dir, t, step);
    summary.last_checkpoint = file;
    // Keep the newest checkpoint.keep files (names sort by step).
    std::vector<fs::path> all;
    for (const auto& entry : fs::directory_iterator(output_dir / "checkpoints")) {
      const std::string n = entry.path().filename().string();
      if (n.rfind("checkpoint_", 0) == 0 && entry.path().extension() == ".h5") all.push_back(entry.path());
    }
    std::sort(all.begin(), all.end());
    for (std::size_t i = 0; i + static_cast<std::size_t>(cfg.checkpoint_keep) < all.size(); ++i) fs::remove(all[i]);
  };

  GrowthLimit growth;
  growth.factor = cfg.blowup_factor;
  if (std::isfinite(initial_scale) && initial_scale > 0) {
    growth.scale = initial_scale;
    growth.scale_from = "the initial state's largest |value|";
  }
  if (cfg.incident.kind != "none" && std::abs(cfg.incident.amplitude) > growth.scale) {
    growth.scale = std::abs(cfg.incident.amplitude);
    growth.scale_from = "the incident wave's amplitude";
  }

  long long good_step = step;
  double good_t = t;
  // A reduction on the device (one number comes back): NaN or infinity, or growth past the
  // limit, stops the run before anything is written from that state.
  auto ensure_finite = [&] {
    const double largest = solver.max_abs();
    if (!std::isfinite(largest)) throw RunFailure(failure_text(s, step, t, good_step, good_t, summary.last_checkpoint));
    if (growth.limit() > 0 && largest > growth.limit())
      throw RunFailure(growth_text(s, step, t, largest, growth, good_step, good_t, summary.last_checkpoint));
    good_step = step;
    good_t = t;
  };

  // Event schedule: output index n at time n * interval; a restart continues after t.
  const double interval = cfg.output_interval;
  long long next_output = interval > 0 ? static_cast<long long>(std::floor(t / interval + 1e-9)) + 1 : -1;
  const double cinterval = cfg.checkpoint_interval;
  long long next_checkpoint = cinterval > 0 ? static_cast<long long>(std::floor(t / cinterval + 1e-9)) + 1 : -1;
  auto reached = [&](long long index, double every) { return index > 0 && t >= static_cast<double>(index) * every - 1e-9 * every; };

  if (!restart) {
    write_snapshot(0);
    if (probes.due(step)) record_probes();
  }

  Progress progress(log, T, cfg.progress_every, dofs);
  progress.start(t, step);
  double output_seconds = 0;
  const auto loop_start = std::chrono::steady_clock::now();
  long long taken = 0;
  bool snapshot_at_end = false;
  while (t < T) {
    if (cfg.dt_update_every > 0 && step % cfg.dt_update_every == 0) {
      // The state is checked first, so a blow-up is reported as one, not as a bad wave speed.
      ensure_finite();
      const double speed = solver.max_wave_speed();
      if (!(speed > 0) || !std::isfinite(speed))
        throw RunFailure("the largest wave speed of the state is " + format_number(speed) + " at step " +
                         std::to_string(step) + ", t = " + format_number(t) +
                         " (time.dt_update_every re-evaluates the step from it): the state left the law's valid "
                         "range (a negative density or pressure, say)" + checkpoint_text(summary.last_checkpoint) +
                         ". Shock capturing ([stabilization]) or a smaller time.cfl may help.");
      dt = solver.stable_dt(cfg.cfl.value_or(0.5));
    }
    // A step that would pass the next output time or T is shortened to land on it exactly
    // (a step within 1e-12 of it counts as landing).
    double target = T;
    if (next_output > 0) target = std::min(target, static_cast<double>(next_output) * interval);
    const bool land = t + dt >= target - 1e-12 * std::max(1.0, std::abs(target));
    const double h = land ? target - t : dt;
    solver.step(t, h);
    ++step;
    ++taken;
    t = land ? target : t + h;
    snapshot_at_end = false;

    if (farfield) farfield->sample(t, step);
    const auto io_start = std::chrono::steady_clock::now();
    bool wrote = false;
    if (probes.due(step)) record_probes();
    if (reached(next_output, interval)) {
      ensure_finite();
      write_snapshot(next_output);
      snapshot_at_end = true;
      while (reached(next_output, interval)) ++next_output;
      wrote = true;
    }
    if (reached(next_checkpoint, cinterval)) {
      ensure_finite();
      write_checkpoint();
      while (reached(next_checkpoint, cinterval)) ++next_checkpoint;
      wrote = true;
    }
    const bool stop = stop_signal().load() != 0 || (options.stop_after_steps > 0 && taken >= options.stop_after_steps);
    if (stop && t < T) {
      ensure_finite();
      write_checkpoint();
      summary.interrupted = true;
      const int signal = stop_signal().load();
      log << "\n[rtdg] " << (signal == SIGINT ? "interrupted (SIGINT)" : signal == SIGTERM ? "terminated (SIGTERM)" : "stopped")
          << " at step " << step << ", t = " << format_number(t) << "; continue with: rtdg run --restart "
          << summary.last_checkpoint.string() << "\n";
      break;
    }
    if (wrote) output_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - io_start).count();
    if (progress.due(step)) {
      backend.synchronize();
      ensure_finite();
      progress.line(t, step);
    }
  }
  backend.synchronize();
  const double loop_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - loop_start).count();
  progress.finish();

  if (!summary.interrupted) {
    ensure_finite();
    if (!snapshot_at_end && taken > 0) write_snapshot(interval > 0 ? next_output : 1);
    write_checkpoint();
  }
  summary.steps = taken;
  summary.dt = dt;  // the last step in use (time.dt_update_every changes it)
  summary.final_step = step;
  summary.time = t;
  summary.wall_seconds = std::max(0.0, loop_seconds - output_seconds);
  summary.seconds_per_step = taken ? summary.wall_seconds / static_cast<double>(taken) : 0;
  summary.dofs_per_second =
      summary.wall_seconds > 0 ? static_cast<double>(dofs) * static_cast<double>(taken) / summary.wall_seconds : 0;

  nlohmann::json j = {{"steps", summary.steps},
                      {"final_step", summary.final_step},
                      {"time", summary.time},
                      {"dt", summary.dt},
                      {"wall_seconds", summary.wall_seconds},
                      {"seconds_per_step", summary.seconds_per_step},
                      {"dofs", summary.dofs},
                      {"dofs_per_second", summary.dofs_per_second},
                      {"backend", summary.backend},
                      {"device", summary.device},
                      {"precision", summary.precision},
                      {"order", cfg.order},
                      {"elements", s.disc.K},
                      {"law", s.law.name},
                      {"plan", summary.plan},
                      {"plan_source", summary.plan_source},
                      {"interrupted", summary.interrupted},
                      {"last_checkpoint", summary.last_checkpoint.string()}};
  if (summary.error) j["l2_error"] = *summary.error;
  std::ofstream(output_dir / "summary.json") << j.dump(2) << "\n";
  return summary;
}

std::string format_summary(const RunSummary& s) {
  std::ostringstream out;
  out << (s.interrupted ? "stopped" : "finished") << ": " << s.steps << " steps to t = " << format_number(s.time)
      << " (dt " << format_number(s.dt) << ")";
  if (s.steps > 0)
    out << ", " << format_number(s.seconds_per_step * 1e3) << " ms/step, " << format_number(s.dofs_per_second)
        << " DOF/s (" << s.dofs << " DOFs, " << s.backend << ", " << s.precision << ")";
  if (!s.plan.empty()) out << "\nkernel plan: " << s.plan << " (" << s.plan_source << ")";
  if (s.error) out << "\nL2 error at the end: " << *s.error;
  out << "\noutput: " << s.output_dir.string();
  if (!s.pvd.empty()) out << "\n  ParaView series: " << s.pvd.string();
  out << "\n  snapshots: " << (s.output_dir / "snapshots").string();
  if (!s.last_checkpoint.empty()) out << "\n  checkpoint: " << s.last_checkpoint.string();
  out << "\n  summary: " << (s.output_dir / "summary.json").string() << "\n";
  return out.str();
}

}  // namespace rtdg::runner
