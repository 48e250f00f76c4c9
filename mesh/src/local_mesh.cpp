// build_local_mesh: one rank's elements of the global mesh, renumbered, and its halo faces in
// the order both sides of each shared face agree on; validate_local checks the result.
#include "mesh/local_mesh.hpp"

#include "mesh/error.hpp"
#include "mesh/geometry_nodes.hpp"

#include "local_assembly.hpp"
#include "text.hpp"

#include <algorithm>
#include <tuple>

namespace rtdg::mesh {
namespace {

using detail::fail;
using detail::ix;

// The agreed position of a halo face among those shared with its neighbour rank: (global
// element, face) of the side on the lower rank, the same pair for both sides.
std::pair<int, int> agreed_key(const LocalMesh& local, const HaloFace& face) {
  if (local.rank < face.rank) return {local.element_global[ix(face.element)], face.face};
  return {face.neighbour_element, face.neighbour_face};
}

bool halo_less(const LocalMesh& local, const HaloFace& a, const HaloFace& b) {
  return std::pair(a.rank, agreed_key(local, a)) < std::pair(b.rank, agreed_key(local, b));
}

std::string face_name(int k, int f) {
  return "face " + std::to_string(f) + " of local element " + std::to_string(k);
}

}  // namespace

namespace detail {

LocalMesh assemble_local_mesh(OwnElements own) {
  const int rank = own.rank;
  const int n = static_cast<int>(own.global.size());
  LocalMesh local;
  local.rank = rank;
  local.parts = own.parts;
  local.global_elements = own.global_elements;
  local.global_vertices = own.global_vertices;
  const int nfaces = own.type == ElementType::triangle ? 3 : 4;
  const int nfv = nfaces - 1;
  const int nvert = nfaces;

  // Local numbers: the elements without halo faces first, then those with halo faces (so a
  // solver can compute the first while the halo traces travel), each in ascending global
  // number; vertices in ascending global number.
  const auto on_boundary = [&](int i) {
    for (int f = 0; f < nfaces; ++f)
      if (own.neighbour_part[ix(i)][ix(f)] != rank) return true;
    return false;
  };
  std::vector<int> row_local(ix(n), -1);
  std::vector<int> rows;  // the rows in local order
  rows.reserve(ix(n));
  for (const bool halo_pass : {false, true}) {
    for (int i = 0; i < n; ++i) {
      if (on_boundary(i) != halo_pass) continue;
      row_local[ix(i)] = static_cast<int>(rows.size());
      rows.push_back(i);
      local.element_global.push_back(own.global[ix(i)]);
    }
    if (!halo_pass) local.interior_elements = static_cast<int>(rows.size());
  }
  // The row of global element k (one of the rank's).
  const auto row_of = [&](int k) {
    return static_cast<int>(std::lower_bound(own.global.begin(), own.global.end(), k) - own.global.begin());
  };
  const auto by_face = [](const auto& a, const auto& b) { return std::pair(a.element, a.face) < std::pair(b.element, b.face); };
  std::sort(own.periodic_faces.begin(), own.periodic_faces.end(), by_face);
  // The periodic record of face f of global element k, or null.
  const auto periodic_of = [&](int k, int f) -> const PeriodicFace* {
    const PeriodicFace key{k, f, 0, {}};
    const auto found = std::lower_bound(own.periodic_faces.begin(), own.periodic_faces.end(), key, by_face);
    return found != own.periodic_faces.end() && found->element == k && found->face == f ? &*found : nullptr;
  };

  Mesh& mesh = local.mesh;
  mesh.dim = own.dim;
  mesh.type = own.type;
  mesh.boundary_names = std::move(own.boundary_names);
  mesh.region_names = std::move(own.region_names);
  mesh.periodic_pairs = std::move(own.periodic_pairs);
  mesh.geometry_order = own.geometry_order;
  local.vertex_global = std::move(own.vertex_global);
  mesh.vertices = std::move(own.vertices);
  const auto local_vertex = [&](int v) {
    return static_cast<int>(std::lower_bound(local.vertex_global.begin(), local.vertex_global.end(), v) -
                            local.vertex_global.begin());
  };
  const int lattice = own.geometry_order > 1 ? lattice_size(own.dim, own.geometry_order) : 0;

  mesh.EToV.reserve(ix(n));
  mesh.EToE.reserve(ix(n));
  mesh.EToF.reserve(ix(n));
  mesh.face_vertex_match.reserve(ix(n));
  mesh.element_region.reserve(ix(n));
  for (const int i : rows) {
    const int k = own.global[ix(i)];
    const int lk = row_local[ix(i)];
    std::array<int, 4> vertices{-1, -1, -1, -1};
    for (int v = 0; v < nvert; ++v) vertices[ix(v)] = local_vertex(own.EToV[ix(i)][ix(v)]);
    mesh.EToV.push_back(vertices);
    mesh.element_region.push_back(own.element_region[ix(i)]);
    if (lattice > 0) {
      const auto first = own.element_nodes.begin() + static_cast<std::ptrdiff_t>(ix(i) * ix(lattice));
      mesh.element_nodes.insert(mesh.element_nodes.end(), first, first + lattice);
    }
    std::array<int, 4> etoe{-1, -1, -1, -1};
    std::array<int, 4> etof{-1, -1, -1, -1};
    FaceVertexMatch match = own.face_vertex_match[ix(i)];
    for (int f = 0; f < nfaces; ++f) {
      const int k2 = own.EToE[ix(i)][ix(f)];
      const int f2 = own.EToF[ix(i)][ix(f)];
      const int owner = own.neighbour_part[ix(i)][ix(f)];
      if (owner == rank) {  // a boundary face (k2 == k) or a local neighbour
        etoe[ix(f)] = row_local[ix(row_of(k2))];
        etof[ix(f)] = f2;
        continue;
      }
      HaloFace halo;
      halo.element = lk;
      halo.face = f;
      halo.rank = owner;
      halo.neighbour_element = k2;
      halo.neighbour_face = f2;
      for (int v = 0; v < nfv; ++v) halo.vertex_match[ix(v)] = match[ix(f)][ix(v)];
      if (const PeriodicFace* p = periodic_of(k, f)) {
        halo.periodic = true;
        halo.group = p->group;
        halo.shift = p->shift;
      }
      local.halo_faces.push_back(halo);
      // Locally the face points to itself: the exterior trace comes from the halo.
      etoe[ix(f)] = lk;
      etof[ix(f)] = f;
      for (int v = 0; v < nfv; ++v) match[ix(f)][ix(v)] = static_cast<std::int8_t>(v);
    }
    mesh.EToE.push_back(etoe);
    mesh.EToF.push_back(etof);
    mesh.face_vertex_match.push_back(match);
  }

  // Sorted by local (element, face), as the Mesh conventions ask.
  for (const BoundaryFace& b : own.boundary_faces)
    mesh.boundary_faces.push_back({row_local[ix(row_of(b.element))], b.face, b.group});
  for (const PeriodicFace& p : own.periodic_faces) {
    const int i = row_of(p.element);
    if (own.neighbour_part[ix(i)][ix(p.face)] == rank)
      mesh.periodic_faces.push_back({row_local[ix(i)], p.face, p.group, p.shift});
  }
  std::sort(mesh.boundary_faces.begin(), mesh.boundary_faces.end(), by_face);
  std::sort(mesh.periodic_faces.begin(), mesh.periodic_faces.end(), by_face);

  std::sort(local.halo_faces.begin(), local.halo_faces.end(),
            [&](const HaloFace& a, const HaloFace& b) { return halo_less(local, a, b); });
  for (int i = 0; i < local.num_halo_faces(); ++i) {
    const int neighbour = local.halo_faces[ix(i)].rank;
    if (local.neighbours.empty() || local.neighbours.back().rank != neighbour) local.neighbours.push_back({neighbour, i, 0});
    ++local.neighbours.back().count;
  }
  return local;
}

}  // namespace detail

LocalMesh build_local_mesh(const Mesh& global, const Partition& partition, int rank, std::string_view source) {
  const int K = global.num_elements();
  check_partition(partition, K, source);
  if (rank < 0 || rank >= partition.parts) {
    fail(source, "rank " + std::to_string(rank) + " of a partition into " + std::to_string(partition.parts) + " parts");
  }
  const std::vector<int>& part = partition.element_part;
  detail::OwnElements own;
  own.rank = rank;
  own.parts = partition.parts;
  own.global_elements = K;
  own.global_vertices = global.num_vertices();
  own.dim = global.dim;
  own.type = global.type;
  own.geometry_order = global.geometry_order;
  own.boundary_names = global.boundary_names;
  own.region_names = global.region_names;
  own.periodic_pairs = global.periodic_pairs;
  const int lattice = global.geometry_order > 1 ? lattice_size(global.dim, global.geometry_order) : 0;
  for (int k = 0; k < K; ++k) {
    if (part[ix(k)] != rank) continue;
    own.global.push_back(k);
    own.EToV.push_back(global.EToV[ix(k)]);
    own.EToE.push_back(global.EToE[ix(k)]);
    own.EToF.push_back(global.EToF[ix(k)]);
    own.face_vertex_match.push_back(global.face_vertex_match[ix(k)]);
    own.element_region.push_back(global.element_region[ix(k)]);
    std::array<int, 4> parts{-1, -1, -1, -1};
    for (int f = 0; f < global.num_faces(); ++f) parts[ix(f)] = part[ix(global.EToE[ix(k)][ix(f)])];
    own.neighbour_part.push_back(parts);
    if (lattice > 0) {
      const std::array<double, 3>* X = element_geometry_nodes(global, k);
      own.element_nodes.insert(own.element_nodes.end(), X, X + lattice);
    }
    for (int v = 0; v < global.num_element_vertices(); ++v) own.vertex_global.push_back(global.EToV[ix(k)][ix(v)]);
  }
  std::sort(own.vertex_global.begin(), own.vertex_global.end());
  own.vertex_global.erase(std::unique(own.vertex_global.begin(), own.vertex_global.end()), own.vertex_global.end());
  for (const int v : own.vertex_global) own.vertices.push_back(global.vertices[ix(v)]);
  for (const BoundaryFace& b : global.boundary_faces)
    if (part[ix(b.element)] == rank) own.boundary_faces.push_back(b);
  for (const PeriodicFace& p : global.periodic_faces)
    if (part[ix(p.element)] == rank) own.periodic_faces.push_back(p);
  return detail::assemble_local_mesh(std::move(own));
}

void validate_local(const LocalMesh& local, std::string_view source) {
  const Mesh& mesh = local.mesh;
  const int K = mesh.num_elements();
  if (local.parts < 1 || local.rank < 0 || local.rank >= local.parts) {
    fail(source, "rank " + std::to_string(local.rank) + " of " + std::to_string(local.parts) + " parts");
  }
  // `restart`: the entry where ascending order starts again (the elements with halo faces).
  const auto check_map = [&](const std::vector<int>& map, int local_size, int global_size, const char* what,
                             std::size_t restart) {
    if (map.size() != ix(local_size)) {
      fail(source, std::string(what) + " map has " + std::to_string(map.size()) + " entries for " +
                       std::to_string(local_size) + " local " + what + "s");
    }
    for (std::size_t i = 0; i < map.size(); ++i) {
      if (map[i] < 0 || map[i] >= global_size || (i > 0 && i != restart && map[i] <= map[i - 1])) {
        fail(source, std::string(what) + " map: entry " + std::to_string(i) + " = " + std::to_string(map[i]) +
                         " is out of range (" + std::to_string(global_size) + " global) or not ascending");
      }
    }
  };
  if (local.interior_elements < 0 || local.interior_elements > K)
    fail(source, "interior_elements = " + std::to_string(local.interior_elements) + " of " + std::to_string(K));
  check_map(local.element_global, K, local.global_elements, "element", ix(local.interior_elements));
  check_map(local.vertex_global, mesh.num_vertices(), local.global_vertices, "vertex", 0);
  // The halo faces: own faces pointing to themselves, in range, sorted, covered by neighbours.
  const int nfaces = mesh.num_faces();
  const int nfv = mesh.num_face_vertices();
  const int ngroups = static_cast<int>(mesh.boundary_names.size());
  Mesh with_halo = mesh;  // halo faces as boundary faces of an extra group, for validate()
  const int halo_group = ngroups;
  with_halo.boundary_names.push_back("<halo>");
  for (int i = 0; i < local.num_halo_faces(); ++i) {
    const HaloFace& h = local.halo_faces[ix(i)];
    const std::string where = "halo face " + std::to_string(i);
    if (h.element < 0 || h.element >= K || h.face < 0 || h.face >= nfaces) {
      fail(source, where + " (local element " + std::to_string(h.element) + ", face " + std::to_string(h.face) +
                       ") is out of range");
    }
    if (mesh.EToE[ix(h.element)][ix(h.face)] != h.element || mesh.EToF[ix(h.element)][ix(h.face)] != h.face) {
      fail(source, where + ": " + face_name(h.element, h.face) + " has a local neighbour");
    }
    if (h.rank < 0 || h.rank >= local.parts || h.rank == local.rank) {
      fail(source, where + " has neighbour rank " + std::to_string(h.rank) + " (this is rank " +
                       std::to_string(local.rank) + " of " + std::to_string(local.parts) + ")");
    }
    if (h.neighbour_element < 0 || h.neighbour_element >= local.global_elements || h.neighbour_face < 0 ||
        h.neighbour_face >= nfaces) {
      fail(source, where + " has neighbour (global element " + std::to_string(h.neighbour_element) + ", face " +
                       std::to_string(h.neighbour_face) + ") out of range");
    }
    std::array<bool, 3> seen{};
    for (int v = 0; v < 3; ++v) {
      const int j = h.vertex_match[ix(v)];
      const bool ok = v < nfv ? (j >= 0 && j < nfv && !seen[ix(j)]) : j == -1;
      if (!ok) fail(source, where + ": vertex_match is not a vertex permutation");
      if (v < nfv) seen[ix(j)] = true;
    }
    if (h.periodic != (h.group >= 0) || h.group >= ngroups) {
      fail(source, where + ": periodic " + std::to_string(h.periodic) + " with group " + std::to_string(h.group));
    }
    if (i > 0 && !halo_less(local, local.halo_faces[ix(i - 1)], h)) {
      fail(source, where + " is out of the agreed order (neighbour rank, then (global element, face) of the lower rank's side)");
    }
    with_halo.boundary_faces.push_back({h.element, h.face, halo_group});
  }
  int next = 0;
  for (std::size_t n = 0; n < local.neighbours.size(); ++n) {
    const HaloNeighbour& neighbour = local.neighbours[n];
    if (neighbour.first != next || neighbour.count < 1) {
      fail(source, "neighbour rank " + std::to_string(neighbour.rank) + " covers halo faces [" +
                       std::to_string(neighbour.first) + ", +" + std::to_string(neighbour.count) +
                       "); expected a non-empty range from " + std::to_string(next));
    }
    for (int i = neighbour.first; i < neighbour.first + neighbour.count && i < local.num_halo_faces(); ++i) {
      if (local.halo_faces[ix(i)].rank != neighbour.rank) {
        fail(source, "halo face " + std::to_string(i) + " is in the range of rank " + std::to_string(neighbour.rank) +
                         " but faces rank " + std::to_string(local.halo_faces[ix(i)].rank));
      }
    }
    next += neighbour.count;
  }
  if (next != local.num_halo_faces()) {
    fail(source, "the neighbours cover " + std::to_string(next) + " of " + std::to_string(local.num_halo_faces()) +
                     " halo faces");
  }

  std::sort(with_halo.boundary_faces.begin(), with_halo.boundary_faces.end(),
            [](const BoundaryFace& a, const BoundaryFace& b) {
              return std::pair(a.element, a.face) < std::pair(b.element, b.face);
            });
  validate(with_halo, std::string(source) + " (rank " + std::to_string(local.rank) + ")", Validation::full);

  // The two element groups: without halo faces, then with (checked last: a missing halo face
  // is reported above as the unlisted face it is).
  std::vector<char> has_halo(ix(K), 0);
  for (const HaloFace& h : local.halo_faces)
    if (h.element >= 0 && h.element < K) has_halo[ix(h.element)] = 1;
  for (int k = 0; k < K; ++k)
    if ((k < local.interior_elements) == (has_halo[ix(k)] != 0))
      fail(source, "element " + std::to_string(k) + (has_halo[ix(k)] ? " has" : " has no") + " halo face but is " +
                       (k < local.interior_elements ? "before" : "at or after") + " interior_elements = " +
                       std::to_string(local.interior_elements));
}

}  // namespace rtdg::mesh
