// Total-field/scattered-field incidence (dg/total_field.hpp) with nothing to scatter: a plane
// wave enters through the surface of a total-field box inside a larger domain. Inside the box
// the field must be the incident wave, outside it zero: what is there is the surface's leak,
// which shrinks with the order. In 2D (TM, Ez) and 3D (E along z), on box meshes whose grid
// lines follow the total-field box, with the Silver-Mueller condition outside.
#include "test_meshes.hpp"

#include <dg/discretization.hpp>
#include <dg/error.hpp>
#include <dg/incident.hpp>
#include <dg/solver.hpp>
#include <dg/total_field.hpp>
#include <fluxes/evaluate.hpp>
#include <fluxes/law.hpp>
#include <fluxes/law_lowering.hpp>
#include <mesh/build.hpp>
#include <rtcg/backend.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace rtdg::dg {
namespace {

struct Leak {
  double inside;   // largest |Ez - Ez_inc| in the total-field box
  double outside;  // largest |Ez| outside it
};

// The domain [-2, 2]^dim with h = 1/2 (2D: 1/4), the total field in [-1, 1]^dim; the wave
// (k = 2, along x, E along z, ramp over one period) runs until t_final.
Leak run(const char* law_file, int dim, int order, double t_final) {
  const fluxes::Law law = fluxes::read_law(std::string(RTDG_SOURCE_DIR) + "/data/laws/" + law_file);
  const int n = dim == 2 ? 16 : 8;
  const mesh::Mesh mesh = mesh::build_mesh(test::box_mesh(dim, n, {-2, -2, -2}, {4, 4, 4}));
  const Discretization disc = discretize(mesh, order);
  SolverSetup setup;
  setup.law = &law;
  setup.parameters = fluxes::resolve_parameters(law);
  for (const char* wall : {"xmin", "xmax", "ymin", "ymax", "zmin", "zmax"})
    if (dim == 3 || wall[0] != 'z') setup.boundaries.push_back({wall, "absorbing", ""});
  PlaneWave wave;
  wave.direction = {1, 0, 0};
  wave.polarization = {0, 0, 1};
  wave.wavenumber = 2.0;
  wave.envelope = Envelope::ramp;
  wave.ramp_periods = 1.0;
  setup.incident = wave;
  setup.total_field = total_field_box(mesh, {-1, -1, -1}, {1, 1, 1});
  check_total_field(mesh, setup.total_field, "the total-field box");
  Solver solver(rtcg::backend("host"), disc, setup);
  const double dt0 = solver.stable_dt(0.5);
  const int steps = static_cast<int>(std::ceil(t_final / dt0));
  const double dt = t_final / steps;
  for (int s = 0; s < steps; ++s) solver.step(s * dt, dt);

  // The incident Ez as the solver evaluates it (the same front: where the wave enters the mesh).
  const fluxes::Lowered incident = lower_plane_wave(law, wave, 1.0, 1.0, plane_wave_front(disc, wave.direction));
  const std::vector<std::string> names = law.component_names();
  const int ez = static_cast<int>(std::find(names.begin(), names.end(), dim == 2 ? "Ez" : "E.z") - names.begin());
  const std::vector<int> to_incident = incident_components(law);
  const std::vector<double> q = solver.state();
  const int K = disc.K, Np = disc.element.Np;
  Leak leak{0, 0};
  for (int k = 0; k < K; ++k)
    for (int i = 0; i < Np; ++i) {
      const double x[3] = {disc.x(i, k), disc.y(i, k), dim == 3 ? disc.z(i, k) : 0.0};
      const double value = q[(static_cast<std::size_t>(ez) * static_cast<std::size_t>(K) + static_cast<std::size_t>(k)) *
                                 static_cast<std::size_t>(Np) + static_cast<std::size_t>(i)];
      if (setup.total_field[static_cast<std::size_t>(k)]) {
        const std::vector<double> inc = fluxes::evaluate(incident.dag, incident.outputs, [&](const fluxes::InputRef& ref) {
          return ref.kind == fluxes::InputKind::time ? t_final : x[ref.index];
        });
        leak.inside = std::max(leak.inside, std::abs(value - inc.at(static_cast<std::size_t>(to_incident.at(static_cast<std::size_t>(ez))))));
      } else {
        leak.outside = std::max(leak.outside, std::abs(value));
      }
    }
  return leak;
}

TEST(TotalField, PlaneWaveStaysInsideTheTotalFieldBox2D) {
  // t = 5: the ramp is over and the wave has crossed the box (4 units from the mesh's edge).
  const Leak low = run("maxwell2d_tm.toml", 2, 2, 5.0);
  const Leak high = run("maxwell2d_tm.toml", 2, 4, 5.0);
  std::printf("2D TM, h = 1/4: order 2 inside %.2e outside %.2e; order 4 inside %.2e outside %.2e\n", low.inside,
              low.outside, high.inside, high.outside);
  EXPECT_LT(high.inside, 1e-3);
  EXPECT_LT(high.outside, 1e-3);
  EXPECT_LT(high.outside, low.outside / 10);
}

TEST(TotalField, PlaneWaveStaysInsideTheTotalFieldBox3D) {
  const Leak leak = run("maxwell3d.toml", 3, 3, 4.0);
  std::printf("3D, h = 1/2, order 3: inside %.2e outside %.2e\n", leak.inside, leak.outside);
  EXPECT_LT(leak.inside, 2e-2);
  EXPECT_LT(leak.outside, 2e-2);
}

// The PML law's auxiliary fields have no incident part; E, H (Hx, Hy, Ez) take theirs.
TEST(TotalField, IncidentComponentsFollowTheFieldNames) {
  const fluxes::Law tm = fluxes::read_law(std::string(RTDG_SOURCE_DIR) + "/data/laws/maxwell2d_tm_pml.toml");
  EXPECT_EQ(incident_components(tm), (std::vector<int>{0, 1, 2, -1, -1, -1}));
  const fluxes::Law pml3 = fluxes::read_law(std::string(RTDG_SOURCE_DIR) + "/data/laws/maxwell3d_pml.toml");
  EXPECT_EQ(incident_components(pml3), (std::vector<int>{0, 1, 2, 3, 4, 5, -1, -1, -1, -1, -1, -1}));
  const fluxes::Law advection = fluxes::read_law(std::string(RTDG_SOURCE_DIR) + "/data/laws/advection.toml");
  EXPECT_THROW(incident_components(advection), Error);
}

}  // namespace
}  // namespace rtdg::dg
