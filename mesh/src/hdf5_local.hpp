// read_hdf5_local with a chosen block size (private to the mesh module and its tests).
#pragma once

#include "mesh/local_mesh.hpp"

#include <cstddef>
#include <filesystem>

namespace rtdg::mesh::detail {

// read_hdf5_local (mesh/hdf5_io.hpp) reading the partition and face lists in blocks, and its
// rows in windows, of `block_rows` rows (the public one: kBlockRows of hdf5_rows.hpp; tests take
// a few rows, to cross many blocks on a small mesh).
LocalMesh read_hdf5_local(const std::filesystem::path& file, int parts, int rank, std::size_t block_rows);

}  // namespace rtdg::mesh::detail
