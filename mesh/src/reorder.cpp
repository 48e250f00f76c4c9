#include "mesh/reorder.hpp"

#include "mesh/geometry_nodes.hpp"

#include "text.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <numeric>
#include <string>

namespace rtdg::mesh {
namespace {

std::size_t ix(int i) { return static_cast<std::size_t>(i); }

// The 21 low bits of v spread to every third bit.
std::uint64_t spread(std::uint64_t v) {
  v &= 0x1fffff;
  v = (v | v << 32) & 0x1f00000000ffffULL;
  v = (v | v << 16) & 0x1f0000ff0000ffULL;
  v = (v | v << 8) & 0x100f00f00f00f00fULL;
  v = (v | v << 4) & 0x10c30c30c30c30c3ULL;
  v = (v | v << 2) & 0x1249249249249249ULL;
  return v;
}

}  // namespace

std::vector<int> morton_order(const Mesh& mesh) {
  const int K = mesh.num_elements(), nv = mesh.num_element_vertices();
  std::array<double, 3> lo{}, hi{};
  lo.fill(std::numeric_limits<double>::infinity());
  hi.fill(-std::numeric_limits<double>::infinity());
  for (const auto& v : mesh.vertices)
    for (std::size_t d = 0; d < 3; ++d) {
      lo[d] = std::min(lo[d], v[d]);
      hi[d] = std::max(hi[d], v[d]);
    }
  std::vector<std::uint64_t> code(ix(K));
  for (int k = 0; k < K; ++k) {
    std::uint64_t c = 0;
    for (std::size_t d = 0; d < 3; ++d) {
      double centroid = 0;
      for (int i = 0; i < nv; ++i) centroid += mesh.vertices[ix(mesh.EToV[ix(k)][ix(i)])][d];
      centroid /= nv;
      const double extent = hi[d] - lo[d];
      const double unit = extent > 0 ? (centroid - lo[d]) / extent : 0.0;
      const auto cell = static_cast<std::uint64_t>(std::clamp(unit, 0.0, 1.0) * 2097151.0);
      c |= spread(cell) << d;
    }
    code[ix(k)] = c;
  }
  std::vector<int> order(ix(K));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return code[ix(a)] < code[ix(b)]; });
  return order;
}

Mesh reorder_elements(const Mesh& mesh, std::span<const int> order, std::string_view source) {
  const int K = mesh.num_elements();
  if (order.size() != ix(K)) detail::fail(source, "an element order needs " + std::to_string(K) + " entries, got " + std::to_string(order.size()));
  std::vector<int> renumber(ix(K), -1);  // old element -> new
  for (std::size_t i = 0; i < order.size(); ++i) {
    const int old = order[i];
    if (old < 0 || old >= K || renumber[ix(old)] >= 0)
      detail::fail(source, "the element order is not a permutation of the " + std::to_string(K) + " elements (entry " +
                       std::to_string(i) + " = " + std::to_string(old) + ")");
    renumber[ix(old)] = static_cast<int>(i);
  }
  Mesh out = mesh;
  const bool matches = mesh.face_vertex_match.size() == ix(K);
  const bool regions = mesh.element_region.size() == ix(K);
  for (int i = 0; i < K; ++i) {
    const int old = order[ix(i)];
    out.EToV[ix(i)] = mesh.EToV[ix(old)];
    if (matches) out.face_vertex_match[ix(i)] = mesh.face_vertex_match[ix(old)];
    if (regions) out.element_region[ix(i)] = mesh.element_region[ix(old)];
    if (mesh.EToE.size() == ix(K)) {
      out.EToF[ix(i)] = mesh.EToF[ix(old)];
      for (std::size_t f = 0; f < 4; ++f) {
        const int neighbour = mesh.EToE[ix(old)][f];
        out.EToE[ix(i)][f] = neighbour >= 0 ? renumber[ix(neighbour)] : neighbour;
      }
    }
  }
  const auto by_face = [](const auto& a, const auto& b) { return std::pair(a.element, a.face) < std::pair(b.element, b.face); };
  if (mesh.geometry_order > 1) {
    const std::size_t size = ix(lattice_size(mesh.dim, mesh.geometry_order));
    for (int i = 0; i < K; ++i)
      std::copy_n(mesh.element_nodes.begin() + static_cast<std::ptrdiff_t>(ix(order[ix(i)]) * size), size,
                  out.element_nodes.begin() + static_cast<std::ptrdiff_t>(ix(i) * size));
  }
  for (BoundaryFace& b : out.boundary_faces) b.element = renumber[ix(b.element)];
  std::sort(out.boundary_faces.begin(), out.boundary_faces.end(), by_face);
  for (PeriodicFace& p : out.periodic_faces) p.element = renumber[ix(p.element)];
  std::sort(out.periodic_faces.begin(), out.periodic_faces.end(), by_face);
  return out;
}

double mean_neighbour_distance(const Mesh& mesh) {
  double total = 0;
  long long faces = 0;
  for (int k = 0; k < mesh.num_elements(); ++k)
    for (int f = 0; f < mesh.num_faces(); ++f) {
      const int neighbour = mesh.EToE[ix(k)][ix(f)];
      if (neighbour == k) continue;
      total += std::abs(neighbour - k);
      ++faces;
    }
  return faces ? total / static_cast<double>(faces) : 0.0;
}

}  // namespace rtdg::mesh
