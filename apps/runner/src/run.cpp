// `rtdg run` (runner/run.hpp): set-up, the time loop, output and restart.
#include "runner/run.hpp"

#include "runner/farfield_run.hpp"
#include "parallel_run.hpp"
#include "progress.hpp"
#include "runner/problem.hpp"
#include "runner/run_folder.hpp"

#include <config/run_config.hpp>
#include <dg/discretization.hpp>
#include <dg/error.hpp>
#include <dg/parallel.hpp>
#include <dg/solver.hpp>
#include <dg/tuning.hpp>
#include <dg/wave_speed.hpp>
#include <fluxes/diagnostics.hpp>
#include <fluxes/law.hpp>
#include <fluxes/law_lowering.hpp>
#include <mesh/fingerprint.hpp>
#include <mesh/load.hpp>
#include <output/hdf5_solution.hpp>
#include <output/probes.hpp>
#include <output/pvd.hpp>
#include <output/solution.hpp>
#include <output/vtu.hpp>
#include <rtcg/backend.hpp>
#include <rtcg/error.hpp>
#include <rtcg/hash.hpp>
#include <rtcg/tune_stop.hpp>

#include <nlohmann/json.hpp>

#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>

namespace rtdg::runner {
namespace fs = std::filesystem;

std::atomic<int>& stop_signal() {
  static std::atomic<int> flag{0};
  return flag;
}

namespace {

// True while the run is set up (kernels generated, compiled and tuned): nothing is written yet,
// so a signal may abandon a host compile in progress. Afterwards a compile (a kernel made on
// first use) runs to its end and the run stops at its next step, with a checkpoint.
std::atomic<bool>& setting_up() {
  static std::atomic<bool> flag{false};
  return flag;
}

// Also stops a tuning at set-up after the variant it is timing, and a host compile at set-up
// (rtcg/tune_stop.hpp).
void handle_signal(int signal) {
  stop_signal().store(signal);
  rtcg::tune::stop_tuning().store(true);
  if (setting_up().load()) rtcg::stop_compiling().store(true);
}

// Installs the SIGINT/SIGTERM handlers for the duration of a run and restores the old ones.
class SignalGuard {
public:
  SignalGuard() {
    stop_signal().store(0);
    rtcg::tune::stop_tuning().store(false);
    rtcg::stop_compiling().store(false);
    setting_up().store(true);
    struct sigaction action {};
    action.sa_handler = handle_signal;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, &old_int_);
    sigaction(SIGTERM, &action, &old_term_);
  }
  ~SignalGuard() {
    setting_up().store(false);
    rtcg::tune::stop_tuning().store(false);
    rtcg::stop_compiling().store(false);
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
// can tell that it re-created the same one: mesh/fingerprint.hpp's bytes, from the mesh in
// memory or (a rank that reads only its part) from the .h5 file in blocks.
std::string mesh_fingerprint(const std::function<void(const mesh::ByteSink&)>& bytes) {
  rtcg::Sha256 hash;
  bytes([&](std::string_view b) { hash.update(b); });
  const auto digest = hash.finish();
  return "sha256:" + rtcg::to_hex(digest.data(), digest.size());
}

// How this rank's halo traces travel, for the log and the summary.
std::string halo_transfer_text(const dg::Solver& solver, const dg::Communicator& comm) {
  switch (solver.halo_transfer()) {
    case dg::HaloTransfer::device: return "from and into device memory (CUDA-aware MPI)";
    case dg::HaloTransfer::pinned_host:
      return comm.cuda_aware() ? "staged through pinned host memory"
                               : "staged through pinned host memory (the MPI library does not report CUDA support)";
    case dg::HaloTransfer::arrays: return "from and into the rank's arrays (host backend)";
    case dg::HaloTransfer::none: break;
  }
  return "none (no halo faces on this rank)";
}

// The process's peak resident memory so far (getrusage; Linux counts ru_maxrss in KiB).
long long peak_resident_bytes() {
  struct rusage usage {};
  if (getrusage(RUSAGE_SELF, &usage) != 0) return 0;
  return static_cast<long long>(usage.ru_maxrss) * 1024;
}

// Seconds since this process started (the rtdg command's start-up): its start time in /proc/self/stat (clock ticks since
// boot, 10 ms on most kernels) against CLOCK_BOOTTIME, so that loading the program and its
// libraries and MPI's initialisation count. `fallback` where that is not known (not Linux).
double seconds_since_launch(double fallback) {
  std::ifstream in("/proc/self/stat");
  std::string text;
  std::getline(in, text);
  const std::size_t name_end = text.rfind(')');  // the command name may hold spaces and ')'
  if (name_end == std::string::npos) return fallback;
  std::istringstream fields(text.substr(name_end + 1));
  std::string field;
  for (int n = 3; n < 22; ++n) fields >> field;  // fields 3 (state) .. 21, then 22: starttime
  long long start_ticks = -1;
  fields >> start_ticks;
  struct timespec now {};
  const long ticks_per_second = sysconf(_SC_CLK_TCK);
  if (!fields || start_ticks < 0 || ticks_per_second <= 0 || clock_gettime(CLOCK_BOOTTIME, &now) != 0) return fallback;
  const double seconds = static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec) -
                         static_cast<double>(start_ticks) / static_cast<double>(ticks_per_second);
  // A clock that disagrees with the run's own (a time namespace, say) is not believed.
  return seconds >= fallback - 0.05 && seconds < fallback + 86400.0 ? std::max(seconds, fallback) : fallback;
}

std::string mebibytes(long long bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
  return text;
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
  Part part;                // a parallel run's part of the mesh (parallel_run.hpp)
  const dg::Communicator& comm() const { return part.comm ? *part.comm : dg::world(); }
};

// A plan from a serial run (a checkpoint's, or one stored in the tuning database) may launch its
// steps as one CUDA graph, which a parallel step refuses (its halo exchange with other ranks runs
// between the launches): a parallel run takes the same kernels launched one by one (the same
// answer bit for bit) and says so in the plan's source. Whether it changed the plan.
bool drop_graph_for_parallel_steps(dg::Plan& plan, std::string& source) {
  if (!plan.graph) return false;
  plan.graph = false;
  source += "; graph off: a parallel step exchanges halo traces between its launches";
  return true;
}

// `restart_plan`: the plan a checkpoint was computed with (dg::to_text), kept on restart so
// the continuation does the same arithmetic; empty for a new run (RTDG_TUNE decides).
// `folder`: the output folder (rank 0), where a parallel run on a .geo writes the mesh it made.
void build(Setup& s, std::ostream& log, const std::string& restart_plan, RunFolder* folder) {
  const dg::Communicator& comm = dg::world();
  // A parallel run's ranks discretize only their part (make_part); rank 0 also the whole mesh
  // when its HDF5 is the serial one, since it then gathers and writes the files alone. Each
  // rank reads its part of a partitioned .h5 mesh, or rank 0 alone reads the mesh and sends the
  // parts (choose_mesh_input).
  const MeshInput input = choose_mesh_input(s.cfg, comm);
  if (comm.rank() == 0 && !input.note.empty()) log << "[rtdg] " << input.note << "\n";
  load(s, comm.size() == 1 || (comm.rank() == 0 && !output::parallel_hdf5_available()), input.whole_mesh());
  if (input.how == MeshInput::How::whole) {
    s.fingerprint = mesh_fingerprint([&](const mesh::ByteSink& sink) { mesh::fingerprint_bytes(s.mesh, sink); });
  } else {
    if (comm.rank() == 0)
      s.fingerprint = mesh_fingerprint([&](const mesh::ByteSink& sink) {
        if (input.how == MeshInput::How::sent) mesh::fingerprint_bytes(s.mesh, sink);
        else mesh::hdf5_fingerprint_bytes(s.cfg.mesh_file, sink);
      });
    s.fingerprint = comm.broadcast(s.fingerprint, 0);
  }
  s.part.input = input.how;
  if (folder && input.how == MeshInput::How::sent && meshes_geo(s.cfg))
    s.part.claim_meshed_file = [folder, name = meshed_file_name(s.cfg)] {
      folder->claim(name, "mesh");
      return folder->dir() / name;
    };
  const config::RunConfig& cfg = s.cfg;
  const dg::SolverSetup& setup = s.setup;
  s.part.comm = &comm;
  if (comm.size() > 1) {
    choose_device(comm, cfg.backend);
    make_part(s, s.part, comm, log);
  }
  rtcg::Backend& backend = [&]() -> rtcg::Backend& {
    try {
      return rtcg::backend(cfg.backend);
    } catch (const rtcg::DeviceError& e) {
      // rtcg's advice names the --backend option of `rtdg tune` and `rtdg bench`; a run's backend
      // is run.backend.
      std::string why = e.what();
      if (const auto at = why.find("; use --backend host"); at != std::string::npos) why.erase(at);
      throw fluxes::Error(cfg.where("run.backend"), why + "; set run.backend = \"host\" (or \"auto\") in the config, "
                                                       "or pass --set run.backend=host, to run on the CPU");
    }
  }();
  const int K = s.part.parallel() ? s.part.global_K : s.disc.K;
  log << "[rtdg] " << s.law.name << " on " << K << " " << dg::shape_name(s.disc.element.shape) << "s of order "
      << cfg.order << " (" << s.law.state_components() << " x " << K << " x " << s.disc.element.Np
      << " values), backend " << backend.name() << " (" << backend.device_info().name << "), " << cfg.precision << "\n";
  const auto start = std::chrono::steady_clock::now();
  s.solver = std::make_unique<dg::Solver>(backend, s.disc, setup);
  s.solver->set_overlap(cfg.overlap);
  if (s.plan) {
    // The config names the plan (every rank the same one): it fits or the run stops here.
    try {
      s.solver->set_plan(*s.plan);
    } catch (const dg::Error& e) {
      throw fluxes::Error(cfg.where("run.plan"), "'run.plan': " + std::string(e.what()));
    }
    // Refused here rather than at the first step (Solver::step would): the config is what to fix.
    if (s.part.parallel() && s.plan->graph)
      throw fluxes::Error(cfg.where("run.plan"),
                          "'run.plan': graph = on launches each step as one CUDA graph, which a parallel run cannot "
                          "hold (its halo exchange with other ranks runs between the launches): drop 'graph=on' "
                          "from the plan, or run on one rank");
    s.plan_source = "the config's run.plan";
    if (!restart_plan.empty()) {
      // The checkpoint's plan only for the note (run.plan is what runs, whatever it holds).
      std::string earlier;
      try {
        const dg::Plan plan = dg::plan_from_text(restart_plan);
        if (plan != s.solver->setup().plan) earlier = plan.describe();
      } catch (const dg::Error&) {
        earlier = "\"" + restart_plan + "\"";
      }
      if (!earlier.empty())
        log << "[rtdg] note: run.plan is not the plan the checkpoint was computed with (" << earlier
            << "): the restart gives the same answer to rounding, not bit for bit\n";
    }
  } else if (!restart_plan.empty()) {
    dg::Plan plan = dg::plan_from_text(restart_plan);
    s.plan_source = "the checkpoint's";
    if (s.part.parallel()) drop_graph_for_parallel_steps(plan, s.plan_source);
    s.solver->set_plan(plan);
  } else if (s.part.parallel()) {
    // One plan for every rank: rank 0 chooses (timing its own part, the halo traces held as
    // last received, so it needs no other rank), the others take it.
    std::string plan;
    if (comm.rank() == 0) {
      s.solver->set_halo_exchange(false);
      const dg::PlanChoice choice = dg::choose_plan(*s.solver, rtcg::tune::tune_mode(), rtcg::tune::global_tuning_db(),
                                                    dg::tune_budget_seconds(), dg::PlanSpace::for_backend(backend.kind()), &log);
      s.solver->set_halo_exchange(true);
      s.plan_source = choice.source + ", on rank 0";
      if (dg::Plan chosen = s.solver->setup().plan; drop_graph_for_parallel_steps(chosen, s.plan_source))
        s.solver->set_plan(chosen);
      plan = dg::to_text(s.solver->setup().plan);
    }
    plan = comm.broadcast(plan, 0);
    s.plan_source = comm.broadcast(s.plan_source, 0);
    s.solver->set_plan(dg::plan_from_text(plan));
  } else {
    const dg::PlanChoice choice = dg::choose_plan(*s.solver, rtcg::tune::tune_mode(), rtcg::tune::global_tuning_db(),
                                                  dg::tune_budget_seconds(), dg::PlanSpace::for_backend(backend.kind()), &log);
    s.plan_source = choice.source;
  }
  log << "[rtdg] kernels ready in "
      << format_number(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()) << " s ("
      << s.solver->kernels().name << "; plan: " << s.solver->setup().plan.describe() << ", from " << s.plan_source
      << ")\n";
  // The same plan as run.plan takes it, to pin it in a config.
  log << "[rtdg] plan as run.plan: \"" << dg::to_text(s.solver->setup().plan) << "\"\n";
  if (s.part.parallel())
    log << "[rtdg] halo traces: " << halo_transfer_text(*s.solver, comm)
        << (cfg.overlap ? ", sent while the elements without halo faces are computed"
                        : ", received before any element is computed (run.overlap = false)")
        << "\n";
  if (!s.setup.total_field.empty()) {
    // The whole mesh's counts (a parallel run's faces across ranks count on the total side).
    const std::vector<char>& total = s.setup.total_field;
    long long total_elements = std::count(total.begin(), total.end(), char{1});
    if (s.part.parallel()) total_elements = comm.sum(total_elements);
    const int tfsf_total = dg::tfsf_total_code(s.solver->kernel_spec());
    long long faces = 0, across = 0;
    for (const std::int32_t code : s.solver->face_codes()) {
      faces += code == tfsf_total || code == dg::tfsf_halo_total_code;
      across += code == dg::tfsf_halo_total_code;
    }
    if (s.part.parallel()) {
      faces = comm.sum(faces);
      across = comm.sum(across);
    }
    log << "[rtdg] total-field/scattered-field incidence: " << total_elements << " of " << K << " elements carry the total field; the wave enters through " << faces << " faces";
    if (s.part.parallel()) log << " (" << across << " between ranks)";
    log << "\n";
  }
}

// The names, time, step and provenance of a snapshot or checkpoint (below).
void describe_snapshot(output::Solution& sol, const Setup& s, double t, long long step);

// Collective in a parallel run: every rank's state goes to rank 0, which alone gets the values
// (the other ranks get a solution without values and write nothing).
output::Solution snapshot(const Setup& s, double t, long long step) {
  const bool parallel = s.part.parallel();
  output::Solution sol = parallel && s.part.root() ? output::make_solution(s.part.global_disc)
                         : parallel               ? output::Solution{}
                                                  : output::make_solution(s.disc);
  sol.values = parallel ? gather_state(s.part, s.solver->state(), s.solver->components(), s.disc.element.Np)
                        : s.solver->state();
  describe_snapshot(sol, s, t, step);
  return sol;
}

// Collective in a parallel run: this rank's block of rows of the whole solution (Part::block_*),
// for output::write_solution_collective.
output::Solution block_snapshot(const Setup& s, double t, long long step) {
  const dg::Element& element = s.disc.element;
  output::Solution sol;
  sol.shape = element.shape;
  sol.dim = s.disc.dim;
  sol.N = element.N;
  sol.K = s.part.block_rows;
  sol.Np = element.Np;
  const std::size_t nodes = static_cast<std::size_t>(sol.K) * static_cast<std::size_t>(sol.Np);
  std::vector<double>* coordinates[3] = {&sol.x, &sol.y, &sol.z};
  for (int d = 0; d < sol.dim; ++d)
    coordinates[d]->assign(s.part.block_xyz.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(d) * nodes),
                           s.part.block_xyz.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(d + 1) * nodes));
  sol.values = block_values(s.part, s.solver->state(), s.solver->components(), element.Np);
  describe_snapshot(sol, s, t, step);
  return sol;
}

