// High-order (curved) element geometry: the Lagrange nodes of an element's polynomial map from
// the reference simplex, as Gmsh's 6-, 10-, 15-node triangles and 10-, 20-, 35-node tetrahedra
// give them, in one layout of rtdg's own.
//
// Layout. A mesh of geometry order p > 1 stores, per element, the physical positions of the
// (p+1)(p+2)/2 (triangle) or (p+1)(p+2)(p+3)/6 (tetrahedron) nodes of the equispaced lattice
// of order p on rtdg's reference simplex (vertices (-1,-1), (1,-1), (-1,1) and, in 3D,
// (-1,-1,-1), (1,-1,-1), (-1,1,-1), (-1,-1,1); vertex v of the element is vertex v of the
// reference simplex). Lattice node (i, j, l), i + j + l <= p (l = 0 in 2D), sits at
// r = -1 + 2i/p, s = -1 + 2j/p, t = -1 + 2l/p; the nodes are numbered with i fastest, then j,
// then l (the order of Hesthaven & Warburton's equispaced nodes). The map
// x(r) = sum_n X_n L_n(r) uses the Lagrange basis L_n of the lattice.
//
// An element is curved when one of its nodes is off the affine image of its vertices by more
// than kCurvedTolerance times its longest edge; the others are affine (straight-sided) and the
// solver treats them as it treats a mesh of geometry order 1.
#pragma once

#include "mesh/mesh.hpp"

#include <array>
#include <string_view>
#include <vector>

namespace rtdg::mesh {

// Nodes of the order-p lattice of a simplex of dimension dim (2 or 3).
int lattice_size(int dim, int p);

// The number of lattice node (i, j, l) (l = 0 in 2D), or -1 when i + j + l > p or one is negative.
int lattice_index(int dim, int p, int i, int j, int l);

// The multi-index (i, j, l) of lattice node n.
std::array<int, 3> lattice_multi_index(int dim, int p, int n);

// Reference coordinates (r, s, t) of lattice node n (t = 0 in 2D).
std::array<double, 3> lattice_point(int dim, int p, int n);

// The lattice's Lagrange basis at a reference point: values[n] = L_n(r) and, when derivatives
// is given, derivatives[a][n] = dL_n/dr_a (a < dim). Silvester's product formula in the
// barycentric coordinates, exact for any order.
void lattice_basis(int dim, int p, const std::array<double, 3>& r, std::vector<double>& values,
                   std::array<std::vector<double>, 3>* derivatives = nullptr);

// The permutation of lattice nodes when an element's vertices v1 and v2 swap (what build_mesh
// does to orient an element): new node n is old node permutation[n].
std::vector<int> lattice_swap_v1_v2(int dim, int p);

// Relative distance from the affine image above which an element counts as curved.
inline constexpr double kCurvedTolerance = 1e-10;

// The geometry nodes of element k: mesh.element_nodes from k * lattice_size on.
const std::array<double, 3>* element_geometry_nodes(const Mesh& mesh, int k);

// Whether element k is curved (false for every element of a mesh of geometry order 1).
bool is_curved(const Mesh& mesh, int k);

// The curved elements, ascending.
std::vector<int> curved_elements(const Mesh& mesh);

// The smallest Jacobian det(dx/dr) a curved element may have at a lattice node, relative to its
// straight element's: below it the curved scheme's semi-discrete operator was found to grow
// without bound (docs/curved.md, "Stability"), so validation refuses the element.
inline constexpr double kMinJacobianRatio = 0.2;

// The Jacobian determinant det(dx/dr) of element k's polynomial map at its worst lattice node
// (the smallest, relative to the affine element's), and that node.
struct WorstJacobian {
  double J = 0.0;       // det(dx/dr) at the node
  double ratio = 0.0;   // J / (the affine element's J)
  int node = 0;         // lattice node
};
WorstJacobian worst_jacobian(const Mesh& mesh, int k);

// The area (2D) or volume (3D) of the mesh through its element maps: total_volume for a mesh
// of geometry order 1; for a curved mesh the integral of det(dx/dr) by a 6-point Gauss rule per
// collapsed direction (exact to rounding for geometry orders up to 4).
double mapped_volume(const Mesh& mesh);

// Checks the geometry nodes of a mesh of geometry order > 1: sizes, z = 0 in 2D, the corner
// nodes equal to the element's vertices and, at level full, a positive Jacobian at every
// lattice node (the volume and face nodes) of at least kMinJacobianRatio times the straight
// element's; throws MeshError naming `source`, the element, its ratio and its worst node. Part of validate().
void validate_geometry_nodes(const Mesh& mesh, std::string_view source, Validation level);

}  // namespace rtdg::mesh
