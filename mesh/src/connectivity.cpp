// Face connectivity by shared vertex sets (sort, then scan runs of equal keys), and the
// face-vertex permutations between neighbours.
#include "connectivity.hpp"

#include "text.hpp"
#include "vec3.hpp"

#include <algorithm>
#include <limits>

namespace rtdg::mesh::detail {

FaceKey sorted_key(std::array<int, 3> vertices, int nfv) {
  // Three compare-swaps sort up to 3 entries (std::sort on a 3-array trips GCC 12's
  // -Warray-bounds).
  const auto order = [&](std::size_t i, std::size_t j) {
    if (vertices[j] < vertices[i]) std::swap(vertices[i], vertices[j]);
  };
  order(0, 1);
  if (nfv == 3) {
    order(1, 2);
    order(0, 1);
  }
  for (std::size_t i = ix(nfv); i < 3; ++i) vertices[i] = -1;
  return vertices;
}

FaceKey face_key(const Mesh& mesh, int k, int f) {
  const auto& local = face_vertices(mesh.type)[ix(f)];
  const auto& element = mesh.EToV[ix(k)];
  std::array<int, 3> vertices{-1, -1, -1};
  for (std::size_t i = 0; i < ix(mesh.num_face_vertices()); ++i) {
    vertices[i] = element[ix(local[i])];
  }
  return sorted_key(vertices, mesh.num_face_vertices());
}

FaceIndex::FaceIndex(const Mesh& mesh) {
  const int nfaces = mesh.num_faces();
  entries_.reserve(ix(mesh.num_elements() * nfaces));
  for (int k = 0; k < mesh.num_elements(); ++k) {
    for (int f = 0; f < nfaces; ++f) entries_.emplace_back(face_key(mesh, k, f), k * 4 + f);
  }
  std::sort(entries_.begin(), entries_.end());
}

std::pair<const int*, const int*> FaceIndex::find(const FaceKey& key) const {
  const auto by_key = [](const std::pair<FaceKey, int>& entry, const FaceKey& value) {
    return entry.first < value;
  };
  auto first = std::lower_bound(entries_.begin(), entries_.end(), key, by_key);
  auto last = first;
  while (last != entries_.end() && last->first == key) ++last;
  if (first == last) return {nullptr, nullptr};
  return {&first->second, &first->second + (last - first)};
}

void connect_faces(Mesh& mesh, const FaceIndex& faces, const std::string& source,
                   const std::vector<std::size_t>& element_tags) {
  const std::size_t K = ix(mesh.num_elements());
  mesh.EToE.assign(K, {-1, -1, -1, -1});
  mesh.EToF.assign(K, {-1, -1, -1, -1});
  const auto& entries = faces.entries();
  for (std::size_t first = 0; first < entries.size();) {
    std::size_t last = first + 1;
    while (last < entries.size() && entries[last].first == entries[first].first) ++last;
    const int count = static_cast<int>(last - first);
    if (count > 2) {
      std::string elements;
      for (std::size_t i = first; i < last; ++i) {
        const int k = entries[i].second / 4;
        elements += (i > first ? ", " : "") + std::to_string(k);
        if (!element_tags.empty()) elements += " (file element " + std::to_string(element_tags[ix(k)]) + ")";
      }
      const FaceKey& key = entries[first].first;
      std::string points;
      for (std::size_t i = 0; i < ix(mesh.num_face_vertices()); ++i) {
        points += " " + format_point(mesh.vertices[ix(key[i])]);
      }
      fail(source, "the face with vertices " + format_indices(key.data(), mesh.num_face_vertices()) +
                       " at" + points + " is shared by " + std::to_string(count) +
                       " elements: " + elements +
                       "; a conforming mesh shares each face between at most two elements "
                       "(duplicated elements, or an element in two physical groups?)");
    }
    const int a = entries[first].second;
    const int b = count == 2 ? entries[first + 1].second : a;
    mesh.EToE[ix(a / 4)][ix(a % 4)] = b / 4;
    mesh.EToF[ix(a / 4)][ix(a % 4)] = b % 4;
    mesh.EToE[ix(b / 4)][ix(b % 4)] = a / 4;
    mesh.EToF[ix(b / 4)][ix(b % 4)] = a % 4;
    first = last;
  }
}

std::vector<std::pair<bool, std::array<double, 3>>> periodic_shifts(const Mesh& mesh) {
  std::vector<std::pair<bool, std::array<double, 3>>> shifts(ix(mesh.num_elements() * 4),
                                                             {false, {0.0, 0.0, 0.0}});
  for (const PeriodicFace& face : mesh.periodic_faces) {
    shifts[ix(face.element * 4 + face.face)] = {true, face.shift};
  }
  return shifts;
}

void match_face_vertices(Mesh& mesh) {
  const auto shifts = periodic_shifts(mesh);
  const auto& local = face_vertices(mesh.type);
  const int nfv = mesh.num_face_vertices();
  mesh.face_vertex_match.assign(ix(mesh.num_elements()), FaceVertexMatch{});
  for (int k = 0; k < mesh.num_elements(); ++k) {
    FaceVertexMatch& match = mesh.face_vertex_match[ix(k)];
    for (auto& row : match) row.fill(-1);
    for (int f = 0; f < mesh.num_faces(); ++f) {
      const int k2 = mesh.EToE[ix(k)][ix(f)];
      const int f2 = mesh.EToF[ix(k)][ix(f)];
      const auto& [periodic, shift] = shifts[ix(k * 4 + f)];
      for (int i = 0; i < nfv; ++i) {
        const int v = mesh.EToV[ix(k)][ix(local[ix(f)][ix(i)])];
        // The neighbour vertex that is v (interior) or nearest to x_v + shift (periodic).
        int best = -1;
        double best_distance = std::numeric_limits<double>::infinity();
        for (int j = 0; j < nfv; ++j) {
          const int w = mesh.EToV[ix(k2)][ix(local[ix(f2)][ix(j)])];
          const double d = periodic ? distance(add(mesh.vertices[ix(v)], shift), mesh.vertices[ix(w)])
                                    : (v == w ? 0.0 : std::numeric_limits<double>::infinity());
          if (d < best_distance) {
            best = j;
            best_distance = d;
          }
        }
        match[ix(f)][ix(i)] = static_cast<std::int8_t>(best);
      }
    }
  }
}

}  // namespace rtdg::mesh::detail