void describe_snapshot(output::Solution& sol, const Setup& s, double t, long long step) {
  sol.names = s.solver->component_names();
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
}

// The names a run writes at the top of its output folder (folders end in '/'), for
// RunFolder::foreign: what must not be in the way.
std::vector<std::string> output_names(const config::RunConfig& cfg) {
  std::vector<std::string> names = {"config.toml", "summary.json", cfg.name + ".pvd", "snapshots/", "checkpoints/"};
  if (cfg.farfield.enabled) names.push_back("farfield/");
  for (const config::Probe& probe : cfg.probes) names.push_back(probe.name + ".csv");
  if (dg::world().size() > 1 && meshes_geo(cfg)) names.push_back(meshed_file_name(cfg));
  return names;
}

bool same_folder(const fs::path& a, const fs::path& b) {
  std::error_code ec;
  if (fs::equivalent(a, b, ec)) return true;
  return fs::weakly_canonical(fs::absolute(a), ec) == fs::weakly_canonical(fs::absolute(b), ec);
}

std::string listing(const std::vector<fs::path>& paths) {
  std::string list;
  for (std::size_t i = 0; i < paths.size() && i < 3; ++i) list += (i ? ", " : "") + paths[i].string();
  if (paths.size() > 3) list += " and " + std::to_string(paths.size() - 3) + " more";
  return list;
}

