// mesh_to_bytes / mesh_from_bytes and the same for a rank's part (mesh/bytes.hpp): what a
// parallel run's rank 0 hands the others is the mesh (or the part) itself, curved elements
// included, and cut or padded bytes are an error, not a different mesh.
#include "fixtures.hpp"
#include "partition_fixtures.hpp"

#include <mesh/bytes.hpp>
#include <mesh/error.hpp>
#include <mesh/gmsh_io.hpp>
#include <mesh/load.hpp>
#include <mesh/partition.hpp>

#include <gtest/gtest.h>

namespace rtdg::mesh {
namespace {

TEST(MeshBytes, EveryTestMeshComesBackExactly) {
  // 2D and 3D, walls, periodic boundaries in one or all directions, regions, the shipped sphere.
  const std::vector<testing::NamedMesh> meshes = testing::partition_test_meshes();
  ASSERT_GE(meshes.size(), 3U);
  for (const testing::NamedMesh& m : meshes) {
    const std::string bytes = mesh_to_bytes(m.mesh);
    const Mesh back = mesh_from_bytes(bytes, m.name);
    EXPECT_TRUE(back == m.mesh) << m.name;
    EXPECT_EQ(testing::difference(back, m.mesh), "") << m.name;
  }
}

TEST(MeshBytes, CurvedElementsComeBack) {
  if (!have_gmsh()) GTEST_SKIP() << "built without Gmsh: no curved mesh";
  const Mesh disk = load_mesh(testing::geometries() / "disk.geo", {{{"h", 0.5}, {"order", 2}}, {}});
  ASSERT_EQ(disk.geometry_order, 2);
  ASSERT_FALSE(disk.element_nodes.empty());
  EXPECT_TRUE(mesh_from_bytes(mesh_to_bytes(disk), "disk") == disk);
}

// Rank-local parts (halo faces, periodic shifts, the local-to-global maps) of every test mesh.
TEST(MeshBytes, EveryPartComesBackExactly) {
  for (const testing::NamedMesh& m : testing::partition_test_meshes()) {
    const int K = m.mesh.num_elements();
    Partition halves;
    halves.parts = 3;
    halves.method = "blocks";
    for (int k = 0; k < K; ++k) halves.element_part.push_back(3 * k / K);
    for (int r = 0; r < 3; ++r) {
      const LocalMesh local = build_local_mesh(m.mesh, halves, r, m.name);
      ASSERT_FALSE(local.halo_faces.empty()) << m.name << " rank " << r;
      const std::string bytes = local_mesh_to_bytes(local);
      EXPECT_TRUE(local_mesh_from_bytes(bytes, m.name) == local) << m.name << " rank " << r;
      EXPECT_THROW((void)local_mesh_from_bytes(std::string_view(bytes).substr(0, bytes.size() - 1), m.name), MeshError);
      EXPECT_THROW((void)local_mesh_from_bytes(bytes + "x", m.name), MeshError);
    }
  }
}

TEST(MeshBytes, CutOrPaddedBytesAreAnError) {
  const std::vector<testing::NamedMesh> meshes = testing::partition_test_meshes();
  const std::string bytes = mesh_to_bytes(meshes.front().mesh);
  for (const std::size_t keep : {std::size_t{0}, std::size_t{3}, bytes.size() / 2, bytes.size() - 1}) {
    try {
      (void)mesh_from_bytes(std::string_view(bytes).substr(0, keep), "piece");
      ADD_FAILURE() << keep << " of " << bytes.size() << " bytes read as a mesh";
    } catch (const MeshError& e) {
      EXPECT_NE(std::string(e.what()).find("piece: the mesh's bytes are cut short"), std::string::npos) << e.what();
    }
  }
  try {
    (void)mesh_from_bytes(bytes + "x", "padded");
    ADD_FAILURE() << "a mesh with a byte after it read";
  } catch (const MeshError& e) {
    EXPECT_NE(std::string(e.what()).find("padded: 1 bytes after the mesh"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace rtdg::mesh
