// VTU snapshots read back with VTK's own reader: cell types, point counts, arrays, values.
#include "test_support.hpp"

#include <output/error.hpp>
#include <output/vtu.hpp>

#include <gtest/gtest.h>

#include <vtkCellType.h>
#include <vtkDataArray.h>
#include <vtkFieldData.h>
#include <vtkNew.h>
#include <vtkPointData.h>
#include <vtkUnstructuredGrid.h>
#include <vtkXMLPUnstructuredGridReader.h>
#include <vtkXMLUnstructuredGridReader.h>

#include <sys/resource.h>

#include <cmath>
#include <csignal>

namespace rtdg::output {
namespace {

using test::TempDir;

vtkSmartPointer<vtkUnstructuredGrid> read_vtu(const std::filesystem::path& file) {
  vtkNew<vtkXMLUnstructuredGridReader> reader;
  reader->SetFileName(file.c_str());
  reader->Update();
  return vtkSmartPointer<vtkUnstructuredGrid>(reader->GetOutput());
}

struct Case {
  int dim;
  int N;
  std::vector<std::string> names;
};

void check_case(const Case& c, const std::string& precision) {
  TempDir dir;
  const mesh::Mesh mesh = test::box_mesh(c.dim, 2, 0.15);
  const dg::Discretization d = dg::discretize(mesh, c.N);
  std::vector<test::Field> fields;
  for (std::size_t i = 0; i < c.names.size(); ++i) fields.push_back(test::random_polynomial(c.N, 40 + static_cast<unsigned>(i)));
  Solution s = test::sample(d, c.names, fields);
  s.precision = precision;
  s.time = 0.75;
  s.step = 123;
  write_vtu(dir / "s.vtu", s);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"s.vtu"});

  const auto grid = read_vtu(dir / "s.vtu");
  ASSERT_NE(grid, nullptr);
  const vtkIdType lattice = dg::num_nodes(s.shape, c.N);
  ASSERT_EQ(grid->GetNumberOfCells(), d.K);
  ASSERT_EQ(grid->GetNumberOfPoints(), d.K * lattice);
  const int type = c.dim == 2 ? VTK_LAGRANGE_TRIANGLE : VTK_LAGRANGE_TETRAHEDRON;
  for (vtkIdType k = 0; k < d.K; ++k) {
    ASSERT_EQ(grid->GetCellType(k), type);
    ASSERT_EQ(grid->GetCell(k)->GetNumberOfPoints(), lattice);
  }

