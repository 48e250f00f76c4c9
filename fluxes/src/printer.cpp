#include "fluxes/printer.hpp"

#include <array>
#include <charconv>

namespace fluxes {

namespace {

// Binding strength of each syntactic level, as in the grammar of parser.hpp.
enum Level : int { compare_level = 1, additive_level, multiplicative_level, unary_level, power_level, postfix_level, primary_level };

int level_of(const Expr& e) {
  switch (e.kind) {
    case ExprKind::compare: return compare_level;
    case ExprKind::binary:
      switch (e.binary) {
        case BinaryOp::add:
        case BinaryOp::subtract: return additive_level;
        case BinaryOp::multiply:
        case BinaryOp::divide: return multiplicative_level;
        case BinaryOp::power: return power_level;
      }
      return power_level;
    case ExprKind::negate: return unary_level;
    case ExprKind::component:
    case ExprKind::trace: return postfix_level;
    case ExprKind::number:
    case ExprKind::name:
    case ExprKind::call: return primary_level;
  }
  return primary_level;
}

const char* binary_text(BinaryOp op) {
  switch (op) {
    case BinaryOp::add: return " + ";
    case BinaryOp::subtract: return " - ";
    case BinaryOp::multiply: return "*";
    case BinaryOp::divide: return "/";
    case BinaryOp::power: return "^";
  }
  return "?";
}

const char* compare_text(CompareOp op) {
  switch (op) {
    case CompareOp::less: return " < ";
    case CompareOp::less_equal: return " <= ";
    case CompareOp::greater: return " > ";
    case CompareOp::greater_equal: return " >= ";
    case CompareOp::equal: return " == ";
    case CompareOp::not_equal: return " != ";
  }
  return "?";
}

void print_into(std::string& out, const Expr& e, int min_level);

// component_base: the child is the vector of v.x, where a number would read as a malformed
// number ("1.x") and is parenthesised.
void print_child(std::string& out, const Expr& child, int min_level, bool component_base = false) {
  const bool needs_parens = level_of(child) < min_level || (component_base && child.kind == ExprKind::number);
  if (needs_parens) out += '(';
  print_into(out, child, needs_parens ? 0 : min_level);
  if (needs_parens) out += ')';
}

void print_into(std::string& out, const Expr& e, int /*min_level*/) {
  switch (e.kind) {
    case ExprKind::number:
      out += shortest_decimal(e.number);
      return;
    case ExprKind::name:
      out += e.name;
      return;
    case ExprKind::trace:
      out += e.name;
      out += e.side == TraceSide::interior ? ".int" : ".ext";
      return;
    case ExprKind::component:
      print_child(out, *e.args[0], postfix_level, true);
      out += e.component == 0 ? ".x" : e.component == 1 ? ".y" : ".z";
      return;
    case ExprKind::negate:
      out += '-';
      print_child(out, *e.args[0], unary_level);
      return;
    case ExprKind::binary: {
      const int level = level_of(e);
      if (e.binary == BinaryOp::power) {
        print_child(out, *e.args[0], postfix_level);
        out += binary_text(e.binary);
        print_child(out, *e.args[1], unary_level);
        return;
      }
      print_child(out, *e.args[0], level);
      out += binary_text(e.binary);
      print_child(out, *e.args[1], level + 1);
      return;
    }
    case ExprKind::compare:
      print_child(out, *e.args[0], additive_level);
      out += compare_text(e.compare);
      print_child(out, *e.args[1], additive_level);
      return;
    case ExprKind::call:
      out += e.name;
      out += '(';
      for (std::size_t i = 0; i < e.args.size(); ++i) {
        if (i > 0) out += ", ";
        print_child(out, *e.args[i], 0);
      }
      out += ')';
      return;
  }
}

}  // namespace

std::string shortest_decimal(double value) {
  std::array<char, 64> buffer{};
  const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  return std::string(buffer.data(), result.ptr);
}

std::string print(const Expr& expr) {
  std::string out;
  print_into(out, expr, 0);
  return out;
}

}  // namespace fluxes
