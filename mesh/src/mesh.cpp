// Element geometry on the Mesh: signed volumes, corners, edge lengths.
#include "mesh/mesh.hpp"

#include "vec3.hpp"

#include <algorithm>

namespace rtdg::mesh {

using detail::Vec3;

std::string_view to_string(ElementType type) {
  return type == ElementType::triangle ? "triangle" : "tetrahedron";
}

double signed_volume(ElementType type, const std::array<Vec3, 4>& corners) {
  const Vec3 a = detail::sub(corners[1], corners[0]);
  const Vec3 b = detail::sub(corners[2], corners[0]);
  if (type == ElementType::triangle) return 0.5 * (a[0] * b[1] - a[1] * b[0]);
  const Vec3 c = detail::sub(corners[3], corners[0]);
  return detail::dot(detail::cross(a, b), c) / 6.0;
}

std::array<Vec3, 4> element_corners(const Mesh& mesh, int k) {
  std::array<Vec3, 4> corners{};
  const auto& element = mesh.EToV[static_cast<std::size_t>(k)];
  for (int i = 0; i < mesh.num_element_vertices(); ++i) {
    corners[static_cast<std::size_t>(i)] =
        mesh.vertices[static_cast<std::size_t>(element[static_cast<std::size_t>(i)])];
  }
  return corners;
}

double longest_edge(const Mesh& mesh, int k) {
  const auto corners = element_corners(mesh, k);
  const int n = mesh.num_element_vertices();
  double longest = 0.0;
  for (std::size_t i = 0; i < static_cast<std::size_t>(n); ++i) {
    for (std::size_t j = i + 1; j < static_cast<std::size_t>(n); ++j) {
      longest = std::max(longest, detail::distance(corners[i], corners[j]));
    }
  }
  return longest;
}

double total_volume(const Mesh& mesh) {
  double volume = 0.0;
  for (int k = 0; k < mesh.num_elements(); ++k) {
    volume += signed_volume(mesh.type, element_corners(mesh, k));
  }
  return volume;
}

}  // namespace rtdg::mesh
