// build_mesh on meshes built in memory: connectivity, orientation, groups, periodic faces,
// and the error text of each defect it rejects.
#include "fixtures.hpp"

#include <mesh/build.hpp>
#include <mesh/error.hpp>
#include <mesh/mesh.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

namespace rtdg::mesh {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using testing::check_conventions;
using testing::group;
using testing::structured_cube;
using testing::structured_square;

// The message of the MeshError that build_mesh throws ("" when it does not throw).
std::string build_error(RawMesh raw) {
  try {
    build_mesh(std::move(raw));
  } catch (const MeshError& error) {
    return error.what();
  }
  return "";
}

int count_self_connected(const Mesh& mesh) {
  int count = 0;
  for (int k = 0; k < mesh.num_elements(); ++k) {
    for (int f = 0; f < mesh.num_faces(); ++f) count += mesh.EToE[std::size_t(k)][std::size_t(f)] == k ? 1 : 0;
  }
  return count;
}

TEST(MeshBuild, SquareConnectivityFollowsTheBookConventions) {
  const Mesh mesh = build_mesh(structured_square(3));
  EXPECT_EQ(mesh.num_elements(), 18);
  EXPECT_EQ(check_conventions(mesh), "");
  EXPECT_EQ(mesh.boundary_faces.size(), 12u);
  EXPECT_EQ(count_self_connected(mesh), 12);
  EXPECT_NEAR(total_volume(mesh), 1.0, 1e-14);
  for (const auto& element : mesh.EToV) EXPECT_EQ(element[3], -1);
}

TEST(MeshBuild, CubeConnectivityFollowsTheBookConventions) {
  const Mesh mesh = build_mesh(structured_cube(2));
  EXPECT_EQ(mesh.num_elements(), 48);
  EXPECT_EQ(check_conventions(mesh), "");
  EXPECT_EQ(mesh.boundary_faces.size(), 6u * 2 * 4);
  EXPECT_NEAR(total_volume(mesh), 1.0, 1e-14);
}

TEST(MeshBuild, ReordersClockwiseTrianglesAndNegativeTetrahedra) {
  RawMesh square = structured_square(1, true);
  std::swap(square.elements[0][0], square.elements[0][1]);  // now clockwise
  const Mesh mesh2 = build_mesh(square);
  EXPECT_GT(signed_volume(mesh2.type, element_corners(mesh2, 0)), 0.0);
  EXPECT_EQ(check_conventions(mesh2), "");

  // Half of the Kuhn tetrahedra are negative as generated.
  const RawMesh cube = structured_cube(1, true);
  int negative = 0;
  for (const auto& tet : cube.elements) {
    std::array<std::array<double, 3>, 4> corners{};
    for (std::size_t i = 0; i < 4; ++i) corners[i] = cube.vertices[std::size_t(tet[i])];
    negative += signed_volume(ElementType::tetrahedron, corners) < 0.0 ? 1 : 0;
  }
  EXPECT_EQ(negative, 3);
  EXPECT_EQ(check_conventions(build_mesh(cube)), "");
}

TEST(MeshBuild, FaceNumberingIsTheBooks) {
  RawMesh raw;
  raw.dim = 3;
  raw.type = ElementType::tetrahedron;
  raw.vertices = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  raw.elements = {{0, 1, 2, 3}};
  raw.element_region = {0};
  raw.region_names = {"domain"};
  raw.boundary_names = {"bottom", "front", "slanted", "left"};
  raw.tagged_faces = {{{0, 1, 2}, 0}, {{0, 1, 3}, 1}, {{1, 2, 3}, 2}, {{0, 2, 3}, 3}};
  const Mesh mesh = build_mesh(raw);
  ASSERT_EQ(mesh.boundary_faces.size(), 4u);
  for (int f = 0; f < 4; ++f) {
    EXPECT_EQ(mesh.boundary_faces[std::size_t(f)], (BoundaryFace{0, f, f}));
    EXPECT_EQ(mesh.EToE[0][std::size_t(f)], 0);
    EXPECT_EQ(mesh.EToF[0][std::size_t(f)], f);
  }
}

TEST(MeshBuild, KeepsRegionsAndIgnoresTaggedInteriorFaces) {
  RawMesh raw = structured_square(2, true);
  raw.region_names = {"left", "right"};
  for (std::size_t k = 0; k < raw.elements.size(); ++k) {
    raw.element_region[k] = raw.vertices[std::size_t(raw.elements[k][0])][0] < 0.5 ? 0 : 1;
  }
  // The interface x = 0.5 tagged as a group: interior faces, so no boundary faces.
  raw.boundary_names.push_back("interface");
  raw.tagged_faces.push_back({{1, 4, -1}, 1});
  const Mesh mesh = build_mesh(raw);
  EXPECT_EQ(mesh.region_names, (std::vector<std::string>{"left", "right"}));
  EXPECT_EQ(std::count(mesh.element_region.begin(), mesh.element_region.end(), 1), 4);
  for (const BoundaryFace& face : mesh.boundary_faces) EXPECT_EQ(face.group, 0);
}

TEST(MeshBuild, PeriodicSquareConnectsEveryFace) {
  RawMesh raw = structured_square(3);
  raw.periodic = {{group(raw, "xmin"), group(raw, "xmax"), std::array<double, 3>{1, 0, 0}},
                  {group(raw, "ymin"), group(raw, "ymax"), std::nullopt}};
  const Mesh mesh = build_mesh(raw);
  EXPECT_EQ(count_self_connected(mesh), 0);
  EXPECT_TRUE(mesh.boundary_faces.empty());
  EXPECT_EQ(mesh.periodic_faces.size(), 12u);
  ASSERT_EQ(mesh.periodic_pairs.size(), 2u);
  EXPECT_EQ(mesh.periodic_pairs[0].shift, (std::array<double, 3>{1, 0, 0}));
  EXPECT_NEAR(mesh.periodic_pairs[1].shift[1], 1.0, 1e-14);  // from the centroids
  EXPECT_NEAR(mesh.periodic_pairs[1].shift[0], 0.0, 1e-14);
  EXPECT_EQ(check_conventions(mesh), "");
}

TEST(MeshBuild, PeriodicCubeConnectsEveryFace) {
  RawMesh raw = structured_cube(2);
  for (const char* axis : {"x", "y", "z"}) {
    raw.periodic.push_back({group(raw, std::string(axis) + "min"), group(raw, std::string(axis) + "max"), std::nullopt});
  }
  const Mesh mesh = build_mesh(raw);
  EXPECT_EQ(count_self_connected(mesh), 0);
  EXPECT_EQ(mesh.periodic_faces.size(), 6u * 8);
  EXPECT_EQ(check_conventions(mesh), "");
}

TEST(MeshBuild, PeriodicInOneDirectionKeepsTheOtherWalls) {
  RawMesh raw = structured_cube(1);
  raw.periodic = {{group(raw, "zmin"), group(raw, "zmax"), std::nullopt}};
  const Mesh mesh = build_mesh(raw);
  EXPECT_EQ(mesh.boundary_faces.size(), 4u * 2);
  EXPECT_EQ(mesh.periodic_faces.size(), 2u * 2);
  for (const PeriodicFace& face : mesh.periodic_faces) {
    EXPECT_EQ(std::abs(face.shift[2]), 1.0);
    EXPECT_EQ(face.shift[2] > 0.0, mesh.boundary_names[std::size_t(face.group)] == "zmin");
  }
  EXPECT_EQ(check_conventions(mesh), "");
}

TEST(MeshBuildErrors, EmptyMesh) {
  RawMesh raw = structured_square(1);
  raw.elements.clear();
  raw.element_region.clear();
  raw.source = "empty.msh";
  EXPECT_EQ(build_error(raw), "empty.msh: the mesh is empty: it has no triangles");
}

TEST(MeshBuildErrors, DegenerateElementNamesElementAndSignedVolume) {
  RawMesh raw = structured_square(1, true);
  raw.source = "flat.msh";
  raw.vertices.push_back({0.5, 0.5, 0.0});  // on the diagonal (0,0)-(1,1): vertices 0 and 3
  raw.elements.push_back({0, 3, 4, -1});
  raw.element_region.push_back(0);
  raw.element_tags = {11, 12, 13};
  EXPECT_THAT(build_error(raw), AllOf(HasSubstr("flat.msh: element 2 (file element 13) is degenerate"),
                                      HasSubstr("signed volume 0"), HasSubstr("vertices (0, 3, 4)")));
}

TEST(MeshBuildErrors, RepeatedVertexIsDegenerate) {
  RawMesh raw = structured_square(1, true);
  raw.elements[1] = {0, 2, 2, -1};
  EXPECT_THAT(build_error(raw), HasSubstr("element 1 is degenerate: signed volume 0"));
}

TEST(MeshBuildErrors, FaceSharedByThreeElements) {
  RawMesh raw = structured_square(1, true);
  raw.vertices.push_back({2.0, 0.5, 0.0});
  raw.elements.push_back({0, 4, 3, -1});  // a third triangle on the diagonal (0,3)
  raw.element_region.push_back(0);
  EXPECT_THAT(build_error(raw), AllOf(HasSubstr("face with vertices (0, 3)"),
                                      HasSubstr("is shared by 3 elements: 0, 1, 2")));
}

TEST(MeshBuildErrors, BoundaryFaceWithoutGroup) {
  RawMesh raw = structured_square(1, true);
  raw.source = "open.msh";
  raw.tagged_faces.pop_back();
  EXPECT_THAT(build_error(raw), AllOf(HasSubstr("open.msh: 1 boundary face has no physical group"),
                                      HasSubstr("Physical Curve(\"name\")")));
}

TEST(MeshBuildErrors, FaceInTwoGroups) {
  RawMesh raw = structured_square(1, true);
  raw.boundary_names.push_back("inlet");
  raw.tagged_faces.push_back({raw.tagged_faces.front().vertices, 1});
  EXPECT_THAT(build_error(raw), HasSubstr("belongs to two physical groups, 'walls' and 'inlet'"));
}

TEST(MeshBuildErrors, TaggedFaceThatIsNoElementFace) {
  RawMesh raw = structured_square(1, true);
  raw.tagged_faces.push_back({{1, 2, -1}, 0});  // the other diagonal
  EXPECT_THAT(build_error(raw), HasSubstr("face (1, 2) at (1, 0, 0) (0, 1, 0) of physical group 'walls' is not a face"));
}

TEST(MeshBuildErrors, VertexIndexOutOfRange) {
  RawMesh raw = structured_square(1, true);
  raw.elements[0][2] = 9;
  EXPECT_THAT(build_error(raw), HasSubstr("element 0 has vertex 9 in position 2 (4 vertices)"));
}

TEST(MeshBuildErrors, TwoDimensionalMeshOffThePlane) {
  RawMesh raw = structured_square(1, true);
  raw.vertices[3][2] = 0.1;
  EXPECT_THAT(build_error(raw), HasSubstr("vertex 3 at (1, 1, 0.1) is off the z = 0 plane"));
}

TEST(MeshBuildErrors, PeriodicSidesThatDoNotMatch) {
  RawMesh raw = structured_square(2);
  raw.periodic = {{group(raw, "xmin"), group(raw, "xmax"), std::array<double, 3>{1, 0.25, 0}}};
  EXPECT_THAT(build_error(raw), AllOf(HasSubstr("periodic pair 'xmin' -> 'xmax' (shift (1, 0.25, 0))"),
                                      HasSubstr("has no partner")));
  raw.periodic = {{group(raw, "xmin"), group(raw, "xmin"), std::nullopt}};
  EXPECT_THAT(build_error(raw), HasSubstr("the two sides must be different physical groups"));
}

// validate() on finished meshes spoilt by hand.
std::string validate_error(const Mesh& mesh) {
  try {
    validate(mesh, "spoilt.h5");
  } catch (const MeshError& error) {
    return error.what();
  }
  return "";
}

TEST(MeshValidate, InvertedElementNamesElementAndSignedVolume) {
  Mesh mesh = build_mesh(structured_square(1, true));
  EXPECT_EQ(validate_error(mesh), "");
  std::swap(mesh.EToV[1][1], mesh.EToV[1][2]);
  EXPECT_THAT(validate_error(mesh), HasSubstr("spoilt.h5: element 1 (0, 2, 3) is inverted: signed volume -0.5, longest edge"));
}

TEST(MeshValidate, AsymmetricConnectivity) {
  Mesh mesh = build_mesh(structured_square(1, true));
  const auto face = std::find(mesh.EToE[0].begin(), mesh.EToE[0].begin() + 3, 1) - mesh.EToE[0].begin();
  mesh.EToE[0][std::size_t(face)] = 0;
  EXPECT_THAT(validate_error(mesh), HasSubstr("connectivity is not symmetric"));
}

TEST(MeshValidate, BoundaryFaceWithoutRecord) {
  Mesh mesh = build_mesh(structured_square(1, true));
  mesh.boundary_faces.pop_back();
  EXPECT_THAT(validate_error(mesh), HasSubstr("has no physical group"));
}

TEST(MeshValidate, EmptyMesh) {
  Mesh mesh;
  mesh.dim = 3;
  mesh.type = ElementType::tetrahedron;
  EXPECT_EQ(validate_error(mesh), "spoilt.h5: the mesh is empty: it has no elements");
}

TEST(MeshBuildErrors, OverlappingNeighbours) {
  // Both triangles counter-clockwise, but both run along the shared edge (0,2) in the same
  // direction: they lie on the same side of it.
  RawMesh raw;
  raw.dim = 2;
  raw.vertices = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0.75, 0.25, 0}};
  raw.elements = {{0, 1, 2, -1}, {2, 0, 3, -1}};
  raw.element_region = {0, 0};
  raw.region_names = {"domain"};
  raw.boundary_names = {"walls"};
  raw.tagged_faces = {{{0, 1, -1}, 0}, {{1, 2, -1}, 0}, {{0, 3, -1}, 0}, {{3, 2, -1}, 0}};
  EXPECT_THAT(build_error(raw), HasSubstr("elements 0 and 1 overlap"));
}

}  // namespace
}  // namespace rtdg::mesh
