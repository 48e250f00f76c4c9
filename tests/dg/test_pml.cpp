// The perfectly matched layers of maxwell2d_tm_pml.toml and maxwell3d_pml.toml (issue 12). A
// Gaussian pulse of Ez starts inside a box B, which is truncated three ways, all on the same
// grid (so that each domain's elements are elements of the others):
//   PML:       B plus a layer (the laws' profile), PEC outside it;
//   absorbing: B with the Silver-Mueller condition on its faces;
//   reference: a domain so large that nothing comes back into B before the final time.
// The reflection of a truncation is its largest difference from the reference inside B (at
// probes, or anywhere), relative to the reference's largest |Ez| in B.
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

using Point = std::array<double, 3>;
using Key = std::array<long long, 3>;

Key key(const Point& p) { return {std::llround(p[0] * 1e6), std::llround(p[1] * 1e6), std::llround(p[2] * 1e6)}; }

struct Case {
  int dim = 2, order = 4;
  double h = 0.25, t_final = 1.0;
  Point box{};     // B = [-box, box] per axis
  Point source{};  // the pulse exp(-|x - source|^2 / width^2) in Ez
  double width = 0.2;
  double reference_margin = 0;  // the reference domain is B grown by this on every side
};

struct Probe {
  Point at;
  double until;  // the window: before the next echo arrives
};

// Ez at every node inside B, sampled every few steps.
using Samples = std::vector<std::map<Key, double>>;

// Runs the pulse on B grown by `margin` on every side, with `outer` on the mesh's faces; a PML
// of width `pml` (0: none) lies between B and the mesh's faces.
Samples run(const fluxes::Law& law, const Case& c, double margin, const std::string& outer, double pml, double dt,
            int steps, int every) {
  std::array<int, 3> cells{};
  Point origin{}, size{};
  for (int a = 0; a < c.dim; ++a) {
    const auto s = static_cast<std::size_t>(a);
    origin[s] = -c.box[s] - margin;
    size[s] = 2 * (c.box[s] + margin);
    cells[s] = static_cast<int>(std::lround(size[s] / c.h));
  }
  const mesh::Mesh mesh = mesh::build_mesh(test::box_mesh(c.dim, cells, origin, size));
  const Discretization disc = discretize(mesh, c.order);
  SolverSetup setup;
  setup.law = &law;
  std::vector<fluxes::ParameterOverride> overrides;
  if (pml > 0) {
    overrides.push_back({"pml_width", pml, {}});
    const char* axes[] = {"x", "y", "z"};
    for (int a = 0; a < c.dim; ++a) {
      overrides.push_back({std::string("pml_") + axes[a] + "min", -c.box[static_cast<std::size_t>(a)], {}});
      overrides.push_back({std::string("pml_") + axes[a] + "max", c.box[static_cast<std::size_t>(a)], {}});
    }
  }
  setup.parameters = fluxes::resolve_parameters(law, overrides);
  for (const char* wall : {"xmin", "xmax", "ymin", "ymax", "zmin", "zmax"})
    if (c.dim == 3 || wall[0] != 'z') setup.boundaries.push_back({wall, outer, ""});
  Solver solver(rtcg::backend("host"), disc, setup);
  const int K = disc.K, Np = disc.element.Np;
  const int ez = 2;  // components: 2D Hx, Hy, Ez, ...; 3D Ex, Ey, Ez, ...
  auto at = [K, Np](int comp, int k, int i) {
    return (static_cast<std::size_t>(comp) * static_cast<std::size_t>(K) + static_cast<std::size_t>(k)) *
               static_cast<std::size_t>(Np) + static_cast<std::size_t>(i);
  };
  auto node = [&](int i, int k) {
    return Point{disc.x(i, k), disc.y(i, k), c.dim == 3 ? disc.z(i, k) : 0.0};
  };
  std::vector<double> q(solver.size(), 0.0);
  for (int k = 0; k < K; ++k)
    for (int i = 0; i < Np; ++i) {
      const Point p = node(i, k);
      double r2 = 0;
      for (int a = 0; a < c.dim; ++a) r2 += std::pow(p[static_cast<std::size_t>(a)] - c.source[static_cast<std::size_t>(a)], 2);
      q[at(ez, k, i)] = std::exp(-r2 / (c.width * c.width));
    }
  solver.set_state(q);
  Samples samples;
  auto sample = [&] {
    const std::vector<double> state = solver.state();
    auto& s = samples.emplace_back();
    for (int k = 0; k < K; ++k)
      for (int i = 0; i < Np; ++i) {
        const Point p = node(i, k);
        bool inside = true;
        for (int a = 0; a < c.dim; ++a)
          inside = inside && std::abs(p[static_cast<std::size_t>(a)]) <= c.box[static_cast<std::size_t>(a)] + 1e-9;
        if (inside) s[key(p)] = state[at(ez, k, i)];
      }
  };
  sample();
  for (int n = 0; n < steps; ++n) {
    solver.step(n * dt, dt);
    if ((n + 1) % every == 0) sample();
  }
  return samples;
}

