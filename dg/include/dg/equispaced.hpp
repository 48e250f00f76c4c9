// Equispaced lattices on the reference elements, interpolation onto them (for output), and
// the permutation to VTK's Lagrange cell point order.
//
// Lattice of order n (n >= 1): the points with r = -1 + 2i/n, s = -1 + 2j/n, t = -1 + 2k/n,
// i, j, k >= 0 and i + j + k <= n (book EquiNodes2D/3D), ordered with i fastest, then j,
// then k, exactly as the warp & blend nodes (nodes.hpp) are before warping. Sizes are
// num_nodes(shape, n).
#pragma once

#include "dg/element.hpp"
#include "dg/shape.hpp"

#include <Eigen/Dense>

#include <vector>

namespace rtdg::dg {

// The lattice, num_nodes(shape, n) x dim.
Eigen::MatrixXd equispaced_nodes(Shape shape, int n);

// Interpolation from the element's nodes to the lattice of order n: num_nodes(shape, n) x Np,
// exact for polynomials of degree <= element.N.
Eigen::MatrixXd equispaced_interpolation(const Element& element, int n);

// perm[k] = index in the lattice of order n of point k of VTK's Lagrange cell of the same
// order: VTK_LAGRANGE_CURVE (68), VTK_LAGRANGE_TRIANGLE (69), VTK_LAGRANGE_TETRAHEDRON (71).
// VTK orders vertices, then edge points, then face points, then the interior recursively;
// its vertices are ours (r, s, t = 2 * VTK parametric - 1). Writing lattice values in VTK
// order: vtk_values[k] = lattice_values[perm[k]].
std::vector<int> vtk_lagrange_permutation(Shape shape, int n);

}  // namespace rtdg::dg
