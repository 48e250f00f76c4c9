// Probes: point location, exact interpolation of polynomials, errors, CSV files and restarts.
#include "test_support.hpp"

#include <output/error.hpp>
#include <output/probes.hpp>

#include <mesh/load.hpp>

#include <gtest/gtest.h>

#include <charconv>
#include <fstream>
#include <random>
#include <sstream>

namespace rtdg::output {
namespace {

using test::TempDir;

struct Fixture {
  mesh::Mesh mesh;
  dg::Discretization d;
  std::vector<std::string> names;
  std::vector<test::Field> fields;
  Solution s;
};

Fixture make_fixture(int dim, int N, double jitter = 0.15) {
  Fixture x;
  x.mesh = test::box_mesh(dim, 3, jitter);
  x.d = dg::discretize(x.mesh, N);
  x.names = dim == 2 ? std::vector<std::string>{"E.x", "E.y", "H.z"} : std::vector<std::string>{"E.x", "E.y", "E.z", "p"};
  for (std::size_t c = 0; c < x.names.size(); ++c) x.fields.push_back(test::random_polynomial(N, 100 + static_cast<unsigned>(c)));
  x.s = test::sample(x.d, x.names, x.fields);
  return x;
}

std::string error_of(const Fixture& x, const std::vector<ProbeSpec>& specs) {
  try {
    Probes probes(x.d, x.mesh, x.names, specs);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

void check_exact(int dim, int N) {
  const Fixture x = make_fixture(dim, N);
  std::mt19937 random(static_cast<unsigned>(dim * 10 + N));
  std::uniform_real_distribution<double> u(0.001, 0.999);
  ProbeSpec spec{"random", {}, {}, 1};
  for (int i = 0; i < 40; ++i) spec.points.push_back({u(random), u(random), dim == 3 ? u(random) : 0.0});
  // Corners, a face and an edge of the box, and a shared interior vertex.
  spec.points.push_back({0, 0, 0});
  spec.points.push_back({1, 1, dim == 3 ? 1.0 : 0.0});
  spec.points.push_back({0.5, 0, 0});
  const Probes probes(x.d, x.mesh, x.names, {spec});
  const std::vector<double> row = probes.evaluate(0, x.s.values);
  ASSERT_EQ(row.size(), spec.points.size() * x.names.size());
  for (std::size_t p = 0; p < spec.points.size(); ++p) {
    const auto& q = spec.points[p];
    const ProbePoint& point = probes.points(0)[p];
    EXPECT_GE(point.element, 0);
    for (std::size_t c = 0; c < x.names.size(); ++c) {
      EXPECT_NEAR(row[p * x.names.size() + c], x.fields[c](q[0], q[1], q[2]), 1e-11)
          << "point " << p << " field " << x.names[c];
    }
  }
}

TEST(Probes, InterpolationIsExactForPolynomialsOfDegreeN2D) { check_exact(2, 4); }
TEST(Probes, InterpolationIsExactForPolynomialsOfDegreeN3D) { check_exact(3, 3); }

// Curved elements: a point is found and interpolated through the element's isoparametric map,
// also between a curved face and its chord (in no straight simplex). The field is smooth, not
// a polynomial in the reference coordinates, so the bound is the interpolation error at order 4
// (the straight simplex's coordinates would be off by the curvature, about 1e-2 here).
TEST(Probes, CurvedElementsAreInvertedByNewton) {
  if (!mesh::have_gmsh()) GTEST_SKIP() << "built without the Gmsh SDK";
  const mesh::Mesh disk =
      mesh::load_mesh(std::filesystem::path(RTDG_SOURCE_DIR) / "data/geometries/disk.geo", {{{"h", 0.5}, {"order", 4}}, {}});
  const dg::Discretization d = dg::discretize(disk, 4);
  ASSERT_FALSE(d.curved.empty());
  const std::vector<std::string> names{"u"};
  const std::vector<test::Field> fields{[](double x, double y, double) { return std::exp(0.5 * x) * std::cos(y); }};
  const Solution s = test::sample(d, names, fields);
  ProbeSpec spec{"rim", {}, {}, 1};
  for (int i = 0; i < 24; ++i) {
    const double theta = 0.2618 * i + 0.1;
    for (double r : {0.9995, 0.98, 0.5}) spec.points.push_back({r * std::cos(theta), r * std::sin(theta), 0.0});
  }
  const Probes probes(d, disk, names, {spec});
  const std::vector<double> row = probes.evaluate(0, s.values);
  for (std::size_t p = 0; p < spec.points.size(); ++p) {
    const auto& q = spec.points[p];
    EXPECT_NEAR(row[p], fields[0](q[0], q[1], 0.0), 1e-4) << "point " << p;
  }
  // Beyond the circle: outside the mesh.
  EXPECT_THROW(Probes(d, disk, names, {{"out", {{1.001, 0.0, 0.0}}, {}, 1}}), Error);
}

TEST(Probes, PointsOnSharedFacesPickOneElementDeterministically) {
  const Fixture x = make_fixture(2, 2, 0.0);
  // The vertex (1/3, 1/3) is shared by 6 triangles; the midpoint of an interior edge by 2.
  const ProbeSpec spec{"shared", {{1.0 / 3.0, 1.0 / 3.0, 0}, {0.5, 1.0 / 3.0, 0}}, {"H.z"}, 1};
  const Probes a(x.d, x.mesh, x.names, {spec});
  const Probes b(x.d, x.mesh, x.names, {spec});
  for (std::size_t p = 0; p < 2; ++p) EXPECT_EQ(a.points(0)[p].element, b.points(0)[p].element);
  // The deepest element, lowest number on ties: barycentric coordinates of a vertex are
  // (1, 0, 0) in every element around it, so it is the lowest-numbered one there.
  int lowest = -1;
  for (int k = 0; k < x.mesh.num_elements() && lowest < 0; ++k) {
    for (int v = 0; v < 3; ++v) {
      const auto& p = x.mesh.vertices[static_cast<std::size_t>(x.mesh.EToV[static_cast<std::size_t>(k)][static_cast<std::size_t>(v)])];
      if (std::abs(p[0] - 1.0 / 3.0) < 1e-12 && std::abs(p[1] - 1.0 / 3.0) < 1e-12) lowest = k;
    }
  }
  EXPECT_EQ(a.points(0)[0].element, lowest);
  const std::vector<double> row = a.evaluate(0, x.s.values);
  EXPECT_NEAR(row[0], x.fields[2](1.0 / 3.0, 1.0 / 3.0, 0), 1e-12);
  EXPECT_NEAR(row[1], x.fields[2](0.5, 1.0 / 3.0, 0), 1e-12);
}

TEST(Probes, Errors) {
  const Fixture x = make_fixture(2, 1);
  std::string e = error_of(x, {{"mic", {{0.5, 0.5, 0}, {1.5, 0.25, 0}}, {}, 1}});
  EXPECT_NE(e.find("probe 'mic': point 1 (1.5, 0.25, 0) is outside the mesh"), std::string::npos) << e;
  EXPECT_NE(e.find("[0, 1] x [0, 1]"), std::string::npos) << e;
  e = error_of(x, {{"mic", {{0.5, 0.5, 0}}, {"E.x", "E.w"}, 1}});
  EXPECT_NE(e.find("probe 'mic': unknown field 'E.w'; the fields are 'E.x', 'E.y', 'H.z'"), std::string::npos) << e;
  e = error_of(x, {{"mic", {{0.5, 0.5, 0.1}}, {}, 1}});
  EXPECT_NE(e.find("z != 0"), std::string::npos) << e;
  e = error_of(x, {{"mic", {{0.5, 0.5, 0}}, {}, 0}});
  EXPECT_NE(e.find("every = 0"), std::string::npos) << e;
  e = error_of(x, {{"mic", {}, {}, 1}});
  EXPECT_NE(e.find("has no points"), std::string::npos) << e;
  e = error_of(x, {{"a/b", {{0.5, 0.5, 0}}, {}, 1}});
  EXPECT_NE(e.find("file name"), std::string::npos) << e;
  e = error_of(x, {{"m", {{0.5, 0.5, 0}}, {}, 1}, {"m", {{0.5, 0.5, 0}}, {}, 2}});
  EXPECT_NE(e.find("two probes"), std::string::npos) << e;
  // Just outside a face, beyond the tolerance.
  e = error_of(x, {{"edge", {{1.0 + 1e-8, 0.5, 0}}, {}, 1}});
  EXPECT_NE(e.find("outside"), std::string::npos) << e;
  EXPECT_EQ(error_of(x, {{"edge", {{1.0 + 1e-13, 0.5, 0}}, {}, 1}}), "(no error)");
}

std::vector<std::string> lines(const std::filesystem::path& file) {
  std::istringstream in(test::read_text(file));
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// Values scaled by the step, so every row differs.
std::vector<double> at_step(const Fixture& x, long long step) {
  std::vector<double> v = x.s.values;
  for (double& value : v) value *= 1.0 + 0.1 * static_cast<double>(step);
  return v;
}

std::string row_text(double time, long long step, const std::vector<double>& values) {
  const auto number = [](double v) {
    char buffer[64];
    return std::string(buffer, std::to_chars(buffer, buffer + sizeof buffer, v).ptr);
  };
  std::string text = number(time) + "," + std::to_string(step);
  for (double v : values) text += "," + number(v);
  return text;
}

TEST(Probes, CsvRowsAreWrittenAsRecordedWithRoundTripNumbers) {
  TempDir dir;
  const Fixture x = make_fixture(2, 3);
  Probes probes(x.d, x.mesh, x.names,
                {{"a", {{0.2, 0.3, 0}, {0.7, 0.1, 0}}, {"H.z", "E.x"}, 2}, {"b", {{0.5, 0.5, 0}}, {}, 3}});
  EXPECT_THROW(probes.record(x.s.values, 0.0, 0), Error);  // not open yet
  probes.open(dir / "probes");
  EXPECT_EQ(probes.header(0), "time,step,H.z@0,E.x@0,H.z@1,E.x@1");
  EXPECT_EQ(probes.header(1), "time,step,E.x@0,E.y@0,H.z@0");
  EXPECT_EQ(lines(dir / "probes" / "a.csv"), std::vector<std::string>{probes.header(0)});
  for (long long step = 0; step <= 6; ++step) {
    EXPECT_EQ(probes.due(step), step % 2 == 0 || step % 3 == 0);
    if (probes.due(step)) probes.record(at_step(x, step), 0.1 * static_cast<double>(step), step);
  }
  const std::vector<std::string> a = lines(dir / "probes" / "a.csv");
  ASSERT_EQ(a.size(), 5u);
  for (long long step = 0; step <= 6; step += 2) {
    EXPECT_EQ(a[static_cast<std::size_t>(step / 2 + 1)],
              row_text(0.1 * static_cast<double>(step), step, probes.evaluate(0, at_step(x, step))));
  }
  const std::vector<std::string> b = lines(dir / "probes" / "b.csv");
  ASSERT_EQ(b.size(), 4u);
  EXPECT_EQ(b[3], row_text(0.1 * 6, 6, probes.evaluate(1, at_step(x, 6))));
  EXPECT_THROW(probes.record(std::vector<double>(5), 1.0, 12), Error);  // wrong size
}

TEST(Probes, RestartCutsLaterRowsAndAppends) {
  TempDir dir;
  const Fixture x = make_fixture(2, 2);
  const std::vector<ProbeSpec> specs{{"a", {{0.2, 0.3, 0}}, {"H.z"}, 1}};
  {
    Probes probes(x.d, x.mesh, x.names, specs);
    probes.open(dir.path());
    for (long long step = 0; step <= 8; ++step) probes.record(at_step(x, step), 0.25 * static_cast<double>(step), step);
  }
  // A killed run may leave a row cut short.
  std::ofstream(dir / "a.csv", std::ios::app) << "2.25,9,0.12";
  ASSERT_EQ(lines(dir / "a.csv").size(), 11u);

  // Restart from the checkpoint at step 4 (t = 1): rows up to t = 1 stay.
  Probes probes(x.d, x.mesh, x.names, specs);
  probes.open(dir.path(), 1.0);
  std::vector<std::string> rows = lines(dir / "a.csv");
  ASSERT_EQ(rows.size(), 6u);
  EXPECT_EQ(rows[0], "time,step,H.z@0");
  EXPECT_EQ(rows[5].substr(0, 4), "1,4,");
  // The restarted loop records its first step again: skipped, no duplicate row.
  for (long long step = 4; step <= 6; ++step) probes.record(at_step(x, step), 0.25 * static_cast<double>(step), step);
  rows = lines(dir / "a.csv");
  ASSERT_EQ(rows.size(), 8u);
  EXPECT_EQ(rows[5].substr(0, 4), "1,4,");
  EXPECT_EQ(rows[6], row_text(1.25, 5, probes.evaluate(0, at_step(x, 5))));
  EXPECT_EQ(rows[7], row_text(1.5, 6, probes.evaluate(0, at_step(x, 6))));
  EXPECT_EQ(test::read_text(dir / "a.csv").back(), '\n');
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"a.csv"});

  // A missing file on restart starts afresh; a changed probe is an error.
  std::filesystem::remove(dir / "a.csv");
  probes.open(dir.path(), 1.0);
  EXPECT_EQ(lines(dir / "a.csv"), std::vector<std::string>{"time,step,H.z@0"});
  Probes changed(x.d, x.mesh, x.names, {{"a", {{0.2, 0.3, 0}}, {"E.x"}, 1}});
  try {
    changed.open(dir.path(), 1.0);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("the probe changed"), std::string::npos) << e.what();
  }
}

TEST(Probes, OpeningWithoutRestartStartsAfresh) {
  TempDir dir;
  const Fixture x = make_fixture(2, 1);
  Probes probes(x.d, x.mesh, x.names, {{"a", {{0.2, 0.3, 0}}, {}, 1}});
  probes.open(dir.path());
  probes.record(x.s.values, 0.0, 0);
  probes.open(dir.path());
  EXPECT_EQ(lines(dir / "a.csv").size(), 1u);
}

}  // namespace
}  // namespace rtdg::output
