// Permutation from the equispaced lattice to VTK's Lagrange cell point order (VTK >= 8.1,
// vtkHigherOrderCurve/Triangle/Tetra). VTK numbers a cell of order m recursively:
//   vertices; the m-1 points of each edge, from its first vertex to its second; the points
//   inside each face, numbered as a triangle of order m-3 whose corners are inset one step
//   from the face's vertices; then the interior as a cell of order m-4 (tetrahedron) or
//   m-3 (triangle) inset one step from every face.
// Edges (vtkTetra): (0,1) (1,2) (2,0) (0,3) (1,3) (2,3). Faces, each listed from the vertex
// VTK starts its interior points at: (0,1,3) (2,3,1) (0,3,2) (0,2,1).
// The test in tests/dg checks this against VTK's own parametric coordinates when VTK is found.
#include "dg/equispaced.hpp"

#include "dg/error.hpp"
#include "lattice.hpp"

#include <array>
#include <map>
#include <string>

namespace rtdg::dg {
namespace {

using Point = std::array<int, 3>;  // lattice indices (i, j, k)

Point operator+(Point a, Point b) { return {a[0] + b[0], a[1] + b[1], a[2] + b[2]}; }
Point operator-(Point a, Point b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
Point scaled(Point a, int numerator, int denominator) {
  return {a[0] * numerator / denominator, a[1] * numerator / denominator,
          a[2] * numerator / denominator};
}

// The m-1 points strictly inside the segment a -> b of order m, from a to b.
void add_edge(std::vector<Point>& out, Point a, Point b, int m) {
  for (int q = 1; q < m; ++q) out.push_back(a + scaled(b - a, q, m));
}

// One step from corner a towards each of the other corners, for a simplex of order m.
Point inset(Point a, std::initializer_list<Point> others, int m) {
  Point p = a;
  for (const Point& o : others) p = p + scaled(o - a, 1, m);
  return p;
}

void add_curve(std::vector<Point>& out, Point a, Point b, int m) {
  out.push_back(a);
  out.push_back(b);
  add_edge(out, a, b, m);
}

void add_triangle(std::vector<Point>& out, Point a, Point b, Point c, int m) {
  if (m == 0) {
    out.push_back(a);
    return;
  }
  out.insert(out.end(), {a, b, c});
  add_edge(out, a, b, m);
  add_edge(out, b, c, m);
  add_edge(out, c, a, m);
  if (m >= 3) add_triangle(out, inset(a, {b, c}, m), inset(b, {c, a}, m), inset(c, {a, b}, m), m - 3);
}

void add_tetrahedron(std::vector<Point>& out, const std::array<Point, 4>& v, int m) {
  if (m == 0) {
    out.push_back(v[0]);
    return;
  }
  out.insert(out.end(), v.begin(), v.end());
  constexpr std::array<std::array<std::size_t, 2>, 6> edges = {{{0, 1}, {1, 2}, {2, 0}, {0, 3}, {1, 3}, {2, 3}}};
  for (const auto& e : edges) add_edge(out, v[e[0]], v[e[1]], m);
  if (m >= 3) {
    constexpr std::array<std::array<std::size_t, 3>, 4> faces = {{{0, 1, 3}, {2, 3, 1}, {0, 3, 2}, {0, 2, 1}}};
    for (const auto& f : faces) {
      const Point a = v[f[0]], b = v[f[1]], c = v[f[2]];
      add_triangle(out, inset(a, {b, c}, m), inset(b, {c, a}, m), inset(c, {a, b}, m), m - 3);
    }
  }
  if (m >= 4) {
    add_tetrahedron(out,
                    {inset(v[0], {v[1], v[2], v[3]}, m), inset(v[1], {v[0], v[2], v[3]}, m),
                     inset(v[2], {v[0], v[1], v[3]}, m), inset(v[3], {v[0], v[1], v[2]}, m)},
                    m - 4);
  }
}

}  // namespace

std::vector<int> vtk_lagrange_permutation(Shape shape, int n) {
  if (n < 1) throw Error("dg: a VTK Lagrange cell needs order n >= 1, got " + std::to_string(n));
  std::vector<Point> vtk_points;
  switch (shape) {
    case Shape::interval: add_curve(vtk_points, {0, 0, 0}, {n, 0, 0}, n); break;
    case Shape::triangle: add_triangle(vtk_points, {0, 0, 0}, {n, 0, 0}, {0, n, 0}, n); break;
    case Shape::tetrahedron:
      add_tetrahedron(vtk_points, {Point{0, 0, 0}, Point{n, 0, 0}, Point{0, n, 0}, Point{0, 0, n}}, n);
      break;
  }
  const auto lattice = detail::lattice_indices(dimension(shape), n);
  std::map<Point, int> lattice_index;
  for (std::size_t p = 0; p < lattice.size(); ++p) lattice_index[lattice[p]] = static_cast<int>(p);

  std::vector<int> perm;
  perm.reserve(vtk_points.size());
  for (const Point& p : vtk_points) perm.push_back(lattice_index.at(p));
  if (perm.size() != lattice.size()) {
    throw Error("dg: internal error: VTK ordering of a " + std::string(shape_name(shape)) +
                " of order " + std::to_string(n) + " has " + std::to_string(perm.size()) +
                " points, the lattice " + std::to_string(lattice.size()));
  }
  return perm;
}

}  // namespace rtdg::dg
