// Equispaced output lattice, interpolation onto it, and the VTK Lagrange permutation's
// known low-order cases.
#include "reference_support.hpp"

#include "dg/element.hpp"
#include "dg/equispaced.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

namespace rtdg::dg {
namespace {

TEST(Equispaced, LatticeOrderIsRFastestThenSThenT) {
  const Eigen::MatrixXd tri = equispaced_nodes(Shape::triangle, 2);
  Eigen::MatrixXd expected(6, 2);
  expected << -1, -1, 0, -1, 1, -1, -1, 0, 0, 0, -1, 1;
  EXPECT_EQ(tri, expected);
  const Eigen::MatrixXd tet = equispaced_nodes(Shape::tetrahedron, 1);
  Eigen::MatrixXd vertices(4, 3);
  vertices << -1, -1, -1, 1, -1, -1, -1, 1, -1, -1, -1, 1;
  EXPECT_EQ(tet, vertices);
  EXPECT_EQ(equispaced_nodes(Shape::tetrahedron, 10).rows(), 286);
}

TEST(Equispaced, InterpolationIsExactUpToDegreeN) {
  for (Shape shape : test::all_shapes()) {
    for (int N : {1, 4, 10}) {
      const Element e = make_element(shape, N);
      for (int n : {1, N, N + 3}) {
        const Eigen::MatrixXd I = equispaced_interpolation(e, n);
        const Eigen::MatrixXd lattice = equispaced_nodes(shape, n);
        ASSERT_EQ(I.rows(), num_nodes(shape, n));
        ASSERT_EQ(I.cols(), e.Np);
        double worst = 0;
        for (const auto& ex : test::exponents(e.dim, N)) {
          worst = std::max(worst, (I * test::monomial(e.nodes(), ex) - test::monomial(lattice, ex)).cwiseAbs().maxCoeff());
        }
        EXPECT_LT(worst, 1e-12) << shape_name(shape) << " N " << N << " n " << n;
      }
    }
  }
}

TEST(VtkLagrangePermutation, IsAPermutationStartingWithTheVertices) {
  for (Shape shape : test::all_shapes()) {
    for (int n = 1; n <= 12; ++n) {
      std::vector<int> perm = vtk_lagrange_permutation(shape, n);
      const Eigen::MatrixXd lattice = equispaced_nodes(shape, n);
      const Eigen::MatrixXd corners = equispaced_nodes(shape, 1);
      for (Eigen::Index v = 0; v < corners.rows(); ++v) {
        EXPECT_EQ(lattice.row(perm[static_cast<std::size_t>(v)]), corners.row(v)) << shape_name(shape) << " n " << n;
      }
      std::sort(perm.begin(), perm.end());
      std::vector<int> identity(perm.size());
      std::iota(identity.begin(), identity.end(), 0);
      EXPECT_EQ(perm, identity) << shape_name(shape) << " n " << n;
    }
  }
}

TEST(VtkLagrangePermutation, QuadraticCellsMatchVtksLinearEdgeOrder) {
  // VTK's quadratic cells: vertices, then edge midpoints in vtkTriangle / vtkTetra edge order
  // (0,1) (1,2) (2,0) [(0,3) (1,3) (2,3)]. Lattice of order 2, r fastest:
  //   triangle 0:(0,0) 1:(1,0) 2:(2,0) 3:(0,1) 4:(1,1) 5:(0,2)
  EXPECT_EQ(vtk_lagrange_permutation(Shape::interval, 3), (std::vector<int>{0, 3, 1, 2}));
  EXPECT_EQ(vtk_lagrange_permutation(Shape::triangle, 2), (std::vector<int>{0, 2, 5, 1, 4, 3}));
  //   tetrahedron 0:(0,0,0) 1:(1,0,0) 2:(2,0,0) 3:(0,1,0) 4:(1,1,0) 5:(0,2,0)
  //               6:(0,0,1) 7:(1,0,1) 8:(0,1,1) 9:(0,0,2)
  EXPECT_EQ(vtk_lagrange_permutation(Shape::tetrahedron, 2), (std::vector<int>{0, 2, 5, 9, 1, 4, 3, 6, 7, 8}));
  // Cubic triangle: edges in order, then the centroid 4:(1,1) last.
  //   0:(0,0) 1:(1,0) 2:(2,0) 3:(3,0) 4:(0,1) 5:(1,1) 6:(2,1) 7:(0,2) 8:(1,2) 9:(0,3)
  EXPECT_EQ(vtk_lagrange_permutation(Shape::triangle, 3), (std::vector<int>{0, 3, 9, 1, 2, 6, 8, 7, 4, 5}));
}

}  // namespace
}  // namespace rtdg::dg
