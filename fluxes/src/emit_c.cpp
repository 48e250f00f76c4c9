#include "fluxes/emit_c.hpp"

#include "fluxes/diagnostics.hpp"
#include "fluxes/printer.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <map>
#include <stdexcept>
#include <utility>

namespace fluxes {

const char* c_type(ScalarType scalar) { return scalar == ScalarType::float32 ? "float" : "double"; }

std::string format_c_number(double value, ScalarType scalar) {
  std::array<char, 64> buffer{};
  std::to_chars_result result{};
  if (scalar == ScalarType::float32) {
    const auto f = static_cast<float>(value);
    if (!std::isfinite(f)) {
      throw Error(Location{}, "the constant " + shortest_decimal(value) +
                                  " does not fit in a float; generate the code in double");
    }
    result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), f);
  } else {
    if (!std::isfinite(value)) {
      throw Error(Location{}, "the constant " + shortest_decimal(value) + " is not finite");
    }
    result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  }
  std::string text(buffer.data(), result.ptr);
  // "3" would be an int literal in C: make it a floating literal.
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  if (scalar == ScalarType::float32) text += 'f';
  if (text[0] == '-') text = "(" + text + ")";
  return text;
}

namespace {

const char* function_name(Op op, ScalarType scalar) {
  const bool f = scalar == ScalarType::float32;
  switch (op) {
    case Op::abs: return f ? "fabsf" : "fabs";
    case Op::sqrt: return f ? "sqrtf" : "sqrt";
    case Op::exp: return f ? "expf" : "exp";
    case Op::log: return f ? "logf" : "log";
    case Op::sin: return f ? "sinf" : "sin";
    case Op::cos: return f ? "cosf" : "cos";
    case Op::tan: return f ? "tanf" : "tan";
    case Op::pow: return f ? "powf" : "pow";
    case Op::atan2: return f ? "atan2f" : "atan2";
    case Op::min: return f ? "fminf" : "fmin";
    case Op::max: return f ? "fmaxf" : "fmax";
    default: return nullptr;
  }
}

const char* infix(Op op) {
  switch (op) {
    case Op::add: return " + ";
    case Op::subtract: return " - ";
    case Op::multiply: return " * ";
    case Op::divide: return " / ";
    case Op::less: return " < ";
    case Op::less_equal: return " <= ";
    case Op::equal: return " == ";
    case Op::not_equal: return " != ";
    default: return nullptr;
  }
}

// True when `name` is prefix followed only by digits, i.e. could be one of our temporaries.
bool looks_like_temporary(std::string_view name, std::string_view prefix) {
  if (name.size() <= prefix.size() || name.substr(0, prefix.size()) != prefix) return false;
  for (char c : name.substr(prefix.size())) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// Every identifier inside an access path, to check none is one of our temporaries.
void check_no_temporary(const std::string& path, const std::string& prefix) {
  std::size_t pos = 0;
  while (pos < path.size()) {
    const char c = path[pos];
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_') {
      std::size_t end = pos;
      while (end < path.size() && ((path[end] >= 'a' && path[end] <= 'z') || (path[end] >= 'A' && path[end] <= 'Z') ||
                                   path[end] == '_' || (path[end] >= '0' && path[end] <= '9'))) {
        ++end;
      }
      // Members after '.' or '->' live in their struct's namespace and cannot clash.
      const bool member = pos > 0 && (path[pos - 1] == '.' || path[pos - 1] == '>');
      if (!member && looks_like_temporary(std::string_view(path).substr(pos, end - pos), prefix)) {
        throw std::invalid_argument("emit_c: the name '" + path + "' uses '" + path.substr(pos, end - pos) +
                                    "', which clashes with the temporaries " + prefix + "0, " + prefix + "1, ...");
      }
      pos = end;
    } else if (c >= '0' && c <= '9') {
      while (pos < path.size() && path[pos] >= '0' && path[pos] <= '9') ++pos;
    } else {
      ++pos;
    }
  }
}

std::string checked_name(std::string name, const std::string& what, const std::string& prefix) {
  if (!is_c_access_path(name)) {
    throw std::invalid_argument("emit_c: the name given for " + what + " is not a C access path "
                                "(identifier, .member, ->member, [index]): '" + name + "'");
  }
  check_no_temporary(name, prefix);
  return name;
}

}  // namespace

EmittedC emit_c(const Dag& dag, const std::vector<NodeId>& outputs, const CNaming& naming,
                const EmitOptions& options) {
  if (!is_c_identifier(options.temporary_prefix)) {
    throw std::invalid_argument("emit_c: temporary prefix '" + options.temporary_prefix + "' is not a C identifier");
  }
  for (char c : options.indent) {
    if (c != ' ' && c != '\t') throw std::invalid_argument("emit_c: the indent may hold only spaces and tabs");
  }
  if (!naming.input || !naming.output) throw std::invalid_argument("emit_c: both naming functions are needed");

  const std::string& prefix = options.temporary_prefix;
  const char* type = c_type(options.scalar);
  EmittedC result;
  // What each reachable node is called in the code: a temporary, an input name or a literal.
  std::map<NodeId, std::string> operand;
  for (NodeId id : reachable(dag, outputs)) {
    const Node& n = dag[id];
    if (n.op == Op::constant) {
      operand[id] = format_c_number(n.value, options.scalar);
      continue;
    }
    if (n.op == Op::input) {
      operand[id] = checked_name(naming.input(n.input),
                                 std::string(to_string(n.input.kind)) + "[" + std::to_string(n.input.index) + "]",
                                 prefix);
      continue;
    }
    const auto arg = [&](int k) -> const std::string& { return operand.at(n.args[static_cast<std::size_t>(k)]); };
    std::string value;
    if (n.op == Op::negate) {
      value = "-" + arg(0);
    } else if (n.op == Op::select) {
      value = arg(0) + " ? " + arg(1) + " : " + arg(2);
    } else if (const char* op = infix(n.op)) {
      value = arg(0) + op + arg(1);
    } else if (const char* fn = function_name(n.op, options.scalar)) {
      value = std::string(fn) + "(" + arg(0) + (arity(n.op) == 2 ? ", " + arg(1) : std::string()) + ")";
    } else {
      throw std::logic_error(std::string("emit_c: no C form for DAG operation ") + to_string(n.op));
    }
    std::string name = prefix + std::to_string(result.temporaries++);
    // Conditions are ints, as C comparisons are; everything else has the scalar type.
    result.code += options.indent + "const " + (is_condition(n.op) ? "int" : type) + " " + name + " = " + value + ";\n";
    operand[id] = std::move(name);
  }
  const char* assign = options.assign == Assign::set ? " = " : options.assign == Assign::add ? " += " : " -= ";
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    if (is_condition(dag[outputs[i]].op)) throw std::invalid_argument("emit_c: an output is a condition, not a value");
    const std::string target = checked_name(naming.output(i), "output " + std::to_string(i), prefix);
    result.code += options.indent + target + assign + operand.at(outputs[i]) + ";\n";
  }
  return result;
}

}  // namespace fluxes
