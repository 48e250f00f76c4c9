// The discretization of a mesh at order N: physical node coordinates, geometric factors,
// outward normals, surface Jacobians and the face node maps a DG right-hand side needs
// (Hesthaven & Warburton sections 3.2, 6.2, 10.2: StartUp2D/3D, GeometricFactors2D/3D,
// Normals2D/3D, BuildMaps2D/3D, BuildBCMaps).
//
// Layouts (K elements; every matrix is Eigen column-major, so column k is element k and the
// flat index of entry (i, k) is k * rows + i, as in the book's MATLAB):
//   volume arrays   Np x K                       x, y, z, rx ... tz, J
//   face arrays     (Nfaces * Nfp) x K, row f * Nfp + j = node j of face f (the order of
//                   Fmask's columns and of LIFT's columns)      nx, ny, nz, sJ, Fscale,
//                                                               vmapM, vmapP, mapP
// Arrays that do not exist in 2D (z, rz, sz, tx, ty, tz, nz) are empty (0 x 0).
//
// vmapM / vmapP hold flat volume-node indices (k * Np + i): vmapM is the node itself,
// vmapP the node with the same coordinates on the neighbouring element (for a periodic face,
// the same point moved by the periodic shift). On a boundary face vmapP = vmapM. mapP holds
// flat face-node indices (k * Nfaces * Nfp + f * Nfp + j) of the neighbour's node; mapM is
// the identity and not stored.
//
// On straight-sided (affine) elements the geometric factors are constant per element; they are
// computed from the vertex differences (exact to rounding relative to the element size) rather
// than as the book's Dr * x. Curved elements (mesh::is_curved: a mesh of geometry order > 1
// whose element map is not affine) are isoparametric: x is the element's polynomial map
// (mesh/geometry_nodes.hpp) interpolated at the order-N nodes, and rx ... tz, J, the normals
// and sJ come per node from Dr x, Ds x (, Dt x). Their mass matrix is weight-adjusted
// (docs/curved.md): Vq, Pq and Jq below.
// sJ is the physical face measure per unit measure of the face's reference coordinates used
// by LIFT (element.hpp), so the surface term is LIFT * (Fscale .* flux), Fscale = sJ / J.
#pragma once

#include "dg/element.hpp"

#include <mesh/local_mesh.hpp>
#include <mesh/mesh.hpp>

#include <Eigen/Dense>

#include <string>
#include <string_view>
#include <vector>

namespace rtdg::dg {

// The nodes of one named boundary (a physical group of the mesh).
struct BoundaryNodes {
  std::string name;               // mesh.boundary_names[group]
  std::vector<int> elements;      // the group's faces: element ...
  std::vector<int> faces;         // ... and local face, both sorted by (element, face)
  std::vector<int> mapB;          // flat face-node indices of those faces' nodes, ascending
  std::vector<int> vmapB;         // vmapM at mapB
};

struct Discretization {
  Element element;  // the reference element
  int dim = 0;      // 2 or 3
  int K = 0;        // elements

  Eigen::MatrixXd x, y, z;                          // Np x K physical node coordinates
  Eigen::MatrixXd rx, ry, rz, sx, sy, sz, tx, ty, tz;  // Np x K d(r,s,t)/d(x,y,z)
  Eigen::MatrixXd J;                                // Np x K volume Jacobian det(dx/dr) > 0

  Eigen::MatrixXd nx, ny, nz;  // (Nfaces*Nfp) x K outward unit normals
  Eigen::MatrixXd sJ;          // (Nfaces*Nfp) x K surface Jacobian
  Eigen::MatrixXd Fscale;      // (Nfaces*Nfp) x K sJ / J at the face node
  Eigen::MatrixXi vmapM;       // (Nfaces*Nfp) x K flat volume index of the face node
  Eigen::MatrixXi vmapP;       // (Nfaces*Nfp) x K flat volume index of its exterior twin
  Eigen::MatrixXi mapP;        // (Nfaces*Nfp) x K flat face index of its exterior twin

  std::vector<int> mapB;   // every boundary face node (vmapP == vmapM), flat face index
  std::vector<int> vmapB;  // vmapM at mapB
  // One entry per mesh boundary group, in mesh.boundary_names order. Periodic groups are
  // connected, not boundary, and have no faces here.
  std::vector<BoundaryNodes> boundaries;

  // Curved elements (docs/curved.md), ascending; empty for a straight-sided mesh. Kc of them.
  std::vector<int> curved;
  // The weight-adjusted inverse mass matrix of curved element k, M_J^-1 ~ M^-1 M_{1/J} M^-1
  // (Chan, Hewett & Warburton 2017), applied to a reference-element right-hand side r as
  // Pq diag(1/Jq(:, c)) Vq r, on the collapsed cubature of degree 2N + 3 (dg/cubature.hpp).
  // Empty when no element is curved.
  Eigen::MatrixXd Vq;  // Nq x Np   nodal values -> values at the cubature points
  Eigen::MatrixXd Pq;  // Np x Nq   M^-1 Vq^T diag(wq): L2 projection back onto the nodes
  Eigen::VectorXd wq;  // Nq        cubature weights on the reference element
  Eigen::MatrixXd Jq;  // Nq x Kc   J at the cubature points of curved element curved[c]

  // The boundary with this physical name; throws dg::Error listing the names there are.
  const BoundaryNodes& boundary(std::string_view name) const;
};

// Discretizes the mesh with elements of order N (min_order..max_order). Throws dg::Error
// naming the element (and face) when an element has J <= 0 or when the nodes of two
// connected faces cannot be matched by coordinates (non-conforming faces, a wrong periodic
// shift).
Discretization discretize(const mesh::Mesh& mesh, int N);

// A rank's part of a partitioned mesh (parallel runs): as above, with the halo faces free
// faces (vmapP = vmapM) that are in no boundary group and not in mapB/vmapB; the solver takes
// their exterior traces from the neighbour ranks (SolverSetup::halo).
Discretization discretize(const mesh::LocalMesh& local, int N);

// Tolerance for matching face nodes, relative to the face's longest edge.
inline constexpr double face_match_tolerance = 1e-9;

}  // namespace rtdg::dg
