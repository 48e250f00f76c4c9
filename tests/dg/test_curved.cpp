// Curved elements on the host backend (docs/curved.md): the isoparametric discretization of a
// disk, the curved kernels against the affine ones on nearly straight elements, and the
// acceptance test: TM modes of a circular PEC cavity, whose L2 error converges at rate >= N + 1/2
// on curved meshes while straight-sided meshes stall near 2.
#include "solver_support.hpp"

#include <dg/cubature.hpp>
#include <dg/kernels.hpp>
#include <mesh/geometry_nodes.hpp>
#include <mesh/load.hpp>
#include <rtcg/backend.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>

#include <unistd.h>
#include <numbers>

namespace rtdg::dg {
namespace {

using test::law_file;

rtcg::Backend& host() { return rtcg::backend("host"); }
std::size_t ix(long long i) { return static_cast<std::size_t>(i); }

std::filesystem::path disk_geo() { return std::filesystem::path(RTDG_SOURCE_DIR) / "data/geometries/disk.geo"; }

mesh::Mesh disk(double h, int order) { return mesh::load_mesh(disk_geo(), {{{"h", h}, {"order", order}}, {}}); }

// The area of the discretized domain: J on the affine elements, the cubature on the curved.
double discrete_area(const Discretization& d) {
  const Eigen::VectorXd ones = Eigen::VectorXd::Ones(d.element.Np);
  const double reference = ones.dot(d.element.M * ones);
  std::vector<char> curved(ix(d.K), 0);
  for (int k : d.curved) curved[ix(k)] = 1;
  double area = 0;
  for (int k = 0; k < d.K; ++k)
    if (!curved[ix(k)]) area += d.J(0, k) * reference;
  for (Eigen::Index c = 0; c < d.Jq.cols(); ++c) area += d.wq.dot(d.Jq.col(c));
  return area;
}

TEST(CurvedCubature, ExactForItsDegree) {
  // The integral of r^a s^b over the reference triangle (vertices (-1,-1), (1,-1), (-1,1)) by a
  // fine rule against the n = 2 rule, exact up to degree 5; and the measures.
  for (Shape shape : {Shape::triangle, Shape::tetrahedron}) {
    const Cubature fine = collapsed_cubature(shape, 8);
    const Cubature rule = collapsed_cubature(shape, 2);
    EXPECT_NEAR(rule.weights.sum(), shape == Shape::triangle ? 2.0 : 4.0 / 3.0, 1e-14);
    auto integral = [](const Cubature& c, int a, int b, int e) {
      double sum = 0;
      for (Eigen::Index q = 0; q < c.weights.size(); ++q)
        sum += c.weights(q) * std::pow(c.points(q, 0), a) * std::pow(c.points(q, 1), b) *
               (c.points.cols() == 3 ? std::pow(c.points(q, 2), e) : 1.0);
      return sum;
    };
    EXPECT_NEAR(integral(rule, 3, 2, 0), integral(fine, 3, 2, 0), 1e-14);
    EXPECT_NEAR(integral(rule, 1, 2, shape == Shape::tetrahedron ? 2 : 0),
                integral(fine, 1, 2, shape == Shape::tetrahedron ? 2 : 0), 1e-14);
    // s over the triangle: its area 2 times the centroid's s, -1/3.
    if (shape == Shape::triangle) {
      EXPECT_NEAR(integral(rule, 0, 1, 0), -2.0 / 3.0, 1e-14);
    }
  }
}

TEST(CurvedDiscretization, DiskAreaNormalsAndProjection) {
  if (!mesh::have_gmsh()) GTEST_SKIP() << "built without the Gmsh SDK";
  const mesh::Mesh straight = disk(0.5, 1);
  const Discretization d1 = discretize(straight, 4);
  EXPECT_TRUE(d1.curved.empty());
  const double polygon_error = std::abs(discrete_area(d1) - std::numbers::pi);
  for (int p : {2, 4}) {
    const mesh::Mesh mesh = disk(0.5, p);
    const Discretization d = discretize(mesh, 4);
    ASSERT_FALSE(d.curved.empty());
    ASSERT_LT(d.curved.size(), ix(d.K));  // a mix of affine and curved elements
    const double error = std::abs(discrete_area(d) - std::numbers::pi);
    std::printf("disk h = 0.5, geometry order %d: area error %.2e (straight-sided %.2e)\n", p, error, polygon_error);
    EXPECT_LT(error, polygon_error * (p == 2 ? 1e-1 : 1e-3));
    // The normals of wall faces are radial; sJ > 0 everywhere.
    const BoundaryNodes& wall = d.boundary("wall");
    double worst = 0;
    for (std::size_t b = 0; b < wall.mapB.size(); ++b) {
      const int m = wall.mapB[b];
      const int k = m / (d.element.Nfaces * d.element.Nfp), row = m % (d.element.Nfaces * d.element.Nfp);
      const int i = wall.vmapB[b] % d.element.Np;
      const double r = std::hypot(d.x(i, k), d.y(i, k));
      EXPECT_NEAR(r, 1.0, p == 2 ? 2e-3 : 1e-5);
      worst = std::max(worst, std::hypot(d.nx(row, k) - d.x(i, k) / r, d.ny(row, k) - d.y(i, k) / r));
    }
    EXPECT_LT(worst, p == 2 ? 5e-2 : 5e-4);
    EXPECT_GT(d.sJ.minCoeff(), 0.0);
    // Pq is the L2 projection: Pq Vq = I on polynomials of degree N.
    EXPECT_LT((d.Pq * d.Vq - Eigen::MatrixXd::Identity(d.element.Np, d.element.Np)).cwiseAbs().maxCoeff(), 1e-12);
  }
}

// The curved group's kernels (per-node geometry, weight-adjusted mass matrix) give the affine
// kernels' right-hand side on elements that are curved by 1e-7 of their size: every piece of
// them (volume, faces with boundary conditions, the projection) is checked against the
// straight-sided formulation, in 2D and 3D.
TEST(CurvedKernels, NearlyStraightElementsMatchTheAffineKernels) {
  for (const char* law_name : {"maxwell2d_tm", "maxwell3d"}) {
    const fluxes::Law law = law_file(law_name);
    const int dim = law.dimension;
    const mesh::Mesh affine = mesh::build_mesh(test::box_mesh(dim, 2));
    const mesh::Mesh bent = mesh::build_mesh(test::bent(test::box_mesh(dim, 2), 1e-7));
    for (int N : {2, 3}) {
      const Discretization da = discretize(affine, N);
      const Discretization db = discretize(bent, N);
      ASSERT_EQ(db.curved.size(), ix(db.K)) << law_name;
      SolverSetup setup;
      setup.law = &law;
      setup.parameters = fluxes::resolve_parameters(law, {});
      for (const char* wall : {"xmin", "xmax", "ymin", "ymax", "zmin", "zmax"})
        if (dim == 3 || wall[0] != 'z') setup.boundaries.push_back({wall, "pec", ""});
      Solver sa(host(), da, setup);
      Solver sb(host(), db, setup);
      EXPECT_TRUE(sb.kernels().curved);
      EXPECT_FALSE(sa.kernels().curved);
      const std::vector<double> state = test::random_state(sa.size(), 7);
      sa.set_state(state);
      sb.set_state(state);
      const std::vector<double> ra = sa.rhs(0.0), rb = sb.rhs(0.0);
      const double scale = test::max_abs(ra);
      EXPECT_LT(test::max_difference(ra, rb), 1e-5 * scale) << law_name << " N = " << N;
    }
  }
}

// Plans the curved elements cannot run are refused with the reason, by the one check.
TEST(CurvedKernels, FusedAndBernsteinPlansAreRefused) {
  const fluxes::Law law = law_file("maxwell2d_tm");
  const Element element = make_element(Shape::triangle, 3);
  KernelSpec spec;
  spec.law = &law;
  spec.parameters = fluxes::resolve_parameters(law, {});
  spec.element = &element;
  spec.curved = true;
  EXPECT_EQ(check(spec), "");
  spec.plan = test::fused_plan(Layout::field_major, 2, 1, Operators::global, Derivative::flux);
  EXPECT_NE(check(spec).find("fusion = stage has no curved-element kernels"), std::string::npos) << check(spec);
  spec.plan = Plan{};
  spec.plan.basis = Basis::bernstein;
  EXPECT_NE(check(spec).find("basis = bernstein needs element-wise constant geometry"), std::string::npos) << check(spec);
  // The curved variant is a kernel family of its own in the tuning database.
  spec.plan = Plan{};
  KernelSpec straight = spec;
  straight.curved = false;
  EXPECT_NE(kernel_hash(spec), kernel_hash(straight));
}

// The TM_{m,n} mode of the PEC disk of radius 1 (eps = mu = 1): Ez = J_m(k r) cos(m theta)
// cos(k t), k the n-th zero of J_m; mu H_t = (-dEz/dy, dEz/dx) gives H = (-dE/dy, dE/dx) sin(k t) / k.
// J_m'(x) = m J_m(x) / x - J_{m+1}(x); J_1'(0) = 1/2, J_m'(0) = 0 otherwise.
double bessel_derivative(int m, double x) {
  if (x < 1e-12) return m == 1 ? 0.5 : 0.0;
  return m * std::cyl_bessel_j(m, x) / x - std::cyl_bessel_j(m + 1, x);
}

struct DiskMode {
  int m = 1;
  double k = 0;
  explicit DiskMode(int m_, int n) : m(m_) {
    // Newton on J_m from McMahon's estimate of the n-th zero.
    const double beta = (n + 0.5 * m - 0.25) * std::numbers::pi;
    k = beta - (4.0 * m * m - 1) / (8 * beta);
    for (int it = 0; it < 50; ++it) {
      const double J = std::cyl_bessel_j(m, k);
      const double dJ = bessel_derivative(m, k);
      const double step = J / dJ;
      k -= step;
      if (std::abs(step) < 1e-15 * k) break;
    }
  }
  // [Hx, Hy, Ez] at (x, y, t).
  std::array<double, 3> at(double x, double y, double t) const {
    const double r = std::hypot(x, y), theta = std::atan2(y, x);
    const double J = std::cyl_bessel_j(m, k * r);
    const double dJ = k * bessel_derivative(m, k * r);
    // d/dr and (1/r) d/dtheta of E; J_m(k r) / r -> k/2 at r = 0 for m = 1 (and 0 for m > 1).
    const double Er = dJ * std::cos(m * theta);
    const double J_over_r = r > 1e-12 ? J / r : (m == 1 ? 0.5 * k : 0.0);
    const double Et = -m * J_over_r * std::sin(m * theta);
    const double Ex = std::cos(theta) * Er - std::sin(theta) * Et;
    const double Ey = std::sin(theta) * Er + std::cos(theta) * Et;
    return {-Ey * std::sin(k * t) / k, Ex * std::sin(k * t) / k, J * std::cos(m * theta) * std::cos(k * t)};
  }
};

// L2 error of the disk cavity's TM_{1,1} mode after t_final on the mesh of size h, geometry
// order p, solution order N; `h_eff` = sqrt(area / K), the measured element size.
double cavity_error(double h, int p, int N, double t_final, double& h_eff) {
  const fluxes::Law law = law_file("maxwell2d_tm");
  const mesh::Mesh mesh = disk(h, p);
  const Discretization d = discretize(mesh, N);
  h_eff = std::sqrt(std::numbers::pi / d.K);
  SolverSetup setup;
  setup.law = &law;
  setup.parameters = fluxes::resolve_parameters(law, {});
  setup.boundaries.push_back({"wall", "pec", ""});
  Solver solver(host(), d, setup);
  const DiskMode mode(1, 1);
  auto exact = [&](double t) {
    const std::size_t Np = ix(d.element.Np), K = ix(d.K);
    std::vector<double> values(3 * K * Np);
    for (std::size_t k = 0; k < K; ++k)
      for (std::size_t i = 0; i < Np; ++i) {
        const auto u = mode.at(d.x(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(k)),
                               d.y(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(k)), t);
        for (std::size_t c = 0; c < 3; ++c) values[(c * K + k) * Np + i] = u[c];
      }
    return values;
  };
  solver.set_state(exact(0.0));
  const double dt = solver.stable_dt(0.5);
  const int steps = static_cast<int>(std::ceil(t_final / dt - 1e-9));
  const double step = t_final / steps;
  for (int s = 0; s < steps; ++s) solver.step(s * step, step);
  std::vector<double> q = solver.state();
  const std::vector<double> e = exact(t_final);
  for (std::size_t i = 0; i < q.size(); ++i) q[i] -= e[i];
  return solver.l2_norm(q);
}

TEST(CurvedCavity, BesselModeOfTheDisk) {
  // The first zero of J_1, against its tabulated value (Abramowitz & Stegun table 9.5).
  EXPECT_NEAR(DiskMode(1, 1).k, 3.8317059702075123, 1e-13);
  EXPECT_NEAR(DiskMode(0, 1).k, 2.4048255576957728, 1e-13);
  EXPECT_NEAR(DiskMode(2, 1).k, 5.1356223018406826, 1e-13);
  // The mode satisfies the PEC condition Ez = 0 on the circle.
  const DiskMode mode(1, 1);
  EXPECT_NEAR(mode.at(std::cos(0.3), std::sin(0.3), 0.0)[2], 0.0, 1e-14);
}

struct Rate {
  int N;
  double h_coarse, h_fine;
};

class CurvedCavityConvergence : public ::testing::TestWithParam<Rate> {};

TEST_P(CurvedCavityConvergence, RateIsAtLeastNPlusOneHalf) {
  if (!mesh::have_gmsh()) GTEST_SKIP() << "built without the Gmsh SDK";
  const Rate c = GetParam();
  const double t_final = 0.3;
  double h0 = 0, h1 = 0;
  const double e0 = cavity_error(c.h_coarse, c.N, c.N, t_final, h0);
  const double e1 = cavity_error(c.h_fine, c.N, c.N, t_final, h1);
  const double rate = std::log(e0 / e1) / std::log(h0 / h1);
  std::printf("curved disk N = %d: error %.3e (h %.3f) %.3e (h %.3f), rate %.2f\n", c.N, e0, h0, e1, h1, rate);
  EXPECT_GE(rate, c.N + 0.5) << "errors " << e0 << ", " << e1;
}

INSTANTIATE_TEST_SUITE_P(Disk, CurvedCavityConvergence,
                         ::testing::Values(Rate{2, 0.4, 0.2}, Rate{3, 0.4, 0.2}, Rate{4, 0.5, 0.25}, Rate{5, 0.5, 0.25}),
                         [](const auto& test) { return "N" + std::to_string(test.param.N); });

// The TE_{1,0,1} mode of the PEC ball of radius 1 (eps = mu = 1): E = f(r) (-y, x, 0) cos(k t) with
// f = j_1(k r) / r, k the first zero of j_1 (tan k = k), and H = -curl E_spatial sin(k t) / k,
// curl (f(r) z x X) = f'(r) (r z - z X / r) + 2 f z.
struct BallMode {
  double k = 4.5;
  BallMode() {
    for (int it = 0; it < 50; ++it) {  // Newton on j_1, j_1' = j_0 - 2 j_1 / x
      const double j = std::sph_bessel(1, k);
      const double step = j / (std::sph_bessel(0, k) - 2 * j / k);
      k -= step;
      if (std::abs(step) < 1e-15 * k) break;
    }
  }
  // [E.x, E.y, E.z, H.x, H.y, H.z]
  std::array<double, 6> at(double x, double y, double z, double t) const {
    const double r = std::sqrt(x * x + y * y + z * z);
    double f = k / 3, df = 0;
    if (r > 1e-8) {
      const double j = std::sph_bessel(1, k * r);
      const double dj = std::sph_bessel(0, k * r) - 2 * j / (k * r);
      f = j / r;
      df = (k * dj * r - j) / (r * r);
    }
    const double c = std::cos(k * t), s = -std::sin(k * t) / k;
    const double zr = r > 1e-8 ? z / r : 0.0;
    const std::array<double, 3> curl{-df * zr * x, -df * zr * y, df * r - df * zr * z + 2 * f};
    return {-f * y * c, f * x * c, 0.0, curl[0] * s, curl[1] * s, curl[2] * s};
  }
};

mesh::Mesh ball(double h, int order) {
  const auto file = std::filesystem::temp_directory_path() /
                    ("rtdg_curved_ball_" + std::to_string(::getpid()) + "_" + std::to_string(order) + ".geo");
  {
    std::ofstream out(file);
    out << "SetFactory(\"OpenCASCADE\");\nSphere(1) = {0, 0, 0, 1};\nPhysical Surface(\"wall\") = {1};\n"
           "Physical Volume(\"domain\") = {1};\nMesh.MeshSizeMin = " << h << "; Mesh.MeshSizeMax = " << h
        << ";\nMesh.ElementOrder = " << order << ";\nMesh.HighOrderOptimize = 2;\n";
  }
  mesh::Mesh mesh = mesh::load_mesh(file);
  std::filesystem::remove(file);
  return mesh;
}

double ball_error(double h, int p, int N, double t_final, double& h_eff) {
  const fluxes::Law law = law_file("maxwell3d");
  const mesh::Mesh mesh = ball(h, p);
  const Discretization d = discretize(mesh, N);
  h_eff = std::cbrt(4 * std::numbers::pi / 3 / d.K);
  SolverSetup setup;
  setup.law = &law;
  setup.parameters = fluxes::resolve_parameters(law, {});
  setup.boundaries.push_back({"wall", "pec", ""});
  Solver solver(host(), d, setup);
  const BallMode mode;
  auto exact = [&](double t) {
    const std::size_t Np = ix(d.element.Np), K = ix(d.K);
    std::vector<double> values(6 * K * Np);
    for (std::size_t k = 0; k < K; ++k)
      for (std::size_t i = 0; i < Np; ++i) {
        const auto e = static_cast<Eigen::Index>(k), n = static_cast<Eigen::Index>(i);
        const auto u = mode.at(d.x(n, e), d.y(n, e), d.z(n, e), t);
        for (std::size_t c = 0; c < 6; ++c) values[(c * K + k) * Np + i] = u[c];
      }
    return values;
  };
  solver.set_state(exact(0.0));
  const double dt = solver.stable_dt(0.5);
  const int steps = static_cast<int>(std::ceil(t_final / dt - 1e-9));
  const double step = t_final / steps;
  for (int s = 0; s < steps; ++s) solver.step(s * step, step);
  std::vector<double> q = solver.state();
  const std::vector<double> e = exact(t_final);
  for (std::size_t i = 0; i < q.size(); ++i) q[i] -= e[i];
  return solver.l2_norm(q);
}

// 3D: the ball's TE_{1,0,1} mode at order 3 on the same mesh size with straight-sided and curved
// (geometry order 3) tetrahedra. Measured: 4.08e-2 straight, 5.30e-3 curved (h = 0.252).
TEST(CurvedCavity, BallModeInThreeDimensions) {
  if (!mesh::have_gmsh()) GTEST_SKIP() << "built without the Gmsh SDK";
  EXPECT_NEAR(BallMode().k, 4.4934094579090642, 1e-13);  // the first zero of j_1 (tan k = k)
  // The mode is tangential on the sphere: E . x = 0, and E vanishes there (j_1(k) = 0).
  const auto u = BallMode().at(0.6, 0.0, 0.8, 0.0);
  EXPECT_NEAR(u[0] * 0.6 + u[2] * 0.8, 0.0, 1e-14);
  EXPECT_NEAR(std::hypot(u[0], u[1], u[2]), 0.0, 1e-14);
  double h_straight = 0, h_curved = 0;
  const double straight = ball_error(0.45, 1, 3, 0.3, h_straight);
  const double curved = ball_error(0.45, 3, 3, 0.3, h_curved);
  std::printf("ball N = 3, h %.3f: error straight-sided %.3e, curved %.3e\n", h_curved, straight, curved);
  EXPECT_LT(curved, straight / 4);
}

TEST(CurvedCavity, StraightSidedMeshStallsNearTwo) {
  if (!mesh::have_gmsh()) GTEST_SKIP() << "built without the Gmsh SDK";
  double h0 = 0, h1 = 0;
  const double e0 = cavity_error(0.4, 1, 4, 0.3, h0);
  const double e1 = cavity_error(0.2, 1, 4, 0.3, h1);
  const double rate = std::log(e0 / e1) / std::log(h0 / h1);
  double hc = 0;
  const double curved = cavity_error(0.2, 4, 4, 0.3, hc);
  std::printf("straight-sided disk N = 4: error %.3e (h %.3f) %.3e (h %.3f), rate %.2f; curved %.3e\n", e0, h0, e1, h1,
              rate, curved);
  EXPECT_LT(rate, 3.0);
  EXPECT_GT(rate, 1.0);
  EXPECT_LT(curved, e1 / 100);  // the same mesh with curved elements: far below the polygon's error
}

}  // namespace
}  // namespace rtdg::dg
