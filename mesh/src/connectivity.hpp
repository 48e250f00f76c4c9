// Face connectivity steps of build_mesh (private to the mesh module). A face "slot" is
// k * 4 + f: the [K][4] face arrays flattened.
#pragma once

#include "mesh/build.hpp"
#include "mesh/mesh.hpp"

#include <array>
#include <string>
#include <utility>
#include <vector>

namespace rtdg::mesh::detail {

// A face's vertex indices, sorted ascending, -1 padded: equal for the two sides of an
// interior face.
using FaceKey = std::array<int, 3>;

FaceKey face_key(const Mesh& mesh, int k, int f);
FaceKey sorted_key(std::array<int, 3> vertices, int nfv);

// Every element face, sorted by key, for lookups by vertex set.
class FaceIndex {
public:
  explicit FaceIndex(const Mesh& mesh);
  // The slots of the faces with this key: none, one (boundary) or two (interior).
  std::pair<const int*, const int*> find(const FaceKey& key) const;
  const std::vector<std::pair<FaceKey, int>>& entries() const { return entries_; }

private:
  std::vector<std::pair<FaceKey, int>> entries_;
};

// Fills EToE/EToF: faces with the same vertex set are neighbours, a face alone points to
// itself. Throws when more than two elements share a face.
void connect_faces(Mesh& mesh, const FaceIndex& faces, const std::string& source,
                   const std::vector<std::size_t>& element_tags);

// Identifies each spec's pair of boundary groups by translation: connects the faces in
// EToE/EToF and fills periodic_pairs and periodic_faces. face_group: [K * 4] group of each
// boundary slot, -1 where none.
void link_periodic(Mesh& mesh, const std::vector<int>& face_group,
                   const std::vector<PeriodicSpec>& specs, const std::string& source);

// Fills face_vertex_match from EToE/EToF (and the periodic shifts).
void match_face_vertices(Mesh& mesh);

// The shift of each periodic slot ([K * 4]; zero elsewhere) and whether it is periodic.
std::vector<std::pair<bool, std::array<double, 3>>> periodic_shifts(const Mesh& mesh);

}  // namespace rtdg::mesh::detail
