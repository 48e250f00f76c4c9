// Partitioning: the dual graph, METIS partitions (balance, coverage, determinism, weights),
// partitions stored in and reloaded from .h5 meshes, and rank-local meshes whose union with
// their halos reproduces the global mesh.
#include "fixtures.hpp"
#include "partition_fixtures.hpp"

#include <mesh/build.hpp>
#include <mesh/error.hpp>
#include <mesh/hdf5_io.hpp>
#include <mesh/load.hpp>
#include <mesh/local_mesh.hpp>
#include <mesh/partition.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <hdf5.h>

#include <algorithm>
#include <numeric>

namespace rtdg::mesh {
namespace {

using ::testing::HasSubstr;
using testing::TemporaryFolder;
using testing::error_of;

#define RTDG_REQUIRE_METIS() \
  if (!have_metis()) GTEST_SKIP() << "built without METIS (RTDG_WITH_METIS)"

std::vector<LocalMesh> local_meshes(const Mesh& mesh, const Partition& partition) {
  std::vector<LocalMesh> locals;
  for (int r = 0; r < partition.parts; ++r) locals.push_back(build_local_mesh(mesh, partition, r));
  return locals;
}

TEST(MeshPartition, DualGraphHasOneEdgePerNeighbourPair) {
  for (const auto& [name, mesh] : testing::partition_test_meshes()) {
    SCOPED_TRACE(name);
    const DualGraph graph = dual_graph(mesh);
    const int K = mesh.num_elements();
    ASSERT_EQ(graph.offsets.size(), std::size_t(K) + 1);
    long faces = 0;
    for (int k = 0; k < K; ++k) {
      for (int i = graph.offsets[std::size_t(k)]; i < graph.offsets[std::size_t(k) + 1]; ++i) {
        const int k2 = graph.adjacency[std::size_t(i)];
        ASSERT_NE(k2, k);
        if (i > graph.offsets[std::size_t(k)]) {
          ASSERT_LT(graph.adjacency[std::size_t(i) - 1], k2);
        }
        faces += graph.face_count[std::size_t(i)];
        // Symmetric, with the same face count both ways.
        const auto first = graph.adjacency.begin() + graph.offsets[std::size_t(k2)];
        const auto last = graph.adjacency.begin() + graph.offsets[std::size_t(k2) + 1];
        const auto back = std::find(first, last, k);
        ASSERT_NE(back, last);
        EXPECT_EQ(graph.face_count[std::size_t(back - graph.adjacency.begin())], graph.face_count[std::size_t(i)]);
      }
    }
    // Every face that is not a boundary face is an edge end, periodic ones included.
    EXPECT_EQ(faces, long(K) * mesh.num_faces() - long(mesh.boundary_faces.size()));
  }
  // Two elements sharing several periodic faces: one edge counting them.
  RawMesh raw = testing::structured_square(1);
  raw.periodic = {{testing::group(raw, "xmin"), testing::group(raw, "xmax"), std::nullopt},
                  {testing::group(raw, "ymin"), testing::group(raw, "ymax"), std::nullopt}};
  const DualGraph thin = dual_graph(build_mesh(raw));
  EXPECT_EQ(thin.adjacency, (std::vector<int>{1, 0}));
  EXPECT_EQ(thin.face_count, (std::vector<int>{3, 3}));
}

TEST(MeshPartition, MetisPartsAreBalancedAndCoverEveryElementOnce) {
  RTDG_REQUIRE_METIS();
  for (const auto& [name, mesh] : testing::partition_test_meshes()) {
    for (int parts : {2, 3, 4}) {
      SCOPED_TRACE(name + ", " + std::to_string(parts) + " parts");
      const Partition partition = partition_mesh(mesh, {parts, {}, 0, 1.03});
      EXPECT_EQ(partition.method, "metis-kway");
      ASSERT_EQ(partition.element_part.size(), std::size_t(mesh.num_elements()));
      const PartitionStats stats = partition_stats(mesh, partition);
      EXPECT_EQ(std::accumulate(stats.elements.begin(), stats.elements.end(), 0), mesh.num_elements());
      for (int count : stats.elements) EXPECT_GT(count, 0);
      // METIS's tolerance, or one element over a perfect split where the tolerance is finer
      // than one element (the 8-element square into 3).
      const double average = double(mesh.num_elements()) / parts;
      const double allowed = std::max(1.03 * average, std::ceil(average));
      EXPECT_LE(*std::max_element(stats.elements.begin(), stats.elements.end()), allowed);
      EXPECT_EQ(stats.cut_faces * 2, std::accumulate(stats.halo_faces.begin(), stats.halo_faces.end(), 0));
      // Deterministic: the same inputs give the same partition.
      EXPECT_EQ(partition_mesh(mesh, {parts, {}, 0, 1.03}), partition);
    }
  }
}

TEST(MeshPartition, WeightsBalanceCostNotElements) {
  RTDG_REQUIRE_METIS();
  const Mesh mesh = testing::shipped_sphere();
  // The elements of part 0 of the uniform partition cost 4, the others 1: that partition is
  // then 1.6 times out of balance, and METIS given the weights must find another.
  const Partition uniform = partition_mesh(mesh, {2, {}, 0, 1.03});
  std::vector<int> weights;
  for (int part : uniform.element_part) weights.push_back(part == 0 ? 4 : 1);
  EXPECT_GT(partition_stats(mesh, uniform, weights).imbalance, 1.5);
  const Partition partition = partition_mesh(mesh, {2, weights, 0, 1.03});
  EXPECT_TRUE(partition.weighted);
  EXPECT_FALSE(uniform.weighted);
  const PartitionStats stats = partition_stats(mesh, partition, weights);
  EXPECT_LE(stats.imbalance, 1.03);
  EXPECT_GT(std::abs(stats.elements[0] - stats.elements[1]), 10) << "equal element counts: the weights did not reach METIS";
  // Equal weights are no weighting.
  EXPECT_FALSE(partition_mesh(mesh, {2, std::vector<int>(std::size_t(mesh.num_elements()), 3), 0, 1.03}).weighted);
}

TEST(MeshPartition, OnePartNeedsNoMetis) {
  const Mesh mesh = build_mesh(testing::structured_square(2, true));
  const Partition partition = partition_mesh(mesh, {1, {}, 0, 1.03});
  EXPECT_EQ(partition.method, "single");
  EXPECT_EQ(partition.element_part, std::vector<int>(8, 0));
  const LocalMesh local = build_local_mesh(mesh, partition, 0);
  EXPECT_EQ(local.mesh, mesh);  // the whole mesh, unchanged
  EXPECT_TRUE(local.halo_faces.empty());
}

TEST(MeshPartition, ErrorsSayWhatToChange) {
  const Mesh mesh = build_mesh(testing::structured_square(2, true));  // 8 elements
  EXPECT_THAT(error_of([&] { partition_mesh(mesh, {0, {}, 0, 1.03}, "m.h5"); }),
              HasSubstr("m.h5: cannot partition 8 elements into 0 parts (1 to 8)"));
  EXPECT_THAT(error_of([&] { partition_mesh(mesh, {9, {}, 0, 1.03}); }), HasSubstr("into 9 parts (1 to 8)"));
  EXPECT_THAT(error_of([&] { partition_mesh(mesh, {2, {1, 1}, 0, 1.03}); }),
              HasSubstr("element weights: 2 values for 8 elements"));
  EXPECT_THAT(error_of([&] { partition_mesh(mesh, {2, std::vector<int>(8, 0), 0, 1.03}); }),
              HasSubstr("element 0 has weight 0; weights are relative costs >= 1"));
  EXPECT_THAT(error_of([&] { partition_mesh(mesh, {2, {}, 0, 0.5}); }), HasSubstr("must be in [1.001, 2]"));
  if (!have_metis()) {
    EXPECT_THAT(error_of([&] { partition_mesh(mesh, {2, {}, 0, 1.03}); }), HasSubstr("needs METIS"));
  }
  Partition bad{2, std::vector<int>(8, 0), "test", 0, 1.03, false};
  EXPECT_THAT(error_of([&] { check_partition(bad, 8, "p"); }),
              HasSubstr("p: part 1 of the partition into 2 parts has no elements"));
  bad.element_part[3] = 2;
  EXPECT_THAT(error_of([&] { check_partition(bad, 8, "p"); }), HasSubstr("puts element 3 in part 2"));
  EXPECT_THAT(error_of([&] { check_partition(bad, 9, "p"); }), HasSubstr("has 8 entries for a mesh of 9 elements"));
  EXPECT_THAT(error_of([&] { build_local_mesh(mesh, partition_mesh(mesh, {1, {}, 0, 1.03}), 1); }),
              HasSubstr("rank 1 of a partition into 1 parts"));
}

TEST(MeshPartition, LocalMeshesReproduceTheGlobalMesh) {
  RTDG_REQUIRE_METIS();
  for (const auto& [name, mesh] : testing::partition_test_meshes()) {
    for (int parts : {2, 3, 4}) {
      SCOPED_TRACE(name + ", " + std::to_string(parts) + " parts");
      const Partition partition = partition_mesh(mesh, {parts, {}, 0, 1.03});
      const std::vector<LocalMesh> locals = local_meshes(mesh, partition);
      EXPECT_EQ(testing::check_local_meshes(mesh, partition, locals), "");
      const PartitionStats stats = partition_stats(mesh, partition);
      for (int r = 0; r < parts; ++r) {
        EXPECT_EQ(locals[std::size_t(r)].num_halo_faces(), stats.halo_faces[std::size_t(r)]);
        EXPECT_EQ(int(locals[std::size_t(r)].neighbours.size()), stats.neighbours[std::size_t(r)]);
      }
    }
  }
}

TEST(MeshPartition, LocalMeshesOfBlockPartitions) {
  // Elements in contiguous blocks of their numbering: scattered parts with many neighbours,
  // and a check that needs no METIS.
  for (const auto& [name, mesh] : testing::partition_test_meshes()) {
    for (int parts : {2, 3, 4}) {
      SCOPED_TRACE(name + ", " + std::to_string(parts) + " blocks");
      Partition partition{parts, {}, "blocks", 0, 1.03, false};
      for (int k = 0; k < mesh.num_elements(); ++k) partition.element_part.push_back(k * parts / mesh.num_elements());
      EXPECT_EQ(testing::check_local_meshes(mesh, partition, local_meshes(mesh, partition)), "");
    }
  }
}

TEST(MeshPartition, HandMadePartitionsCoverPeriodicHalos) {
  // Every element its own rank: every connected face is a halo face, periodic ones included,
  // and two elements share several faces.
  RawMesh raw = testing::structured_square(2);
  raw.periodic = {{testing::group(raw, "xmin"), testing::group(raw, "xmax"), std::nullopt},
                  {testing::group(raw, "ymin"), testing::group(raw, "ymax"), std::nullopt}};
  const Mesh mesh = build_mesh(raw);
  Partition partition{mesh.num_elements(), {}, "test", 0, 1.03, false};
  for (int k = 0; k < mesh.num_elements(); ++k) partition.element_part.push_back(mesh.num_elements() - 1 - k);
  const std::vector<LocalMesh> locals = local_meshes(mesh, partition);
  EXPECT_EQ(testing::check_local_meshes(mesh, partition, locals), "");
  int periodic = 0;
  for (const LocalMesh& local : locals) {
    EXPECT_EQ(local.num_halo_faces(), 3);
    for (const HaloFace& h : local.halo_faces) periodic += h.periodic;
  }
  EXPECT_EQ(periodic, int(mesh.periodic_faces.size()));
}

TEST(MeshPartition, ValidateLocalCatchesABrokenHalo) {
  RTDG_REQUIRE_METIS();
  const Mesh mesh = testing::shipped_sphere();
  const Partition partition = partition_mesh(mesh, {3, {}, 0, 1.03});
  std::vector<LocalMesh> locals = local_meshes(mesh, partition);
  ASSERT_GE(locals[0].halo_faces.size(), 2u);

  std::vector<LocalMesh> swapped = locals;
  std::swap(swapped[0].halo_faces[0], swapped[0].halo_faces[1]);
  EXPECT_THAT(error_of([&] { validate_local(swapped[0], "r0"); }), HasSubstr("out of the agreed order"));
  EXPECT_NE(testing::check_local_meshes(mesh, partition, swapped), "");

  std::vector<LocalMesh> unlisted = locals;
  unlisted[0].halo_faces.pop_back();
  unlisted[0].neighbours.back().count -= 1;
  EXPECT_THAT(error_of([&] { validate_local(unlisted[0], "r0"); }), HasSubstr("has no physical group"));

  // The elements without halo faces come first: a wrong split between the groups is caught.
  ASSERT_GT(locals[0].interior_elements, 0);
  std::vector<LocalMesh> split = locals;
  split[0].interior_elements += 1;
  EXPECT_NE(error_of([&] { validate_local(split[0], "r0"); }), "");  // the map's order or the split itself

  std::vector<LocalMesh> wrong_match = locals;
  std::swap(wrong_match[1].halo_faces[0].vertex_match[0], wrong_match[1].halo_faces[0].vertex_match[1]);
  EXPECT_NO_THROW(validate_local(wrong_match[1], "r1"));  // still a permutation, only the global check sees it
  EXPECT_THAT(testing::check_local_meshes(mesh, partition, wrong_match), HasSubstr("vertex"));
}

TEST(MeshPartition, StoredInTheH5MeshAndReloaded) {
  RTDG_REQUIRE_METIS();
  const TemporaryFolder folder;
  const Mesh mesh = testing::partition_test_meshes()[3].mesh;  // periodic cube
  const Partition two = partition_mesh(mesh, {2, {}, 7, 1.05});
  Partition three{3, {}, "hand-made", 0, 1.03, true};
  for (int k = 0; k < mesh.num_elements(); ++k) three.element_part.push_back(k % 3);
  write_hdf5(mesh, folder / "m.h5", {"cube", {}}, {three, two});

  EXPECT_EQ(read_hdf5(folder / "m.h5"), mesh);
  const std::vector<Partition> stored = read_hdf5_partitions(folder / "m.h5");
  ASSERT_EQ(stored.size(), 2u);
  EXPECT_EQ(stored[0], two);  // ascending part count, every attribute kept
  EXPECT_EQ(stored[1], three);
  EXPECT_EQ(stored[0].seed, 7);
  EXPECT_EQ(stored[0].tolerance, 1.05);

  // At load: the stored partition when there is one for the part count, else a new one.
  const LoadedPartition loaded = load_partition(folder / "m.h5", mesh, {3, {}, 0, 1.03});
  EXPECT_TRUE(loaded.stored);
  EXPECT_EQ(loaded.partition, three);
  const LoadedPartition computed = load_partition(folder / "m.h5", mesh, {4, {}, 0, 1.03});
  EXPECT_FALSE(computed.stored);
  EXPECT_EQ(computed.partition, partition_mesh(mesh, {4, {}, 0, 1.03}));

  // Rewriting an .h5 input keeps its partitions and adds or replaces the ones asked for.
  const ConvertedMesh converted =
      convert_mesh(folder / "m.h5", folder / "m.h5", {}, {}, {PartitionOptions{4, {}, 0, 1.03}, {2, {}, 0, 1.03}});
  ASSERT_EQ(converted.partitions.size(), 3u);
  EXPECT_EQ(read_hdf5_partitions(folder / "m.h5"), converted.partitions);
  EXPECT_EQ(converted.partitions[0], partition_mesh(mesh, {2, {}, 0, 1.03}));
  EXPECT_EQ(converted.partitions[1], three);
  EXPECT_EQ(converted.partitions[2].parts, 4);
  EXPECT_EQ(read_hdf5(folder / "m.h5"), mesh);

  // A file without partitions has none; a .msh output takes none.
  write_hdf5(mesh, folder / "plain.h5");
  EXPECT_TRUE(read_hdf5_partitions(folder / "plain.h5").empty());
  EXPECT_THAT(error_of([&] { convert_mesh(folder / "plain.h5", folder / "x.h5", {}, {}, {{0, {}, 0, 1.03}}); }),
              HasSubstr("into 0 parts"));
  EXPECT_THAT(error_of([&] { write_hdf5(mesh, folder / "dup.h5", {}, {two, two}); }),
              HasSubstr("two partitions into 2 parts"));
}

// Replaces /partitions/<name> of a file by `values` (to damage it).
void replace_partition(const std::filesystem::path& file, const std::string& name, const std::vector<int>& values) {
  const hid_t handle = H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  const std::string path = "partitions/" + name;
  if (H5Lexists(handle, path.c_str(), H5P_DEFAULT) > 0) H5Ldelete(handle, path.c_str(), H5P_DEFAULT);
  const hsize_t size = values.size();
  const hid_t space = H5Screate_simple(1, &size, nullptr);
  const hid_t data = H5Dcreate2(handle, path.c_str(), H5T_STD_I32LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  H5Dwrite(data, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
  const hid_t scalar = H5Screate(H5S_SCALAR);
  for (const auto& [key, value] : {std::pair("parts", 2), std::pair("seed", 0), std::pair("weighted", 0)}) {
    const hid_t attribute = H5Acreate2(data, key, H5T_STD_I32LE, scalar, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(attribute, H5T_NATIVE_INT, &value);
    H5Aclose(attribute);
  }
  const double tolerance = 1.03;
  const hid_t real = H5Acreate2(data, "tolerance", H5T_IEEE_F64LE, scalar, H5P_DEFAULT, H5P_DEFAULT);
  H5Awrite(real, H5T_NATIVE_DOUBLE, &tolerance);
  H5Aclose(real);
  const hid_t text = H5Tcopy(H5T_C_S1);
  H5Tset_size(text, 4);
  H5Tset_cset(text, H5T_CSET_UTF8);
  const hid_t method = H5Acreate2(data, "method", text, scalar, H5P_DEFAULT, H5P_DEFAULT);
  H5Awrite(method, text, "test");
  H5Aclose(method);
  H5Tclose(text);
  H5Sclose(scalar);
  H5Dclose(data);
  H5Sclose(space);
  H5Fclose(handle);
}

TEST(MeshPartition, DamagedStoredPartitionsAreRefused) {
  const TemporaryFolder folder;
  const Mesh mesh = build_mesh(testing::structured_square(2, true));  // 8 elements
  const Partition two{2, {0, 0, 0, 0, 1, 1, 1, 1}, "test", 0, 1.03, false};
  const auto damaged = [&](const std::string& name, const std::vector<int>& values) {
    write_hdf5(mesh, folder / "m.h5", {}, {two});
    replace_partition(folder / "m.h5", name, values);
    return error_of([&] { read_hdf5_partitions(folder / "m.h5"); });
  };
  EXPECT_THAT(damaged("2", {0, 1, 0, 1}), HasSubstr("dataset '/partitions/2' has shape [4], expected [8]"));
  EXPECT_THAT(damaged("2", {0, 1, 0, 1, 0, 1, 0, 5}), HasSubstr("puts element 7 in part 5"));
  EXPECT_THAT(damaged("2", {0, 0, 0, 0, 0, 0, 0, 0}), HasSubstr("part 1 of the partition into 2 parts has no elements"));
  EXPECT_THAT(damaged("two", {0, 1, 0, 1, 0, 1, 0, 1}), HasSubstr("'/partitions/two' is not named by a part count"));
  EXPECT_THAT(damaged("3", {0, 1, 0, 1, 0, 1, 0, 1}), HasSubstr("attribute parts = 2 does not match the dataset name"));
  // A stored partition that does not fit the mesh it is loaded for.
  write_hdf5(mesh, folder / "m.h5", {}, {two});
  const Mesh other = build_mesh(testing::structured_square(3, true));
  EXPECT_THAT(error_of([&] { load_partition(folder / "m.h5", other, {2, {}, 0, 1.03}); }),
              HasSubstr("has 8 entries for a mesh of 18 elements"));
}

}  // namespace
}  // namespace rtdg::mesh
