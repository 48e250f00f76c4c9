// What `rtdg run` adds for a parallel run (docs/parallel.md): the rank's part of the mesh and
// its solver set-up, and the moves between the rank-local state and the whole mesh's state on
// rank 0 (snapshots, checkpoints, restart). A serial run has a Part with parts = 1 and uses
// none of it.
#pragma once

#include "runner/problem.hpp"

#include <dg/parallel.hpp>
#include <mesh/local_mesh.hpp>

#include <iosfwd>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace rtdg::runner {

struct Part {
  const dg::Communicator* comm = nullptr;
  int parts = 1;
  std::optional<mesh::LocalMesh> local;
  std::vector<int> element_part;  // [global K] the rank of each element (the partition)
  // [global K] TF/SF: the total-field flags of the whole mesh (SolverSetup::total_field then
  // holds this rank's); empty without TF/SF.
  std::vector<char> global_total_field;
  // Rank 0 with the serial HDF5 (it gathers and writes the files alone): the whole mesh's
  // discretization; every rank: the whole mesh's element count.
  dg::Discretization global_disc;
  int global_K = 0;
  // Rank 0: every rank's element_global, in rank order (what gather_state receives), and
  // each rank's element and halo face counts.
  std::vector<int> gathered_elements;
  std::vector<int> rank_elements, rank_halo_faces;
  std::unique_ptr<dg::HaloExchange> exchange;
  std::string partition_source;  // "stored in <file>" or "METIS (...)"
  // Collective HDF5 output (docs/parallel.md): this rank writes rows [block_first, block_first +
  // block_rows) of the whole mesh's element order, K r / P up to K (r + 1) / P; the state gets
  // there by one all-to-all per file (make_blocks, block_values).
  long long block_first = 0;
  int block_rows = 0;
  std::vector<int> block_send_counts;  // [P] local elements this rank sends to each rank
  std::vector<int> block_send_order;   // local element numbers, grouped by receiving rank
  std::vector<int> block_arrivals;     // the block row of each element received, in arrival order
  std::vector<int> block_receive_counts;  // [P] elements received from each rank
  std::vector<double> block_xyz;       // [dim][block_rows][Np] the block's node coordinates

  bool parallel() const { return parts > 1; }
  bool root() const { return !comm || comm->rank() == 0; }
};

// Cuts the loaded problem (the whole mesh; on rank 0 without the parallel HDF5 also its
// discretization, kept in part.global_disc) to this rank's part: partition (stored in the mesh
// file, else METIS), rank-local mesh and discretization, per-element parameters and TF/SF
// total-field flags of the part and of its halo neighbours, the halo exchange and the incident
// wave's front over the whole mesh. Logs the balance (elements and halo faces per rank) on
// rank 0.
void make_part(Problem& problem, Part& part, const dg::Communicator& comm, std::ostream& log);

// The whole mesh's state [component][K][Np] on rank 0 from every rank's local state (empty on
// the other ranks).
std::vector<double> gather_state(const Part& part, std::span<const double> local, int components, int Np);

// The blocks of collective output (Part::block_*), from this rank's part of the mesh and its
// discretization. Collective.
void make_blocks(Part& part, const dg::Discretization& local_disc);

// This rank's block [component][block_rows][Np] of the whole mesh's state, from every rank's
// local state [component][K_local][Np]. Collective.
std::vector<double> block_values(const Part& part, std::span<const double> local, int components, int Np);

// The inverse of block_values: this rank's local state [component][K_local][Np] from every
// rank's block [component][block_rows][Np] (a parallel restart reads blocks). Collective.
std::vector<double> local_from_blocks(const Part& part, std::span<const double> block, int components, int Np);


// Chooses a GPU per rank: RTDG_CUDA_DEVICE when set, else the node-local rank modulo the
// devices there are (more ranks than GPUs share them).
void choose_device(const dg::Communicator& comm, const std::string& backend);

}  // namespace rtdg::runner
