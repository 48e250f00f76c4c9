// Every plan family on meshes that mix affine and curved elements, host backend: the fused stage
// kernel and the Bernstein basis run the affine group, the curved group keeps its own kernels
// (docs/curved.md), and the right-hand side and a few steps of both integrators match the
// default (unfused, nodal) plan, which tests/dg/test_curved.cpp checks against exact modes.
#include "curved_plans.hpp"

#include <dg/kernels.hpp>
#include <dg/tuning.hpp>
#include <mesh/load.hpp>
#include <rtcg/backend.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>

namespace rtdg::dg {
namespace {

rtcg::Backend& host() { return rtcg::backend("host"); }

// The stored curved meshes of test_curved_cuda.cpp (data/meshes/curved): a disk of geometry
// order 2 and a ball of geometry order 3.
mesh::Mesh curved_mesh(const std::string& name) {
  return mesh::load_mesh(std::filesystem::path(RTDG_SOURCE_DIR) / "data/meshes/curved" / name);
}

struct Run {
  std::vector<double> rhs, state;
};

Run run(const Discretization& disc, const fluxes::Law& law, const Plan& plan, Integrator integrator,
        const std::vector<double>& start, double dt, int steps) {
  SolverSetup setup;
  setup.law = &law;
  setup.parameters = fluxes::resolve_parameters(law, {});
  setup.boundaries.push_back({"wall", "pec", ""});
  setup.integrator = integrator;
  setup.plan = plan;
  Solver solver(host(), disc, setup);
  solver.set_state(start);
  Run out;
  out.rhs = solver.rhs(0.25);
  for (int s = 0; s < steps; ++s) solver.step(0.25 + s * dt, dt);
  out.state = solver.state();
  return out;
}

// `plans`: which of test::curved_plans() to run (all when empty).
// `straight_check`: also run the mesh with every element affine and check that the curved group
// changes the right-hand side (a plan that dropped it would differ from the default plan).
void compare(const mesh::Mesh& mesh, const char* law_name, int N, const std::vector<std::size_t>& plans,
             bool straight_check) {
  const fluxes::Law law = test::law_file(law_name);
  const Discretization disc = discretize(mesh, N);
  ASSERT_FALSE(disc.curved.empty());
  ASSERT_LT(disc.curved.size(), static_cast<std::size_t>(disc.K));  // a mix of both groups
  std::printf("%s N = %d: %zu of %d elements curved\n", law_name, N, disc.curved.size(), disc.K);
  const std::size_t size = law.state_components() * static_cast<std::size_t>(disc.K) * static_cast<std::size_t>(disc.element.Np);
  const std::vector<double> start = test::random_state(size, 11);
  double dt = 0;
  {
    SolverSetup setup;
    setup.law = &law;
    setup.parameters = fluxes::resolve_parameters(law, {});
    setup.boundaries.push_back({"wall", "pec", ""});
    Solver solver(host(), disc, setup);
    dt = solver.stable_dt(0.5);
  }
  const int steps = 3;
  // The same mesh with every element on the affine path (node-0 factors): the curved group's
  // share of the right-hand side, which a plan that dropped it would miss.
  Run straight;
  if (straight_check) {
    Discretization affine = disc;
    affine.curved.clear();
    straight = run(affine, law, Plan{}, Integrator::lserk4, start, dt, steps);
  }
  for (const Integrator integrator : {Integrator::lserk4, Integrator::ssprk3}) {
    const Run reference = run(disc, law, Plan{}, integrator, start, dt, steps);
    const double rhs_scale = test::max_abs(reference.rhs);
    std::vector<double> change = reference.state;
    for (std::size_t i = 0; i < change.size(); ++i) change[i] -= start[i];
    const double change_scale = test::max_abs(change);
    if (straight_check && integrator == Integrator::lserk4) {
      const double curved_share = test::max_difference(straight.rhs, reference.rhs);
      std::printf("%s N = %d: the curved group changes the rhs by %.3e of %.3e\n", law_name, N, curved_share, rhs_scale);
      EXPECT_GT(curved_share, 1e-3 * rhs_scale);
    }
    const std::vector<Plan> all = test::curved_plans();
    for (std::size_t p = 0; p < all.size(); ++p) {
      if (!plans.empty() && std::find(plans.begin(), plans.end(), p) == plans.end()) continue;
      const Plan& plan = all[p];
      SCOPED_TRACE(plan.describe() + ", " + std::string(to_string(integrator)));
      const Run other = run(disc, law, plan, integrator, start, dt, steps);
      std::vector<double> other_change = other.state;
      for (std::size_t i = 0; i < other_change.size(); ++i) other_change[i] -= start[i];
      const double d_rhs = test::max_difference(other.rhs, reference.rhs) / rhs_scale;
      const double d_steps = test::max_difference(other_change, change) / change_scale;
      std::printf("%s N = %d, %s, %s: rhs %.2e, %d steps %.2e (relative)\n", law_name, N, plan.describe().c_str(),
                  to_string(integrator), d_rhs, steps, d_steps);
      EXPECT_LE(d_rhs, 1e-12);
      EXPECT_LE(d_steps, 1e-12);
    }
  }
}

// Each plan is a program the host compiles (a second or two each), so the disk runs the plans
// whose curved path differs (layouts, a padded stride with the update input read late, face
// connectivity with a graph, Bernstein unfused, by column and stencil) and the ball three.
TEST(CurvedPlans, DiskMatchesTheDefaultPlan) {
  compare(curved_mesh("disk_h0.4_o2.h5"), "maxwell2d_tm", 3, {0, 2, 3, 4, 5, 6}, true);
}

TEST(CurvedPlans, BallMatchesTheDefaultPlan) {
  compare(curved_mesh("ball_h0.6_o3.h5"), "maxwell3d", 2, {2, 4, 5}, false);
}

// The tuner's search space on a curved mesh holds the fused and Bernstein plans (as on a
// straight-sided one), each valid by the one check for the curved variant.
TEST(CurvedPlans, TheTunerSearchesEveryFamily) {
  const fluxes::Law law = test::law_file("maxwell2d_tm");
  const Discretization disc = discretize(curved_mesh("disk_h0.4_o2.h5"), 3);
  SolverSetup setup;
  setup.law = &law;
  setup.parameters = fluxes::resolve_parameters(law, {});
  setup.boundaries.push_back({"wall", "pec", ""});
  Solver solver(host(), disc, setup);
  ASSERT_TRUE(solver.kernel_spec().curved);
  PlanSpace space = PlanSpace::for_backend(rtcg::BackendKind::host);
  space.bases = {Basis::nodal, Basis::bernstein};
  space.operators = {Operators::global, Operators::literals};  // Bernstein plans go by column
  int fused = 0, bernstein = 0;
  for (const rtcg::tune::Point& point : plan_search_space(solver, space).points()) {
    KernelSpec spec = solver.kernel_spec();
    spec.plan = plan_of(point);
    EXPECT_EQ(check(spec), "") << spec.plan.describe();
    fused += spec.plan.fusion == Fusion::stage ? 1 : 0;
    bernstein += spec.plan.basis == Basis::bernstein ? 1 : 0;
  }
  std::printf("host search space on the curved disk: %d fused plans, %d Bernstein plans\n", fused, bernstein);
  EXPECT_GT(fused, 0);
  EXPECT_GT(bernstein, 0);
}

}  // namespace
}  // namespace rtdg::dg
