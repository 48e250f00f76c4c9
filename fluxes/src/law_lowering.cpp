#include "fluxes/law_lowering.hpp"

#include "fluxes/lower.hpp"
#include "fluxes/printer.hpp"

#include <cmath>
#include <optional>

namespace fluxes {

std::vector<double> resolve_parameters(const Law& law, const std::vector<ParameterOverride>& overrides) {
  std::vector<double> values;
  for (const auto& p : law.parameters) values.push_back(p.value);
  Diagnostics problems;
  for (const auto& o : overrides) {
    const Symbol s = law.env.lookup(o.name);
    if (s.kind != SymbolKind::parameter) {
      std::string known;
      for (const auto& p : law.parameters) known += (known.empty() ? "" : ", ") + p.name;
      problems.add(o.where, "law '" + law.name + "' has no parameter '" + o.name + "'" +
                                (known.empty() ? std::string(" (it has none)") : "; its parameters are " + known));
      continue;
    }
    const ParameterDecl& p = law.parameters[s.index];
    // NaN passes every comparison with min and max; an infinity is no parameter value either.
    if (!std::isfinite(o.value)) {
      problems.add(o.where, "parameter '" + p.name + "' = " + shortest_decimal(o.value) +
                                " is not a finite number; give a finite value (declared at " + to_string(p.where) + ")");
      continue;
    }
    if ((p.min && o.value < *p.min) || (p.max && o.value > *p.max)) {
      problems.add(o.where, "parameter '" + p.name + "' = " + shortest_decimal(o.value) + " is outside [" +
                                (p.min ? shortest_decimal(*p.min) : "-inf") + ", " +
                                (p.max ? shortest_decimal(*p.max) : "inf") + "] declared at " + to_string(p.where));
      continue;
    }
    values[s.index] = o.value;
  }
  problems.throw_if_any();
  return values;
}

namespace {

LowerContext context_for(const Law& law, Where where, const std::vector<double>& parameters,
                         const std::vector<bool>& per_element = {}) {
  if (parameters.size() != law.parameters.size()) {
    throw std::invalid_argument("lowering law '" + law.name + "': " + std::to_string(parameters.size()) +
                                " parameter values for " + std::to_string(law.parameters.size()) + " parameters");
  }
  LowerContext context;
  context.env = &law.env;
  context.where = where;
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    context.parameters.push_back(law.parameters[i].constant ? std::optional<double>(parameters[i]) : std::nullopt);
  }
  if (!per_element.empty() && per_element.size() != parameters.size())
    throw std::invalid_argument("lowering law '" + law.name + "': per-element flags for " +
                                std::to_string(per_element.size()) + " of " + std::to_string(parameters.size()) +
                                " parameters");
  context.per_element = per_element;
  for (const auto& d : law.definitions) context.definitions.push_back(DefinitionBody{d.body.ast.get(), d.body.source.get(), d.uses});
  return context;
}

std::vector<NodeId> lower_expression(const Expression& e, Dag& dag, const LowerContext& context) {
  LowerContext local = context;
  local.where = e.where;
  return lower(*e.ast, dag, local, *e.source);
}

void append(std::vector<NodeId>& to, const std::vector<NodeId>& from) { to.insert(to.end(), from.begin(), from.end()); }

// n.F(u) for every state component, F lowered with the state inputs (the interior trace).
std::vector<NodeId> normal_flux(const Law& law, Dag& dag, const LowerContext& context) {
  std::vector<NodeId> normal;
  for (int d = 0; d < law.dimension; ++d) normal.push_back(dag.input(InputRef{InputKind::normal, static_cast<std::uint32_t>(d)}));
  std::vector<NodeId> out;
  for (const auto& field : law.volume_flux) {
    for (const auto& component : field) {
      const std::vector<NodeId> f = lower_expression(component, dag, context);
      // Every term has a normal input, so nothing here folds to a constant but 0.
      NodeId sum = dag.binary(Op::multiply, normal[0], f[0]);
      for (std::size_t d = 1; d < f.size(); ++d) sum = dag.binary(Op::add, sum, dag.binary(Op::multiply, normal[d], f[d]));
      out.push_back(sum);
    }
  }
  return out;
}

// The state on one side of a face, per flat component: inputs, or on a boundary the exterior
// state the condition gives.
std::vector<NodeId> trace_state(const Law& law, Dag& dag, const LowerContext& context, TraceSide side) {
  std::vector<NodeId> out;
  for (std::size_t k = 0; k < law.state_components(); ++k) {
    if (side == TraceSide::exterior && context.exterior != nullptr) {
      out.push_back(context.exterior->at(k));
    } else {
      out.push_back(dag.input(InputRef{side == TraceSide::interior ? InputKind::state : InputKind::exterior,
                                       static_cast<std::uint32_t>(k)}));
    }
  }
  return out;
}

// The derived forms, from the volume flux on both sides:
//   n.(F - F*) = (n.F(u.int) - n.F(u.ext))/2 [ - lambda/2 (u.int - u.ext) for rusanov ]
// which is n.F(u.int) - n.F* with n.F* = avg(n.F(u)) [ + lambda/2 jump(u) ], written so that
// nothing cancels.
std::vector<NodeId> derived_flux_difference(const Law& law, Dag& dag, const LowerContext& context) {
  LowerContext outside = context;
  outside.state_side = TraceSide::exterior;
  const std::vector<NodeId> inner_flux = normal_flux(law, dag, context);
  const std::vector<NodeId> outer_flux = normal_flux(law, dag, outside);
  const NodeId half = dag.constant(0.5);
  std::optional<NodeId> penalty;  // lambda/2
  if (law.flux_form == FluxForm::rusanov) {
    NodeId lambda = 0;
    if (law.wave_speed) {
      lambda = lower_expression(*law.wave_speed, dag, context).at(0);
    } else {
      const NodeId inner = lower_expression(law.max_wave_speed, dag, context).at(0);
      const NodeId outer = lower_expression(law.max_wave_speed, dag, outside).at(0);
      lambda = inner == outer ? inner : dag.binary(Op::max, inner, outer);
    }
    penalty = dag.binary(Op::multiply, half, lambda);
  }
  const std::vector<NodeId> inner_state = trace_state(law, dag, context, TraceSide::interior);
  const std::vector<NodeId> outer_state = trace_state(law, dag, context, TraceSide::exterior);
  std::vector<NodeId> out;
  try {
    for (std::size_t k = 0; k < inner_flux.size(); ++k) {
      NodeId difference = dag.binary(Op::multiply, half, dag.binary(Op::subtract, inner_flux[k], outer_flux[k]));
      if (penalty) {
        const NodeId jump = dag.binary(Op::subtract, inner_state[k], outer_state[k]);
        difference = dag.binary(Op::subtract, difference, dag.binary(Op::multiply, *penalty, jump));
      }
      out.push_back(difference);
    }
  } catch (const FoldError& fold) {
    throw Error(law.volume_flux.front().front().source->at(0),
                std::string("the ") + to_string(law.flux_form) + " flux: " + fold.what());
  }
  return out;
}

std::vector<NodeId> flux_difference(const Law& law, Dag& dag, const LowerContext& context) {
  if (law.flux_form == FluxForm::rusanov || law.flux_form == FluxForm::central) {
    return derived_flux_difference(law, dag, context);
  }
  std::vector<NodeId> given;
  for (const auto& e : law.numerical_flux) append(given, lower_expression(e, dag, context));
  if (law.flux_form == FluxForm::difference) return given;
  const std::vector<NodeId> interior = normal_flux(law, dag, context);
  std::vector<NodeId> out;
  for (std::size_t k = 0; k < given.size(); ++k) {
    try {
      out.push_back(dag.binary(Op::subtract, interior[k], given[k]));
    } catch (const FoldError& fold) {
      // Both sides constant and their difference overflows: name the numerical flux.
      throw Error(law.numerical_flux.front().source->at(0), std::string("n.F(u.int) - n.F*: ") + fold.what());
    }
  }
  return out;
}

std::vector<NodeId> boundary_state(const BoundaryCondition& bc, Dag& dag, const LowerContext& context) {
  std::vector<NodeId> out;
  for (const auto& e : bc.exterior) append(out, lower_expression(e, dag, context));
  return out;
}

}  // namespace

