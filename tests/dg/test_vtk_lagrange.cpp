// vtk_lagrange_permutation against VTK itself: point k of VTK's Lagrange cell of order n has
// VTK parametric coordinates p; lattice point perm[k] must sit at r = 2p - 1.
#include "dg/equispaced.hpp"

#include <gtest/gtest.h>

#include <vtkCellType.h>
#include <vtkLagrangeCurve.h>
#include <vtkLagrangeTetra.h>
#include <vtkLagrangeTriangle.h>
#include <vtkNew.h>
#include <vtkPoints.h>
#include <vtkIdList.h>

namespace rtdg::dg {
namespace {

// Parametric coordinates (3 per point) of a VTK Lagrange cell with `count` points.
template <class Cell>
std::vector<double> vtk_parametric_coordinates(vtkIdType count) {
  vtkNew<Cell> cell;
  cell->GetPointIds()->SetNumberOfIds(count);
  cell->GetPoints()->SetNumberOfPoints(count);
  for (vtkIdType i = 0; i < count; ++i) {
    cell->GetPointIds()->SetId(i, i);
    cell->GetPoints()->SetPoint(i, 0.0, 0.0, 0.0);
  }
  cell->Initialize();
  const double* p = cell->GetParametricCoords();
  return std::vector<double>(p, p + 3 * count);
}

template <class Cell>
void check(Shape shape) {
  for (int n = 1; n <= 10; ++n) {
    const std::vector<int> perm = vtk_lagrange_permutation(shape, n);
    const Eigen::MatrixXd lattice = equispaced_nodes(shape, n);
    const std::vector<double> pcoords = vtk_parametric_coordinates<Cell>(static_cast<vtkIdType>(perm.size()));
    for (std::size_t k = 0; k < perm.size(); ++k) {
      for (Eigen::Index d = 0; d < lattice.cols(); ++d) {
        EXPECT_NEAR(lattice(perm[k], d), 2.0 * pcoords[3 * k + static_cast<std::size_t>(d)] - 1.0, 1e-12)
            << shape_name(shape) << " order " << n << " VTK point " << k;
      }
    }
  }
}

TEST(VtkLagrangePermutation, MatchesVtkCurve) { check<vtkLagrangeCurve>(Shape::interval); }
TEST(VtkLagrangePermutation, MatchesVtkTriangle) { check<vtkLagrangeTriangle>(Shape::triangle); }
TEST(VtkLagrangePermutation, MatchesVtkTetra) { check<vtkLagrangeTetra>(Shape::tetrahedron); }

}  // namespace
}  // namespace rtdg::dg
