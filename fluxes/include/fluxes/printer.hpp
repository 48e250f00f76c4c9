// Prints a syntax tree back as flux-language text, with the fewest parentheses that keep its
// structure and numbers that read back to the same double: parse(print(e)) has e's structure.
#pragma once

#include "fluxes/ast.hpp"

#include <string>

namespace fluxes {

std::string print(const Expr& expr);

// The shortest decimal text that reads back as exactly `value` (std::to_chars), e.g. 0.1, 3,
// 1e+20. Used for numbers in messages and printed expressions.
std::string shortest_decimal(double value);

}  // namespace fluxes
