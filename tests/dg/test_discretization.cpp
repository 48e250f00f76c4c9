// The discretization of small hand-made meshes: geometry against exact values, normals,
// face maps against coordinates, boundary groups, periodic faces, and the errors.
#include "test_meshes.hpp"

#include "dg/discretization.hpp"
#include "dg/error.hpp"

#include <mesh/build.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>

namespace rtdg::dg {
namespace {

using test::box_mesh;

// Weights of each face node for integrating over the face in its reference coordinates:
// column sums of the face mass matrices, E = M LIFT. Length Nfaces * Nfp.
Eigen::VectorXd face_weights(const Element& e) { return (e.M * e.LIFT).colwise().sum().transpose(); }

// Coordinates of flat volume node `v` (k * Np + i).
Eigen::Vector3d point(const Discretization& d, int v) {
  return {d.x.data()[v], d.y.data()[v], d.dim == 3 ? d.z.data()[v] : 0.0};
}

struct Case {
  const char* name;
  int dim;
  int n;             // boxes per side
  int N;             // order
  bool periodic;     // xmin ~ xmax
  std::array<double, 3> origin, size;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

class Meshes : public ::testing::TestWithParam<Case> {
protected:
  void SetUp() override {
    const Case& c = GetParam();
    mesh::RawMesh raw = box_mesh(c.dim, c.n, c.origin, c.size);
    if (c.periodic) raw = test::periodic_in_x(std::move(raw), c.size[0]);
    mesh_ = mesh::build_mesh(std::move(raw));
    d_ = discretize(mesh_, c.N);
  }
  double volume() const {
    const Case& c = GetParam();
    return c.size[0] * c.size[1] * (c.dim == 3 ? c.size[2] : 1.0);
  }
  double extent() const {
    const Case& c = GetParam();
    return std::max({c.size[0], c.size[1], c.dim == 3 ? c.size[2] : 0.0});
  }
  mesh::Mesh mesh_;
  Discretization d_;
};

TEST_P(Meshes, SizesFollowTheLayout) {
  const Element& e = d_.element;
  EXPECT_EQ(d_.K, mesh_.num_elements());
  EXPECT_EQ(d_.x.rows(), e.Np);
  EXPECT_EQ(d_.x.cols(), d_.K);
  EXPECT_EQ(d_.J.rows(), e.Np);
  for (const Eigen::MatrixXd* face : {&d_.nx, &d_.ny, &d_.sJ, &d_.Fscale}) {
    EXPECT_EQ(face->rows(), e.Nfaces * e.Nfp);
    EXPECT_EQ(face->cols(), d_.K);
  }
  EXPECT_EQ(d_.vmapP.rows(), e.Nfaces * e.Nfp);
  EXPECT_EQ(d_.z.size() == 0, d_.dim == 2);
  EXPECT_EQ(d_.tz.size() == 0, d_.dim == 2);
}

TEST_P(Meshes, JacobianIsPositiveAndIntegratesTheVolume) {
  EXPECT_GT(d_.J.minCoeff(), 0.0);
  const Eigen::VectorXd weights = d_.element.M.colwise().sum().transpose();  // integral of each l_i
  double integral = 0.0;
  for (int k = 0; k < d_.K; ++k) integral += weights.dot(d_.J.col(k));
  EXPECT_NEAR(integral, volume(), 1e-12 * volume());
}

TEST_P(Meshes, GeometricFactorsDifferentiatePolynomialsExactly) {
  // u = (x + 2y - z)^N: d/dx = N (x + 2y - z)^(N-1), via the chain rule through rx ... tz.
  const Element& e = d_.element;
  const int N = e.N;
  Eigen::ArrayXXd w = d_.x.array() + 2 * d_.y.array();
  if (d_.dim == 3) w -= d_.z.array();
  const Eigen::MatrixXd u = w.pow(N).matrix();
  const Eigen::ArrayXXd du = N * w.pow(N - 1);
  const Eigen::ArrayXXd ur = (e.Dr * u).array(), us = (e.Ds * u).array();
  Eigen::ArrayXXd ux = d_.rx.array() * ur + d_.sx.array() * us;
  Eigen::ArrayXXd uy = d_.ry.array() * ur + d_.sy.array() * us;
  Eigen::ArrayXXd uz = Eigen::ArrayXXd::Zero(u.rows(), u.cols());
  if (d_.dim == 3) {
    const Eigen::ArrayXXd ut = (e.Dt * u).array();
    ux += d_.tx.array() * ut;
    uy += d_.ty.array() * ut;
    uz = d_.rz.array() * ur + d_.sz.array() * us + d_.tz.array() * ut;
  }
  const double scale = du.abs().maxCoeff();
  EXPECT_LT((ux - du).abs().maxCoeff(), 1e-10 * scale);
  EXPECT_LT((uy - 2 * du).abs().maxCoeff(), 1e-10 * scale);
  if (d_.dim == 3) {
    EXPECT_LT((uz + du).abs().maxCoeff(), 1e-10 * scale);
  }
}

TEST_P(Meshes, NormalsAreUnitAndOutward) {
  const Element& e = d_.element;
  for (int k = 0; k < d_.K; ++k) {
    const Eigen::Vector3d centroid(d_.x.col(k).mean(), d_.y.col(k).mean(), d_.dim == 3 ? d_.z.col(k).mean() : 0.0);
    for (int m = 0; m < e.Nfaces * e.Nfp; ++m) {
      const Eigen::Vector3d n(d_.nx(m, k), d_.ny(m, k), d_.dim == 3 ? d_.nz(m, k) : 0.0);
      EXPECT_NEAR(n.norm(), 1.0, 1e-14);
      EXPECT_GT(n.dot(point(d_, d_.vmapM(m, k)) - centroid), 0.0) << "element " << k << " face node " << m;
      EXPECT_GT(d_.sJ(m, k), 0.0);
      EXPECT_DOUBLE_EQ(d_.Fscale(m, k), d_.sJ(m, k) / d_.J.data()[d_.vmapM(m, k)]);
    }
  }
}

TEST_P(Meshes, NormalsIntegrateToZeroOverEveryClosedSurface) {
  // The boundary of each element, and the boundary of the whole domain, are closed.
  const Element& e = d_.element;
  const Eigen::VectorXd w = face_weights(e);
  Eigen::Vector3d domain = Eigen::Vector3d::Zero();
  double boundary_area = 0.0;
  for (int k = 0; k < d_.K; ++k) {
    Eigen::Vector3d element = Eigen::Vector3d::Zero();
    for (int m = 0; m < e.Nfaces * e.Nfp; ++m) {
      const Eigen::Vector3d n(d_.nx(m, k), d_.ny(m, k), d_.dim == 3 ? d_.nz(m, k) : 0.0);
      element += w(m) * d_.sJ(m, k) * n;
    }
    EXPECT_LT(element.norm(), 1e-13 * extent()) << "element " << k;
  }
  for (int m : d_.mapB) {
    const Eigen::Index row = m % (e.Nfaces * e.Nfp);
    const Eigen::Vector3d n(d_.nx.data()[m], d_.ny.data()[m], d_.dim == 3 ? d_.nz.data()[m] : 0.0);
    domain += w(row) * d_.sJ.data()[m] * n;
    boundary_area += w(row) * d_.sJ.data()[m];
  }
  EXPECT_LT(domain.norm(), 1e-12 * extent());
  // The area (perimeter) of the non-periodic boundary, from the box's sides.
  const Case& c = GetParam();
  double expected = 0.0;
  if (c.dim == 2) expected = 2 * c.size[1] * (c.periodic ? 0 : 1) + 2 * c.size[0];
  else expected = 2 * c.size[1] * c.size[2] * (c.periodic ? 0 : 1) + 2 * c.size[0] * c.size[2] + 2 * c.size[0] * c.size[1];
  EXPECT_NEAR(boundary_area, expected, 1e-12 * expected);
}

TEST_P(Meshes, ExteriorNodesSitAtTheSameCoordinates) {
  const Case& c = GetParam();
  const Element& e = d_.element;
  int periodic_nodes = 0;
  for (Eigen::Index m = 0; m < d_.vmapM.size(); ++m) {
    Eigen::Vector3d here = point(d_, d_.vmapM.data()[m]);
    const Eigen::Vector3d there = point(d_, d_.vmapP.data()[m]);
    if (c.periodic && std::abs(there.x() - here.x()) > 0.5 * c.size[0]) {
      here.x() += there.x() > here.x() ? c.size[0] : -c.size[0];
      ++periodic_nodes;
    }
    EXPECT_LT((here - there).norm(), 1e-12 * extent()) << "face node " << m;
    EXPECT_EQ(d_.vmapP.data()[m], d_.vmapM.data()[d_.mapP.data()[m]]);
  }
  // xmin and xmax faces, each of their nodes: n^(dim-1) boxes * (dim-1)! faces * Nfp * 2 sides.
  const int faces_per_side = c.dim == 2 ? c.n : 2 * c.n * c.n;
  EXPECT_EQ(periodic_nodes, c.periodic ? 2 * faces_per_side * e.Nfp : 0);
}

TEST_P(Meshes, ConnectivityIsSymmetric) {
  const Element& e = d_.element;
  for (Eigen::Index m = 0; m < d_.mapP.size(); ++m) {
    const int p = d_.mapP.data()[m];
    ASSERT_GE(p, 0);
    ASSERT_LT(p, d_.mapP.size());
    EXPECT_EQ(d_.mapP.data()[p], m);
    const bool boundary = p == m;
    EXPECT_EQ(boundary, d_.vmapP.data()[m] == d_.vmapM.data()[m]);
    if (!boundary) {  // the two sides of a face see opposite normals and equal sJ
      EXPECT_NEAR(d_.nx.data()[m], -d_.nx.data()[p], 1e-13);
      EXPECT_NEAR(d_.ny.data()[m], -d_.ny.data()[p], 1e-13);
      if (d_.dim == 3) {
        EXPECT_NEAR(d_.nz.data()[m], -d_.nz.data()[p], 1e-13);
      }
      EXPECT_NEAR(d_.sJ.data()[m], d_.sJ.data()[p], 1e-13 * d_.sJ.data()[m]);
    }
  }
  (void)e;
}

TEST_P(Meshes, BoundaryNodesAreGroupedByPhysicalName) {
  const Case& c = GetParam();
  const std::vector<std::string> names =
      c.dim == 2 ? std::vector<std::string>{"xmin", "xmax", "ymin", "ymax"}
                 : std::vector<std::string>{"xmin", "xmax", "ymin", "ymax", "zmin", "zmax"};
  ASSERT_EQ(d_.boundaries.size(), names.size());
  std::vector<int> all;
  for (std::size_t g = 0; g < names.size(); ++g) {
    const BoundaryNodes& b = d_.boundary(names[g]);
    EXPECT_EQ(b.name, names[g]);
    EXPECT_EQ(&b, &d_.boundaries[g]);
    const int axis = static_cast<int>(g / 2);
    const double plane = c.origin[static_cast<std::size_t>(axis)] + (g % 2 == 1 ? c.size[static_cast<std::size_t>(axis)] : 0.0);
    const bool periodic_group = c.periodic && axis == 0;
    const int faces_per_side = c.dim == 2 ? c.n : 2 * c.n * c.n;
    EXPECT_EQ(b.faces.size(), periodic_group ? 0u : static_cast<std::size_t>(faces_per_side)) << names[g];
    ASSERT_EQ(b.mapB.size(), b.faces.size() * static_cast<std::size_t>(d_.element.Nfp));
    EXPECT_TRUE(std::is_sorted(b.mapB.begin(), b.mapB.end()));
    for (std::size_t i = 0; i < b.mapB.size(); ++i) {
      EXPECT_EQ(b.vmapB[i], d_.vmapM.data()[b.mapB[i]]);
      EXPECT_NEAR(point(d_, b.vmapB[i])(axis), plane, 1e-12 * extent()) << names[g];
    }
    all.insert(all.end(), b.mapB.begin(), b.mapB.end());
  }
  std::sort(all.begin(), all.end());
  EXPECT_EQ(all, d_.mapB);
  try {
    (void)d_.boundary("inflow");
    ADD_FAILURE();
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("xmin, xmax, ymin, ymax"), std::string::npos) << error.what();
  }
}

INSTANTIATE_TEST_SUITE_P(
    Boxes, Meshes,
    ::testing::Values(Case{"square_2_triangles_N1", 2, 1, 1, false, {0, 0, 0}, {1, 1, 1}},
                      Case{"square_8_triangles_N4", 2, 2, 4, false, {0, 0, 0}, {1, 1, 1}},
                      Case{"rectangle_offset_N7", 2, 3, 7, false, {-3, 100, 0}, {2, 0.5, 1}},
                      Case{"square_periodic_N5", 2, 3, 5, true, {0, 0, 0}, {1, 1, 1}},
                      Case{"cube_6_tets_N1", 3, 1, 1, false, {0, 0, 0}, {1, 1, 1}},
                      Case{"cube_6_tets_N3", 3, 1, 3, false, {0, 0, 0}, {1, 1, 1}},
                      Case{"box_48_tets_N5", 3, 2, 5, false, {1, -2, 10}, {2, 1, 0.5}},
                      Case{"cube_periodic_N4", 3, 2, 4, true, {0, 0, 0}, {1, 1, 1}}),
    [](const ::testing::TestParamInfo<Case>& param) { return std::string(param.param.name); });

TEST(Discretization, ANegativelyOrientedElementIsNamed) {
  mesh::Mesh m = mesh::build_mesh(box_mesh(2, 1));
  std::swap(m.EToV[1][1], m.EToV[1][2]);
  try {
    (void)discretize(m, 2);
    ADD_FAILURE();
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("element 1 has volume Jacobian J = -"), std::string::npos) << error.what();
  }
}

TEST(Discretization, NonConformingFacesAreNamed) {
  // Element 1 gets its own copy of the shared vertices, one of them moved: EToE still says the
  // faces touch, the coordinates say they do not.
  mesh::Mesh m = mesh::build_mesh(box_mesh(2, 1));
  const int shared = m.EToV[0][0];
  m.vertices.push_back(m.vertices[static_cast<std::size_t>(shared)]);
  m.vertices.back()[0] += 1e-3;
  m.vertices.back()[1] += 1e-3;
  for (int& v : m.EToV[1]) {
    if (v == shared) v = m.num_vertices() - 1;
  }
  try {
    (void)discretize(m, 3);
    ADD_FAILURE();
  } catch (const Error& error) {
    const std::string what = error.what();
    EXPECT_NE(what.find("do not match"), std::string::npos) << what;
    EXPECT_NE(what.find("of element 0"), std::string::npos) << what;
    EXPECT_NE(what.find("of element 1"), std::string::npos) << what;
  }
}

TEST(Discretization, AWrongPeriodicShiftIsNamed) {
  mesh::Mesh m = mesh::build_mesh(test::periodic_in_x(box_mesh(3, 1), 1.0));
  for (auto& p : m.periodic_faces) p.shift[1] += 0.01 * (p.shift[0] > 0 ? 1 : -1);
  try {
    (void)discretize(m, 2);
    ADD_FAILURE();
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("after the periodic shift"), std::string::npos) << error.what();
  }
}

TEST(Discretization, AnUnnamedBoundaryFaceIsNamed) {
  mesh::Mesh m = mesh::build_mesh(box_mesh(2, 1));
  const mesh::BoundaryFace dropped = m.boundary_faces.front();
  m.boundary_faces.erase(m.boundary_faces.begin());
  try {
    (void)discretize(m, 1);
    ADD_FAILURE();
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("face " + std::to_string(dropped.face) + " of element " +
                                             std::to_string(dropped.element) + " is on the boundary but in no named"),
              std::string::npos)
        << error.what();
  }
}

TEST(Discretization, RejectsOrdersOutsideTheRange) {
  const mesh::Mesh m = mesh::build_mesh(box_mesh(2, 1));
  EXPECT_THROW((void)discretize(m, 11), Error);
}

}  // namespace
}  // namespace rtdg::dg
