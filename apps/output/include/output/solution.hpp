// The solution a run hands to the writers: node coordinates and nodal values of every field
// component on every element, with the time, the step and where it came from. One struct for
// snapshots (VTU, HDF5) and checkpoints (HDF5, read back to restart).
//
// Layouts (K elements, Np nodes per element, C = names.size() components; the flat index of
// node i of element k is k * Np + i, the column-major Np x K layout of dg::Discretization):
//   x, y, z   [K][Np] each; y is empty in 1D, z empty below 3D
//   values    [C][K][Np], flat (c * K + k) * Np + i
// Component names are the law's, e.g. "E.x", "E.y", "E.z", "H.x"; "F.x", "F.y"(, "F.z") make
// the vector F in VTU output (vtu.hpp).
#pragma once

#include <dg/shape.hpp>

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace rtdg::dg {
struct Discretization;
}

namespace rtdg::output {

struct Solution {
  dg::Shape shape = dg::Shape::triangle;
  int dim = 2;
  int N = 1;   // polynomial order
  int K = 0;   // elements
  int Np = 3;  // nodes per element: dg::num_nodes(shape, N)
  std::vector<double> x, y, z;     // node coordinates, each [K][Np]; z empty in 2D
  std::vector<std::string> names;  // component names
  std::vector<double> values;      // [component][K][Np]
  // "float" or "double": checkpoints store the values in this type. A float run's values are
  // exactly representable in double, so it restarts bit for bit.
  std::string precision = "double";
  double time = 0;
  long long step = 0;
  // Provenance, stored as attributes.
  std::string rtdg_version, law_name, law_file, mesh_file, mesh_fingerprint, integrator;
  std::string effective_config;  // TOML text of the run's configuration, defaults filled in
  // The DG kernel plan the run used (dg::to_text), so a restart computes with the same one.
  std::string plan;
  // Further named float64 arrays a checkpoint carries for a restart (the far-field DFT sums,
  // docs/scattering.md), stored as /extras/<name>; names as for components.
  std::map<std::string, std::vector<double>> extras;
  // The time step in use when it was written (time.dt_update_every re-evaluates it from the
  // state), so a restart continues with the same steps; 0 when not recorded.
  double dt = 0;
  // Read back only: how many checksums of the file (datasets and header) were verified; 0 for
  // a file written without them (by an rtdg before they were stored).
  int checksums = 0;
};

// A Solution with the shape, order, sizes and node coordinates of the discretization; names,
// values, time and provenance are left for the caller.
Solution make_solution(const dg::Discretization& discretization);

// Checks the sizes and names of a solution: shape and dim agree, 1 <= N, Np = num_nodes,
// coordinate and value arrays have the sizes above, component names are non-empty, unique and
// free of '/', precision is "float" or "double". Throws output::Error("<context>: ...").
void check_solution(const Solution& solution, std::string_view context);

// The values of component c, [K][Np] (a view into solution.values).
inline const double* component_values(const Solution& solution, std::size_t c) {
  return solution.values.data() + c * static_cast<std::size_t>(solution.K) * static_cast<std::size_t>(solution.Np);
}

}  // namespace rtdg::output