// A new run, or a restart into a folder of its own: RunFolder::prepare_new_run, with a word of
// its own for the case of a config whose copy would replace it (run.output_dir = "." beside a
// config.toml).
void prepare_new_folder(RunFolder& folder, const std::vector<std::string>& names, bool overwrite, const fs::path& input) {
  std::error_code ec;
  const fs::path copy = folder.dir() / "config.toml";
  if (!input.empty() && !folder.owns("config.toml") && fs::equivalent(input, copy, ec))
    throw RunFolderError("the output folder " + folder.dir().string() + " is the folder of the config file " +
                         input.string() + ", which the effective config (" + copy.string() +
                         ") would replace: set run.output_dir to another folder");
  folder.prepare_new_run(names, overwrite);
}

// A restart in its checkpoint's own run folder: the checkpoint must be one this folder's run
// wrote (in its manifest), nothing of another's may be in the way, and the outputs the run wrote
// after the checkpoint's step (a restart from an earlier point) are deleted with --overwrite or
// refused without it, so that the series, the probes and the checkpoints stay one history.
void prepare_restart_in_place(RunFolder& folder, const fs::path& checkpoint, const output::Solution& from,
                              const std::vector<std::string>& names, bool overwrite) {
  const std::string relative = "checkpoints/" + checkpoint.filename().string();
  const std::string manifest = (folder.dir() / RunFolder::kManifest).string();
  const auto found = folder.entries().find(relative);
  if (found == folder.entries().end() || found->second.kind != "checkpoint")
    throw RunFolderError("the checkpoint " + checkpoint.string() + " is not one rtdg wrote into " + folder.dir().string() +
                         " (" + (folder.has_manifest() ? "it is not in " + manifest : "the folder has no " + std::string(RunFolder::kManifest)) +
                         ": an rtdg that kept none wrote it, or it was put there by hand), so continuing there could "
                         "replace files of another run: pass --set run.output_dir=<new folder> to continue into a new "
                         "folder");
  if (const std::vector<fs::path> in_the_way = folder.foreign(names); !in_the_way.empty())
    throw RunFolderError("the output folder " + folder.dir().string() + " holds " + listing(in_the_way) +
                         ", which rtdg did not write (not in " + manifest +
                         "); rtdg replaces and deletes only its own files: move " +
                         (in_the_way.size() == 1 ? "it" : "them") +
                         " away, or pass --set run.output_dir=<new folder> to continue into a new folder");
  std::vector<std::pair<std::string, RunFolder::Entry>> later;
  for (const auto& [path, entry] : folder.entries())
    if (entry.step > from.step && (entry.kind == "checkpoint" || entry.kind == "snapshot" || entry.kind == "farfield" ||
                                   entry.kind == "summary"))
      later.emplace_back(path, entry);
  if (later.empty()) return;
  if (!overwrite) {
    const auto last = std::max_element(later.begin(), later.end(),
                                       [](const auto& a, const auto& b) { return a.second.step < b.second.step; });
    throw RunFolderError("the checkpoint " + checkpoint.string() + " is at step " + std::to_string(from.step) +
                         ", but its run folder " + folder.dir().string() + " holds " + std::to_string(later.size()) +
                         " outputs written after it (up to " + (folder.dir() / last->first).string() + " at step " +
                         std::to_string(last->second.step) +
                         "), and continuing there would mix the two histories: pass --overwrite to delete the "
                         "outputs after step " + std::to_string(from.step) +
                         " (and the .pvd entries and probe rows after its time), or --set run.output_dir=<new folder> "
                         "to continue into a new folder");
  }
  for (const auto& entry : later) folder.remove(entry.first);
}

// ", field Ez is 3.2e+07 in element 5 (node 3 at x = 0.25, y = 0.5)": where a value sits.
std::string value_place(const Setup& s, const dg::Solver::BadValue& v) {
  std::ostringstream text;
  const int element = s.part.local ? s.part.local->element_global[static_cast<std::size_t>(v.element)] : v.element;
  text << ", field " << s.solver->component_names().at(static_cast<std::size_t>(v.component)) << " is "
       << format_number(v.value) << " in element " << element << " (node " << v.node
       << " at x = " << format_number(s.disc.x(v.node, v.element));
  if (s.disc.dim > 1) text << ", y = " << format_number(s.disc.y(v.node, v.element));
  if (s.disc.dim > 2) text << ", z = " << format_number(s.disc.z(v.node, v.element));
  text << ")";
  return text.str();
}

// value_place of the first non-finite value (`bad`) or of the largest |value|, from the rank
// that holds it (collective in a parallel run: every rank calls it and gets the same text).
std::string place_of(const Setup& s, bool bad) {
  std::string text;
  const bool here = !s.part.parallel() || s.comm().rank() == s.comm().rank_of_max(s.solver->max_abs());
  if (here) {
    const auto value = bad ? s.solver->find_bad_value() : s.solver->find_largest_value();
    if (value) text = value_place(s, *value);
  }
  if (!s.part.parallel()) return text;
  return s.comm().broadcast(text, s.comm().rank_of_max(s.solver->max_abs()));
}

std::string checkpoint_text(const fs::path& last_checkpoint) {
  return last_checkpoint.empty() ? std::string("; no checkpoint was written")
                                 : "; the last good checkpoint is " + last_checkpoint.string();
}

