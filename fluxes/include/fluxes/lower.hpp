// Lowering a checked expression to scalar DAG nodes: vector algebra becomes per-component
// scalar arithmetic (dot, cross, norm, avg, jump, vec, componentwise if), names become inputs
// or baked constants.
#pragma once

#include "fluxes/ast.hpp"
#include "fluxes/dag.hpp"
#include "fluxes/environment.hpp"
#include "fluxes/source_text.hpp"

#include <cstddef>
#include <optional>
#include <vector>

namespace fluxes {

// The body of a named definition, for lowering a use of it. `uses` lists the definitions the
// body uses (indices into LowerContext::definitions); with it, the definitions a use needs are
// lowered deepest first, so lowering never recurses from one body into another. The graph must
// be acyclic (the law reader guarantees it).
struct DefinitionBody {
  const Expr* expr = nullptr;            // checked with Where::definition
  const SourceText* source = nullptr;
  std::vector<std::size_t> uses;
};

struct LowerContext {
  const Environment* env = nullptr;
  Where where = Where::volume;
  // One entry per parameter of env: a value bakes the parameter into the code as a constant;
  // nullopt makes it an input (InputKind::parameter) the generated code reads at run time.
  std::vector<std::optional<double>> parameters;
  // Empty, or one entry per parameter: true makes the parameter a per-element value
  // (InputKind::element_parameter, on a face's exterior side neighbour_parameter), overriding
  // `parameters`. Parameters marked false lower as above, whatever the side, so laws that
  // write eps.ext give the same code as eps when nothing varies.
  std::vector<bool> per_element;
  // When set, the exterior trace (u.ext, and the exterior half of avg() and jump()) is these
  // nodes, one per flat state component, instead of InputKind::exterior inputs: a boundary
  // condition's exterior state substituted into the numerical flux.
  const std::vector<NodeId>* exterior = nullptr;
  // The trace plain field names (and definitions that depend on the state) stand for outside
  // avg() and jump(): the state (interior trace) normally; exterior evaluates a volume
  // expression, such as F(u) or the maximum wave speed, on the exterior trace.
  TraceSide state_side = TraceSide::interior;
  // One entry per definition of env: what a use of the definition lowers to. A definition
  // lowers once per trace and lower() call; the DAG shares what its uses have in common.
  std::vector<DefinitionBody> definitions;
};

// The expression's value, one node per scalar component (1 for a scalar, dimension for a
// vector). `expr` must have passed check() in the same environment and Where. Throws Error
// where a constant fold is not finite, e.g. a division by a parameter baked as 0.
std::vector<NodeId> lower(const Expr& expr, Dag& dag, const LowerContext& context, const SourceText& source);

}  // namespace fluxes
