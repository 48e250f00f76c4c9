// HDF5 mesh files: the validated mesh with its connectivity, so a solver run needs neither
// Gmsh nor re-validation. The layout is documented in docs/mesh.md; it reads with h5py and
// h5dump. K elements, Nv vertices, Nfaces = dim + 1 faces and Nfv = dim vertices per face:
//
//   /                     attributes format = "rtdg-mesh", version (int32), dim (int32),
//                         element_type ("triangle" | "tetrahedron"), source, parameters
//   /vertices             float64 [Nv][3]
//   /EToV                 int32   [K][dim+1]
//   /EToE, /EToF          int32   [K][Nfaces]
//   /face_vertex_match    int8    [K][Nfaces][Nfv]
//   /element_region       int32   [K]
//   /region_names         string  [R]
//   /boundary_faces       int32   [B][3]   (element, face, group)
//   /boundary_names       string  [G]
//   /periodic_faces       int32   [P][3]   (element, face, group)
//   /periodic_shifts      float64 [P][3]
//   /periodic_pairs       int32   [Q][2]   (group_a, group_b)
//   /periodic_pair_shifts float64 [Q][3]
//   /partitions/<P>       int32   [K]      optional: element -> part, one dataset per part
//                                          count P; attributes parts, method, seed,
//                                          tolerance (float64), weighted (int32 0/1)
#pragma once

#include "mesh/local_mesh.hpp"
#include "mesh/mesh.hpp"
#include "mesh/partition.hpp"

#include <filesystem>
#include <map>
#include <string>

namespace rtdg::mesh {

// The layout version written; read_hdf5 reads this version and older ones.
// Version 2 adds the high-order geometry (attribute geometry_order, dataset element_nodes); a
// mesh of geometry order 1 is written as version 1, which readers of version 1 read as before.
inline constexpr int kHdf5FormatVersion = 2;

// Where a mesh came from, stored as attributes for people reading the file (h5dump).
struct Provenance {
  std::string source;                    // input file
  std::map<std::string, double> parameters;  // .geo parameters set
};

// Writes the mesh (validated first), and the partitions given (checked against it, at most
// one per part count), atomically: a temporary file in the same folder, renamed over `file`
// when complete. Throws MeshError naming the file.
void write_hdf5(const Mesh& mesh, const std::filesystem::path& file, const Provenance& provenance = {},
                const std::vector<Partition>& partitions = {});

// Reads a mesh written by write_hdf5 and checks its structure (sizes, index ranges,
// connectivity symmetry); the geometry was validated when it was written. Throws MeshError
// naming the file and dataset: not an HDF5 file, not an rtdg mesh, a newer version, a
// missing or misshapen dataset.
Mesh read_hdf5(const std::filesystem::path& file);

// The partitions stored in an .h5 mesh, ascending part count (none when it holds none). Each
// is checked against the file's element count. Throws MeshError naming the file and dataset.
std::vector<Partition> read_hdf5_partitions(const std::filesystem::path& file);

// The part counts of the partitions an .h5 mesh stores, ascending, without reading them.
std::vector<int> hdf5_partition_counts(const std::filesystem::path& file);

// Rank `rank`'s LocalMesh under the partition into `parts` that the file stores, equal to
// build_local_mesh(read_hdf5(file), that partition, rank), read without the whole mesh: the
// rows of the rank's elements, the parts of their neighbours and the vertices they use
// (hyperslab reads), the partition and the boundary and periodic face lists scanned in blocks
// for the rank's entries. Memory follows the rank's part. Checks what it reads (ranges, the
// partition's parts non-empty) and validate_local's conventions. Throws MeshError naming the
// file: no partition into `parts`, any error of read_hdf5.
LocalMesh read_hdf5_local(const std::filesystem::path& file, int parts, int rank);

}  // namespace rtdg::mesh