// The largest |run - reference| relative to the reference's largest |Ez| in B: at each probe
// (the nearest node, the same in every run) within its window, and anywhere in B (last entry).
std::vector<double> reflection(const Samples& run, const Samples& reference, double sample_dt,
                               const std::vector<Probe>& probes) {
  double peak = 0;
  for (const auto& s : reference)
    for (const auto& [where, value] : s) peak = std::max(peak, std::abs(value));
  std::vector<Key> nodes;
  for (const Probe& probe : probes) {
    Key best{};
    double distance = 1e300;
    for (const auto& [where, value] : reference.front()) {
      double d = 0;
      for (std::size_t a = 0; a < 3; ++a) d += std::pow(static_cast<double>(where[a]) * 1e-6 - probe.at[a], 2);
      if (d < distance) {
        distance = d;
        best = where;
      }
    }
    nodes.push_back(best);
  }
  std::vector<double> r(probes.size() + 1, 0.0);
  for (std::size_t n = 0; n < reference.size(); ++n) {
    const double t = static_cast<double>(n) * sample_dt;
    for (const auto& [where, value] : reference[n]) {
      const double d = std::abs(run[n].at(where) - value) / peak;
      r.back() = std::max(r.back(), d);
      for (std::size_t p = 0; p < probes.size(); ++p)
        if (where == nodes[p] && t <= probes[p].until) r[p] = std::max(r[p], d);
    }
  }
  return r;
}

double dB(double ratio) { return 20 * std::log10(ratio); }

struct Measured {
  std::vector<double> absorbing;             // per probe, then anywhere
  std::vector<std::vector<double>> layers;   // per PML width, the same
};

Measured measure(const char* law_file, const Case& c, const std::vector<Probe>& probes, const std::vector<double>& widths) {
  const fluxes::Law law = fluxes::read_law(std::string(RTDG_SOURCE_DIR) + "/data/laws/" + law_file);
  // One time step for every run: the same grid, so the same stable step.
  double dt = 0;
  {
    const mesh::Mesh mesh = mesh::build_mesh(test::box_mesh(c.dim, {2, 2, 2}, {0, 0, 0}, {2 * c.h, 2 * c.h, 2 * c.h}));
    SolverSetup setup;
    setup.law = &law;
    setup.parameters = fluxes::resolve_parameters(law);
    for (const char* wall : {"xmin", "xmax", "ymin", "ymax", "zmin", "zmax"})
      if (c.dim == 3 || wall[0] != 'z') setup.boundaries.push_back({wall, "pec", ""});
    const Discretization disc = discretize(mesh, c.order);  // the solver keeps a reference to it
    Solver solver(rtcg::backend("host"), disc, setup);
    dt = solver.stable_dt(0.5);
  }
  const int steps = static_cast<int>(std::ceil(c.t_final / dt));
  dt = c.t_final / steps;
  const int every = 2;
  const Samples reference = run(law, c, c.reference_margin, "absorbing", 0, dt, steps, every);
  Measured m;
  m.absorbing = reflection(run(law, c, 0, "absorbing", 0, dt, steps, every), reference, every * dt, probes);
  for (double w : widths) m.layers.push_back(reflection(run(law, c, w, "pec", w, dt, steps, every), reference, every * dt, probes));
  std::printf("%s, order %d, h = %g: reflection in dB of the pulse's peak", law_file, c.order, c.h);
  for (std::size_t p = 0; p < probes.size(); ++p) std::printf(" | probe %zu", p + 1);
  std::printf(" | anywhere in B\n");
  auto row = [](const std::vector<double>& r) {
    for (double v : r) std::printf("   %7.1f", dB(v));
    std::printf("\n");
  };
  std::printf("  Silver-Mueller on B:        ");
  row(m.absorbing);
  for (std::size_t i = 0; i < widths.size(); ++i) {
    std::printf("  PML of width %-4g (%2d el.): ", widths[i], static_cast<int>(std::lround(widths[i] / c.h)));
    row(m.layers[i]);
  }
  return m;
}

