// Explicit Runge-Kutta time integrators for the semi-discrete DG system du/dt = L(u, t).
//
//   lserk4  Carpenter & Kennedy's five-stage, fourth-order low-storage scheme (NASA TM-109112,
//           1994; Hesthaven & Warburton table 3.1): two registers, u and the residual.
//   ssprk3  Shu & Osher's three-stage, third-order strong-stability-preserving scheme.
#pragma once

#include <array>
#include <string>

namespace rtdg::dg {

enum class Integrator : unsigned char { lserk4, ssprk3 };

const char* to_string(Integrator integrator);
// "lserk4" or "ssprk3"; throws dg::Error listing the valid names.
Integrator parse_integrator(const std::string& text);
int stages(Integrator integrator);
int order_of_accuracy(Integrator integrator);

// LSERK4 stage s: res = a[s] res + dt L(u, t + c[s] dt); u = u + b[s] res.
struct Lserk4 {
  static const std::array<double, 5> a;
  static const std::array<double, 5> b;
  static const std::array<double, 5> c;
};

}  // namespace rtdg::dg
