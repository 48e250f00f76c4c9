// The mesh rtdg's DG discretization works on: triangles (2D) or tetrahedra (3D), straight-sided
// or with polynomial (curved) element maps, their face connectivity, named boundary and region groups, periodic boundaries.
//
// Conventions (the discretization is written against these; do not change them silently):
//
// - namespace rtdg::mesh. K = number of elements, Nv = number of vertices.
// - dim is 2 or 3; type is ElementType::triangle (dim 2) or ElementType::tetrahedron (dim 3).
// - vertices: [Nv][3] coordinates; z = 0 exactly in 2D.
// - EToV: [K][4] vertex indices; triangles use entries 0..2 and EToV[k][3] = -1.
//   Every element is positively oriented: counter-clockwise triangles, positive-volume
//   tetrahedra. Importers reorder vertices (swap v1 and v2) so this holds; a degenerate
//   element (|volume| < 1e-12 * (longest edge)^dim) is an error, never reordered.
// - Face numbering as in Hesthaven & Warburton, "Nodal Discontinuous Galerkin Methods":
//     triangle    f0 = (v0,v1), f1 = (v1,v2), f2 = (v2,v0)
//     tetrahedron f0 = (v0,v1,v2), f1 = (v0,v1,v3), f2 = (v1,v2,v3), f3 = (v0,v2,v3)
//   (kFaceVertices below). Nfaces = 3 (triangle) or 4 (tetrahedron); Nfv, the vertices per
//   face, = 2 or 3. Entries of [K][4] face arrays beyond Nfaces are -1.
// - EToE, EToF: [K][4]. Face f of element k is face EToF[k][f] of element EToE[k][f]. A
//   boundary face points to itself: EToE[k][f] = k, EToF[k][f] = f. Periodic faces are
//   connected like interior faces. Symmetry: EToE[EToE[k][f]][EToF[k][f]] == k and
//   EToF[EToE[k][f]][EToF[k][f]] == f.
// - face_vertex_match: [K][4][3]. For a connected face (k,f) with neighbour (k2,f2):
//   face_vertex_match[k][f][i] = j means vertex i of face f of k (in kFaceVertices order) is
//   vertex j of face f2 of k2 (for a periodic face: the same point modulo the shift). For a
//   boundary face it is the identity. Unused entries are -1. The discretization may instead
//   match face nodes by coordinates (plus the periodic shift).
// - boundary_faces: the faces with EToE[k][f] == k, each exactly once, each with a group:
//   an index into boundary_names (physical names from Gmsh; boundary conditions attach to
//   these names). A boundary face without a named group is a validation error.
// - Periodic boundaries, by translation: periodic_pairs lists pairs of boundary groups (a, b)
//   with x_b = x_a + shift. periodic_faces has one record per periodic face (both sides),
//   with the shift that maps this face's points onto its neighbour's:
//   x_neighbour = x_this + shift. Periodic faces are not in boundary_faces.
// - element_region: [K] index into region_names (physical volume/surface group of the
//   element, for materials).
// - geometry_order: 1 for straight-sided elements (element_nodes empty), p > 1 for a mesh read
//   from high-order Gmsh elements: element_nodes then holds [K][lattice_size(dim, p)][3], the
//   positions of each element's order-p lattice nodes in the element's (oriented) vertex order,
//   their corner nodes equal to the vertices (mesh/geometry_nodes.hpp has the layout).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rtdg::mesh {

enum class ElementType : std::uint8_t { triangle, tetrahedron };

// "triangle" or "tetrahedron" (also the HDF5 attribute value).
std::string_view to_string(ElementType type);

// A face on the physical boundary: face `face` of element `element`, in group `group`
// (index into Mesh::boundary_names).
struct BoundaryFace {
  int element = 0;
  int face = 0;
  int group = 0;
  friend bool operator==(const BoundaryFace&, const BoundaryFace&) = default;
};

// One side of a periodic face: x_neighbour = x_this + shift. `group` is the boundary group
// the face came from (index into Mesh::boundary_names).
struct PeriodicFace {
  int element = 0;
  int face = 0;
  int group = 0;
  std::array<double, 3> shift{};
  friend bool operator==(const PeriodicFace&, const PeriodicFace&) = default;
};

