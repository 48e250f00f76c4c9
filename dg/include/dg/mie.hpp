// The Mie series of a perfectly conducting (PEC) sphere: a reference for scattering runs'
// far fields (docs/scattering.md), independent of the solver. Header only, standard library.
//
// Convention (Bohren & Huffman, Absorption and Scattering of Light by Small Particles, ch. 4,
// with m -> infinity): time dependence exp(-i omega t), incident E0 p exp(i k d.x), radius a,
// x = k a. Scattered far field at scattering angle theta (the angle between d and the
// observation direction) and azimuth phi (from p, about d):
//   E_theta = E0 exp(i k r) / (-i k r) cos(phi) S2(theta),  E_phi = -E0 exp(i k r) / (-i k r) sin(phi) S1(theta)
//   S1 = sum_n c_n (a_n pi_n + b_n tau_n),  S2 = sum_n c_n (a_n tau_n + b_n pi_n),  c_n = (2n+1) / (n(n+1))
//   a_n = psi_n'(x) / xi_n'(x),  b_n = psi_n(x) / xi_n(x),  psi_n = x j_n,  xi_n = x h_n^(1)
//   pi_n(cos t) = P_n^1(cos t) / sin t,  tau_n = d P_n^1(cos t) / dt
// Bistatic RCS, normalised by the geometric cross section pi a^2:
//   E-plane (phi = 0: the plane of d and p)      sigma / (pi a^2) = 4 |S2|^2 / x^2
//   H-plane (phi = 90 deg: the plane of d and d x p)  sigma / (pi a^2) = 4 |S1|^2 / x^2
// theta = 0 is forward scattering, theta = pi the monostatic (back) direction. This is the
// angle_deg of rtdg's f<i>_eplane.csv / f<i>_hplane.csv (0 along the incident direction).
// Checks (tests/apps/rcs_compare/test_mie.cpp): monostatic 3.6376 at ka = 1; Rayleigh limits
// 4 (ka)^4 (cos t - 1/2)^2 (E) and 4 (ka)^4 (1 - cos(t)/2)^2 (H); optical theorem.
#pragma once

#include <cmath>
#include <complex>
#include <numbers>
#include <stdexcept>
#include <vector>

namespace rtdg::dg::mie {

// The Mie coefficients a_n, b_n (n = 1..N, index n - 1) of a PEC sphere at x = k a.
struct PecCoefficients {
  double x = 0;
  std::vector<std::complex<double>> a, b;
};

inline PecCoefficients pec_coefficients(double ka) {
  if (!(ka > 0) || !std::isfinite(ka)) throw std::invalid_argument("mie: ka must be positive and finite");
  // Wiscombe's number of terms, with a margin; the terms fall off faster than exponentially
  // past n ~ x.
  const int terms = static_cast<int>(ka + 4 * std::cbrt(ka) + 10);
  PecCoefficients c;
  c.x = ka;
  for (int n = 1; n <= terms; ++n) {
    const auto un = static_cast<unsigned>(n);
    const double nd = n;
    const std::complex<double> h(std::sph_bessel(un, ka), std::sph_neumann(un, ka));
    const std::complex<double> hm(std::sph_bessel(un - 1, ka), std::sph_neumann(un - 1, ka));
    const double j = h.real(), jm = hm.real();
    const double dpsi = ka * jm - nd * j;                  // [x j_n(x)]' = x j_{n-1} - n j_n
    const std::complex<double> dxi = ka * hm - nd * h;     // [x h_n(x)]'
    c.a.push_back(dpsi / dxi);
    c.b.push_back(j / h);
  }
  return c;
}

// The amplitude functions S1 (H-plane) and S2 (E-plane) at scattering angle theta (radians).
struct Amplitudes {
  std::complex<double> s1, s2;
};

inline Amplitudes pec_amplitudes(const PecCoefficients& c, double theta) {
  const double mu = std::cos(theta);
  double pi_prev = 0, pi_n = 1;  // pi_0, pi_1
  Amplitudes s;
  for (std::size_t i = 0; i < c.a.size(); ++i) {
    const double n = static_cast<double>(i + 1);
    const double tau_n = n * mu * pi_n - (n + 1) * pi_prev;
    const double cn = (2 * n + 1) / (n * (n + 1));
    s.s1 += cn * (c.a[i] * pi_n + c.b[i] * tau_n);
    s.s2 += cn * (c.a[i] * tau_n + c.b[i] * pi_n);
    const double pi_next = ((2 * n + 1) * mu * pi_n - (n + 1) * pi_prev) / n;
    pi_prev = pi_n;
    pi_n = pi_next;
  }
  return s;
}

// Bistatic RCS / (pi a^2) in the E- and H-planes at scattering angle theta (radians).
struct Rcs {
  double eplane = 0, hplane = 0;
};

inline Rcs pec_bistatic(const PecCoefficients& c, double theta) {
  const Amplitudes s = pec_amplitudes(c, theta);
  const double f = 4 / (c.x * c.x);
  return {f * std::norm(s.s2), f * std::norm(s.s1)};
}

inline Rcs pec_bistatic(double ka, double theta) { return pec_bistatic(pec_coefficients(ka), theta); }

// Monostatic RCS / (pi a^2) (theta = pi; the two planes agree there).
inline double pec_monostatic(double ka) { return pec_bistatic(ka, std::numbers::pi).eplane; }

// Scattering and extinction efficiencies (cross sections / (pi a^2)): equal for a lossless
// sphere (optical theorem), which checks S(0) against the coefficients.
inline double pec_scattering_efficiency(const PecCoefficients& c) {
  double q = 0;
  for (std::size_t i = 0; i < c.a.size(); ++i) q += (2.0 * static_cast<double>(i + 1) + 1) * (std::norm(c.a[i]) + std::norm(c.b[i]));
  return 2 * q / (c.x * c.x);
}
inline double pec_extinction_efficiency(const PecCoefficients& c) {
  return 4 / (c.x * c.x) * pec_amplitudes(c, 0.0).s1.real();
}

}  // namespace rtdg::dg::mie
