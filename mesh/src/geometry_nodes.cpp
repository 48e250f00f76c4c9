// The order-p lattice of high-order element geometry (geometry_nodes.hpp): numbering, the
// Lagrange basis by Silvester's product formula, curved-element detection, Jacobian checks.
#include "mesh/geometry_nodes.hpp"

#include "text.hpp"
#include "vec3.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace rtdg::mesh {
namespace {

using detail::fail;
using detail::ix;

// R_n(x) = prod_{q<n} (p x - q) / (q + 1) and its derivative: the 1D factor of Silvester's
// formula (1 at x = n/p, 0 at x = 0, 1/p, .., (n-1)/p).
std::pair<double, double> silvester(int n, int p, double x) {
  double value = 1.0;
  double derivative = 0.0;
  for (int q = 0; q < n; ++q) {
    const double factor = (p * x - q) / (q + 1);
    derivative = derivative * factor + value * p / (q + 1);
    value *= factor;
  }
  return {value, derivative};
}

double determinant(const std::array<std::array<double, 3>, 3>& A, int dim) {
  if (dim == 2) return A[0][0] * A[1][1] - A[0][1] * A[1][0];
  return A[0][0] * (A[1][1] * A[2][2] - A[1][2] * A[2][1]) - A[0][1] * (A[1][0] * A[2][2] - A[1][2] * A[2][0]) +
         A[0][2] * (A[1][0] * A[2][1] - A[1][1] * A[2][0]);
}

// A[d][a] = dx_d / dr_a of element k's map at reference point r.
std::array<std::array<double, 3>, 3> map_jacobian(const Mesh& mesh, int k, const std::array<double, 3>& r) {
  std::vector<double> values;
  std::array<std::vector<double>, 3> derivatives;
  lattice_basis(mesh.dim, mesh.geometry_order, r, values, &derivatives);
  const std::array<double, 3>* X = element_geometry_nodes(mesh, k);
  std::array<std::array<double, 3>, 3> A{};
  for (std::size_t n = 0; n < values.size(); ++n)
    for (int d = 0; d < mesh.dim; ++d)
      for (int a = 0; a < mesh.dim; ++a) A[ix(d)][ix(a)] += X[n][ix(d)] * derivatives[ix(a)][n];
  return A;
}

std::string reference_text(int dim, const std::array<double, 3>& r) {
  std::string text = "(r, s" + std::string(dim == 3 ? ", t" : "") + ") = (" + detail::format_number(r[0]) + ", " +
                     detail::format_number(r[1]);
  if (dim == 3) text += ", " + detail::format_number(r[2]);
  return text + ")";
}

}  // namespace

int lattice_size(int dim, int p) {
  return dim == 2 ? (p + 1) * (p + 2) / 2 : (p + 1) * (p + 2) * (p + 3) / 6;
}

int lattice_index(int dim, int p, int i, int j, int l) {
  if (i < 0 || j < 0 || l < 0 || i + j + l > p || (dim == 2 && l != 0)) return -1;
  // Nodes before layer l (l' < l), then rows j' < j of layer l, then i.
  int index = 0;
  for (int lp = 0; lp < l; ++lp) index += (p - lp + 1) * (p - lp + 2) / 2;
  const int q = p - l;  // the layer is a triangle lattice of order q
  for (int jp = 0; jp < j; ++jp) index += q - jp + 1;
  return index + i;
}

std::array<int, 3> lattice_multi_index(int dim, int p, int n) {
  for (int l = 0; l <= (dim == 3 ? p : 0); ++l)
    for (int j = 0; j + l <= p; ++j)
      for (int i = 0; i + j + l <= p; ++i)
        if (n-- == 0) return {i, j, l};
  return {-1, -1, -1};
}

std::array<double, 3> lattice_point(int dim, int p, int n) {
  const std::array<int, 3> m = lattice_multi_index(dim, p, n);
  std::array<double, 3> r{};
  for (int a = 0; a < dim; ++a) r[ix(a)] = -1.0 + 2.0 * m[ix(a)] / p;
  return r;
}

