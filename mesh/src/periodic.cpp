// Periodic boundaries by translation: the faces of group b are the faces of group a moved by
// the shift. Vertices are matched by coordinates (within a tolerance relative to the mesh
// size), faces by their matched vertex sets; the matched faces are then connected in
// EToE/EToF like interior faces.
#include "connectivity.hpp"

#include "text.hpp"
#include "vec3.hpp"

#include <algorithm>
#include <map>

namespace rtdg::mesh::detail {
namespace {

// The boundary slots of one group, and its distinct vertices.
struct GroupFaces {
  std::vector<int> slots;
  std::vector<int> vertices;
};

GroupFaces collect(const Mesh& mesh, const std::vector<int>& face_group, int group) {
  GroupFaces out;
  const auto& local = face_vertices(mesh.type);
  for (int slot = 0; slot < static_cast<int>(face_group.size()); ++slot) {
    const int k = slot / 4;
    const int f = slot % 4;
    if (face_group[ix(slot)] != group || mesh.EToE[ix(k)][ix(f)] != k) continue;
    out.slots.push_back(slot);
    for (int i = 0; i < mesh.num_face_vertices(); ++i) {
      out.vertices.push_back(mesh.EToV[ix(k)][ix(local[ix(f)][ix(i)])]);
    }
  }
  std::sort(out.vertices.begin(), out.vertices.end());
  out.vertices.erase(std::unique(out.vertices.begin(), out.vertices.end()), out.vertices.end());
  return out;
}

Vec3 centroid(const Mesh& mesh, const std::vector<int>& vertices) {
  Vec3 sum{0.0, 0.0, 0.0};
  for (int v : vertices) sum = add(sum, mesh.vertices[ix(v)]);
  return scale(sum, 1.0 / static_cast<double>(vertices.size()));
}

double bounding_box_diagonal(const Mesh& mesh) {
  Vec3 lo = mesh.vertices.front();
  Vec3 hi = lo;
  for (const Vec3& x : mesh.vertices) {
    for (std::size_t d = 0; d < 3; ++d) {
      lo[d] = std::min(lo[d], x[d]);
      hi[d] = std::max(hi[d], x[d]);
    }
  }
  return distance(lo, hi);
}

// For each vertex of b, the vertex of a at x_b - shift (within tolerance), found through a
// list of a's vertices sorted by x.
std::map<int, int> match_vertices(const Mesh& mesh, const GroupFaces& a, const GroupFaces& b,
                                  const Vec3& shift, double tolerance, const std::string& where) {
  std::vector<std::pair<double, int>> by_x;
  for (int v : a.vertices) by_x.emplace_back(mesh.vertices[ix(v)][0], v);
  std::sort(by_x.begin(), by_x.end());
  std::map<int, int> b_to_a;
  for (int v : b.vertices) {
    const Vec3 target = sub(mesh.vertices[ix(v)], shift);
    auto it = std::lower_bound(by_x.begin(), by_x.end(), std::make_pair(target[0] - tolerance, -1));
    int found = -1;
    for (; it != by_x.end() && it->first <= target[0] + tolerance; ++it) {
      if (distance(mesh.vertices[ix(it->second)], target) <= tolerance) {
        found = it->second;
        break;
      }
    }
    if (found < 0) {
      fail(where,
           "vertex " + std::to_string(v) + " at " + format_point(mesh.vertices[ix(v)]) +
               " has no partner at " + format_point(target) +
               "; the two sides must be meshed identically (Gmsh: Periodic Curve/Surface ... "
               "Translate{...})");
    }
    b_to_a[v] = found;
  }
  return b_to_a;
}

}  // namespace

void link_periodic(Mesh& mesh, const std::vector<int>& face_group,
                   const std::vector<PeriodicSpec>& specs, const std::string& source) {
  const int ngroups = static_cast<int>(mesh.boundary_names.size());
  const auto& local = face_vertices(mesh.type);
  const int nfv = mesh.num_face_vertices();
  std::vector<int> used_by(ix(ngroups), -1);  // group -> index of the spec that uses it
  for (std::size_t s = 0; s < specs.size(); ++s) {
    const PeriodicSpec& spec = specs[s];
    for (int group : {spec.group_a, spec.group_b}) {
      if (group < 0 || group >= ngroups) {
        fail(source, "periodic pair " + std::to_string(s) + " names boundary group " +
                         std::to_string(group) + ", but there are " + std::to_string(ngroups));
      }
    }
    const std::string& name_a = mesh.boundary_names[ix(spec.group_a)];
    const std::string& name_b = mesh.boundary_names[ix(spec.group_b)];
    const std::string where = source + ": periodic pair '" + name_a + "' -> '" + name_b + "'";
    if (spec.group_a == spec.group_b) {
      fail(where, "the two sides must be different physical groups");
    }
    for (int group : {spec.group_a, spec.group_b}) {
      if (used_by[ix(group)] >= 0) {
        fail(where, "group '" + mesh.boundary_names[ix(group)] +
                        "' is already periodic in another pair; give each periodic side its own "
                        "physical group");
      }
      used_by[ix(group)] = static_cast<int>(s);
    }
    const GroupFaces a = collect(mesh, face_group, spec.group_a);
    const GroupFaces b = collect(mesh, face_group, spec.group_b);
    if (a.slots.empty() || b.slots.empty()) {
      fail(where, "group '" + (a.slots.empty() ? name_a : name_b) + "' has no boundary faces");
    }
    if (a.slots.size() != b.slots.size()) {
      fail(where, "'" + name_a + "' has " + std::to_string(a.slots.size()) + " faces and '" +
                      name_b + "' has " + std::to_string(b.slots.size()) +
                      "; the two sides must be meshed identically");
    }
    const Vec3 shift = spec.shift ? *spec.shift : sub(centroid(mesh, b.vertices), centroid(mesh, a.vertices));
    const std::string where_shift = where + " (shift " + format_point(shift) + ")";
    const double tolerance = kPeriodicTolerance * bounding_box_diagonal(mesh);
    const std::map<int, int> b_to_a = match_vertices(mesh, a, b, shift, tolerance, where_shift);

    std::map<FaceKey, int> a_by_key;
    for (int slot : a.slots) a_by_key.emplace(face_key(mesh, slot / 4, slot % 4), slot);
    for (int slot_b : b.slots) {
      const int kb = slot_b / 4;
      const int fb = slot_b % 4;
      std::array<int, 3> mapped{-1, -1, -1};
      for (int i = 0; i < nfv; ++i) {
        mapped[ix(i)] = b_to_a.at(mesh.EToV[ix(kb)][ix(local[ix(fb)][ix(i)])]);
      }
      const auto it = a_by_key.find(sorted_key(mapped, nfv));
      if (it == a_by_key.end() || it->second < 0) {
        std::array<int, 3> own{-1, -1, -1};
        for (int i = 0; i < nfv; ++i) own[ix(i)] = mesh.EToV[ix(kb)][ix(local[ix(fb)][ix(i)])];
        fail(where_shift, "face " + std::to_string(fb) + " of element " + std::to_string(kb) +
                              " (vertices " + format_indices(own.data(), nfv) + ") of '" + name_b +
                              "' has no partner face in '" + name_a +
                              "'; the two sides must be meshed identically");
      }
      const int slot_a = it->second;
      it->second = -1;  // each face of a pairs once
      const int ka = slot_a / 4;
      const int fa = slot_a % 4;
      mesh.EToE[ix(ka)][ix(fa)] = kb;
      mesh.EToF[ix(ka)][ix(fa)] = fb;
      mesh.EToE[ix(kb)][ix(fb)] = ka;
      mesh.EToF[ix(kb)][ix(fb)] = fa;
      mesh.periodic_faces.push_back({ka, fa, spec.group_a, shift});
      mesh.periodic_faces.push_back({kb, fb, spec.group_b, sub(Vec3{0.0, 0.0, 0.0}, shift)});
    }
    mesh.periodic_pairs.push_back({spec.group_a, spec.group_b, shift});
  }
  std::sort(mesh.periodic_faces.begin(), mesh.periodic_faces.end(),
            [](const PeriodicFace& x, const PeriodicFace& y) {
              return std::pair(x.element, x.face) < std::pair(y.element, y.face);
            });
}

}  // namespace rtdg::mesh::detail
