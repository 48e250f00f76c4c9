// From an element soup (what an importer reads) to a validated Mesh: orientation, face
// connectivity, boundary groups, periodic matching, face-vertex permutations.
#pragma once

#include "mesh/mesh.hpp"

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace rtdg::mesh {

// A face an importer found in a named boundary group (a line in 2D, a triangle in 3D).
struct TaggedFace {
  std::array<int, 3> vertices{-1, -1, -1};  // Nfv vertex indices, -1 padded
  int group = 0;                            // index into RawMesh::boundary_names
};

// Two boundary groups to identify by translation, x_b = x_a + shift. Without a shift, it is
// the difference of the two groups' vertex centroids.
struct PeriodicSpec {
  int group_a = 0;
  int group_b = 0;
  std::optional<std::array<double, 3>> shift;
};

// What an importer hands to build_mesh. Element vertices in any orientation.
struct RawMesh {
  std::string source = "<memory>";                 // file name, for error messages
  int dim = 0;                                     // 2 or 3
  ElementType type = ElementType::triangle;
  std::vector<std::array<double, 3>> vertices;     // [Nv][3]
  std::vector<std::array<int, 4>> elements;        // [K][4], -1 padded for triangles
  std::vector<std::size_t> element_tags;           // [K] file element numbers, or empty
  std::vector<int> element_region;                 // [K] index into region_names
  std::vector<std::string> region_names;
  std::vector<TaggedFace> tagged_faces;
  std::vector<std::string> boundary_names;
  std::vector<PeriodicSpec> periodic;
  // High-order elements (mesh.hpp: geometry_order, element_nodes): [K][lattice_size][3] in the
  // order of each element's vertices as given; build_mesh permutes them with the vertices.
  int geometry_order = 1;
  std::vector<std::array<double, 3>> element_nodes;
};

// Builds and validates the mesh. Throws MeshError naming raw.source and the culprit: an
// empty mesh, a vertex index out of range, a degenerate element (element number, file tag,
// signed volume), a face shared by more than two elements, a tagged face that is no element
// face or carries two groups, boundary faces without a group, unmatched periodic faces.
// Faces of a group that are interior faces (an internal interface) are not boundary faces
// and are left out.
Mesh build_mesh(RawMesh raw);

// Matching tolerance for periodic vertices, relative to the mesh's bounding-box diagonal.
inline constexpr double kPeriodicTolerance = 1e-8;

}  // namespace rtdg::mesh
