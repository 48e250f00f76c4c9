// A run's problem without its time loop: config, law, mesh, discretization and the solver set-up,
// as `rtdg run` builds them, for the commands that make solvers of their own (`rtdg tune dg`,
// `rtdg bench dg`).
#pragma once

#include <config/run_config.hpp>
#include <dg/discretization.hpp>
#include <dg/plan.hpp>
#include <dg/solver.hpp>
#include <fluxes/law.hpp>
#include <mesh/mesh.hpp>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace rtdg::runner {

struct Problem {
  config::RunConfig cfg;
  fluxes::Law law;
  std::vector<double> parameters;
  mesh::Mesh mesh;
  dg::Discretization disc;
  dg::SolverSetup setup;  // setup.law points at `law`: a Problem is not copied or moved
  std::optional<dg::Plan> plan;  // cfg.plan (run.plan) parsed; none when the config names no plan

  Problem() = default;
  virtual ~Problem() = default;
  Problem(const Problem&) = delete;
  Problem& operator=(const Problem&) = delete;

  // Discretizes the mesh again at order N (cfg.order follows).
  void set_order(int N);
  // float or double (cfg.precision follows).
  void set_precision(const std::string& precision);
};

// Which processes of a parallel run read (or mesh) the whole mesh: every rank (rank 0 reads it
// and broadcasts it), rank 0 alone (it then partitions it and sends each rank its part,
// runner/parallel_run.hpp), or none (each rank reads its part of a partitioned .h5). A serial
// run is every_rank.
enum class WholeMesh { every_rank, rank0, none };

// Reads the law and the mesh that problem.cfg names (meshing a .geo needs Gmsh), discretizes at
// its order (unless `discretize` is false: the ranks of a parallel run other than 0 discretize
// only their part) and fills in the solver set-up. With `whole` other than every_rank it
// discretizes nothing and leaves the per-element set-up to set_up_elements on the part; with
// rank0 only rank 0 holds the mesh (a failure to read it is every rank's error, with its
// message). Throws with the file and location of a problem.
void load(Problem& problem, bool discretize = true, WholeMesh whole = WholeMesh::every_rank);

// The set-up of each element of `mesh` (the whole mesh, or a rank's part): materials per region
// (setup.element_parameters, [parameter][K]) and the TF/SF total-field flags
// (setup.total_field, [K]); with `whole`, also that the total field is enclosed
// (dg::check_total_field; a rank's part cannot tell alone). Throws fluxes::Error at the config
// line.
void set_up_elements(Problem& problem, const mesh::Mesh& mesh, bool whole);

// The same from a config file (with --set overrides).
std::unique_ptr<Problem> load_problem(const std::filesystem::path& config, const std::vector<std::string>& overrides);

// The plane wave of a config's [incident] table.
dg::PlaneWave plane_wave(const config::Incident& incident);

}  // namespace rtdg::runner
