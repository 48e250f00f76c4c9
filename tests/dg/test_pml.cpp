// The perfectly matched layer of maxwell2d_tm_pml.toml (issue 12). A Gaussian pulse of Ez
// starts at S = (-2, 0.5) in the box B = [-3, 3] x [-1, 1]; B is truncated three ways, all on the
// same grid (h = 1/4, so each domain's elements are elements of the others):
//   pml:       B plus a layer of width 1/2 (the profile of maxwell2d_tm_pml), PEC outside it;
//   absorbing: B with the Silver-Mueller condition on its edges;
//   reference: [-5.5, 5.5] x [-3.5, 3.5], from which nothing comes back before t = 4.8.
// The reflection of a truncation is its difference from the reference inside B, relative to
// the reference's largest value there, at two probes:
//   normal:  (-2, 0), below S: the first echo is from y = 1 at normal incidence (until t = 1.9,
//            when the echo from x = -3 arrives);
//   grazing: (2, 0.5), level with S: the first echo is from y = 1 at 76 degrees from the normal
//            (until t = 4.8, when the echo from y = -1 arrives);
// and everywhere in B until t = 4.8.
#include "test_meshes.hpp"

#include <dg/discretization.hpp>
#include <dg/solver.hpp>
#include <fluxes/law.hpp>
#include <fluxes/law_lowering.hpp>
#include <mesh/build.hpp>
#include <rtcg/backend.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace rtdg::dg {
namespace {

constexpr double h = 0.25;
constexpr int order = 4;
constexpr double t_final = 4.8;
constexpr double sx = -2.0, sy = 0.5, width = 0.2;  // the pulse exp(-|x - S|^2 / width^2)

// Ez at every node inside B (keyed by its coordinates, rounded), sampled at fixed times.
using Samples = std::vector<std::map<std::array<long long, 2>, double>>;

std::array<long long, 2> key(double x, double y) { return {std::llround(x * 1e6), std::llround(y * 1e6)}; }

struct Truncation {
  double x0, x1, y0, y1;        // the mesh's extent
  std::string outer;            // the condition on its edges
  double pml_width = 0.0;       // 0: no layer
};

// Runs the pulse to t_final with time step dt, sampling every `every` steps.
Samples run(const fluxes::Law& law, const Truncation& tr, double dt, int steps, int every) {
  const int nx = static_cast<int>(std::lround((tr.x1 - tr.x0) / h)), ny = static_cast<int>(std::lround((tr.y1 - tr.y0) / h));
  const mesh::Mesh mesh = mesh::build_mesh(test::box_mesh(2, {nx, ny, 0}, {tr.x0, tr.y0, 0}, {tr.x1 - tr.x0, tr.y1 - tr.y0, 0}));
  const Discretization disc = discretize(mesh, order);
  SolverSetup setup;
  setup.law = &law;
  std::vector<fluxes::ParameterOverride> overrides;
  if (tr.pml_width > 0) {
    overrides = {{"pml_xmin", -3.0, {}}, {"pml_xmax", 3.0, {}}, {"pml_ymin", -1.0, {}},
                 {"pml_ymax", 1.0, {}},  {"pml_width", tr.pml_width, {}}};
  }
  setup.parameters = fluxes::resolve_parameters(law, overrides);
  for (const char* wall : {"xmin", "xmax", "ymin", "ymax"}) setup.boundaries.push_back({wall, tr.outer, ""});
  Solver solver(rtcg::backend("host"), disc, setup);
  const int K = disc.K, Np = disc.element.Np;
  const int ez = 2;  // components Hx, Hy, Ez, P, Qx, Qy
  auto at = [K, Np](int c, int k, int i) {
    return (static_cast<std::size_t>(c) * static_cast<std::size_t>(K) + static_cast<std::size_t>(k)) *
               static_cast<std::size_t>(Np) + static_cast<std::size_t>(i);
  };
  std::vector<double> q(solver.size(), 0.0);
  for (int k = 0; k < K; ++k)
    for (int i = 0; i < Np; ++i) {
      const double dx = disc.x(i, k) - sx, dy = disc.y(i, k) - sy;
      q[at(ez, k, i)] = std::exp(-(dx * dx + dy * dy) / (width * width));
    }
  solver.set_state(q);
  Samples samples;
  auto sample = [&] {
    const std::vector<double> state = solver.state();
    auto& s = samples.emplace_back();
    for (int k = 0; k < K; ++k)
      for (int i = 0; i < Np; ++i) {
        const double x = disc.x(i, k), y = disc.y(i, k);
        if (std::abs(x) <= 3 + 1e-9 && std::abs(y) <= 1 + 1e-9) s[key(x, y)] = state[at(ez, k, i)];
      }
  };
  sample();
  for (int n = 0; n < steps; ++n) {
    solver.step(n * dt, dt);
    if ((n + 1) % every == 0) sample();
  }
  return samples;
}

struct Reflection {
  double normal, grazing, everywhere;  // relative to the reference's largest |Ez| in B
};

// The largest |run - reference| at a probe (until `until`) or over B, over the samples.
Reflection reflection(const Samples& run, const Samples& reference, double dt, int every) {
  double peak = 0;
  for (const auto& s : reference)
    for (const auto& [where, value] : s) peak = std::max(peak, std::abs(value));
  // The node nearest each probe (the grids agree, so it is the same node in every run).
  auto nearest = [&](double x, double y) {
    std::array<long long, 2> best{};
    double distance = 1e300;
    for (const auto& [where, value] : reference.front()) {
      const double d = std::hypot(static_cast<double>(where[0]) * 1e-6 - x, static_cast<double>(where[1]) * 1e-6 - y);
      if (d < distance) {
        distance = d;
        best = where;
      }
    }
    return best;
  };
  const auto normal = nearest(-2.0, 0.0), grazing = nearest(2.0, 0.5);
  Reflection r{0, 0, 0};
  for (std::size_t n = 0; n < reference.size(); ++n) {
    const double t = static_cast<double>(n) * every * dt;
    for (const auto& [where, value] : reference[n]) {
      const double d = std::abs(run[n].at(where) - value) / peak;
      r.everywhere = std::max(r.everywhere, d);
      if (where == normal && t <= 1.9) r.normal = std::max(r.normal, d);
      if (where == grazing) r.grazing = std::max(r.grazing, d);
    }
  }
  return r;
}

double dB(double ratio) { return 20 * std::log10(ratio); }

TEST(Pml, ReflectsFarLessThanTheSilverMuellerBox) {
  const fluxes::Law law = fluxes::read_law(std::string(RTDG_SOURCE_DIR) + "/data/laws/maxwell2d_tm_pml.toml");
  // One time step for all three runs (the same grid, so the same stable step).
  const Truncation reference{-5.5, 5.5, -3.5, 3.5, "absorbing"};
  const Truncation absorbing{-3, 3, -1, 1, "absorbing"};
  const Truncation thin{-3.5, 3.5, -1.5, 1.5, "pec", 0.5};
  const Truncation thick{-4, 4, -2, 2, "pec", 1.0};
  double dt = 0;
  {
    const mesh::Mesh mesh = mesh::build_mesh(test::box_mesh(2, {4, 4, 0}, {0, 0, 0}, {1, 1, 0}));
    SolverSetup setup;
    setup.law = &law;
    setup.parameters = fluxes::resolve_parameters(law);
    for (const char* wall : {"xmin", "xmax", "ymin", "ymax"}) setup.boundaries.push_back({wall, "pec", ""});
    Solver solver(rtcg::backend("host"), discretize(mesh, order), setup);
    dt = solver.stable_dt(0.5);
  }
  const int steps = static_cast<int>(std::ceil(t_final / dt));
  dt = t_final / steps;
  const int every = 2;
  const Samples ref = run(law, reference, dt, steps, every);
  const Reflection sm = reflection(run(law, absorbing, dt, steps, every), ref, dt, every);
  const Reflection two = reflection(run(law, thin, dt, steps, every), ref, dt, every);
  const Reflection four = reflection(run(law, thick, dt, steps, every), ref, dt, every);
  std::printf("reflection (dB of the pulse's peak), order %d, h = %g: normal incidence, grazing (76 deg), anywhere in B\n",
              order, h);
  std::printf("  Silver-Mueller at B's edges:   %7.1f %7.1f %7.1f\n", dB(sm.normal), dB(sm.grazing), dB(sm.everywhere));
  std::printf("  PML of width 0.5 (2 elements): %7.1f %7.1f %7.1f\n", dB(two.normal), dB(two.grazing), dB(two.everywhere));
  std::printf("  PML of width 1 (4 elements):   %7.1f %7.1f %7.1f\n", dB(four.normal), dB(four.grazing),
              dB(four.everywhere));
  // Measured: SM -46.9 / -28.0 / -25.4, PML 0.5 -83.1 / -82.3 / -48.3, PML 1 -107.9 / -104.3 / -73.8.
  EXPECT_LT(dB(four.normal), dB(sm.normal) - 55);
  EXPECT_LT(dB(four.grazing), dB(sm.grazing) - 70);
  EXPECT_LT(dB(four.everywhere), dB(sm.everywhere) - 45);
  EXPECT_LT(dB(two.normal), dB(sm.normal) - 33);
  EXPECT_LT(dB(two.grazing), dB(sm.grazing) - 50);
}

}  // namespace
}  // namespace rtdg::dg
