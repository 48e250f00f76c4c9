// `rtdg run`: a simulation from a config file, from the mesh to the summary, and its restart
// from a checkpoint.
//
//   config -> law -> mesh -> discretization -> solver (generated kernels, chosen backend)
//          -> time loop: probes, progress lines, snapshots (HDF5 + VTU + PVD), checkpoints,
//             finiteness checks -> final snapshot and checkpoint -> summary
//
// Output folder (run.output_dir):
//   config.toml                  the effective configuration, every default filled in
//   <name>.pvd, snapshots/       snapshots: <name>_NNNN.h5 and .vtu (NNNN = output index)
//   checkpoints/                 checkpoint_<step>.h5, the newest checkpoint.keep of them
//   <probe>.csv                  one per probe
//   summary.json                 what the summary line says, for scripts
#pragma once

#include <atomic>
#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace rtdg::runner {

struct RunOptions {
  std::filesystem::path config;                  // the config file (ignored with restart)
  std::optional<std::filesystem::path> restart;  // a checkpoint to continue from
  std::vector<std::string> overrides;            // --set key=value, applied to the config
  bool overwrite = false;                        // allow a non-empty output folder for a new run
  std::ostream* log = nullptr;                   // progress and notes; nullptr: std::cerr
  // Stop (as on SIGINT) after this many steps of this invocation; 0: run to the end. For tests.
  long long stop_after_steps = 0;
  // Start-up (RunSummary::startup_seconds) counts from the process's launch (the rtdg command:
  // loading, MPI's initialisation), else from the call of run().
  bool startup_from_launch = false;
};

struct RunSummary {
  long long steps = 0;            // steps taken by this invocation
  long long final_step = 0;       // the step count at the end (including before a restart)
  double time = 0;                // simulated time reached
  double wall_seconds = 0;        // time spent stepping (no set-up, no output)
  double setup_seconds = 0;       // from the start to the first output (a parallel run's slowest rank)
  double startup_seconds = 0;     // from the launch to the first step (RunOptions::startup_from_launch; the slowest rank)
  long long peak_memory_bytes = 0;  // peak resident host memory (a parallel run's largest rank)
  double seconds_per_step = 0;
  double dofs_per_second = 0;     // degrees of freedom (components x K x Np) x steps / second
  std::size_t dofs = 0;
  double dt = 0;
  std::string backend, device, precision;
  std::string plan, plan_source;  // the DG kernel plan used and where it came from
  std::filesystem::path output_dir;
  std::filesystem::path last_checkpoint;
  std::filesystem::path pvd;      // empty when no VTU was written
  bool interrupted = false;       // stopped by a signal (or stop_after_steps) with a checkpoint
  std::optional<double> error;    // L2 error against the exact solution at the end (output.error)
  std::string parallel_report;    // parallel runs: the balance per rank (rank 0; lines of text)
};

// Runs to the final time (or until interrupted). Throws on bad input with the location; a
// non-finite solution, or one whose largest |value| grew past run.blowup_factor times its
// starting scale (docs/running.md), throws RunFailure naming step, time, field, element and
// the last good checkpoint.
RunSummary run(const RunOptions& options);

class RunFailure : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// The largest time.cfl (dg::Solver::stable_dt's Courant number) at which `integrator`
// ("lserk4", "ssprk3") was measured stable on the 2D and 3D Maxwell cavities at orders 1 to 6
// (docs/running.md). A run above it starts with a "[rtdg] warning:" line.
double stable_cfl_limit(const std::string& integrator);

// The summary as printed at the end of a run.
std::string format_summary(const RunSummary& summary);

// SIGINT and SIGTERM set a flag that the time loop checks after every step: it writes a
// checkpoint and returns with interrupted = true. Installed by run() for its duration.
std::atomic<int>& stop_signal();

}  // namespace rtdg::runner
