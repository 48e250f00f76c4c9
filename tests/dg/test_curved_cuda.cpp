// Curved elements on the CUDA backend against the host (label gpu; skips without a device):
// on a disk that mixes affine and curved elements (2D) and a curved ball in 3D, the unfused
// plan family with every layout and blocking, and the fused stage and Bernstein plans of
// tests/dg/curved_plans.hpp (the affine group runs the plan, the curved group its kernels).
#include "curved_plans.hpp"

#include <mesh/geometry_nodes.hpp>
#include <mesh/load.hpp>
#include <rtcg/backend.hpp>

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

namespace rtdg::dg {
namespace {

class CurvedCuda : public ::testing::Test {
protected:
  void SetUp() override {
    if (!rtcg::cuda_available()) GTEST_SKIP() << "no CUDA device: " << rtcg::cuda_unavailable_reason();
  }
};

// L(q) and a few steps on each backend, for every plan the tests vary: the unfused family's
// layouts and blockings, then (`families`) the fused and Bernstein plans.
void compare_plans(const mesh::Mesh& mesh, const char* law_name, int N, bool families) {
  const fluxes::Law law = test::law_file(law_name);
  const Discretization disc = discretize(mesh, N);
  ASSERT_FALSE(disc.curved.empty());
  SolverSetup setup;
  setup.law = &law;
  setup.parameters = fluxes::resolve_parameters(law, {});
  setup.boundaries.push_back({"wall", "pec", ""});
  std::vector<Plan> plans;
  for (Layout layout : {Layout::field_major, Layout::element_major})
    for (int per_block : {0, 1, 3}) {
      Plan plan;
      plan.layout = layout;
      plan.volume_elements_per_block = per_block;
      plan.surface_elements_per_block = per_block;
      plans.push_back(plan);
    }
  if (families)
    for (const Plan& plan : test::curved_plans()) plans.push_back(plan);
  for (const Integrator integrator : {Integrator::lserk4, Integrator::ssprk3})
    for (const Plan& plan : plans) {
      // SSP-RK3 on the fused and Bernstein plans only (the unfused updates are the same kernels).
      if (integrator == Integrator::ssprk3 && plan.fusion == Fusion::none && plan.basis == Basis::nodal) continue;
      setup.plan = plan;
      setup.integrator = integrator;
      SCOPED_TRACE(plan.describe() + ", " + std::string(to_string(integrator)));
      Solver host(rtcg::backend("host"), disc, setup);
      Solver cuda(rtcg::backend("cuda"), disc, setup);
      const std::vector<double> state = test::random_state(host.size(), 11);
      host.set_state(state);
      cuda.set_state(state);
      const std::vector<double> a = host.rhs(0.0), b = cuda.rhs(0.0);
      const double d = test::max_difference(a, b), scale = test::max_abs(a);
      std::printf("%s N = %d, %s, %s: curved host vs cuda %.3e of %.3e\n", law_name, N, plan.describe().c_str(),
                  to_string(integrator), d, scale);
      EXPECT_LT(d, 1e-11 * scale);
      // And a few steps.
      const double dt = host.stable_dt(0.5);
      for (int s = 0; s < 5; ++s) {
        host.step(s * dt, dt);
        cuda.step(s * dt, dt);
      }
      EXPECT_LT(test::max_difference(host.state(), cuda.state()), 1e-11 * test::max_abs(host.state()));
    }
}

// Stored curved meshes (data/meshes/curved, HDF5 layout version 2), so that a GPU machine without
// Gmsh runs these: the disk of data/geometries/disk.geo at h = 0.4 and geometry orders 2, 4, 5
// (`rtdg mesh data/geometries/disk.geo -D h=0.4 -D order=N -o disk_h0.4_oN.h5`), and a unit ball
// of mesh size 0.6 at geometry order 3 (OpenCASCADE sphere, Mesh.ElementOrder = 3).
std::filesystem::path curved_mesh(const std::string& name) {
  return std::filesystem::path(RTDG_SOURCE_DIR) / "data/meshes/curved" / name;
}

TEST_F(CurvedCuda, DiskAgreesWithHost) {
  // The fused and Bernstein plans at order 4 (each plan a program per backend).
  for (int N : {2, 4, 5})
    compare_plans(mesh::load_mesh(curved_mesh("disk_h0.4_o" + std::to_string(N) + ".h5")), "maxwell2d_tm", N, N == 4);
}

TEST_F(CurvedCuda, BallAgreesWithHost) {
  compare_plans(mesh::load_mesh(curved_mesh("ball_h0.6_o3.h5")), "maxwell3d", 3, true);
}

}  // namespace
}  // namespace rtdg::dg
