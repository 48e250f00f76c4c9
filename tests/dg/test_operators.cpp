// Element operators against exact calculus: differentiation of monomials, integrals of
// products (Dirichlet's formula), LIFT through face mass matrices built by quadrature.
#include "reference_support.hpp"

#include "dg/element.hpp"
#include "dg/error.hpp"
#include "dg/basis.hpp"
#include "dg/jacobi.hpp"

#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

namespace rtdg::dg {
namespace {

using test::Exponent;

class EveryElement : public ::testing::TestWithParam<std::tuple<Shape, int>> {
protected:
  Shape shape() const { return std::get<0>(GetParam()); }
  int order() const { return std::get<1>(GetParam()); }
};

std::string element_name(const ::testing::TestParamInfo<std::tuple<Shape, int>>& info) {
  return std::string(shape_name(std::get<0>(info.param))) + "_N" + std::to_string(std::get<1>(info.param));
}

TEST_P(EveryElement, BasicIdentities) {
  const Element e = make_element(shape(), order());
  EXPECT_EQ(e.Np, num_nodes(shape(), order()));
  EXPECT_EQ(e.LIFT.rows(), e.Np);
  EXPECT_EQ(e.LIFT.cols(), e.Nfaces * e.Nfp);
  EXPECT_EQ(e.Fmask.rows(), e.Nfp);
  EXPECT_EQ(e.Fmask.cols(), e.Nfaces);
  EXPECT_LT((e.V * e.invV - Eigen::MatrixXd::Identity(e.Np, e.Np)).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_LT((e.M - e.M.transpose()).cwiseAbs().maxCoeff(), 1e-14);
  EXPECT_EQ(Eigen::LLT<Eigen::MatrixXd>(e.M).info(), Eigen::Success) << "M is not positive definite";
  EXPECT_EQ(e.Ds.size() == 0, e.dim < 2);
  EXPECT_EQ(e.Dt.size() == 0, e.dim < 3);
}

TEST_P(EveryElement, DifferentiationIsExactUpToDegreeN) {
  const Element e = make_element(shape(), order());
  const Eigen::MatrixXd nodes = e.nodes();
  const std::array<const Eigen::MatrixXd*, 3> D = {&e.Dr, &e.Ds, &e.Dt};
  double worst = 0.0;
  for (const Exponent& ex : test::exponents(e.dim, e.N)) {
    const Eigen::VectorXd u = test::monomial(nodes, ex);
    for (int d = 0; d < e.dim; ++d) {
      const Eigen::VectorXd exact = test::monomial_derivative(nodes, ex, d);
      worst = std::max(worst, (*D[static_cast<std::size_t>(d)] * u - exact).cwiseAbs().maxCoeff());
    }
  }
  EXPECT_LT(worst, 1e-11);
}

TEST_P(EveryElement, DifferentiationIsNotExactAboveDegreeN) {
  // The test above can fail: one degree more and the error is O(1).
  const Element e = make_element(shape(), order());
  const Eigen::MatrixXd nodes = e.nodes();
  const Exponent ex = {e.N + 1, 0, 0};
  EXPECT_GT((e.Dr * test::monomial(nodes, ex) - test::monomial_derivative(nodes, ex, 0)).cwiseAbs().maxCoeff(), 1e-6);
}

TEST_P(EveryElement, DerivativesAlongAFaceOfPolynomialsVanishingOnItAreExactZeros) {
  // The Lagrange polynomial l_j of a node j off face f is zero on the whole face (degree N
  // there, zero at the face's nodes), so its derivative along any reference direction tangent
  // to f is zero at the face's nodes: D_a(i, j) = 0 exactly (not rounding noise) for i on f.
  // Tangent directions: triangle f0 (s = -1): r; f2 (r = -1): s. Tetrahedron f0 (t = -1): r, s;
  // f1 (s = -1): r, t; f3 (r = -1): s, t. The slanted faces have none.
  const Element e = make_element(shape(), order());
  if (e.dim < 2) GTEST_SKIP() << "an interval's faces are points";
  const std::array<const Eigen::MatrixXd*, 3> D = {&e.Dr, &e.Ds, &e.Dt};
  const std::vector<std::vector<int>> tangent =
      e.dim == 2 ? std::vector<std::vector<int>>{{0}, {}, {1}} : std::vector<std::vector<int>>{{0, 1}, {0, 2}, {}, {1, 2}};
  long long structural = 0;
  for (int f = 0; f < e.Nfaces; ++f) {
    std::vector<char> on(static_cast<std::size_t>(e.Np), 0);
    for (int j = 0; j < e.Nfp; ++j) on[static_cast<std::size_t>(e.Fmask(j, f))] = 1;
    for (int a : tangent[static_cast<std::size_t>(f)])
      for (int i = 0; i < e.Np; ++i)
        for (int j = 0; j < e.Np; ++j)
          if (on[static_cast<std::size_t>(i)] && !on[static_cast<std::size_t>(j)]) {
            ++structural;
            EXPECT_EQ((*D[static_cast<std::size_t>(a)])(i, j), 0.0) << "D" << a << "(" << i << ", " << j << "), face " << f;
          }
  }
  EXPECT_GT(structural, 0);
  // The entries kept are far from the noise dropped: none below 1e-9 of its matrix's largest
  // (the smallest true entry up to order 10 is 2e-8 of it).
  for (const Eigen::MatrixXd* m : {&e.Dr, &e.Ds, &e.Dt, &e.LIFT}) {
    if (m->size() == 0) continue;
    const double largest = m->cwiseAbs().maxCoeff();
    for (Eigen::Index k = 0; k < m->size(); ++k) {
      const double v = std::abs(m->data()[k]);
      EXPECT_TRUE(v == 0.0 || v > 1e-9 * largest) << v / largest;
    }
  }
}

TEST_P(EveryElement, MassMatrixIntegratesProductsUpToDegree2N) {
  const Element e = make_element(shape(), order());
  const Eigen::MatrixXd nodes = e.nodes();
  const std::vector<Exponent> exps = test::exponents(e.dim, e.N);
  Eigen::MatrixXd U(e.Np, static_cast<Eigen::Index>(exps.size()));
  for (std::size_t m = 0; m < exps.size(); ++m) U.col(static_cast<Eigen::Index>(m)) = test::monomial(nodes, exps[m]);
  const Eigen::MatrixXd integrals = U.transpose() * e.M * U;
  double worst = 0.0;
  for (std::size_t a = 0; a < exps.size(); ++a) {
    for (std::size_t b = 0; b < exps.size(); ++b) {
      const Exponent product = {exps[a][0] + exps[b][0], exps[a][1] + exps[b][1], exps[a][2] + exps[b][2]};
      const double exact = test::monomial_integral(e.dim, product);
      const double error = std::abs(integrals(static_cast<Eigen::Index>(a), static_cast<Eigen::Index>(b)) - exact);
      // Rounding in U^T M U is absolute, ~1e-14 at N = 10, while the smallest integrals
      // (e.g. x^10 y^10 z^0 on the tetrahedron: 2^3 10! 10! / 23!) are ~1e-11.
      worst = std::max(worst, error / (1e-13 + 1e-10 * exact));
    }
  }
  EXPECT_LT(worst, 1.0) << "largest error over (1e-13 + 1e-10 |exact|)";
}

TEST_P(EveryElement, FmaskSelectsTheBooksFaces) {
  const Element e = make_element(shape(), order());
  for (int f = 0; f < e.Nfaces; ++f) {
    for (Eigen::Index j = 0; j < e.Nfp; ++j) {
      const Eigen::Index i = e.Fmask(j, f);
      if (j > 0) {
        EXPECT_GT(i, e.Fmask(j - 1, f)) << "face nodes in ascending volume order";
      }
      const double r = e.r(i), s = e.dim >= 2 ? e.s(i) : 0.0, t = e.dim >= 3 ? e.t(i) : 0.0;
      double on_face = 1.0;
      if (e.shape == Shape::interval) on_face = f == 0 ? r + 1 : r - 1;
      if (e.shape == Shape::triangle) on_face = std::array<double, 3>{s + 1, r + s, r + 1}[static_cast<std::size_t>(f)];
      if (e.shape == Shape::tetrahedron) on_face = std::array<double, 4>{t + 1, s + 1, r + s + t + 1, r + 1}[static_cast<std::size_t>(f)];
      EXPECT_NEAR(on_face, 0.0, 1e-13) << "face " << f << " node " << j;
    }
  }
}

// Points and weights of a quadrature on face f, in the face's own reference coordinates
// (element.hpp): points are volume reference coordinates (Q x dim), weights sum to 2.
struct FaceQuadrature {
  Eigen::MatrixXd points;
  Eigen::VectorXd weights;
};

FaceQuadrature face_quadrature(Shape shape, int f, int N) {
  FaceQuadrature q;
  if (shape == Shape::interval) {
    q.points = Eigen::MatrixXd::Constant(1, 1, f == 0 ? -1.0 : 1.0);
    q.weights = Eigen::VectorXd::Ones(1);
    return q;
  }
  const Quadrature1D g = jacobi_gq(0, 0, N + 1);
  if (shape == Shape::triangle) {
    q.points.resize(g.x.size(), 2);
    q.weights = g.w;
    for (Eigen::Index i = 0; i < g.x.size(); ++i) {
      const double p = g.x(i);
      const std::array<Eigen::RowVector2d, 3> point = {Eigen::RowVector2d(p, -1), Eigen::RowVector2d(p, -p),
                                                       Eigen::RowVector2d(-1, p)};
      q.points.row(i) = point[static_cast<std::size_t>(f)];
    }
    return q;
  }
  // Collapsed (Duffy) rule on the reference triangle of the face parameters (p, q).
  const Quadrature1D g1 = jacobi_gq(1, 0, N + 1);
  q.points.resize(g.x.size() * g1.x.size(), 3);
  q.weights.resize(g.x.size() * g1.x.size());
  Eigen::Index n = 0;
  for (Eigen::Index i = 0; i < g.x.size(); ++i) {
    for (Eigen::Index j = 0; j < g1.x.size(); ++j, ++n) {
      const double u = 0.5 * (1 + g.x(i)) * (1 - g1.x(j)) - 1, v = g1.x(j);
      const std::array<Eigen::RowVector3d, 4> point = {Eigen::RowVector3d(u, v, -1), Eigen::RowVector3d(u, -1, v),
                                                       Eigen::RowVector3d(-1 - u - v, u, v), Eigen::RowVector3d(-1, u, v)};
      q.points.row(n) = point[static_cast<std::size_t>(f)];
      q.weights(n) = 0.5 * g.w(i) * g1.w(j);
    }
  }
  return q;
}

TEST_P(EveryElement, LiftIsTheInverseMassTimesTheFaceMassMatrices) {
  const Element e = make_element(shape(), order());
  // E(i, f*Nfp + j) = integral over face f of l_i l_{Fmask(j,f)}, by quadrature of the
  // element's own Lagrange basis restricted to the face.
  Eigen::MatrixXd E = Eigen::MatrixXd::Zero(e.Np, e.Nfaces * e.Nfp);
  for (int f = 0; f < e.Nfaces; ++f) {
    const FaceQuadrature q = face_quadrature(e.shape, f, e.N);
    EXPECT_NEAR(q.weights.sum(), e.shape == Shape::interval ? 1.0 : 2.0, 1e-13);
    const Eigen::MatrixXd lagrange = vandermonde(e.shape, e.N, q.points) * e.invV;  // Q x Np
    for (Eigen::Index j = 0; j < e.Nfp; ++j) {
      E.col(f * e.Nfp + j) = lagrange.transpose() * q.weights.cwiseProduct(lagrange.col(e.Fmask(j, f)));
    }
  }
  const double scale = e.LIFT.cwiseAbs().maxCoeff();
  EXPECT_LT((e.M * e.LIFT - E).cwiseAbs().maxCoeff(), 1e-12 * scale);
}

INSTANTIATE_TEST_SUITE_P(Orders1To10, EveryElement,
                         ::testing::Combine(::testing::Values(Shape::interval, Shape::triangle, Shape::tetrahedron),
                                            ::testing::Range(min_order, max_order + 1)),
                         element_name);

TEST(Element, OrdersOutsideTheRangeSayWhatIsValid) {
  for (int N : {0, -1, 11}) {
    try {
      (void)make_element(Shape::triangle, N);
      ADD_FAILURE() << "order " << N << " was accepted";
    } catch (const Error& error) {
      EXPECT_NE(std::string(error.what()).find("1..10"), std::string::npos) << error.what();
      EXPECT_NE(std::string(error.what()).find(std::to_string(N)), std::string::npos) << error.what();
    }
  }
}

TEST(Element, ParsesShapeNamesAndRejectsOthers) {
  EXPECT_EQ(parse_shape("tetrahedron"), Shape::tetrahedron);
  try {
    (void)parse_shape("hexahedron");
    ADD_FAILURE();
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("interval, triangle, tetrahedron"), std::string::npos);
  }
}

TEST(Element, OrderOneTriangleMatchesTheBook) {
  // Linear triangle: Dr = [-1/2 1/2 0] in every row, Ds = [-1/2 0 1/2]; M = A/12 (2 on the
  // diagonal, 1 off it) with A = 2.
  const Element e = make_element(Shape::triangle, 1);
  Eigen::Matrix3d Dr, Ds, M;
  Dr << -0.5, 0.5, 0, -0.5, 0.5, 0, -0.5, 0.5, 0;
  Ds << -0.5, 0, 0.5, -0.5, 0, 0.5, -0.5, 0, 0.5;
  M << 2, 1, 1, 1, 2, 1, 1, 1, 2;
  M /= 6.0;
  EXPECT_LT((e.Dr - Dr).norm(), 1e-14);
  EXPECT_LT((e.Ds - Ds).norm(), 1e-14);
  EXPECT_LT((e.M - M).norm(), 1e-14);
  // Faces 0: nodes 0,1; 1: nodes 1,2; 2: nodes 0,2 (ascending volume index).
  Eigen::Matrix<int, 2, 3> Fmask;
  Fmask << 0, 1, 0, 1, 2, 2;
  EXPECT_EQ(e.Fmask, Fmask);
}

}  // namespace
}  // namespace rtdg::dg
