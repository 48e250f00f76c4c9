// A law's expressions lowered to scalar DAGs, ready for the C emitter: the pieces the DG
// kernel generator needs, each as outputs over the inputs of dag.hpp.
//
// Inputs each piece may read: volume pieces (volume flux, source, max wave speed) read state,
// coordinate, time and parameter inputs; face pieces add exterior and normal; boundary pieces
// add normal and incident (never exterior: the condition supplies it); initial and exact
// solutions read only coordinate, time and parameter. Parameter inputs appear only for
// parameters not declared constant; constant ones are folded into the code.
#pragma once

#include "fluxes/dag.hpp"
#include "fluxes/law.hpp"

#include <string>
#include <vector>

namespace fluxes {

struct ParameterOverride {
  std::string name;
  double value = 0.0;
  Location where;  // in the run config, for messages
};

// The value of every parameter of the law, in declaration order: defaults, replaced by the
// overrides. Throws Error, at the override's location, for an unknown name, a value that is
// not finite (NaN or an infinity) or one outside the parameter's [min, max].
std::vector<double> resolve_parameters(const Law& law, const std::vector<ParameterOverride>& overrides = {});

// The lowering functions below take, optionally, one flag per parameter: true makes that
// parameter a per-element value (InputKind::element_parameter / neighbour_parameter, for
// materials per region); empty (the default) lowers every parameter as the law declares it.
struct Lowered {
  Dag dag;
  std::vector<NodeId> outputs;
};

// F(u): outputs [component k][dimension d] at k*dimension + d.
Lowered lower_volume_flux(const Law& law, const std::vector<double>& parameters,
                          const std::vector<bool>& per_element = {});
// n.(F - F*) for each state component, from the interior (state) and exterior traces; a law
// written in the full form (n.F*) gets n.F(u.int) - n.F* here, so the caller always lifts the
// difference. The derived forms give (n.F(u.int) - n.F(u.ext))/2 - lambda/2 (u.int - u.ext)
// (rusanov) and (n.F(u.int) - n.F(u.ext))/2 (central).
Lowered lower_flux_difference(const Law& law, const std::vector<double>& parameters,
                          const std::vector<bool>& per_element = {});
// The exterior state a boundary condition sets, per state component.
Lowered lower_boundary_state(const Law& law, const BoundaryCondition& bc, const std::vector<double>& parameters,
                          const std::vector<bool>& per_element = {});
// n.(F - F*) on a boundary face: the flux difference with the exterior trace replaced by the
// condition's exterior state, in one DAG so shared terms are computed once.
Lowered lower_boundary_flux(const Law& law, const BoundaryCondition& bc, const std::vector<double>& parameters,
                          const std::vector<bool>& per_element = {});
// S(u, x, t) per state component (zero where the law gives none).
Lowered lower_source(const Law& law, const std::vector<double>& parameters,
                          const std::vector<bool>& per_element = {});
// The initial condition per state component: [initial] if given, else [exact] at t = 0 (its
// time input replaced by 0). Throws Error when the law gives neither.
Lowered lower_initial(const Law& law, const std::vector<double>& parameters);
// The exact solution per state component. Throws Error when the law gives none.
Lowered lower_exact(const Law& law, const std::vector<double>& parameters);
// The maximum wave speed: one output.
Lowered lower_max_wave_speed(const Law& law, const std::vector<double>& parameters,
                          const std::vector<bool>& per_element = {});

}  // namespace fluxes
