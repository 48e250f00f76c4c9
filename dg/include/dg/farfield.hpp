// The near-to-far-field transform (NTFF) of scattering runs: a closed Huygens surface made of
// element faces, running discrete Fourier transforms of the scattered E and H traces on it
// (accumulated on the device by a generated kernel, both backends), and the far-field
// integrals (on the host). docs/scattering.md is the user's guide.
//
// Conventions: time-harmonic fields are Re[F exp(-i omega t)]; the wavenumber is
// k = omega / c. Far fields are referred to a phase origin x0:
//   3D   E_s(x0 + r xhat) ~ E_inf(xhat) exp(i k r) / r,
//        E_inf = (i k / 4 pi) xhat x  integral_S [n x E + Z (n x H) x xhat] exp(-i k xhat.(y - x0)) dS(y)
//        bistatic RCS  sigma = 4 pi |E_inf|^2 / |E0|^2
//   2D TM (Ez, Hx, Hy)
//        Ez_s(x0 + rho xhat) ~ u_inf(xhat) exp(i k rho) / sqrt(rho),
//        u_inf = e^{i pi/4} / sqrt(8 pi k) integral_S [-i k (n.xhat) Ez - dEz/dn] exp(-i k xhat.(y - x0)) dS(y),
//        dEz/dn = i omega mu (n_y Hx - n_x Hy)
//        scattering width  sigma_2D = 2 pi |u_inf|^2 / |E0|^2
// with n the surface's outward normal (away from the scatterer), Z = sqrt(mu / eps) and E0 the
// incident field's complex amplitude at x0 (Colton & Kress, Inverse Acoustic and
// Electromagnetic Scattering Theory, (2.13)-(2.14), (6.24)-(6.25), with H scaled by Z).
#pragma once

#include "dg/discretization.hpp"
#include "dg/solver.hpp"

#include <mesh/mesh.hpp>

#include <array>
#include <complex>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rtdg::dg {

using Complex = std::complex<double>;
using Point = std::array<double, 3>;

// The Huygens surface as quadrature points: the nodes of its faces. P points.
struct HuygensSurface {
  int dim = 3;
  int faces = 0;
  std::vector<Point> x;        // [P] coordinates (z = 0 in 2D)
  std::vector<Point> normal;   // [P] unit normal, pointing out of the enclosed region
  std::vector<double> weight;  // [P] quadrature weight: the face mass matrix's row sums x sJ
  // [P] flat volume indices (k * Np + i) of the point's node on the inner element and of its
  // twin on the outer one (equal on a mesh boundary): the fields are their average. In a
  // parallel run a twin on another rank is -1 - r: its value is slot r of the remote values
  // SurfaceDft::accumulate takes (that rank computes them with SurfaceDft::exports).
  std::vector<int> inner, outer;
  std::size_t size() const { return x.size(); }
};

// The surface of the faces (element, local face) given, each oriented out of its element.
HuygensSurface huygens_surface(const Discretization& disc, std::span<const std::pair<int, int>> faces);
// The faces between elements whose centroid is inside the box [lo, hi] and those outside
// (2D: z ignored). Throws dg::Error when no element or every element is inside, or when the
// box reaches the mesh boundary (an inside element has a boundary face that is not enclosed
// by outside elements: the surface would not be closed around the scatterer); the message
// gives the mesh's bounding box.
HuygensSurface huygens_surface_box(const Discretization& disc, const mesh::Mesh& mesh, const Point& lo, const Point& hi);
// The faces of the mesh boundary group `name` (e.g. the outer box), oriented outward; throws
// dg::Error listing the groups when there is none of that name.
HuygensSurface huygens_surface_boundary(const Discretization& disc, std::string_view name);
// The faces between the elements of region `name` (a physical volume/surface group) and the
// rest; the region must enclose the scatterer. Throws dg::Error listing the regions.
HuygensSurface huygens_surface_region(const Discretization& disc, const mesh::Mesh& mesh, std::string_view name);

// The pieces of the surfaces above, for parallel runs (each rank discretizes its part of the
// mesh, and every rank holds the whole mesh::Mesh, so it can list the whole surface's faces in
// the serial order and build its own part with huygens_surface):
// [K] flags of the elements whose nodes' mean (the centroid) is inside the box [lo, hi], and
// the nodes' bounding box; the box's text for messages, from the whole mesh's bounding box.
std::vector<char> elements_in_box(const Discretization& disc, const Point& lo, const Point& hi);
std::pair<Point, Point> node_bounds(const Discretization& disc);
std::string box_text(int dim, const Point& lo, const Point& hi, const Point& mesh_min, const Point& mesh_max);
// The faces (k, f) of `mesh` with inside[k] and the neighbour outside, in huygens_surface_box's
// and huygens_surface_region's order; throws as they do (`what` names the surface).
std::vector<std::pair<int, int>> interface_faces(const mesh::Mesh& mesh, const std::vector<char>& inside,
                                                 const std::string& what);