void lattice_basis(int dim, int p, const std::array<double, 3>& r, std::vector<double>& values,
                   std::array<std::vector<double>, 3>* derivatives) {
  const int size = lattice_size(dim, p);
  values.assign(ix(size), 0.0);
  if (derivatives != nullptr)
    for (auto& d : *derivatives) d.assign(ix(size), 0.0);
  // Barycentric coordinates: lambda_{a+1} = (1 + r_a) / 2, lambda_0 = 1 - the others.
  std::array<double, 4> lambda{1.0, 0.0, 0.0, 0.0};
  for (int a = 0; a < dim; ++a) {
    lambda[ix(a + 1)] = 0.5 * (1.0 + r[ix(a)]);
    lambda[0] -= lambda[ix(a + 1)];
  }
  for (int n = 0; n < size; ++n) {
    const std::array<int, 3> m = lattice_multi_index(dim, p, n);
    const std::array<int, 4> beta{p - m[0] - m[1] - m[2], m[0], m[1], m[2]};
    std::array<std::pair<double, double>, 4> factor{};
    for (int v = 0; v <= dim; ++v) factor[ix(v)] = silvester(beta[ix(v)], p, lambda[ix(v)]);
    double value = 1.0;
    for (int v = 0; v <= dim; ++v) value *= factor[ix(v)].first;
    values[ix(n)] = value;
    if (derivatives == nullptr) continue;
    // dL/dlambda_v: the product with factor v differentiated.
    std::array<double, 4> dlambda{};
    for (int v = 0; v <= dim; ++v) {
      double product = factor[ix(v)].second;
      for (int w = 0; w <= dim; ++w)
        if (w != v) product *= factor[ix(w)].first;
      dlambda[ix(v)] = product;
    }
    for (int a = 0; a < dim; ++a) (*derivatives)[ix(a)][ix(n)] = 0.5 * (dlambda[ix(a + 1)] - dlambda[0]);
  }
}

std::vector<int> lattice_swap_v1_v2(int dim, int p) {
  // Swapping vertices 1 and 2 swaps barycentric coordinates 1 and 2: (i, j, l) -> (j, i, l).
  const int size = lattice_size(dim, p);
  std::vector<int> permutation(ix(size));
  for (int n = 0; n < size; ++n) {
    const std::array<int, 3> m = lattice_multi_index(dim, p, n);
    permutation[ix(n)] = lattice_index(dim, p, m[1], m[0], m[2]);
  }
  return permutation;
}

const std::array<double, 3>* element_geometry_nodes(const Mesh& mesh, int k) {
  return mesh.element_nodes.data() + static_cast<std::ptrdiff_t>(k) * lattice_size(mesh.dim, mesh.geometry_order);
}

bool is_curved(const Mesh& mesh, int k) {
  if (mesh.geometry_order <= 1) return false;
  const int size = lattice_size(mesh.dim, mesh.geometry_order);
  const auto corners = element_corners(mesh, k);
  const std::array<double, 3>* X = element_geometry_nodes(mesh, k);
  const double tolerance = kCurvedTolerance * longest_edge(mesh, k);
  for (int n = 0; n < size; ++n) {
    const std::array<double, 3> r = lattice_point(mesh.dim, mesh.geometry_order, n);
    std::array<double, 3> affine = corners[0];
    for (int a = 0; a < mesh.dim; ++a)
      for (std::size_t d = 0; d < 3; ++d) affine[d] += 0.5 * (1.0 + r[ix(a)]) * (corners[ix(a + 1)][d] - corners[0][d]);
    if (detail::distance(affine, X[n]) > tolerance) return true;
  }
  return false;
}

std::vector<int> curved_elements(const Mesh& mesh) {
  std::vector<int> curved;
  for (int k = 0; k < mesh.num_elements(); ++k)
    if (is_curved(mesh, k)) curved.push_back(k);
  return curved;
}

WorstJacobian worst_jacobian(const Mesh& mesh, int k) {
  const auto corners = element_corners(mesh, k);
  std::array<std::array<double, 3>, 3> affine{};
  for (int a = 0; a < mesh.dim; ++a)
    for (int d = 0; d < mesh.dim; ++d) affine[ix(d)][ix(a)] = 0.5 * (corners[ix(a + 1)][ix(d)] - corners[0][ix(d)]);
  const double J_affine = determinant(affine, mesh.dim);
  WorstJacobian worst{0.0, std::numeric_limits<double>::infinity(), 0};
  const int size = lattice_size(mesh.dim, mesh.geometry_order);
  for (int n = 0; n < size; ++n) {
    const double J = determinant(map_jacobian(mesh, k, lattice_point(mesh.dim, mesh.geometry_order, n)), mesh.dim);
    const double ratio = J / J_affine;
    if (ratio < worst.ratio || std::isnan(ratio)) worst = {J, ratio, n};
  }
  return worst;
}

