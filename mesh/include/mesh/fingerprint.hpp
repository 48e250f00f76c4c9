// What identifies a mesh for a restart (the checkpoint's mesh_fingerprint): the bytes a digest
// of it takes, in order: dim (int), vertices [Nv][3] (double), EToV [K][4] (int, -1 padded for
// triangles), boundary_faces [B] (element, face, group: int), and each boundary name followed
// by a zero byte. Handed to `sink` piece by piece, so a caller hashes them as they come.
#pragma once

#include "mesh/mesh.hpp"

#include <filesystem>
#include <functional>
#include <string_view>

namespace rtdg::mesh {

using ByteSink = std::function<void(std::string_view)>;

void fingerprint_bytes(const Mesh& mesh, const ByteSink& sink);

// The same bytes from an .h5 mesh file, read in blocks (never the whole mesh at once), so a
// rank of a parallel run that reads only its part can still name the mesh as a serial run does.
// Throws MeshError naming the file.
void hdf5_fingerprint_bytes(const std::filesystem::path& file, const ByteSink& sink);

}  // namespace rtdg::mesh
