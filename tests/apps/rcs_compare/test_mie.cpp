// The Mie series of a PEC sphere (dg/mie.hpp), the reference for scattering runs' RCS, against
// known values and closed forms.
#include "dg/mie.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

namespace rtdg::dg::mie {
namespace {

constexpr double pi = std::numbers::pi;

TEST(Mie, MonostaticAtKaOne) {
  // Ruck et al., Radar Cross Section Handbook: sigma / (pi a^2) = 3.6376 at ka = 1.
  EXPECT_NEAR(pec_monostatic(1.0), 3.6376, 5e-4);
  // Optical limit: pi a^2.
  EXPECT_NEAR(pec_monostatic(60.0), 1.0, 0.05);
}

TEST(Mie, EAndHPlanesAgreeForwardAndBack) {
  for (double ka : {0.1, 1.0, 3.0, 10.0}) {
    const auto c = pec_coefficients(ka);
    for (double theta : {0.0, pi}) {
      const Rcs r = pec_bistatic(c, theta);
      EXPECT_NEAR(r.eplane / r.hplane, 1.0, 1e-12) << "ka " << ka << " theta " << theta;
    }
  }
  // ... and differ in between (ka = 1, 60 deg: 0.332 vs 2.27).
  const Rcs r = pec_bistatic(1.0, pi / 3);
  EXPECT_LT(r.eplane, 0.4);
  EXPECT_GT(r.hplane, 2.2);
}

TEST(Mie, RayleighLimit) {
  // Small sphere: electric dipole 4 pi a^3 E0 and magnetic dipole -2 pi a^3 H0, so
  // sigma / (pi a^2) = 4 (ka)^4 (cos t - 1/2)^2 (E-plane), 4 (ka)^4 (1 - cos(t) / 2)^2 (H-plane):
  // 9 (ka)^4 back, (ka)^4 forward.
  const double ka = 0.01, x4 = std::pow(ka, 4);
  const auto c = pec_coefficients(ka);
  for (int deg = 0; deg <= 180; deg += 10) {
    if (deg == 60) continue;  // the E-plane's Rayleigh null
    const double t = deg * pi / 180;
    const Rcs r = pec_bistatic(c, t);
    EXPECT_NEAR(r.eplane / (4 * x4 * std::pow(std::cos(t) - 0.5, 2)), 1.0, 2e-3) << deg;
    EXPECT_NEAR(r.hplane / (4 * x4 * std::pow(1 - std::cos(t) / 2, 2)), 1.0, 2e-3) << deg;
  }
  EXPECT_NEAR(pec_monostatic(ka) / (9 * x4), 1.0, 1e-3);
  EXPECT_NEAR(pec_bistatic(c, 0.0).eplane / x4, 1.0, 1e-3);
  EXPECT_LT(pec_bistatic(c, pi / 3).eplane, 1e-4 * x4);
}

TEST(Mie, ForwardScatteringAndTheOpticalTheorem) {
  for (double ka : {0.01, 0.5, 1.0, 5.0, 20.0}) {
    const auto c = pec_coefficients(ka);
    // Extinction (4 / x^2) Re S(0) equals scattering: the sphere absorbs nothing.
    EXPECT_NEAR(pec_extinction_efficiency(c) / pec_scattering_efficiency(c), 1.0, 1e-10) << ka;
    // The scattering efficiency is also the bistatic RCS averaged over directions; with
    // sigma(t, phi) = sigma_E(t) cos^2 phi + sigma_H(t) sin^2 phi:
    // Q = (1 / 4 pi) int sigma / (pi a^2) dOmega = (1/4) int_0^pi (sigma_E + sigma_H) / (pi a^2) sin t dt.
    const int n = 4000;
    double q = 0;
    for (int i = 0; i < n; ++i) {  // midpoint rule in t
      const double t = (i + 0.5) * pi / n;
      const Rcs r = pec_bistatic(c, t);
      q += (r.eplane + r.hplane) * std::sin(t) * (pi / n);
    }
    EXPECT_NEAR(q / 4 / pec_scattering_efficiency(c), 1.0, 1e-5) << ka;
  }
  // Large spheres: the forward (shadow-forming) lobe sigma = 4 pi A^2 / lambda^2 = pi a^2 (ka)^2.
  EXPECT_NEAR(pec_bistatic(60.0, 0.0).eplane / (60.0 * 60.0), 1.0, 0.02);
  // Scattering efficiency: 2 for large spheres (the extinction paradox).
  EXPECT_NEAR(pec_scattering_efficiency(pec_coefficients(60.0)), 2.0, 0.02);
}

TEST(Mie, RejectsBadInput) {
  EXPECT_THROW(pec_coefficients(0.0), std::invalid_argument);
  EXPECT_THROW(pec_coefficients(-1.0), std::invalid_argument);
}

}  // namespace
}  // namespace rtdg::dg::mie
