// Gmsh import: the shipped .geo files, parameters, the four .msh flavours, periodic
// constraints, and the error text for bad .msh files. Skipped without the Gmsh SDK.
#include "fixtures.hpp"

#include <mesh/error.hpp>
#include <mesh/gmsh_io.hpp>
#include <mesh/load.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

namespace rtdg::mesh {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using testing::check_conventions;
using testing::geometries;
using testing::TemporaryFolder;
using testing::write_text;

class MeshGmsh : public ::testing::Test {
protected:
  void SetUp() override {
    if (!have_gmsh()) GTEST_SKIP() << "built without the Gmsh SDK";
  }
};

std::string load_error(const std::filesystem::path& file, const LoadOptions& options = {}) {
  try {
    load_mesh(file, options);
  } catch (const MeshError& error) {
    return error.what();
  }
  return "";
}

std::vector<std::string> sorted(std::vector<std::string> names) {
  std::sort(names.begin(), names.end());
  return names;
}

int count_self_connected(const Mesh& mesh) {
  int count = 0;
  for (int k = 0; k < mesh.num_elements(); ++k) {
    for (int f = 0; f < mesh.num_faces(); ++f) count += mesh.EToE[std::size_t(k)][std::size_t(f)] == k ? 1 : 0;
  }
  return count;
}

TEST_F(MeshGmsh, SquareCavity) {
  const Mesh mesh = load_mesh(geometries() / "square.geo");
  EXPECT_EQ(mesh.dim, 2);
  EXPECT_EQ(check_conventions(mesh), "");
  EXPECT_EQ(mesh.boundary_names, std::vector<std::string>{"walls"});
  EXPECT_EQ(mesh.region_names, std::vector<std::string>{"domain"});
  EXPECT_NEAR(total_volume(mesh), 1.0, 1e-12);
  EXPECT_EQ(int(mesh.boundary_faces.size()), count_self_connected(mesh));
}

TEST_F(MeshGmsh, CubeCavity) {
  const Mesh mesh = load_mesh(geometries() / "cube.geo");
  EXPECT_EQ(mesh.type, ElementType::tetrahedron);
  EXPECT_EQ(check_conventions(mesh), "");
  EXPECT_EQ(mesh.boundary_names, std::vector<std::string>{"walls"});
  EXPECT_NEAR(total_volume(mesh), 1.0, 1e-12);
}

TEST_F(MeshGmsh, CylinderInABox) {
  const Mesh mesh = load_mesh(geometries() / "cylinder2d.geo");
  EXPECT_EQ(check_conventions(mesh), "");
  EXPECT_EQ(sorted(mesh.boundary_names), (std::vector<std::string>{"outer", "pec"}));
  // Box 3 x 3 minus a polygonal disk of radius 0.5.
  EXPECT_NEAR(total_volume(mesh), 9.0 - std::numbers::pi * 0.25, 0.05);
  for (const BoundaryFace& face : mesh.boundary_faces) {
    const auto& local = face_vertices(mesh.type)[std::size_t(face.face)];
    const auto& x = mesh.vertices[std::size_t(mesh.EToV[std::size_t(face.element)][std::size_t(local[0])])];
    const double r = std::hypot(x[0], x[1]);
    if (mesh.boundary_names[std::size_t(face.group)] == "pec") {
      EXPECT_NEAR(r, 0.5, 1e-9);
    } else {
      EXPECT_NEAR(std::max(std::abs(x[0]), std::abs(x[1])), 1.5, 1e-9);
    }
  }
}

TEST_F(MeshGmsh, SphereInABox) {
  const Mesh mesh = load_mesh(geometries() / "sphere.geo");
  EXPECT_EQ(check_conventions(mesh), "");
  EXPECT_EQ(sorted(mesh.boundary_names), (std::vector<std::string>{"outer", "pec"}));
  EXPECT_LT(mesh.num_elements(), 5000) << "the default sphere mesh must stay small";
  EXPECT_NEAR(total_volume(mesh), 8.0 - 4.0 / 3.0 * std::numbers::pi * 0.125, 0.05);
}

TEST_F(MeshGmsh, ParametersChangeTheMesh) {
  const Mesh coarse = load_mesh(geometries() / "square.geo", {{{"h", 0.5}}, {}});
  const Mesh fine = load_mesh(geometries() / "square.geo", {{{"h", 0.125}}, {}});
  EXPECT_LT(coarse.num_elements() * 4, fine.num_elements());
  const Mesh big = load_mesh(geometries() / "square.geo", {{{"Parameters/size", 2.0}, {"h", 0.5}}, {}});
  EXPECT_NEAR(total_volume(big), 4.0, 1e-12);
  // A second load with no parameters is back to the defaults.
  EXPECT_EQ(load_mesh(geometries() / "square.geo").num_elements(),
            load_mesh(geometries() / "square.geo", {{{"h", 0.25}}, {}}).num_elements());
}

TEST_F(MeshGmsh, ListsDeclaredParameters) {
  const Parameters parameters = geo_parameters(geometries() / "sphere.geo");
  EXPECT_EQ(parameters.size(), 4u);
  EXPECT_EQ(parameters.at("Parameters/radius"), 0.5);
  EXPECT_EQ(parameters.count("Parameters/h_pec"), 1u);
}

TEST_F(MeshGmsh, UnknownParameterListsTheValidOnes) {
  const auto file = geometries() / "cylinder2d.geo";
  EXPECT_THAT(load_error(file, {{{"radiu", 0.3}}, {}}),
              AllOf(HasSubstr("cylinder2d.geo: unknown parameter 'radiu'; valid parameters: "),
                    HasSubstr("radius (default 0.5)"), HasSubstr("box (default 3)"), HasSubstr("h (default 0.4)")));
}

TEST_F(MeshGmsh, ParametersAreForGeoFilesOnly) {
  const TemporaryFolder folder;
  write_msh(geometries() / "square.geo", {{"h", 0.5}}, folder / "square.msh", {});
  EXPECT_THAT(load_error(folder / "square.msh", {{{"h", 0.1}}, {}}), HasSubstr("apply to .geo files"));
}

// The same mesh written as MSH 2.2 and 4.1, ASCII and binary, reads back identically.
void expect_same_from_every_msh_flavour(const std::filesystem::path& geo, const Parameters& parameters) {
  const TemporaryFolder folder;
  std::vector<Mesh> meshes;
  for (double version : {2.2, 4.1}) {
    for (bool binary : {false, true}) {
      const auto file = folder / ("mesh-" + std::to_string(version) + (binary ? "-bin" : "-ascii") + ".msh");
      write_msh(geo, parameters, file, {version, binary});
      meshes.push_back(load_mesh(file));
    }
  }
  // ASCII files hold 16 significant digits: equal up to rounding; binary files exactly.
  EXPECT_EQ(testing::difference(meshes[1], meshes[0], 2e-15), "") << "2.2 ASCII vs binary";
  EXPECT_EQ(testing::difference(meshes[2], meshes[0]), "") << "2.2 vs 4.1 ASCII";
  EXPECT_EQ(testing::difference(meshes[3], meshes[1]), "") << "2.2 vs 4.1 binary";
  EXPECT_EQ(check_conventions(meshes[0]), "");
  EXPECT_GT(meshes[0].num_elements(), 0);
}

TEST_F(MeshGmsh, EveryMshFlavourGivesTheSameMesh2D) {
  expect_same_from_every_msh_flavour(geometries() / "cylinder2d.geo", {{"h", 0.8}});
}

TEST_F(MeshGmsh, EveryMshFlavourGivesTheSameMesh3D) {
  expect_same_from_every_msh_flavour(geometries() / "sphere.geo", {{"h", 0.7}, {"h_pec", 0.4}});
}

TEST_F(MeshGmsh, PeriodicSquareConnectsEveryFace) {
  const Mesh mesh = load_mesh(geometries() / "square.geo", {{{"periodic_x", 1}, {"periodic_y", 1}}, {}});
  EXPECT_EQ(count_self_connected(mesh), 0);
  EXPECT_TRUE(mesh.boundary_faces.empty());
  ASSERT_EQ(mesh.periodic_pairs.size(), 2u);
  for (const PeriodicPair& pair : mesh.periodic_pairs) {
    const std::string a = mesh.boundary_names[std::size_t(pair.group_a)];
    EXPECT_EQ(pair.shift, a == "xmin" ? (std::array<double, 3>{1, 0, 0}) : (std::array<double, 3>{0, 1, 0}));
  }
  EXPECT_EQ(check_conventions(mesh), "");
}

TEST_F(MeshGmsh, PeriodicCubeConnectsEveryFace) {
  const Mesh mesh = load_mesh(geometries() / "cube.geo", {{{"periodic_x", 1}, {"periodic_y", 1}, {"periodic_z", 1}}, {}});
  EXPECT_EQ(count_self_connected(mesh), 0);
  EXPECT_EQ(mesh.periodic_pairs.size(), 3u);
  EXPECT_EQ(check_conventions(mesh), "");
}

TEST_F(MeshGmsh, PeriodicSurvivesTheMshFile) {
  const TemporaryFolder folder;
  const Mesh direct = write_msh(geometries() / "square.geo", {{"periodic_x", 1}, {"h", 0.5}}, folder / "p.msh", {});
  const Mesh read = load_mesh(folder / "p.msh");
  EXPECT_EQ(read.periodic_pairs.size(), 1u);
  EXPECT_EQ(read.periodic_faces.size(), direct.periodic_faces.size());
}

TEST_F(MeshGmsh, PeriodicPairsByName) {
  const TemporaryFolder folder;
  testing::write_msh22(testing::structured_square(2), folder / "sides.msh");
  const Mesh mesh = load_mesh(folder / "sides.msh", {{}, {{"xmin", "xmax", std::nullopt}}});
  EXPECT_EQ(mesh.periodic_faces.size(), 4u);
  EXPECT_EQ(mesh.boundary_faces.size(), 4u);
  EXPECT_EQ(check_conventions(mesh), "");
  EXPECT_THAT(load_error(folder / "sides.msh", {{}, {{"xmin", "right", std::nullopt}}}),
              HasSubstr("unknown group 'right'; boundary groups: 'xmin', 'xmax', 'ymin' and 'ymax'"));
}

TEST_F(MeshGmsh, HandWrittenMshMatchesTheMeshInMemory) {
  const TemporaryFolder folder;
  const RawMesh raw = testing::structured_cube(1);
  testing::write_msh22(raw, folder / "cube.msh");
  Mesh from_file = load_mesh(folder / "cube.msh");
  EXPECT_EQ(testing::difference(from_file, build_mesh(raw)), "");
}

// A 2-triangle unit square in MSH 2.2, with a caller's $PhysicalNames and boundary lines.
std::string square_msh(const std::string& names, const std::string& lines, int line_count) {
  return "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n" + names +
         "$Nodes\n4\n1 0 0 0\n2 1 0 0\n3 1 1 0\n4 0 1 0\n$EndNodes\n$Elements\n" + std::to_string(line_count + 2) +
         "\n" + lines + "11 2 2 2 1 1 2 3\n12 2 2 2 1 1 3 4\n$EndElements\n";
}

const std::string kNames = "$PhysicalNames\n2\n1 1 \"walls\"\n2 2 \"domain\"\n$EndPhysicalNames\n";

TEST_F(MeshGmsh, MshWithAnUnnamedBoundary) {
  const TemporaryFolder folder;
  write_text(folder / "open.msh", square_msh(kNames, "1 1 2 1 1 1 2\n2 1 2 1 1 2 3\n3 1 2 1 1 3 4\n", 3));
  EXPECT_THAT(load_error(folder / "open.msh"),
              AllOf(HasSubstr("open.msh: 1 boundary face has no physical group"),
                    HasSubstr("(vertices (0, 3) at (0, 0, 0) (0, 1, 0))")));
}

TEST_F(MeshGmsh, MshWithAGroupWithoutAName) {
  const TemporaryFolder folder;
  const std::string names = "$PhysicalNames\n1\n2 2 \"domain\"\n$EndPhysicalNames\n";
  write_text(folder / "anonymous.msh",
             square_msh(names, "1 1 2 1 1 1 2\n2 1 2 1 1 2 3\n3 1 2 1 1 3 4\n4 1 2 1 1 4 1\n", 4));
  EXPECT_THAT(load_error(folder / "anonymous.msh"),
              AllOf(HasSubstr("physical group 1 (curves) has no name"), HasSubstr("Physical Curve(\"name\")")));
}

TEST_F(MeshGmsh, MshWithMixedElementTypes) {
  const TemporaryFolder folder;
  write_text(folder / "mixed.msh",
             "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n" + kNames +
                 "$Nodes\n6\n1 0 0 0\n2 1 0 0\n3 1 1 0\n4 0 1 0\n5 2 0 0\n6 2 1 0\n$EndNodes\n$Elements\n2\n"
                 "1 2 2 2 1 1 2 3\n2 3 2 2 1 2 5 6 3\n$EndElements\n");
  EXPECT_THAT(load_error(folder / "mixed.msh"),
              AllOf(HasSubstr("mixed element types in the 2D mesh: 1 Triangle 3, 1 Quadrilateral 4"),
                    HasSubstr("rtdg needs one type")));
}

TEST_F(MeshGmsh, MshWithSerendipityElements) {
  const TemporaryFolder folder;
  // Type 16: the 8-node (incomplete) quadrangle; type 20: the 9-node incomplete triangle.
  write_text(folder / "incomplete.msh",
             "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n" + kNames +
                 "$Nodes\n9\n1 0 0 0\n2 3 0 0\n3 0 3 0\n4 1 0 0\n5 2 0 0\n6 2 1 0\n7 1 2 0\n8 0 2 0\n9 0 1 0\n$EndNodes\n"
                 "$Elements\n1\n1 20 2 2 1 1 2 3 4 5 6 7 8 9\n$EndElements\n");
  EXPECT_THAT(load_error(folder / "incomplete.msh"),
              AllOf(HasSubstr("'Triangle 9' is not supported"), HasSubstr("complete Lagrange elements")));
}

TEST_F(MeshGmsh, ElementOrderOfAFileDoesNotLeak) {
  const TemporaryFolder folder;
  write_text(folder / "quadratic.geo",
             "Point(1) = {0, 0, 0, 1}; Point(2) = {1, 0, 0, 1}; Point(3) = {0, 1, 0, 1};\n"
             "Line(1) = {1, 2}; Line(2) = {2, 3}; Line(3) = {3, 1};\n"
             "Curve Loop(1) = {1, 2, 3}; Plane Surface(1) = {1};\n"
             "Physical Curve(\"walls\") = {1, 2, 3}; Physical Surface(\"domain\") = {1};\n"
             "Mesh.ElementOrder = 2;\n");
  const Mesh quadratic = load_mesh(folder / "quadratic.geo");
  EXPECT_EQ(quadratic.geometry_order, 2);
  // The option the file set does not carry over to the next file.
  const Mesh square = load_mesh(geometries() / "square.geo");
  EXPECT_EQ(check_conventions(square), "");
  EXPECT_EQ(square.geometry_order, 1);
  EXPECT_TRUE(square.element_nodes.empty());
}

TEST_F(MeshGmsh, EmptyMsh) {
  const TemporaryFolder folder;
  write_text(folder / "empty.msh", "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n0\n$EndNodes\n$Elements\n0\n$EndElements\n");
  EXPECT_THAT(load_error(folder / "empty.msh"), HasSubstr("empty.msh: the mesh is empty"));
}

TEST_F(MeshGmsh, FileThatIsNotAMesh) {
  const TemporaryFolder folder;
  write_text(folder / "notes.msh", "These are my notes, not a mesh.\n");
  EXPECT_EQ(load_error(folder / "notes.msh"),
            (folder / "notes.msh").string() + ": not a Gmsh mesh file: it does not start with $MeshFormat");
  write_text(folder / "broken.msh", "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\nthree\n");
  EXPECT_THAT(load_error(folder / "broken.msh"), HasSubstr("broken.msh:5:1: 'three' after $Nodes is not a whole number"));
  EXPECT_THAT(load_error(folder / "missing.msh"), HasSubstr("missing.msh: no such file"));
  EXPECT_THAT(load_error(folder / "mesh.vtk"), HasSubstr("unknown mesh file type '.vtk'"));
}

TEST_F(MeshGmsh, GeoSyntaxErrorNamesTheFile) {
  const TemporaryFolder folder;
  write_text(folder / "typo.geo", "Point(1) = {0, 0, 0;\n");
  EXPECT_THAT(load_error(folder / "typo.geo"), AllOf(HasSubstr("typo.geo: Gmsh: "), HasSubstr("line 1")));
}

}  // namespace
}  // namespace rtdg::mesh
