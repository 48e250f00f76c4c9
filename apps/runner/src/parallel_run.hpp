// What `rtdg run` adds for a parallel run (docs/parallel.md): the rank's part of the mesh and
// its solver set-up, and the moves between the rank-local state and the whole mesh's state on
// rank 0 (snapshots, checkpoints, restart). A serial run has a Part with parts = 1 and uses
// none of it.
#pragma once

#include "runner/problem.hpp"

#include <dg/parallel.hpp>
#include <mesh/local_mesh.hpp>

#include <filesystem>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace rtdg::runner {

// How the ranks get the mesh (docs/parallel.md, "Which mesh"):
// - read: each rank reads only its part: the mesh file is an .h5 mesh storing a partition into
//   as many parts as there are ranks;
// - sent: rank 0 alone reads (or meshes) the mesh, partitions it and sends each rank its part,
//   then frees it: any other mesh file;
// - whole: every rank holds the whole mesh (rank 0 reads or meshes it and broadcasts it) and
//   cuts its part itself: a serial run, an rtdg whose HDF5 is serial (rank 0 then writes the
//   output files alone, from the whole mesh's discretization), or RTDG_WHOLE_MESH set and not 0.
// `note` says, for the log, why the ranks did not read their parts.
struct MeshInput {
  enum class How { whole, read, sent };
  How how = How::whole;
  std::string note;
  WholeMesh whole_mesh() const {
    return how == How::whole ? WholeMesh::every_rank : how == How::sent ? WholeMesh::rank0 : WholeMesh::none;
  }
};

struct Part {
  const dg::Communicator* comm = nullptr;
  int parts = 1;
  std::optional<mesh::LocalMesh> local;
  // How this rank got its part (choose_mesh_input); unless whole, Problem::mesh is empty once
  // the part is made (rank 0 frees the mesh it sent) and the per-element set-up is the part's.
  MeshInput::How input = MeshInput::How::whole;
  bool distributed() const { return input != MeshInput::How::whole; }
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
  // Rank 0 of a parallel run on a .geo whose parts it sends: claims the file of the output
  // folder that the mesh is written to (meshed_file_name) and gives its path; empty elsewhere.
  std::function<std::filesystem::path()> claim_meshed_file;
  std::string meshed_note;  // rank 0: what it wrote there, for the log
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

MeshInput choose_mesh_input(const config::RunConfig& cfg, const dg::Communicator& comm);

// A parallel run on a .geo meshes it once, on rank 0, and writes the mesh (with the partition of
// the run) into the output folder under this name, "<the .geo's stem>_meshed.h5", before it sends
// the ranks their parts; the file stays, for later runs on it (mesh.file) without meshing.
std::string meshed_file_name(const config::RunConfig& cfg);
// Whether `cfg`'s mesh is a .geo (meshed by Gmsh at start).
bool meshes_geo(const config::RunConfig& cfg);

// Across each halo face of `local`, the value of the neighbour element (halo_faces order), from
// `own`, this rank's values of its elements [K_local]: one all-to-all, the values of each
// neighbour rank in the agreed order of the faces. Collective.
std::vector<double> neighbour_values(const dg::Communicator& comm, const mesh::LocalMesh& local, std::span<const double> own);

// dg::check_enclosure of the elements of every rank's part flagged in its `inside` [K_local]:
// the counts summed over the ranks, so every rank decides as a serial run on the whole mesh
// does. Collective; throws dg::Error naming `what` on every rank.
void check_enclosure(const dg::Communicator& comm, const mesh::LocalMesh& local, const std::vector<char>& inside,
                     const std::string& what);

// Cuts the loaded problem (the whole mesh; on rank 0 without the parallel HDF5 also its
// discretization, kept in part.global_disc) to this rank's part: partition (stored in the mesh
// file, else METIS), rank-local mesh and discretization, per-element parameters and TF/SF
// total-field flags of the part and of its halo neighbours, the halo exchange and the incident
// wave's front over the whole mesh. With part.distributed() (part.input set before) the problem holds no
// mesh: the rank reads its part of the file (mesh::read_hdf5_local), or receives it from rank 0,
// and sets up its elements on it, their halo neighbours' values by neighbour_values. Logs the balance (elements and halo
// faces per rank) on rank 0. With part.input sent, rank 0 holds the whole mesh (the others none):
// it partitions it (the partition stored in the file, else METIS), sends each rank its part
// (mesh::local_mesh_to_bytes) and frees the mesh; with part.claim_meshed_file it first writes the
// mesh and its partition to that file (a failure to write is every rank's error).
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
