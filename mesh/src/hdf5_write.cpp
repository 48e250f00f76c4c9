// write_hdf5: the layout of hdf5_io.hpp, written through a temporary file.
#include "mesh/hdf5_io.hpp"

#include "mesh/geometry_nodes.hpp"

#include "hdf5_partitions.hpp"
#include "hdf5_support.hpp"
#include "temp_file.hpp"
#include "text.hpp"

namespace rtdg::mesh {
namespace {

using detail::ix;

std::string parameters_text(const std::map<std::string, double>& parameters) {
  std::string text;
  for (const auto& [name, value] : parameters) {
    text += (text.empty() ? "" : " ") + name + "=" + detail::format_number(value);
  }
  return text;
}

void write_contents(const Mesh& mesh, hid_t file, const Provenance& provenance, const std::string& source) {
  namespace h5 = detail::h5;
  const hsize_t K = mesh.EToV.size();
  const std::size_t nvert = ix(mesh.num_element_vertices());
  const std::size_t nfaces = ix(mesh.num_faces());
  const std::size_t nfv = ix(mesh.num_face_vertices());

  h5::write_attribute(file, "format", std::string("rtdg-mesh"), source);
  h5::write_attribute(file, "version", mesh.geometry_order > 1 ? 2 : 1, source);
  h5::write_attribute(file, "dim", mesh.dim, source);
  h5::write_attribute(file, "element_type", std::string(to_string(mesh.type)), source);
  h5::write_attribute(file, "source", provenance.source, source);
  h5::write_attribute(file, "parameters", parameters_text(provenance.parameters), source);

  std::vector<double> vertices;
  for (const auto& x : mesh.vertices) vertices.insert(vertices.end(), x.begin(), x.end());
  h5::write_array(file, "vertices", {mesh.vertices.size(), 3}, vertices, source);

  // [K][4] arrays are stored with only the used columns.
  const auto columns = [&](const std::vector<std::array<int, 4>>& rows, std::size_t n) {
    std::vector<int> out;
    out.reserve(rows.size() * n);
    for (const auto& row : rows) out.insert(out.end(), row.begin(), row.begin() + static_cast<std::ptrdiff_t>(n));
    return out;
  };
  h5::write_array(file, "EToV", {K, nvert}, columns(mesh.EToV, nvert), source);
  h5::write_array(file, "EToE", {K, nfaces}, columns(mesh.EToE, nfaces), source);
  h5::write_array(file, "EToF", {K, nfaces}, columns(mesh.EToF, nfaces), source);

  std::vector<std::int8_t> match;
  match.reserve(K * nfaces * nfv);
  for (const FaceVertexMatch& element : mesh.face_vertex_match) {
    for (std::size_t f = 0; f < nfaces; ++f) {
      match.insert(match.end(), element[f].begin(), element[f].begin() + static_cast<std::ptrdiff_t>(nfv));
    }
  }
  h5::write_array(file, "face_vertex_match", {K, nfaces, nfv}, match, source);

  h5::write_array(file, "element_region", {K}, mesh.element_region, source);
  h5::write_strings(file, "region_names", mesh.region_names, source);

  std::vector<int> boundary;
  for (const BoundaryFace& face : mesh.boundary_faces) boundary.insert(boundary.end(), {face.element, face.face, face.group});
  h5::write_array(file, "boundary_faces", {mesh.boundary_faces.size(), 3}, boundary, source);
  h5::write_strings(file, "boundary_names", mesh.boundary_names, source);

  std::vector<int> periodic;
  std::vector<double> shifts;
  for (const PeriodicFace& face : mesh.periodic_faces) {
    periodic.insert(periodic.end(), {face.element, face.face, face.group});
    shifts.insert(shifts.end(), face.shift.begin(), face.shift.end());
  }
  h5::write_array(file, "periodic_faces", {mesh.periodic_faces.size(), 3}, periodic, source);
  h5::write_array(file, "periodic_shifts", {mesh.periodic_faces.size(), 3}, shifts, source);

  std::vector<int> pairs;
  std::vector<double> pair_shifts;
  for (const PeriodicPair& pair : mesh.periodic_pairs) {
    pairs.insert(pairs.end(), {pair.group_a, pair.group_b});
    pair_shifts.insert(pair_shifts.end(), pair.shift.begin(), pair.shift.end());
  }
  h5::write_array(file, "periodic_pairs", {mesh.periodic_pairs.size(), 2}, pairs, source);
  h5::write_array(file, "periodic_pair_shifts", {mesh.periodic_pairs.size(), 3}, pair_shifts, source);

  if (mesh.geometry_order > 1) {
    h5::write_attribute(file, "geometry_order", mesh.geometry_order, source);
    std::vector<double> nodes;
    nodes.reserve(mesh.element_nodes.size() * 3);
    for (const auto& x : mesh.element_nodes) nodes.insert(nodes.end(), x.begin(), x.end());
    h5::write_array(file, "element_nodes", {K, ix(lattice_size(mesh.dim, mesh.geometry_order)), 3}, nodes, source);
  }
}

}  // namespace

void write_hdf5(const Mesh& mesh, const std::filesystem::path& file, const Provenance& provenance,
                const std::vector<Partition>& partitions) {
  const std::string source = file.string();
  validate(mesh, provenance.source.empty() ? source : provenance.source, Validation::full);
  const detail::h5::QuietErrors quiet;
  detail::publish_atomically(file, ".h5", [&](const std::filesystem::path& temporary) {
    detail::h5::Handle handle(H5Fcreate(temporary.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
    if (!handle.valid()) {
      detail::h5::fail_h5(source, "cannot create " + temporary.string());
    }
    write_contents(mesh, handle.get(), provenance, source);
    detail::write_partitions(handle.get(), partitions, mesh.num_elements(), source);
    if (!handle.close()) detail::h5::fail_h5(source, "cannot finish the file");
  });
}

}  // namespace rtdg::mesh
