// The syntax tree of one flux-language expression. The parser builds it, the checker fills
// in each node's shape and what each name refers to, the lowering turns it into scalar DAG
// nodes. Offsets are byte offsets into the expression's SourceText.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace fluxes {

enum class ExprKind : std::uint8_t {
  number,     // 0.5, 1e-3
  name,       // alpha, x, normal, e (a field), E_inc (an incident field)
  trace,      // e.int, e.ext: args[0] is not used; name is the field (or definition)
  component,  // v.x, v.y, v.z: args[0] is the vector
  negate,     // -a: args[0]
  binary,     // a + b, a - b, a * b, a / b, a ^ b: args[0], args[1]
  compare,    // a < b, ...: args[0], args[1]
  call,       // f(args...), including if(c, a, b), avg(a), jump(a), vec(a, b[, c])
};

enum class BinaryOp : std::uint8_t { add, subtract, multiply, divide, power };
enum class CompareOp : std::uint8_t { less, less_equal, greater, greater_equal, equal, not_equal };
enum class TraceSide : std::uint8_t { interior, exterior };

// What a checked expression is: a truth value (only as the condition of if()), a scalar, or a
// vector with as many components as the mesh has dimensions.
enum class Shape : std::uint8_t { unknown, boolean, scalar, vector };

// What a name refers to, resolved by the checker.
enum class SymbolKind : std::uint8_t {
  none,
  field,       // index: field number in the law
  parameter,   // index: parameter number
  incident,    // index: incident field number
  definition,  // index: definition number (a law file's [definitions])
  coordinate,  // index: 0, 1, 2 for x, y, z
  position,    // pos, the position vector
  time,        // t
  normal,      // the outward unit normal of the face
  pi,
};

struct Symbol {
  SymbolKind kind = SymbolKind::none;
  std::size_t index = 0;
};

struct Expr {
  ExprKind kind = ExprKind::number;
  std::size_t offset = 0;  // the token errors about this node point at (operator, name, literal)
  std::size_t begin = 0;   // the node's text is [begin, end)
  std::size_t end = 0;
  double number = 0.0;                          // number
  std::string name;                             // name, trace, call
  TraceSide side = TraceSide::interior;         // trace
  int component = 0;                            // component: 0, 1, 2 for .x, .y, .z
  BinaryOp binary = BinaryOp::add;              // binary
  CompareOp compare = CompareOp::less;          // compare
  std::vector<std::unique_ptr<Expr>> args;      // operands, call arguments
  // Filled in by check():
  Shape shape = Shape::unknown;
  Symbol symbol;  // name, trace
};

using ExprPtr = std::unique_ptr<Expr>;

// True when a and b have the same structure, names and numbers (offsets and checker results
// are ignored). Used by the parser's round-trip tests.
bool same_structure(const Expr& a, const Expr& b);

}  // namespace fluxes