std::string failure_text(const Setup& s, long long step, double t, long long good_step, double good_t,
                         const fs::path& last_checkpoint) {
  std::ostringstream text;
  text << "the solution stopped being finite: at step " << step << ", t = " << format_number(t);
  text << place_of(s, true);
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
  const std::string place = place_of(s, false);
  if (!place.empty()) text << place;
  else text << ", its largest |value| is " << format_number(largest);
  text << ", above the limit " << format_number(growth.limit()) << " = run.blowup_factor (" << format_number(growth.factor)
       << ") x " << format_number(growth.scale) << " (" << growth.scale_from << ")";
  text << "; it was within the limit at step " << good_step << " (t = " << format_number(good_t) << ")";
  text << checkpoint_text(last_checkpoint);
  text << ". A smaller time.cfl or time.dt usually cures a blow-up.";
  return text.str();
}

// "; it is nan at node 3 of element 7 (x = ...), where rho = ..." for a speed that is not finite;
// empty when this rank's nodes do not give it (another rank's do).
std::string culprit_text(const dg::Solver& solver, double speed) {
  if (std::isfinite(speed)) return {};
  const std::string where = dg::wave_speed_culprit(solver);
  return where.empty() ? std::string() : "; it is " + where;
}

// Sums over the ranks mod 2^64 (checksums): in 16-bit limbs, each summed exactly as a long long.
std::vector<std::uint64_t> sum_mod_2_64(const dg::Communicator& comm, const std::vector<std::uint64_t>& values) {
  std::vector<std::uint64_t> total(values.size(), 0);
  for (std::size_t i = 0; i < values.size(); ++i)
    for (int limb = 0; limb < 4; ++limb) {
      const auto part = static_cast<long long>((values[i] >> (16 * limb)) & 0xffffU);
      total[i] += static_cast<std::uint64_t>(comm.sum(part)) << (16 * limb);
    }
  return total;
}

// The time settings, checked before the first step (docs/running.md, "Time step"): a step from
// a wave speed that is positive and finite and gives 1e-12 x time.final <= dt <= time.final, a
// Courant number within the integrator's stability limit (time.allow_unstable = true runs it with
// a warning), and no more steps or snapshots than time.max_steps and output.max_snapshots.
// `speed`: the largest wave speed of the state (the law's max_wave_speed), for a cfl-based step.
// A cfl-based step needs a positive, finite wave speed: said with the law file that gave it.
// A speed that is not finite is described at the first node that gives it (element, node, state).
void check_wave_speed(const config::RunConfig& cfg, const dg::Solver& solver, double speed) {
  if (!(speed > 0) || !std::isfinite(speed))
    throw std::runtime_error("the largest wave speed of the initial state is " + format_number(speed) +
                             ", from the law's max_wave_speed (" + cfg.law_file.string() + ")" +
                             culprit_text(solver, speed) +
                             ": a time step from time.cfl needs a positive, finite wave speed; fix max_wave_speed, or "
                             "the parameters or initial state it is evaluated at, or give a fixed time.dt");
}

void check_time_settings(const config::RunConfig& cfg, const dg::Solver& solver, double dt, double speed, double t,
                         std::ostream& log) {
  const double T = cfg.final_time;
  const std::string law = "the law's max_wave_speed (" + cfg.law_file.string() + ")";
  const double limit = stable_cfl_limit(cfg.integrator);
  double cfl = cfg.cfl.value_or(0.5);
  if (cfg.dt) {
    // A fixed step's Courant number (none to judge by without a wave speed).
    cfl = 0;
    try {
      if (speed > 0 && std::isfinite(speed)) cfl = *cfg.dt / solver.stable_dt(1.0);
    } catch (const std::exception&) {
    }
  }
  if (cfl > limit) {
    const std::string what = cfg.dt ? "time.dt = " + format_number(dt) + " is a Courant number of " + format_number(cfl)
                                    : "time.cfl = " + format_number(cfl) + " is";
    if (!cfg.allow_unstable)
      throw std::runtime_error(what + " above " + format_number(limit) + ", where " + cfg.integrator +
                               " goes unstable at some orders (docs/running.md, \"Time step\"): the solution would "
                               "blow up; use a smaller " + (cfg.dt ? "time.dt" : "time.cfl") +
                               ", or set time.allow_unstable = true to run it anyway");
    log << "[rtdg] warning: " << what << " above " << format_number(limit) << ", where " << cfg.integrator
        << " goes unstable at some orders (docs/running.md, \"Time step\"): the solution will likely blow up; use a "
           "smaller time.cfl\n";
  }
  if (!cfg.dt) {
    check_wave_speed(cfg, solver, speed);
    if (!(dt >= 1e-12 * T) || !(dt <= T))
      throw std::runtime_error("the time step time.cfl (" + format_number(cfg.cfl.value_or(0.5)) +
                               ") x h / wave speed is " + format_number(dt) + ", " +
                               (dt <= T ? "below 1e-12 of" : "above") + " time.final = " + format_number(T) +
                               ", because the largest wave speed is " + format_number(speed) + ", from " + law +
                               ": that is not a wave speed of this problem; fix max_wave_speed");
  } else if (!(dt >= 1e-12 * T)) {
    throw std::runtime_error("time.dt = " + format_number(dt) + " is below 1e-12 of time.final = " + format_number(T) +
                             ": the run would not end; give a larger time.dt, or time.cfl instead");
  }
  const double steps = std::ceil((T - t) / dt);
  if (steps > cfg.max_steps)
    throw std::runtime_error("the run would take " + format_number(steps) + " steps of dt = " + format_number(dt) +
                             " to time.final = " + format_number(T) + ", more than time.max_steps = " +
                             format_number(cfg.max_steps) + "; set time.max_steps higher if you mean it");
  if (cfg.output_interval > 0 && (T - t) / cfg.output_interval > cfg.max_snapshots)
    throw std::runtime_error("output.interval = " + format_number(cfg.output_interval) + " would write " +
                             format_number(std::floor((T - t) / cfg.output_interval)) +
                             " snapshots, more than output.max_snapshots = " + format_number(cfg.max_snapshots) +
                             "; give a larger output.interval, or set output.max_snapshots higher if you mean it");
}

// What a checkpoint says about where it is in the run, against the config it continues: a step
// count and a time that a run reaches (finite, not negative, agreeing with each other and with
// the recorded step), and a time before time.final. Throws naming the file and the value.
void check_checkpoint_against_config(const fs::path& file, const output::Solution& c, const config::RunConfig& cfg) {
  const std::string where = "the checkpoint " + file.string();
  const std::string earlier = "; restart from another checkpoint of the run (an earlier one), or start it again";
  if (c.step < 0) throw std::runtime_error(where + " says step = " + std::to_string(c.step) + ", which no run reaches" + earlier);
  if (!std::isfinite(c.time) || c.time < 0)
    throw std::runtime_error(where + " says time = " + format_number(c.time) + ", which no run reaches" + earlier);
  if (!std::isfinite(c.dt) || c.dt < 0)
    throw std::runtime_error(where + " says dt = " + format_number(c.dt) + ", which is not a time step" + earlier);
  if ((c.step == 0) != (c.time == 0))
    throw std::runtime_error(where + " says step = " + std::to_string(c.step) + " at time = " + format_number(c.time) +
                             ", which do not go together (every step advances the time)" + earlier);
  // Every step is at most dt (the last before an output time is shortened to land on it); with
  // time.dt_update_every the step changes during the run, so this holds only for a fixed one.
  if (c.dt > 0 && cfg.dt_update_every == 0 && c.time > static_cast<double>(c.step) * c.dt * (1 + 1e-9))
    throw std::runtime_error(where + " says time = " + format_number(c.time) + " after " + std::to_string(c.step) +
                             " steps of dt = " + format_number(c.dt) + ", which they do not reach" + earlier);
  if (c.time >= cfg.final_time)
    throw std::runtime_error(where + " is at t = " + format_number(c.time) + ", at or past time.final = " +
                             format_number(cfg.final_time) + ": there is nothing left to run; pass --set "
                             "time.final=<a later time> to run on");
}

