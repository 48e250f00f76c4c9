// A Mesh or a rank's LocalMesh as bytes and back, for handing a mesh from one process to others
// (a parallel run's rank 0 reads or meshes the mesh and broadcasts it, or partitions it and sends
// each rank its part, docs/parallel.md). The bytes are
// this build's in-memory layout (native endianness and sizes): a transport between the
// processes of one job, not a file format (that is the .h5 of mesh/hdf5_io.hpp).
#pragma once

#include "mesh/local_mesh.hpp"
#include "mesh/mesh.hpp"

#include <string>
#include <string_view>

namespace rtdg::mesh {

std::string mesh_to_bytes(const Mesh& mesh);

// The mesh mesh_to_bytes gave, exactly (operator==). Throws MeshError naming `source` when the
// bytes are cut short or hold more than one mesh.
Mesh mesh_from_bytes(std::string_view bytes, std::string_view source);

std::string local_mesh_to_bytes(const LocalMesh& local);

// The local mesh local_mesh_to_bytes gave, exactly (operator==). Throws MeshError naming
// `source` when the bytes are cut short or hold more than one part.
LocalMesh local_mesh_from_bytes(std::string_view bytes, std::string_view source);

}  // namespace rtdg::mesh