double mapped_volume(const Mesh& mesh) {
  if (mesh.geometry_order <= 1) return total_volume(mesh);
  // 6-point Gauss-Legendre on [-1, 1].
  static constexpr std::array<double, 6> x{-0.9324695142031521, -0.6612093864662645, -0.2386191860831969,
                                           0.2386191860831969,  0.6612093864662645,  0.9324695142031521};
  static constexpr std::array<double, 6> w{0.1713244923791704, 0.3607615730481386, 0.4679139345726910,
                                           0.4679139345726910, 0.3607615730481386, 0.1713244923791704};
  const std::size_t nc = mesh.dim == 3 ? 6 : 1;
  double volume = 0;
  for (int k = 0; k < mesh.num_elements(); ++k) {
    if (!is_curved(mesh, k)) {
      volume += signed_volume(mesh.type, element_corners(mesh, k));
      continue;
    }
    for (std::size_t i = 0; i < 6; ++i)
      for (std::size_t j = 0; j < 6; ++j)
        for (std::size_t l = 0; l < nc; ++l) {
          // The Duffy collapse of the square (cube) onto the reference simplex and its Jacobian.
          const double c = mesh.dim == 3 ? x[l] : -1.0;
          std::array<double, 3> r{};
          double weight = w[i] * w[j];
          if (mesh.dim == 2) {
            r = {0.5 * (1 + x[i]) * (1 - x[j]) - 1, x[j], 0.0};
            weight *= 0.5 * (1 - x[j]);
          } else {
            r = {0.25 * (1 + x[i]) * (1 - x[j]) * (1 - c) - 1, 0.5 * (1 + x[j]) * (1 - c) - 1, c};
            weight *= w[l] * 0.125 * (1 - x[j]) * (1 - c) * (1 - c);
          }
          volume += weight * determinant(map_jacobian(mesh, k, r), mesh.dim);
        }
  }
  return volume;
}

void validate_geometry_nodes(const Mesh& mesh, std::string_view source, Validation level) {
  if (mesh.geometry_order < 1) fail(source, "geometry order " + std::to_string(mesh.geometry_order) + " (must be 1 or more)");
  if (mesh.geometry_order == 1) {
    if (!mesh.element_nodes.empty()) fail(source, "a mesh of geometry order 1 stores no element nodes");
    return;
  }
  const int p = mesh.geometry_order;
  const int size = lattice_size(mesh.dim, p);
  if (mesh.element_nodes.size() != ix(mesh.num_elements()) * ix(size)) {
    fail(source, "element_nodes has " + std::to_string(mesh.element_nodes.size()) + " nodes for " +
                     std::to_string(mesh.num_elements()) + " elements of geometry order " + std::to_string(p) + " (" +
                     std::to_string(size) + " each)");
  }
  for (int k = 0; k < mesh.num_elements(); ++k) {
    const std::array<double, 3>* X = element_geometry_nodes(mesh, k);
    for (int n = 0; n < size; ++n)
      for (const double c : X[n])
        if (!std::isfinite(c)) fail(source, "element " + std::to_string(k) + ": geometry node " + std::to_string(n) + " is not finite");
    for (int v = 0; v < mesh.num_element_vertices(); ++v) {
      const int corner = lattice_index(mesh.dim, p, v == 1 ? p : 0, v == 2 ? p : 0, v == 3 ? p : 0);
      const auto& vertex = mesh.vertices[ix(mesh.EToV[ix(k)][ix(v)])];
      if (detail::distance(X[corner], vertex) > 1e-12 * std::max(1.0, longest_edge(mesh, k))) {
        fail(source, "element " + std::to_string(k) + ": geometry node " + std::to_string(corner) + " at " +
                         detail::format_point(X[corner]) + " is not its vertex " + std::to_string(v) + " at " +
                         detail::format_point(vertex));
      }
    }
    if (mesh.dim == 2)
      for (int n = 0; n < size; ++n)
        if (X[n][2] != 0.0) fail(source, "element " + std::to_string(k) + ": geometry node " + std::to_string(n) + " of a 2D mesh has z != 0");
  }
  if (level != Validation::full) return;
  for (int k = 0; k < mesh.num_elements(); ++k) {
    if (!is_curved(mesh, k)) continue;
    const WorstJacobian worst = worst_jacobian(mesh, k);
    if (worst.ratio >= kMinJacobianRatio) continue;
    const std::array<double, 3> r = lattice_point(mesh.dim, p, worst.node);
    const std::string where = std::to_string(worst.node) + ", " + reference_text(mesh.dim, r) + " at " +
                              detail::format_point(element_geometry_nodes(mesh, k)[worst.node]);
    if (!(worst.ratio > 0.0)) {
      fail(source, "element " + std::to_string(k) + " of geometry order " + std::to_string(p) +
                       " is inverted: its Jacobian det(dx/dr) = " + detail::format_number(worst.J) + " (" +
                       detail::format_number(worst.ratio) + " times the straight element's) at its worst node " + where +
                       "; the high-order nodes fold the element: refine the mesh near curved boundaries or let Gmsh "
                       "untangle it (Mesh.HighOrderOptimize = 2)");
    }
    fail(source, "element " + std::to_string(k) + " of geometry order " + std::to_string(p) +
                     " is nearly folded: its Jacobian det(dx/dr) falls to " + detail::format_number(worst.ratio) +
                     " times the straight element's (below " + detail::format_number(kMinJacobianRatio) +
                     ") at its worst node " + where +
                     "; the curved scheme is unstable on elements this distorted (docs/curved.md, \"Stability\"): refine "
                     "the mesh near curved boundaries or let Gmsh optimize it (Mesh.HighOrderOptimize = 2, and "
                     "Mesh.HighOrderThresholdMin = 0.3 if that is not enough)");
  }
}

}  // namespace rtdg::mesh
