// Type and shape checking. Fills in every node's shape and every name's symbol, and reports
// each problem with the location of the offending operator, name or argument and what was
// expected there: a vector added to a scalar, a cross product in 2D, an unknown name, a trace
// in a volume expression, a division by a literal zero, ...
#pragma once

#include "fluxes/ast.hpp"
#include "fluxes/diagnostics.hpp"
#include "fluxes/environment.hpp"
#include "fluxes/source_text.hpp"

namespace fluxes {

// Checks `expr` in place. Problems go to `out`; returns true when none were found. A node
// whose shape cannot be known is Shape::unknown, and errors that would only repeat an earlier
// one are not reported.
bool check(Expr& expr, const Environment& env, Where where, const SourceText& source, Diagnostics& out);

// "a scalar", "a vector", "a condition": for messages.
std::string describe(Shape shape, int dimension);

}  // namespace fluxes
