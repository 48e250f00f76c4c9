// Geometric factors, normals and surface Jacobians (book GeometricFactors2D/3D,
// Normals2D/3D), written once for both dimensions where the book has two copies.
#include "dg/error.hpp"
#include "discretization_steps.hpp"
#include "index.hpp"

#include <array>
#include <cmath>
#include <sstream>

namespace rtdg::dg::detail {
namespace {

// Gradient of the function that is constant on face f and grows outwards, in reference
// coordinates (r, s, t): the book's unnormalised reference normals.
std::array<double, 3> reference_normal(Shape shape, int f) {
  static constexpr std::array<std::array<double, 3>, 3> triangle = {{{0, -1, 0}, {1, 1, 0}, {-1, 0, 0}}};
  static constexpr std::array<std::array<double, 3>, 4> tetrahedron = {
      {{0, 0, -1}, {0, -1, 0}, {1, 1, 1}, {-1, 0, 0}}};
  return shape == Shape::triangle ? triangle[ix(f)]
                                  : tetrahedron[ix(f)];
}

[[noreturn]] void fail_jacobian(const mesh::Mesh& mesh, int k, double J) {
  std::ostringstream message;
  message << "dg: element " << k << " has volume Jacobian J = " << J << " <= 0 (vertices";
  const auto corners = mesh::element_corners(mesh, k);
  for (int v = 0; v <= mesh.dim; ++v) {
    const auto& c = corners[ix(v)];
    message << " (" << c[0] << ", " << c[1];
    if (mesh.dim == 3) message << ", " << c[2];
    message << ")";
  }
  message << "): the element is degenerate or inverted (its vertices must be counter-clockwise in 2D, of "
             "positive volume in 3D); rtdg's mesh readers (rtdg mesh, mesh::load_mesh) orient elements and "
             "refuse degenerate ones, naming the file";
  throw Error(message.str());
}

}  // namespace

void compute_geometric_factors(const mesh::Mesh& mesh, Discretization& d) {
  // rtdg's elements are straight-sided simplices, x = sum_v lambda_v(r) c_v, so dx/dr_c =
  // (c_{c+1} - c_0) / 2 is constant per element. Taking it from the vertex differences keeps
  // full precision where the book's Dr * x would lose digits on a mesh far from the origin
  // (rounding of x is relative to |x|, not to the element size).
  const Eigen::Index Np = d.element.Np;
  const auto dim = static_cast<Eigen::Index>(d.dim);
  d.J.resize(Np, d.K);
  std::array<std::array<Eigen::MatrixXd*, 3>, 3> grad = {{{&d.rx, &d.ry, &d.rz},
                                                           {&d.sx, &d.sy, &d.sz},
                                                           {&d.tx, &d.ty, &d.tz}}};
  for (Eigen::Index c = 0; c < dim; ++c)
    for (Eigen::Index x = 0; x < dim; ++x) grad[ix(c)][ix(x)]->resize(Np, d.K);

  for (int k = 0; k < d.K; ++k) {
    const auto corners = mesh::element_corners(mesh, k);
    Eigen::Matrix3d A = Eigen::Matrix3d::Identity();  // A(x, c) = d x / d r_c
    for (Eigen::Index c = 0; c < dim; ++c)
      for (Eigen::Index x = 0; x < dim; ++x)
        A(x, c) = 0.5 * (corners[ix(c + 1)][ix(x)] -
                         corners[0][ix(x)]);
    const double J = A.topLeftCorner(dim, dim).determinant();
    d.J.col(k).setConstant(J);
    if (!(J > 0.0)) fail_jacobian(mesh, k, J);
    const Eigen::Matrix3d G = A.inverse();  // G(c, x) = d r_c / d x
    for (Eigen::Index c = 0; c < dim; ++c)
      for (Eigen::Index x = 0; x < dim; ++x)
        grad[ix(c)][ix(x)]->col(k).setConstant(G(c, x));
  }
}

void compute_normals(Discretization& d) {
  const Element& e = d.element;
  const Eigen::Index rows = e.Nfaces * e.Nfp;
  d.nx.resize(rows, d.K);
  d.ny.resize(rows, d.K);
  if (d.dim == 3) d.nz.resize(rows, d.K);
  d.sJ.resize(rows, d.K);
  d.Fscale.resize(rows, d.K);

  // grad[c][d]: d(r_c)/d(x_d), the rows of the inverse Jacobian matrix.
  const Eigen::MatrixXd empty;
  const std::array<std::array<const Eigen::MatrixXd*, 3>, 3> grad = {{
      {&d.rx, &d.ry, d.dim == 3 ? &d.rz : &empty},
      {&d.sx, &d.sy, d.dim == 3 ? &d.sz : &empty},
      {d.dim == 3 ? &d.tx : &empty, d.dim == 3 ? &d.ty : &empty, d.dim == 3 ? &d.tz : &empty},
  }};
  // Element by element: the arrays are column-major [row][k], so each element's column is
  // contiguous (a loop over k inside would stride a column apart for every entry: at order 7 on
  // 205k tets that was a tenth of a whole discretization's time).
  for (Eigen::Index k = 0; k < d.K; ++k) {
    for (int f = 0; f < e.Nfaces; ++f) {
      const std::array<double, 3> n_ref = reference_normal(e.shape, f);
      for (Eigen::Index j = 0; j < e.Nfp; ++j) {
        const Eigen::Index i = e.Fmask(j, f);
        const Eigen::Index row = f * e.Nfp + j;
        // n = sum_c n_ref[c] grad(r_c): the physical gradient of the face's defining
        // function. Its length times J is the face measure per reference face measure.
        std::array<double, 3> n = {0.0, 0.0, 0.0};
        for (std::size_t c = 0; c < ix(d.dim); ++c) {
          if (n_ref[c] == 0.0) continue;
          for (std::size_t xd = 0; xd < ix(d.dim); ++xd) n[xd] += n_ref[c] * (*grad[c][xd])(i, k);
        }
        const double length = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        d.nx(row, k) = n[0] / length;
        d.ny(row, k) = n[1] / length;
        if (d.dim == 3) d.nz(row, k) = n[2] / length;
        d.sJ(row, k) = length * d.J(i, k);
        d.Fscale(row, k) = d.sJ(row, k) / d.J(i, k);
      }
    }
  }
}

}  // namespace rtdg::dg::detail
