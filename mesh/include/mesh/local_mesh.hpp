// The part of a partitioned mesh one rank computes on, and its halo: the faces it shares with
// other ranks, in an order both sides of each face agree on, so a parallel solver exchanges
// face traces (Nfp nodes per shared face), not whole elements.
//
// Built from the global mesh and a partition by every rank for itself (serial, no MPI):
//
// - mesh: a Mesh of the rank's elements: first the interior_elements without halo faces, then
//   those with at least one, each group in ascending global element number (a solver computes
//   the first group while the halo traces travel). Its vertices are
//   the ones those elements use, in ascending global vertex number. Connectivity between two
//   local elements (periodic included) is as in the global mesh, renumbered. A face on the
//   partition boundary (a "halo face") points to itself in EToE/EToF with an identity
//   face_vertex_match, like a physical boundary face, but is listed in halo_faces, not in
//   boundary_faces: its exterior trace comes from the neighbour rank instead of a boundary
//   condition. boundary_names, region_names and periodic_pairs are the global lists, so group
//   indices and names are the same on every rank (a rank may have no face of a group).
//   boundary_faces and periodic_faces hold the rank's faces of the global lists; a periodic
//   face whose partner is on another rank is a halo face (periodic = true), not a periodic
//   face of the local mesh. validate() does not accept the local mesh (its halo faces
//   have no group); validate_local does.
// - halo_faces: sorted by neighbour rank, then by the agreed order (below); neighbours gives
//   each neighbour rank's range in it. The two ranks of a shared face list it at the same
//   position of their ranges: rank r packs the Nfp-node trace of halo_faces[first + i] (its
//   own element and face, in its own face node order) as the i-th face of its message to the
//   neighbour, and reads the neighbour's trace of the same face from the i-th face of the
//   message it receives. The agreed order is by (global element, face) of the side on the
//   lower rank.
// - vertex_match maps the two sides' face vertices as Mesh::face_vertex_match does (vertex i
//   of this face, in kFaceVertices order, is vertex vertex_match[i] of the neighbour's face),
//   from which the receiver computes the permutation between the two face node orderings.
// - element_global, vertex_global: local-to-global maps for output and restart.
#pragma once

#include "mesh/mesh.hpp"
#include "mesh/partition.hpp"

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

namespace rtdg::mesh {

// One face of this rank whose neighbour element is on another rank.
struct HaloFace {
  int element = 0;                // local element number
  int face = 0;                   // its face
  int rank = 0;                   // the rank owning the neighbour element
  int neighbour_element = 0;      // the neighbour's global element number
  int neighbour_face = 0;         // the neighbour's face
  std::array<std::int8_t, 3> vertex_match{-1, -1, -1};  // [Nfv] as Mesh::face_vertex_match, -1 padded
  bool periodic = false;          // a periodic face (then x_neighbour = x_this + shift)
  int group = -1;                 // a periodic face's boundary group (index into boundary_names), else -1
  std::array<double, 3> shift{};
  friend bool operator==(const HaloFace&, const HaloFace&) = default;
};

// The halo faces shared with one neighbour rank: halo_faces[first .. first + count).
struct HaloNeighbour {
  int rank = 0;
  int first = 0;
  int count = 0;
  friend bool operator==(const HaloNeighbour&, const HaloNeighbour&) = default;
};

struct LocalMesh {
  int rank = 0;
  int parts = 1;
  int global_elements = 0;          // K of the global mesh
  int global_vertices = 0;          // Nv of the global mesh
  Mesh mesh;                        // the rank's elements (conventions above)
  int interior_elements = 0;        // local elements [0, interior_elements) have no halo face
  std::vector<int> element_global;  // [K_local] global element number (ascending in each group)
  std::vector<int> vertex_global;   // [Nv_local] global vertex number, ascending
  std::vector<HaloFace> halo_faces;
  std::vector<HaloNeighbour> neighbours;  // ascending rank

  int num_halo_faces() const { return static_cast<int>(halo_faces.size()); }
  friend bool operator==(const LocalMesh&, const LocalMesh&) = default;
};

// Rank `rank`'s part of `global` under `partition` (checked against the mesh first). Throws
// MeshError naming `source` for a partition that does not fit the mesh or a rank out of range.
LocalMesh build_local_mesh(const Mesh& global, const Partition& partition, int rank,
                           std::string_view source = "<memory>");

// The local mesh's conventions: the Mesh conventions (Validation::full) with halo faces in
// place of boundary faces, halo_faces sorted and covered by neighbours, the local-to-global
// maps in range and ascending (elements: in each of the two groups, interior_elements
// splitting them correctly). Throws MeshError naming `source` and the first culprit.
void validate_local(const LocalMesh& local, std::string_view source);

}  // namespace rtdg::mesh
