// Mesh partitioning for parallel runs: METIS k-way on the element dual graph (one vertex per
// element, one edge per pair of face neighbours, periodic faces included), weighted by element
// cost. Partitioning is serial and deterministic: the same mesh, weights, part count, seed and
// METIS build give the same partition on every rank and every run, so each rank may compute
// it itself. The partition can be stored in the .h5 mesh (hdf5_io.hpp, docs/mesh.md).
//
// Without METIS (RTDG_HAVE_METIS=0) partition_mesh throws MeshError for more than one part;
// partitions stored in a mesh file still load.
#pragma once

#include "mesh/mesh.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace rtdg::mesh {

// Whether this build has METIS.
bool have_metis();

// The element dual graph in compressed sparse rows: the neighbours of element k are
// adjacency[offsets[k] .. offsets[k + 1]), ascending, each once, never k itself;
// face_count[i] is how many faces k shares with adjacency[i] (more than one only through
// periodic faces of a mesh one or two elements thick). Boundary faces are no edges.
struct DualGraph {
  std::vector<int> offsets;     // [K + 1]
  std::vector<int> adjacency;   // [offsets[K]]
  std::vector<int> face_count;  // [offsets[K]]
};

DualGraph dual_graph(const Mesh& mesh);

struct PartitionOptions {
  int parts = 1;
  // [K] relative cost of each element (>= 1), e.g. its DOF times the law's work per DOF;
  // empty: uniform (every element costs 1).
  std::vector<int> element_weights;
  int seed = 0;             // METIS_OPTION_SEED
  double tolerance = 1.03;  // allowed (heaviest part) / (average part): METIS's ufactor = 1000 (tolerance - 1)
};

// element_part[k] is the part (the rank) that owns element k. `method` is "metis-kway" or
// "single" (one part); it and the fields after it record how the partition was made (stored
// with it in .h5 files).
struct Partition {
  int parts = 0;
  std::vector<int> element_part;  // [K] in 0 .. parts-1
  std::string method;
  int seed = 0;
  double tolerance = 1.03;
  bool weighted = false;          // made with non-uniform element weights
  friend bool operator==(const Partition&, const Partition&) = default;
};

// Partitions the mesh into options.parts parts of balanced weight, cutting few faces. Throws
// MeshError naming `source` when parts < 1 or > K, the weights are not [K] values >= 1, METIS
// is missing (parts > 1) or fails, or a part comes out empty (too many parts for the mesh).
Partition partition_mesh(const Mesh& mesh, const PartitionOptions& options, std::string_view source = "<memory>");

// Checks a partition against a mesh of K elements: [K] entries in range, no part empty.
// Throws MeshError naming `source`.
void check_partition(const Partition& partition, int K, std::string_view source);

// How a partition splits the work and the faces.
struct PartitionStats {
  std::vector<int> elements;      // [P] elements per part
  std::vector<long> weight;       // [P] summed element weights per part
  std::vector<int> halo_faces;    // [P] faces of the part whose neighbour is in another part
  std::vector<int> neighbours;    // [P] parts each part shares faces with
  int cut_faces = 0;              // faces between parts, each counted once
  double imbalance = 1.0;         // max(weight) / mean(weight)
};

// `element_weights` as in PartitionOptions (empty: uniform).
PartitionStats partition_stats(const Mesh& mesh, const Partition& partition,
                               const std::vector<int>& element_weights = {});

// One line for `rtdg mesh`, e.g. "4 parts (metis-kway, seed 0): 221..222 elements per part
// (imbalance 1.004), 87 faces cut, 38..52 halo faces per part".
std::string format_partition(const Partition& partition, const PartitionStats& stats);

// The partition into options.parts stored in `file` when it is an .h5 mesh holding one
// (whatever options' weights, seed and tolerance: the stored one was chosen on purpose), else
// a new one from partition_mesh (what a parallel run does at start). `stored` says which.
// Throws MeshError naming the file for a stored partition that does not fit `mesh`.
struct LoadedPartition {
  Partition partition;
  bool stored = false;
};
LoadedPartition load_partition(const std::filesystem::path& file, const Mesh& mesh, const PartitionOptions& options);

}  // namespace rtdg::mesh
