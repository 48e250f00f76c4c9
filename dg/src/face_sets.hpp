// Faces between a set of elements and the rest (private to dg/src): the Huygens surface of the
// far field and the TF/SF surface are both such sets.
#pragma once

#include "dg/error.hpp"

#include <mesh/mesh.hpp>

#include <string>
#include <utility>
#include <vector>

namespace rtdg::dg::detail {

// Throws dg::Error when inside() holds for no element or every element, or when a mesh
// boundary group has faces on elements on both sides (the surface is not closed: it ends on
// that boundary). `what` names the surface.
template <class Inside>
void check_enclosed(const mesh::Mesh& mesh, const Inside& inside, const std::string& what) {
  const int K = static_cast<int>(mesh.EToE.size());
  int inside_count = 0;
  for (int k = 0; k < K; ++k) inside_count += inside(k) ? 1 : 0;
  if (inside_count == 0) throw Error(what + " encloses no element; it must enclose the scatterer");
  if (inside_count == K) throw Error(what + " encloses every element, so it has no faces inside the mesh; make it smaller than the domain");
  std::vector<char> group_in(mesh.boundary_names.size(), 0), group_out(mesh.boundary_names.size(), 0);
  for (const mesh::BoundaryFace& b : mesh.boundary_faces) (inside(b.element) ? group_in : group_out)[static_cast<std::size_t>(b.group)] = 1;
  for (std::size_t g = 0; g < group_in.size(); ++g)
    if (group_in[g] && group_out[g])
      throw Error(what + " crosses the mesh boundary '" + mesh.boundary_names[g] +
                  "' (it has faces on elements inside and outside), so it is not a closed surface around the "
                  "scatterer; keep it inside the domain");
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
