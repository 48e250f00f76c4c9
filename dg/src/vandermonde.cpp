// Vandermonde matrices of the orthonormal bases (book Vandermonde1D/2D/3D and GradVandermonde*),
// with the mode orderings documented in basis.hpp.
#include "dg/basis.hpp"
#include "dg/error.hpp"
#include "dg/jacobi.hpp"

#include <string>

namespace rtdg::dg {
namespace {

void check_points(Shape shape, int N, const Eigen::MatrixXd& points) {
  if (N < 0) throw Error("dg: a basis needs order N >= 0, got " + std::to_string(N));
  if (points.cols() != dimension(shape)) {
    throw Error("dg: points for a " + std::string(shape_name(shape)) + " basis need " +
                std::to_string(dimension(shape)) + " coordinate columns, got " +
                std::to_string(points.cols()));
  }
}

}  // namespace

Eigen::MatrixXd vandermonde(Shape shape, int N, const Eigen::MatrixXd& points) {
  check_points(shape, N, points);
  Eigen::MatrixXd V(points.rows(), num_nodes(shape, N));
  Eigen::Index column = 0;
  switch (shape) {
    case Shape::interval:
      for (int n = 0; n <= N; ++n) V.col(column++) = jacobi_p(points.col(0), 0.0, 0.0, n);
      break;
    case Shape::triangle: {
      const Eigen::MatrixXd ab = rs_to_ab(points);
      for (int i = 0; i <= N; ++i)
        for (int j = 0; j <= N - i; ++j) V.col(column++) = simplex_2d_p(ab.col(0), ab.col(1), i, j);
      break;
    }
    case Shape::tetrahedron: {
      const Eigen::MatrixXd abc = rst_to_abc(points);
      for (int i = 0; i <= N; ++i)
        for (int j = 0; j <= N - i; ++j)
          for (int k = 0; k <= N - i - j; ++k)
            V.col(column++) = simplex_3d_p(abc.col(0), abc.col(1), abc.col(2), i, j, k);
      break;
    }
  }
  return V;
}

std::vector<Eigen::MatrixXd> grad_vandermonde(Shape shape, int N, const Eigen::MatrixXd& points) {
  check_points(shape, N, points);
  const int dim = dimension(shape);
  std::vector<Eigen::MatrixXd> grads(static_cast<std::size_t>(dim),
                                     Eigen::MatrixXd(points.rows(), num_nodes(shape, N)));
  // Scatters the gradient of one mode (M x dim) into column `column` of each matrix.
  auto store = [&grads](Eigen::Index column, const Eigen::MatrixXd& grad) {
    for (std::size_t d = 0; d < grads.size(); ++d)
      grads[d].col(column) = grad.col(static_cast<Eigen::Index>(d));
  };
  Eigen::Index column = 0;
  switch (shape) {
    case Shape::interval:
      for (int n = 0; n <= N; ++n) grads[0].col(column++) = grad_jacobi_p(points.col(0), 0.0, 0.0, n);
      break;
    case Shape::triangle: {
      const Eigen::MatrixXd ab = rs_to_ab(points);
      for (int i = 0; i <= N; ++i)
        for (int j = 0; j <= N - i; ++j) store(column++, grad_simplex_2d_p(ab.col(0), ab.col(1), i, j));
      break;
    }
    case Shape::tetrahedron: {
      const Eigen::MatrixXd abc = rst_to_abc(points);
      for (int i = 0; i <= N; ++i)
        for (int j = 0; j <= N - i; ++j)
          for (int k = 0; k <= N - i - j; ++k)
            store(column++, grad_simplex_3d_p(abc.col(0), abc.col(1), abc.col(2), i, j, k));
      break;
    }
  }
  return grads;
}

}  // namespace rtdg::dg