// 2D TM: B = [-3, 3] x [-1, 1], the pulse at S = (-2, 0.5), order 4, h = 1/4, until t = 4.8;
// the reference domain [-5.5, 5.5] x [-3.5, 3.5]. Probes:
//   normal:  (-2, 0), below S: the first echo is from y = 1 at normal incidence (until t = 1.9,
//            when the echo from x = -3 arrives);
//   grazing: (2, 0.5), level with S: the first echo is from y = 1 at 76 degrees from the
//            normal (until t = 4.8, when the echo from y = -1 arrives).
// Measured: Silver-Mueller -46.9 / -28.0 / -25.4 dB; PML 0.5 -83.1 / -82.3 / -48.3; PML 1
// -107.9 / -104.3 / -73.8.
TEST(Pml, ReflectsFarLessThanTheSilverMuellerBox2D) {
  Case c;
  c.dim = 2;
  c.order = 4;
  c.h = 0.25;
  c.t_final = 4.8;
  c.box = {3, 1, 0};
  c.source = {-2, 0.5, 0};
  c.width = 0.2;
  c.reference_margin = 2.5;
  const Measured m = measure("maxwell2d_tm_pml.toml", c, {{{-2, 0, 0}, 1.9}, {{2, 0.5, 0}, 4.8}}, {0.5, 1.0});
  const auto& sm = m.absorbing;
  const auto& thin = m.layers[0];
  const auto& thick = m.layers[1];
  EXPECT_LT(dB(thick[0]), dB(sm[0]) - 55);
  EXPECT_LT(dB(thick[1]), dB(sm[1]) - 70);
  EXPECT_LT(dB(thick[2]), dB(sm[2]) - 45);
  EXPECT_LT(dB(thin[0]), dB(sm[0]) - 33);
  EXPECT_LT(dB(thin[1]), dB(sm[1]) - 50);
}

// 3D: B = [-1, 1]^3, the pulse at the centre, order 3, h = 1/2, until t = 2; the reference
// domain [-2.5, 2.5]^3 (its first echo reaches B at t = 4). Probes: (0.75, 0, 0) on an axis
// (the first echo from x = 1 at normal incidence, until t = 1.5 when the echoes from the other
// faces arrive), (0.75, 0.75, 0.75) towards a corner (echoes at 50 degrees and more).
// Measured: Silver-Mueller -45.0 / -38.2 / -27.6 dB; PML of width 1 (2 elements) -91.6 / -73.2
// / -52.1.
TEST(Pml, ReflectsFarLessThanTheSilverMuellerBox3D) {
  Case c;
  c.dim = 3;
  c.order = 3;
  c.h = 0.5;
  c.t_final = 2.0;
  c.box = {1, 1, 1};
  c.source = {0, 0, 0};
  c.width = 0.35;
  c.reference_margin = 1.5;
  const Measured m = measure("maxwell3d_pml.toml", c, {{{0.75, 0, 0}, 1.5}, {{0.75, 0.75, 0.75}, 2.0}}, {1.0});
  const auto& sm = m.absorbing;
  const auto& layer = m.layers[0];
  EXPECT_LT(dB(layer[0]), dB(sm[0]) - 40);
  EXPECT_LT(dB(layer[1]), dB(sm[1]) - 30);
  EXPECT_LT(dB(layer[2]), dB(sm[2]) - 20);
}

}  // namespace
}  // namespace rtdg::dg
