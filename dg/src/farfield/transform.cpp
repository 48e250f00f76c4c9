// The far-field integrals over a Huygens surface (dg/farfield.hpp), on the host.
#include "dg/error.hpp"
#include "dg/farfield.hpp"

#include <cmath>
#include <numbers>

namespace rtdg::dg {
namespace {

using Vec = std::array<Complex, 3>;

Vec cross(const Point& a, const Vec& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
Vec cross(const Vec& a, const Point& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}

void check(const HuygensSurface& s, const SurfaceFields& f, double k, bool needs_e, bool needs_h, const char* what) {
  if (!(k > 0) || !std::isfinite(k)) throw Error(std::string(what) + ": the wavenumber must be positive and finite");
  for (std::size_t c = 0; c < 3; ++c) {
    const bool e_ok = f.E[c].size() == s.size() || (!needs_e && f.E[c].empty());
    const bool h_ok = f.H[c].size() == s.size() || (!needs_h && f.H[c].empty());
    if (!e_ok || !h_ok) throw Error(std::string(what) + ": the surface fields do not have one value per surface point");
  }
}

}  // namespace

std::vector<std::array<Complex, 3>> far_field_3d(const HuygensSurface& surface, const SurfaceFields& fields, double k,
                                                 double Z, const Point& origin, std::span<const Point> directions) {
  check(surface, fields, k, true, true, "far_field_3d");
  const std::size_t P = surface.size();
  std::vector<std::array<Complex, 3>> result;
  result.reserve(directions.size());
  // Equivalent currents per point: n x E and Z n x H (independent of the direction).
  std::vector<Vec> nE(P), nH(P);
  for (std::size_t p = 0; p < P; ++p) {
    const Vec E{fields.E[0][p], fields.E[1][p], fields.E[2][p]};
    const Vec H{Z * fields.H[0][p], Z * fields.H[1][p], Z * fields.H[2][p]};
    nE[p] = cross(surface.normal[p], E);
    nH[p] = cross(surface.normal[p], H);
  }
  const Complex factor(0.0, k / (4 * std::numbers::pi));
  for (const Point& d : directions) {
    Vec integral{};
    for (std::size_t p = 0; p < P; ++p) {
      const Point& y = surface.x[p];
      const double phase = -k * (d[0] * (y[0] - origin[0]) + d[1] * (y[1] - origin[1]) + d[2] * (y[2] - origin[2]));
      const Complex w = surface.weight[p] * Complex(std::cos(phase), std::sin(phase));
      const Vec hx = cross(nH[p], d);
      for (std::size_t c = 0; c < 3; ++c) integral[c] += w * (nE[p][c] + hx[c]);
    }
    Vec e = cross(d, integral);
    for (Complex& v : e) v *= factor;
    result.push_back(e);
  }
  return result;
}

std::vector<Complex> far_field_2d_tm(const HuygensSurface& surface, const SurfaceFields& fields, double k,
                                     double omega_mu, const Point& origin, std::span<const Point> directions) {
  check(surface, fields, k, false, false, "far_field_2d_tm");
  if (fields.E[2].size() != surface.size() || fields.H[0].size() != surface.size() || fields.H[1].size() != surface.size())
    throw Error("far_field_2d_tm: needs Ez, Hx and Hy at every surface point");
  const std::size_t P = surface.size();
  const Complex i(0.0, 1.0);
  // dEz/dn = i omega mu (n_y Hx - n_x Hy)  (from curl E = i omega mu H).
  std::vector<Complex> dn(P);
  for (std::size_t p = 0; p < P; ++p)
    dn[p] = i * omega_mu * (surface.normal[p][1] * fields.H[0][p] - surface.normal[p][0] * fields.H[1][p]);
  const Complex gamma = std::exp(i * (std::numbers::pi / 4)) / std::sqrt(8 * std::numbers::pi * k);
  std::vector<Complex> result;
  result.reserve(directions.size());
  for (const Point& d : directions) {
    Complex integral = 0;
    for (std::size_t p = 0; p < P; ++p) {
      const Point& y = surface.x[p];
      const Point& n = surface.normal[p];
      const double phase = -k * (d[0] * (y[0] - origin[0]) + d[1] * (y[1] - origin[1]));
      const Complex w = surface.weight[p] * Complex(std::cos(phase), std::sin(phase));
      integral += w * (-i * k * (n[0] * d[0] + n[1] * d[1]) * fields.E[2][p] - dn[p]);
    }
    result.push_back(gamma * integral);
  }
  return result;
}

Point direction_in_plane(const Point& u, const Point& v, double a) {
  return {std::cos(a) * u[0] + std::sin(a) * v[0], std::cos(a) * u[1] + std::sin(a) * v[1],
          std::cos(a) * u[2] + std::sin(a) * v[2]};
}

}  // namespace rtdg::dg
