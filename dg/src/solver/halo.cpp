#include "solver/halo.hpp"

#include "dg/error.hpp"

#include <mesh/mesh.hpp>

#include <cmath>
#include <string>

namespace rtdg::dg {
namespace {

// Barycentric coordinates of reference node i with respect to the reference vertices (the
// book's: (-1,-1), (1,-1), (-1,1) and, in 3D, (-1,-1,1)), in the mesh's local vertex order.
std::array<double, 4> barycentric(const Element& element, int i) {
  const double r = element.r(i), s = element.s(i), t = element.dim == 3 ? element.t(i) : -1.0;
  return {-(1.0 + r + s + t) / 2.0, (1.0 + r) / 2.0, (1.0 + s) / 2.0, (1.0 + t) / 2.0};
}

std::string face_text(int h, const mesh::HaloFace& f) {
  return "halo face " + std::to_string(h) + " (element " + std::to_string(f.element) + ", face " + std::to_string(f.face) +
         ")";
}

}  // namespace

std::vector<int> halo_node_permutation(const Element& element, int face, int neighbour_face,
                                       const std::array<std::int8_t, 3>& vertex_match) {
  const mesh::ElementType type = element.dim == 3 ? mesh::ElementType::tetrahedron : mesh::ElementType::triangle;
  const auto& faces = mesh::face_vertices(type);
  const int nfv = element.dim;  // vertices per face
  if (face < 0 || face >= element.Nfaces || neighbour_face < 0 || neighbour_face >= element.Nfaces)
    throw Error("halo face numbers " + std::to_string(face) + ", " + std::to_string(neighbour_face) + " are out of range");
  const int Nfp = element.Nfp;
  std::vector<int> perm(static_cast<std::size_t>(Nfp), -1);
  for (int j = 0; j < Nfp; ++j) {
    const auto mine = barycentric(element, element.Fmask(j, face));
    for (int j2 = 0; j2 < Nfp && perm[static_cast<std::size_t>(j)] < 0; ++j2) {
      const auto theirs = barycentric(element, element.Fmask(j2, neighbour_face));
      bool same = true;
      for (int i = 0; i < nfv && same; ++i) {
        const int m = vertex_match[static_cast<std::size_t>(i)];
        if (m < 0 || m >= nfv) throw Error("halo face vertex match is invalid (vertex " + std::to_string(i) + ")");
        const double a = mine[static_cast<std::size_t>(faces[static_cast<std::size_t>(face)][static_cast<std::size_t>(i)])];
        const double b = theirs[static_cast<std::size_t>(faces[static_cast<std::size_t>(neighbour_face)][static_cast<std::size_t>(m)])];
        same = std::abs(a - b) < 1e-10;
      }
      if (same) perm[static_cast<std::size_t>(j)] = j2;
    }
    if (perm[static_cast<std::size_t>(j)] < 0)
      throw Error("the nodes of a halo face do not pair up with the neighbour's under its vertex match");
  }
  return perm;
}

std::vector<std::int32_t> apply_halo(Geometry& geometry, const Discretization& disc, const HaloSetup& halo,
                                     int components, const std::vector<double>& parameters,
                                     const std::vector<bool>& per_element) {
  const int H = static_cast<int>(halo.faces.size());
  const Element& element = disc.element;
  const int K = disc.K, Nfaces = element.Nfaces, Nfp = element.Nfp, Nfn = Nfaces * Nfp;
  std::vector<std::int32_t> pack;
  if (H == 0) return pack;
  if (!halo.exchange) throw Error("the solver got " + std::to_string(H) + " halo faces but no halo exchange");
  pack.reserve(static_cast<std::size_t>(2 * H));
  for (int h = 0; h < H; ++h) {
    const mesh::HaloFace& f = halo.faces[static_cast<std::size_t>(h)];
    if (f.element < 0 || f.element >= K || f.face < 0 || f.face >= Nfaces)
      throw Error(face_text(h, f) + " is out of range: the local mesh has " + std::to_string(K) + " elements");
    const std::size_t slot = static_cast<std::size_t>(f.element) * static_cast<std::size_t>(Nfaces) + static_cast<std::size_t>(f.face);
    std::int32_t& code = geometry.bcode[slot];
    // A halo face is a free face of the local mesh: no boundary condition, exterior = itself.
    bool free_face = code == 0;
    for (int j = 0; j < Nfp && free_face; ++j)
      free_face = disc.vmapP(f.face * Nfp + j, f.element) == disc.vmapM(f.face * Nfp + j, f.element);
    if (!free_face)
      throw Error(face_text(h, f) + " is not a free face of the local mesh (it has a boundary condition or a neighbour "
                                    "element on this rank)");
    code = -1;
    const std::vector<int> perm = halo_node_permutation(element, f.face, f.neighbour_face, f.vertex_match);
    for (int j = 0; j < Nfp; ++j)
      geometry.vmapP[static_cast<std::size_t>(f.element) * static_cast<std::size_t>(Nfn) +
                     static_cast<std::size_t>(f.face * Nfp + j)] = h * components * Nfp + perm[static_cast<std::size_t>(j)];
    pack.push_back(f.element);
    pack.push_back(f.face);
  }
  if (per_element.empty()) return pack;
  // prm = [P uniform][P][K own][P][H neighbours'] (kernels/common.hpp, halo_arguments).
  const std::size_t P = parameters.size();
  if (!halo.neighbour_parameters.empty() && halo.neighbour_parameters.size() != P)
    throw Error("the halo got neighbour values for " + std::to_string(halo.neighbour_parameters.size()) +
                " parameters, the law has " + std::to_string(P));
  for (std::size_t p = 0; p < P; ++p) {
    const std::vector<double>* values =
        halo.neighbour_parameters.empty() || halo.neighbour_parameters[p].empty() ? nullptr : &halo.neighbour_parameters[p];
    if (per_element[p] && (!values || values->size() != static_cast<std::size_t>(H)))
      throw Error("parameter " + std::to_string(p) + " varies per element, so the halo needs its value at each of the " +
                  std::to_string(H) + " neighbour elements");
    for (int h = 0; h < H; ++h) geometry.prm.push_back(per_element[p] ? (*values)[static_cast<std::size_t>(h)] : parameters[p]);
  }
  return pack;
}

}  // namespace rtdg::dg