  const std::vector<PointArray> arrays = point_arrays(s.names, s.dim);
  ASSERT_EQ(grid->GetPointData()->GetNumberOfArrays(), static_cast<int>(arrays.size()));
  const double tolerance = precision == "float" ? 1e-6 : 1e-12;
  for (const PointArray& array : arrays) {
    vtkDataArray* data = grid->GetPointData()->GetArray(array.name.c_str());
    ASSERT_NE(data, nullptr) << array.name;
    EXPECT_EQ(data->GetDataType(), precision == "float" ? VTK_FLOAT : VTK_DOUBLE);
    ASSERT_EQ(data->GetNumberOfComponents(), static_cast<int>(array.components.size()));
    for (vtkIdType k = 0; k < d.K; ++k) {
      vtkIdList* ids = grid->GetCell(k)->GetPointIds();
      for (vtkIdType j = 0; j < ids->GetNumberOfIds(); ++j) {
        double p[3];
        grid->GetPoint(ids->GetId(j), p);
        for (int comp = 0; comp < data->GetNumberOfComponents(); ++comp) {
          const int field = array.components[static_cast<std::size_t>(comp)];
          // Every lattice point carries the polynomial's value there (interpolation is exact).
          const double expected = field < 0 ? 0.0 : fields[static_cast<std::size_t>(field)](p[0], p[1], p[2]);
          ASSERT_NEAR(data->GetComponent(ids->GetId(j), comp), expected, tolerance)
              << array.name << " element " << k << " point " << j;
        }
      }
      // The cell's first dim + 1 points are the element's vertices, where a node sits whose
      // value the point carries.
      for (int v = 0; v <= c.dim; ++v) {
        double p[3];
        grid->GetPoint(ids->GetId(v), p);
        const auto& vertex = mesh.vertices[static_cast<std::size_t>(mesh.EToV[static_cast<std::size_t>(k)][static_cast<std::size_t>(v)])];
        for (std::size_t x = 0; x < 3; ++x) ASSERT_NEAR(p[x], vertex[x], 1e-13);
        int node = -1;
        for (int i = 0; i < d.element.Np; ++i) {
          const double dx = d.x(i, k) - vertex[0], dy = d.y(i, k) - vertex[1], dz = c.dim == 3 ? d.z(i, k) - vertex[2] : 0.0;
          if (std::sqrt(dx * dx + dy * dy + dz * dz) < 1e-12) node = i;
        }
        ASSERT_GE(node, 0);
        const int field = array.components[0];
        const double nodal = s.values[(static_cast<std::size_t>(field) * static_cast<std::size_t>(d.K) + static_cast<std::size_t>(k)) *
                                          static_cast<std::size_t>(d.element.Np) + static_cast<std::size_t>(node)];
        EXPECT_NEAR(data->GetComponent(ids->GetId(v), 0), nodal, precision == "float" ? 1e-6 : 1e-13);
      }
    }
  }
  vtkDataArray* time = grid->GetFieldData()->GetArray("TIME");
  ASSERT_NE(time, nullptr);
  EXPECT_EQ(time->GetTuple1(0), 0.75);
  vtkDataArray* cycle = grid->GetFieldData()->GetArray("CYCLE");
  ASSERT_NE(cycle, nullptr);
  EXPECT_EQ(cycle->GetTuple1(0), 123.0);
}

TEST(Vtu, TrianglesOfOrder3) { check_case({2, 3, {"E.x", "E.y", "H.z"}}, "double"); }
TEST(Vtu, TrianglesOfOrder1) { check_case({2, 1, {"u"}}, "double"); }
TEST(Vtu, TetrahedraOfOrder2) { check_case({3, 2, {"E.x", "E.y", "E.z", "H.x", "H.y", "H.z"}}, "double"); }
TEST(Vtu, TetrahedraOfOrder4InFloat) { check_case({3, 4, {"rho", "u.x", "u.y", "u.z"}}, "float"); }

