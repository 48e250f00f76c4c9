// The bytes of a mesh's fingerprint (mesh/fingerprint.hpp), from a Mesh or from an .h5 mesh
// file in blocks; tests/mesh check that the two agree.
#include "mesh/fingerprint.hpp"

#include "hdf5_header.hpp"
#include "hdf5_rows.hpp"
#include "text.hpp"

namespace rtdg::mesh {
namespace {

std::string_view raw(const void* data, std::size_t size) { return {static_cast<const char*>(data), size}; }

}  // namespace

void fingerprint_bytes(const Mesh& mesh, const ByteSink& sink) {
  sink(raw(&mesh.dim, sizeof mesh.dim));
  sink(raw(mesh.vertices.data(), mesh.vertices.size() * sizeof mesh.vertices[0]));
  sink(raw(mesh.EToV.data(), mesh.EToV.size() * sizeof mesh.EToV[0]));
  for (const BoundaryFace& f : mesh.boundary_faces) sink(raw(&f, sizeof f));
  for (const std::string& name : mesh.boundary_names) {
    sink(name);
    sink(std::string_view("\0", 1));
  }
}

void hdf5_fingerprint_bytes(const std::filesystem::path& file, const ByteSink& sink) {
  namespace h5 = detail::h5;
  const std::string source = file.string();
  const h5::QuietErrors quiet;
  const h5::Handle handle = detail::open_mesh_file(file, source);
  const Mesh header = detail::read_header(handle.get(), source);
  sink(raw(&header.dim, sizeof header.dim));
  // The vertices: [Nv][3] doubles, as a Mesh holds them.
  detail::scan_rows<double>(detail::open_dataset(handle.get(), "vertices", H5T_FLOAT, {h5::kAny, 3}, source), source,
                            [&](std::size_t, const std::vector<double>& block) {
                              sink(raw(block.data(), block.size() * sizeof(double)));
                            });
  // EToV: the file's used columns, padded to [4] with -1 as a Mesh holds them.
  const std::size_t nvert = detail::ix(header.num_element_vertices());
  std::vector<std::array<int, 4>> rows;
  detail::scan_rows<int>(detail::open_dataset(handle.get(), "EToV", H5T_INTEGER, {h5::kAny, nvert}, source), source,
                         [&](std::size_t, const std::vector<int>& block) {
                           rows.assign(block.size() / nvert, {-1, -1, -1, -1});
                           for (std::size_t r = 0; r < rows.size(); ++r)
                             for (std::size_t c = 0; c < nvert; ++c) rows[r][c] = block[r * nvert + c];
                           sink(raw(rows.data(), rows.size() * sizeof rows[0]));
                         });
  detail::scan_rows<int>(detail::open_dataset(handle.get(), "boundary_faces", H5T_INTEGER, {h5::kAny, 3}, source), source,
                         [&](std::size_t, const std::vector<int>& block) {
                           for (std::size_t i = 0; i + 2 < block.size(); i += 3) {
                             const BoundaryFace face{block[i], block[i + 1], block[i + 2]};
                             sink(raw(&face, sizeof face));
                           }
                         });
  for (const std::string& name : h5::read_strings(handle.get(), "boundary_names", source)) {
    sink(name);
    sink(std::string_view("\0", 1));
  }
}

}  // namespace rtdg::mesh
