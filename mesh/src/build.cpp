// build_mesh: checks the element soup, orients elements, connects faces, attaches boundary
// groups, links periodic pairs, then validates the result.
#include "mesh/build.hpp"

#include "mesh/geometry_nodes.hpp"

#include "connectivity.hpp"
#include "text.hpp"
#include "vec3.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace rtdg::mesh {
namespace {

using detail::fail;
using detail::ix;

std::string element_name(const RawMesh& raw, int k) {
  std::string name = "element " + std::to_string(k);
  if (!raw.element_tags.empty()) name += " (file element " + std::to_string(raw.element_tags[ix(k)]) + ")";
  return name;
}

void check_input(const RawMesh& raw) {
  if (raw.dim != 2 && raw.dim != 3) {
    fail(raw.source, "dimension " + std::to_string(raw.dim) + " is not supported (2 or 3)");
  }
  if ((raw.dim == 2) != (raw.type == ElementType::triangle)) {
    fail(raw.source, std::string("a ") + std::to_string(raw.dim) + "D mesh cannot have " +
                         std::string(to_string(raw.type)) + " elements");
  }
  if (raw.elements.empty()) {
    fail(raw.source, std::string("the mesh is empty: it has no ") +
                         (raw.dim == 2 ? "triangles" : "tetrahedra"));
  }
  const std::size_t K = raw.elements.size();
  if (raw.geometry_order < 1 || raw.geometry_order > 8) {
    fail(raw.source, "geometry order " + std::to_string(raw.geometry_order) + " is not supported (1 to 8)");
  }
  if (raw.geometry_order > 1 && raw.element_nodes.size() != K * ix(lattice_size(raw.dim, raw.geometry_order))) {
    fail(raw.source, "element_nodes needs " + std::to_string(lattice_size(raw.dim, raw.geometry_order)) +
                         " nodes per element for geometry order " + std::to_string(raw.geometry_order));
  }
  if (raw.element_region.size() != K || (!raw.element_tags.empty() && raw.element_tags.size() != K)) {
    fail(raw.source, "element_region (and element_tags, when given) need one entry per element");
  }
  for (std::size_t k = 0; k < K; ++k) {
    const int region = raw.element_region[k];
    if (region < 0 || ix(region) >= raw.region_names.size()) {
      fail(raw.source, element_name(raw, static_cast<int>(k)) + " has region " +
                           std::to_string(region) + " but there are " +
                           std::to_string(raw.region_names.size()) + " region names");
    }
  }
  const int nvert = raw.dim + 1;
  const int Nv = static_cast<int>(raw.vertices.size());
  for (std::size_t k = 0; k < K; ++k) {
    for (int i = 0; i < 4; ++i) {
      const int v = raw.elements[k][ix(i)];
      const bool ok = i < nvert ? (v >= 0 && v < Nv) : v == -1;
      if (!ok) {
        fail(raw.source, element_name(raw, static_cast<int>(k)) + " has vertex " +
                             std::to_string(v) + " in position " + std::to_string(i) + " (" +
                             std::to_string(Nv) + " vertices" +
                             (i < nvert ? ")" : "; unused positions must be -1)"));
      }
    }
  }
}

// 2D meshes must lie in the z = 0 plane; tiny round-off is cleaned to exact zeros.
void flatten(Mesh& mesh, const std::string& source) {
  double extent = 0.0;
  for (const auto& x : mesh.vertices) extent = std::max({extent, std::abs(x[0]), std::abs(x[1])});
  for (std::size_t v = 0; v < mesh.vertices.size(); ++v) {
    double& z = mesh.vertices[v][2];
    if (std::abs(z) > 1e-12 * std::max(extent, 1.0)) {
      fail(source, "vertex " + std::to_string(v) + " at " + detail::format_point(mesh.vertices[v]) +
                       " is off the z = 0 plane; a 2D mesh must lie in z = 0");
    }
    z = 0.0;
  }
  for (std::size_t n = 0; n < mesh.element_nodes.size(); ++n) {
    double& z = mesh.element_nodes[n][2];
    if (std::abs(z) > 1e-12 * std::max(extent, 1.0)) {
      fail(source, "geometry node " + std::to_string(n % ix(lattice_size(2, mesh.geometry_order))) + " of element " +
                       std::to_string(n / ix(lattice_size(2, mesh.geometry_order))) + " at " +
                       detail::format_point(mesh.element_nodes[n]) + " is off the z = 0 plane; a 2D mesh must lie in z = 0");
    }
    z = 0.0;
  }
}

// Rejects degenerate elements; swaps v1 and v2 of negatively oriented ones.
void orient(Mesh& mesh, const RawMesh& raw) {
  for (int k = 0; k < mesh.num_elements(); ++k) {
    const double volume = signed_volume(mesh.type, element_corners(mesh, k));
    const double edge = longest_edge(mesh, k);
    if (!(std::abs(volume) >= kDegenerateTolerance * std::pow(edge, mesh.dim)) || edge == 0.0) {
      const auto& v = mesh.EToV[ix(k)];
      std::string corners;
      for (int i = 0; i < mesh.num_element_vertices(); ++i) {
        corners += " " + detail::format_point(mesh.vertices[ix(v[ix(i)])]);
      }
      fail(raw.source, element_name(raw, k) + " is degenerate: signed volume " +
                           detail::format_number(volume) + ", longest edge " +
                           detail::format_number(edge) + "; vertices " +
                           detail::format_indices(v.data(), mesh.num_element_vertices()) + " at" +
                           corners);
    }
    if (volume < 0.0) {
      std::swap(mesh.EToV[ix(k)][1], mesh.EToV[ix(k)][2]);
      if (mesh.geometry_order > 1) {
        const std::vector<int> swap = lattice_swap_v1_v2(mesh.dim, mesh.geometry_order);
        std::array<double, 3>* X = mesh.element_nodes.data() + static_cast<std::ptrdiff_t>(k) * static_cast<std::ptrdiff_t>(swap.size());
        const std::vector<std::array<double, 3>> old(X, X + swap.size());
        for (std::size_t n = 0; n < swap.size(); ++n) X[n] = old[ix(swap[n])];
      }
    }
  }
}

// Group of each boundary slot ([K * 4], -1 where none) from the importer's tagged faces.
std::vector<int> assign_groups(const Mesh& mesh, const RawMesh& raw, const detail::FaceIndex& faces) {
  std::vector<int> face_group(ix(mesh.num_elements() * 4), -1);
  const int nfv = mesh.num_face_vertices();
  const int ngroups = static_cast<int>(raw.boundary_names.size());
  for (const TaggedFace& tagged : raw.tagged_faces) {
    const std::string face = "face " + detail::format_indices(tagged.vertices.data(), nfv);
    if (tagged.group < 0 || tagged.group >= ngroups) {
      fail(raw.source, face + " has boundary group " + std::to_string(tagged.group) + " but there are " +
                           std::to_string(ngroups) + " boundary names");
    }
    const std::string& name = raw.boundary_names[ix(tagged.group)];
    const auto [first, last] = faces.find(detail::sorted_key(tagged.vertices, nfv));
    if (first == nullptr) {
      std::string points;
      for (int i = 0; i < nfv; ++i) {
        const int v = tagged.vertices[ix(i)];
        points += " " + (v >= 0 && v < mesh.num_vertices() ? detail::format_point(mesh.vertices[ix(v)])
                                                          : std::string("(no such vertex)"));
      }
      fail(raw.source, face + " at" + points + " of physical group '" + name +
                           "' is not a face of any element");
    }
    if (last - first != 1) continue;  // an interior face: an internal interface, not a boundary
    int& group = face_group[ix(*first)];
    if (group >= 0 && group != tagged.group) {
      fail(raw.source, face + " belongs to two physical groups, '" +
                           raw.boundary_names[ix(group)] + "' and '" + name +
                           "'; each boundary face needs exactly one");
    }
    group = tagged.group;
  }
  return face_group;
}

void collect_boundary_faces(Mesh& mesh, const std::vector<int>& face_group, const std::string& source) {
  int unnamed = 0;
  std::string first_unnamed;
  for (int k = 0; k < mesh.num_elements(); ++k) {
    for (int f = 0; f < mesh.num_faces(); ++f) {
      if (mesh.EToE[ix(k)][ix(f)] != k) continue;
      const int group = face_group[ix(k * 4 + f)];
      if (group >= 0) {
        mesh.boundary_faces.push_back({k, f, group});
        continue;
      }
      if (unnamed++ == 0) {
        const detail::FaceKey key = detail::face_key(mesh, k, f);
        std::string points;
        for (int i = 0; i < mesh.num_face_vertices(); ++i) {
          points += " " + detail::format_point(mesh.vertices[ix(key[ix(i)])]);
        }
        first_unnamed = "face " + std::to_string(f) + " of element " + std::to_string(k) +
                        " (vertices " + detail::format_indices(key.data(), mesh.num_face_vertices()) +
                        " at" + points + ")";
      }
    }
  }
  if (unnamed > 0) {
    fail(source, std::to_string(unnamed) + " boundary face" + (unnamed > 1 ? "s have" : " has") +
                     " no physical group, the first: " + first_unnamed +
                     "; add every boundary " + (mesh.dim == 2 ? "curve" : "surface") +
                     " to a named group (Gmsh: Physical " + (mesh.dim == 2 ? "Curve" : "Surface") +
                     "(\"name\") = {...})");
  }
}

}  // namespace

Mesh build_mesh(RawMesh raw) {
  check_input(raw);
  Mesh mesh;
  mesh.dim = raw.dim;
  mesh.type = raw.type;
  mesh.vertices = std::move(raw.vertices);
  mesh.EToV = std::move(raw.elements);
  mesh.boundary_names = raw.boundary_names;
  mesh.element_region = std::move(raw.element_region);
  mesh.region_names = std::move(raw.region_names);
  mesh.geometry_order = raw.geometry_order;
  mesh.element_nodes = std::move(raw.element_nodes);
  if (mesh.dim == 2) flatten(mesh, raw.source);

  orient(mesh, raw);
  const detail::FaceIndex faces(mesh);
  detail::connect_faces(mesh, faces, raw.source, raw.element_tags);
  const std::vector<int> face_group = assign_groups(mesh, raw, faces);
  detail::link_periodic(mesh, face_group, raw.periodic, raw.source);
  collect_boundary_faces(mesh, face_group, raw.source);
  detail::match_face_vertices(mesh);
  validate(mesh, raw.source, Validation::full);
  return mesh;
}

}  // namespace rtdg::mesh