// A parallel run's snapshot: each rank's elements as a VTU piece, and the .pvtu naming them.
// VTK's parallel reader must see one dataset: every element, every array, the same values as
// the pieces.
TEST(Vtu, PiecesReadAsOneDatasetThroughThePvtu) {
  TempDir dir;
  const mesh::Mesh mesh = test::box_mesh(3, 2, 0.15);
  const dg::Discretization d = dg::discretize(mesh, 2);
  const std::vector<std::string> names = {"E.x", "E.y", "E.z", "p"};
  std::vector<test::Field> fields;
  for (std::size_t i = 0; i < names.size(); ++i) fields.push_back(test::random_polynomial(2, 70 + static_cast<unsigned>(i)));
  const Solution whole = test::sample(d, names, fields);
  // Two pieces: the first elements and the rest, as two ranks would hold them.
  const int K0 = d.K / 3, Np = d.element.Np;
  std::vector<Solution> pieces(2, whole);
  for (int p = 0; p < 2; ++p) {
    const int first = p == 0 ? 0 : K0, count = p == 0 ? K0 : d.K - K0;
    Solution& s = pieces[static_cast<std::size_t>(p)];
    s.K = count;
    auto rows = [&](const std::vector<double>& all, int components) {
      std::vector<double> out;
      for (int c = 0; c < components; ++c)
        out.insert(out.end(), all.begin() + (static_cast<std::ptrdiff_t>(c) * d.K + first) * Np,
                   all.begin() + (static_cast<std::ptrdiff_t>(c) * d.K + first + count) * Np);
      return out;
    };
    s.x = rows(whole.x, 1);
    s.y = rows(whole.y, 1);
    s.z = rows(whole.z, 1);
    s.values = rows(whole.values, static_cast<int>(names.size()));
    write_vtu(dir / ("s_p" + std::to_string(p) + ".vtu"), s);
  }
  write_pvtu(dir / "s.pvtu", {"s_p0.vtu", "s_p1.vtu"}, names, 3, "double");

  vtkNew<vtkXMLPUnstructuredGridReader> reader;
  reader->SetFileName((dir / "s.pvtu").c_str());
  reader->Update();
  vtkUnstructuredGrid* grid = reader->GetOutput();
  ASSERT_NE(grid, nullptr);
  ASSERT_EQ(grid->GetNumberOfCells(), d.K);
  const std::vector<PointArray> arrays = point_arrays(names, 3);
  ASSERT_EQ(arrays.size(), 2u);  // E (vector) and p
  ASSERT_EQ(grid->GetPointData()->GetNumberOfArrays(), 2);
  for (const PointArray& array : arrays) {
    vtkDataArray* data = grid->GetPointData()->GetArray(array.name.c_str());
    ASSERT_NE(data, nullptr) << array.name;
    ASSERT_EQ(data->GetNumberOfComponents(), static_cast<int>(array.components.size()));
    for (vtkIdType point = 0; point < grid->GetNumberOfPoints(); ++point) {
      double x[3];
      grid->GetPoint(point, x);
      for (int comp = 0; comp < data->GetNumberOfComponents(); ++comp) {
        const int field = array.components[static_cast<std::size_t>(comp)];
        ASSERT_NEAR(data->GetComponent(point, comp), fields[static_cast<std::size_t>(field)](x[0], x[1], x[2]), 1e-12)
            << array.name << " point " << point;
      }
    }
  }

  // Bad input: no pieces, a name XML would need escaped, an unknown precision.
  EXPECT_THROW(write_pvtu(dir / "t.pvtu", {}, names, 3, "double"), Error);
  EXPECT_THROW(write_pvtu(dir / "t.pvtu", {"a\"b.vtu"}, names, 3, "double"), Error);
  EXPECT_THROW(write_pvtu(dir / "t.pvtu", {"s_p0.vtu"}, names, 3, "half"), Error);
  EXPECT_FALSE(std::filesystem::exists(dir / "t.pvtu"));
}

TEST(Vtu, OverwritesAtomicallyAndFailsCleanly) {
  TempDir dir;
  const Solution s = test::sample(dg::discretize(test::box_mesh(2, 1), 2), {"u"}, {test::random_polynomial(2, 3)});
  write_vtu(dir / "s.vtu", s);
  write_vtu(dir / "s.vtu", s);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"s.vtu"});
  EXPECT_THROW(write_vtu(dir / "missing" / "s.vtu", s), Error);
  Solution bad = s;
  bad.values.pop_back();
  EXPECT_THROW(write_vtu(dir / "bad.vtu", bad), Error);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"s.vtu"});
}

// A write that fails half-way (a full disk: here a file size limit) leaves the old file.
TEST(Vtu, FailedWriteLeavesTheOldFileIntact) {
  TempDir dir;
  const Solution small = test::sample(dg::discretize(test::box_mesh(2, 1), 1), {"u"}, {test::random_polynomial(1, 3)});
  write_vtu(dir / "s.vtu", small);
  const std::string before = test::read_text(dir / "s.vtu");
  const Solution big = test::sample(dg::discretize(test::box_mesh(3, 3, 0.1), 4), {"u"}, {test::random_polynomial(4, 3)});
  rlimit saved{};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &saved), 0);
  const auto previous = std::signal(SIGXFSZ, SIG_IGN);
  rlimit limited = saved;
  limited.rlim_cur = 16 * 1024;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &limited), 0);
  std::string message;
  try {
    write_vtu(dir / "s.vtu", big);
  } catch (const Error& e) {
    message = e.what();
  }
  setrlimit(RLIMIT_FSIZE, &saved);
  std::signal(SIGXFSZ, previous);
  EXPECT_NE(message.find("s.vtu: cannot write"), std::string::npos) << message;
  EXPECT_EQ(test::read_text(dir / "s.vtu"), before);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"s.vtu"});
}

}  // namespace
}  // namespace rtdg::output