// The loaded state is finite: the run checks it before writing a checkpoint, so a NaN or an
// infinity in one is damage. `first_element`: the element number of the solution's first row.
void check_checkpoint_values(const fs::path& file, const output::Solution& c, long long first_element) {
  const std::size_t nodes = static_cast<std::size_t>(c.K) * static_cast<std::size_t>(c.Np);
  for (std::size_t i = 0; i < c.values.size(); ++i) {
    if (std::isfinite(c.values[i])) continue;
    const std::size_t component = nodes ? i / nodes : 0, at = nodes ? i % nodes : 0;
    throw std::runtime_error(
        "the checkpoint " + file.string() + " holds " + format_number(c.values[i]) + " in field " +
        (component < c.names.size() ? c.names[component] : std::string("?")) + " at element " +
        std::to_string(first_element + static_cast<long long>(at / static_cast<std::size_t>(c.Np))) + ", node " +
        std::to_string(at % static_cast<std::size_t>(c.Np)) +
        ": a run writes only finite checkpoints, so this one is damaged; restart from an earlier checkpoint of the run");
  }
}

// The checkpoint's node coordinates must be the run's: same mesh (the fingerprint says so) and
// same reference nodes. This catches values at other nodes whatever the node_set attribute
// says (output::check_restart_nodes has refused the known cases with a fuller message).
// `now` [dim][K][Np] holds the run's node coordinates of the checkpoint's elements, which are the
// whole mesh's first_element, first_element + 1, ... (a parallel restart checks its block).
void check_checkpoint_nodes(const fs::path& file, const output::Solution& checkpoint, const std::vector<double>& now,
                            long long first_element) {
  const std::vector<double>* stored[3] = {&checkpoint.x, &checkpoint.y, &checkpoint.z};
  const Eigen::Index Np = checkpoint.Np, K = checkpoint.K;
  for (Eigen::Index k = 0; k < K; ++k) {
    double extent = 0, magnitude = 0, worst = 0;
    Eigen::Index worst_node = 0;
    for (int d = 0; d < checkpoint.dim; ++d) {
      const Eigen::Map<const Eigen::VectorXd> column(now.data() + (d * K + k) * Np, Np);
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
          std::to_string(worst_node) + " of element " + std::to_string(first_element + k) + " is " + format_number(worst) +
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

std::string format_balance(const nlohmann::json& ranks);

namespace {
// Where the ranks other than 0 of a parallel run write their log: nowhere.
struct NullBuffer : std::streambuf {
  int overflow(int c) override { return c; }
};
}  // namespace

RunSummary run(const RunOptions& options) {
  const auto run_start = std::chrono::steady_clock::now();
  NullBuffer null_buffer;
  std::ostream null_log(&null_buffer);
  std::ostream& log = dg::world().rank() != 0 ? null_log : options.log ? *options.log : std::cerr;
  SignalGuard signals;
  Setup s;
  std::optional<output::Solution> restart;
  int restart_elements = 0;  // the checkpoint's K
  fs::path output_dir;
  fs::path home;          // a restart: the run folder its checkpoint is in (empty: none)
  bool in_place = false;  // a restart continuing in that folder
  if (options.restart) {
    // A parallel run reads the attributes now and each rank its block of rows once the
    // partition is known (below); a serial run reads it all.
    if (dg::world().size() > 1) {
      restart = output::read_solution_rows(*options.restart, 0, 0, restart_elements, {});
    } else {
      restart = output::read_solution(*options.restart);
      restart_elements = restart->K;
    }
    // Values at other reference nodes than this rtdg's (the order-6 triangle nodes before
    // issue 14) are refused before anything is built.
    output::check_restart_nodes(*options.restart, *restart);
    if (dg::world().size() == 1) check_checkpoint_values(*options.restart, *restart, 0);
    s.cfg = config::parse_config(restart->effective_config, *options.restart, options.overrides);
    check_checkpoint_against_config(*options.restart, *restart, s.cfg);
    // A checkpoint in <run folder>/checkpoints/ continues in that folder, unless run.output_dir
    // says where the continuation goes (a new segment of the run).
    const fs::path checkpoint = fs::absolute(*options.restart);
    if (checkpoint.parent_path().filename() == "checkpoints") home = checkpoint.parent_path().parent_path();
    const bool dir_given = std::any_of(options.overrides.begin(), options.overrides.end(),
                                       [](const std::string& o) { return override_key(o) == "run.output_dir"; });
    if (dir_given) {
      output_dir = s.cfg.output_dir;
    } else if (home.empty()) {
      throw std::runtime_error("the checkpoint " + options.restart->string() +
                               " is not in the checkpoints/ folder of a run's output folder, so rtdg does not know "
                               "which run it continues: pass --set run.output_dir=<folder> to write the continuation "
                               "into a new folder");
    } else {
      output_dir = home;
    }
    in_place = !home.empty() && same_folder(output_dir, home);
  } else {
    s.cfg = config::read_config(options.config, options.overrides);
    output_dir = s.cfg.output_dir;
  }
  const config::RunConfig& cfg = s.cfg;
  // Rank 0 owns the output folder: its lock (a second run into it stops here, before any set-up)
  // and its manifest; what is in the way is refused before the kernels are built.
  std::optional<RunFolder> folder;
  if (dg::world().rank() == 0) {
    folder.emplace(output_dir);
    if (in_place) prepare_restart_in_place(*folder, *options.restart, *restart, output_names(cfg), options.overwrite);
    else prepare_new_folder(*folder, output_names(cfg), options.overwrite, options.restart ? fs::path() : options.config);
  }
  auto stopped_at_set_up = [](int signal) {
    return std::runtime_error(std::string(signal == SIGINT ? "interrupted (SIGINT)" : "terminated (SIGTERM)") +
                              " while setting up the run; nothing was written");
  };
  try {
    build(s, log, restart ? restart->plan : std::string(), folder ? &*folder : nullptr);
  } catch (const std::exception&) {
    // A signal during set-up also stops a host compile in progress (rtcg::stop_compiling):
    // say that, not "compile failed".
    if (const int signal = stop_signal().load()) throw stopped_at_set_up(signal);
    throw;
  }
  // A signal during tuning stopped it after the variant being timed (its measurements kept):
  // the run ends here rather than starting to step.
  if (const int signal = stop_signal().load()) throw stopped_at_set_up(signal);
  // From here a compile runs to its end (a signal stops the run at its next step instead).
  setting_up().store(false);
  dg::Solver& solver = *s.solver;
  rtcg::Backend& backend = solver.backend();
  const dg::Communicator& comm = s.comm();
  const bool parallel = s.part.parallel();
  const bool root = comm.rank() == 0;
  const int global_K = parallel ? s.part.global_K : s.disc.K;

  double t = 0;
  long long step = 0;
  double initial_scale = 0;  // the initial state's largest |value| (host values, also on a restart)
  if (restart) {
    if (restart->mesh_fingerprint != s.fingerprint)
      throw std::runtime_error("the checkpoint " + options.restart->string() + " was written on a different mesh than " +
                               cfg.mesh_file.string() + " gives now (fingerprint " + restart->mesh_fingerprint +
                               " vs " + s.fingerprint + "); restart with the mesh the run started from");
    if (restart->names != solver.component_names() || restart_elements != global_K || restart->N != cfg.order)
      throw std::runtime_error("the checkpoint " + options.restart->string() +
                               " does not match the run's fields, elements or order");
    if (parallel) {
      // A checkpoint holds the whole mesh however many ranks wrote it: each rank reads its
      // block of rows, checks the block's nodes, and the blocks go to the ranks owning them.
      int elements = 0;
      // The ranks' blocks together verify each dataset's checksum (each adds its rows' terms).
      const output::Solution block = output::read_solution_rows(
          *options.restart, s.part.block_first, s.part.block_rows, elements,
          [&comm](const std::vector<std::uint64_t>& partial) { return sum_mod_2_64(comm, partial); });
      check_checkpoint_nodes(*options.restart, block, s.part.block_xyz, s.part.block_first);
      check_checkpoint_values(*options.restart, block, s.part.block_first);
      solver.set_state(local_from_blocks(s.part, block.values, solver.components(), s.disc.element.Np));
    } else {
      // The node coordinates [dim][K][Np] (each Np x K column-major matrix is [K][Np]).
      std::vector<double> now;
      const Eigen::MatrixXd* coordinates[3] = {&s.disc.x, &s.disc.y, &s.disc.z};
      for (int d = 0; d < s.disc.dim; ++d) now.insert(now.end(), coordinates[d]->data(), coordinates[d]->data() + coordinates[d]->size());
      check_checkpoint_nodes(*options.restart, *restart, now, 0);
      solver.set_state(restart->values);
    }
    // The growth check's scale is the original run's (see below), so a continued run stops
    // where the uninterrupted one would.
    if (cfg.initial == "law" && cfg.blowup_factor > 0) initial_scale = comm.max(largest_abs(solver.initial_values()));
    t = restart->time;
    step = restart->step;
    log << "[rtdg] restarting from " << options.restart->string() << " at step " << step << ", t = " << format_number(t)
        << "\n";
    if (restart->checksums == 0)
      log << "[rtdg] note: the checkpoint carries no checksums (an older rtdg wrote it), so damage to its values "
             "cannot be detected; they are checked for finiteness and against the mesh only\n";
  } else {
    if (cfg.initial == "law") {
      const std::vector<double> values = solver.initial_values();
      initial_scale = comm.max(largest_abs(values));
      solver.set_state(values);
    } else {
      // "zero": set, not assumed: tuning at set-up (dg::choose_plan) steps the solver from a
      // state of its own and leaves that behind.
      solver.set_state(std::vector<double>(solver.size(), 0.0));
    }
  }
  if (root) {
    folder->create_folder("snapshots");
    folder->create_folder("checkpoints");
    folder->claim("config.toml", "config", step, t);
    std::ofstream out(output_dir / "config.toml");
    out << cfg.effective_toml;
    if (!out.flush()) throw std::runtime_error("cannot write " + (output_dir / "config.toml").string());
  }

  // With time.dt_update_every = n the step is re-evaluated from the state at steps 0, n, 2n, ...
  // (below); in between, a restart continues with the step its checkpoint records.
  const double initial_speed = comm.max(solver.max_wave_speed());
  if (!cfg.dt) check_wave_speed(cfg, solver, initial_speed);
  s.dt = cfg.dt ? *cfg.dt : restart && restart->dt > 0 && cfg.dt_update_every > 0 ? restart->dt
                                                                                  : comm.min(solver.stable_dt(cfg.cfl.value_or(0.5)));
  double& dt = s.dt;
  check_time_settings(cfg, solver, dt, initial_speed, t, log);
  // The far-field transform (docs/scattering.md); a restart continues its sums.
  std::unique_ptr<FarFieldRun> farfield;
  if (cfg.farfield.enabled) {
    farfield = std::make_unique<FarFieldRun>(s, solver, dt, log, &s.part);
    if (restart) farfield->restore(*restart);
  }
  const double T = cfg.final_time;
  const std::size_t dofs = static_cast<std::size_t>(comm.sum(static_cast<long long>(solver.size())));

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
  // Probes: in a parallel run each rank locates the points in its part, the ranks agree which
  // one owns each point (the element it is deepest inside, the lowest element number on ties,
  // as a serial run decides), the owners evaluate them, and rank 0 writes the rows.
  std::optional<output::ProbePart> probe_part;
  if (parallel) probe_part = output::ProbePart{s.part.local->element_global};
  output::Probes probes(s.disc, parallel ? s.part.local->mesh : s.mesh, solver.component_names(), probe_specs,
                        probe_part ? &*probe_part : nullptr);
  if (parallel) {
    // (depth, global element) of every point on every rank; -1 where the rank has none.
    std::vector<double> found;
    for (std::size_t p = 0; p < probes.size(); ++p)
      for (const output::ProbePoint& point : probes.points(p)) {
        found.push_back(point.element >= 0 ? point.depth : -1e300);
        found.push_back(point.element >= 0 ? s.part.local->element_global[static_cast<std::size_t>(point.element)] : -1);
      }
    const std::size_t n = found.size();
    std::vector<double> send;
    for (int r = 0; r < comm.size(); ++r) send.insert(send.end(), found.begin(), found.end());
    const std::vector<double> all = comm.all_to_all(std::span<const double>(send),
                                                    std::span<const int>(std::vector<int>(static_cast<std::size_t>(comm.size()), static_cast<int>(n))));
    std::size_t flat = 0;
    for (std::size_t p = 0; p < probes.size(); ++p)
      for (std::size_t i = 0; i < probes.points(p).size(); ++i, flat += 2) {
        int owner = -1;
        for (int r = 0; r < comm.size(); ++r) {
          const double depth = all[static_cast<std::size_t>(r) * n + flat], element = all[static_cast<std::size_t>(r) * n + flat + 1];
          if (element < 0) continue;
          const std::size_t o = static_cast<std::size_t>(owner) * n + flat;
          if (owner < 0 || depth > all[o] || (depth == all[o] && element < all[o + 1])) owner = r;
        }
        if (owner < 0) {
          // Outside the whole mesh: the serial run's message, with the whole mesh's extent.
          std::array<double, 3> lo{}, hi{};
          for (std::size_t d = 0; d < 3; ++d) {
            double l = std::numeric_limits<double>::infinity(), h = -l;
            for (const auto& v : s.part.local->mesh.vertices) {
              l = std::min(l, v[d]);
              h = std::max(h, v[d]);
            }
            lo[d] = comm.min(l);
            hi[d] = comm.max(h);
          }
          throw std::runtime_error(output::probe_outside_text(probes.spec(p).name, i, probes.spec(p).points[i], s.disc.dim, lo, hi));
        }
        if (owner != comm.rank() && probes.points(p)[i].element >= 0) probes.release(p, i);
      }
  }
  if (root) {
    for (const config::Probe& p : cfg.probes) folder->claim(p.name + ".csv", "probe", step, t);
    probes.open(output_dir, restart ? std::optional<double>(t) : std::nullopt);
  }
  // Probes read only their elements' values: a small copy per step instead of the whole state.
  std::vector<int> probe_elements;
  for (std::size_t p = 0; p < probes.size(); ++p)
    for (const output::ProbePoint& point : probes.points(p))
      if (point.element >= 0) probe_elements.push_back(point.element);
  std::sort(probe_elements.begin(), probe_elements.end());
  probe_elements.erase(std::unique(probe_elements.begin(), probe_elements.end()), probe_elements.end());
  std::vector<double> probe_values(probe_elements.empty() ? 0 : solver.size(), 0.0);
  auto record_probes = [&] {
    if (!probe_elements.empty()) solver.copy_elements(probe_elements, probe_values);
    if (!parallel) {
      probes.record(probe_values, t, step);
      return;
    }
    // Each rank: its points' values (their index among all points, then the fields), to rank 0.
    std::vector<int> which;
    std::vector<double> mine;
    int flat = 0;
    for (std::size_t p = 0; p < probes.size(); ++p)
      for (std::size_t i = 0; i < probes.points(p).size(); ++i, ++flat) {
        if (probes.points(p)[i].element < 0) continue;
        which.push_back(flat);
        const std::vector<double> v = probes.evaluate_point(p, i, probe_values);
        mine.insert(mine.end(), v.begin(), v.end());
      }
    const std::vector<int> points = comm.gather(std::span<const int>(which));
    const std::vector<double> values = comm.gather(std::span<const double>(mine));
    if (!root) return;
    // The rows, point by point: where each flat index starts in its probe's row.
    std::vector<std::vector<double>> rows(probes.size());
    std::vector<std::pair<std::size_t, std::size_t>> place;  // (probe, first value) per flat index
    for (std::size_t p = 0; p < probes.size(); ++p) {
      rows[p].assign(probes.points(p).size() * probes.fields(p), 0.0);
      for (std::size_t i = 0; i < probes.points(p).size(); ++i) place.emplace_back(p, i * probes.fields(p));
    }
    std::size_t at = 0;
    for (const int f : points) {
      const auto [p, first] = place[static_cast<std::size_t>(f)];
      for (std::size_t c = 0; c < probes.fields(p); ++c) rows[p][first + c] = values[at++];
    }
    probes.record_rows(rows, t, step);
  };
  // Whether the probes are due after this step: rank 0 decides (it holds them).
  auto probes_due = [&] { return parallel ? comm.any(root && probes.due(step)) : probes.due(step); };
  const bool write_vtu = cfg.vtu && output::vtu_available();
  if (cfg.vtu && !write_vtu)
    log << "[rtdg] note: this rtdg was built without VTK, so no VTU files are written; convert the HDF5 snapshots with "
           "`rtdg export` on a machine that has VTK\n";
  std::optional<output::PvdSeries> pvd;
  if (write_vtu) {
    pvd.emplace(output_dir / (cfg.name + ".pvd"));
    summary.pvd = output_dir / (cfg.name + ".pvd");
    // A restart in place continues the series from its time (the snapshots after it are gone).
    if (root && in_place) {
      folder->claim(cfg.name + ".pvd", "pvd", step, t);
      pvd->keep_until(t);
    }
  }
  // A parallel run writes its HDF5 files collectively when the HDF5 is the parallel one
  // (each rank its block of rows), else gathered on rank 0 as the VTU snapshots are.
  const bool collective = parallel && output::parallel_hdf5_available();
  // rtdg writes a file only once the manifest lists it (RunFolder::claim).
  auto claim = [&](const fs::path& file, const char* kind) {
    if (root) folder->claim(file.lexically_relative(output_dir).generic_string(), kind, step, t);
  };
  auto write_snapshot = [&](long long index) {
    char stem[64];
    std::snprintf(stem, sizeof stem, "_%04lld", index);
    // The extension is added to the name, not swapped in: run.name may hold a '.' ("a.5").
    const std::string base = (output_dir / "snapshots" / (cfg.name + stem)).string();
    const fs::path h5_file = base + ".h5", vtu_file = base + ".vtu", pvtu_file = base + ".pvtu";
    if (cfg.hdf5) claim(h5_file, "snapshot");
    if (collective && cfg.hdf5)
      output::write_solution_collective(h5_file, block_snapshot(s, t, step), s.part.block_first, s.part.global_K,
                                        comm.mpi_comm());
    const output::Solution sol =
        (cfg.hdf5 && !collective) || (write_vtu && !parallel) ? snapshot(s, t, step) : output::Solution{};
    if (root && cfg.hdf5 && !collective) output::write_solution(h5_file, sol);
    if (write_vtu && parallel) {
      // One VTU piece per rank (its own elements), and rank 0's .pvtu naming them all.
      output::Solution piece = output::make_solution(s.disc);
      piece.values = solver.state();
      describe_snapshot(piece, s, t, step);
      const auto piece_name = [&](int rank) {
        return fs::path(base).filename().string() + "_p" + std::to_string(rank) + ".vtu";
      };
      // Rank 0 claims every rank's piece before any is written.
      for (int r = 0; r < comm.size(); ++r) claim(fs::path(base).parent_path() / piece_name(r), "snapshot");
      claim(pvtu_file, "snapshot");
      if (root) claim(pvd->path(), "pvd");
      comm.barrier();
      output::write_vtu(fs::path(base).parent_path() / piece_name(comm.rank()), piece);
      comm.barrier();
      if (root) {
        std::vector<fs::path> pieces;
        for (int r = 0; r < comm.size(); ++r) pieces.emplace_back(piece_name(r));
        output::write_pvtu(pvtu_file, pieces, piece.names, piece.dim, piece.precision);
        pvd->add(t, pvtu_file);
      }
    } else if (root && write_vtu) {
      claim(vtu_file, "snapshot");
      claim(pvd->path(), "pvd");
      output::write_vtu(vtu_file, sol);
      pvd->add(t, vtu_file);
    }
    if (cfg.error) {
      // Each rank's part, summed: sqrt(sum of the parts' squared errors).
      std::vector<double> difference = solver.state();
      const std::vector<double> exact = solver.exact_values(t);
      for (std::size_t i = 0; i < difference.size(); ++i) difference[i] -= exact[i];
      const double part = solver.l2_norm(difference);
      summary.error = parallel ? std::sqrt(comm.sum(part * part)) : part;
      log << "[rtdg] t = " << format_number(t) << ": L2 error " << *summary.error << "\n";
    }
  };
  auto write_checkpoint = [&] {
    char name[64];
    std::snprintf(name, sizeof name, "checkpoint_%09lld.h5", step);
    const fs::path file = output_dir / "checkpoints" / name;
    try {
      claim(file, "checkpoint");
      if (collective) {
        // The far-field sums in the serial layout, the same on every rank (FarFieldRun::store).
        output::Solution block = block_snapshot(s, t, step);
        if (farfield) farfield->store(block);
        output::write_solution_collective(file, block, s.part.block_first, s.part.global_K, comm.mpi_comm());
      }
      output::Solution checkpoint = collective ? output::Solution{} : snapshot(s, t, step);
      if (farfield && !collective) farfield->store(checkpoint);  // collective in a parallel run
      if (root && !collective) output::write_solution(file, checkpoint);
    } catch (const std::exception& e) {
      // A full disk, say: the run stops, and says which checkpoint to continue from.
      throw RunFailure(std::string(e.what()) + checkpoint_text(summary.last_checkpoint) +
                       (summary.last_checkpoint.empty() ? "" : " (continue from it once the problem is fixed)"));
    }
    summary.last_checkpoint = file;
    // Collective in a parallel run; rank 0 writes.
    if (farfield)
      farfield->write(output_dir, t, step, [&](const std::string& relative) {
        if (!relative.empty() && relative.back() == '/') folder->create_folder(relative.substr(0, relative.size() - 1));
        else folder->claim(relative, "farfield", step, t);
      });
    if (!root) return;
    // Keep the newest checkpoint.keep of the checkpoints this run folder's manifest lists (by
    // step); a file rtdg did not write is never deleted.
    const auto all = folder->of_kind("checkpoint");
    for (std::size_t i = 0; i + static_cast<std::size_t>(cfg.checkpoint_keep) < all.size(); ++i) folder->remove(all[i].first);
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
    const double largest = comm.max(solver.max_abs());
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

  // Set-up: from the start (config, mesh, partition, kernels, initial state) to the first output.
  const double setup_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - run_start).count();
  if (!restart) {
    write_snapshot(0);
    if (probes_due()) record_probes();
  }

  // Start-up: from the process's launch to the first step (set-up and the initial output).
  const double since_run = std::chrono::duration<double>(std::chrono::steady_clock::now() - run_start).count();
  const double startup_seconds = options.startup_from_launch ? seconds_since_launch(since_run) : since_run;
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
      const double speed = comm.max(solver.max_wave_speed());
      if (!(speed > 0) || !std::isfinite(speed))
        throw RunFailure("the largest wave speed of the state is " + format_number(speed) + " at step " +
                         std::to_string(step) + ", t = " + format_number(t) + culprit_text(solver, speed) +
                         " (time.dt_update_every re-evaluates the step from it): the state left the law's valid "
                         "range (a negative density or pressure, say)" + checkpoint_text(summary.last_checkpoint) +
                         ". Shock capturing ([stabilization]) or a smaller time.cfl may help.");
      dt = comm.min(solver.stable_dt(cfg.cfl.value_or(0.5)));
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
    bool wrote = false;
    // The decisions every rank must take alike, in one reduction in a parallel run: probes due
    // (rank 0 holds them), a stop asked for (a signal reaches the ranks at different steps),
    // a progress line due (timed on rank 0).
    enum : int { probe_flag = 1, stop_flag = 2, progress_flag = 4 };
    int flags = (root && probes.due(step) ? probe_flag : 0) |
                (stop_signal().load() != 0 || (options.stop_after_steps > 0 && taken >= options.stop_after_steps) ? stop_flag : 0) |
                (root && progress.due(step) ? progress_flag : 0);
    if (parallel) flags = comm.any_bits(flags);
    if (flags & probe_flag) record_probes();
    // The output's time is left out of the step rate, but the steps still queued on the device
    // are not output: a snapshot's download would wait for them, and a short run whose steps the
    // device had not finished would report them as writing (0.03 ms per step for a 1 ms step on
    // an H200). So the queue drains before the output's clock starts.
    const bool output_due = reached(next_output, interval) || reached(next_checkpoint, cinterval);
    if (output_due) backend.synchronize();
    const auto io_start = std::chrono::steady_clock::now();
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
    const bool stop = (flags & stop_flag) != 0;
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
    if (flags & progress_flag) {
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
  // The slowest rank's time is the run's.
  summary.wall_seconds = comm.max(std::max(0.0, loop_seconds - output_seconds));
  const long long memory = peak_resident_bytes();
  summary.setup_seconds = comm.max(setup_seconds);
  summary.startup_seconds = comm.max(startup_seconds);
  summary.peak_memory_bytes = parallel ? static_cast<long long>(comm.max(static_cast<double>(memory))) : memory;
  summary.seconds_per_step = taken ? summary.wall_seconds / static_cast<double>(taken) : 0;
  summary.dofs_per_second =
      summary.wall_seconds > 0 ? static_cast<double>(dofs) * static_cast<double>(taken) / summary.wall_seconds : 0;

  nlohmann::json j = {{"steps", summary.steps},
                      {"final_step", summary.final_step},
                      {"time", summary.time},
                      {"dt", summary.dt},
                      {"wall_seconds", summary.wall_seconds},
                      {"setup_seconds", summary.setup_seconds},
                      {"startup_seconds", summary.startup_seconds},
                      {"peak_memory_bytes", summary.peak_memory_bytes},
                      {"seconds_per_step", summary.seconds_per_step},
                      {"dofs", summary.dofs},
                      {"dofs_per_second", summary.dofs_per_second},
                      {"backend", summary.backend},
                      {"device", summary.device},
                      {"precision", summary.precision},
                      {"order", cfg.order},
                      {"elements", global_K},
                      {"law", s.law.name},
                      {"plan", summary.plan},
                      {"plan_source", summary.plan_source},
                      {"interrupted", summary.interrupted},
                      {"last_checkpoint", summary.last_checkpoint.string()}};
  if (summary.error) j["l2_error"] = *summary.error;
  if (parallel) {
    // Balance per rank (docs/parallel.md): elements, halo faces, seconds in the halo exchange
    // (packing, staging through the host and waiting for the neighbours) of the loop's seconds.
    const double exchange = solver.exchange_seconds();
    const std::vector<double> exchanges = comm.gather(std::span<const double>(&exchange, 1));
    const double loop = std::max(0.0, loop_seconds - output_seconds);
    const std::vector<double> loops = comm.gather(std::span<const double>(&loop, 1));
    const std::vector<double> setups = comm.gather(std::span<const double>(&setup_seconds, 1));
    const std::vector<double> startups = comm.gather(std::span<const double>(&startup_seconds, 1));
    const double bytes = static_cast<double>(memory);
    const std::vector<double> memories = comm.gather(std::span<const double>(&bytes, 1));
    if (root) {
      nlohmann::json ranks = nlohmann::json::array();
      for (std::size_t r = 0; r < exchanges.size(); ++r)
        ranks.push_back({{"rank", r},
                         {"elements", s.part.rank_elements[r]},
                         {"halo_faces", s.part.rank_halo_faces[r]},
                         {"loop_seconds", loops[r]},
                         {"exchange_seconds", exchanges[r]},
                         {"setup_seconds", setups[r]},
                         {"startup_seconds", startups[r]},
                         {"peak_memory_bytes", static_cast<long long>(memories[r])}});
      j["parallel"] = {{"ranks", comm.size()}, {"communicator", comm.describe()},
                       {"partition", s.part.partition_source}, {"halo_transfer", halo_transfer_text(solver, comm)},
                       {"overlap", s.cfg.overlap}, {"balance", ranks}};
      summary.parallel_report = format_balance(ranks);
    }
  }
  if (!root) return summary;
  folder->claim("summary.json", "summary", step, t);
  std::ofstream(output_dir / "summary.json") << j.dump(2) << "\n";
  return summary;
}

std::string format_balance(const nlohmann::json& ranks) {
  std::ostringstream out;
  out << "balance (rank: elements, halo faces, loop s, of it in the halo exchange; set-up s, peak host memory):";
  for (const auto& r : ranks)
    out << "\n  " << r["rank"].get<int>() << ": " << r["elements"].get<int>() << ", " << r["halo_faces"].get<int>() << ", "
        << format_number(r["loop_seconds"].get<double>()) << " s, " << format_number(r["exchange_seconds"].get<double>())
        << " s; " << format_number(r["setup_seconds"].get<double>()) << " s, "
        << mebibytes(r["peak_memory_bytes"].get<long long>());
  return out.str();
}

std::string format_summary(const RunSummary& s) {
  std::ostringstream out;
  out << (s.interrupted ? "stopped" : "finished") << ": " << s.steps << " steps to t = " << format_number(s.time)
      << " (dt " << format_number(s.dt) << ")";
  if (s.steps > 0)
    out << ", " << format_number(s.seconds_per_step * 1e3) << " ms/step, " << format_number(s.dofs_per_second)
        << " DOF/s (" << s.dofs << " DOFs, " << s.backend << ", " << s.precision << ")";
  if (!s.plan.empty()) out << "\nkernel plan: " << s.plan << " (" << s.plan_source << ")";
  out << "\nset-up " << format_number(s.setup_seconds) << " s (start-up " << format_number(s.startup_seconds)
      << " s from launch to the first step), peak host memory " << mebibytes(s.peak_memory_bytes)
      << (s.parallel_report.empty() ? "" : " (the largest of the ranks')");
  if (s.error) out << "\nL2 error at the end: " << *s.error;
  if (!s.parallel_report.empty()) out << "\n" << s.parallel_report;
  out << "\noutput: " << s.output_dir.string();
  if (!s.pvd.empty()) out << "\n  ParaView series: " << s.pvd.string();
  out << "\n  snapshots: " << (s.output_dir / "snapshots").string();
  if (!s.last_checkpoint.empty()) out << "\n  checkpoint: " << s.last_checkpoint.string();
  out << "\n  summary: " << (s.output_dir / "summary.json").string() << "\n";
  return out.str();
}

}  // namespace rtdg::runner
