// The compressible Euler equations (data/laws/euler2d.toml: definitions, the Rusanov flux rtdg
// derives) on the host backend, against Shu's isentropic vortex, the law's exact solution: on
// a periodic square the error converges at the design order N + 1 (issue 13's acceptance:
// >= N + 1 - 0.5 at orders 2-4).
#include "euler_support.hpp"

#include <rtcg/backend.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

namespace rtdg::dg {
namespace {

rtcg::Backend& host() { return rtcg::backend("host"); }

std::string euler_law() { return std::string(RTDG_SOURCE_DIR) + "/data/laws/euler2d.toml"; }

// The vortex (beta = 5, centred at the origin at t = 0) carried by the mean flow (1, 0) on
// [-L, L]^2, L = 5, periodic: the exact solution sums the vortex's nearest images (the law's
// Lx, Ly = 2 L). Without them it jumps by up to 5e-5 across the sides, which the periodic run
// carries into the domain (data/euler/vortex2d.toml: 8.8e-4 instead of 1.3e-4 at t = 1).
constexpr double kHalfWidth = 5.0;

double vortex_error(int n, int N, double t_final, double cfl) {
  const std::vector<fluxes::ParameterOverride> periods = {{"Lx", 2 * kHalfWidth, {}}, {"Ly", 2 * kHalfWidth, {}}};
  test::LawRun run(euler_law(), test::periodic_square(n, {-kHalfWidth, -kHalfWidth, 0}, {2 * kHalfWidth, 2 * kHalfWidth, 0}), N, host(), periods);
  return test::error_after_run(*run.solver, t_final, cfl);
}

using test::Refinement;

class VortexConvergence : public ::testing::TestWithParam<Refinement> {};

TEST_P(VortexConvergence, RateIsAtLeastNPlusOneMinusHalf) {
  const Refinement r = GetParam();
  const double t_final = 0.2, cfl = 0.5;
  const double coarse = vortex_error(r.n, r.N, t_final, cfl);
  const double fine = vortex_error(r.m, r.N, t_final, cfl);
  const double rate = std::log(coarse / fine) / std::log(static_cast<double>(r.m) / r.n);
  std::printf("euler2d vortex N=%d: L2 error %.3e (n=%d) %.3e (n=%d), rate %.2f\n", r.N, coarse, r.n, fine, r.m, rate);
  EXPECT_GE(rate, r.N + 1 - 0.5) << "errors " << coarse << ", " << fine;
}

INSTANTIATE_TEST_SUITE_P(Euler2D, VortexConvergence,
                         ::testing::Values(Refinement{2, 12, 24}, Refinement{3, 16, 32}, Refinement{4, 12, 24}),
                         [](const auto& param_info) { return "N" + std::to_string(param_info.param.N); });

}  // namespace
}  // namespace rtdg::dg
