// High-order (curved) elements: the lattice layout and basis, Gmsh's 6/10/15-node triangles
// and 10/20/35-node tetrahedra from .geo and .msh 2.2/4.1, the Jacobian check, HDF5 round trips,
// Morton reordering and rank-local meshes carrying the nodes. Gmsh tests skip without the SDK.
#include "fixtures.hpp"

#include <mesh/build.hpp>
#include <mesh/error.hpp>
#include <mesh/geometry_nodes.hpp>
#include <mesh/gmsh_io.hpp>
#include <mesh/hdf5_io.hpp>
#include <mesh/load.hpp>
#include <mesh/local_mesh.hpp>
#include <mesh/reorder.hpp>
#include <mesh/summary.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <numeric>

namespace rtdg::mesh {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using testing::check_conventions;
using testing::geometries;
using testing::TemporaryFolder;
using testing::write_text;

std::size_t ix(int i) { return static_cast<std::size_t>(i); }

TEST(MeshLattice, NumberingAndBasis) {
  for (int dim : {2, 3}) {
    for (int p = 1; p <= 5; ++p) {
      const int size = lattice_size(dim, p);
      for (int n = 0; n < size; ++n) {
        const auto m = lattice_multi_index(dim, p, n);
        ASSERT_EQ(lattice_index(dim, p, m[0], m[1], m[2]), n);
      }
      // Kronecker property at the nodes; the basis reproduces linear functions (derivatives too).
      std::vector<double> values;
      std::array<std::vector<double>, 3> derivatives;
      for (int n = 0; n < size; ++n) {
        lattice_basis(dim, p, lattice_point(dim, p, n), values, &derivatives);
        for (int m = 0; m < size; ++m) ASSERT_NEAR(values[ix(m)], m == n ? 1.0 : 0.0, 1e-13);
      }
      const std::array<double, 3> r{0.1234, -0.6, dim == 3 ? -0.3 : 0.0};
      lattice_basis(dim, p, r, values, &derivatives);
      double f = 0.0, sum = 0.0;
      std::array<double, 3> df{};
      for (int n = 0; n < size; ++n) {
        const auto x = lattice_point(dim, p, n);
        const double g = 3.0 * x[0] - 2.0 * x[1] + 0.5 * x[2] * x[2] + x[0] * x[1];
        sum += values[ix(n)];
        f += values[ix(n)] * g;
        for (int a = 0; a < dim; ++a) df[ix(a)] += derivatives[ix(a)][ix(n)] * g;
      }
      EXPECT_NEAR(sum, 1.0, 1e-13);
      if (p >= 2) {  // quadratic g is reproduced exactly
        EXPECT_NEAR(f, 3.0 * r[0] - 2.0 * r[1] + 0.5 * r[2] * r[2] + r[0] * r[1], 1e-12);
        EXPECT_NEAR(df[0], 3.0 + r[1], 1e-12);
        EXPECT_NEAR(df[1], -2.0 + r[0], 1e-12);
        if (dim == 3) {
          EXPECT_NEAR(df[2], r[2], 1e-12);
        }
      }
    }
  }
}

// A straight clockwise 6-node triangle: build_mesh orients it (swaps v1 and v2) and must carry
// the lattice along, so the element stays straight and its corner nodes stay its vertices.
TEST(MeshHighOrder, OrientationSwapPermutesTheNodes) {
  RawMesh raw;
  raw.dim = 2;
  raw.type = ElementType::triangle;
  raw.vertices = {{0, 0, 0}, {0, 1, 0}, {1, 0, 0}};  // clockwise
  raw.elements = {{0, 1, 2, -1}};
  raw.element_region = {0};
  raw.region_names = {"domain"};
  raw.boundary_names = {"walls"};
  raw.tagged_faces = {{{0, 1, -1}, 0}, {{1, 2, -1}, 0}, {{2, 0, -1}, 0}};
  raw.geometry_order = 2;
  // Lattice (i, j): node = v0 + i/2 (v1 - v0) + j/2 (v2 - v0).
  for (int n = 0; n < 6; ++n) {
    const auto m = lattice_multi_index(2, 2, n);
    raw.element_nodes.push_back({0.5 * m[1], 0.5 * m[0], 0.0});
  }
  const Mesh mesh = build_mesh(raw);
  EXPECT_EQ(mesh.EToV[0][1], 2);
  EXPECT_FALSE(is_curved(mesh, 0));
  // Bend the edge v1-v2 outwards: curved, still valid.
  RawMesh bent = raw;
  bent.element_nodes[ix(lattice_index(2, 2, 1, 1, 0))] = {0.6, 0.6, 0.0};
  const Mesh curved = build_mesh(bent);
  EXPECT_TRUE(is_curved(curved, 0));
  EXPECT_EQ(curved_elements(curved), std::vector<int>{0});
  // Pull the same node far inside: the element folds, and the error names it and its worst node.
  RawMesh folded = raw;
  folded.element_nodes[ix(lattice_index(2, 2, 1, 1, 0))] = {0.05, 0.05, 0.0};
  try {
    build_mesh(folded);
    FAIL() << "a folded element was accepted";
  } catch (const MeshError& error) {
    EXPECT_THAT(std::string(error.what()),
                AllOf(HasSubstr("element 0 of geometry order 2 is inverted"), HasSubstr("at its worst node"),
                      HasSubstr("(r, s) = ("), HasSubstr("Mesh.HighOrderOptimize")));
  }
  // The node pulled in to (m, m): J = 1 + 4 (m - 1/2) (x + y) times the straight element's, least
  // on the edge x + y = 1. At m = 0.35 (ratio 0.4) the element is accepted; at m = 0.28 (ratio
  // 0.12, positive everywhere) it is refused as nearly folded, with its ratio.
  RawMesh mild = raw;
  mild.element_nodes[ix(lattice_index(2, 2, 1, 1, 0))] = {0.35, 0.35, 0.0};
  EXPECT_NEAR(worst_jacobian(build_mesh(mild), 0).ratio, 0.4, 1e-12);
  RawMesh nearly = raw;
  nearly.element_nodes[ix(lattice_index(2, 2, 1, 1, 0))] = {0.28, 0.28, 0.0};
  try {
    build_mesh(nearly);
    FAIL() << "a nearly folded element was accepted";
  } catch (const MeshError& error) {
    EXPECT_THAT(std::string(error.what()),
                AllOf(HasSubstr("element 0 of geometry order 2 is nearly folded"), HasSubstr("falls to 0.12 times"),
                      HasSubstr("below 0.2"), HasSubstr("Mesh.HighOrderOptimize")));
  }
}

class MeshHighOrderGmsh : public ::testing::Test {
protected:
  void SetUp() override {
    if (!have_gmsh()) GTEST_SKIP() << "built without the Gmsh SDK";
  }
};

// Area of a 2D mesh by its polynomial maps: a Gauss rule on the collapsed square.
double mapped_area(const Mesh& mesh) {
  const std::array<double, 5> x{-0.9061798459386640, -0.5384693101056831, 0.0, 0.5384693101056831, 0.9061798459386640};
  const std::array<double, 5> w{0.2369268850561891, 0.4786286704993665, 0.5688888888888889, 0.4786286704993665, 0.2369268850561891};
  double area = 0;
  std::vector<double> values;
  std::array<std::vector<double>, 3> derivatives;
  const int size = lattice_size(2, mesh.geometry_order);
  for (int k = 0; k < mesh.num_elements(); ++k) {
    const auto* X = element_geometry_nodes(mesh, k);
    for (std::size_t i = 0; i < 5; ++i)
      for (std::size_t j = 0; j < 5; ++j) {
        // (a, b) in the square -> (r, s) in the triangle, Jacobian (1 - b) / 2.
        const double r = 0.5 * (1 + x[i]) * (1 - x[j]) - 1, s = x[j];
        lattice_basis(2, mesh.geometry_order, {r, s, 0}, values, &derivatives);
        double xr = 0, xs = 0, yr = 0, ys = 0;
        for (int n = 0; n < size; ++n) {
          xr += X[n][0] * derivatives[0][ix(n)];
          xs += X[n][0] * derivatives[1][ix(n)];
          yr += X[n][1] * derivatives[0][ix(n)];
          ys += X[n][1] * derivatives[1][ix(n)];
        }
        area += w[i] * w[j] * 0.5 * (1 - x[j]) * (xr * ys - xs * yr);
      }
  }
  return area;
}

TEST_F(MeshHighOrderGmsh, DiskOfEveryOrderFromGeo) {
  const double exact = std::numbers::pi;
  double polygon = 1.0, quadratic = 1.0;
  for (int p = 1; p <= 4; ++p) {
    const Mesh mesh = load_mesh(geometries() / "disk.geo", {{{"h", 0.5}, {"order", p}}, {}});
    EXPECT_EQ(check_conventions(mesh), "");
    EXPECT_EQ(mesh.geometry_order, p);
    EXPECT_EQ(mesh.element_nodes.size(), ix(mesh.num_elements() * lattice_size(2, p)) * (p > 1 ? 1 : 0));
    if (p == 1) {
      EXPECT_TRUE(curved_elements(mesh).empty());
      polygon = std::abs(total_volume(mesh) - exact);
      continue;
    }
    // The elements at the circle are curved, the interior ones are not.
    const std::vector<int> curved = curved_elements(mesh);
    EXPECT_GT(curved.size(), 0u);
    EXPECT_LT(curved.size(), ix(mesh.num_elements()));
    EXPECT_THAT(format_summary(summarize(mesh)),
                HasSubstr("geometry order " + std::to_string(p) + ": " + std::to_string(curved.size()) + " curved elements"));
    // Every node of a wall face lies on the circle.
    for (const BoundaryFace& b : mesh.boundary_faces) {
      const auto* X = element_geometry_nodes(mesh, b.element);
      for (int n = 0; n < lattice_size(2, p); ++n) {
        const auto m = lattice_multi_index(2, p, n);
        const std::array<int, 3> beta{p - m[0] - m[1], m[0], m[1]};
        // Face f = (v_f, v_{f+1}): the barycentric coordinate of the third vertex is zero.
        if (beta[ix((b.face + 2) % 3)] != 0) continue;
        EXPECT_NEAR(std::hypot(X[n][0], X[n][1]), 1.0, 1e-12) << "element " << b.element << " node " << n;
      }
    }
    // The mapped area is far closer than the polygon's (error O(h^4) and better against O(h^2)),
    // and order 4 closer than order 2.
    const double error = std::abs(mapped_area(mesh) - exact);
    EXPECT_NEAR(mapped_volume(mesh), mapped_area(mesh), 1e-13);
    EXPECT_LT(error, polygon / 100) << "order " << p;
    if (p == 2) quadratic = error;
    if (p == 4) {
      EXPECT_LT(error, quadratic / 10);
    }
  }
}

TEST_F(MeshHighOrderGmsh, MshVersionsGiveTheSameNodes) {
  const TemporaryFolder folder;
  const Mesh from_geo = load_mesh(geometries() / "disk.geo", {{{"h", 0.6}, {"order", 3}}, {}});
  for (const double version : {2.2, 4.1}) {
    for (const bool binary : {false, true}) {
      const auto file = folder / ("disk" + std::to_string(version) + (binary ? "b" : "a") + ".msh");
      write_msh(geometries() / "disk.geo", {{"h", 0.6}, {"order", 3}}, file, {version, binary});
      const Mesh from_msh = load_mesh(file);
      EXPECT_EQ(from_msh.geometry_order, 3);
      ASSERT_EQ(from_msh.element_nodes.size(), from_geo.element_nodes.size());
      for (std::size_t n = 0; n < from_geo.element_nodes.size(); ++n)
        for (std::size_t d = 0; d < 3; ++d) ASSERT_NEAR(from_msh.element_nodes[n][d], from_geo.element_nodes[n][d], 1e-14);
    }
  }
}

TEST_F(MeshHighOrderGmsh, TetrahedraOfOrders2To4) {
  const TemporaryFolder folder;
  for (int p = 2; p <= 4; ++p) {
    const auto file = folder / ("ball" + std::to_string(p) + ".geo");
    write_text(file, "SetFactory(\"OpenCASCADE\");\nSphere(1) = {0, 0, 0, 1};\n"
                     "Physical Surface(\"wall\") = {1};\nPhysical Volume(\"domain\") = {1};\n"
                     "Mesh.MeshSizeMin = 0.7; Mesh.MeshSizeMax = 0.7;\nMesh.ElementOrder = " + std::to_string(p) + ";\n");
    const Mesh mesh = load_mesh(file);
    EXPECT_EQ(mesh.geometry_order, p);
    EXPECT_EQ(check_conventions(mesh), "");
    ASSERT_EQ(mesh.element_nodes.size(), ix(mesh.num_elements() * lattice_size(3, p)));
    EXPECT_GT(curved_elements(mesh).size(), 0u);
    // The mapped ball is closer to 4 pi / 3 than its straight tetrahedra.
    EXPECT_LT(std::abs(mapped_volume(mesh) - 4 * std::numbers::pi / 3), std::abs(total_volume(mesh) - 4 * std::numbers::pi / 3) / 5);
    for (int k = 0; k < mesh.num_elements(); ++k) EXPECT_GT(worst_jacobian(mesh, k).ratio, 0.0) << "element " << k;
    // The nodes of wall faces lie on the sphere.
    for (const BoundaryFace& b : mesh.boundary_faces) {
      const auto* X = element_geometry_nodes(mesh, b.element);
      const auto& fv = face_vertices(ElementType::tetrahedron)[ix(b.face)];
      for (int n = 0; n < lattice_size(3, p); ++n) {
        const auto m = lattice_multi_index(3, p, n);
        const std::array<int, 4> beta{p - m[0] - m[1] - m[2], m[0], m[1], m[2]};
        const int opposite = 6 - fv[0] - fv[1] - fv[2];
        if (beta[ix(opposite)] != 0) continue;
        EXPECT_NEAR(std::sqrt(X[n][0] * X[n][0] + X[n][1] * X[n][1] + X[n][2] * X[n][2]), 1.0, 1e-9);
      }
    }
    // .msh 4.1 of the same mesh reads the same nodes.
    const auto msh = folder / ("ball" + std::to_string(p) + ".msh");
    write_msh(file, {}, msh, {4.1, false});
    const Mesh read = load_mesh(msh);
    ASSERT_EQ(read.element_nodes.size(), mesh.element_nodes.size());
    for (std::size_t n = 0; n < mesh.element_nodes.size(); ++n)
      for (std::size_t d = 0; d < 3; ++d) ASSERT_NEAR(read.element_nodes[n][d], mesh.element_nodes[n][d], 1e-14);
  }
}

TEST_F(MeshHighOrderGmsh, Hdf5ReorderAndLocalMeshCarryTheNodes) {
  const TemporaryFolder folder;
  const Mesh mesh = load_mesh(geometries() / "disk.geo", {{{"h", 0.5}, {"order", 2}}, {}});
  write_hdf5(mesh, folder / "disk.h5");
  const Mesh read = read_hdf5(folder / "disk.h5");
  EXPECT_EQ(read, mesh);
  // Morton order: element i of the reordered mesh has the nodes of element order[i].
  const std::vector<int> order = morton_order(mesh);
  const Mesh reordered = reorder_elements(mesh, order, "disk");
  const int size = lattice_size(2, 2);
  for (int i = 0; i < mesh.num_elements(); ++i)
    for (int n = 0; n < size; ++n)
      ASSERT_EQ(element_geometry_nodes(reordered, i)[n], element_geometry_nodes(mesh, order[ix(i)])[n]);
  EXPECT_EQ(curved_elements(reordered).size(), curved_elements(mesh).size());
  // A rank's part: its elements keep their nodes.
  Partition partition;
  partition.parts = 2;
  partition.element_part.resize(ix(mesh.num_elements()));
  for (int k = 0; k < mesh.num_elements(); ++k) partition.element_part[ix(k)] = mesh.element_nodes[ix(k * size)][0] < 0 ? 0 : 1;
  for (int rank = 0; rank < 2; ++rank) {
    const LocalMesh local = build_local_mesh(mesh, partition, rank);
    EXPECT_EQ(local.mesh.geometry_order, 2);
    for (std::size_t lk = 0; lk < local.element_global.size(); ++lk)
      for (int n = 0; n < size; ++n)
        ASSERT_EQ(element_geometry_nodes(local.mesh, static_cast<int>(lk))[n],
                  element_geometry_nodes(mesh, local.element_global[lk])[n]);
  }
}

}  // namespace
}  // namespace rtdg::mesh
