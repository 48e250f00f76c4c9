// validate(): the Mesh conventions of mesh.hpp, checked one by one; the first violation is
// thrown with the element, face and group it concerns.
#include "mesh/error.hpp"
#include "mesh/geometry_nodes.hpp"
#include "mesh/mesh.hpp"

#include "connectivity.hpp"
#include "text.hpp"
#include "vec3.hpp"

#include <algorithm>
#include <cmath>

namespace rtdg::mesh {
namespace {

using detail::fail;
using detail::ix;
using detail::Vec3;

std::string face_name(int k, int f) {
  return "face " + std::to_string(f) + " of element " + std::to_string(k);
}

void check_sizes(const Mesh& mesh, std::string_view source) {
  if (mesh.dim != 2 && mesh.dim != 3) fail(source, "dimension " + std::to_string(mesh.dim) + " (must be 2 or 3)");
  if ((mesh.dim == 2) != (mesh.type == ElementType::triangle)) {
    fail(source, std::to_string(mesh.dim) + "D mesh with " + std::string(to_string(mesh.type)) + " elements");
  }
  const std::size_t K = mesh.EToV.size();
  if (K == 0) fail(source, "the mesh is empty: it has no elements");
  const auto check = [&](std::size_t size, const char* what) {
    if (size != K) {
      fail(source, std::string(what) + " has " + std::to_string(size) + " rows for " + std::to_string(K) + " elements");
    }
  };
  check(mesh.EToE.size(), "EToE");
  check(mesh.EToF.size(), "EToF");
  check(mesh.face_vertex_match.size(), "face_vertex_match");
  check(mesh.element_region.size(), "element_region");
}

void check_elements(const Mesh& mesh, std::string_view source) {
  const int Nv = mesh.num_vertices();
  const int nvert = mesh.num_element_vertices();
  const int nregions = static_cast<int>(mesh.region_names.size());
  for (int k = 0; k < mesh.num_elements(); ++k) {
    for (int i = 0; i < 4; ++i) {
      const int v = mesh.EToV[ix(k)][ix(i)];
      if (i < nvert ? (v < 0 || v >= Nv) : v != -1) {
        fail(source, "EToV[" + std::to_string(k) + "][" + std::to_string(i) + "] = " + std::to_string(v) +
                         " (" + std::to_string(Nv) + " vertices" + (i < nvert ? ")" : "; unused entries are -1)"));
      }
    }
    const int region = mesh.element_region[ix(k)];
    if (region < 0 || region >= nregions) {
      fail(source, "element " + std::to_string(k) + " has region " + std::to_string(region) + " of " +
                       std::to_string(nregions));
    }
  }
}

void check_connectivity(const Mesh& mesh, std::string_view source) {
  const int K = mesh.num_elements();
  const int nfaces = mesh.num_faces();
  const int nfv = mesh.num_face_vertices();
  for (int k = 0; k < K; ++k) {
    for (int f = 0; f < 4; ++f) {
      const int k2 = mesh.EToE[ix(k)][ix(f)];
      const int f2 = mesh.EToF[ix(k)][ix(f)];
      if (f >= nfaces) {
        if (k2 != -1 || f2 != -1) fail(source, "EToE/EToF of element " + std::to_string(k) + " past its faces must be -1");
        continue;
      }
      if (k2 < 0 || k2 >= K || f2 < 0 || f2 >= nfaces) {
        fail(source, face_name(k, f) + " has neighbour EToE = " + std::to_string(k2) + ", EToF = " + std::to_string(f2) +
                         ", out of range");
      }
      if (mesh.EToE[ix(k2)][ix(f2)] != k || mesh.EToF[ix(k2)][ix(f2)] != f) {
        fail(source, "connectivity is not symmetric: " + face_name(k, f) + " points to " + face_name(k2, f2) +
                         ", which points to " + face_name(mesh.EToE[ix(k2)][ix(f2)], mesh.EToF[ix(k2)][ix(f2)]));
      }
      if (k2 == k && f2 != f) fail(source, face_name(k, f) + " is connected to another face of its own element");
      // face_vertex_match: a permutation of 0..nfv-1, -1 padded; the identity on the boundary.
      const auto& match = mesh.face_vertex_match[ix(k)][ix(f)];
      std::array<bool, 3> seen{};
      for (int i = 0; i < 3; ++i) {
        const int j = match[ix(i)];
        const bool ok = i < nfv ? (j >= 0 && j < nfv && !seen[ix(j)] && (k2 != k || j == i)) : j == -1;
        if (!ok) fail(source, "face_vertex_match of " + face_name(k, f) + " is not a valid vertex permutation");
        if (i < nfv) seen[ix(j)] = true;
      }
    }
  }
}

void check_boundary(const Mesh& mesh, std::string_view source) {
  const int K = mesh.num_elements();
  const int ngroups = static_cast<int>(mesh.boundary_names.size());
  for (int g = 0; g < ngroups; ++g) {
    if (mesh.boundary_names[ix(g)].empty()) fail(source, "boundary group " + std::to_string(g) + " has no name");
  }
  std::vector<int> listed(ix(K * 4), 0);  // 1: boundary face, 2: periodic face
  for (const BoundaryFace& face : mesh.boundary_faces) {
    if (face.element < 0 || face.element >= K || face.face < 0 || face.face >= mesh.num_faces()) {
      fail(source, "boundary face record (element " + std::to_string(face.element) + ", face " +
                       std::to_string(face.face) + ") is out of range");
    }
    if (face.group < 0 || face.group >= ngroups) {
      fail(source, "boundary " + face_name(face.element, face.face) + " has group " + std::to_string(face.group) +
                       " of " + std::to_string(ngroups));
    }
    if (mesh.EToE[ix(face.element)][ix(face.face)] != face.element) {
      fail(source, face_name(face.element, face.face) + " is listed as a boundary face but has a neighbour");
    }
    int& mark = listed[ix(face.element * 4 + face.face)];
    if (mark != 0) fail(source, "boundary " + face_name(face.element, face.face) + " is listed twice");
    mark = 1;
  }
  for (const PeriodicFace& face : mesh.periodic_faces) {
    if (face.element < 0 || face.element >= K || face.face < 0 || face.face >= mesh.num_faces() ||
        face.group < 0 || face.group >= ngroups) {
      fail(source, "periodic face record (element " + std::to_string(face.element) + ", face " +
                       std::to_string(face.face) + ", group " + std::to_string(face.group) + ") is out of range");
    }
    if (mesh.EToE[ix(face.element)][ix(face.face)] == face.element) {
      fail(source, "periodic " + face_name(face.element, face.face) + " has no neighbour");
    }
    int& mark = listed[ix(face.element * 4 + face.face)];
    if (mark != 0) fail(source, face_name(face.element, face.face) + " is listed twice among boundary and periodic faces");
    mark = 2;
  }
  for (const PeriodicPair& pair : mesh.periodic_pairs) {
    if (pair.group_a < 0 || pair.group_a >= ngroups || pair.group_b < 0 || pair.group_b >= ngroups) {
      fail(source, "periodic pair of groups " + std::to_string(pair.group_a) + " and " + std::to_string(pair.group_b) +
                       " is out of range");
    }
  }
  for (int k = 0; k < K; ++k) {
    for (int f = 0; f < mesh.num_faces(); ++f) {
      if (mesh.EToE[ix(k)][ix(f)] == k && listed[ix(k * 4 + f)] != 1) {
        fail(source, "boundary " + face_name(k, f) +
                         " has no physical group; every boundary face needs a named group");
      }
    }
  }
}

// Which side of the face's line (2D) or plane (3D) the point lies on, times the face size.
double side(const Mesh& mesh, const std::array<Vec3, 3>& face, const Vec3& point) {
  const Vec3 a = detail::sub(face[1], face[0]);
  const Vec3 p = detail::sub(point, face[0]);
  if (mesh.dim == 2) return a[0] * p[1] - a[1] * p[0];
  return detail::dot(detail::cross(a, detail::sub(face[2], face[0])), p);
}

void check_geometry(const Mesh& mesh, std::string_view source) {
  if (mesh.dim == 2) {
    for (std::size_t v = 0; v < mesh.vertices.size(); ++v) {
      if (mesh.vertices[v][2] != 0.0) fail(source, "vertex " + std::to_string(v) + " of a 2D mesh has z != 0");
    }
  }
  for (int k = 0; k < mesh.num_elements(); ++k) {
    const double volume = signed_volume(mesh.type, element_corners(mesh, k));
    const double edge = longest_edge(mesh, k);
    const bool degenerate = !(std::abs(volume) >= kDegenerateTolerance * std::pow(edge, mesh.dim)) || edge == 0.0;
    if (degenerate || volume < 0.0) {
      fail(source, "element " + std::to_string(k) + " " +
                       detail::format_indices(mesh.EToV[ix(k)].data(), mesh.num_element_vertices()) + " is " +
                       (degenerate ? "degenerate" : "inverted") + ": signed volume " + detail::format_number(volume) +
                       ", longest edge " + detail::format_number(edge) +
                       (degenerate ? "" : "; elements must be counter-clockwise (2D) or of positive volume (3D)"));
    }
  }
  const auto shifts = detail::periodic_shifts(mesh);
  const auto& local = face_vertices(mesh.type);
  const int nfv = mesh.num_face_vertices();
  const double scale = 1e-8;  // matching tolerance relative to the element size
  for (int k = 0; k < mesh.num_elements(); ++k) {
    for (int f = 0; f < mesh.num_faces(); ++f) {
      const int k2 = mesh.EToE[ix(k)][ix(f)];
      const int f2 = mesh.EToF[ix(k)][ix(f)];
      if (k2 == k) continue;
      const auto& [periodic, shift] = shifts[ix(k * 4 + f)];
      // Interior faces share vertices; periodic faces share points modulo the shift.
      std::array<Vec3, 3> face{};
      for (int i = 0; i < nfv; ++i) {
        const int v = mesh.EToV[ix(k)][ix(local[ix(f)][ix(i)])];
        const int j = mesh.face_vertex_match[ix(k)][ix(f)][ix(i)];
        const int w = mesh.EToV[ix(k2)][ix(local[ix(f2)][ix(j)])];
        face[ix(i)] = mesh.vertices[ix(v)];
        const bool same = periodic ? detail::distance(detail::add(mesh.vertices[ix(v)], shift), mesh.vertices[ix(w)]) <=
                                         scale * longest_edge(mesh, k)
                                   : v == w;
        if (!same) {
          fail(source, face_name(k, f) + " and its neighbour, " + face_name(k2, f2) +
                           ", do not share vertex " + std::to_string(v) + " at " +
                           detail::format_point(mesh.vertices[ix(v)]) +
                           (periodic ? " (modulo the periodic shift " + detail::format_point(shift) + ")" : ""));
        }
      }
      // The vertex of each element opposite the face; the neighbour's moved back by the shift.
      const auto opposite = [&](int element, int element_face) {
        for (int i = 0; i < mesh.num_element_vertices(); ++i) {
          const auto& fv = local[ix(element_face)];
          if (std::find(fv.begin(), fv.begin() + nfv, i) == fv.begin() + nfv) {
            return mesh.vertices[ix(mesh.EToV[ix(element)][ix(i)])];
          }
        }
        return Vec3{};
      };
      const double own = side(mesh, face, opposite(k, f));
      const double other = side(mesh, face, detail::sub(opposite(k2, f2), shift));
      if (!(own * other < 0.0)) {
        fail(source, "elements " + std::to_string(k) + " and " + std::to_string(k2) +
                         " overlap: they lie on the same side of their shared face (" + face_name(k, f) +
                         ")");
      }
    }
  }
}

}  // namespace

void validate(const Mesh& mesh, std::string_view source, Validation level) {
  check_sizes(mesh, source);
  check_elements(mesh, source);
  check_connectivity(mesh, source);
  check_boundary(mesh, source);
  if (level == Validation::full) check_geometry(mesh, source);
  validate_geometry_nodes(mesh, source, level);
}

}  // namespace rtdg::mesh
