// Shared set-up for the law tests (Euler, shallow water, elastic waves): a law file on a box mesh
// (test_meshes), made periodic in x and y, or with walls, a solver on the host backend, and the
// error against the law's exact solution after a run from it.
#pragma once

#include "test_meshes.hpp"

#include <dg/discretization.hpp>
#include <dg/solver.hpp>
#include <fluxes/law.hpp>
#include <fluxes/law_lowering.hpp>
#include <mesh/build.hpp>

#include <array>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

namespace rtdg::dg::test {

// The box [origin, origin + size] with n x n squares (2 triangles each), joined periodically
// in x and y.
inline mesh::Mesh periodic_square(int n, std::array<double, 3> origin, std::array<double, 3> size) {
  mesh::RawMesh raw = box_mesh(2, n, origin, size);
  raw.periodic.push_back({group_index(raw, "xmin"), group_index(raw, "xmax"), std::array<double, 3>{size[0], 0, 0}});
  raw.periodic.push_back({group_index(raw, "ymin"), group_index(raw, "ymax"), std::array<double, 3>{0, size[1], 0}});
  return mesh::build_mesh(raw);
}

struct LawRun {
  fluxes::Law law;
  mesh::Mesh mesh;
  Discretization disc;
  std::unique_ptr<Solver> solver;

  LawRun(const std::string& law_path, mesh::Mesh m, int N, rtcg::Backend& backend, const std::vector<fluxes::ParameterOverride>& values,
         std::vector<BoundaryAssignment> boundaries = {}, Integrator integrator = Integrator::lserk4)
      : law(fluxes::read_law(law_path)), mesh(std::move(m)) {
    disc = discretize(mesh, N);
    SolverSetup setup;
    setup.law = &law;
    setup.parameters = fluxes::resolve_parameters(law, values);
    setup.boundaries = std::move(boundaries);
    setup.integrator = integrator;
    solver = std::make_unique<Solver>(backend, disc, setup);
  }
};

// Runs `solver` from the law's exact solution at t = 0 to t_final in steps of stable_dt(cfl), the
// last one shortened to land on t_final, and returns the L2 norm of the error against the exact
// solution there.
inline double error_after_run(Solver& solver, double t_final, double cfl) {
  solver.set_state(solver.exact_values(0.0));
  const double dt = solver.stable_dt(cfl);
  const int steps = static_cast<int>(std::ceil(t_final / dt - 1e-9));
  double t = 0;
  for (int s = 0; s < steps; ++s) {
    const double h = s + 1 == steps ? t_final - t : dt;
    solver.step(t, h);
    t = s + 1 == steps ? t_final : t + h;
  }
  std::vector<double> q = solver.state();
  const std::vector<double> exact = solver.exact_values(t_final);
  for (std::size_t i = 0; i < q.size(); ++i) q[i] -= exact[i];
  return solver.l2_norm(q);
}

// A convergence case: order N, coarse mesh n x n squares, fine mesh m x m.
struct Refinement {
  int N;
  int n;
  int m;
};

}  // namespace rtdg::dg::test
