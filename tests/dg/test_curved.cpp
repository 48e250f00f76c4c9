// Curved elements on the host backend (docs/curved.md): the isoparametric discretization of a
// disk, the curved kernels against the affine ones on nearly straight elements, and the
// acceptance tests: TM modes of a circular PEC cavity, whose L2 error converges at rate >= N + 1/2
// on curved meshes while straight-sided meshes stall near 2; the TE_{1,0,1} mode of the PEC ball
// (its octant); a dielectric-loaded disk whose material interface is curved on both sides; and
// the refusal of nearly folded elements, on which the scheme grows.
#include "solver_support.hpp"

#include <dg/cubature.hpp>
#include <dg/kernels.hpp>
#include <mesh/error.hpp>
#include <mesh/geometry_nodes.hpp>
#include <mesh/load.hpp>
#include <rtcg/backend.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <algorithm>
#include <chrono>
#include <fstream>
#include <ostream>
#include <utility>

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

// Every plan family takes a mesh with curved elements (the plan runs the affine group, the
// curved group its own kernels; test_curved_plans.cpp checks the results), by the one check.
TEST(CurvedKernels, EveryPlanFamilyIsAccepted) {
  const fluxes::Law law = law_file("maxwell2d_tm");
  const Element element = make_element(Shape::triangle, 3);
  KernelSpec spec;
  spec.law = &law;
  spec.parameters = fluxes::resolve_parameters(law, {});
  spec.element = &element;
  spec.curved = true;
  EXPECT_EQ(check(spec), "");
  spec.plan = test::fused_plan(Layout::field_major, 2, 1, Operators::global, Derivative::flux);
  EXPECT_EQ(check(spec), "");
  spec.plan.basis = Basis::bernstein;
  EXPECT_EQ(check(spec), "");
  spec.plan = Plan{};
  spec.plan.basis = Basis::bernstein;
  EXPECT_EQ(check(spec), "");
  // The program holds the curved group's kernels with every family, and the fused one its updates.
  spec.plan = test::fused_plan(Layout::field_major, 2, 1, Operators::global, Derivative::flux);
  const GeneratedKernels fused = generate_kernels(spec);
  EXPECT_TRUE(fused.curved);
  for (const char* name : {"rtdg_stage_lserk", "rtdg_surface_curved", "rtdg_wadg", "rtdg_volume_curved",
                           "rtdg_curved_keep", "rtdg_curved_lserk", "rtdg_curved_ssp"})
    EXPECT_NE(fused.source.find(name), std::string::npos) << name;
  EXPECT_EQ(fused.source.find("rtdg_curved_coefficients"), std::string::npos);
  spec.plan.basis = Basis::bernstein;
  EXPECT_NE(generate_kernels(spec).source.find("rtdg_curved_coefficients"), std::string::npos);
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

// Starts `solver` at the 2D TM mode `mode` (mode.at(x, y, t) -> {Hx, Hy, Ez}), steps it to
// t_final at cfl 0.5 and returns {L2 norm of the error, L2 norm of the exact state at t_final}.
template <class Mode>
std::pair<double, double> mode_error(Solver& solver, const Discretization& d, const Mode& mode, double t_final) {
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
  return {solver.l2_norm(q), solver.l2_norm(e)};
}

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
  return mode_error(solver, d, mode, t_final).first;
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

// The TM_{m} mode of the PEC disk of radius 1 loaded with a concentric dielectric disk of
// radius a = 1/2 and eps = n^2 (mu = 1): Ez = R(r) cos(m theta) cos(w t) with R = A J_m(n w r)
// inside and R = Y_m(w) J_m(w r) - J_m(w) Y_m(w r) outside (zero at r = 1). Ez and
// dEz/dr (H_theta) are continuous at r = a, so w is a root of
// n J_m'(n w a) R_out(a) - J_m(n w a) R_out'(a) and A = R_out(a) / J_m(n w a).
// H = (-dEz/dy, dEz/dx) sin(w t) / w as for the empty disk.
struct LoadedDiskMode {
  int m = 1;
  double n = 2, a = 0.5, w = 0, A = 0;
  static double J(int m, double x) { return std::cyl_bessel_j(m, x); }
  static double Y(int m, double x) { return std::cyl_neumann(m, x); }
  static double dJ(int m, double x) { return m == 0 ? -J(1, x) : 0.5 * (J(m - 1, x) - J(m + 1, x)); }
  static double dY(int m, double x) { return m == 0 ? -Y(1, x) : 0.5 * (Y(m - 1, x) - Y(m + 1, x)); }
  double outer(double w_, double r) const { return Y(m, w_) * J(m, w_ * r) - J(m, w_) * Y(m, w_ * r); }
  double outer_dr(double w_, double r) const { return w_ * (Y(m, w_) * dJ(m, w_ * r) - J(m, w_) * dY(m, w_ * r)); }
  double determinant(double w_) const {
    return n * w_ * dJ(m, n * w_ * a) * outer(w_, a) - J(m, n * w_ * a) * outer_dr(w_, a);
  }
  LoadedDiskMode(int m_, double n_, double a_) : m(m_), n(n_), a(a_) {
    // The first sign change on a fine scan, then bisection to rounding.
    double lo = 0.5, hi = 0.5;
    for (double x = 0.5; x < 20; x += 1e-3)
      if (determinant(x) * determinant(x + 1e-3) < 0) {
        lo = x;
        hi = x + 1e-3;
        break;
      }
    for (int it = 0; it < 200 && hi - lo > 1e-15 * hi; ++it) {
      const double mid = 0.5 * (lo + hi);
      (determinant(lo) * determinant(mid) <= 0 ? hi : lo) = mid;
    }
    w = 0.5 * (lo + hi);
    A = outer(w, a) / J(m, n * w * a);
  }
  double radial(double r) const { return r < a ? A * J(m, n * w * r) : outer(w, r); }
  double radial_dr(double r) const { return r < a ? A * n * w * dJ(m, n * w * r) : outer_dr(w, r); }
  // [Hx, Hy, Ez] at (x, y, t).
  std::array<double, 3> at(double x, double y, double t) const {
    const double r = std::hypot(x, y), theta = std::atan2(y, x);
    const double R = radial(r), dR = radial_dr(r);
    // (1/r) R -> R'(0) at r = 0 for m = 1.
    const double R_over_r = r > 1e-12 ? R / r : (m == 1 ? A * n * w * 0.5 : 0.0);
    const double Er = dR * std::cos(m * theta), Et = -m * R_over_r * std::sin(m * theta);
    const double Ex = std::cos(theta) * Er - std::sin(theta) * Et;
    const double Ey = std::sin(theta) * Er + std::cos(theta) * Et;
    return {-Ey * std::sin(w * t) / w, Ex * std::sin(w * t) / w, R * std::cos(m * theta) * std::cos(w * t)};
  }
};

// The loaded disk meshed with both circles conforming (regions "dielectric" r < a and "air").
mesh::Mesh loaded_disk(double h, int order) {
  const auto file = std::filesystem::temp_directory_path() /
                    ("rtdg_curved_loaded_disk_" + std::to_string(::getpid()) + ".geo");
  {
    std::ofstream out(file);
    out << "SetFactory(\"OpenCASCADE\");\nDisk(1) = {0, 0, 0, 1};\nDisk(2) = {0, 0, 0, 0.5};\n"
           "BooleanFragments{ Surface{1}; Delete; }{ Surface{2}; Delete; }\ne = 1e-6;\n"
           "inner() = Surface In BoundingBox{-0.5 - e, -0.5 - e, -e, 0.5 + e, 0.5 + e, e};\n"
           "all() = Surface \"*\";\nair() = all();\nair() -= inner();\n"
           "circle() = Curve In BoundingBox{-0.5 - e, -0.5 - e, -e, 0.5 + e, 0.5 + e, e};\n"
           "wall() = Boundary{ Surface{all()}; };\nwall() -= circle();\n"
           "Physical Curve(\"wall\") = wall();\nPhysical Surface(\"dielectric\") = inner();\n"
           "Physical Surface(\"air\") = air();\nMesh.MeshSizeMin = " << h << "; Mesh.MeshSizeMax = " << h
        << ";\nMesh.ElementOrder = " << order << ";\n";
  }
  struct Remove {
    std::filesystem::path file;
    ~Remove() { std::filesystem::remove(file); }
  } remove{file};
  return mesh::load_mesh(file);
}

// L2 error of the loaded disk's TM_{1} mode (eps = 4 inside) after t_final at order N, relative
// to the mode's L2 norm there.
double loaded_disk_error(double h, int p, int N, double t_final, double& h_eff) {
  const fluxes::Law law = law_file("maxwell2d_tm");
  const mesh::Mesh mesh = loaded_disk(h, p);
  const Discretization d = discretize(mesh, N);
  h_eff = std::sqrt(std::numbers::pi / d.K);
  SolverSetup setup;
  setup.law = &law;
  setup.parameters = fluxes::resolve_parameters(law, {});
  setup.element_parameters.assign(law.parameters.size(), {});
  std::size_t eps = law.parameters.size();
  for (std::size_t i = 0; i < law.parameters.size(); ++i)
    if (law.parameters[i].name == "eps") eps = i;
  EXPECT_LT(eps, law.parameters.size());
  const auto dielectric = static_cast<int>(std::find(mesh.region_names.begin(), mesh.region_names.end(), "dielectric") -
                                           mesh.region_names.begin());
  for (int k = 0; k < d.K; ++k) setup.element_parameters[eps].push_back(mesh.element_region[ix(k)] == dielectric ? 4.0 : 1.0);
  setup.boundaries.push_back({"wall", "pec", ""});
  Solver solver(host(), d, setup);
  const LoadedDiskMode mode(1, 2.0, 0.5);
  const auto [error, norm] = mode_error(solver, d, mode, t_final);
  return error / norm;
}

// The mode itself: for n = 1 the root is the empty disk's (the first zero of J_1); for n = 2 Ez
// and dEz/dr are continuous at the interface and Ez vanishes on the wall.
TEST(CurvedInterface, LoadedDiskMode) {
  EXPECT_NEAR(LoadedDiskMode(1, 1.0, 0.5).w, 3.8317059702075123, 1e-12);
  const LoadedDiskMode mode(1, 2.0, 0.5);
  std::printf("loaded disk TM_1 (eps = 4 for r < 1/2): w = %.15f\n", mode.w);
  EXPECT_NEAR(mode.radial(0.5 - 1e-13), mode.radial(0.5 + 1e-13), 1e-10);
  EXPECT_NEAR(mode.radial_dr(0.5 - 1e-13), mode.radial_dr(0.5 + 1e-13), 1e-9);
  EXPECT_NEAR(mode.radial(1.0), 0.0, 1e-14);
  EXPECT_GT(std::abs(mode.radial(0.3)), 0.1);
}

// The material interface curved on both sides (and the wall): at order 3 and 4 the curved
// elements are far closer to the mode than the straight-sided ones of the same mesh (whose
// polygons of both circles stall them near rate 2), within a stated bound of the exact mode, and
// at order 3 converge at rate >= N + 1/2. Measured (relative L2 error at t = 0.5, h = 0.062):
// N = 3, curved 3.07e-5, straight-sided 4.50e-3, rate 3.67 from h = 0.123; N = 4, curved 1.83e-6,
// straight-sided 4.52e-3 (rate 4.49 from h = 0.123, 4.09 from h = 0.176: below N + 1/2 on these
// meshes, docs/curved.md).
TEST(CurvedInterface, LoadedDiskConvergesWhereStraightSidedStalls) {
  if (!mesh::have_gmsh()) GTEST_SKIP() << "built without the Gmsh SDK";
  double h0 = 0, h1 = 0, hs = 0;
  const double coarse = loaded_disk_error(0.2, 3, 3, 0.5, h0);
  const double fine = loaded_disk_error(0.1, 3, 3, 0.5, h1);
  const double straight = loaded_disk_error(0.1, 1, 3, 0.5, hs);
  const double rate = std::log(coarse / fine) / std::log(h0 / h1);
  std::printf("loaded disk N = 3: curved error %.3e (h %.3f) %.3e (h %.3f), rate %.2f; straight-sided %.3e\n", coarse, h0,
              fine, h1, rate, straight);
  EXPECT_GE(rate, 3.5);
  EXPECT_LT(fine, 5e-5);
  EXPECT_LT(fine, straight / 50);
}

TEST(CurvedInterface, LoadedDiskAtOrder4) {
  if (!mesh::have_gmsh()) GTEST_SKIP() << "built without the Gmsh SDK";
  double h = 0;
  const double curved = loaded_disk_error(0.1, 4, 4, 0.5, h);
  const double straight = loaded_disk_error(0.1, 1, 4, 0.5, h);
  std::printf("loaded disk N = 4, h %.3f: curved error %.3e, straight-sided %.3e\n", h, curved, straight);
  EXPECT_LT(curved, 3e-6);
  EXPECT_LT(curved, straight / 500);
}

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

// Gmsh meshes of the ball: the whole ball (boundary "wall"), or its octant x, y, z >= 0, where the
// TE_{1,0,1} mode's symmetry gives the planes x = 0 and y = 0 as PEC (E is normal to them) and
// z = 0 as PMC (H is normal to it): the same curved wall at an eighth of the elements.
struct BallMesh {
  double h = 0.5;
  int order = 1;                  // geometry order
  bool octant = false;
  int optimize = 2;               // Mesh.HighOrderOptimize
};

mesh::Mesh ball(const BallMesh& b) {
  const auto file = std::filesystem::temp_directory_path() /
                    ("rtdg_curved_ball_" + std::to_string(::getpid()) + "_" + std::to_string(b.order) + ".geo");
  {
    std::ofstream out(file);
    out << "SetFactory(\"OpenCASCADE\");\n";
    if (b.octant) {
      out << "Sphere(1) = {0, 0, 0, 1, 0, Pi/2, Pi/2};\ne = 1e-6;\n"
             "sx() = Surface In BoundingBox{-e, -e, -e, e, 1 + e, 1 + e};\n"
             "sy() = Surface In BoundingBox{-e, -e, -e, 1 + e, e, 1 + e};\n"
             "sz() = Surface In BoundingBox{-e, -e, -e, 1 + e, 1 + e, e};\n"
             "wall() = Boundary{Volume{1};};\nwall() -= {sx(), sy(), sz()};\n"
             "Physical Surface(\"wall\") = {wall()};\nPhysical Surface(\"mirror_pec\") = {sx(), sy()};\n"
             "Physical Surface(\"mirror_pmc\") = {sz()};\n";
    } else {
      out << "Sphere(1) = {0, 0, 0, 1};\nPhysical Surface(\"wall\") = {1};\n";
    }
    out << "Physical Volume(\"domain\") = {1};\nMesh.MeshSizeMin = " << b.h << "; Mesh.MeshSizeMax = " << b.h
        << ";\nMesh.ElementOrder = " << b.order << ";\nMesh.HighOrderOptimize = " << b.optimize << ";\n";
  }
  struct Remove {
    std::filesystem::path file;
    ~Remove() { std::filesystem::remove(file); }
  } remove{file};
  return mesh::load_mesh(file);
}

// The solver of the ball's mode on `mesh` at order N, started from the exact mode at t = 0.
struct BallRun {
  fluxes::Law law = law_file("maxwell3d");
  Discretization d;
  std::unique_ptr<Solver> solver;
  BallMode mode;

  BallRun(const mesh::Mesh& mesh, int N, bool octant) : d(discretize(mesh, N)) {
    SolverSetup setup;
    setup.law = &law;
    setup.parameters = fluxes::resolve_parameters(law, {});
    setup.boundaries.push_back({"wall", "pec", ""});
    if (octant) {
      setup.boundaries.push_back({"mirror_pec", "pec", ""});
      setup.boundaries.push_back({"mirror_pmc", "pmc", ""});
    }
    solver = std::make_unique<Solver>(host(), d, setup);
    solver->set_state(exact(0.0));
  }
  std::vector<double> exact(double t) const {
    const std::size_t Np = ix(d.element.Np), K = ix(d.K);
    std::vector<double> values(6 * K * Np);
    for (std::size_t k = 0; k < K; ++k)
      for (std::size_t i = 0; i < Np; ++i) {
        const auto e = static_cast<Eigen::Index>(k), n = static_cast<Eigen::Index>(i);
        const auto u = mode.at(d.x(n, e), d.y(n, e), d.z(n, e), t);
        for (std::size_t c = 0; c < 6; ++c) values[(c * K + k) * Np + i] = u[c];
      }
    return values;
  }
  // Runs to t_final in equal steps of at most cfl times the stable step; the L2 error there.
  double error_at(double t_final, double cfl = 0.5) {
    const double dt = solver->stable_dt(cfl);
    const int steps = static_cast<int>(std::ceil(t_final / dt - 1e-9));
    const double step = t_final / steps;
    for (int s = 0; s < steps; ++s) solver->step(s * step, step);
    std::vector<double> q = solver->state();
    const std::vector<double> e = exact(t_final);
    for (std::size_t i = 0; i < q.size(); ++i) q[i] -= e[i];
    return solver->l2_norm(q);
  }
};

// L2 error of the ball's TE_{1,0,1} mode after t_final; `h_eff` = (volume / K)^(1/3).
double ball_error(const BallMesh& b, int N, double t_final, double& h_eff) {
  const mesh::Mesh mesh = ball(b);
  BallRun run(mesh, N, b.octant);
  h_eff = std::cbrt(4 * std::numbers::pi / 3 / (b.octant ? 8 : 1) / run.d.K);
  return run.error_at(t_final);
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
  const double straight = ball_error({.h = 0.45, .order = 1}, 3, 0.3, h_straight);
  const double curved = ball_error({.h = 0.45, .order = 3}, 3, 0.3, h_curved);
  std::printf("ball N = 3, h %.3f: error straight-sided %.3e, curved %.3e\n", h_curved, straight, curved);
  EXPECT_LT(curved, straight / 4);
}

// The octant of the ball at geometry order N (Gmsh's high-order nodes without optimization:
// only the elements at the wall are curved), two mesh sizes: the L2 error of the mode at t = 0.3
// falls at rate >= N + 1/2. Measured: N = 2, 5.41e-3 (h 0.215) to 5.22e-4 (h 0.097), rate 2.93;
// N = 3, 3.00e-4 (h 0.160) to 7.74e-5 (h 0.111), rate 3.78 (the whole study, N = 2-5:
// benchmarks/results/curved-3d-convergence-host-2026-12-02.log).
struct BallRate {
  int N;
  double h_coarse, h_fine;
};

class CurvedBallConvergence : public ::testing::TestWithParam<BallRate> {};

TEST_P(CurvedBallConvergence, RateIsAtLeastNPlusOneHalf) {
  if (!mesh::have_gmsh()) GTEST_SKIP() << "built without the Gmsh SDK";
  const BallRate c = GetParam();
  double h0 = 0, h1 = 0;
  const double e0 = ball_error({.h = c.h_coarse, .order = c.N, .octant = true, .optimize = 0}, c.N, 0.3, h0);
  const double e1 = ball_error({.h = c.h_fine, .order = c.N, .octant = true, .optimize = 0}, c.N, 0.3, h1);
  const double rate = std::log(e0 / e1) / std::log(h0 / h1);
  std::printf("curved ball octant N = %d: error %.3e (h %.3f) %.3e (h %.3f), rate %.2f\n", c.N, e0, h0, e1, h1, rate);
  EXPECT_GE(rate, c.N + 0.5) << "errors " << e0 << ", " << e1;
}

INSTANTIATE_TEST_SUITE_P(Octant, CurvedBallConvergence, ::testing::Values(BallRate{2, 0.5, 0.19}, BallRate{3, 0.35, 0.22}),
                         [](const auto& test) { return "N" + std::to_string(test.param.N); });

// The convergence study behind the results file (slow): the octant at geometry order N on a
// sequence of Gmsh meshes, the least-squares rate of log(error) against log(h). N = 2, 3 reach
// N + 1/2; N = 4, 5 do not on meshes of this size (about 4.2 and 4.9, docs/curved.md says what
// was ruled out), and the test holds them to the measured rate less a margin.
struct BallStudy {
  int N;
  std::vector<double> h;
  double least_rate;
};

// Named by its order (the default printer would show the vector's heap address in test names).
void PrintTo(const BallStudy& study, std::ostream* out) { *out << "N = " << study.N; }

class CurvedBallStudy : public ::testing::TestWithParam<BallStudy> {};

TEST_P(CurvedBallStudy, LeastSquaresRate) {
  if (!mesh::have_gmsh()) GTEST_SKIP() << "built without the Gmsh SDK";
  const BallStudy c = GetParam();
  std::vector<double> lh, le;
  for (const double h : c.h) {
    double h_eff = 0;
    const auto start = std::chrono::steady_clock::now();
    const double e = ball_error({.h = h, .order = c.N, .octant = true, .optimize = 0}, c.N, 0.3, h_eff);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double pair = lh.empty() ? 0.0 : (le.back() - std::log(e)) / (lh.back() - std::log(h_eff));
    std::printf("ball octant N = %d, geometry order %d: mesh size %.3f, h %.4f, error %.4e, rate to the previous %.2f (%.1f s)\n",
                c.N, c.N, h, h_eff, e, pair, seconds);
    lh.push_back(std::log(h_eff));
    le.push_back(std::log(e));
  }
  const auto n = static_cast<double>(lh.size());
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < lh.size(); ++i) {
    sx += lh[i];
    sy += le[i];
    sxx += lh[i] * lh[i];
    sxy += lh[i] * le[i];
  }
  const double rate = (n * sxy - sx * sy) / (n * sxx - sx * sx);
  std::printf("ball octant N = %d: least-squares rate %.2f (N + 1/2 = %.1f)\n", c.N, rate, c.N + 0.5);
  EXPECT_GE(rate, c.least_rate);
}

