// Element reordering (mesh/reorder.hpp): the reordered mesh is the same mesh (validates, same
// elements with the same vertices, regions and boundary faces, neighbours mapped through the
// renumbering), the Morton order improves locality, and bad orders are refused.
#include "fixtures.hpp"
#include "partition_fixtures.hpp"

#include <mesh/build.hpp>
#include <mesh/hdf5_io.hpp>
#include <mesh/load.hpp>
#include <mesh/reorder.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

namespace rtdg::mesh {
namespace {

using ::testing::HasSubstr;
using testing::error_of;

TEST(MeshReorder, MortonOrderIsTheSameMeshWithCloserNeighbours) {
  for (const testing::NamedMesh& named : testing::partition_test_meshes()) {
    const Mesh& mesh = named.mesh;
    const std::vector<int> order = morton_order(mesh);
    std::vector<int> sorted = order;
    std::sort(sorted.begin(), sorted.end());
    std::vector<int> identity(sorted.size());
    std::iota(identity.begin(), identity.end(), 0);
    ASSERT_EQ(sorted, identity) << named.name << ": not a permutation";

    const Mesh out = reorder_elements(mesh, order, named.name);
    EXPECT_NO_THROW(validate(out, named.name, Validation::full)) << named.name;
    std::vector<int> renumber(order.size());
    for (std::size_t i = 0; i < order.size(); ++i) renumber[static_cast<std::size_t>(order[i])] = static_cast<int>(i);
    for (std::size_t i = 0; i < order.size(); ++i) {
      const std::size_t old = static_cast<std::size_t>(order[i]);
      EXPECT_EQ(out.EToV[i], mesh.EToV[old]);
      EXPECT_EQ(out.element_region[i], mesh.element_region[old]);
      for (std::size_t f = 0; f < static_cast<std::size_t>(mesh.num_faces()); ++f) {
        EXPECT_EQ(out.EToE[i][f], renumber[static_cast<std::size_t>(mesh.EToE[old][f])]);
        EXPECT_EQ(out.EToF[i][f], mesh.EToF[old][f]);
      }
    }
    ASSERT_EQ(out.boundary_faces.size(), mesh.boundary_faces.size());
    for (const BoundaryFace& b : mesh.boundary_faces) {
      const BoundaryFace moved{renumber[static_cast<std::size_t>(b.element)], b.face, b.group};
      EXPECT_TRUE(std::find(out.boundary_faces.begin(), out.boundary_faces.end(), moved) != out.boundary_faces.end())
          << named.name;
    }
    ASSERT_EQ(out.periodic_faces.size(), mesh.periodic_faces.size());
    EXPECT_NEAR(total_volume(out), total_volume(mesh), 1e-12 * total_volume(mesh));  // summed in another order
  }
  // The shipped sphere (Gmsh's order): neighbours much closer in memory.
  const Mesh sphere = testing::shipped_sphere();
  const double before = mean_neighbour_distance(sphere);
  const double after = mean_neighbour_distance(reorder_elements(sphere, morton_order(sphere)));
  EXPECT_LT(after, 0.5 * before) << before << " -> " << after;
}

// `rtdg mesh in.h5 --order morton -o out.h5`: the stored partitions follow their elements.
TEST(MeshReorder, ConvertKeepsStoredPartitionsWithTheirElements) {
  const testing::TemporaryFolder folder;
  const Mesh mesh = testing::shipped_sphere();
  Partition three{3, {}, "hand-made", 0, 1.03, false};
  for (int k = 0; k < mesh.num_elements(); ++k) three.element_part.push_back(k % 3);
  write_hdf5(mesh, folder / "in.h5", {"sphere", {}}, {three});
  const ConvertedMesh out = convert_mesh(folder / "in.h5", folder / "out.h5", {}, {}, {}, ElementOrder::morton);
  const std::vector<int> order = morton_order(mesh);
  EXPECT_EQ(out.mesh, reorder_elements(mesh, order));
  EXPECT_EQ(read_hdf5(folder / "out.h5"), out.mesh);
  const std::vector<Partition> stored = read_hdf5_partitions(folder / "out.h5");
  ASSERT_EQ(stored.size(), 1u);
  for (std::size_t i = 0; i < order.size(); ++i)
    ASSERT_EQ(stored[0].element_part[i], three.element_part[static_cast<std::size_t>(order[i])]) << i;
}

TEST(MeshReorder, RefusesAnOrderThatIsNotAPermutation) {
  const Mesh mesh = testing::shipped_sphere();
  std::vector<int> order = morton_order(mesh);
  order[1] = order[0];
  EXPECT_THAT(error_of([&] { reorder_elements(mesh, order, "m.h5"); }), HasSubstr("not a permutation"));
  order.pop_back();
  EXPECT_THAT(error_of([&] { reorder_elements(mesh, order, "m.h5"); }), HasSubstr("entries"));
}

}  // namespace
}  // namespace rtdg::mesh
