// Total-field/scattered-field regions (dg/total_field.hpp).
#include "dg/total_field.hpp"

#include "dg/error.hpp"
#include "face_sets.hpp"

#include <algorithm>

namespace rtdg::dg {

std::vector<char> total_field_box(const mesh::Mesh& mesh, const std::array<double, 3>& lo, const std::array<double, 3>& hi) {
  const int K = mesh.num_elements(), nv = mesh.dim + 1;
  std::vector<char> total(static_cast<std::size_t>(K), 0);
  for (int k = 0; k < K; ++k) {
    bool in = true;
    for (std::size_t d = 0; d < static_cast<std::size_t>(mesh.dim); ++d) {
      double centroid = 0;
      for (int v = 0; v < nv; ++v)
        centroid += mesh.vertices[static_cast<std::size_t>(mesh.EToV[static_cast<std::size_t>(k)][static_cast<std::size_t>(v)])][d];
      centroid /= nv;
      in = in && centroid > lo[d] && centroid < hi[d];
    }
    total[static_cast<std::size_t>(k)] = in ? 1 : 0;
  }
  return total;
}

std::vector<char> total_field_region(const mesh::Mesh& mesh, std::string_view name) {
  const auto found = std::find(mesh.region_names.begin(), mesh.region_names.end(), name);
  if (found == mesh.region_names.end()) {
    std::string names;
    for (const std::string& r : mesh.region_names) names += (names.empty() ? "" : ", ") + r;
    throw Error("the mesh has no region named '" + std::string(name) + "' for the total field; its regions are: " + names);
  }
  const int region = static_cast<int>(found - mesh.region_names.begin());
  std::vector<char> total(mesh.element_region.size(), 0);
  for (std::size_t k = 0; k < total.size(); ++k) total[k] = mesh.element_region[k] == region ? 1 : 0;
  return total;
}

void check_total_field(const mesh::Mesh& mesh, const std::vector<char>& total, const std::string& what) {
  if (total.size() != static_cast<std::size_t>(mesh.num_elements()))
    throw Error(what + " flags " + std::to_string(total.size()) + " elements, the mesh has " +
                std::to_string(mesh.num_elements()));
  detail::check_enclosed(mesh, [&](int k) { return total[static_cast<std::size_t>(k)] != 0; }, what);
}

std::vector<int> incident_components(const fluxes::Law& law) {
  auto size = [&](fluxes::Shape shape) { return shape == fluxes::Shape::scalar ? 1 : law.dimension; };
  // Where each incident field starts among the incident components (dg::lower_plane_wave's order).
  std::vector<int> incident_offset;
  int offset = 0;
  for (const fluxes::IncidentDecl& decl : law.incident) {
    incident_offset.push_back(offset);
    offset += size(decl.shape);
  }
  std::vector<int> map;
  bool any = false;
  for (const fluxes::FieldDecl& field : law.fields) {
    const int n = size(field.shape);
    int first = -1;
    for (std::size_t i = 0; i < law.incident.size(); ++i) {
      if (law.incident[i].name != field.name + "_inc") continue;
      if (law.incident[i].shape != field.shape)
        throw Error("the law '" + law.name + "' declares the incident field '" + law.incident[i].name +
                    "' with another shape than the field '" + field.name + "', so it cannot be added to it");
      first = incident_offset[i];
    }
    for (int c = 0; c < n; ++c) map.push_back(first < 0 ? -1 : first + c);
    any = any || first >= 0;
  }
  if (!any)
    throw Error("the law '" + law.name + "' has no incident field named after one of its fields (<field>_inc, e.g. E_inc "
                "for E), so total-field/scattered-field incidence cannot add the incident wave to it");
  return map;
}

}  // namespace rtdg::dg
