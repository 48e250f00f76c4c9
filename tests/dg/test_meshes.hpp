// Small meshes made by hand for the discretization tests (no Gmsh): element soups handed to
// rtdg::mesh::build_mesh, which orients them and builds the connectivity.
#pragma once

#include <mesh/build.hpp>
#include <mesh/mesh.hpp>

#include <array>

namespace rtdg::dg::test {

// The box [origin, origin + size] split into n^dim squares/cubes: 2 triangles per square
// (alternating diagonals, alternating vertex orientation) or 6 tetrahedra per cube (Kuhn's
// subdivision along the main diagonal, conforming). Boundary groups "xmin", "xmax", "ymin",
// "ymax" (, "zmin", "zmax"), in that order; one region "domain".
mesh::RawMesh box_mesh(int dim, int n, std::array<double, 3> origin = {0, 0, 0},
                       std::array<double, 3> size = {1, 1, 1});
// The same with cells[a] cells along axis a.
mesh::RawMesh box_mesh(int dim, std::array<int, 3> cells, std::array<double, 3> origin, std::array<double, 3> size);

// Index of a boundary group by name in the raw mesh.
int group_index(const mesh::RawMesh& raw, const char* name);

// The box with the "xmin" and "xmax" groups identified by the translation (size[0], 0, 0).
mesh::RawMesh periodic_in_x(mesh::RawMesh raw, double length);

// The mesh with geometry order 2 and every non-vertex node moved by `amount` times a smooth
// field of its position (the same for a node that neighbours share): every element curved,
// boundaries too. Not for periodic meshes (the two sides would move differently).
mesh::RawMesh bent(mesh::RawMesh raw, double amount);

}  // namespace rtdg::dg::test
