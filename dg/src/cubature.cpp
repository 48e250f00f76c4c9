// Collapsed-coordinate Gauss-Jacobi cubature (cubature.hpp).
#include "dg/cubature.hpp"

#include "dg/error.hpp"
#include "dg/jacobi.hpp"

#include <string>

namespace rtdg::dg {

Cubature collapsed_cubature(Shape shape, int n) {
  if (shape == Shape::interval || n < 0)
    throw Error("dg: collapsed cubature is for triangles and tetrahedra with n >= 0 (got n = " + std::to_string(n) + ")");
  const Quadrature1D a = jacobi_gq(0.0, 0.0, n);
  const Quadrature1D b = jacobi_gq(1.0, 0.0, n);
  const Eigen::Index m = n + 1;
  Cubature c;
  if (shape == Shape::triangle) {
    c.points.resize(m * m, 2);
    c.weights.resize(m * m);
    for (Eigen::Index j = 0; j < m; ++j)
      for (Eigen::Index i = 0; i < m; ++i) {
        const Eigen::Index q = j * m + i;
        c.points(q, 0) = 0.5 * (1.0 + a.x(i)) * (1.0 - b.x(j)) - 1.0;
        c.points(q, 1) = b.x(j);
        c.weights(q) = 0.5 * a.w(i) * b.w(j);  // the collapse's Jacobian (1 - b)/2 is in b's weight
      }
    return c;
  }
  const Quadrature1D t = jacobi_gq(2.0, 0.0, n);
  c.points.resize(m * m * m, 3);
  c.weights.resize(m * m * m);
  for (Eigen::Index l = 0; l < m; ++l)
    for (Eigen::Index j = 0; j < m; ++j)
      for (Eigen::Index i = 0; i < m; ++i) {
        const Eigen::Index q = (l * m + j) * m + i;
        c.points(q, 0) = 0.25 * (1.0 + a.x(i)) * (1.0 - b.x(j)) * (1.0 - t.x(l)) - 1.0;
        c.points(q, 1) = 0.5 * (1.0 + b.x(j)) * (1.0 - t.x(l)) - 1.0;
        c.points(q, 2) = t.x(l);
        c.weights(q) = 0.125 * a.w(i) * b.w(j) * t.w(l);  // Jacobian (1 - b)(1 - c)^2 / 8
      }
  return c;
}

}  // namespace rtdg::dg
