// HDF5 mesh files: exact round trip, atomic writes, readable by h5dump, and the error text for
// files that are not rtdg meshes or are damaged.
#include "fixtures.hpp"

#include <mesh/build.hpp>
#include <mesh/error.hpp>
#include <mesh/hdf5_io.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <hdf5.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <vector>

namespace rtdg::mesh {
namespace {

using ::testing::HasSubstr;
using testing::group;
using testing::TemporaryFolder;

std::string read_error(const std::filesystem::path& file) {
  try {
    read_hdf5(file);
  } catch (const MeshError& error) {
    return error.what();
  }
  return "";
}

Mesh periodic_cube() {
  RawMesh raw = testing::structured_cube(2);
  raw.periodic = {{group(raw, "xmin"), group(raw, "xmax"), std::nullopt}};
  raw.region_names = {"vacuum", "dielectric"};
  for (std::size_t k = 0; k < raw.element_region.size(); ++k) raw.element_region[k] = int(k % 2);
  // Coordinates that do not survive a decimal round trip.
  for (auto& x : raw.vertices) x[1] *= 1.0 / 3.0;
  return build_mesh(raw);
}

// Overwrites one integer of a dataset in place (to damage a file).
void poke_int(const std::filesystem::path& file, const char* dataset, hsize_t index, int value) {
  const hid_t handle = H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  const hid_t data = H5Dopen2(handle, dataset, H5P_DEFAULT);
  const hid_t space = H5Dget_space(data);
  const int rank = H5Sget_simple_extent_ndims(space);
  std::vector<hsize_t> start(std::size_t(rank), 0);
  std::vector<hsize_t> dims(std::size_t(rank), 0);
  H5Sget_simple_extent_dims(space, dims.data(), nullptr);
  for (int d = rank - 1; d >= 0; --d) {
    start[std::size_t(d)] = index % dims[std::size_t(d)];
    index /= dims[std::size_t(d)];
  }
  std::vector<hsize_t> one(std::size_t(rank), 1);
  H5Sselect_hyperslab(space, H5S_SELECT_SET, start.data(), nullptr, one.data(), nullptr);
  const hsize_t count = 1;
  const hid_t memory = H5Screate_simple(1, &count, nullptr);
  ASSERT_GE(H5Dwrite(data, H5T_NATIVE_INT, memory, space, H5P_DEFAULT, &value), 0);
  H5Sclose(memory);
  H5Sclose(space);
  H5Dclose(data);
  H5Fclose(handle);
}

void set_version(const std::filesystem::path& file, int version) {
  const hid_t handle = H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  const hid_t attribute = H5Aopen(handle, "version", H5P_DEFAULT);
  H5Awrite(attribute, H5T_NATIVE_INT, &version);
  H5Aclose(attribute);
  H5Fclose(handle);
}

TEST(MeshHdf5, RoundTripIsExact3D) {
  const TemporaryFolder folder;
  const Mesh mesh = periodic_cube();
  write_hdf5(mesh, folder / "cube.h5", {"cube.geo", {{"h", 0.5}}});
  const Mesh back = read_hdf5(folder / "cube.h5");
  EXPECT_EQ(testing::difference(back, mesh), "");
  EXPECT_TRUE(back == mesh);
  EXPECT_EQ(back.vertices, mesh.vertices);
  EXPECT_EQ(back.periodic_faces, mesh.periodic_faces);
  EXPECT_EQ(back.face_vertex_match, mesh.face_vertex_match);
}

TEST(MeshHdf5, RoundTripIsExact2D) {
  const TemporaryFolder folder;
  const Mesh mesh = build_mesh(testing::structured_square(3));
  write_hdf5(mesh, folder / "square.h5");
  EXPECT_TRUE(read_hdf5(folder / "square.h5") == mesh);
}

TEST(MeshHdf5, WritesAtomicallyAndReplaces) {
  const TemporaryFolder folder;
  write_hdf5(build_mesh(testing::structured_square(1, true)), folder / "mesh.h5");
  const Mesh second = build_mesh(testing::structured_square(2, true));
  write_hdf5(second, folder / "mesh.h5");
  EXPECT_TRUE(read_hdf5(folder / "mesh.h5") == second);
  int files = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(folder.path())) ++files;
  EXPECT_EQ(files, 1) << "a temporary file was left behind";
}

TEST(MeshHdf5, FailedWriteLeavesNothing) {
  const TemporaryFolder folder;
  const Mesh mesh = build_mesh(testing::structured_square(1, true));
  EXPECT_THROW(write_hdf5(mesh, folder / "missing-folder" / "mesh.h5"), MeshError);
  Mesh invalid = mesh;
  std::swap(invalid.EToV[0][1], invalid.EToV[0][2]);
  EXPECT_THROW(write_hdf5(invalid, folder / "bad.h5"), MeshError);
  EXPECT_TRUE(std::filesystem::is_empty(folder.path()));
}

TEST(MeshHdf5, ReadableByH5dump) {
  if (std::system("command -v h5dump > /dev/null 2>&1") != 0) GTEST_SKIP() << "h5dump not installed (hdf5-tools)";
  const TemporaryFolder folder;
  write_hdf5(periodic_cube(), folder / "cube.h5", {"cube.geo", {}});
  const std::string command = "h5dump -H " + (folder / "cube.h5").string() + " > " + (folder / "header.txt").string();
  ASSERT_EQ(std::system(command.c_str()), 0);
  std::ifstream in(folder / "header.txt");
  const std::string header((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (const char* name : {"\"EToV\"", "\"EToE\"", "\"EToF\"", "\"vertices\"", "\"face_vertex_match\"",
                           "\"boundary_names\"", "\"periodic_shifts\"", "\"format\"", "\"version\""}) {
    EXPECT_THAT(header, HasSubstr(name));
  }
  EXPECT_THAT(header, HasSubstr("DATASPACE  SIMPLE { ( 48, 4 ) / ( 48, 4 ) }"));
}

TEST(MeshHdf5, NotAnHdf5File) {
  const TemporaryFolder folder;
  testing::write_text(folder / "text.h5", "hello\n");
  EXPECT_EQ(read_error(folder / "text.h5"), (folder / "text.h5").string() + ": not an HDF5 file");
  EXPECT_EQ(read_error(folder / "none.h5"), (folder / "none.h5").string() + ": no such file");
}

TEST(MeshHdf5, Hdf5FileThatIsNoMesh) {
  const TemporaryFolder folder;
  const hid_t handle = H5Fcreate((folder / "other.h5").c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  H5Fclose(handle);
  EXPECT_THAT(read_error(folder / "other.h5"), HasSubstr("an HDF5 file, but not an rtdg mesh"));
}

TEST(MeshHdf5, NewerVersionIsRefused) {
  const TemporaryFolder folder;
  write_hdf5(build_mesh(testing::structured_square(1, true)), folder / "mesh.h5");
  set_version(folder / "mesh.h5", kHdf5FormatVersion + 1);
  EXPECT_THAT(read_error(folder / "mesh.h5"), HasSubstr("mesh format version " + std::to_string(kHdf5FormatVersion + 1) + " is not readable by this rtdg"));
}

TEST(MeshHdf5, DamagedConnectivityIsAnErrorNotACrash) {
  const TemporaryFolder folder;
  write_hdf5(build_mesh(testing::structured_square(1, true)), folder / "mesh.h5");
  poke_int(folder / "mesh.h5", "EToE", 0, 7);
  EXPECT_THAT(read_error(folder / "mesh.h5"), HasSubstr("face 0 of element 0 has neighbour EToE = 7"));
  write_hdf5(build_mesh(testing::structured_square(1, true)), folder / "mesh.h5");
  poke_int(folder / "mesh.h5", "EToV", 4, 99);
  EXPECT_THAT(read_error(folder / "mesh.h5"), HasSubstr("EToV[1][1] = 99 (4 vertices)"));
}

// An element whose vertices were swapped after writing: named with the file when read, not left
// for the solver to meet as a negative Jacobian.
TEST(MeshHdf5, InvertedElementIsNamedWithTheFile) {
  const TemporaryFolder folder;
  const Mesh mesh = build_mesh(testing::structured_square(1, true));
  write_hdf5(mesh, folder / "mesh.h5");
  const int nvert = mesh.num_element_vertices();
  poke_int(folder / "mesh.h5", "EToV", hsize_t(nvert + 1), mesh.EToV[1][2]);
  poke_int(folder / "mesh.h5", "EToV", hsize_t(nvert + 2), mesh.EToV[1][1]);
  const std::string error = read_error(folder / "mesh.h5");
  EXPECT_THAT(error, ::testing::StartsWith((folder / "mesh.h5").string() + ": element 1 ("));
  EXPECT_THAT(error, HasSubstr(") is inverted: signed volume -"));
  EXPECT_THAT(error, HasSubstr("elements must be counter-clockwise (2D)"));
}

}  // namespace
}  // namespace rtdg::mesh
