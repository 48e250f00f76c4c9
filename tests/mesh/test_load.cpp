// load_mesh / convert_mesh: the entry points `rtdg mesh` and the solver use, and the parsing
// of -D and --periodic values.
#include "fixtures.hpp"

#include <mesh/error.hpp>
#include <mesh/gmsh_io.hpp>
#include <mesh/hdf5_io.hpp>
#include <mesh/load.hpp>
#include <mesh/summary.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace rtdg::mesh {
namespace {

using ::testing::HasSubstr;
using testing::geometries;
using testing::TemporaryFolder;
using testing::error_of;

TEST(MeshLoad, ParsesParameters) {
  EXPECT_EQ(parse_parameter("h=0.1"), (std::pair<std::string, double>{"h", 0.1}));
  EXPECT_EQ(parse_parameter(" radius = 2e-1 "), (std::pair<std::string, double>{"radius", 0.2}));
  EXPECT_EQ(error_of([] { parse_parameter("h"); }), "parameter 'h' must have the form name=value");
  EXPECT_EQ(error_of([] { parse_parameter("=1"); }), "parameter '=1' must have the form name=value");
  EXPECT_EQ(error_of([] { parse_parameter("h=0.1x"); }), "parameter 'h': '0.1x' is not a finite number");
  EXPECT_EQ(error_of([] { parse_parameter("h=inf"); }), "parameter 'h': 'inf' is not a finite number");
  EXPECT_EQ(error_of([] { parse_parameter("h="); }), "parameter 'h': '' is not a finite number");
}

TEST(MeshLoad, ParsesPeriodicPairs) {
  const PeriodicNames names = parse_periodic("xmin:xmax");
  EXPECT_EQ(names.a, "xmin");
  EXPECT_EQ(names.b, "xmax");
  EXPECT_FALSE(names.shift.has_value());
  EXPECT_THAT(error_of([] { parse_periodic("xmin"); }), HasSubstr("must have the form group_a:group_b"));
  EXPECT_THAT(error_of([] { parse_periodic("xmin:"); }), HasSubstr("must have the form group_a:group_b"));
}

TEST(MeshLoad, H5IsFinal) {
  const TemporaryFolder folder;
  write_hdf5(build_mesh(testing::structured_square(1, true)), folder / "m.h5");
  EXPECT_NO_THROW(load_mesh(folder / "m.h5"));
  EXPECT_THAT(error_of([&] { load_mesh(folder / "m.h5", {{{"h", 1.0}}, {}}); }), HasSubstr("an .h5 mesh is final"));
  EXPECT_THAT(error_of([&] { load_mesh(folder / "m.txt"); }), HasSubstr("unknown mesh file type '.txt'"));
}

TEST(MeshLoad, SummaryCountsGroups) {
  RawMesh raw = testing::structured_square(2);
  raw.periodic = {{testing::group(raw, "xmin"), testing::group(raw, "xmax"), std::nullopt}};
  const MeshSummary summary = summarize(build_mesh(raw));
  EXPECT_EQ(summary.elements, 8);
  EXPECT_EQ(summary.vertices, 9);
  EXPECT_EQ(summary.boundary_groups, (std::vector<std::pair<std::string, int>>{{"ymin", 2}, {"ymax", 2}}));
  EXPECT_EQ(summary.periodic_pairs, (std::vector<std::pair<std::string, int>>{{"xmin <-> xmax", 2}}));
  EXPECT_EQ(format_summary(summary),
            "2D mesh: 8 triangles, 9 vertices, area 1\n"
            "  region 'domain': 8 elements\n"
            "  boundary 'ymin': 2 faces\n"
            "  boundary 'ymax': 2 faces\n"
            "  periodic xmin <-> xmax: 2 face pairs\n");
}

TEST(MeshLoad, ConvertGeoToH5GivesTheSameMesh) {
  if (!have_gmsh()) GTEST_SKIP() << "built without the Gmsh SDK";
  const TemporaryFolder folder;
  const LoadOptions options{{{"h", 0.6}}, {}};
  const Mesh written = convert_mesh(geometries() / "cylinder2d.geo", folder / "cyl.h5", options);
  EXPECT_EQ(testing::difference(load_mesh(folder / "cyl.h5"), written), "");
  EXPECT_EQ(testing::difference(load_mesh(geometries() / "cylinder2d.geo", options), written), "");
  EXPECT_THAT(error_of([&] { convert_mesh(folder / "cyl.h5", folder / "cyl.msh"); }),
              HasSubstr("a .msh file is written from a .geo or .msh input"));
  EXPECT_THAT(error_of([&] { convert_mesh(geometries() / "square.geo", folder / "x.vtu"); }),
              HasSubstr("unknown output type '.vtu'"));
}

TEST(MeshLoad, WithoutGmshTheErrorSaysWhatToDo) {
  if (have_gmsh()) GTEST_SKIP() << "built with the Gmsh SDK";
  EXPECT_THAT(error_of([] { load_mesh(geometries() / "square.geo"); }),
              HasSubstr("built without the Gmsh SDK"));
}

}  // namespace
}  // namespace rtdg::mesh
