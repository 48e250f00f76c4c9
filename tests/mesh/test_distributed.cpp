// Distributed mesh input: read_hdf5_local gives each rank the LocalMesh build_local_mesh cuts
// from the whole mesh (2D, 3D, periodic, curved; METIS, block and scattered partitions, the
// reads also in blocks and windows of a few rows, so that small meshes cross many of them), the
// fingerprint bytes of an .h5 file are those of the mesh it holds, and damaged or missing
// partitions are named.
#include "fixtures.hpp"
#include "partition_fixtures.hpp"

#include <mesh/build.hpp>
#include <mesh/error.hpp>
#include <mesh/fingerprint.hpp>
#include <mesh/gmsh_io.hpp>
#include <mesh/hdf5_io.hpp>
#include <mesh/load.hpp>
#include <mesh/local_mesh.hpp>
#include <mesh/partition.hpp>

#include "hdf5_local.hpp"  // mesh/src: read_hdf5_local with small blocks

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <hdf5.h>

#include <cstddef>

namespace rtdg::mesh {
namespace {

using ::testing::HasSubstr;
using testing::TemporaryFolder;
using testing::error_of;

// Every rank's part read from the file equals the one cut from the whole mesh in memory.
void expect_reads_match(const Mesh& mesh, const std::vector<Partition>& partitions, const std::filesystem::path& file) {
  write_hdf5(mesh, file, {"test", {}}, partitions);
  const Mesh read = read_hdf5(file);
  for (const Partition& partition : partitions) {
    for (int rank = 0; rank < partition.parts; ++rank) {
      SCOPED_TRACE(std::to_string(partition.parts) + " parts (" + partition.method + "), rank " + std::to_string(rank));
      const LocalMesh expected = build_local_mesh(read, partition, rank);
      const LocalMesh local = read_hdf5_local(file, partition.parts, rank);
      EXPECT_EQ(local.mesh, expected.mesh);
      EXPECT_EQ(local.element_global, expected.element_global);
      EXPECT_EQ(local.vertex_global, expected.vertex_global);
      EXPECT_EQ(local.halo_faces, expected.halo_faces);
      EXPECT_EQ(local.neighbours, expected.neighbours);
      EXPECT_EQ(local.interior_elements, expected.interior_elements);
      EXPECT_EQ(local.global_elements, mesh.num_elements());
      EXPECT_EQ(local.global_vertices, mesh.num_vertices());
      EXPECT_TRUE(local == expected);
      for (const std::size_t block_rows : {std::size_t{1}, std::size_t{5}, std::size_t{64}})
        EXPECT_TRUE(detail::read_hdf5_local(file, partition.parts, rank, block_rows) == expected) << block_rows << " rows a block";
    }
  }
  const std::vector<int> counts = hdf5_partition_counts(file);
  EXPECT_EQ(counts.size(), partitions.size());
}

Partition blocks(const Mesh& mesh, int parts) {
  Partition partition{parts, {}, "blocks", 0, 1.03, false};
  for (int k = 0; k < mesh.num_elements(); ++k) partition.element_part.push_back(k * parts / mesh.num_elements());
  return partition;
}

Partition scattered(const Mesh& mesh, int parts) {
  Partition partition{parts, {}, "scattered", 0, 1.03, false};
  for (int k = 0; k < mesh.num_elements(); ++k) partition.element_part.push_back((k * 7 + k / 5) % parts);
  return partition;
}

TEST(MeshDistributed, EachRankReadsTheLocalMeshBuildLocalMeshCuts) {
  const TemporaryFolder folder;
  for (const auto& [name, mesh] : testing::partition_test_meshes()) {
    SCOPED_TRACE(name);
    std::vector<Partition> partitions{blocks(mesh, 2), scattered(mesh, 3)};
    if (have_metis()) partitions.push_back(partition_mesh(mesh, {4, {}, 0, 1.03}));
    expect_reads_match(mesh, partitions, folder / "m.h5");
  }
}

TEST(MeshDistributed, CurvedElements) {
  const TemporaryFolder folder;
  if (!have_gmsh()) GTEST_SKIP() << "built without Gmsh: no curved mesh";
  const Mesh disk = load_mesh(testing::geometries() / "disk.geo", {{{"h", 0.5}, {"order", 2}}, {}});
  ASSERT_EQ(disk.geometry_order, 2);
  expect_reads_match(disk, {blocks(disk, 2), scattered(disk, 3)}, folder / "disk.h5");
}

TEST(MeshDistributed, FingerprintBytesOfTheFileAreTheMesh) {
  const TemporaryFolder folder;
  for (const auto& [name, mesh] : testing::partition_test_meshes()) {
    SCOPED_TRACE(name);
    write_hdf5(mesh, folder / "m.h5");
    std::string from_mesh, from_file;
    fingerprint_bytes(read_hdf5(folder / "m.h5"), [&](std::string_view b) { from_mesh += b; });
    hdf5_fingerprint_bytes(folder / "m.h5", [&](std::string_view b) { from_file += b; });
    EXPECT_GT(from_mesh.size(), sizeof(double) * 3 * std::size_t(mesh.num_vertices()));
    EXPECT_TRUE(from_mesh == from_file);
  }
  // A different mesh gives different bytes.
  std::string a, b;
  fingerprint_bytes(build_mesh(testing::structured_square(2, true)), [&](std::string_view s) { a += s; });
  fingerprint_bytes(build_mesh(testing::structured_square(3, true)), [&](std::string_view s) { b += s; });
  EXPECT_NE(a, b);
}

// Overwrites entry `k` of /partitions/<parts> with `value`.
void damage(const std::filesystem::path& file, int parts, hsize_t k, int value) {
  const hid_t handle = H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  const hid_t data = H5Dopen2(handle, ("partitions/" + std::to_string(parts)).c_str(), H5P_DEFAULT);
  const hid_t space = H5Dget_space(data);
  H5Sselect_elements(space, H5S_SELECT_SET, 1, &k);
  const hsize_t one = 1;
  const hid_t memory = H5Screate_simple(1, &one, nullptr);
  H5Dwrite(data, H5T_NATIVE_INT, memory, space, H5P_DEFAULT, &value);
  H5Sclose(memory);
  H5Sclose(space);
  H5Dclose(data);
  H5Fclose(handle);
}

TEST(MeshDistributed, MissingAndDamagedPartitionsAreNamed) {
  const TemporaryFolder folder;
  const Mesh mesh = build_mesh(testing::structured_square(2, true));  // 8 elements
  const Partition two{2, {0, 0, 0, 0, 1, 1, 1, 1}, "test", 0, 1.03, false};
  write_hdf5(mesh, folder / "m.h5", {}, {two});
  EXPECT_THAT(error_of([&] { read_hdf5_local(folder / "m.h5", 3, 0); }),
              HasSubstr("stores no partition into 3 parts; add one with `rtdg mesh"));
  EXPECT_THAT(error_of([&] { read_hdf5_local(folder / "m.h5", 2, 2); }), HasSubstr("rank 2 of 2 parts"));
  write_hdf5(mesh, folder / "plain.h5");
  EXPECT_TRUE(hdf5_partition_counts(folder / "plain.h5").empty());
  EXPECT_THAT(error_of([&] { read_hdf5_local(folder / "plain.h5", 2, 0); }), HasSubstr("stores no partition into 2 parts"));
  damage(folder / "m.h5", 2, 7, 5);
  EXPECT_THAT(error_of([&] { read_hdf5_local(folder / "m.h5", 2, 0); }),
              HasSubstr("/partitions/2: the partition into 2 parts puts element 7 in part 5"));
  write_hdf5(mesh, folder / "m.h5", {}, {two});
  for (hsize_t k = 4; k < 8; ++k) damage(folder / "m.h5", 2, k, 0);
  EXPECT_THAT(error_of([&] { read_hdf5_local(folder / "m.h5", 2, 0); }),
              HasSubstr("part 1 of the partition into 2 parts has no elements"));
  EXPECT_THAT(error_of([&] { read_hdf5_local(folder / "none.h5", 2, 0); }), HasSubstr("none.h5"));
}

}  // namespace
}  // namespace rtdg::mesh
