// Hand-written Maxwell fluxes, straight from the formulas with components spelled out (no
// DAG, no vector helpers shared with the library), to check what the law files generate.
//
// Flux differences n.(F - F*) with [q] = q.int - q.ext, unit outward normal n,
// Y = sqrt(eps/mu), Z = sqrt(mu/eps), and n x (n x a) = n (n.a) - a:
//   E: -1/(2 eps) (n x [H] - alpha Y (n (n.[E]) - [E]))
//   H:  1/(2 mu)  (n x [E] + alpha Z (n (n.[H]) - [H]))
#pragma once

#include <array>
#include <cmath>

namespace fluxes::test::reference {

// qM, qP: [Ex, Ey, Ez, Hx, Hy, Hz]; n: [3]; returns the six flux differences.
inline std::array<double, 6> maxwell3d(const double* qM, const double* qP, const double* n, double eps, double mu,
                                       double alpha) {
  const double dEx = qM[0] - qP[0], dEy = qM[1] - qP[1], dEz = qM[2] - qP[2];
  const double dHx = qM[3] - qP[3], dHy = qM[4] - qP[4], dHz = qM[5] - qP[5];
  const double nx = n[0], ny = n[1], nz = n[2];
  const double ndE = nx * dEx + ny * dEy + nz * dEz;
  const double ndH = nx * dHx + ny * dHy + nz * dHz;
  const double Y = std::sqrt(eps / mu), Z = std::sqrt(mu / eps);
  return {
      -1.0 / (2.0 * eps) * ((ny * dHz - nz * dHy) - alpha * Y * (nx * ndE - dEx)),
      -1.0 / (2.0 * eps) * ((nz * dHx - nx * dHz) - alpha * Y * (ny * ndE - dEy)),
      -1.0 / (2.0 * eps) * ((nx * dHy - ny * dHx) - alpha * Y * (nz * ndE - dEz)),
      1.0 / (2.0 * mu) * ((ny * dEz - nz * dEy) + alpha * Z * (nx * ndH - dHx)),
      1.0 / (2.0 * mu) * ((nz * dEx - nx * dEz) + alpha * Z * (ny * ndH - dHy)),
      1.0 / (2.0 * mu) * ((nx * dEy - ny * dEx) + alpha * Z * (nz * ndH - dHz)),
  };
}

// Hesthaven & Warburton's MaxwellRHS2D (TM, eps = mu = 1): their fluxes with
// dq = q(vmapM) - q(vmapP), lifted as LIFT*(Fscale.*flux)/2, so n.(F - F*) = flux/2.
// qM, qP: [Hx, Hy, Ez].
inline std::array<double, 3> maxwell2d_tm_hw(const double* qM, const double* qP, const double* n, double alpha) {
  const double dHx = qM[0] - qP[0], dHy = qM[1] - qP[1], dEz = qM[2] - qP[2];
  const double nx = n[0], ny = n[1];
  const double ndotdH = nx * dHx + ny * dHy;
  const double fluxHx = ny * dEz + alpha * (ndotdH * nx - dHx);
  const double fluxHy = -nx * dEz + alpha * (ndotdH * ny - dHy);
  const double fluxEz = -nx * dHy + ny * dHx - alpha * dEz;
  return {fluxHx / 2.0, fluxHy / 2.0, fluxEz / 2.0};
}

// TE from the 3D formulas with E = (Ex, Ey, 0), H = (0, 0, Hz). qM, qP: [Ex, Ey, Hz].
inline std::array<double, 3> maxwell2d_te(const double* qM, const double* qP, const double* n, double eps, double mu,
                                          double alpha) {
  const double mM[6] = {qM[0], qM[1], 0.0, 0.0, 0.0, qM[2]};
  const double mP[6] = {qP[0], qP[1], 0.0, 0.0, 0.0, qP[2]};
  const double n3[3] = {n[0], n[1], 0.0};
  const std::array<double, 6> f = maxwell3d(mM, mP, n3, eps, mu, alpha);
  return {f[0], f[1], f[5]};
}

// TM from the 3D formulas with E = (0, 0, Ez), H = (Hx, Hy, 0). qM, qP: [Hx, Hy, Ez].
inline std::array<double, 3> maxwell2d_tm(const double* qM, const double* qP, const double* n, double eps, double mu,
                                          double alpha) {
  const double mM[6] = {0.0, 0.0, qM[2], qM[0], qM[1], 0.0};
  const double mP[6] = {0.0, 0.0, qP[2], qP[0], qP[1], 0.0};
  const double n3[3] = {n[0], n[1], 0.0};
  const std::array<double, 6> f = maxwell3d(mM, mP, n3, eps, mu, alpha);
  return {f[3], f[4], f[2]};
}

}  // namespace fluxes::test::reference
