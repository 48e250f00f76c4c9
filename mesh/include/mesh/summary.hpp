// A short report of a mesh (what `rtdg mesh` prints): sizes, groups with their face and
// element counts, total volume.
#pragma once

#include "mesh/mesh.hpp"

#include <string>
#include <utility>
#include <vector>

namespace rtdg::mesh {

struct MeshSummary {
  int dim = 0;
  ElementType type = ElementType::triangle;
  int elements = 0;
  int vertices = 0;
  double volume = 0.0;                                     // area in 2D
  std::vector<std::pair<std::string, int>> boundary_groups;  // name, boundary faces
  std::vector<std::pair<std::string, int>> periodic_pairs;   // "a <-> b", face pairs
  std::vector<std::pair<std::string, int>> regions;          // name, elements
  int geometry_order = 1;                                  // of the element maps
  int curved_elements = 0;                                 // mesh::is_curved
};

MeshSummary summarize(const Mesh& mesh);

// Several lines, e.g. "2D mesh: 120 triangles, 75 vertices, area 1\n  boundary 'walls': 30 faces\n".
std::string format_summary(const MeshSummary& summary);

}  // namespace rtdg::mesh