INSTANTIATE_TEST_SUITE_P(Octant, CurvedBallStudy,
                         ::testing::Values(BallStudy{2, {0.5, 0.4, 0.3, 0.24, 0.19}, 2.5},
                                           BallStudy{3, {0.35, 0.28, 0.22, 0.18, 0.14}, 3.5},
                                           BallStudy{4, {0.5, 0.4, 0.3, 0.24, 0.19}, 3.9},
                                           BallStudy{5, {0.5, 0.4, 0.3, 0.24}, 4.5}),
                         [](const auto& test) { return "N" + std::to_string(test.param.N); });

// A coarse ball (h = 0.8) at geometry order 2 without Gmsh's optimization has an element whose
// Jacobian falls to 0.07 times its straight element's: positive, but the scheme's semi-discrete
// operator grows on it (as e^(42 t), at any time step), so the mesh is refused as nearly folded.
// With the optimization the same size runs; a mesh whose worst ratio is above the bound keeps
// its energy (the upwind flux only dissipates).
TEST(CurvedStability, NearlyFoldedElementIsRefused) {
  if (!mesh::have_gmsh()) GTEST_SKIP() << "built without the Gmsh SDK";
  try {
    ball({.h = 0.8, .order = 2, .optimize = 0});
    FAIL() << "the nearly folded element was accepted";
  } catch (const mesh::MeshError& error) {
    EXPECT_NE(std::string(error.what()).find("is nearly folded"), std::string::npos) << error.what();
  }
  const mesh::Mesh optimized = ball({.h = 0.8, .order = 2});
  const mesh::Mesh accepted = ball({.h = 0.7, .order = 2, .optimize = 0});
  for (const mesh::Mesh* m : {&optimized, &accepted}) {
    BallRun run(*m, 2, false);
    const double start = run.solver->l2_norm(run.solver->state());
    const double dt = run.solver->stable_dt(0.5);
    const int steps = static_cast<int>(std::ceil(2.0 / dt));
    for (int s = 0; s < steps; ++s) run.solver->step(s * dt, dt);
    const double end = run.solver->l2_norm(run.solver->state());
    std::printf("coarse ball, geometry order 2: K %d, energy norm %.4e at t = 0, %.4e at t = %.2f\n", run.d.K, start, end,
                steps * dt);
    EXPECT_LE(end, start);
  }
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
