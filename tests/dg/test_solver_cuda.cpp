// The CUDA backend runs the same generated kernels as the host backend: the same run agrees
// to 1e-12 (double), for a cavity and for a scattering set-up that reads the incident field.
#include "solver_support.hpp"

#include <rtcg/backend.hpp>

#include <gtest/gtest.h>

#include <cmath>

namespace rtdg::dg {
namespace {

double max_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double d = 0;
  for (std::size_t i = 0; i < a.size(); ++i) d = std::max(d, std::abs(a[i] - b[i]));
  return d;
}

class SolverCuda : public ::testing::Test {
protected:
  void SetUp() override {
    if (!rtcg::cuda_available()) GTEST_SKIP() << "no CUDA device: " << rtcg::cuda_unavailable_reason();
  }
};

TEST_F(SolverCuda, CavityAgreesWithHost) {
  for (const char* law : {"maxwell2d_tm", "maxwell3d"}) {
    test::Cavity host(law, 3, 4, rtcg::backend("host"));
    test::Cavity cuda(law, 3, 4, rtcg::backend("cuda"));
    host.run(0.3, 0.5);
    cuda.run(0.3, 0.5);
    const double d = max_difference(host.solver->state(), cuda.solver->state());
    std::printf("%s: host vs cuda max difference %.3e\n", law, d);
    EXPECT_LT(d, 1e-12) << law;
  }
}

// The scattered-field set-up of sphere.toml on a box: PEC-scattered wall at xmin (reads the
// plane wave), absorbing elsewhere.
TEST_F(SolverCuda, ScatteringAgreesWithHost) {
  const fluxes::Law law = test::law_file("maxwell3d");
  const mesh::Mesh mesh = mesh::build_mesh(test::box_mesh(3, 3));
  const Discretization disc = discretize(mesh, 3);
  SolverSetup setup;
  setup.law = &law;
  setup.parameters = fluxes::resolve_parameters(law);
  setup.boundaries = {{"xmin", "pec_scattered", ""}, {"xmax", "absorbing", ""}, {"ymin", "absorbing", ""},
                      {"ymax", "absorbing", ""},     {"zmin", "absorbing", ""}, {"zmax", "absorbing", ""}};
  setup.incident = PlaneWave{{-1, 0, 0}, {0, 0, 1}, 6.283185307179586};
  Solver host(rtcg::backend("host"), disc, setup);
  Solver cuda(rtcg::backend("cuda"), disc, setup);
  const double dt = host.stable_dt(0.5);
  double t = 0;
  for (int s = 0; s < 200; ++s, t += dt) {
    host.step(t, dt);
    cuda.step(t, dt);
  }
  const std::vector<double> a = host.state(), b = cuda.state();
  double scale = 0;
  for (double v : a) scale = std::max(scale, std::abs(v));
  const double d = max_difference(a, b);
  std::printf("scattering: max |u| %.3e, host vs cuda max difference %.3e\n", scale, d);
  EXPECT_GT(scale, 1e-2);  // the incident wave has entered
  EXPECT_LT(d, 1e-12 * std::max(1.0, scale));
}

}  // namespace
}  // namespace rtdg::dg