Lowered lower_volume_flux(const Law& law, const std::vector<double>& parameters, const std::vector<bool>& per_element) {
  Lowered result;
  const LowerContext context = context_for(law, Where::volume, parameters, per_element);
  for (const auto& field : law.volume_flux) {
    for (const auto& component : field) append(result.outputs, lower_expression(component, result.dag, context));
  }
  return result;
}

Lowered lower_flux_difference(const Law& law, const std::vector<double>& parameters, const std::vector<bool>& per_element) {
  Lowered result;
  result.outputs = flux_difference(law, result.dag, context_for(law, Where::face, parameters, per_element));
  return result;
}

Lowered lower_boundary_state(const Law& law, const BoundaryCondition& bc, const std::vector<double>& parameters,
                          const std::vector<bool>& per_element) {
  Lowered result;
  result.outputs = boundary_state(bc, result.dag, context_for(law, Where::boundary, parameters, per_element));
  return result;
}

Lowered lower_boundary_flux(const Law& law, const BoundaryCondition& bc, const std::vector<double>& parameters,
                          const std::vector<bool>& per_element) {
  Lowered result;
  const std::vector<NodeId> exterior = boundary_state(bc, result.dag, context_for(law, Where::boundary, parameters, per_element));
  LowerContext context = context_for(law, Where::face, parameters, per_element);
  context.exterior = &exterior;
  result.outputs = flux_difference(law, result.dag, context);
  return result;
}

