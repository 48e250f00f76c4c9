// read_hdf5_local: one rank's part of a partitioned .h5 mesh, read with hyperslabs: the rows of
// its elements, the stored part of each neighbour across its faces, the vertices its elements
// use, and its boundary and periodic faces. What it reads of size K (the partition dataset) and
// of size B (the boundary and periodic face lists) it reads in blocks of kBlockRows rows and
// keeps only its own, so its memory follows its part, not the whole mesh (hdf5_rows.hpp).
#include "mesh/hdf5_io.hpp"

#include "mesh/geometry_nodes.hpp"

#include "hdf5_header.hpp"
#include "hdf5_local.hpp"
#include "hdf5_partitions.hpp"
#include "hdf5_rows.hpp"
#include "hdf5_support.hpp"
#include "local_assembly.hpp"
#include "text.hpp"

#include <algorithm>

namespace rtdg::mesh {
namespace {

using detail::fail;
using detail::ix;
using detail::open_dataset;
using detail::read_rows;
using detail::scan_rows;
using detail::Dataset;
namespace h5 = detail::h5;

// [rows][4] padded with -1 from rows of n values.
std::vector<std::array<int, 4>> pad(const std::vector<int>& flat, std::size_t n) {
  std::vector<std::array<int, 4>> rows(flat.size() / n, {-1, -1, -1, -1});
  for (std::size_t r = 0; r < rows.size(); ++r)
    for (std::size_t c = 0; c < n; ++c) rows[r][c] = flat[r * n + c];
  return rows;
}

bool contains(const std::vector<int>& sorted, int value) { return std::binary_search(sorted.begin(), sorted.end(), value); }

}  // namespace

std::vector<int> hdf5_partition_counts(const std::filesystem::path& file) {
  const std::string source = file.string();
  const h5::QuietErrors quiet;
  const h5::Handle handle = detail::open_mesh_file(file, source);
  detail::read_header(handle.get(), source);
  return detail::partition_counts(handle.get(), source);
}

LocalMesh read_hdf5_local(const std::filesystem::path& file, int parts, int rank) {
  return detail::read_hdf5_local(file, parts, rank, detail::kBlockRows);
}

LocalMesh detail::read_hdf5_local(const std::filesystem::path& file, int parts, int rank, std::size_t block_size) {
  const auto block_rows = static_cast<hsize_t>(block_size);
  const std::string source = file.string();
  const h5::QuietErrors quiet;
  const h5::Handle handle = detail::open_mesh_file(file, source);
  const hid_t h = handle.get();
  const Mesh header = detail::read_header(h, source);
  const std::vector<int> counts = detail::partition_counts(h, source);
  if (!std::binary_search(counts.begin(), counts.end(), parts)) {
    fail(source, "stores no partition into " + std::to_string(parts) + " parts; add one with `rtdg mesh " + source +
                     " --partitions " + std::to_string(parts) + " -o " + source + "`");
  }
  if (rank < 0 || rank >= parts) fail(source, "rank " + std::to_string(rank) + " of " + std::to_string(parts) + " parts");
  const std::size_t nvert = ix(header.num_element_vertices()), nfaces = ix(header.num_faces());
  const std::size_t nfv = ix(header.num_face_vertices());

  const Dataset etov = open_dataset(h, "EToV", H5T_INTEGER, {h5::kAny, nvert}, source);
  const hsize_t K = etov.dims[0];
  const Dataset vertices = open_dataset(h, "vertices", H5T_FLOAT, {h5::kAny, 3}, source);
  const hsize_t Nv = vertices.dims[0];
  const std::string partition_path = detail::partition_dataset(parts);
  const Dataset partition = open_dataset(h, partition_path, H5T_INTEGER, {K}, source);
  Partition attributes;
  detail::check_partition_attributes(h, parts, attributes, source);

  detail::OwnElements own;
  own.rank = rank;
  own.parts = parts;
  own.global_elements = static_cast<int>(K);
  own.global_vertices = static_cast<int>(Nv);
  own.dim = header.dim;
  own.type = header.type;
  own.geometry_order = header.geometry_order;

  // The rank's elements: the entries of the stored partition equal to `rank`.
  const std::string where = source + ": /" + partition_path;
  std::vector<int> part_count(ix(parts), 0);
  scan_rows<int>(partition, source, [&](std::size_t first, const std::vector<int>& block) {
    for (std::size_t i = 0; i < block.size(); ++i) {
      if (block[i] < 0 || block[i] >= parts)
        fail(where, "the partition into " + std::to_string(parts) + " parts puts element " + std::to_string(first + i) +
                        " in part " + std::to_string(block[i]));
      ++part_count[ix(block[i])];
      if (block[i] == rank) own.global.push_back(static_cast<int>(first + i));
    }
  }, block_rows);
  for (int p = 0; p < parts; ++p)
    if (part_count[ix(p)] == 0)
      fail(where, "part " + std::to_string(p) + " of the partition into " + std::to_string(parts) +
                      " parts has no elements; use fewer parts for a mesh of " + std::to_string(K) + " elements");

  // Their rows.
  const auto in_range = [&](int value, hsize_t end, const char* dataset, const char* what) {
    if (value < 0 || static_cast<hsize_t>(value) >= end)
      fail(source, std::string("dataset '/") + dataset + "' holds " + what + " " + std::to_string(value) +
                       ", out of range [0, " + std::to_string(end) + ")");
  };
  own.EToV = pad(read_rows<int>(etov, own.global, source, block_rows), nvert);
  own.EToE = pad(read_rows<int>(open_dataset(h, "EToE", H5T_INTEGER, {K, nfaces}, source), own.global, source, block_rows), nfaces);
  own.EToF = pad(read_rows<int>(open_dataset(h, "EToF", H5T_INTEGER, {K, nfaces}, source), own.global, source, block_rows), nfaces);
  {
    const std::vector<std::int8_t> match =
        read_rows<std::int8_t>(open_dataset(h, "face_vertex_match", H5T_INTEGER, {K, nfaces, nfv}, source), own.global, source, block_rows);
    own.face_vertex_match.resize(own.global.size());
    for (std::size_t k = 0; k < own.global.size(); ++k) {
      for (auto& row : own.face_vertex_match[k]) row.fill(-1);
      for (std::size_t f = 0; f < nfaces; ++f)
        for (std::size_t i = 0; i < nfv; ++i) own.face_vertex_match[k][f][i] = match[(k * nfaces + f) * nfv + i];
    }
  }
  own.element_region = read_rows<int>(open_dataset(h, "element_region", H5T_INTEGER, {K}, source), own.global, source, block_rows);
  own.region_names = h5::read_strings(h, "region_names", source);
  own.boundary_names = h5::read_strings(h, "boundary_names", source);
  for (const int r : own.element_region) in_range(r, own.region_names.size(), "element_region", "region");
  if (header.geometry_order > 1) {
    const std::size_t lattice = ix(lattice_size(header.dim, header.geometry_order));
    const std::vector<double> nodes =
        read_rows<double>(open_dataset(h, "element_nodes", H5T_FLOAT, {K, lattice, 3}, source), own.global, source, block_rows);
    own.element_nodes.resize(nodes.size() / 3);
    for (std::size_t n = 0; n < own.element_nodes.size(); ++n) own.element_nodes[n] = {nodes[3 * n], nodes[3 * n + 1], nodes[3 * n + 2]};
  }

  // The neighbours' parts: the rank's own, or read at the neighbours on other ranks.
  std::vector<int> others;
  for (std::size_t k = 0; k < own.global.size(); ++k)
    for (std::size_t f = 0; f < nfaces; ++f) {
      in_range(own.EToE[k][f], K, "EToE", "element");
      in_range(own.EToF[k][f], nfaces, "EToF", "face");
      if (!contains(own.global, own.EToE[k][f])) others.push_back(own.EToE[k][f]);
    }
  std::sort(others.begin(), others.end());
  others.erase(std::unique(others.begin(), others.end()), others.end());
  const std::vector<int> other_part = read_rows<int>(partition, others, source, block_rows);
  own.neighbour_part.assign(own.global.size(), {-1, -1, -1, -1});
  for (std::size_t k = 0; k < own.global.size(); ++k)
    for (std::size_t f = 0; f < nfaces; ++f) {
      const int nb = own.EToE[k][f];
      const auto at = std::lower_bound(others.begin(), others.end(), nb);
      own.neighbour_part[k][f] = at != others.end() && *at == nb ? other_part[ix(static_cast<int>(at - others.begin()))] : rank;
    }

  // The vertices the elements use.
  for (const auto& row : own.EToV)
    for (std::size_t v = 0; v < nvert; ++v) {
      in_range(row[v], Nv, "EToV", "vertex");
      own.vertex_global.push_back(row[v]);
    }
  std::sort(own.vertex_global.begin(), own.vertex_global.end());
  own.vertex_global.erase(std::unique(own.vertex_global.begin(), own.vertex_global.end()), own.vertex_global.end());
  {
    const std::vector<double> xyz = read_rows<double>(vertices, own.vertex_global, source, block_rows);
    own.vertices.resize(own.vertex_global.size());
    for (std::size_t v = 0; v < own.vertices.size(); ++v) own.vertices[v] = {xyz[3 * v], xyz[3 * v + 1], xyz[3 * v + 2]};
  }

  // The boundary and periodic faces of the rank's elements.
  scan_rows<int>(open_dataset(h, "boundary_faces", H5T_INTEGER, {h5::kAny, 3}, source), source,
                 [&](std::size_t, const std::vector<int>& block) {
                   for (std::size_t i = 0; i + 2 < block.size(); i += 3) {
                     in_range(block[i], K, "boundary_faces", "element");
                     in_range(block[i + 2], own.boundary_names.size(), "boundary_faces", "group");
                     if (contains(own.global, block[i])) own.boundary_faces.push_back({block[i], block[i + 1], block[i + 2]});
                   }
                 }, block_rows);
  const Dataset periodic = open_dataset(h, "periodic_faces", H5T_INTEGER, {h5::kAny, 3}, source);
  const Dataset shifts = open_dataset(h, "periodic_shifts", H5T_FLOAT, {periodic.dims[0], 3}, source);
  std::vector<int> periodic_rows;
  scan_rows<int>(periodic, source, [&](std::size_t first, const std::vector<int>& block) {
    for (std::size_t i = 0; i + 2 < block.size(); i += 3) {
      in_range(block[i], K, "periodic_faces", "element");
      in_range(block[i + 2], own.boundary_names.size(), "periodic_faces", "group");
      if (!contains(own.global, block[i])) continue;
      own.periodic_faces.push_back({block[i], block[i + 1], block[i + 2], {}});
      periodic_rows.push_back(static_cast<int>(first + i / 3));
    }
  }, block_rows);
  const std::vector<double> shift = read_rows<double>(shifts, periodic_rows, source, block_rows);
  for (std::size_t i = 0; i < own.periodic_faces.size(); ++i)
    own.periodic_faces[i].shift = {shift[3 * i], shift[3 * i + 1], shift[3 * i + 2]};
  std::vector<hsize_t> dims{h5::kAny, 2};
  const std::vector<int> pairs = h5::read_array<int>(h, "periodic_pairs", dims, source);
  const hsize_t Q = dims[0];
  dims = {Q, 3};
  const std::vector<double> pair_shifts = h5::read_array<double>(h, "periodic_pair_shifts", dims, source);
  for (std::size_t i = 0; i < Q; ++i)
    own.periodic_pairs.push_back({pairs[2 * i], pairs[2 * i + 1], {pair_shifts[3 * i], pair_shifts[3 * i + 1], pair_shifts[3 * i + 2]}});

  LocalMesh local = detail::assemble_local_mesh(std::move(own));
  // The local mesh's conventions and geometry (the whole mesh's were checked when it was
  // written; this is what a corrupt or hand-edited file breaks first).
  validate_local(local, source);
  return local;
}

}  // namespace rtdg::mesh
