// The parts of reading an .h5 mesh that read_hdf5 and read_hdf5_local share (private to the
// mesh module).
#pragma once

#include "mesh/mesh.hpp"

#include "hdf5_support.hpp"

#include <filesystem>
#include <string>

namespace rtdg::mesh::detail {

// The file opened read-only; MeshError naming `source` when it is not an HDF5 file.
h5::Handle open_mesh_file(const std::filesystem::path& file, const std::string& source);

// The root attributes: format, version, dim, element_type and geometry_order checked, returned
// as a Mesh without elements (dim, type, geometry_order set).
Mesh read_header(hid_t file, const std::string& source);

}  // namespace rtdg::mesh::detail