Lowered lower_source(const Law& law, const std::vector<double>& parameters, const std::vector<bool>& per_element) {
  Lowered result;
  const LowerContext context = context_for(law, Where::volume, parameters, per_element);
  for (std::size_t i = 0; i < law.fields.size(); ++i) {
    if (law.source[i]) {
      append(result.outputs, lower_expression(*law.source[i], result.dag, context));
    } else {
      const NodeId zero = result.dag.constant(0.0);
      for (std::size_t c = 0; c < law.env.components(law.fields[i].shape); ++c) result.outputs.push_back(zero);
    }
  }
  return result;
}

namespace {
Lowered lower_pointwise(const Law& law, const std::vector<Expression>& exprs, const std::vector<double>& parameters) {
  Lowered result;
  const LowerContext context = context_for(law, Where::pointwise, parameters);
  for (const auto& e : exprs) append(result.outputs, lower_expression(e, result.dag, context));
  return result;
}

// A copy of `from`'s outputs with the time input replaced by the constant `t`, refolded.
Lowered at_time(const Lowered& from, double t) {
  Lowered result;
  std::vector<NodeId> map(from.dag.size());
  for (NodeId id : reachable(from.dag, from.outputs)) {
    const Node& n = from.dag[id];
    switch (n.op) {
      case Op::constant: map[id] = result.dag.constant(n.value); break;
      case Op::input:
        map[id] = n.input.kind == InputKind::time ? result.dag.constant(t) : result.dag.input(n.input);
        break;
      case Op::select: map[id] = result.dag.select(map[n.args[0]], map[n.args[1]], map[n.args[2]]); break;
      default:
        map[id] = arity(n.op) == 1 ? result.dag.unary(n.op, map[n.args[0]])
                                   : result.dag.binary(n.op, map[n.args[0]], map[n.args[1]]);
        break;
    }
  }
  for (NodeId out : from.outputs) result.outputs.push_back(map[out]);
  return result;
}
}  // namespace

Lowered lower_initial(const Law& law, const std::vector<double>& parameters) {
  if (!law.initial.empty()) return lower_pointwise(law, law.initial, parameters);
  if (law.exact.empty()) {
    throw Error(Location{law.file, 0, 0}, "law '" + law.name + "' gives neither [initial] nor [exact]; the run "
                                          "config must supply the initial condition");
  }
  try {
    return at_time(lower_pointwise(law, law.exact, parameters), 0.0);
  } catch (const FoldError& fold) {
    throw Error(law.exact.front().source->at(0), std::string("the exact solution at t = 0: ") + fold.what());
  }
}

Lowered lower_exact(const Law& law, const std::vector<double>& parameters) {
  if (law.exact.empty()) throw Error(Location{law.file, 0, 0}, "law '" + law.name + "' gives no [exact] solution");
  return lower_pointwise(law, law.exact, parameters);
}

Lowered lower_max_wave_speed(const Law& law, const std::vector<double>& parameters, const std::vector<bool>& per_element) {
  Lowered result;
  result.outputs = lower_expression(law.max_wave_speed, result.dag, context_for(law, Where::volume, parameters, per_element));
  return result;
}

}  // namespace fluxes
