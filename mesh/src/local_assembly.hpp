// One rank's local mesh from its elements' rows of the global mesh (private to the mesh
// module): build_local_mesh takes the rows out of a global Mesh in memory, read_hdf5_local
// reads them from an .h5 mesh file with hyperslabs. Both hand them to assemble_local_mesh, so
// the two give the same LocalMesh.
#pragma once

#include "mesh/local_mesh.hpp"

#include <array>
#include <string>
#include <vector>

namespace rtdg::mesh::detail {

// The global mesh's rows of the rank's elements, in ascending global element number, with
// global element and vertex numbers.
struct OwnElements {
  int rank = 0;
  int parts = 1;
  int global_elements = 0;
  int global_vertices = 0;
  int dim = 0;
  ElementType type = ElementType::triangle;
  int geometry_order = 1;
  std::vector<std::string> boundary_names;
  std::vector<std::string> region_names;
  std::vector<PeriodicPair> periodic_pairs;

  std::vector<int> global;                          // [n] ascending
  std::vector<std::array<int, 4>> EToV;             // [n] global vertex numbers
  std::vector<std::array<int, 4>> EToE;             // [n] global element numbers
  std::vector<std::array<int, 4>> EToF;             // [n]
  std::vector<FaceVertexMatch> face_vertex_match;   // [n]
  std::vector<std::array<int, 4>> neighbour_part;   // [n] the part of EToE[i][f] (-1 where unused)
  std::vector<int> element_region;                  // [n]
  std::vector<std::array<double, 3>> element_nodes; // [n][lattice_size] when geometry_order > 1
  std::vector<int> vertex_global;                   // the vertices the rows use, ascending
  std::vector<std::array<double, 3>> vertices;      // their coordinates
  std::vector<BoundaryFace> boundary_faces;         // of the rank's elements, global element numbers
  std::vector<PeriodicFace> periodic_faces;         // of the rank's elements, global element numbers
};

// The LocalMesh of local_mesh.hpp (build_local_mesh's conventions) from the rows.
LocalMesh assemble_local_mesh(OwnElements own);

}  // namespace rtdg::mesh::detail
