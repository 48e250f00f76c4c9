// HDF5 solution files: one layout for snapshots and checkpoints. It reads with h5py and h5dump
// (documented in docs/output.md). K elements, Np nodes per element:
//
//   /                  attributes: format = "rtdg-solution", version (int32), shape
//                      ("interval" | "triangle" | "tetrahedron"), dim, N, K, Np (int32),
//                      precision ("float" | "double"), time (float64), step (int64),
//                      field_names (string [C], the component order), rtdg_version,
//                      law_name, law_file, mesh_file, mesh_fingerprint, integrator,
//                      effective_config, node_set (strings)
//   /coordinates/x, y, z   float64 [K][Np]   (y below 2D and z below 3D are absent)
//   /fields/<name>         float64 or float32 (precision) [K][Np], one per component;
//                          names keep their '.', e.g. /fields/E.x
#pragma once

#include "output/solution.hpp"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace rtdg::output {

// The layout version written; read_solution reads this version and older ones.
inline constexpr int kSolutionFormatVersion = 1;

// The reference-element nodes a file's nodal values sit at: root attribute "node_set".
//   "warp_blend_v2"  the book's warp & blend nodes (dg/nodes.hpp): what this rtdg writes.
//   "warp_blend_v1"  rtdg before issue 14, whose triangle nodes of order 6 used alpha = 0.9808
//                    instead of the book's 0.9800 (up to 1.9e-5 away); every other shape and
//                    order is the same as v2. Files without the attribute are v1.
inline constexpr std::string_view kNodeSet = "warp_blend_v2";
inline constexpr std::string_view kLegacyNodeSet = "warp_blend_v1";

// Writes the solution (checked first) atomically: HDF5 builds the file in memory, which is
// written to a temporary file in the same folder, fsynced and renamed over `file` (the folder
// fsynced too). On any failure the temporary is removed and `file` is as it was. Float precision stores the values rounded to float. Throws output::Error
// naming the file. Every file gets node_set = kNodeSet: write only values at this rtdg's nodes
// (those of make_solution's discretization).
void write_solution(const std::filesystem::path& file, const Solution& solution);

// Whether this rtdg's HDF5 is the parallel one (an MPI build): write_solution_collective works.
bool parallel_hdf5_available();

// Parallel runs: the ranks of the MPI communicator `mpi_comm` (a pointer to an MPI_Comm, e.g.
// dg::Communicator::mpi_comm()) write one file together, in write_solution's layout, with
// MPI-IO and collective writes. Rank r passes `block`: every attribute of the whole solution,
// and the rows [first, first + block.K) of its K_total elements (x, y, z and values hold only
// those rows); the blocks of the ranks, in rank order, cover 0..K_total. Collective: every rank
// calls it. The file is written under a temporary name next to `file` and renamed by rank 0
// once every rank has written its part; when any rank fails, every rank throws output::Error
// and `file` is as it was. Extras (far-field sums) are whole, not rows: every rank passes the
// same ones (rank 0 writes them). Throws
// output::Error when parallel_hdf5_available() is false.
void write_solution_collective(const std::filesystem::path& file, const Solution& block, long long first, int K_total,
                               const void* mpi_comm);

// Reads a file written by write_solution. Float32 fields come back as the exact doubles.
// Throws output::Error naming the file (and dataset or attribute): no such file, not an HDF5
// file, not an rtdg solution, a newer version, a missing attribute or dataset, a dataset of the
// wrong type or shape.
Solution read_solution(const std::filesystem::path& file);

// Adds the readers' partial checksums elementwise: every reader of a file by rows passes a
// vector of the same length and gets the sums over all readers (mod 2^64), e.g. an all-reduce
// over the ranks of a parallel restart; for a single reader, the identity.
using ChecksumSum = std::function<std::vector<std::uint64_t>(const std::vector<std::uint64_t>&)>;

// Parallel restarts: rows [first, first + rows) of the file's elements, with every attribute and
// the extras as read_solution gives them; the result's K is `rows` (0: the attributes only) and
// `elements` gets the file's K. Reads only those rows. The stored checksum of each [K][Np]
// dataset covers all its rows: each reader sums its rows' terms and `sum_over_readers` adds
// them up (collective when it is: every reader calls this with the same file), so the readers
// together verify the whole file, and each throws output::Error naming the file and the dataset
// that does not match. `sum_over_readers` may be empty only with rows = 0 (the attributes alone:
// nothing verified but their own checksum). Throws as read_solution does, and when the rows are
// not within the file's elements.
Solution read_solution_rows(const std::filesystem::path& file, long long first, int rows, int& elements,
                            const ChecksumSum& sum_over_readers);

// The node set of a solution file: its "node_set" attribute, or kLegacyNodeSet when it has
// none (written before rtdg recorded it). Throws output::Error naming the file when it is not a
// readable rtdg solution or the attribute is not a string.
std::string read_node_set(const std::filesystem::path& file);

// Whether values on elements of `shape` and order N at the nodes of `node_set` are at this
// rtdg's nodes: true for kNodeSet; for kLegacyNodeSet, true except for triangles of order 6;
// false for any other (unknown) node set.
bool node_set_matches(std::string_view node_set, dg::Shape shape, int N);

// For a restart from `checkpoint` (read into `solution`): throws output::Error naming the file
// unless its values are at this rtdg's nodes (node_set_matches), saying which nodes it has and
// what to do instead (finish the run with the rtdg that wrote it, or start it again).
void check_restart_nodes(const std::filesystem::path& checkpoint, const Solution& solution);

}  // namespace rtdg::output
