// Face-node pairing across a partition boundary (parallel runs, docs/parallel.md).
#pragma once

#include "dg/element.hpp"

#include <array>
#include <cstdint>
#include <vector>

namespace rtdg::dg {

// perm[j] = the node of face `neighbour_face` of the neighbour element (in its own face node
// order, Fmask's column) that sits where node j of face `face` of this element sits, when
// vertex i of this face is vertex vertex_match[i] of the neighbour's face (kFaceVertices order,
// mesh::Mesh::face_vertex_match). Found from the nodes' barycentric coordinates on the
// reference element, so it needs no coordinates of the other rank's element. Throws dg::Error
// for face numbers out of range or a vertex match under which the nodes do not pair up.
std::vector<int> halo_node_permutation(const Element& element, int face, int neighbour_face,
                                       const std::array<std::int8_t, 3>& vertex_match);

}  // namespace rtdg::dg
