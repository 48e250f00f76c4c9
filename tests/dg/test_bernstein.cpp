// The Bernstein form of the element operators (bernstein.hpp) against the nodal ones carried to
// the Bernstein basis (invV D V, invV LIFT V_F: an independent route, through the nodes and the
// Vandermonde matrices instead of the lattice and the closed-form mass matrices), and the
// sparsity a Bernstein kernel relies on.
#include "dg/bernstein.hpp"
#include "dg/element.hpp"
#include "dg/error.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <tuple>

namespace rtdg::dg {
namespace {

class BernsteinElement : public ::testing::TestWithParam<std::tuple<Shape, int>> {
protected:
  Shape shape() const { return std::get<0>(GetParam()); }
  int order() const { return std::get<1>(GetParam()); }
};

std::string element_name(const ::testing::TestParamInfo<std::tuple<Shape, int>>& info) {
  return std::string(shape_name(std::get<0>(info.param))) + "_N" + std::to_string(std::get<1>(info.param));
}

// Largest |a - b| relative to b's largest entry.
double relative(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  return (a - b).cwiseAbs().maxCoeff() / b.cwiseAbs().maxCoeff();
}

TEST_P(BernsteinElement, BasisIsAPartitionOfUnityAndVInverts) {
  const Element e = make_element(shape(), order());
  const BernsteinOperators b = make_bernstein(e);
  ASSERT_EQ(b.V.rows(), e.Np);
  // sum_alpha B_alpha = (lambda_0 + ... + lambda_d)^N = 1 at every node.
  EXPECT_LT((b.V.rowwise().sum() - Eigen::VectorXd::Ones(e.Np)).cwiseAbs().maxCoeff(), 1e-13);
  EXPECT_LT((b.V * b.invV - Eigen::MatrixXd::Identity(e.Np, e.Np)).cwiseAbs().maxCoeff(), 1e-10);
  // B_alpha vanishes on face f unless alpha_o = 0 (o the opposite vertex); the face nodes'
  // coordinates are on the face to rounding.
  for (int f = 0; f < e.Nfaces; ++f)
    for (int j = 0; j < e.Nfp; ++j)
      for (int n = 0; n < e.Np; ++n) {
        const auto o = static_cast<std::size_t>(b.faces[static_cast<std::size_t>(f)].opposite);
        if (b.alpha[static_cast<std::size_t>(n)][o] > 0) {
          EXPECT_LT(std::abs(b.V(e.Fmask(j, f), n)), 1e-13) << "face " << f << " node " << j << " coefficient " << n;
        }
      }
}

TEST_P(BernsteinElement, DerivativesAreTheNodalOnesInTheBasisWithFewEntriesPerRow) {
  const Element e = make_element(shape(), order());
  const BernsteinOperators b = make_bernstein(e);
  const Eigen::MatrixXd* nodal[3] = {&e.Dr, &e.Ds, &e.Dt};
  const std::size_t most = e.dim == 3 ? 7 : 5;
  for (int a = 0; a < e.dim; ++a) {
    EXPECT_LT(relative(b.derivative(a), b.invV * *nodal[a] * b.V), 1e-9) << "direction " << a;
    for (const auto& row : b.D[static_cast<std::size_t>(a)]) {
      EXPECT_LE(row.size(), most);
      for (const BernsteinEntry& x : row) EXPECT_EQ(2 * x.weight, std::round(2 * x.weight)) << "an integer over 2";
    }
  }
}

TEST_P(BernsteinElement, LayeredLiftIsTheNodalLiftInTheBasis) {
  const Element e = make_element(shape(), order());
  const BernsteinOperators b = make_bernstein(e);
  // V_F: the face's Bernstein polynomials (those with alpha_o = 0) at its nodes, per face.
  Eigen::MatrixXd VF = Eigen::MatrixXd::Zero(e.Nfaces * e.Nfp, e.Nfaces * e.Nfp);
  for (int f = 0; f < e.Nfaces; ++f)
    for (int j = 0; j < e.Nfp; ++j)
      for (int m = 0; m < e.Nfp; ++m) VF(f * e.Nfp + j, f * e.Nfp + m) = b.V(e.Fmask(j, f), e.Fmask(m, f));
  EXPECT_LT(relative(b.lift(), b.invV * e.LIFT * VF), 1e-9);
  const std::size_t most = e.dim == 3 ? 7 : 3;
  for (const BernsteinFace& face : b.faces) {
    ASSERT_EQ(face.layer_start.size(), static_cast<std::size_t>(e.N + 2));
    EXPECT_EQ(face.layer_start[1], e.Nfp);
    for (const auto& row : face.L0) EXPECT_LE(row.size(), most);
    for (int entry = e.Nfp; entry < e.Np; ++entry)
      EXPECT_EQ(face.reduction[static_cast<std::size_t>(entry)].size(), static_cast<std::size_t>(e.dim));
  }
}

// The element Bernstein plans' kernels get: the dense forms of the stencils and layers in place
// of D_a and LIFT, the rest the nodal element's. The coefficients of the constant 1 (all ones:
// the polynomials sum to one) have zero derivatives.
TEST_P(BernsteinElement, ElementForTheKernels) {
  const Element e = make_element(shape(), order());
  const Element bb = bernstein_element(e);
  const BernsteinOperators b = make_bernstein(e);
  const Eigen::MatrixXd* D[3] = {&bb.Dr, &bb.Ds, &bb.Dt};
  const std::size_t most = e.dim == 3 ? 7 : 5;
  for (int a = 0; a < e.dim; ++a) {
    EXPECT_TRUE(*D[a] == b.derivative(a));
    for (Eigen::Index i = 0; i < D[a]->rows(); ++i)
      EXPECT_LE(static_cast<std::size_t>((D[a]->row(i).array() != 0.0).count()), most) << "row " << i;
    EXPECT_LT((*D[a] * Eigen::VectorXd::Ones(e.Np)).cwiseAbs().maxCoeff(), 1e-12);
  }
  EXPECT_TRUE(bb.LIFT == b.lift());
  EXPECT_LE((bb.LIFT.array() != 0.0).count(), (e.LIFT.array() != 0.0).count());
  EXPECT_TRUE(bb.V == e.V && bb.M == e.M && bb.Fmask == e.Fmask && bb.r == e.r);
  EXPECT_EQ(bb.Dt.size(), e.Dt.size());
}

INSTANTIATE_TEST_SUITE_P(TrianglesAndTetrahedra, BernsteinElement,
                         ::testing::Combine(::testing::Values(Shape::triangle, Shape::tetrahedron), ::testing::Range(1, 11)),
                         element_name);

TEST(Bernstein, IntervalsAreRefused) {
  EXPECT_THROW(make_bernstein(make_element(Shape::interval, 2)), Error);
}

}  // namespace
}  // namespace rtdg::dg
