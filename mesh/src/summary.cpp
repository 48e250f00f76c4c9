#include "mesh/summary.hpp"

#include "mesh/geometry_nodes.hpp"

#include "text.hpp"

namespace rtdg::mesh {

MeshSummary summarize(const Mesh& mesh) {
  MeshSummary summary;
  summary.dim = mesh.dim;
  summary.type = mesh.type;
  summary.elements = mesh.num_elements();
  summary.vertices = mesh.num_vertices();
  summary.volume = mapped_volume(mesh);
  for (const std::string& name : mesh.boundary_names) summary.boundary_groups.emplace_back(name, 0);
  for (const BoundaryFace& face : mesh.boundary_faces) ++summary.boundary_groups[detail::ix(face.group)].second;
  // Groups used up by periodic pairs have no boundary faces left: listed with their pair.
  std::vector<bool> periodic(mesh.boundary_names.size(), false);
  for (const PeriodicPair& pair : mesh.periodic_pairs) {
    periodic[detail::ix(pair.group_a)] = periodic[detail::ix(pair.group_b)] = true;
  }
  std::vector<std::pair<std::string, int>> boundary;
  for (std::size_t g = 0; g < periodic.size(); ++g) {
    if (!periodic[g] || summary.boundary_groups[g].second > 0) boundary.push_back(summary.boundary_groups[g]);
  }
  summary.boundary_groups = std::move(boundary);
  for (const PeriodicPair& pair : mesh.periodic_pairs) {
    int faces = 0;
    for (const PeriodicFace& face : mesh.periodic_faces) faces += face.group == pair.group_a ? 1 : 0;
    summary.periodic_pairs.emplace_back(
        mesh.boundary_names[detail::ix(pair.group_a)] + " <-> " + mesh.boundary_names[detail::ix(pair.group_b)], faces);
  }
  for (const std::string& name : mesh.region_names) summary.regions.emplace_back(name, 0);
  for (int region : mesh.element_region) ++summary.regions[detail::ix(region)].second;
  summary.geometry_order = mesh.geometry_order;
  summary.curved_elements = static_cast<int>(curved_elements(mesh).size());
  return summary;
}

std::string format_summary(const MeshSummary& summary) {
  const bool planar = summary.dim == 2;
  std::string text = std::to_string(summary.dim) + "D mesh: " + std::to_string(summary.elements) + " " +
                     (planar ? "triangles" : "tetrahedra") + ", " + std::to_string(summary.vertices) + " vertices, " +
                     (planar ? "area " : "volume ") + detail::format_number(summary.volume) + "\n";
  if (summary.geometry_order > 1) {
    text += "  geometry order " + std::to_string(summary.geometry_order) + ": " + std::to_string(summary.curved_elements) +
            " curved elements\n";
  }
  for (const auto& [name, elements] : summary.regions) {
    text += "  region '" + name + "': " + std::to_string(elements) + " elements\n";
  }
  for (const auto& [name, faces] : summary.boundary_groups) {
    text += "  boundary '" + name + "': " + std::to_string(faces) + " faces\n";
  }
  for (const auto& [name, faces] : summary.periodic_pairs) {
    text += "  periodic " + name + ": " + std::to_string(faces) + " face pairs\n";
  }
  return text;
}

}  // namespace rtdg::mesh
