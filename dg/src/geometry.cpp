// Geometric factors, normals and surface Jacobians (book GeometricFactors2D/3D,
// Normals2D/3D), written once for both dimensions where the book has two copies.
#include "dg/basis.hpp"
#include "dg/cubature.hpp"
#include "dg/error.hpp"
#include "discretization_steps.hpp"
#include "index.hpp"

#include <array>
#include <cmath>
#include <limits>
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

// dx_d/dr_a at the nodes of element k: A[a][d] (Np each), the isoparametric map's derivatives.
std::array<std::array<Eigen::VectorXd, 3>, 3> map_derivatives(const Discretization& d, Eigen::Index k) {
  const Element& e = d.element;
  const Eigen::MatrixXd* D[3] = {&e.Dr, &e.Ds, &e.Dt};
  const Eigen::MatrixXd* X[3] = {&d.x, &d.y, &d.z};
  std::array<std::array<Eigen::VectorXd, 3>, 3> A;
  for (int a = 0; a < d.dim; ++a)
    for (int x = 0; x < d.dim; ++x) A[ix(a)][ix(x)] = *D[a] * X[x]->col(k);
  return A;
}

double determinant_at(const std::array<std::array<Eigen::VectorXd, 3>, 3>& A, int dim, Eigen::Index i,
                      Eigen::Matrix3d& jacobian) {
  jacobian.setIdentity();
  for (int a = 0; a < dim; ++a)
    for (int x = 0; x < dim; ++x) jacobian(x, a) = A[ix(a)][ix(x)](i);
  return jacobian.topLeftCorner(dim, dim).determinant();
}

[[noreturn]] void fail_curved_jacobian(const Discretization& d, int k, Eigen::Index node, double J, bool cubature) {
  std::ostringstream message;
  message << "dg: curved element " << k << " has volume Jacobian J = " << J << " <= 0 at its worst "
          << (cubature ? "cubature point " : "node ") << node;
  if (!cubature) {
    message << " (" << d.x(node, k) << ", " << d.y(node, k);
    if (d.dim == 3) message << ", " << d.z(node, k);
    message << ")";
  }
  message << " at order " << d.element.N
          << ": its polynomial map folds the element; refine the mesh near the curved boundary, let Gmsh untangle "
             "it (Mesh.HighOrderOptimize = 2), or use a higher order";
  throw Error(message.str());
}

// Curved elements: per-node factors from the isoparametric map and the weight-adjusted mass
// matrix's pieces (discretization.hpp).
void compute_curved_factors(const mesh::Mesh& mesh, Discretization& d) {
  (void)mesh;
  const Element& e = d.element;
  const int dim = d.dim;
  std::array<std::array<Eigen::MatrixXd*, 3>, 3> grad = {{{&d.rx, &d.ry, &d.rz},
                                                           {&d.sx, &d.sy, &d.sz},
                                                           {&d.tx, &d.ty, &d.tz}}};
  // The cubature: exact for degree 2N + 3, so M_{1/J} is integrated to well past the order of
  // the scheme for smooth J.
  const Cubature cubature = collapsed_cubature(e.shape, weight_adjusted_cubature(e.N));
  const Eigen::MatrixXd Vc = vandermonde(e.shape, e.N, cubature.points);
  d.Vq = Vc * e.invV;                                                    // Nq x Np
  d.wq = cubature.weights;
  d.Pq = e.V * e.V.transpose() * d.Vq.transpose() * cubature.weights.asDiagonal();  // M^-1 Vq^T W
  const Eigen::Index Nq = d.Vq.rows();
  d.Jq.resize(Nq, static_cast<Eigen::Index>(d.curved.size()));
  Eigen::Matrix3d jacobian;
  for (std::size_t c = 0; c < d.curved.size(); ++c) {
    const int k = d.curved[c];
    const auto A = map_derivatives(d, k);
    Eigen::Index worst = 0;
    double worst_J = std::numeric_limits<double>::infinity();
    for (Eigen::Index i = 0; i < e.Np; ++i) {
      const double J = determinant_at(A, dim, i, jacobian);
      if (J < worst_J || std::isnan(J)) {
        worst_J = J;
        worst = i;
      }
      d.J(i, k) = J;
      const Eigen::Matrix3d G = jacobian.inverse();
      for (int r = 0; r < dim; ++r)
        for (int x = 0; x < dim; ++x) (*grad[ix(r)][ix(x)])(i, k) = G(r, x);
    }
    if (!(worst_J > 0.0)) fail_curved_jacobian(d, k, worst, worst_J, false);
    // J at the cubature points: dx/dr is a polynomial of degree N - 1, interpolated exactly.
    std::array<std::array<Eigen::VectorXd, 3>, 3> Aq;
    for (int a = 0; a < dim; ++a)
      for (int x = 0; x < dim; ++x) Aq[ix(a)][ix(x)] = d.Vq * A[ix(a)][ix(x)];
    for (Eigen::Index q = 0; q < Nq; ++q) {
      const double J = determinant_at(Aq, dim, q, jacobian);
      if (!(J > 0.0)) fail_curved_jacobian(d, k, q, J, true);
      d.Jq(q, static_cast<Eigen::Index>(c)) = J;
    }
  }
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
  if (!d.curved.empty()) compute_curved_factors(mesh, d);
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
