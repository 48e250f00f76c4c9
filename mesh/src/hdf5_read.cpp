// read_hdf5: the layout of hdf5_io.hpp back into a Mesh, with structural checks.
#include "mesh/hdf5_io.hpp"

#include "mesh/geometry_nodes.hpp"

#include "hdf5_header.hpp"
#include "hdf5_partitions.hpp"
#include "hdf5_support.hpp"
#include "text.hpp"

namespace rtdg::mesh {
namespace {

using detail::fail;
using detail::ix;
namespace h5 = detail::h5;

// Rows of `n` used columns -> [rows][4] padded with -1.
std::vector<std::array<int, 4>> pad(const std::vector<int>& flat, std::size_t n) {
  std::vector<std::array<int, 4>> rows(n == 0 ? 0 : flat.size() / n, {-1, -1, -1, -1});
  for (std::size_t r = 0; r < rows.size(); ++r) {
    for (std::size_t c = 0; c < n; ++c) rows[r][c] = flat[r * n + c];
  }
  return rows;
}

}  // namespace

namespace detail {

Mesh read_header(hid_t file, const std::string& source) {
  if (!h5::has_attribute(file, "format") || h5::read_string_attribute(file, "format", source) != "rtdg-mesh") {
    fail(source, "an HDF5 file, but not an rtdg mesh (no root attribute format = \"rtdg-mesh\"); write one with "
                 "rtdg mesh in.geo|in.msh -o mesh.h5");
  }
  const int version = h5::read_int_attribute(file, "version", source);
  if (version < 1 || version > kHdf5FormatVersion) {
    fail(source, "mesh format version " + std::to_string(version) + " is not readable by this rtdg (it reads 1 to " +
                     std::to_string(kHdf5FormatVersion) + "); re-create the file with this rtdg's `rtdg mesh`");
  }
  Mesh mesh;
  mesh.dim = h5::read_int_attribute(file, "dim", source);
  const std::string type = h5::read_string_attribute(file, "element_type", source);
  if (type != "triangle" && type != "tetrahedron") fail(source, "unknown element_type '" + type + "'");
  mesh.type = type == "triangle" ? ElementType::triangle : ElementType::tetrahedron;
  if (mesh.dim != (mesh.type == ElementType::triangle ? 2 : 3)) {
    fail(source, "dim " + std::to_string(mesh.dim) + " does not match element_type '" + type + "'");
  }
  // Version 2: high-order geometry; without it (version 1) the elements are straight-sided.
  if (h5::has_attribute(file, "geometry_order")) {
    const int order = h5::read_int_attribute(file, "geometry_order", source);
    if (order < 2 || order > 8) {
      fail(source, "geometry_order " + std::to_string(order) + " is not supported (2 to 8, or no attribute for straight-sided elements)");
    }
    mesh.geometry_order = order;
  }
  return mesh;
}

}  // namespace detail

namespace {

Mesh read_contents(hid_t file, const std::string& source) {
  Mesh mesh = detail::read_header(file, source);
  const hsize_t nvert = ix(mesh.num_element_vertices());
  const hsize_t nfaces = ix(mesh.num_faces());
  const hsize_t nfv = ix(mesh.num_face_vertices());

  std::vector<hsize_t> dims{h5::kAny, 3};
  const std::vector<double> vertices = h5::read_array<double>(file, "vertices", dims, source);
  mesh.vertices.resize(dims[0]);
  for (std::size_t v = 0; v < mesh.vertices.size(); ++v) {
    mesh.vertices[v] = {vertices[3 * v], vertices[3 * v + 1], vertices[3 * v + 2]};
  }
  dims = {h5::kAny, nvert};
  mesh.EToV = pad(h5::read_array<int>(file, "EToV", dims, source), nvert);
  const hsize_t K = dims[0];
  dims = {K, nfaces};
  mesh.EToE = pad(h5::read_array<int>(file, "EToE", dims, source), nfaces);
  dims = {K, nfaces};
  mesh.EToF = pad(h5::read_array<int>(file, "EToF", dims, source), nfaces);

  dims = {K, nfaces, nfv};
  const std::vector<std::int8_t> match = h5::read_array<std::int8_t>(file, "face_vertex_match", dims, source);
  mesh.face_vertex_match.resize(K);
  for (std::size_t k = 0; k < K; ++k) {
    for (auto& row : mesh.face_vertex_match[k]) row.fill(-1);
    for (std::size_t f = 0; f < nfaces; ++f) {
      for (std::size_t i = 0; i < nfv; ++i) mesh.face_vertex_match[k][f][i] = match[(k * nfaces + f) * nfv + i];
    }
  }

  dims = {K};
  mesh.element_region = h5::read_array<int>(file, "element_region", dims, source);
  mesh.region_names = h5::read_strings(file, "region_names", source);

  dims = {h5::kAny, 3};
  const std::vector<int> boundary = h5::read_array<int>(file, "boundary_faces", dims, source);
  for (std::size_t i = 0; i < dims[0]; ++i) {
    mesh.boundary_faces.push_back({boundary[3 * i], boundary[3 * i + 1], boundary[3 * i + 2]});
  }
  mesh.boundary_names = h5::read_strings(file, "boundary_names", source);

  dims = {h5::kAny, 3};
  const std::vector<int> periodic = h5::read_array<int>(file, "periodic_faces", dims, source);
  const hsize_t P = dims[0];
  dims = {P, 3};
  const std::vector<double> shifts = h5::read_array<double>(file, "periodic_shifts", dims, source);
  for (std::size_t i = 0; i < P; ++i) {
    mesh.periodic_faces.push_back({periodic[3 * i], periodic[3 * i + 1], periodic[3 * i + 2],
                                   {shifts[3 * i], shifts[3 * i + 1], shifts[3 * i + 2]}});
  }
  dims = {h5::kAny, 2};
  const std::vector<int> pairs = h5::read_array<int>(file, "periodic_pairs", dims, source);
  const hsize_t Q = dims[0];
  dims = {Q, 3};
  const std::vector<double> pair_shifts = h5::read_array<double>(file, "periodic_pair_shifts", dims, source);
  for (std::size_t i = 0; i < Q; ++i) {
    mesh.periodic_pairs.push_back(
        {pairs[2 * i], pairs[2 * i + 1], {pair_shifts[3 * i], pair_shifts[3 * i + 1], pair_shifts[3 * i + 2]}});
  }
  if (mesh.geometry_order > 1) {
    const int order = mesh.geometry_order;
    dims = {K, ix(lattice_size(mesh.dim, order)), 3};
    const std::vector<double> nodes = h5::read_array<double>(file, "element_nodes", dims, source);
    mesh.element_nodes.resize(nodes.size() / 3);
    for (std::size_t n = 0; n < mesh.element_nodes.size(); ++n) mesh.element_nodes[n] = {nodes[3 * n], nodes[3 * n + 1], nodes[3 * n + 2]};
  }
  return mesh;
}

}  // namespace

namespace detail {

h5::Handle open_mesh_file(const std::filesystem::path& file, const std::string& source) {
  std::string problem;
  h5::Handle handle = rtdg::h5::open_read_only(file, problem);
  if (!handle.valid()) fail(source, problem);
  return handle;
}

}  // namespace detail

Mesh read_hdf5(const std::filesystem::path& file) {
  const std::string source = file.string();
  const h5::QuietErrors quiet;
  const h5::Handle handle = detail::open_mesh_file(file, source);
  Mesh mesh = read_contents(handle.get(), source);
  // The geometry too: an inverted or degenerate element is named here, with the file, rather
  // than by the solver that meets its negative Jacobian. Linear in the elements, as reading is.
  validate(mesh, source, Validation::full);
  return mesh;
}

std::vector<Partition> read_hdf5_partitions(const std::filesystem::path& file) {
  const std::string source = file.string();
  const h5::QuietErrors quiet;
  const h5::Handle handle = detail::open_mesh_file(file, source);
  return detail::read_partitions(handle.get(), source);
}

}  // namespace rtdg::mesh
