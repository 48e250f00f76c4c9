// Parsing one flux-language expression into a syntax tree.
//
// Grammar (lowest precedence first; a^b binds tighter than unary minus, so -x^2 = -(x^2),
// and is right-associative; comparisons do not chain):
//   expression     := additive [ ('<' | '<=' | '>' | '>=' | '==' | '!=') additive ]
//   additive       := multiplicative { ('+' | '-') multiplicative }
//   multiplicative := unary { ('*' | '/') unary }
//   unary          := '-' unary | power
//   power          := postfix [ '^' unary ]
//   postfix        := primary { '.' ('int' | 'ext' | 'x' | 'y' | 'z') }
//   primary        := number | name | name '(' [ expression { ',' expression } ] ')'
//                   | '(' expression ')'
// Numbers are decimal (1, 0.5, .5, 1e-3); every number is a real, so 1/2 is 0.5.
#pragma once

#include "fluxes/ast.hpp"
#include "fluxes/source_text.hpp"

#include <cstddef>

namespace fluxes {

struct ParseLimits {
  std::size_t max_length = 65536;  // characters; longer text is refused before lexing
  int max_depth = 200;             // nesting of the syntax tree, so no pass recurses unboundedly
};

// Throws Error at the first syntax error, with its location and what was expected.
ExprPtr parse_expression(const SourceText& source, const ParseLimits& limits = {});

}  // namespace fluxes