// The faces of the mesh's boundary group `name`, in huygens_surface_boundary's order (sorted);
// throws dg::Error listing the groups when there is none of that name, or when it has no faces.
std::vector<std::pair<int, int>> boundary_group_faces(const mesh::Mesh& mesh, std::string_view name);

// Complex amplitudes of the fields at the surface points, each [P]; 2D TM uses E[2] (Ez),
// H[0], H[1].
struct SurfaceFields {
  std::array<std::vector<Complex>, 3> E, H;
};

// The far fields above for unit directions xhat (2D: in the x-y plane). k > 0, Z > 0;
// omega_mu = omega * mu (2D only).
std::vector<std::array<Complex, 3>> far_field_3d(const HuygensSurface& surface, const SurfaceFields& fields, double k,
                                                 double Z, const Point& origin, std::span<const Point> directions);
std::vector<Complex> far_field_2d_tm(const HuygensSurface& surface, const SurfaceFields& fields, double k,
                                     double omega_mu, const Point& origin, std::span<const Point> directions);

// Running DFTs of the surface traces at angular frequencies omega_f:
//   S_f = sum_n u(t_n) exp(i omega_f t_n) w_n      on the device, per point and component
//   W_f = sum_n w_n,  L_f = sum_n exp(2 i omega_f t_n) w_n,  G_f = sum_n g(t_n) exp(i omega_f t_n) w_n   on the host
// with w_n the time since the previous sample (the first: its own time step) and g the incident
// signal at the phase origin. Results:
//   time_harmonic  F = (a - L conj(a)) / (1 - |L|^2), a = 2 S / W, L = L / W: exact for a
//                  sampled Re[F exp(-i omega t)] at any sample times (the conj(F) leakage of an
//                  incomplete period is removed), so the window needs no whole number of periods
//   transform      F = S / G: the transfer function of a pulse run, normalised by the incident
//                  spectrum at x0 (the same samples and weights)
class SurfaceDft {
public:
  // `slots`: the state component of E.x, E.y, E.z, H.x, H.y, H.z (-1 where the law has none).
  SurfaceDft(const Solver& solver, const HuygensSurface& surface, std::array<int, 6> slots, std::vector<double> omegas);
  ~SurfaceDft();
  SurfaceDft(const SurfaceDft&) = delete;
  SurfaceDft& operator=(const SurfaceDft&) = delete;

  // One sample of the current state at time t with weight w; `incident` = g(t) at x0.
  // `remote`: [C][R] the values of the outer twins on other ranks (HuygensSurface::outer), C
  // the components present (E.x ... H.z order); empty in a serial run.
  void accumulate(double t, double w, double incident, std::span<const double> remote = {});
  std::size_t components() const;     // C
  std::size_t remote_points() const;  // R
  // Parallel runs: the nodes (flat volume indices k * Np + i of this rank) whose values other
  // ranks' points take as remote values, and those values [C][S] of the current state,
  // computed as accumulate computes an outer trace (so each sum is the serial run's).
  void set_exports(std::span<const int> nodes);
  std::vector<double> exports() const;
  long long samples() const { return samples_; }
  const std::vector<double>& omegas() const { return omegas_; }
  double window() const;  // W (the same for every frequency)

  enum class Mode { time_harmonic, transform };
  // The complex surface fields at frequency f (downloads the sums), divided by `scale` (the
  // incident amplitude A) and, for a transform, by G_f (the spectrum of the unit signal g).
  SurfaceFields fields(std::size_t f, Mode mode, Complex scale = 1.0) const;
  // The same from sums [C][P'][2] of any surface (a parallel run's whole surface, gathered
  // from the ranks' frequency_sums), with this transform's window, leakage and spectrum.
  SurfaceFields fields(std::size_t f, Mode mode, Complex scale, std::span<const double> sums) const;
  // The device sums of frequency f, [C][P][2].
  std::vector<double> frequency_sums(std::size_t f) const;
  Complex incident_spectrum(std::size_t f) const;  // G_f
  Complex leakage(std::size_t f) const;            // L_f / W

  // Everything a restart needs, as two flat arrays: the device sums [F][6][P][2] and the
  // host sums [samples, W, then per f: Re L, Im L, Re G, Im G]. set_state checks the sizes.
  std::vector<double> device_sums() const;
  std::vector<double> host_sums() const;
  void set_state(std::span<const double> device_sums, std::span<const double> host_sums);

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::vector<double> omegas_;
  long long samples_ = 0;
  double window_ = 0;
  std::vector<Complex> leak_, incident_;
};

// For cuts: the unit vector at angle a (radians) in the plane of the orthonormal u (a = 0)
// and v (a = pi/2): cos(a) u + sin(a) v.
Point direction_in_plane(const Point& u, const Point& v, double a);

}  // namespace rtdg::dg
