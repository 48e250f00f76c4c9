// Equispaced lattices and interpolation onto them, for output (equispaced.hpp).
#include "dg/equispaced.hpp"

#include "dg/basis.hpp"
#include "dg/error.hpp"
#include "lattice.hpp"

#include <string>

namespace rtdg::dg {

Eigen::MatrixXd equispaced_nodes(Shape shape, int n) {
  if (n < 1) throw Error("dg: an equispaced lattice needs order n >= 1, got " + std::to_string(n));
  const int dim = dimension(shape);
  const auto lattice = detail::lattice_indices(dim, n);
  Eigen::MatrixXd nodes(static_cast<Eigen::Index>(lattice.size()), dim);
  for (Eigen::Index p = 0; p < nodes.rows(); ++p) {
    for (Eigen::Index d = 0; d < dim; ++d) {
      nodes(p, d) = -1.0 + 2.0 * lattice[static_cast<std::size_t>(p)][static_cast<std::size_t>(d)] / n;
    }
  }
  return nodes;
}

Eigen::MatrixXd equispaced_interpolation(const Element& element, int n) {
  return vandermonde(element.shape, element.N, equispaced_nodes(element.shape, n)) * element.invV;
}

}  // namespace rtdg::dg
