// Meshes the partitioning tests run on, and the check that rank-local meshes put together
// reproduce the global mesh (shared by the GoogleTest suite and the MPI smoke test).
#pragma once

#include <mesh/local_mesh.hpp>
#include <mesh/mesh.hpp>
#include <mesh/partition.hpp>

#include <string>
#include <vector>

namespace rtdg::mesh::testing {

struct NamedMesh {
  std::string name;
  Mesh mesh;
};

// 2D and 3D, with walls, several boundary groups, periodic boundaries in one or every
// direction (a mesh two elements thick, where elements share several periodic faces), and
// the shipped data/meshes/sphere.h5 (1238 tetrahedra, groups pec and outer).
std::vector<NamedMesh> partition_test_meshes();

// data/meshes/sphere.h5.
Mesh shipped_sphere();

// "" when the rank-local meshes of `partition` reproduce `global` exactly, else the first
// difference: every element on exactly one rank with its vertices, coordinates and region;
// every face local-local with the global neighbour, face, vertex match and periodic shift, or
// a boundary face with its group, or a halo face whose neighbour rank lists the matching face
// at the same position of the agreed order with the inverse vertex match and opposite shift;
// no face more.
std::string check_local_meshes(const Mesh& global, const Partition& partition, const std::vector<LocalMesh>& locals);

}  // namespace rtdg::mesh::testing
