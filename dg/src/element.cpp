// make_element: nodes, Vandermonde, mass, differentiation, Fmask and LIFT of a reference
// element (book StartUp1D/2D/3D, Dmatrices*, Lift1D/2D/3D).
#include "dg/element.hpp"

#include "dg/basis.hpp"
#include "dg/error.hpp"
#include "dg/nodes.hpp"

#include <array>
#include <cmath>
#include <string>
#include <vector>

namespace rtdg::dg {
namespace {

// Nodes closer than this to a face's plane are on the face. The warp & blend nodes on a face
// lie on it to rounding (~1e-15); the nearest interior node is O(1/N^2) away.
constexpr double node_tolerance = 1e-10;

// Distance-like value that is zero exactly on face f (the book's Fmask tests).
double face_equation(Shape shape, int face, double r, double s, double t) {
  switch (shape) {
    case Shape::interval: return face == 0 ? 1.0 + r : 1.0 - r;
    case Shape::triangle: {
      const std::array<double, 3> eq = {1.0 + s, r + s, 1.0 + r};
      return eq[static_cast<std::size_t>(face)];
    }
    case Shape::tetrahedron: {
      const std::array<double, 4> eq = {1.0 + t, 1.0 + s, 1.0 + r + s + t, 1.0 + r};
      return eq[static_cast<std::size_t>(face)];
    }
  }
  return 1.0;
}

Eigen::MatrixXi make_fmask(const Element& e) {
  Eigen::MatrixXi Fmask(e.Nfp, e.Nfaces);
  for (int f = 0; f < e.Nfaces; ++f) {
    std::vector<int> on_face;
    for (Eigen::Index i = 0; i < e.Np; ++i) {
      const double s = e.dim >= 2 ? e.s(i) : 0.0, t = e.dim >= 3 ? e.t(i) : 0.0;
      if (std::abs(face_equation(e.shape, f, e.r(i), s, t)) < node_tolerance) on_face.push_back(static_cast<int>(i));
    }
    if (on_face.size() != static_cast<std::size_t>(e.Nfp)) {
      throw Error("dg: internal error: face " + std::to_string(f) + " of the " +
                  std::string(shape_name(e.shape)) + " of order " + std::to_string(e.N) + " holds " +
                  std::to_string(on_face.size()) + " nodes, not Nfp = " + std::to_string(e.Nfp));
    }
    for (int j = 0; j < e.Nfp; ++j) Fmask(j, f) = on_face[static_cast<std::size_t>(j)];
  }
  return Fmask;
}

// The face's own reference coordinates of its nodes (Nfp x dim-1), the ones the book's
// Lift2D/Lift3D build the face mass matrix in (see element.hpp).
Eigen::MatrixXd face_coordinates(const Element& e, int face) {
  const Eigen::MatrixXd nodes = e.nodes();
  std::array<Eigen::Index, 2> columns{};
  if (e.shape == Shape::triangle) {
    columns = {face == 2 ? 1 : 0, 0};
  } else {
    const std::array<std::array<Eigen::Index, 2>, 4> tet = {{{0, 1}, {0, 2}, {1, 2}, {1, 2}}};
    columns = tet[static_cast<std::size_t>(face)];
  }
  Eigen::MatrixXd coordinates(e.Nfp, e.dim - 1);
  for (Eigen::Index j = 0; j < e.Nfp; ++j) {
    for (Eigen::Index d = 0; d < e.dim - 1; ++d) {
      coordinates(j, d) = nodes(e.Fmask(j, face), columns[static_cast<std::size_t>(d)]);
    }
  }
  return coordinates;
}

// LIFT = V V^T E = M^-1 E, where E (Np x Nfaces*Nfp) holds each face's mass matrix
// (VF VF^T)^-1 in the rows of that face's nodes.
Eigen::MatrixXd make_lift(const Element& e) {
  Eigen::MatrixXd E = Eigen::MatrixXd::Zero(e.Np, e.Nfaces * e.Nfp);
  for (int f = 0; f < e.Nfaces; ++f) {
    Eigen::MatrixXd face_mass = Eigen::MatrixXd::Ones(1, 1);  // a point face: evaluation
    if (e.shape != Shape::interval) {
      const Eigen::MatrixXd VF = vandermonde(face_shape(e.shape), e.N, face_coordinates(e, f));
      face_mass = (VF * VF.transpose()).inverse();
    }
    for (Eigen::Index i = 0; i < e.Nfp; ++i) {
      for (Eigen::Index j = 0; j < e.Nfp; ++j) {
        E(e.Fmask(i, f), f * e.Nfp + j) = face_mass(i, j);
      }
    }
  }
  return e.V * (e.V.transpose() * E);
}

// Entries below this fraction of a matrix's largest entry are rounding noise about an exact
// zero, and are set to zero. Many entries of D_r, D_s, D_t are zero in exact arithmetic: the
// Lagrange polynomial of a node vanishes on every face that does not hold the node (it is a
// polynomial of degree N on the face, zero at the face's nodes, which determine it), so its
// derivative along that face is zero at the face's nodes (on tetrahedra about half the entries
// of D_r, 550 of 1,225 at order 4, and a few more). Computed as Vr V^-1 they come out at
// 1e-16 to 3e-14 of the largest entry, while the smallest true entry up to order 10 is 2e-8 of
// it (both shapes, D and LIFT). Exact zeros let the generated products drop them: operators
// written into the kernels as literals skip zero entries (Plan::operators).
constexpr double rounding_zero = 1e-12;

void drop_rounding_zeros(Eigen::MatrixXd& m) {
  if (m.size() == 0) return;
  const double limit = rounding_zero * m.cwiseAbs().maxCoeff();
  m = m.unaryExpr([limit](double v) { return std::abs(v) < limit ? 0.0 : v; });
}

}  // namespace

Eigen::MatrixXd Element::nodes() const {
  Eigen::MatrixXd n(Np, dim);
  n.col(0) = r;
  if (dim >= 2) n.col(1) = s;
  if (dim >= 3) n.col(2) = t;
  return n;
}

Element make_element(Shape shape, int N) {
  if (N < min_order || N > max_order) {
    throw Error("dg: element order N = " + std::to_string(N) + " is outside the supported range " +
                std::to_string(min_order) + ".." + std::to_string(max_order) + " (" +
                std::string(shape_name(shape)) + ")");
  }
  Element e;
  e.shape = shape;
  e.dim = dimension(shape);
  e.N = N;
  e.Np = num_nodes(shape, N);
  e.Nfp = num_face_nodes(shape, N);
  e.Nfaces = num_faces(shape);

  Eigen::MatrixXd nodes;
  switch (shape) {
    case Shape::interval: nodes = nodes_1d(N); break;
    case Shape::triangle: nodes = nodes_2d(N); break;
    case Shape::tetrahedron: nodes = nodes_3d(N); break;
  }
  e.r = nodes.col(0);
  if (e.dim >= 2) e.s = nodes.col(1);
  if (e.dim >= 3) e.t = nodes.col(2);

  e.V = vandermonde(shape, N, nodes);
  e.invV = e.V.inverse();
  // Orthonormal modes: the mass matrix of the nodal basis is (V V^T)^-1 = invV^T invV.
  e.M = e.invV.transpose() * e.invV;
  const std::vector<Eigen::MatrixXd> grad_V = grad_vandermonde(shape, N, nodes);
  e.Dr = grad_V[0] * e.invV;
  if (e.dim >= 2) e.Ds = grad_V[1] * e.invV;
  if (e.dim >= 3) e.Dt = grad_V[2] * e.invV;

  e.Fmask = make_fmask(e);
  e.LIFT = make_lift(e);
  drop_rounding_zeros(e.Dr);
  drop_rounding_zeros(e.Ds);
  drop_rounding_zeros(e.Dt);
  drop_rounding_zeros(e.LIFT);
  return e;
}

}  // namespace rtdg::dg
