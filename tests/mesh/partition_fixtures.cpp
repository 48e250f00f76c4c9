#include "partition_fixtures.hpp"

#include "fixtures.hpp"

#include <mesh/build.hpp>
#include <mesh/error.hpp>
#include <mesh/hdf5_io.hpp>

#include <algorithm>
#include <map>
#include <optional>

namespace rtdg::mesh::testing {
namespace {

std::size_t ix(int i) { return static_cast<std::size_t>(i); }

Mesh periodic(RawMesh raw, const std::vector<std::pair<std::string, std::string>>& pairs) {
  for (const auto& [a, b] : pairs) raw.periodic.push_back({group(raw, a), group(raw, b), std::nullopt});
  return build_mesh(std::move(raw));
}

std::string face_text(int k, int f) { return "face " + std::to_string(f) + " of element " + std::to_string(k); }

}  // namespace

Mesh shipped_sphere() { return read_hdf5(std::filesystem::path(RTDG_MESHES_DIR) / "sphere.h5"); }

std::vector<NamedMesh> partition_test_meshes() {
  std::vector<NamedMesh> meshes;
  meshes.push_back({"square 8x8 walls", build_mesh(structured_square(8, true))});
  meshes.push_back({"square 6x6 periodic x and y", periodic(structured_square(6), {{"xmin", "xmax"}, {"ymin", "ymax"}})});
  meshes.push_back({"square 2x2 periodic x and y", periodic(structured_square(2), {{"xmin", "xmax"}, {"ymin", "ymax"}})});
  meshes.push_back({"cube 3x3x3 periodic x", periodic(structured_cube(3), {{"xmin", "xmax"}})});
  meshes.push_back({"cube 2x2x2 periodic x, y and z",
                    periodic(structured_cube(2), {{"xmin", "xmax"}, {"ymin", "ymax"}, {"zmin", "zmax"}})});
  meshes.push_back({"sphere.h5", shipped_sphere()});
  return meshes;
}

std::string check_local_meshes(const Mesh& global, const Partition& partition, const std::vector<LocalMesh>& locals) {
  const int K = global.num_elements();
  const int nfaces = global.num_faces();
  const int nfv = global.num_face_vertices();
  if (static_cast<int>(locals.size()) != partition.parts) return "one local mesh per part expected";
  for (const LocalMesh& local : locals) {
    try {
      validate_local(local, "local mesh");
    } catch (const MeshError& error) {
      return error.what();
    }
  }

  // Elements: each on exactly one rank, the one the partition names, with its vertices.
  std::vector<std::pair<int, int>> where(ix(K), {-1, -1});  // global element -> (rank, local element)
  for (int r = 0; r < partition.parts; ++r) {
    const LocalMesh& local = locals[ix(r)];
    if (local.rank != r || local.parts != partition.parts || local.global_elements != K ||
        local.global_vertices != global.num_vertices()) {
      return "rank " + std::to_string(r) + ": wrong rank, part count or global sizes";
    }
    for (int lk = 0; lk < local.mesh.num_elements(); ++lk) {
      const int k = local.element_global[ix(lk)];
      if (where[ix(k)].first >= 0) return "element " + std::to_string(k) + " is on two ranks";
      if (partition.element_part[ix(k)] != r) return "element " + std::to_string(k) + " is on the wrong rank";
      where[ix(k)] = {r, lk};
      for (int i = 0; i < 4; ++i) {
        const int lv = local.mesh.EToV[ix(lk)][ix(i)];
        const int v = global.EToV[ix(k)][ix(i)];
        if ((lv < 0 ? -1 : local.vertex_global[ix(lv)]) != v) {
          return "rank " + std::to_string(r) + ": vertex " + std::to_string(i) + " of element " + std::to_string(k);
        }
        if (v >= 0 && local.mesh.vertices[ix(lv)] != global.vertices[ix(v)]) return "coordinates of vertex " + std::to_string(v);
      }
      if (local.mesh.element_region[ix(lk)] != global.element_region[ix(k)]) return "region of element " + std::to_string(k);
    }
    if (local.mesh.boundary_names != global.boundary_names || local.mesh.region_names != global.region_names ||
        local.mesh.periodic_pairs != global.periodic_pairs) {
      return "rank " + std::to_string(r) + ": group names or periodic pairs differ from the global mesh";
    }
  }
  for (int k = 0; k < K; ++k) {
    if (where[ix(k)].first < 0) return "element " + std::to_string(k) + " is on no rank";
  }

  std::map<std::pair<int, int>, int> global_group;  // (element, face) -> boundary group
  for (const BoundaryFace& b : global.boundary_faces) global_group[{b.element, b.face}] = b.group;
  std::map<std::pair<int, int>, PeriodicFace> global_periodic;
  for (const PeriodicFace& p : global.periodic_faces) global_periodic[{p.element, p.face}] = p;

  std::size_t boundary = 0, periodic_local = 0, halo = 0;
  for (int k = 0; k < K; ++k) {
    // (No structured bindings: clang 14 cannot capture them in the lambdas below.)
    const int r = where[ix(k)].first;
    const int lk = where[ix(k)].second;
    const LocalMesh& local = locals[ix(r)];
    const Mesh& m = local.mesh;
    for (int f = 0; f < nfaces; ++f) {
      const std::string name = face_text(k, f) + " (rank " + std::to_string(r) + ")";
      const int k2 = global.EToE[ix(k)][ix(f)];
      const int f2 = global.EToF[ix(k)][ix(f)];
      const int r2 = where[ix(k2)].first;
      const int lk2 = where[ix(k2)].second;
      const auto periodic = global_periodic.find({k, f});
      if (k2 == k) {
        ++boundary;
        const BoundaryFace expected{lk, f, global_group.at({k, f})};
        if (m.EToE[ix(lk)][ix(f)] != lk ||
            std::find(m.boundary_faces.begin(), m.boundary_faces.end(), expected) == m.boundary_faces.end()) {
          return name + ": a boundary face that is not a boundary face of its group locally";
        }
        continue;
      }
      if (r2 == r) {
        if (m.EToE[ix(lk)][ix(f)] != lk2 || m.EToF[ix(lk)][ix(f)] != f2 ||
            m.face_vertex_match[ix(lk)][ix(f)] != global.face_vertex_match[ix(k)][ix(f)]) {
          return name + ": local connectivity differs from the global";
        }
        const auto it = std::find_if(m.periodic_faces.begin(), m.periodic_faces.end(),
                                     [&](const PeriodicFace& p) { return p.element == lk && p.face == f; });
        if ((it != m.periodic_faces.end()) != (periodic != global_periodic.end())) return name + ": periodic or not";
        if (it != m.periodic_faces.end()) {
          ++periodic_local;
          if (it->group != periodic->second.group || it->shift != periodic->second.shift) return name + ": periodic record";
        }
        continue;
      }
      // A halo face: listed once on this rank, at the position the neighbour lists its side.
      ++halo;
      int index = -1;
      for (int i = 0; i < local.num_halo_faces(); ++i) {
        const HaloFace& h = local.halo_faces[ix(i)];
        if (h.element != lk || h.face != f) continue;
        if (index >= 0) return name + ": listed twice among the halo faces";
        index = i;
      }
      if (index < 0) return name + ": its neighbour is on rank " + std::to_string(r2) + " but it is no halo face";
      const HaloFace& h = local.halo_faces[ix(index)];
      if (m.EToE[ix(lk)][ix(f)] != lk || m.EToF[ix(lk)][ix(f)] != f) return name + ": a halo face must point to itself";
      if (h.rank != r2 || h.neighbour_element != k2 || h.neighbour_face != f2) return name + ": wrong neighbour";
      for (int i = 0; i < 3; ++i) {
        const int expected = i < nfv ? global.face_vertex_match[ix(k)][ix(f)][ix(i)] : -1;
        if (h.vertex_match[ix(i)] != expected) return name + ": vertex_match differs from the global face_vertex_match";
      }
      if (h.periodic != (periodic != global_periodic.end())) return name + ": periodic or not";
      if (h.periodic && (h.group != periodic->second.group || h.shift != periodic->second.shift)) {
        return name + ": periodic group or shift";
      }
      const auto mine = std::find_if(local.neighbours.begin(), local.neighbours.end(),
                                     [&](const HaloNeighbour& n) { return n.rank == r2; });
      const LocalMesh& other = locals[ix(r2)];
      const auto theirs = std::find_if(other.neighbours.begin(), other.neighbours.end(),
                                       [&](const HaloNeighbour& n) { return n.rank == r; });
      if (mine == local.neighbours.end() || theirs == other.neighbours.end() || mine->count != theirs->count) {
        return name + ": ranks " + std::to_string(r) + " and " + std::to_string(r2) + " disagree on their shared faces";
      }
      const HaloFace& g = other.halo_faces[ix(theirs->first + (index - mine->first))];
      if (g.element != lk2 || g.face != f2 || g.rank != r || g.neighbour_element != k || g.neighbour_face != f) {
        return name + ": rank " + std::to_string(r2) + " lists another face at its position of the agreed order";
      }
      for (int i = 0; i < nfv; ++i) {
        if (g.vertex_match[ix(h.vertex_match[ix(i)])] != i) return name + ": the two sides' vertex matches are not inverse";
      }
      for (std::size_t d = 0; d < 3; ++d) {
        if (g.periodic != h.periodic || g.shift[d] != -h.shift[d]) return name + ": the two sides' shifts are not opposite";
      }
    }
  }

  // Every local record was matched above; the totals rule out extra ones.
  std::size_t local_boundary = 0, local_periodic = 0, local_halo = 0;
  for (const LocalMesh& local : locals) {
    local_boundary += local.mesh.boundary_faces.size();
    local_periodic += local.mesh.periodic_faces.size();
    local_halo += local.halo_faces.size();
  }
  if (local_boundary != boundary || boundary != global.boundary_faces.size()) return "boundary face count";
  if (local_periodic != periodic_local) return "periodic face count";
  if (local_halo != halo) return "halo face count";
  return "";
}

}  // namespace rtdg::mesh::testing
