// Whether a set of elements is enclosed by a closed surface of faces inside the mesh, as the
// TF/SF region and the far-field surfaces need: some but not every element inside, and no mesh
// boundary group with faces on elements on both sides (the surface would end on it). Made of
// counts, so a parallel run sums its ranks' parts (rank-local meshes list their physical
// boundary faces only) and decides as a serial run does on the whole mesh.
#pragma once

#include <mesh/mesh.hpp>

#include <string>
#include <vector>

namespace rtdg::dg {

struct Enclosure {
  long long inside = 0;             // elements inside
  long long elements = 0;           // elements in all
  std::vector<char> group_inside;   // [boundary group] a face of the group on an element inside
  std::vector<char> group_outside;  // [boundary group] a face of the group on an element outside
};

// The counts of `mesh` for the [K] flags `inside`.
Enclosure enclosure(const mesh::Mesh& mesh, const std::vector<char>& inside);

// Throws dg::Error naming `what` when the counts are not those of an enclosed set.
void check_enclosure(const Enclosure& enclosure, const std::vector<std::string>& boundary_names, const std::string& what);

}  // namespace rtdg::dg
