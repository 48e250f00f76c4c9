// Shock capturing (dg/stabilization.hpp) on the Euler equations, host backend: the filter's
// modal damping and conservation, the positivity limiter's guarantee, Sod's shock tube against
// the exact Riemann solution (Toro's solver, computed here) at orders 2-5, and a 2D Riemann
// problem at orders 2-5 that must keep density and pressure positive.
#include "euler_support.hpp"

#include <dg/error.hpp>
#include <dg/stabilization.hpp>
#include <rtcg/array.hpp>
#include <rtcg/backend.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <cstdio>
#include <cstdlib>
#include <functional>

namespace rtdg::dg {
namespace {

rtcg::Backend& host() { return rtcg::backend("host"); }

std::string euler_law() { return std::string(RTDG_SOURCE_DIR) + "/data/laws/euler2d.toml"; }

// ---- The exact solution of the 1D Riemann problem for an ideal gas (E. F. Toro, Riemann
// Solvers and Numerical Methods for Fluid Dynamics, 3rd ed., ch. 4): p* by Newton's method on
// f_L(p) + f_R(p) + (u_R - u_L) = 0, then the wave pattern sampled at x/t.
struct Primitive {
  double rho, u, p;
};

class ExactRiemann {
public:
  ExactRiemann(Primitive left, Primitive right, double gamma) : L_(left), R_(right), g_(gamma) {
    cL_ = std::sqrt(g_ * L_.p / L_.rho);
    cR_ = std::sqrt(g_ * R_.p / R_.rho);
    double p = 0.5 * (L_.p + R_.p);
    for (int it = 0; it < 100; ++it) {
      double fL, dL, fR, dR;
      f(p, L_, cL_, fL, dL);
      f(p, R_, cR_, fR, dR);
      const double next = std::max(1e-12, p - (fL + fR + R_.u - L_.u) / (dL + dR));
      const bool done = std::abs(next - p) < 1e-14 * (next + p);
      p = next;
      if (done) break;
    }
    double fL, dL, fR, dR;
    f(p, L_, cL_, fL, dL);
    f(p, R_, cR_, fR, dR);
    p_star_ = p;
    u_star_ = 0.5 * (L_.u + R_.u) + 0.5 * (fR - fL);
  }

  // The state at s = x/t (Toro's sampling, section 4.5).
  Primitive sample(double s) const {
    const double g = g_;
    if (s <= u_star_) {  // left of the contact
      if (p_star_ > L_.p) {  // left shock
        const double ratio = p_star_ / L_.p;
        const double speed = L_.u - cL_ * std::sqrt((g + 1) / (2 * g) * ratio + (g - 1) / (2 * g));
        if (s <= speed) return L_;
        const double rho = L_.rho * (ratio + (g - 1) / (g + 1)) / ((g - 1) / (g + 1) * ratio + 1);
        return {rho, u_star_, p_star_};
      }
      const double head = L_.u - cL_;
      const double c_star = cL_ * std::pow(p_star_ / L_.p, (g - 1) / (2 * g));
      const double tail = u_star_ - c_star;
      if (s <= head) return L_;
      if (s >= tail) return {L_.rho * std::pow(p_star_ / L_.p, 1 / g), u_star_, p_star_};
      const double factor = 2 / (g + 1) + (g - 1) / ((g + 1) * cL_) * (L_.u - s);
      return {L_.rho * std::pow(factor, 2 / (g - 1)), 2 / (g + 1) * (cL_ + (g - 1) / 2 * L_.u + s),
              L_.p * std::pow(factor, 2 * g / (g - 1))};
    }
    if (p_star_ > R_.p) {  // right shock
      const double ratio = p_star_ / R_.p;
      const double speed = R_.u + cR_ * std::sqrt((g + 1) / (2 * g) * ratio + (g - 1) / (2 * g));
      if (s >= speed) return R_;
      const double rho = R_.rho * (ratio + (g - 1) / (g + 1)) / ((g - 1) / (g + 1) * ratio + 1);
      return {rho, u_star_, p_star_};
    }
    const double head = R_.u + cR_;
    const double c_star = cR_ * std::pow(p_star_ / R_.p, (g - 1) / (2 * g));
    const double tail = u_star_ + c_star;
    if (s >= head) return R_;
    if (s <= tail) return {R_.rho * std::pow(p_star_ / R_.p, 1 / g), u_star_, p_star_};
    const double factor = 2 / (g + 1) - (g - 1) / ((g + 1) * cR_) * (R_.u - s);
    return {R_.rho * std::pow(factor, 2 / (g - 1)), 2 / (g + 1) * (-cR_ + (g - 1) / 2 * R_.u + s),
            R_.p * std::pow(factor, 2 * g / (g - 1))};
  }

