// Conductivity (the loss term of the Maxwell laws, issue 12): a PEC cavity mode in a uniformly
// conducting medium is a damped oscillator. With E = mode T(t), H = (1/mu) (-d_y mode, d_x mode,
// 0) I(t), I' = T, eps E_t = curl H - sigma E gives T'' + (sigma/eps) T' + omega0^2 T = 0,
// omega0^2 = 2 pi^2 / (eps mu). Starting from E = mode, H = 0 (T(0) = 1, I(0) = 0, so
// T'(0) = -sigma/eps), with gamma = sigma / (2 eps) and omega_d = sqrt(omega0^2 - gamma^2):
//   T = exp(-gamma t) (cos omega_d t - gamma / omega_d sin omega_d t),  I = exp(-gamma t) sin(omega_d t) / omega_d
// (the lossless mode when sigma = 0). The run must follow it, and differ clearly from the
// lossless mode.
#include "test_meshes.hpp"

#include <dg/discretization.hpp>
#include <dg/solver.hpp>
#include <fluxes/law.hpp>
#include <fluxes/law_lowering.hpp>
#include <mesh/build.hpp>
#include <rtcg/backend.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <string>
#include <vector>

namespace rtdg::dg {
namespace {

struct Damped {
  double T, I;  // the time factors of E and H
};

Damped damped(double sigma, double eps, double mu, double t) {
  const double pi = std::numbers::pi;
  const double omega0 = pi * std::sqrt(2.0 / (eps * mu));
  const double gamma = sigma / (2 * eps);
  const double omega = std::sqrt(omega0 * omega0 - gamma * gamma);
  const double decay = std::exp(-gamma * t);
  return {decay * (std::cos(omega * t) - gamma / omega * std::sin(omega * t)), decay * std::sin(omega * t) / omega};
}

// Relative L2 error at t of the run from the mode against the damped solution; `sigma_model`
// is the conductivity of the formula compared with (the run's, or 0 for the lossless mode).
double relative_error(const std::string& law_name, int n, int N, double sigma, double sigma_model, double t_final) {
  const fluxes::Law law = fluxes::read_law(std::string(RTDG_SOURCE_DIR) + "/data/laws/" + law_name + ".toml");
  const mesh::Mesh mesh = mesh::build_mesh(test::box_mesh(law.dimension, n));
  const Discretization disc = discretize(mesh, N);
  SolverSetup setup;
  setup.law = &law;
  const double eps = 2.0, mu = 1.0;
  setup.parameters = fluxes::resolve_parameters(law, {{"eps", eps, {}}, {"mu", mu, {}}, {"sigma", sigma, {}}});
  for (const char* wall : {"xmin", "xmax", "ymin", "ymax", "zmin", "zmax"})
    if (law.dimension == 3 || wall[0] != 'z') setup.boundaries.push_back({wall, "pec", ""});
  Solver solver(rtcg::backend("host"), disc, setup);
  solver.set_state(solver.exact_values(0.0));  // E = mode, H = 0 (the lossless mode at t = 0)
  const double dt = solver.stable_dt(0.5);
  const int steps = static_cast<int>(std::ceil(t_final / dt));
  const double h = t_final / steps;
  for (int s = 0; s < steps; ++s) solver.step(s * h, h);

  const double pi = std::numbers::pi;
  const Damped f = damped(sigma_model, eps, mu, t_final);
  const int K = disc.K, Np = disc.element.Np;
  // Components: (Hx, Hy, Ez) in 2D, (Ex, Ey, Ez, Hx, Hy, Hz) in 3D.
  const int ez = 2, hx = law.dimension == 2 ? 0 : 3, hy = hx + 1;
  std::vector<double> exact(solver.size(), 0.0);
  for (int k = 0; k < K; ++k)
    for (int i = 0; i < Np; ++i) {
      const double x = disc.x(i, k), y = disc.y(i, k);
      auto at = [&](int c) { return (static_cast<std::size_t>(c) * static_cast<std::size_t>(K) + static_cast<std::size_t>(k)) * static_cast<std::size_t>(Np) + static_cast<std::size_t>(i); };
      exact[at(ez)] = std::sin(pi * x) * std::sin(pi * y) * f.T;
      exact[at(hx)] = -pi / mu * std::sin(pi * x) * std::cos(pi * y) * f.I;
      exact[at(hy)] = pi / mu * std::cos(pi * x) * std::sin(pi * y) * f.I;
    }
  std::vector<double> difference = solver.state();
  for (std::size_t j = 0; j < difference.size(); ++j) difference[j] -= exact[j];
  return solver.l2_norm(difference) / solver.l2_norm(exact);
}

TEST(Conductivity, CavityModeDecaysAsTheDampedOscillator2D) {
  const double sigma = 1.5, t = 1.0;  // gamma = 0.375: E falls to about 0.55 of the lossless mode's envelope
  const double error = relative_error("maxwell2d_tm", 6, 4, sigma, sigma, t);
  const double lossless = relative_error("maxwell2d_tm", 6, 4, sigma, 0.0, t);
  std::printf("2D TM, sigma = %g: relative L2 error %.2e against the damped mode, %.2e against the lossless one\n", sigma,
              error, lossless);
  EXPECT_LT(error, 1e-4);
  EXPECT_GT(lossless, 0.1);
  // sigma = 0 (the default) is the lossless law.
  const double plain = relative_error("maxwell2d_tm", 6, 4, 0.0, 0.0, t);
  std::printf("2D TM, sigma = 0: relative L2 error %.2e against the lossless mode\n", plain);
  EXPECT_LT(plain, 1e-4);
}

TEST(Conductivity, CavityModeDecaysAsTheDampedOscillator3D) {
  const double sigma = 1.5, t = 0.5;
  const double error = relative_error("maxwell3d", 3, 3, sigma, sigma, t);
  const double lossless = relative_error("maxwell3d", 3, 3, sigma, 0.0, t);
  std::printf("3D, sigma = %g: relative L2 error %.2e against the damped mode, %.2e against the lossless one\n", sigma,
              error, lossless);
  EXPECT_LT(error, 5e-3);
  EXPECT_GT(lossless, 0.05);
}

}  // namespace
}  // namespace rtdg::dg
