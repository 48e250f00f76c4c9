// Warp & blend nodes: known small cases, symmetry, LGL edges, tetrahedron faces, and the
// conditioning that is their reason to exist.
#include "reference_support.hpp"

#include "dg/basis.hpp"
#include "dg/element.hpp"
#include "dg/equispaced.hpp"
#include "dg/jacobi.hpp"
#include "dg/nodes.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <vector>

namespace rtdg::dg {
namespace {

using test::barycentric;
using test::from_barycentric;
using test::set_distance;

Eigen::MatrixXd reference_nodes(Shape shape, int N) {
  switch (shape) {
    case Shape::interval: return nodes_1d(N);
    case Shape::triangle: return nodes_2d(N);
    case Shape::tetrahedron: return nodes_3d(N);
  }
  return {};
}

Eigen::MatrixXd vertices(Shape shape) { return equispaced_nodes(shape, 1); }

TEST(Nodes, OrderOneNodesAreTheVertices) {
  for (Shape shape : test::all_shapes()) {
    EXPECT_LT((reference_nodes(shape, 1) - vertices(shape)).cwiseAbs().maxCoeff(), 1e-15) << shape_name(shape);
  }
}

TEST(Nodes, OrderTwoNodesAreVerticesAndEdgeMidpoints) {
  // The LGL nodes of order 2 are equispaced, and alpha_opt is 0 for N = 2.
  for (Shape shape : {Shape::triangle, Shape::tetrahedron}) {
    EXPECT_LT((reference_nodes(shape, 2) - equispaced_nodes(shape, 2)).cwiseAbs().maxCoeff(), 1e-15)
        << shape_name(shape);
  }
}

TEST(Nodes, CountsAndOrderingFollowTheLattice) {
  for (Shape shape : test::all_shapes()) {
    for (int N = 1; N <= max_order; ++N) {
      const Eigen::MatrixXd nodes = reference_nodes(shape, N);
      ASSERT_EQ(nodes.rows(), num_nodes(shape, N));
      ASSERT_EQ(nodes.cols(), dimension(shape));
      // The first N+1 nodes run along r at s = t = -1 from vertex 0 to vertex 1.
      const Eigen::VectorXd lgl = jacobi_gl(0, 0, N);
      for (Eigen::Index i = 0; i <= N; ++i) {
        EXPECT_NEAR(nodes(i, 0), lgl(i), 1e-14) << shape_name(shape) << " N " << N;
        for (Eigen::Index d = 1; d < nodes.cols(); ++d) EXPECT_NEAR(nodes(i, d), -1.0, 1e-14);
      }
    }
  }
}

TEST(Nodes, LieInsideTheElement) {
  for (Shape shape : test::all_shapes()) {
    for (int N = 1; N <= max_order; ++N) {
      EXPECT_GT(barycentric(reference_nodes(shape, N)).minCoeff(), -1e-14) << shape_name(shape) << " N " << N;
    }
  }
}

TEST(Nodes, AreInvariantUnderTheElementSymmetries) {
  // The symmetries of a simplex permute its barycentric coordinates.
  for (Shape shape : test::all_shapes()) {
    for (int N = 1; N <= max_order; ++N) {
      const Eigen::MatrixXd nodes = reference_nodes(shape, N);
      const Eigen::MatrixXd L = barycentric(nodes);
      for (const auto& perm : test::permutations(L.cols())) {
        Eigen::MatrixXd permuted(L.rows(), L.cols());
        for (Eigen::Index c = 0; c < L.cols(); ++c) permuted.col(c) = L.col(perm[static_cast<std::size_t>(c)]);
        EXPECT_LT(set_distance(from_barycentric(permuted), nodes), 1e-13) << shape_name(shape) << " N " << N;
      }
    }
  }
}

TEST(Nodes, DistinctNodes) {
  for (Shape shape : test::all_shapes()) {
    const Eigen::MatrixXd nodes = reference_nodes(shape, max_order);
    double closest = std::numeric_limits<double>::infinity();
    for (Eigen::Index i = 0; i < nodes.rows(); ++i)
      for (Eigen::Index j = i + 1; j < nodes.rows(); ++j) closest = std::min(closest, (nodes.row(i) - nodes.row(j)).norm());
    EXPECT_GT(closest, 0.01) << shape_name(shape);
  }
}

// Points of `nodes` on the segment a -> b, as sorted parameters in [-1, 1].
std::vector<double> edge_parameters(const Eigen::MatrixXd& nodes, const Eigen::RowVectorXd& a,
                                    const Eigen::RowVectorXd& b) {
  std::vector<double> params;
  const Eigen::RowVectorXd direction = b - a;
  for (Eigen::Index i = 0; i < nodes.rows(); ++i) {
    const Eigen::RowVectorXd p = nodes.row(i) - a;
    const double along = p.dot(direction) / direction.squaredNorm();
    if ((p - along * direction).norm() < 1e-12) params.push_back(2.0 * along - 1.0);
  }
  std::sort(params.begin(), params.end());
  return params;
}

TEST(Nodes, EveryEdgeCarriesTheLegendreGaussLobattoNodes) {
  for (Shape shape : {Shape::triangle, Shape::tetrahedron}) {
    const Eigen::MatrixXd corners = vertices(shape);
    for (int N = 1; N <= max_order; ++N) {
      const Eigen::MatrixXd nodes = reference_nodes(shape, N);
      const Eigen::VectorXd lgl = jacobi_gl(0, 0, N);
      for (Eigen::Index v = 0; v < corners.rows(); ++v) {
        for (Eigen::Index w = v + 1; w < corners.rows(); ++w) {
          const std::vector<double> params = edge_parameters(nodes, corners.row(v), corners.row(w));
          ASSERT_EQ(params.size(), static_cast<std::size_t>(N + 1)) << shape_name(shape) << " N " << N;
          for (std::size_t i = 0; i < params.size(); ++i)
            EXPECT_NEAR(params[i], lgl(static_cast<Eigen::Index>(i)), 1e-13) << shape_name(shape) << " N " << N;
        }
      }
    }
  }
}

TEST(Nodes, TetrahedronFacesCarryTriangleWarpAndBlendNodesWithTheTetrahedronAlpha) {
  // Warburton's construction applies the 2D warp & blend on each face with the 3D alpha, so
  // each face, mapped to the reference triangle, must hold Nodes2D(N, alpha_opt_3d(N)).
  // Face f of the tetrahedron is where barycentric coordinate `missing[f]` vanishes.
  const std::array<Eigen::Index, 4> missing = {3, 2, 0, 1};
  for (int N = 1; N <= max_order; ++N) {
    const Eigen::MatrixXd expected = xy_to_rs(nodes_2d_equilateral(N, alpha_opt_3d(N)));
    const Eigen::MatrixXd L = barycentric(nodes_3d(N));
    for (std::size_t f = 0; f < 4; ++f) {
      std::vector<Eigen::Index> keep;
      for (Eigen::Index c = 0; c < 4; ++c)
        if (c != missing[f]) keep.push_back(c);
      std::vector<Eigen::Index> rows;
      for (Eigen::Index i = 0; i < L.rows(); ++i)
        if (std::abs(L(i, missing[f])) < 1e-12) rows.push_back(i);
      Eigen::MatrixXd face_L(static_cast<Eigen::Index>(rows.size()), 3);
      for (std::size_t i = 0; i < rows.size(); ++i)
        for (std::size_t c = 0; c < 3; ++c) face_L(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(c)) = L(rows[i], keep[c]);
      EXPECT_LT(set_distance(from_barycentric(face_L), expected), 1e-13) << "N " << N << " face " << f;
    }
  }
}

TEST(Nodes, AlphaTablesAreTheBooks) {
  // Every entry, as printed in the book's Codes1.1 (Nodes2D.m alpopt, Nodes3D.m alphastore).
  // N = 6 of the triangle was 0.9808 before issue 14.
  const std::array<double, 15> triangle = {0.0000, 0.0000, 1.4152, 0.1001, 0.2751, 0.9800, 1.0999, 1.2832,
                                           1.3648, 1.4773, 1.4959, 1.5743, 1.5770, 1.6223, 1.6258};
  const std::array<double, 15> tetrahedron = {0, 0, 0, 0.1002, 1.1332, 1.5608, 1.3413, 1.2577,
                                              1.1603, 1.10153, 0.6080, 0.4523, 0.8856, 0.8717, 0.9655};
  for (int N = 1; N <= 15; ++N) {
    EXPECT_EQ(alpha_opt_2d(N), triangle[static_cast<std::size_t>(N - 1)]) << "N " << N;
    EXPECT_EQ(alpha_opt_3d(N), tetrahedron[static_cast<std::size_t>(N - 1)]) << "N " << N;
  }
  EXPECT_EQ(alpha_opt_2d(16), 5.0 / 3.0);
  EXPECT_EQ(alpha_opt_3d(16), 1.0);
}

// Independent values of the book's triangle nodes (issue 14: rtdg's order-6 nodes were up to
// 1.9e-5 away from them). Computed outside rtdg with the book's algorithm written afresh in
// 50-digit arithmetic (mpmath), then rounded to double: LGL nodes as -1, 1 and the roots of
// P_N'; Warpfactor as the Lagrange interpolant of (LGL - equispaced) through the equispaced
// points, divided by 1 - r^2 (0 at |r| = 1); then Nodes2D and xytors, in outline (Python,
// mpmath, mp.dps = 50):
//
//   for n in range(N + 1):            # L1 = n / N, the s index
//     for m in range(N + 1 - n):      # L3 = m / N, the r index; L2 = 1 - L1 - L3
//       x, y = -L2 + L3, (-L2 - L3 + 2 L1) / sqrt(3)
//       w1 = 4 L2 L3 warp(L3 - L2) (1 + (alpha L1)^2)
//       w2 = 4 L1 L3 warp(L1 - L3) (1 + (alpha L2)^2)
//       w3 = 4 L1 L2 warp(L2 - L1) (1 + (alpha L3)^2)
//       x += w1 + cos(2pi/3) w2 + cos(4pi/3) w3
//       y += sin(2pi/3) w2 + sin(4pi/3) w3
//       B1 = (sqrt3 y + 1) / 3, B2 = (-3x - sqrt3 y + 2) / 6, B3 = (3x - sqrt3 y + 2) / 6
//       r, s = -B2 + B3 - B1, -B2 - B3 + B1
//
// The values below are the doubles nearest to the 50-digit results.

// Book Nodes2D + xytors, N = 6, alpha = 0.9800: 28 nodes (r, s), row by row in s.
constexpr std::array<std::array<double, 2>, 28> book_triangle_nodes_6 = {{
    {-1.0, -1.0}, {-0.830223896278567, -1.0}, {-0.46884879347071423, -1.0}, {0.0, -1.0},
    {0.46884879347071423, -1.0}, {0.830223896278567, -1.0}, {1.0, -1.0},
    {-1.0, -0.830223896278567}, {-0.7695164961934414, -0.7695164961934414},
    {-0.3647692565366892, -0.7440953960343213}, {0.10886465257101045, -0.7440953960343213},
    {0.539032992386883, -0.7695164961934414}, {0.830223896278567, -0.830223896278567},
    {-1.0, -0.46884879347071423}, {-0.7440953960343213, -0.3647692565366892},
    {-0.3333333333333333, -0.3333333333333333}, {0.10886465257101045, -0.3647692565366892},
    {0.46884879347071423, -0.46884879347071423},
    {-1.0, 0.0}, {-0.7440953960343213, 0.10886465257101045}, {-0.3647692565366892, 0.10886465257101045},
    {0.0, 0.0},
    {-1.0, 0.46884879347071423}, {-0.7695164961934414, 0.539032992386883},
    {-0.46884879347071423, 0.46884879347071423},
    {-1.0, 0.830223896278567}, {-0.830223896278567, 0.830223896278567},
    {-1.0, 1.0},
}};

// Book Nodes2D + xytors, N = 7, alpha = 1.0999: 36 nodes (r, s), row by row in s.
constexpr std::array<std::array<double, 2>, 36> book_triangle_nodes_7 = {{
    {-1.0, -1.0}, {-0.8717401485096066, -1.0}, {-0.5917001814331423, -1.0}, {-0.20929921790247888, -1.0},
    {0.20929921790247888, -1.0}, {0.5917001814331423, -1.0}, {0.8717401485096066, -1.0}, {1.0, -1.0},
    {-1.0, -0.8717401485096066}, {-0.8239961594276349, -0.8239961594276349},
    {-0.5032840332609756, -0.8014294108916301}, {-0.10252973720973153, -0.794940525580537},
    {0.3047134441526057, -0.8014294108916301}, {0.6479923188552699, -0.8239961594276349},
    {0.8717401485096066, -0.8717401485096066},
    {-1.0, -0.5917001814331423}, {-0.8014294108916301, -0.5032840332609756},
    {-0.46507329442931156, -0.46507329442931156}, {-0.06985341114137686, -0.46507329442931156},
    {0.3047134441526057, -0.5032840332609756}, {0.5917001814331423, -0.5917001814331423},
    {-1.0, -0.20929921790247888}, {-0.794940525580537, -0.10252973720973153},
    {-0.46507329442931156, -0.06985341114137686}, {-0.10252973720973153, -0.10252973720973153},
    {0.20929921790247888, -0.20929921790247888},
    {-1.0, 0.20929921790247888}, {-0.8014294108916301, 0.3047134441526057},
    {-0.5032840332609756, 0.3047134441526057}, {-0.20929921790247888, 0.20929921790247888},
    {-1.0, 0.5917001814331423}, {-0.8239961594276349, 0.6479923188552699},
    {-0.5917001814331423, 0.5917001814331423},
    {-1.0, 0.8717401485096066}, {-0.8717401485096066, 0.8717401485096066},
    {-1.0, 1.0},
}};

template <std::size_t Np>
void expect_book_triangle_nodes(int N, const std::array<std::array<double, 2>, Np>& book) {
  const Eigen::MatrixXd nodes = nodes_2d(N);
  ASSERT_EQ(nodes.rows(), static_cast<Eigen::Index>(Np));
  for (std::size_t i = 0; i < Np; ++i) {
    const auto n = static_cast<Eigen::Index>(i);
    EXPECT_NEAR(nodes(n, 0), book[i][0], 1e-14) << "N " << N << " node " << i << " r";
    EXPECT_NEAR(nodes(n, 1), book[i][1], 1e-14) << "N " << N << " node " << i << " s";
  }
}

TEST(Nodes, TriangleNodesOfOrderSixAreTheBooks) {
  expect_book_triangle_nodes(6, book_triangle_nodes_6);
  // The test tells the nodes rtdg had before issue 14 (alpha 0.9808) from these.
  const Eigen::MatrixXd old = xy_to_rs(nodes_2d_equilateral(6, 0.9808));
  double farthest = 0;
  for (std::size_t i = 0; i < book_triangle_nodes_6.size(); ++i) {
    const auto n = static_cast<Eigen::Index>(i);
    const auto& book = book_triangle_nodes_6[i];
    farthest = std::max(farthest, std::hypot(old(n, 0) - book[0], old(n, 1) - book[1]));
  }
  EXPECT_NEAR(farthest, 1.9e-5, 0.1e-5);
}

TEST(Nodes, TriangleNodesOfOrderSevenAreTheBooks) { expect_book_triangle_nodes(7, book_triangle_nodes_7); }

double condition_number(const Eigen::MatrixXd& A) {
  const Eigen::JacobiSVD<Eigen::MatrixXd> svd(A);
  return svd.singularValues()(0) / svd.singularValues()(svd.singularValues().size() - 1);
}

// Largest sum of |Lagrange basis| over sample points: a lower estimate of the Lebesgue constant.
double lebesgue_estimate(Shape shape, int N, const Eigen::MatrixXd& nodes) {
  const Eigen::MatrixXd samples = equispaced_nodes(shape, 3 * N);
  const Eigen::MatrixXd lagrange = vandermonde(shape, N, samples) * vandermonde(shape, N, nodes).inverse();
  return lagrange.cwiseAbs().rowwise().sum().maxCoeff();
}

// At N = 10 (2-norm, orthonormal modes) the warp & blend / equispaced condition numbers are
// 4.5 / 40 (interval), 21.7 / 104 (triangle), 145 / 301 (tetrahedron); the gap widens with N.
TEST(Nodes, VandermondeIsFarBetterConditionedThanEquispacedAtOrderTen) {
  const int N = 10;
  struct Case { Shape shape; double at_most, ratio; };
  for (const Case& c : {Case{Shape::interval, 5.0, 8.0}, Case{Shape::triangle, 25.0, 4.0},
                        Case{Shape::tetrahedron, 160.0, 1.9}}) {
    const double warp_blend = condition_number(vandermonde(c.shape, N, reference_nodes(c.shape, N)));
    const double equispaced = condition_number(vandermonde(c.shape, N, equispaced_nodes(c.shape, N)));
    EXPECT_LT(warp_blend, c.at_most) << shape_name(c.shape);
    EXPECT_LT(c.ratio * warp_blend, equispaced) << shape_name(c.shape);
  }
}

// The Lebesgue constant (sampled on a lattice of order 3N, so a lower estimate) shows the
// nodes' quality more sharply: at N = 10, 2.2 / 30 (interval), 6.5 / 71 (triangle; a finer
// sampling gives 6.67, the value the book tabulates for the optimised alpha), 24 / 126
// (tetrahedron).
TEST(Nodes, LebesgueConstantStaysSmallAtOrderTen) {
  const int N = 10;
  struct Case { Shape shape; double at_most; };
  for (const Case& c : {Case{Shape::interval, 3.0}, Case{Shape::triangle, 7.0}, Case{Shape::tetrahedron, 26.0}}) {
    const double warp_blend = lebesgue_estimate(c.shape, N, reference_nodes(c.shape, N));
    const double equispaced = lebesgue_estimate(c.shape, N, equispaced_nodes(c.shape, N));
    EXPECT_LT(warp_blend, c.at_most) << shape_name(c.shape);
    EXPECT_GT(equispaced, 4.0 * warp_blend) << shape_name(c.shape);
  }
}

}  // namespace
}  // namespace rtdg::dg
