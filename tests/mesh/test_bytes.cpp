// mesh_to_bytes / mesh_from_bytes (mesh/bytes.hpp): what a parallel run's rank 0 hands the
// others is the mesh itself, and cut or padded bytes are an error, not a different mesh.
#include "fixtures.hpp"
#include "partition_fixtures.hpp"

#include <mesh/bytes.hpp>
#include <mesh/error.hpp>

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
