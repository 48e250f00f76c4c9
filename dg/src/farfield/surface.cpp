// Huygens surfaces from element faces (dg/farfield.hpp).
#include "dg/error.hpp"
#include "dg/farfield.hpp"
#include "face_sets.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <string>

namespace rtdg::dg {
namespace {

std::string number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", v);
  return text;
}

}  // namespace

HuygensSurface huygens_surface(const Discretization& disc, std::span<const std::pair<int, int>> faces) {
  const Element& e = disc.element;
  const int Nfp = e.Nfp, Np = e.Np;
  // Quadrature weights of the reference face nodes: the column sums of the face mass
  // matrices E = M LIFT (sum_i l_i = 1), [Nfaces * Nfp]; sJ scales them to the physical face.
  const Eigen::RowVectorXd face_weights = (e.M * e.LIFT).colwise().sum();
  HuygensSurface s;
  s.dim = disc.dim;
  s.faces = static_cast<int>(faces.size());
  const std::size_t P = faces.size() * static_cast<std::size_t>(Nfp);
  s.x.reserve(P);
  s.normal.reserve(P);
  s.weight.reserve(P);
  s.inner.reserve(P);
  s.outer.reserve(P);
  for (const auto& face : faces) {
    const int k = face.first, f = face.second;
    if (k < 0 || k >= disc.K || f < 0 || f >= e.Nfaces) throw Error("huygens_surface: no face " + std::to_string(f) + " of element " + std::to_string(k));
    for (int j = 0; j < Nfp; ++j) {
      const int row = f * Nfp + j;
      const int vm = disc.vmapM(row, k), vp = disc.vmapP(row, k);
      const int i = vm - k * Np;
      s.x.push_back({disc.x(i, k), disc.y(i, k), disc.dim == 3 ? disc.z(i, k) : 0.0});
      s.normal.push_back({disc.nx(row, k), disc.ny(row, k), disc.dim == 3 ? disc.nz(row, k) : 0.0});
      s.weight.push_back(face_weights(row) * disc.sJ(row, k));
      s.inner.push_back(vm);
      s.outer.push_back(vp);
    }
  }
  return s;
}

std::vector<char> elements_in_box(const Discretization& disc, const Point& lo, const Point& hi) {
  std::vector<char> inside(static_cast<std::size_t>(disc.K), 0);
  const Eigen::MatrixXd* xyz[3] = {&disc.x, &disc.y, &disc.z};
  for (int k = 0; k < disc.K; ++k) {
    bool in = true;
    for (int d = 0; d < disc.dim; ++d) {
      const double c = xyz[d]->col(k).mean();  // the nodes' mean is the centroid (symmetric node sets)
      in = in && c > lo[static_cast<std::size_t>(d)] && c < hi[static_cast<std::size_t>(d)];
    }
    inside[static_cast<std::size_t>(k)] = in ? 1 : 0;
  }
  return inside;
}

std::pair<Point, Point> node_bounds(const Discretization& disc) {
  Point min{std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity(), 0};
  Point max{-min[0], -min[1], 0};
  if (disc.dim == 3) {
    min[2] = min[0];
    max[2] = max[0];
  }
  const Eigen::MatrixXd* xyz[3] = {&disc.x, &disc.y, &disc.z};
  for (int k = 0; k < disc.K; ++k)
    for (int d = 0; d < disc.dim; ++d) {
      min[static_cast<std::size_t>(d)] = std::min(min[static_cast<std::size_t>(d)], xyz[d]->col(k).minCoeff());
      max[static_cast<std::size_t>(d)] = std::max(max[static_cast<std::size_t>(d)], xyz[d]->col(k).maxCoeff());
    }
  return {min, max};
}

std::string box_text(int dim, const Point& lo, const Point& hi, const Point& min, const Point& max) {
  std::string what = "the far-field box [" + number(lo[0]) + ", " + number(hi[0]) + "] x [" + number(lo[1]) + ", " + number(hi[1]) + "]";
  if (dim == 3) what += " x [" + number(lo[2]) + ", " + number(hi[2]) + "]";
  what += " (the mesh spans [" + number(min[0]) + ", " + number(max[0]) + "] x [" + number(min[1]) + ", " + number(max[1]) + "]";
  if (dim == 3) what += " x [" + number(min[2]) + ", " + number(max[2]) + "]";
  what += ")";
  return what;
}

std::vector<std::pair<int, int>> interface_faces(const mesh::Mesh& mesh, const std::vector<char>& inside,
                                                 const std::string& what) {
  if (inside.size() != static_cast<std::size_t>(mesh.num_elements()))
    throw Error("interface_faces: " + std::to_string(inside.size()) + " flags for " + std::to_string(mesh.num_elements()) +
                " elements");
  return detail::interface_faces(mesh, [&](int k) { return inside[static_cast<std::size_t>(k)] != 0; }, what);
}

HuygensSurface huygens_surface_box(const Discretization& disc, const mesh::Mesh& mesh, const Point& lo, const Point& hi) {
  const std::vector<char> inside = elements_in_box(disc, lo, hi);
  const auto [min, max] = node_bounds(disc);
  return huygens_surface(disc, interface_faces(mesh, inside, box_text(disc.dim, lo, hi, min, max)));
}

HuygensSurface huygens_surface_region(const Discretization& disc, const mesh::Mesh& mesh, std::string_view name) {
  const auto found = std::find(mesh.region_names.begin(), mesh.region_names.end(), name);
  if (found == mesh.region_names.end()) {
    std::string list;
    for (const std::string& n : mesh.region_names) list += (list.empty() ? "" : ", ") + n;
    throw Error("the mesh has no region '" + std::string(name) + "'; its regions: " + (list.empty() ? "(none)" : list));
  }
  const int region = static_cast<int>(found - mesh.region_names.begin());
  const auto faces = detail::interface_faces(
      mesh, [&](int k) { return mesh.element_region[static_cast<std::size_t>(k)] == region; },
      "the far-field region '" + std::string(name) + "'");
  return huygens_surface(disc, faces);
}

HuygensSurface huygens_surface_boundary(const Discretization& disc, std::string_view name) {
  const BoundaryNodes& b = disc.boundary(name);
  std::vector<std::pair<int, int>> faces;
  for (std::size_t i = 0; i < b.elements.size(); ++i) faces.emplace_back(b.elements[i], b.faces[i]);
  if (faces.empty()) throw Error("the mesh boundary '" + std::string(name) + "' has no faces");
  return huygens_surface(disc, faces);
}

std::vector<std::pair<int, int>> boundary_group_faces(const mesh::Mesh& mesh, std::string_view name) {
  const auto found = std::find(mesh.boundary_names.begin(), mesh.boundary_names.end(), name);
  if (found == mesh.boundary_names.end()) {
    std::string known;
    for (const std::string& n : mesh.boundary_names) known += (known.empty() ? "" : ", ") + n;
      throw Error("dg: the mesh has no boundary named '" + std::string(name) + "'; its boundaries are: " +
                (known.empty() ? std::string("(none)") : known));
  }
  const int group = static_cast<int>(found - mesh.boundary_names.begin());
  std::vector<std::pair<int, int>> faces;
  for (const mesh::BoundaryFace& f : mesh.boundary_faces)
    if (f.group == group) faces.emplace_back(f.element, f.face);
  std::sort(faces.begin(), faces.end());
  if (faces.empty()) throw Error("the mesh boundary '" + std::string(name) + "' has no faces");
  return faces;
}

}  // namespace rtdg::dg