// Two boundary groups identified by a translation: x_b = x_a + shift.
struct PeriodicPair {
  int group_a = 0;
  int group_b = 0;
  std::array<double, 3> shift{};
  friend bool operator==(const PeriodicPair&, const PeriodicPair&) = default;
};

// [Nfaces <= 4][Nfv <= 3] vertex index on the neighbour face; -1 where unused.
using FaceVertexMatch = std::array<std::array<std::int8_t, 3>, 4>;

struct Mesh {
  int dim = 0;                                       // 2 or 3
  ElementType type = ElementType::triangle;
  std::vector<std::array<double, 3>> vertices;       // [Nv][3]
  std::vector<std::array<int, 4>> EToV;              // [K][4]
  std::vector<std::array<int, 4>> EToE;              // [K][4]
  std::vector<std::array<int, 4>> EToF;              // [K][4]
  std::vector<FaceVertexMatch> face_vertex_match;    // [K][4][3]
  std::vector<BoundaryFace> boundary_faces;          // sorted by (element, face)
  std::vector<std::string> boundary_names;           // group index -> physical name
  std::vector<PeriodicPair> periodic_pairs;
  std::vector<PeriodicFace> periodic_faces;          // sorted by (element, face)
  std::vector<int> element_region;                   // [K] index into region_names
  std::vector<std::string> region_names;             // region index -> physical name
  int geometry_order = 1;                            // polynomial order of the element maps
  std::vector<std::array<double, 3>> element_nodes;  // [K][lattice_size][3] when geometry_order > 1

  int num_elements() const { return static_cast<int>(EToV.size()); }
  int num_vertices() const { return static_cast<int>(vertices.size()); }
  int num_faces() const { return type == ElementType::triangle ? 3 : 4; }
  int num_face_vertices() const { return type == ElementType::triangle ? 2 : 3; }
  int num_element_vertices() const { return type == ElementType::triangle ? 3 : 4; }

  friend bool operator==(const Mesh&, const Mesh&) = default;
};

// kFaceVertices[type][f][i]: local vertex i of face f (the book's numbering; -1 unused).
inline constexpr std::array<std::array<std::array<int, 3>, 4>, 2> kFaceVertices{{
    {{{0, 1, -1}, {1, 2, -1}, {2, 0, -1}, {-1, -1, -1}}},  // triangle
    {{{0, 1, 2}, {0, 1, 3}, {1, 2, 3}, {0, 2, 3}}},       // tetrahedron
}};

inline const std::array<std::array<int, 3>, 4>& face_vertices(ElementType type) {
  return kFaceVertices[static_cast<std::size_t>(type)];
}

// Signed area (triangle, from x and y) or signed volume (tetrahedron) of the simplex with
// these corner points; positive for the orientation convention above.
double signed_volume(ElementType type, const std::array<std::array<double, 3>, 4>& corners);

// The corner coordinates of element k ([4][3]; the 4th is zero for triangles).
std::array<std::array<double, 3>, 4> element_corners(const Mesh& mesh, int k);

// Longest edge of element k.
double longest_edge(const Mesh& mesh, int k);

// Sum of the element areas (2D) or volumes (3D).
double total_volume(const Mesh& mesh);

// Relative size below which an element counts as degenerate: |volume| < kDegenerateTolerance
// * (longest edge)^dim.
inline constexpr double kDegenerateTolerance = 1e-12;

enum class Validation : std::uint8_t {
  // Sizes, index ranges, connectivity symmetry, boundary and periodic records: cheap
  // checks that keep a corrupt mesh from crashing a solver.
  structure,
  // structure plus geometry: orientation, degeneracy, matching face vertices (modulo the
  // periodic shift), neighbours on opposite sides of their shared face (used when building
  // a mesh and when reading HDF5).
  full,
};

// Checks the conventions above; throws MeshError naming `source` and the first culprit.
void validate(const Mesh& mesh, std::string_view source, Validation level = Validation::full);

}  // namespace rtdg::mesh
