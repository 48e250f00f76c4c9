// Separation-of-variables series for a dielectric circular cylinder of radius a and relative
// permittivity m^2 (mu = 1) lit by the unit TM plane wave exp(i k x), time dependence
// exp(-i omega t) (Balanis, Advanced Engineering Electromagnetics, 11.5, with the interior
// field): outside, Ez = sum_n eps_n i^n [J_n(kr) + b_n H_n(kr)] cos(n phi); inside, sum_n eps_n
// i^n c_n J_n(mkr) cos(n phi); b_n and c_n from the continuity of Ez and dEz/dr at r = a.
#pragma once

#include <cmath>
#include <complex>
#include <numbers>

namespace rtdg::runner::test {

struct CylinderCoefficients {
  std::complex<double> b, c;
};

inline CylinderCoefficients dielectric_cylinder_coefficients(double k, double a, double m, int n) {
  using C = std::complex<double>;
  auto J = [](int order, double x) { return std::cyl_bessel_j(static_cast<double>(order), x); };
  auto Y = [](int order, double x) { return std::cyl_neumann(static_cast<double>(order), x); };
  // Z_n' = (Z_{n-1} - Z_{n+1}) / 2, Z_0' = -Z_1.
  auto dJ = [&](int order, double x) { return order == 0 ? -J(1, x) : 0.5 * (J(order - 1, x) - J(order + 1, x)); };
  auto dY = [&](int order, double x) { return order == 0 ? -Y(1, x) : 0.5 * (Y(order - 1, x) - Y(order + 1, x)); };
  const C Ha(J(n, k * a), Y(n, k * a)), dHa(dJ(n, k * a), dY(n, k * a));
  const double Jm = J(n, m * k * a), dJm = dJ(n, m * k * a);
  const C b = (m * dJm * J(n, k * a) - Jm * dJ(n, k * a)) / (Jm * dHa - m * dJm * Ha);
  return {b, (J(n, k * a) + b * Ha) / Jm};
}

// |Ez| of the total field at (r, phi).
inline double dielectric_cylinder_amplitude(double k, double a, double m, double r, double phi) {
  using C = std::complex<double>;
  C sum = 0;
  for (int n = 0; n <= 40; ++n) {
    const CylinderCoefficients bc = dielectric_cylinder_coefficients(k, a, m, n);
    const double J = std::cyl_bessel_j(static_cast<double>(n), k * r);
    const C radial = r > a ? J + bc.b * C(J, std::cyl_neumann(static_cast<double>(n), k * r))
                           : bc.c * std::cyl_bessel_j(static_cast<double>(n), m * k * r);
    sum += (n == 0 ? 1.0 : 2.0) * std::pow(C(0, 1), n) * radial * std::cos(n * phi);
  }
  return std::abs(sum);
}

// The far-field pattern u(phi) of the scattered Ez ~ u exp(i k rho) / sqrt(rho): with H_n(x) ~
// sqrt(2 / (pi x)) exp(i (x - n pi/2 - pi/4)), u = sqrt(2 / (pi k)) e^{-i pi/4} sum_n eps_n b_n
// cos(n phi); the scattering width is 2 pi |u|^2.
inline std::complex<double> dielectric_cylinder_far_field(double k, double a, double m, double phi) {
  using C = std::complex<double>;
  C sum = 0;
  for (int n = 0; n <= 40; ++n)
    sum += (n == 0 ? 1.0 : 2.0) * dielectric_cylinder_coefficients(k, a, m, n).b * std::cos(n * phi);
  return std::sqrt(2 / (std::numbers::pi * k)) * std::exp(C(0, -std::numbers::pi / 4)) * sum;
}

}  // namespace rtdg::runner::test
