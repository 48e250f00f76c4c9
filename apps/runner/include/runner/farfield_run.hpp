// The far-field transform of a run (docs/scattering.md): the [farfield] config turned into a
// Huygens surface and running DFTs (dg/farfield.hpp), sampled after steps, stored in
// checkpoints, and written as CSV and HDF5 at every checkpoint and at the end. Public: `rtdg run`
// and the Python module (solver.far_field) drive it alike.
#pragma once

#include "runner/problem.hpp"

#include <dg/farfield.hpp>
#include <output/solution.hpp>

#include <filesystem>
#include <functional>
#include <string>
#include <memory>
#include <ostream>

namespace rtdg::runner {

class FarFieldRun {
public:
  // Builds the surface and the DFT kernel. Throws config::Error at the [farfield] key at fault
  // (no incident wave to normalise by, a surface that is not closed, a sampling interval
  // past the Nyquist limit of the highest frequency for the step dt).
  FarFieldRun(const Problem& problem, const dg::Solver& solver, double dt, std::ostream& log);
  ~FarFieldRun();

  // After a step to time t (step number `step`): adds a sample when one is due.
  void sample(double t, long long step);
  // The DFT state into a checkpoint's extras, and back from one (restart).
  void store(output::Solution& checkpoint) const;
  void restore(const output::Solution& checkpoint);
  // <dir>/farfield/: frequencies.csv, per frequency f<i>_width.csv (2D) or f<i>_eplane.csv,
  // f<i>_hplane.csv (and f<i>_grid.csv) (3D), and farfield.h5. Nothing before the first sample.
  // `claim` is told each path (relative to dir; "farfield/" for the folder) before it is written.
  void write(const std::filesystem::path& dir, double t, long long step,
             const std::function<void(const std::string& relative)>& claim = {}) const;

private:
  const Problem& problem_;
  dg::HuygensSurface surface_;
  std::unique_ptr<dg::SurfaceDft> dft_;
  dg::SurfaceDft::Mode mode_ = dg::SurfaceDft::Mode::time_harmonic;
  fluxes::Lowered signal_;  // the incident g(x, t), evaluated at the phase origin
  double wave_speed_ = 1, impedance_ = 1, mu_ = 1;
  double start_ = 0;        // first sample time
  double last_sample_ = 0;  // time of the last sample (the next one's weight is the gap)
  std::ostream& log_;
};

}  // namespace rtdg::runner
