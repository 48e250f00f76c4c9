// Lowering a checked expression to scalar DAG nodes: vector algebra becomes per-component
// scalar arithmetic (dot, cross, norm, avg, jump, vec, componentwise if), names become inputs
// or baked constants.
#pragma once

#include "fluxes/ast.hpp"
#include "fluxes/dag.hpp"
#include "fluxes/environment.hpp"
#include "fluxes/source_text.hpp"

#include <optional>
#include <vector>

namespace fluxes {

struct LowerContext {
  const Environment* env = nullptr;
  Where where = Where::volume;
  // One entry per parameter of env: a value bakes the parameter into the code as a constant;
  // nullopt makes it an input (InputKind::parameter) the generated code reads at run time.
  std::vector<std::optional<double>> parameters;
  // When set, the exterior trace (u.ext, and the exterior half of avg() and jump()) is these
  // nodes, one per flat state component, instead of InputKind::exterior inputs: a boundary
  // condition's exterior state substituted into the numerical flux.
  const std::vector<NodeId>* exterior = nullptr;
};

// The expression's value, one node per scalar component (1 for a scalar, dimension for a
// vector). `expr` must have passed check() in the same environment and Where. Throws Error
// where a constant fold is not finite, e.g. a division by a parameter baked as 0.
std::vector<NodeId> lower(const Expr& expr, Dag& dag, const LowerContext& context, const SourceText& source);

}  // namespace fluxes
