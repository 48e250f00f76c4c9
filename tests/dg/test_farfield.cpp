// The near-to-far-field transform's pieces against closed forms: Huygens surfaces from box
// meshes are closed (Gauss's theorem), the 3D integral reproduces a Hertzian dipole's far
// field and the 2D TM one a line source's, from the exact fields imposed on the surface; and
// the Mie series of a PEC sphere (computed here) gives the known monostatic RCS.
#include "test_meshes.hpp"

#include <dg/discretization.hpp>
#include <dg/error.hpp>
#include <dg/farfield.hpp>
#include <mesh/build.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <numbers>

namespace rtdg::dg {
namespace {

using C = std::complex<double>;
constexpr double pi = std::numbers::pi;
const C I(0.0, 1.0);

struct Fixture {
  mesh::Mesh mesh;
  Discretization disc;
  Fixture(int dim, int n, int N) : mesh(mesh::build_mesh(test::box_mesh(dim, n, {-1, -1, -1}, {2, 2, 2}))), disc(discretize(mesh, N)) {}
};

// A closed surface S around a volume V: integral of n = 0, integral of n.x = dim |V|.
void expect_closed(const HuygensSurface& s, double volume) {
  double nsum[3] = {0, 0, 0}, flux = 0, area = 0;
  for (std::size_t p = 0; p < s.size(); ++p) {
    for (int d = 0; d < 3; ++d) nsum[d] += s.weight[p] * s.normal[p][static_cast<std::size_t>(d)];
    flux += s.weight[p] * (s.normal[p][0] * s.x[p][0] + s.normal[p][1] * s.x[p][1] + s.normal[p][2] * s.x[p][2]);
    area += s.weight[p];
  }
  for (double v : nsum) EXPECT_NEAR(v, 0.0, 1e-12 * area);
  EXPECT_NEAR(flux, s.dim * volume, 1e-12 * area);
}

TEST(HuygensSurface, BoxIsClosedAndOrientedOutward) {
  const Fixture f2(2, 4, 3);
  const HuygensSurface s2 = huygens_surface_box(f2.disc, f2.mesh, {-0.5, -0.5, 0}, {0.5, 0.5, 0});
  EXPECT_EQ(s2.faces, 8);  // 2 triangle edges along each side of the [-0.5, 0.5]^2 square
  expect_closed(s2, 1.0);
  const Fixture f3(3, 4, 2);
  const HuygensSurface s3 = huygens_surface_box(f3.disc, f3.mesh, {-0.5, -0.5, -0.5}, {0.5, 0.5, 0.5});
  EXPECT_EQ(s3.faces, 6 * 4 * 2);  // 4 squares per cube side, 2 triangles each
  expect_closed(s3, 1.0);
  // The outer boundary as a surface: the whole [-1, 1]^dim box.
  std::vector<std::pair<int, int>> faces;
  for (const char* name : {"xmin", "xmax", "ymin", "ymax"}) {
    const BoundaryNodes& b = f2.disc.boundary(name);
    for (std::size_t i = 0; i < b.elements.size(); ++i) faces.emplace_back(b.elements[i], b.faces[i]);
  }
  expect_closed(huygens_surface(f2.disc, faces), 4.0);
}

TEST(HuygensSurface, BoxErrorsSayWhy) {
  const Fixture f(2, 4, 1);
  EXPECT_THROW(huygens_surface_box(f.disc, f.mesh, {2, 2, 0}, {3, 3, 0}), Error);      // encloses nothing
  EXPECT_THROW(huygens_surface_box(f.disc, f.mesh, {-2, -2, 0}, {2, 2, 0}), Error);    // encloses everything
  try {
    (void)huygens_surface_box(f.disc, f.mesh, {-2, -0.5, 0}, {0.5, 0.5, 0});  // reaches out through xmin
    ADD_FAILURE() << "a box through the boundary was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("crosses the mesh boundary 'xmin'"), std::string::npos) << e.what();
  }
}

// A Hertzian dipole p at xs (eps = mu = c = 1, exp(-i omega t); Jackson (9.18)):
//   H = k^2/(4 pi) (n x p) e^{ikr}/r (1 - 1/(ikr))
//   E = 1/(4 pi) [k^2 (n x p) x n e^{ikr}/r + (3 n (n.p) - p)(1/r^3 - ik/r^2) e^{ikr}]
// Far field about x0: E_inf = k^2/(4 pi) (xhat x p) x xhat exp(-i k xhat.(xs - x0)).
TEST(FarField, Dipole3D) {
  const Fixture f(3, 4, 6);
  const HuygensSurface s = huygens_surface_box(f.disc, f.mesh, {-0.5, -0.5, -0.5}, {0.5, 0.5, 0.5});
  const double k = 2.0;
  const Point xs{0.1, -0.05, 0.08}, p{0.3, -0.2, 1.0}, x0{0.02, 0.01, -0.03};
  SurfaceFields fields;
  for (int c = 0; c < 3; ++c) {
    fields.E[static_cast<std::size_t>(c)].resize(s.size());
    fields.H[static_cast<std::size_t>(c)].resize(s.size());
  }
  for (std::size_t q = 0; q < s.size(); ++q) {
    Point n{};
    double r2 = 0;
    for (std::size_t d = 0; d < 3; ++d) {
      n[d] = s.x[q][d] - xs[d];
      r2 += n[d] * n[d];
    }
    const double r = std::sqrt(r2);
    for (double& v : n) v /= r;
    const Point nxp{n[1] * p[2] - n[2] * p[1], n[2] * p[0] - n[0] * p[2], n[0] * p[1] - n[1] * p[0]};
    const Point nxpxn{nxp[1] * n[2] - nxp[2] * n[1], nxp[2] * n[0] - nxp[0] * n[2], nxp[0] * n[1] - nxp[1] * n[0]};
    const double np = n[0] * p[0] + n[1] * p[1] + n[2] * p[2];
    const C e = std::exp(I * k * r);
    for (std::size_t d = 0; d < 3; ++d) {
      fields.H[d][q] = k * k / (4 * pi) * nxp[d] * e / r * (1.0 - 1.0 / (I * k * r));
      fields.E[d][q] = 1 / (4 * pi) * (k * k * nxpxn[d] * e / r + (3 * n[d] * np - p[d]) * (1 / (r * r2) - I * k / r2) * e);
    }
  }
  std::vector<Point> dirs;
  for (int i = 0; i < 7; ++i)
    for (int j = 0; j < 8; ++j) {
      const double th = pi * (i + 0.5) / 7, ph = 2 * pi * j / 8;
      dirs.push_back({std::sin(th) * std::cos(ph), std::sin(th) * std::sin(ph), std::cos(th)});
    }
  const auto far = far_field_3d(s, fields, k, 1.0, x0, dirs);
  double worst = 0, scale = 0;
  for (std::size_t m = 0; m < dirs.size(); ++m) {
    const Point& d = dirs[m];
    const Point dxp{d[1] * p[2] - d[2] * p[1], d[2] * p[0] - d[0] * p[2], d[0] * p[1] - d[1] * p[0]};
    const Point ref{dxp[1] * d[2] - dxp[2] * d[1], dxp[2] * d[0] - dxp[0] * d[2], dxp[0] * d[1] - dxp[1] * d[0]};
    const C phase = std::exp(-I * k * (d[0] * (xs[0] - x0[0]) + d[1] * (xs[1] - x0[1]) + d[2] * (xs[2] - x0[2])));
    for (std::size_t c = 0; c < 3; ++c) {
      const C exact = k * k / (4 * pi) * ref[c] * phase;
      worst = std::max(worst, std::abs(far[m][c] - exact));
      scale = std::max(scale, std::abs(exact));
    }
  }
  EXPECT_LT(worst / scale, 2e-4) << "largest error " << worst << " of " << scale;
}

// A line source Ez = H0(k |x - xs|) (exp(-i omega t), mu = 1, omega = k): u_inf =
// sqrt(2 / (pi k)) e^{-i pi/4} exp(-i k xhat.(xs - x0)). Hx = dEz/dy / (i omega mu),
// Hy = -dEz/dx / (i omega mu), dH0(kr)/dr = -k H1(kr).
TEST(FarField, LineSource2DTM) {
  const Fixture f(2, 6, 5);
  const HuygensSurface s = huygens_surface_box(f.disc, f.mesh, {-0.4, -0.4, 0}, {0.7, 0.7, 0});
  const double k = 5.0;
  const Point xs{0.12, 0.2, 0}, x0{-0.1, 0.05, 0};
  SurfaceFields fields;
  fields.E[2].resize(s.size());
  fields.H[0].resize(s.size());
  fields.H[1].resize(s.size());
  for (std::size_t q = 0; q < s.size(); ++q) {
    const double dx = s.x[q][0] - xs[0], dy = s.x[q][1] - xs[1], r = std::hypot(dx, dy);
    const C h0(std::cyl_bessel_j(0.0, k * r), std::cyl_neumann(0.0, k * r));
    const C h1(std::cyl_bessel_j(1.0, k * r), std::cyl_neumann(1.0, k * r));
    const C dr = -k * h1;
    fields.E[2][q] = h0;
    fields.H[0][q] = dr * (dy / r) / (I * k);
    fields.H[1][q] = -dr * (dx / r) / (I * k);
  }
  std::vector<Point> dirs;
  for (int j = 0; j < 24; ++j) dirs.push_back({std::cos(2 * pi * j / 24), std::sin(2 * pi * j / 24), 0});
  const auto far = far_field_2d_tm(s, fields, k, k, x0, dirs);
  double worst = 0;
  const C amplitude = std::sqrt(2 / (pi * k)) * std::exp(-I * pi / 4.0);
  for (std::size_t m = 0; m < dirs.size(); ++m) {
    const C exact = amplitude * std::exp(-I * k * (dirs[m][0] * (xs[0] - x0[0]) + dirs[m][1] * (xs[1] - x0[1])));
    worst = std::max(worst, std::abs(far[m] - exact) / std::abs(exact));
  }
  EXPECT_LT(worst, 1e-4);
}

// Mie series of a PEC sphere of radius a, monostatic RCS (e.g. Ruck et al., Radar Cross
// Section Handbook (3.3-7)): sigma / (pi a^2) = (ka)^-2 |sum_n (-1)^n (2n+1) (a_n - b_n)|^2,
// a_n = j_n(x) / h_n(x), b_n = [x j_n(x)]' / [x h_n(x)]', x = ka, h_n = j_n + i y_n.
double mie_pec_monostatic(double ka) {
  C sum = 0;
  const int terms = static_cast<int>(ka + 4 * std::cbrt(ka) + 10);
  for (int n = 1; n <= terms; ++n) {
    const auto un = static_cast<unsigned>(n);
    const double j = std::sph_bessel(un, ka), y = std::sph_neumann(un, ka);
    const double jm = std::sph_bessel(un - 1, ka), ym = std::sph_neumann(un - 1, ka);
    const C h(j, y), hm(jm, ym);
    const C dj = ka * jm - n * j;  // [x j_n(x)]' = x j_{n-1} - n j_n
    const C dh = ka * hm - static_cast<double>(n) * h;
    const C an = j / h, bn = dj / dh;
    sum += (n % 2 ? -1.0 : 1.0) * (2 * n + 1) * (an - bn);
  }
  return std::norm(sum) / (ka * ka);
}

TEST(FarField, MieSeriesOfAPecSphere) {
  EXPECT_NEAR(mie_pec_monostatic(1.0), 3.6376, 5e-4);
  // Rayleigh limit: sigma = 9 pi a^2 (ka)^4.
  EXPECT_NEAR(mie_pec_monostatic(0.01) / (9 * std::pow(0.01, 4)), 1.0, 1e-3);
  // Optical limit: sigma -> pi a^2.
  EXPECT_NEAR(mie_pec_monostatic(60.0), 1.0, 0.05);
}

}  // namespace
}  // namespace rtdg::dg
