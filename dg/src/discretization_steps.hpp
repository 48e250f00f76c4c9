// The steps of discretize() (discretization.cpp), each filling some fields of the
// Discretization from the ones before. Private to dg.
#pragma once

#include "dg/discretization.hpp"

namespace rtdg::dg::detail {

// x, y, z: the affine image of the reference nodes in each element, or for a curved element
// its polynomial map at the nodes; d.curved.
void compute_node_coordinates(const mesh::Mesh& mesh, Discretization& d);

// rx ... tz and J of the affine map of each element (book GeometricFactors2D/3D), per node
// from Dr x .. on curved elements, with their weight-adjusted mass matrix (Vq, Pq, wq, Jq);
// throws if J <= 0 at a node or cubature point, naming the element and its worst node.
void compute_geometric_factors(const mesh::Mesh& mesh, Discretization& d);

// nx, ny, nz, sJ, Fscale from the geometric factors (book Normals2D/3D).
void compute_normals(Discretization& d);

// vmapM, vmapP, mapP by matching face node coordinates across each connected face pair
// (book BuildMaps2D/3D), modulo the periodic shifts.
void build_face_maps(const mesh::Mesh& mesh, Discretization& d);

// mapB, vmapB and the boundaries grouped by physical name (book BuildBCMaps).
// `halo` (parallel runs), when given: [K * 4] flags of the local mesh's halo faces, free faces
// that belong to no group and are not boundary nodes (their exterior comes from another rank).
void build_boundary_maps(const mesh::Mesh& mesh, Discretization& d, const std::vector<char>* halo = nullptr);

}  // namespace rtdg::dg::detail
