// Shared set-up for the solver tests: a law from data/laws, a box mesh from test_meshes, the
// discretization and a solver on a chosen backend, and a helper that runs to a final time.
#pragma once

#include "test_meshes.hpp"

#include <dg/discretization.hpp>
#include <dg/solver.hpp>
#include <fluxes/law.hpp>
#include <fluxes/law_lowering.hpp>
#include <mesh/build.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace rtdg::dg::test {

inline double max_abs(const std::vector<double>& v) {
  double m = 0;
  for (double x : v) m = std::max(m, std::abs(x));
  return m;
}

// Largest |a[i] - b[i]|; infinity when the sizes differ, so that a bound on it fails.
inline double max_difference(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return std::numeric_limits<double>::infinity();
  double m = 0;
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) m = std::max(m, std::abs(a[i] - b[i]));
  return m;
}

// A fused plan with the fields the plan tests vary; the rest as Plan{} has them.
inline Plan fused_plan(Layout layout, int elements, int nodes_per_thread, Operators operators, Derivative derivative,
                       Products products = Products::scalar, Prefetch prefetch = Prefetch::off) {
  Plan plan;
  plan.products = products;
  plan.prefetch = prefetch;
  plan.fusion = Fusion::stage;
  plan.layout = layout;
  plan.stage_elements_per_block = elements;
  plan.nodes_per_thread = nodes_per_thread;
  plan.operators = operators;
  plan.derivative = derivative;
  return plan;
}

// A pseudo-random state in [-1, 1): every term of the right-hand side is exercised, unlike a
// smooth mode.
inline std::vector<double> random_state(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::vector<double> values(n);
  for (double& v : values) v = static_cast<double>(random() >> 11) * 0x1.0p-53 * 2.0 - 1.0;
  return values;
}

// Whether the compile-only tests compile their `index`-th program with NVRTC. They generate
// every source (the generator is rtdg's code, and its refusals are checked for each), but NVRTC
// takes seconds per program: compiling all of them was two thirds of a test run's time on 2
// cores (CompileWithNvrtcForSm90 291 s, ByColumnProductsCompileWithNvrtcForSm90 174 s), and
// under AddressSanitizer, whose allocator NVRTC's allocations go through, 1.7x that. So a test
// run compiles every seventh program, the first included (a stride prime to the loops' lengths,
// so that the samples fall on every law, order, precision and plan kind), and
// RTDG_TEST_NVRTC_ALL=1 compiles every one: the ctest entry GeneratedDgKernels.EveryProgram,
// label `exhaustive` (tests/dg/CMakeLists.txt; scripts/gpu-check runs it, as does
// `ctest -L exhaustive`). Times: benchmarks/results/test-times-host-2026-12-02.md.
inline bool nvrtc_compiles(std::size_t index) {
  static const bool all = [] {
    const char* value = std::getenv("RTDG_TEST_NVRTC_ALL");
    return value != nullptr && std::string(value) == "1";
  }();
  return all || index % 7 == 0;
}

inline fluxes::Law law_file(const std::string& name) {
  return fluxes::read_law(std::string(RTDG_SOURCE_DIR) + "/data/laws/" + name + ".toml");
}

// A cavity: the unit box meshed n per side, every wall PEC.
struct Cavity {
  fluxes::Law law;
  mesh::Mesh mesh;
  Discretization disc;
  std::unique_ptr<Solver> solver;

  Cavity(const std::string& law_name, int n, int N, rtcg::Backend& backend, double alpha = 1.0,
         fluxes::ScalarType scalar = fluxes::ScalarType::float64, Integrator integrator = Integrator::lserk4,
         Plan plan = {})
      : law(law_file(law_name)) {
    mesh = mesh::build_mesh(box_mesh(law.dimension, n));
    disc = discretize(mesh, N);
    SolverSetup setup;
    setup.law = &law;
    setup.parameters = fluxes::resolve_parameters(law, {{"alpha", alpha, {}}});
    for (const char* wall : {"xmin", "xmax", "ymin", "ymax", "zmin", "zmax"})
      if (law.dimension == 3 || wall[0] != 'z') setup.boundaries.push_back({wall, "pec", ""});
    setup.scalar = scalar;
    setup.integrator = integrator;
    setup.plan = plan;
    solver = std::make_unique<Solver>(backend, disc, setup);
  }

  // Runs from the exact solution at t = 0 to t_final with steps of at most cfl * stable dt,
  // the last one shortened to land on t_final. Calls `each(t)` after every step.
  template <class Each>
  void run(double t_final, double cfl, Each&& each) {
    solver->set_state(solver->exact_values(0.0));
    const double dt = solver->stable_dt(cfl);
    const int steps = static_cast<int>(std::ceil(t_final / dt - 1e-9));
    double t = 0;
    for (int s = 0; s < steps; ++s) {
      const double h = s + 1 == steps ? t_final - t : dt;
      solver->step(t, h);
      t = s + 1 == steps ? t_final : t + h;
      each(t);
    }
  }
  void run(double t_final, double cfl) {
    run(t_final, cfl, [](double) {});
  }

  // L2 norm of (state - exact(t)).
  double error(double t) const {
    std::vector<double> q = solver->state();
    const std::vector<double> exact = solver->exact_values(t);
    for (std::size_t i = 0; i < q.size(); ++i) q[i] -= exact[i];
    return solver->l2_norm(q);
  }
};

}  // namespace rtdg::dg::test
