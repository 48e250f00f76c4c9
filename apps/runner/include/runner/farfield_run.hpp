// The far-field transform of a run (docs/scattering.md): the [farfield] config turned into a
// Huygens surface and running DFTs (dg/farfield.hpp), sampled after steps, stored in
// checkpoints, and written as CSV and HDF5 at every checkpoint and at the end. Public: `rtdg run`
// and the Python module (solver.far_field) drive it alike.
//
// In a parallel run (docs/parallel.md) each rank accumulates the DFTs of the surface points on
// its own elements; a point whose outer twin lives on another rank gets that twin's value from
// it at each sample, so every point's sums are the serial run's. The whole surface's sums
// gather (in the serial order of the points) for the far-field integrals, on rank 0, and for
// the checkpoints, which hold them in the serial layout whatever the rank count. Every member
// function but the accessors is collective then: every rank calls it.
#pragma once

#include "runner/problem.hpp"

#include <dg/farfield.hpp>
#include <output/solution.hpp>

#include <filesystem>
#include <functional>
#include <string>
#include <memory>
#include <ostream>

namespace rtdg::dg {
class Communicator;
}

namespace rtdg::runner {

struct Part;  // a parallel run's part of the mesh (apps/runner/src/parallel_run.hpp)

class FarFieldRun {
public:
  // Builds the surface and the DFT kernel. Throws config::Error at the [farfield] key at fault
  // (no incident wave to normalise by, a surface that is not closed, a sampling interval
  // past the Nyquist limit of the highest frequency for the step dt).
  // `part`: a parallel run's part of the mesh (null or parts = 1: serial).
  FarFieldRun(const Problem& problem, const dg::Solver& solver, double dt, std::ostream& log, const Part* part = nullptr);
  ~FarFieldRun();

  // After a step to time t (step number `step`): adds a sample when one is due.
  void sample(double t, long long step);
  // The DFT state into a checkpoint's extras, and back from one (restart).
  void store(output::Solution& checkpoint) const;
  void restore(const output::Solution& checkpoint);
  // <dir>/farfield/: frequencies.csv, per frequency f<i>_width.csv (2D) or f<i>_eplane.csv,
  // f<i>_hplane.csv (and f<i>_grid.csv) (3D), and farfield.h5. Nothing before the first sample.
  // `claim` is told each path (relative to dir; "farfield/" for the folder) before it is written.
  // In a parallel run rank 0 writes (and claims); the others take part in the gathers only.
  void write(const std::filesystem::path& dir, double t, long long step,
             const std::function<void(const std::string& relative)>& claim = {}) const;

private:
  // A parallel run: this rank's traces that other ranks' points need, exchanged (collective);
  // returns the remote values SurfaceDft::accumulate takes.
  std::vector<double> exchange_traces() const;
  // The whole surface's sums [..][C][P][2] in the serial point order, from every rank's
  // [..][C][P_rank][2] (`blocks` leading blocks each); on every rank.
  std::vector<double> whole_sums(const std::vector<double>& local, std::size_t blocks) const;

  const Problem& problem_;
  dg::HuygensSurface surface_;  // this rank's points (a serial run: the whole surface)
  const dg::Communicator* comm_ = nullptr;  // a parallel run's
  // Parallel: the whole surface (x, normal, weight; no inner or outer) on every rank; the
  // serial index of each rank's points, in rank order, and their counts; the traces each rank
  // is sent per sample ([P] values, C per point), and whether any point's twin is remote.
  dg::HuygensSurface whole_;
  std::vector<int> gathered_points_, rank_points_;
  std::vector<int> export_counts_;
  bool exchange_ = false;
  std::unique_ptr<dg::SurfaceDft> dft_;
  dg::SurfaceDft::Mode mode_ = dg::SurfaceDft::Mode::time_harmonic;
  fluxes::Lowered signal_;  // the incident g(x, t), evaluated at the phase origin
  double wave_speed_ = 1, impedance_ = 1, mu_ = 1;
  double start_ = 0;        // first sample time
  double last_sample_ = 0;  // time of the last sample (the next one's weight is the gap)
  std::ostream& log_;
};

}  // namespace rtdg::runner
