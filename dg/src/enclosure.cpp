// Enclosed element sets from counts (dg/enclosure.hpp).
#include "dg/enclosure.hpp"

#include "dg/error.hpp"

namespace rtdg::dg {

Enclosure enclosure(const mesh::Mesh& mesh, const std::vector<char>& inside) {
  Enclosure e;
  e.elements = static_cast<long long>(inside.size());
  for (const char in : inside) e.inside += in ? 1 : 0;
  e.group_inside.assign(mesh.boundary_names.size(), 0);
  e.group_outside.assign(mesh.boundary_names.size(), 0);
  for (const mesh::BoundaryFace& b : mesh.boundary_faces)
    (inside[static_cast<std::size_t>(b.element)] ? e.group_inside : e.group_outside)[static_cast<std::size_t>(b.group)] = 1;
  return e;
}

void check_enclosure(const Enclosure& e, const std::vector<std::string>& boundary_names, const std::string& what) {
  if (e.inside == 0) throw Error(what + " encloses no element; it must enclose the scatterer");
  if (e.inside == e.elements)
    throw Error(what + " encloses every element, so it has no faces inside the mesh; make it smaller than the domain");
  for (std::size_t g = 0; g < boundary_names.size() && g < e.group_inside.size() && g < e.group_outside.size(); ++g)
    if (e.group_inside[g] && e.group_outside[g])
      throw Error(what + " crosses the mesh boundary '" + boundary_names[g] +
                  "' (it has faces on elements inside and outside), so it is not a closed surface around the "
                  "scatterer; keep it inside the domain");
}

}  // namespace rtdg::dg
