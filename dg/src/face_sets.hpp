// Faces between a set of elements and the rest (private to dg/src): the Huygens surface of the
// far field and the TF/SF surface are both such sets.
#pragma once

#include "dg/enclosure.hpp"
#include "dg/error.hpp"

#include <mesh/mesh.hpp>

#include <string>
#include <utility>
#include <vector>

namespace rtdg::dg::detail {

// check_enclosure (dg/enclosure.hpp) of the elements inside() holds for. `what` names the surface.
template <class Inside>
void check_enclosed(const mesh::Mesh& mesh, const Inside& inside, const std::string& what) {
  std::vector<char> flags(mesh.EToE.size(), 0);
  for (std::size_t k = 0; k < flags.size(); ++k) flags[k] = inside(static_cast<int>(k)) ? 1 : 0;
  check_enclosure(enclosure(mesh, flags), mesh.boundary_names, what);
}

// The faces (k, f) with inside(k) and the neighbour outside, after check_enclosed.
template <class Inside>
std::vector<std::pair<int, int>> interface_faces(const mesh::Mesh& mesh, const Inside& inside, const std::string& what) {
  check_enclosed(mesh, inside, what);
  const int K = static_cast<int>(mesh.EToE.size());
  const int Nfaces = mesh.dim + 1;
  std::vector<std::pair<int, int>> faces;
  for (int k = 0; k < K; ++k) {
    if (!inside(k)) continue;
    for (int f = 0; f < Nfaces; ++f) {
      const int nb = mesh.EToE[static_cast<std::size_t>(k)][static_cast<std::size_t>(f)];
      if (nb != k && !inside(nb)) faces.emplace_back(k, f);
    }
  }
  return faces;
}

}  // namespace rtdg::dg::detail
