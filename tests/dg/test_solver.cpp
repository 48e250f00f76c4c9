// The DG solver on the host backend, against independent references: the PEC cavity's exact
// eigenmodes (h-convergence rates), energy conservation (central flux) and dissipation
// (upwind), and agreement between plans, precisions and integrators.
#include "solver_support.hpp"

#include <dg/error.hpp>
#include <dg/kernels.hpp>
#include <rtcg/backend.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

namespace rtdg::dg {
namespace {

using test::Cavity;

rtcg::Backend& host() { return rtcg::backend("host"); }

// Rate between meshes of n and m elements per side: log(e_n / e_m) / log(m / n).
struct Convergence {
  const char* law;
  int N;
  int n;  // coarse mesh
  int m;  // fine mesh
  double t_final;
};

class CavityConvergence : public ::testing::TestWithParam<Convergence> {};

TEST_P(CavityConvergence, UpwindRateIsAtLeastNPlusOneMinusPointThree) {
  const Convergence c = GetParam();
  double errors[2];
  const int sides[2] = {c.n, c.m};
  for (int level = 0; level < 2; ++level) {
    Cavity cavity(c.law, sides[level], c.N, host());
    cavity.run(c.t_final, 0.5);
    errors[level] = cavity.error(c.t_final);
  }
  const double rate = std::log(errors[0] / errors[1]) / std::log(static_cast<double>(c.m) / c.n);
  std::printf("%s N=%d: error %.3e (n=%d) %.3e (n=%d), rate %.2f\n", c.law, c.N, errors[0], c.n, errors[1], c.m, rate);
  EXPECT_GE(rate, c.N + 1 - 0.3) << "errors " << errors[0] << ", " << errors[1];
}

INSTANTIATE_TEST_SUITE_P(Maxwell2D, CavityConvergence,
                         ::testing::Values(Convergence{"maxwell2d_tm", 1, 4, 8, 0.5}, Convergence{"maxwell2d_tm", 2, 4, 8, 0.5},
                                           Convergence{"maxwell2d_tm", 3, 4, 8, 0.5}, Convergence{"maxwell2d_tm", 4, 2, 4, 0.5},
                                           Convergence{"maxwell2d_tm", 5, 2, 4, 0.5}, Convergence{"maxwell2d_tm", 6, 2, 4, 0.5}),
                         [](const auto& param_info) { return "N" + std::to_string(param_info.param.N); });

INSTANTIATE_TEST_SUITE_P(Maxwell2DTE, CavityConvergence,
                         ::testing::Values(Convergence{"maxwell2d_te", 1, 4, 8, 0.5}, Convergence{"maxwell2d_te", 2, 4, 8, 0.5},
                                           Convergence{"maxwell2d_te", 3, 4, 8, 0.5}, Convergence{"maxwell2d_te", 4, 2, 4, 0.5},
                                           Convergence{"maxwell2d_te", 5, 2, 4, 0.5}, Convergence{"maxwell2d_te", 6, 2, 4, 0.5}),
                         [](const auto& param_info) { return "N" + std::to_string(param_info.param.N); });

INSTANTIATE_TEST_SUITE_P(Maxwell3D, CavityConvergence,
                         ::testing::Values(Convergence{"maxwell3d", 1, 2, 4, 0.2}, Convergence{"maxwell3d", 2, 2, 4, 0.2},
                                           Convergence{"maxwell3d", 3, 2, 4, 0.2}, Convergence{"maxwell3d", 4, 2, 3, 0.1},
                                           Convergence{"maxwell3d", 5, 2, 3, 0.1}, Convergence{"maxwell3d", 6, 2, 3, 0.1}),
                         [](const auto& param_info) { return "N" + std::to_string(param_info.param.N); });

// The semi-discrete energy is conserved by the central flux with PEC walls; LSERK4 damps the
// imaginary-axis spectrum by O((lambda dt)^6) per step, far below 1e-10 per unit time at these
// Courant numbers (at cfl 0.25 the 3D cavity loses 2e-9 per unit time, at 0.1 about 100x less).
TEST(CavityEnergy, CentralFluxConservesEnergy2D) {
  Cavity cavity("maxwell2d_tm", 4, 4, host(), /*alpha=*/0.0);
  cavity.solver->set_state(cavity.solver->exact_values(0.0));
  const double e0 = cavity.solver->l2_norm(cavity.solver->state());
  const double t_final = 1.0;
  cavity.run(t_final, 0.25);
  const double e1 = cavity.solver->l2_norm(cavity.solver->state());
  const double drift = std::abs(e1 * e1 - e0 * e0) / (e0 * e0) / t_final;
  std::printf("central flux 2D: relative energy change per unit time %.3e\n", drift);
  EXPECT_LT(drift, 1e-10);
}

TEST(CavityEnergy, CentralFluxConservesEnergy3D) {
  Cavity cavity("maxwell3d", 2, 3, host(), /*alpha=*/0.0);
  cavity.solver->set_state(cavity.solver->exact_values(0.0));
  const double e0 = cavity.solver->l2_norm(cavity.solver->state());
  const double t_final = 0.25;
  cavity.run(t_final, 0.1);
  const double e1 = cavity.solver->l2_norm(cavity.solver->state());
  const double drift = std::abs(e1 * e1 - e0 * e0) / (e0 * e0) / t_final;
  std::printf("central flux 3D: relative energy change per unit time %.3e\n", drift);
  EXPECT_LT(drift, 1e-10);
}

TEST(CavityEnergy, UpwindEnergyNeverIncreases) {
  for (const char* law : {"maxwell2d_tm", "maxwell2d_te", "maxwell3d"}) {
    Cavity cavity(law, 2, 3, host(), /*alpha=*/1.0);
    double previous = std::numeric_limits<double>::infinity();
    int increases = 0;
    cavity.run(0.5, 0.5, [&](double) {
      const double e = cavity.solver->l2_norm(cavity.solver->state());
      if (e > previous * (1 + 1e-14)) ++increases;
      previous = e;
    });
    EXPECT_EQ(increases, 0) << law;
  }
}

// Different plans lay memory out differently and group elements differently; the arithmetic
// per node is the same, so the results agree to rounding.
TEST(SolverPlans, LayoutsAndBlockingAgree) {
  Plan other;
  other.layout = Layout::element_major;
  other.volume_elements_per_block = 3;
  other.surface_elements_per_block = 1;
  Cavity a("maxwell3d", 2, 3, host());
  Cavity b("maxwell3d", 2, 3, host(), 1.0, fluxes::ScalarType::float64, Integrator::lserk4, other);
  a.run(0.1, 0.5);
  b.run(0.1, 0.5);
  const std::vector<double> qa = a.solver->state(), qb = b.solver->state();
  ASSERT_EQ(qa.size(), qb.size());
  double diff = 0;
  for (std::size_t i = 0; i < qa.size(); ++i) diff = std::max(diff, std::abs(qa[i] - qb[i]));
  EXPECT_LT(diff, 1e-12);
}

TEST(SolverPrecision, FloatTracksDouble) {
  Cavity a("maxwell2d_tm", 4, 3, host());
  Cavity b("maxwell2d_tm", 4, 3, host(), 1.0, fluxes::ScalarType::float32);
  a.run(0.2, 0.5);
  b.run(0.2, 0.5);
  const std::vector<double> qa = a.solver->state(), qb = b.solver->state();
  double diff = 0;
  for (std::size_t i = 0; i < qa.size(); ++i) diff = std::max(diff, std::abs(qa[i] - qb[i]));
  EXPECT_LT(diff, 1e-5);
  EXPECT_GT(diff, 0.0);  // it really ran in float
}

// SSP-RK3 is third order in time: on a fixed mesh, halving dt cuts the difference to a
// reference run (LSERK4 at a tiny step) by about 8.
TEST(SolverIntegrators, SspRk3IsThirdOrderInTime) {
  auto final_state = [](Integrator integrator, double cfl) {
    Cavity cavity("maxwell2d_tm", 2, 3, host(), 1.0, fluxes::ScalarType::float64, integrator);
    cavity.run(0.3, cfl);
    return cavity.solver->state();
  };
  const std::vector<double> reference = final_state(Integrator::lserk4, 0.05);
  auto distance = [&](const std::vector<double>& q) {
    double d = 0;
    for (std::size_t i = 0; i < q.size(); ++i) d = std::max(d, std::abs(q[i] - reference[i]));
    return d;
  };
  const double coarse = distance(final_state(Integrator::ssprk3, 0.4));
  const double fine = distance(final_state(Integrator::ssprk3, 0.2));
  const double rate = std::log2(coarse / fine);
  std::printf("ssprk3 time errors %.3e %.3e, rate %.2f\n", coarse, fine, rate);
  EXPECT_GT(rate, 2.6);
  EXPECT_LT(rate, 3.6);
}

TEST(SolverErrors, BoundaryProblemsAreListed) {
  const fluxes::Law law = test::law_file("maxwell2d_tm");
  const mesh::Mesh mesh = mesh::build_mesh(test::box_mesh(2, 2));
  const Discretization disc = discretize(mesh, 2);
  SolverSetup setup;
  setup.law = &law;
  setup.parameters = fluxes::resolve_parameters(law);
  setup.boundaries = {{"xmin", "pec", "run.toml:3:1"}, {"xmax", "perfect", "run.toml:4:1"}, {"left", "pec", "run.toml:5:1"}};
  try {
    Solver solver(host(), disc, setup);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    const std::string text = e.what();
    EXPECT_NE(text.find("run.toml:4:1: the law 'maxwell2d_tm' has no boundary condition 'perfect'; its conditions are: pec"),
              std::string::npos) << text;
    EXPECT_NE(text.find("run.toml:5:1: the mesh has no boundary named 'left'; its boundaries are: xmin, xmax, ymin, ymax"),
              std::string::npos) << text;
    EXPECT_NE(text.find("the mesh boundary 'ymin' has no boundary condition"), std::string::npos) << text;
  }
}

TEST(SolverErrors, IncidentConditionNeedsAnIncidentField) {
  const fluxes::Law law = test::law_file("maxwell2d_tm");
  const mesh::Mesh mesh = mesh::build_mesh(test::box_mesh(2, 2));
  const Discretization disc = discretize(mesh, 2);
  SolverSetup setup;
  setup.law = &law;
  setup.parameters = fluxes::resolve_parameters(law);
  for (const char* wall : {"xmin", "xmax", "ymin", "ymax"}) setup.boundaries.push_back({wall, "pec_scattered", ""});
  EXPECT_THROW(Solver(host(), disc, setup), Error);
}

}  // namespace
}  // namespace rtdg::dg
