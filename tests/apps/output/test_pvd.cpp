// PVD series and how components become VTU arrays: neither needs VTK.
#include "test_support.hpp"

#include <output/error.hpp>
#include <output/vtu.hpp>

#include <gtest/gtest.h>

#include <fstream>

namespace rtdg::output {
namespace {

using test::TempDir;

TEST(PvdSeries, WritesRelativePathsAndRoundTripTimes) {
  TempDir dir;
  std::filesystem::create_directories(dir / "snapshots");
  PvdSeries series(dir / "run.pvd");
  EXPECT_FALSE(std::filesystem::exists(dir / "run.pvd"));
  series.add(0.0, dir / "snapshots" / "s0.vtu");
  series.add(0.1, dir / "snapshots" / "s1.vtu");
  series.add(1.0 / 3.0, dir / "snapshots" / "a&b.vtu");
  const std::string text = test::read_text(dir / "run.pvd");
  EXPECT_EQ(text,
            "<?xml version=\"1.0\"?>\n"
            "<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
            "  <Collection>\n"
            "    <DataSet timestep=\"0\" group=\"\" part=\"0\" file=\"snapshots/s0.vtu\"/>\n"
            "    <DataSet timestep=\"0.1\" group=\"\" part=\"0\" file=\"snapshots/s1.vtu\"/>\n"
            "    <DataSet timestep=\"0.3333333333333333\" group=\"\" part=\"0\" file=\"snapshots/a&amp;b.vtu\"/>\n"
            "  </Collection>\n"
            "</VTKFile>\n");
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"run.pvd", "snapshots"}));

  // Read back: times exact, names unescaped.
  const PvdSeries again(dir / "run.pvd");
  ASSERT_EQ(again.entries().size(), 3u);
  EXPECT_EQ(again.entries()[2].time, 1.0 / 3.0);
  EXPECT_EQ(again.entries()[2].file, std::filesystem::path("snapshots/a&b.vtu"));
}

TEST(PvdSeries, PathsOutsideTheFolderAreRelativeToo) {
  TempDir dir;
  std::filesystem::create_directories(dir / "pvd");
  PvdSeries series(dir / "pvd" / "run.pvd");
  series.add(2.0, dir / "vtu" / "x.vtu");
  EXPECT_NE(test::read_text(dir / "pvd" / "run.pvd").find("file=\"../vtu/x.vtu\""), std::string::npos);
}

TEST(PvdSeries, ARestartedRunKeepsTheEarlierEntries) {
  TempDir dir;
  {
    PvdSeries series(dir / "run.pvd");
    for (int i = 0; i < 5; ++i) series.add(0.5 * i, dir / ("s" + std::to_string(i) + ".vtu"));
  }
  // Restarted from the checkpoint at t = 1: the next snapshot is again t = 1.
  PvdSeries series(dir / "run.pvd");
  ASSERT_EQ(series.entries().size(), 5u);
  series.add(1.0, dir / "r2.vtu");
  series.add(1.5, dir / "r3.vtu");
  ASSERT_EQ(series.entries().size(), 4u);
  EXPECT_EQ(series.entries()[0].file, std::filesystem::path("s0.vtu"));
  EXPECT_EQ(series.entries()[1].file, std::filesystem::path("s1.vtu"));
  EXPECT_EQ(series.entries()[2].file, std::filesystem::path("r2.vtu"));
  EXPECT_EQ(series.entries()[3].file, std::filesystem::path("r3.vtu"));
  const std::string text = test::read_text(dir / "run.pvd");
  EXPECT_EQ(text.find("s2.vtu"), std::string::npos);
  EXPECT_EQ(text.find("s4.vtu"), std::string::npos);
  EXPECT_NE(text.find("timestep=\"0.5\" group=\"\" part=\"0\" file=\"s1.vtu\""), std::string::npos);
}

TEST(PvdSeries, AFileThatIsNoCollectionIsAnError) {
  TempDir dir;
  std::ofstream(dir / "run.pvd") << "hello\n";
  try {
    PvdSeries series(dir / "run.pvd");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("run.pvd: not a ParaView collection"), std::string::npos) << e.what();
  }
}

std::vector<std::pair<std::string, std::vector<int>>> arrays(const std::vector<std::string>& names, int dim) {
  std::vector<std::pair<std::string, std::vector<int>>> out;
  for (const PointArray& a : point_arrays(names, dim)) out.emplace_back(a.name, a.components);
  return out;
}

using Arrays = std::vector<std::pair<std::string, std::vector<int>>>;

TEST(PointArrays, VectorsFromComponentNames) {
  EXPECT_EQ(arrays({"E.x", "E.y", "E.z", "H.x", "H.y", "H.z"}, 3), (Arrays{{"E", {0, 1, 2}}, {"H", {3, 4, 5}}}));
  // 2D: padded with zeros; a lone z component is a scalar.
  EXPECT_EQ(arrays({"E.x", "E.y", "H.z"}, 2), (Arrays{{"E", {0, 1, -1}}, {"H.z", {2}}}));
  // 2D with three components: a full vector.
  EXPECT_EQ(arrays({"u.z", "rho", "u.x", "u.y"}, 2), (Arrays{{"u", {2, 3, 0}}, {"rho", {1}}}));
  // 3D without z: scalars.
  EXPECT_EQ(arrays({"E.x", "E.y"}, 3), (Arrays{{"E.x", {0}}, {"E.y", {1}}}));
  // A component named like the vector keeps the vector from being made.
  EXPECT_EQ(arrays({"E", "E.x", "E.y"}, 2), (Arrays{{"E", {0}}, {"E.x", {1}}, {"E.y", {2}}}));
  EXPECT_EQ(arrays({"a.b.x", "a.b.y", "p"}, 2), (Arrays{{"a.b", {0, 1, -1}}, {"p", {2}}}));
  EXPECT_EQ(arrays({".x", ".y"}, 2), (Arrays{{".x", {0}}, {".y", {1}}}));
}

TEST(Vtu, AvailabilityMatchesTheBuild) {
  EXPECT_EQ(vtu_available(), RTDG_TEST_HAVE_VTK != 0);
  if (vtu_available()) return;
  TempDir dir;
  const Solution s = test::sample(dg::discretize(test::box_mesh(2, 1), 1), {"u"}, {test::random_polynomial(1, 1)});
  try {
    write_vtu(dir / "s.vtu", s);
    FAIL() << "no error";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("without VTK"), std::string::npos) << message;
    EXPECT_NE(message.find("rtdg export"), std::string::npos) << message;
  }
  EXPECT_TRUE(dir.entries().empty());
}

}  // namespace
}  // namespace rtdg::output