  double p_star() const { return p_star_; }
  double u_star() const { return u_star_; }

private:
  // Toro's pressure function f_K(p) and its derivative.
  void f(double p, const Primitive& K, double c, double& value, double& derivative) const {
    const double g = g_;
    if (p > K.p) {
      const double A = 2 / ((g + 1) * K.rho), B = (g - 1) / (g + 1) * K.p;
      const double root = std::sqrt(A / (p + B));
      value = (p - K.p) * root;
      derivative = root * (1 - (p - K.p) / (2 * (B + p)));
    } else {
      value = 2 * c / (g - 1) * (std::pow(p / K.p, (g - 1) / (2 * g)) - 1);
      derivative = 1 / (K.rho * c) * std::pow(p / K.p, -(g + 1) / (2 * g));
    }
  }

  Primitive L_, R_;
  double g_, cL_, cR_, p_star_ = 0, u_star_ = 0;
};

TEST(ExactRiemann, SodStarStateMatchesToro) {
  // Toro, table 4.3, test 1: p* = 0.30313, u* = 0.92745.
  const ExactRiemann sod({1.0, 0.0, 1.0}, {0.125, 0.0, 0.1}, 1.4);
  EXPECT_NEAR(sod.p_star(), 0.30313, 1e-5);
  EXPECT_NEAR(sod.u_star(), 0.92745, 1e-5);
}

// ---- Meshes: a channel [0, length] x [0, width] of nx x ny squares, 2 triangles each, with
// the box mesh's boundary groups.
mesh::Mesh channel(int nx, int ny, double length, double width) {
  mesh::RawMesh raw;
  raw.dim = 2;
  raw.type = mesh::ElementType::triangle;
  auto id = [nx](int i, int j) { return i + (nx + 1) * j; };
  for (int j = 0; j <= ny; ++j)
    for (int i = 0; i <= nx; ++i) raw.vertices.push_back({length * i / nx, width * j / ny, 0.0});
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      const int a = id(i, j), b = id(i + 1, j), c = id(i + 1, j + 1), d = id(i, j + 1);
      raw.elements.push_back({a, b, c, -1});
      raw.elements.push_back({a, c, d, -1});
    }
  raw.element_region.assign(raw.elements.size(), 0);
  raw.region_names = {"domain"};
  raw.boundary_names = {"xmin", "xmax", "ymin", "ymax"};
  for (int j = 0; j < ny; ++j) {
    raw.tagged_faces.push_back({{id(0, j), id(0, j + 1), -1}, 0});
    raw.tagged_faces.push_back({{id(nx, j), id(nx, j + 1), -1}, 1});
  }
  for (int i = 0; i < nx; ++i) {
    raw.tagged_faces.push_back({{id(i, 0), id(i + 1, 0), -1}, 2});
    raw.tagged_faces.push_back({{id(i, ny), id(i + 1, ny), -1}, 3});
  }
  return mesh::build_mesh(raw);
}

std::vector<BoundaryAssignment> walls() {
  return {{"xmin", "wall", ""}, {"xmax", "wall", ""}, {"ymin", "wall", ""}, {"ymax", "wall", ""}};
}

struct Primitive2 {
  double rho, u, v, p;
};

// Host state [component][K][Np] of euler2d (rho, m.x, m.y, E) from primitive values at each node.
std::vector<double> conserved(const Discretization& disc, double gamma, const std::function<Primitive2(double, double)>& at) {
  const int K = disc.K, Np = disc.element.Np;
  std::vector<double> q(static_cast<std::size_t>(4 * K * Np));
  for (int k = 0; k < K; ++k)
    for (int i = 0; i < Np; ++i) {
      const Primitive2 w = at(disc.x(i, k), disc.y(i, k));
      const double values[4] = {w.rho, w.rho * w.u, w.rho * w.v, w.p / (gamma - 1) + 0.5 * w.rho * (w.u * w.u + w.v * w.v)};
      for (int c = 0; c < 4; ++c) q[static_cast<std::size_t>((c * K + k) * Np + i)] = values[c];
    }
  return q;
}

// Smallest density and pressure over the nodes of a host state.
std::pair<double, double> smallest_density_and_pressure(const std::vector<double>& q, std::size_t nodes, double gamma) {
  double rho_min = std::numeric_limits<double>::infinity(), p_min = rho_min;
  for (std::size_t n = 0; n < nodes; ++n) {
    const double rho = q[n], mx = q[nodes + n], my = q[2 * nodes + n], E = q[3 * nodes + n];
    const double p = (gamma - 1) * (E - 0.5 * (mx * mx + my * my) / rho);
    rho_min = std::min(rho_min, rho);
    p_min = std::min(p_min, p);
    if (!std::isfinite(rho) || !std::isfinite(p)) return {NAN, NAN};
  }
  return {rho_min, p_min};
}

// Runs SSP-RK3 steps of cfl-based length (re-evaluated every 10 steps from the state) to t_final.
// Returns false when the wave speed stops being finite (a blown-up state).
bool run_to(Solver& solver, double t_final, double cfl) {
  double t = 0;
  double dt = 0;
  for (long long step = 0; t < t_final; ++step) {
    if (step % 10 == 0) {
      const double c = solver.max_wave_speed();
      if (std::getenv("RTDG_TEST_VERBOSE")) std::printf("step %lld t %g c %g\n", step, t, c);
      if (!std::isfinite(c) || !(c > 0)) return false;
      dt = solver.stable_dt(cfl);
    }
    const bool land = t + dt >= t_final - 1e-12;
    const double h = land ? t_final - t : dt;
    solver.step(t, h);
    t = land ? t_final : t + h;
  }
  return true;
}

// ---- The filter.

TEST(Filter, DampsEachModeBySigmaAndKeepsTheMean) {
  const fluxes::Law law = fluxes::read_law(euler_law());
  const Element element = make_element(Shape::triangle, 4);
  const Eigen::MatrixXd F = filter_matrix(element, 36.0, 8, 1);
  // In modal space the filter is diagonal: invV F V = diag(sigma), sigma(n) by the degree of n.
  const Eigen::MatrixXd modal = element.invV * F * element.V;
  int mode = 0;
  for (int i = 0; i <= 4; ++i)
    for (int j = 0; j <= 4 - i; ++j, ++mode) {
      const int degree = i + j;
      const double sigma = degree <= 1 ? 1.0 : std::exp(-36.0 * std::pow((degree - 1) / 3.0, 8));
      for (int m = 0; m < element.Np; ++m)
        EXPECT_NEAR(modal(m, mode), m == mode ? sigma : 0.0, 1e-12) << "mode " << mode << " row " << m;
    }
  // The element mean is kept: the constant mode is untouched and the filter is a nodal map, so
  // sum_i (M 1)_i (F u)_i = sum_i (M 1)_i u_i for every u.
  const Eigen::VectorXd weights = element.M.rowwise().sum();
  const Eigen::RowVectorXd defect = weights.transpose() * F - weights.transpose();
  EXPECT_LT(defect.cwiseAbs().maxCoeff(), 1e-13);
  EXPECT_THROW(filter_matrix(element, 36.0, 0, 0), Error);
  EXPECT_THROW(filter_matrix(element, 36.0, 8, 4), Error);
}

TEST(Filter, PositiveQuantitiesMustBeScalarsOfTheState) {
  const fluxes::Law law = fluxes::read_law(euler_law());
  const std::vector<double> params = fluxes::resolve_parameters(law);
  EXPECT_NO_THROW(lower_positive_quantity(law, params, "p", fluxes::Location{"positive[0]", 0, 0}));
  EXPECT_NO_THROW(lower_positive_quantity(law, params, "E - dot(m, m)/(2*rho)", fluxes::Location{"positive[0]", 0, 0}));
  EXPECT_THROW(lower_positive_quantity(law, params, "m", fluxes::Location{"positive[0]", 0, 0}), fluxes::Error);      // a vector
  EXPECT_THROW(lower_positive_quantity(law, params, "rho*x", fluxes::Location{"positive[0]", 0, 0}), fluxes::Error);  // position
  EXPECT_THROW(lower_positive_quantity(law, params, "gamma", fluxes::Location{"positive[0]", 0, 0}), fluxes::Error);  // no state
  EXPECT_THROW(lower_positive_quantity(law, params, "q", fluxes::Location{"positive[0]", 0, 0}), fluxes::Error);      // unknown name
}

// The stabilizer's kernel applied once to a state on the device (field-major, as the default
// plan lays it out): element means are kept exactly and the limiter lifts a negative density
// and pressure to the floor.
TEST(Stabilizer, KeepsMeansAndRestoresPositivity) {
  Stabilization st;
  st.filter_strength = 36;
  st.filter_order = 8;
  st.positive = {"rho", "p"};
  test::LawRun run(euler_law(), channel(4, 1, 1.0, 0.25), 3, host(), {}, walls());
  Stabilizer stabilizer(host(), run.disc, run.law, run.solver->setup().parameters, st, fluxes::ScalarType::float64,
                        Layout::field_major);
  const double gamma = 1.4;
  // Wild values: a density and pressure that dip below zero (rho = 1 + 1.5 sin).
  const std::vector<double> q0 = conserved(run.disc, gamma, [](double x, double y) {
    return Primitive2{1.0 + 1.5 * std::sin(40 * x + 7 * y), 0.3, -0.2, 1.0 + 1.2 * std::cos(30 * x)};
  });
  rtcg::Array<double> q = rtcg::Array<double>::from_host(host(), q0);
  stabilizer.apply(q.data());
  const std::vector<double> q1 = q.to_host();
  const Discretization& disc = run.disc;
  const int K = disc.K, Np = disc.element.Np;
  const Eigen::VectorXd w = disc.element.M.rowwise().sum() / disc.element.M.sum();
  for (int c = 0; c < 4; ++c)
    for (int k = 0; k < K; ++k) {
      double before = 0, after = 0;
      for (int i = 0; i < Np; ++i) {
        before += w(i) * q0[static_cast<std::size_t>((c * K + k) * Np + i)];
        after += w(i) * q1[static_cast<std::size_t>((c * K + k) * Np + i)];
      }
      EXPECT_NEAR(after, before, 1e-13 * (1 + std::abs(before))) << "component " << c << ", element " << k;
    }
  // The same kernel on the element-major state with padded columns (Plan::align: Np = 10 at
  // order 3 -> 12): the same values, the padding left zero.
  const int stride = 12;
  Stabilizer padded(host(), run.disc, run.law, run.solver->setup().parameters, st, fluxes::ScalarType::float64,
                    Layout::element_major, stride);
  auto at = [&](int c, int k, int i) { return static_cast<std::size_t>((c * K + k) * Np + i); };
  auto padded_at = [&](int c, int k, int i) { return static_cast<std::size_t>((k * 4 + c) * stride + i); };
  std::vector<double> q0_padded(static_cast<std::size_t>(4 * K * stride), 0.0);
  for (int c = 0; c < 4; ++c)
    for (int k = 0; k < K; ++k)
      for (int i = 0; i < Np; ++i) q0_padded[padded_at(c, k, i)] = q0[at(c, k, i)];
  rtcg::Array<double> qp = rtcg::Array<double>::from_host(host(), q0_padded);
  padded.apply(qp.data());
  const std::vector<double> q1_padded = qp.to_host();
  int differ = 0, padding = 0;
  for (int c = 0; c < 4; ++c)
    for (int k = 0; k < K; ++k) {
      for (int i = 0; i < Np; ++i) differ += q1_padded[padded_at(c, k, i)] != q1[at(c, k, i)];
      for (int i = Np; i < stride; ++i) padding += q1_padded[padded_at(c, k, i)] != 0.0;
    }
  EXPECT_EQ(differ, 0);
  EXPECT_EQ(padding, 0);
  const auto [rho_before, p_before] = smallest_density_and_pressure(q0, static_cast<std::size_t>(K * Np), gamma);
  const auto [rho_after, p_after] = smallest_density_and_pressure(q1, static_cast<std::size_t>(K * Np), gamma);
  std::printf("stabilizer: min rho %.3g -> %.3g, min p %.3g -> %.3g\n", rho_before, rho_after, p_before, p_after);
  ASSERT_LT(rho_before, 0);
  EXPECT_GE(rho_after, 1e-10 - 1e-15);  // the floor, up to rounding of the mean (~1)
  EXPECT_GE(p_after, 1e-10 - 1e-15);
}

// ---- Sod's shock tube: rho, p = 1, 1 | 0.125, 0.1 at rest, diaphragm at x = 0.5, t = 0.2, in
// a channel of 50 x 1 squares with slip walls (the waves stay inside until t = 0.2). The
// filter (alpha 36, s 8, Nc 0... see docs/shock-capturing.md) and the positivity limiter on rho
// and p; SSP-RK3 at cfl 0.4.
struct SodCase {
  int N;
  double l1_limit;  // documented in docs/shock-capturing.md (measured, with a margin)
};

class Sod : public ::testing::TestWithParam<SodCase> {};

Stabilization shock_capturing() {
  Stabilization st;
  st.filter_strength = 36;
  st.filter_order = 8;
  st.filter_cutoff = 0;
  st.positive = {"rho", "p"};
  return st;
}

TEST_P(Sod, DensityIsWithinItsL1ErrorOfTheExactRiemannSolution) {
  const SodCase sc = GetParam();
  const double gamma = 1.4, t_final = 0.2;
  const int nx = 50;
  test::LawRun base(euler_law(), channel(nx, 1, 1.0, 1.0 / nx), sc.N, host(), {{"u0", 0.0, {}}, {"beta", 0.0, {}}}, walls(),
                    Integrator::ssprk3);
  SolverSetup setup = base.solver->setup();
  setup.stabilization = shock_capturing();
  Solver solver(host(), base.disc, setup);
  const Discretization& disc = base.disc;
  solver.set_state(conserved(disc, gamma, [](double x, double) {
    return x < 0.5 ? Primitive2{1.0, 0, 0, 1.0} : Primitive2{0.125, 0, 0, 0.1};
  }));
  ASSERT_TRUE(run_to(solver, t_final, 0.4)) << "the wave speed stopped being finite";
  const std::vector<double> q = solver.state();
  const int K = disc.K, Np = disc.element.Np;
  const auto [rho_min, p_min] = smallest_density_and_pressure(q, static_cast<std::size_t>(K * Np), gamma);
  EXPECT_GT(rho_min, 0);
  EXPECT_GT(p_min, 0);
  // L1 error of the density over the channel per unit width: sum over elements of J w_i |e_i|
  // (the mass matrix's row sums as quadrature weights), divided by the width.
  const ExactRiemann exact({1.0, 0.0, 1.0}, {0.125, 0.0, 0.1}, gamma);
  const Eigen::VectorXd w = disc.element.M.rowwise().sum();
  double l1 = 0;
  for (int k = 0; k < K; ++k)
    for (int i = 0; i < Np; ++i) {
      const double rho = q[static_cast<std::size_t>(k * Np + i)];
      l1 += disc.J(0, k) * w(i) * std::abs(rho - exact.sample((disc.x(i, k) - 0.5) / t_final).rho);
    }
  l1 *= nx;  // / width
  std::printf("Sod N=%d: density L1 error %.4f (limit %.4f), min rho %.4f, min p %.4f\n", sc.N, l1, sc.l1_limit, rho_min,
              p_min);
  EXPECT_LT(l1, sc.l1_limit);
}

INSTANTIATE_TEST_SUITE_P(Euler2D, Sod,
                         ::testing::Values(SodCase{2, 0.03}, SodCase{3, 0.012}, SodCase{4, 0.008}, SodCase{5, 0.006}),
                         [](const auto& param_info) { return "N" + std::to_string(param_info.param.N); });

// ---- A 2D Riemann problem: Lax & Liu's configuration 3 (four shocks; C. W. Schulz-Rinne,
// J. P. Collins, H. M. Glaz, SIAM J. Sci. Comput. 14 (1993); Kurganov & Tadmor, Numer. Methods
// PDE 18 (2002)) on [0, 1]^2 split at (0.5, 0.5), here with slip walls all round, so the
// lower-left state (rho 0.138, p 0.029) moves away from two walls and leaves a near-vacuum
// behind it: the positivity limiter must keep density and pressure positive. Orders 2-5, 12 x 12
// squares, t = 0.2.
class Riemann2D : public ::testing::TestWithParam<int> {};

TEST_P(Riemann2D, Configuration3StaysPositive) {
  const double gamma = 1.4;
  const int N = GetParam();
  test::LawRun base(euler_law(), channel(12, 12, 1.0, 1.0), N, host(), {}, walls(), Integrator::ssprk3);
  SolverSetup setup = base.solver->setup();
  setup.stabilization = shock_capturing();
  Solver solver(host(), base.disc, setup);
  const Discretization& disc = base.disc;
  solver.set_state(conserved(disc, gamma, [](double x, double y) {
    if (x >= 0.5 && y >= 0.5) return Primitive2{1.5, 0, 0, 1.5};
    if (x < 0.5 && y >= 0.5) return Primitive2{0.5323, 1.206, 0, 0.3};
    if (x < 0.5) return Primitive2{0.138, 1.206, 1.206, 0.029};
    return Primitive2{0.5323, 0, 1.206, 0.3};
  }));
  ASSERT_TRUE(run_to(solver, 0.2, 0.4)) << "the wave speed stopped being finite";
  const std::vector<double> q = solver.state();
  const auto [rho_min, p_min] = smallest_density_and_pressure(q, static_cast<std::size_t>(disc.K * disc.element.Np), gamma);
  std::printf("2D Riemann configuration 3, N=%d: min rho %.4g, min p %.4g\n", N, rho_min, p_min);
  EXPECT_GT(rho_min, 0);
  EXPECT_GT(p_min, 0);
}

INSTANTIATE_TEST_SUITE_P(Orders, Riemann2D, ::testing::Values(2, 3, 4, 5),
                         [](const auto& p) { return "N" + std::to_string(p.param); });

}  // namespace
}  // namespace rtdg::dg
