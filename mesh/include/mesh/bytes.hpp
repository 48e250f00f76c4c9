// A Mesh as bytes and back, for handing a whole mesh from one process to others (a parallel
// run meshes a .geo on rank 0 only and broadcasts the result, docs/parallel.md). The bytes are
// this build's in-memory layout (native endianness and sizes): a transport between the
// processes of one job, not a file format (that is the .h5 of mesh/hdf5_io.hpp).
#pragma once

#include "mesh/mesh.hpp"

#include <string>
#include <string_view>

namespace rtdg::mesh {

std::string mesh_to_bytes(const Mesh& mesh);

// The mesh mesh_to_bytes gave, exactly (operator==). Throws MeshError naming `source` when the
// bytes are cut short or hold more than one mesh.
Mesh mesh_from_bytes(std::string_view bytes, std::string_view source);

}  // namespace rtdg::mesh
