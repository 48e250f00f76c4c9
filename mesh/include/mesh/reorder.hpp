// Element order for memory locality. The DG kernels read each face neighbour's trace from the
// state array, so neighbours that sit close in memory are more often found in cache; a mesh
// generator's order is only roughly local. Reordering renumbers the elements and everything
// that names them; the mesh is the same (`rtdg mesh --order morton`).
#pragma once

#include "mesh/mesh.hpp"

#include <span>
#include <string_view>
#include <vector>

namespace rtdg::mesh {

// How `rtdg mesh` orders the elements it writes: as the input has them, or by morton_order.
enum class ElementOrder : unsigned char { as_read, morton };

// The elements sorted by the Morton (Z-order) code of their centroids on a 2^21-cell grid per
// axis over the mesh's bounding box (ties by element number): order[i] is the element that
// becomes element i.
std::vector<int> morton_order(const Mesh& mesh);

// The mesh with element order[i] as element i: EToV, EToE, EToF, face_vertex_match,
// element_region, boundary_faces and periodic_faces (sorted again) renumbered; vertices and
// groups unchanged. Throws MeshError naming `source` when order is not a permutation of the
// elements.
Mesh reorder_elements(const Mesh& mesh, std::span<const int> order, std::string_view source = "<memory>");

// The mean |k - neighbour| over interior faces: a measure of locality (smaller is better).
double mean_neighbour_distance(const Mesh& mesh);

}  // namespace rtdg::mesh
