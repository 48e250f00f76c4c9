// Shared set-up for the Euler tests: data/laws/euler2d.toml on a box mesh (test_meshes), made
// periodic in x and y, or with slip walls, and a solver on the host backend.
#pragma once

#include "test_meshes.hpp"

#include <dg/discretization.hpp>
#include <dg/solver.hpp>
#include <fluxes/law.hpp>
#include <fluxes/law_lowering.hpp>
#include <mesh/build.hpp>

#include <array>
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

}  // namespace rtdg::dg::test
