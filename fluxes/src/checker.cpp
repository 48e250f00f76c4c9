#include "fluxes/checker.hpp"

#include "functions.hpp"

#include <string>

namespace fluxes {

std::string describe(Shape shape, int dimension) {
  switch (shape) {
    case Shape::boolean: return "a condition";
    case Shape::scalar: return "a scalar";
    case Shape::vector: return "a vector (" + std::to_string(dimension) + " components)";
    case Shape::unknown: return "an expression with errors";
  }
  return "?";
}

namespace {

using detail::Function;

class Checker {
public:
  Checker(const Environment& env, Where where, const SourceText& source, Diagnostics& out)
      : env_(env), where_(where), source_(source), out_(out) {}

  bool run(Expr& e) {
    const std::size_t before = out_.size();
    visit(e);
    return out_.size() == before;
  }

private:
  void error(const Expr& at, const std::string& message) { out_.add(source_.at(at.offset), message); }

  std::string shape_text(Shape s) const { return describe(s, env_.dimension()); }

  std::string known_names() const {
    std::string text = "expected ";
    auto list = [](const std::vector<NamedShape>& named) {
      std::string names;
      for (const auto& n : named) names += (names.empty() ? "" : ", ") + n.name;
      return names;
    };
    const bool fields_visible = where_ != Where::pointwise;
    if (fields_visible && !env_.fields().empty()) text += "a field (" + list(env_.fields()) + "), ";
    if (!env_.parameters().empty()) {
      std::string names;
      for (const auto& p : env_.parameters()) names += (names.empty() ? "" : ", ") + p;
      text += "a parameter (" + names + "), ";
    }
    if (!env_.definitions().empty()) {
      std::string names;
      for (const auto& d : env_.definitions()) names += (names.empty() ? "" : ", ") + d.name;
      text += "a definition (" + names + "), ";
    }
    if ((where_ == Where::boundary || where_ == Where::definition) && !env_.incident().empty()) {
      text += "an incident field (" + list(env_.incident()) + "), ";
    }
    text += env_.dimension() == 3 ? "x, y, z" : env_.dimension() == 2 ? "x, y" : "x";
    text += ", pos, t";
    if (where_ == Where::face || where_ == Where::boundary || where_ == Where::definition) text += ", normal";
    text += " or pi";
    return text;
  }

  void visit(Expr& e) {
    e.shape = Shape::unknown;
    switch (e.kind) {
      case ExprKind::number: e.shape = Shape::scalar; return;
      case ExprKind::name: visit_name(e); return;
      case ExprKind::trace: visit_trace(e); return;
      case ExprKind::component: visit_component(e); return;
      case ExprKind::negate: visit_negate(e); return;
      case ExprKind::binary: visit_binary(e); return;
      case ExprKind::compare: visit_compare(e); return;
      case ExprKind::call: visit_call(e); return;
    }
  }

  void visit_name(Expr& e) {
    e.symbol = env_.lookup(e.name);
    const int dim = env_.dimension();
    switch (e.symbol.kind) {
      case SymbolKind::none:
        if (detail::find_function(e.name) != nullptr) {
          error(e, "'" + e.name + "' is a function: call it as " + e.name + "(...)");
        } else {
          error(e, "unknown name '" + e.name + "'; " + known_names());
        }
        return;
      case SymbolKind::coordinate:
        if (static_cast<int>(e.symbol.index) >= dim) {
          error(e, "'" + e.name + "' is not a coordinate in a " + std::to_string(dim) + "D law (expected " +
                       (dim == 2 ? "x or y)" : "x)"));
          return;
        }
        e.shape = Shape::scalar;
        return;
      case SymbolKind::position: e.shape = Shape::vector; return;
      case SymbolKind::time:
      case SymbolKind::pi:
      case SymbolKind::parameter: e.shape = Shape::scalar; return;
      case SymbolKind::normal:
        if (where_ != Where::face && where_ != Where::boundary && where_ != Where::definition) {
          error(e, "'normal' exists only on faces (numerical fluxes and boundary conditions), not in a " +
                       std::string(to_string(where_)) + " expression");
          return;
        }
        e.shape = Shape::vector;
        return;
      case SymbolKind::incident:
        if (where_ != Where::boundary && where_ != Where::definition) {
          error(e, "incident field '" + e.name + "' is available only in boundary conditions");
          return;
        }
        e.shape = env_.incident()[e.symbol.index].shape;
        return;
      case SymbolKind::field: visit_field(e); return;
      case SymbolKind::definition: visit_definition(e); return;
    }
  }

  // A definition used by name (or, with .int/.ext, as a trace): its body was checked before
  // (definitions are checked in the order they use each other), so its shape and what it
  // depends on are known, and the use is checked as a use of a field would be.
  void visit_definition(Expr& e) {
    const DefinitionShape& d = env_.definitions()[e.symbol.index];
    if (d.shape == Shape::unknown) return;  // its body had errors, already reported
    if (!definition_available(e, d)) return;
    if (d.state) {
      switch (where_) {
        case Where::volume:
        case Where::definition: break;
        case Where::face:
          if (average_depth_ > 0) break;
          error(e, "definition '" + e.name + "' depends on the state, so on a face it needs a trace: write " + e.name +
                       ".int (this element) or " + e.name + ".ext (the neighbour), or use it inside avg() or jump()");
          return;
        case Where::boundary:
          error(e, "definition '" + e.name + "' depends on the state; in a boundary condition the state is the "
                   "interior trace: write " + e.name + ".int");
          return;
        case Where::pointwise:
          error(e, "definition '" + e.name + "' depends on the state (the fields), but initial conditions and exact "
                   "solutions depend only on x, y, z, pos, t and parameters");
          return;
      }
    }
    e.shape = d.shape;
  }

  void visit_definition_trace(Expr& e) {
    const DefinitionShape& d = env_.definitions()[e.symbol.index];
    const std::string member = e.side == TraceSide::interior ? ".int" : ".ext";
    if (d.shape == Shape::unknown) return;
    if (!d.state) {
      error(e, "'" + member + "' takes the trace of a field or of a definition that depends on the state, and '" +
                   e.name + "' does not depend on the state: write " + e.name);
      return;
    }
    switch (where_) {
      case Where::volume:
        error(e, "a trace (" + e.name + member + ") is only defined on faces; in a volume expression write the "
                 "definition as " + e.name);
        return;
      case Where::definition:
        error(e, "a definition is evaluated at one point, so it cannot use a trace (" + e.name + member +
                     "): write " + e.name + ", and take the trace where the definition is used");
        return;
      case Where::pointwise:
        error(e, "a trace (" + e.name + member + ") is only defined on faces, and initial conditions and exact "
                 "solutions do not depend on the state");
        return;
      case Where::face:
        if (average_depth_ > 0) {
          error(e, "avg() and jump() take the definition itself: write " + e.name + ", not " + e.name + member);
          return;
        }
        break;
      case Where::boundary:
        if (e.side == TraceSide::exterior) {
          error(e, "a boundary condition defines the exterior state, so it can use only the interior "
                   "trace " + e.name + ".int");
          return;
        }
        break;
    }
    if (!definition_available(e, d)) return;
    e.shape = d.shape;
  }

  // A definition that uses normal or an incident field can only be used where those exist.
  bool definition_available(const Expr& e, const DefinitionShape& d) {
    if (d.normal && where_ != Where::face && where_ != Where::boundary && where_ != Where::definition) {
      error(e, "definition '" + e.name + "' uses 'normal', which exists only on faces (numerical fluxes and boundary "
               "conditions), not in a " + std::string(to_string(where_)) + " expression");
      return false;
    }
    if (d.incident && where_ != Where::boundary && where_ != Where::definition) {
      error(e, "definition '" + e.name + "' uses an incident field, which is available only in boundary conditions");
      return false;
    }
    return true;
  }

  void visit_field(Expr& e) {
    const Shape shape = env_.fields()[e.symbol.index].shape;
    switch (where_) {
      case Where::volume: e.shape = shape; return;
      case Where::face:
        if (average_depth_ > 0) {
          e.shape = shape;
          return;
        }
        error(e, "field '" + e.name + "' on a face needs a trace: write " + e.name + ".int (this element) or " +
                     e.name + ".ext (the neighbour), or use it inside avg() or jump()");
        return;
      case Where::boundary:
        error(e, "in a boundary condition the state is the interior trace: write " + e.name + ".int");
        return;
      case Where::pointwise:
        error(e, "'" + e.name + "' is a field, but initial conditions and exact solutions depend only on "
                 "x, y, z, pos, t and parameters");
        return;
      case Where::definition: e.shape = shape; return;
    }
  }

  // eps.int / eps.ext: a parameter on this element's or the neighbour's side of a face, for
  // fluxes across material interfaces (parameters given per region). Where the parameter is
  // the same everywhere both are the parameter itself.
  void visit_parameter_trace(Expr& e) {
    const std::string member = e.side == TraceSide::interior ? ".int" : ".ext";
    switch (where_) {
      case Where::face:
        if (average_depth_ > 0) {
          error(e, "avg() and jump() take the parameter itself: write " + e.name + ", not " + e.name + member);
          return;
        }
        break;
      case Where::boundary:
        if (e.side == TraceSide::exterior) {
          error(e, "a boundary face has no neighbour, so a boundary condition can use only " + e.name + " (or " +
                       e.name + ".int)");
          return;
        }
        break;
      default:
        error(e, "a parameter's trace (" + e.name + member + ") is only defined on faces; write " + e.name);
        return;
    }
    e.shape = Shape::scalar;
  }

  void visit_trace(Expr& e) {
    e.symbol = env_.lookup(e.name);
    const std::string member = e.side == TraceSide::interior ? ".int" : ".ext";
    if (e.symbol.kind == SymbolKind::definition) {
      visit_definition_trace(e);
      return;
    }
    if (e.symbol.kind == SymbolKind::parameter) {
      visit_parameter_trace(e);
      return;
    }
    if (e.symbol.kind != SymbolKind::field) {
      if (e.symbol.kind == SymbolKind::none) {
        error(e, "unknown field '" + e.name + "' before '" + member + "'; " + known_names());
      } else {
        error(e, "'" + member + "' takes the trace of a field, and '" + e.name + "' is not a field");
      }
      return;
    }
    const Shape shape = env_.fields()[e.symbol.index].shape;
    switch (where_) {
      case Where::volume:
        error(e, "a trace (" + e.name + member + ") is only defined on faces; in a volume expression write "
                 "the field as " + e.name);
        return;
      case Where::pointwise:
        error(e, "a trace (" + e.name + member + ") is only defined on faces, and initial conditions and exact "
                 "solutions do not depend on the state");
        return;
      case Where::definition:
        error(e, "a definition is evaluated at one point, so it cannot use a trace (" + e.name + member +
                     "): write the field as " + e.name + ", and take the trace where the definition is used");
        return;
      case Where::face:
        if (average_depth_ > 0) {
          error(e, "avg() and jump() take the field itself: write " + e.name + ", not " + e.name + member);
          return;
        }
        e.shape = shape;
        return;
      case Where::boundary:
        if (e.side == TraceSide::exterior) {
          error(e, "a boundary condition defines the exterior state, so it can use only the interior "
                   "trace " + e.name + ".int");
          return;
        }
        e.shape = shape;
        return;
    }
  }

  void visit_component(Expr& e) {
    Expr& v = *e.args[0];
    visit(v);
    const char* member = e.component == 0 ? ".x" : e.component == 1 ? ".y" : ".z";
    if (v.shape == Shape::unknown) return;
    if (v.shape != Shape::vector) {
      error(e, std::string("'") + member + "' takes a component of a vector; got " + shape_text(v.shape));
      return;
    }
    if (e.component >= env_.dimension()) {
      error(e, std::string("'") + member + "' does not exist in a " + std::to_string(env_.dimension()) +
                   "D law: vectors have " + std::to_string(env_.dimension()) + " components");
      return;
    }
    e.shape = Shape::scalar;
  }

  // A condition may only be the first argument of if(); anywhere else it is an error.
  bool value_operand(const Expr& operand, const std::string& what) {
    if (operand.shape == Shape::boolean) {
      error(operand, "a comparison is a condition and can only be the first argument of if(), not " + what);
      return false;
    }
    return operand.shape != Shape::unknown;
  }

  void visit_negate(Expr& e) {
    visit(*e.args[0]);
    if (!value_operand(*e.args[0], "an operand of unary '-'")) return;
    e.shape = e.args[0]->shape;
  }

  static bool is_literal_zero(const Expr& e) {
    if (e.kind == ExprKind::number) return e.number == 0.0;
    if (e.kind == ExprKind::negate) return is_literal_zero(*e.args[0]);
    return false;
  }

  void visit_binary(Expr& e) {
    Expr& a = *e.args[0];
    Expr& b = *e.args[1];
    visit(a);
    visit(b);
    static constexpr const char* symbols[] = {"+", "-", "*", "/", "^"};
    const std::string op = symbols[static_cast<int>(e.binary)];
    const bool a_ok = value_operand(a, "an operand of '" + op + "'");
    const bool b_ok = value_operand(b, "an operand of '" + op + "'");
    if (e.binary == BinaryOp::divide && is_literal_zero(b)) {
      error(b, "division by zero: the divisor is the literal " + print_zero(b) + "; expected a non-zero divisor");
      return;
    }
    if (!a_ok || !b_ok) return;
    switch (e.binary) {
      case BinaryOp::add:
      case BinaryOp::subtract:
        if (a.shape != b.shape) {
          error(e, std::string("cannot ") + (e.binary == BinaryOp::add ? "add " : "subtract ") +
                       shape_text(b.shape) + (e.binary == BinaryOp::add ? " to " : " from ") + shape_text(a.shape) +
                       ": both sides of '" + op + "' must be scalars or both vectors");
          return;
        }
        e.shape = a.shape;
        return;
      case BinaryOp::multiply:
        if (a.shape == Shape::vector && b.shape == Shape::vector) {
          error(e, "cannot multiply two vectors with '*': use dot(a, b) for the scalar product or cross(a, b) "
                   "for the vector product");
          return;
        }
        e.shape = a.shape == Shape::vector || b.shape == Shape::vector ? Shape::vector : Shape::scalar;
        return;
      case BinaryOp::divide:
        if (b.shape != Shape::scalar) {
          error(e, "cannot divide by " + shape_text(b.shape) + ": the divisor of '/' must be a scalar");
          return;
        }
        e.shape = a.shape;
        return;
      case BinaryOp::power:
        if (a.shape != Shape::scalar || b.shape != Shape::scalar) {
          error(e, "'^' takes scalars; got " + shape_text(a.shape) + " ^ " + shape_text(b.shape) +
                       " (for a vector's length use norm(v), for its square dot(v, v))");
          return;
        }
        e.shape = Shape::scalar;
        return;
    }
  }

  static std::string print_zero(const Expr& e) { return e.kind == ExprKind::negate ? "-0" : "0"; }

  void visit_compare(Expr& e) {
    Expr& a = *e.args[0];
    Expr& b = *e.args[1];
    visit(a);
    visit(b);
    const bool a_ok = value_operand(a, "an operand of a comparison");
    const bool b_ok = value_operand(b, "an operand of a comparison");
    if (!a_ok || !b_ok) return;
    if (a.shape != Shape::scalar || b.shape != Shape::scalar) {
      error(e, "comparisons take scalars; got " + shape_text(a.shape) + " and " + shape_text(b.shape));
      return;
    }
    e.shape = Shape::boolean;
  }

  // Checks that every argument is a scalar; returns false (after reporting) if not.
  bool scalar_arguments(const Expr& e, const detail::FunctionInfo& f) {
    bool ok = true;
    for (std::size_t i = 0; i < e.args.size(); ++i) {
      const Expr& arg = *e.args[i];
      if (!value_operand(arg, "an argument of " + std::string(f.name) + "()")) {
        ok = false;
        continue;
      }
      if (arg.shape != Shape::scalar) {
        std::string hint;
        if (f.id == Function::abs) hint = " (for a vector's length use norm(v))";
        error(arg, std::string(f.name) + "() takes scalars: argument " + std::to_string(i + 1) + " is " +
                       shape_text(arg.shape) + hint);
        ok = false;
      }
    }
    return ok;
  }

  bool vector_arguments(const Expr& e, const detail::FunctionInfo& f) {
    bool ok = true;
    for (std::size_t i = 0; i < e.args.size(); ++i) {
      const Expr& arg = *e.args[i];
      if (!value_operand(arg, "an argument of " + std::string(f.name) + "()")) {
        ok = false;
        continue;
      }
      if (arg.shape != Shape::vector) {
        std::string hint = f.id == Function::norm ? " (use abs() for a scalar)" : "";
        error(arg, std::string(f.name) + "() takes vectors: argument " + std::to_string(i + 1) + " is " +
                       shape_text(arg.shape) + hint);
        ok = false;
      }
    }
    return ok;
  }

  void visit_call(Expr& e) {
    const detail::FunctionInfo* f = detail::find_function(e.name);
    if (f == nullptr) {
      if (env_.lookup(e.name).kind != SymbolKind::none) {
        error(e, "'" + e.name + "' is not a function; it cannot be called");
      } else {
        error(e, "unknown function '" + e.name + "'; expected one of " + std::string(detail::function_list()));
      }
      return;
    }
    const int count = static_cast<int>(e.args.size());
    if (count < f->min_args || (f->max_args >= 0 && count > f->max_args)) {
      std::string expected = f->max_args < 0    ? "at least " + std::to_string(f->min_args)
                             : f->min_args == f->max_args ? std::to_string(f->min_args)
                                                          : std::to_string(f->min_args) + " to " + std::to_string(f->max_args);
      error(e, std::string(f->name) + "() takes " + expected + " argument" + (expected == "1" ? "" : "s") + " (" +
                   std::string(f->usage) + "), got " + std::to_string(count));
      return;
    }
    if (f->id == Function::avg || f->id == Function::jump) {
      visit_average(e, *f);
      return;
    }
    for (auto& arg : e.args) visit(*arg);
    for (auto& arg : e.args) {
      if (arg->shape == Shape::unknown) return;
    }
    const int dim = env_.dimension();
    switch (f->id) {
      case Function::dot:
        if (vector_arguments(e, *f)) e.shape = Shape::scalar;
        return;
      case Function::cross:
        if (dim != 3) {
          error(e, "cross() is the 3D cross product, but this law is " + std::to_string(dim) +
                       "D: expected 3-component vectors; write the components instead, e.g. "
                       "a.x*b.y - a.y*b.x");
          return;
        }
        if (vector_arguments(e, *f)) e.shape = Shape::vector;
        return;
      case Function::norm:
        if (vector_arguments(e, *f)) e.shape = Shape::scalar;
        return;
      case Function::vec:
        if (count != dim) {
          error(e, "vec() in a " + std::to_string(dim) + "D law takes " + std::to_string(dim) +
                       " components, got " + std::to_string(count));
          return;
        }
        if (scalar_arguments(e, *f)) e.shape = Shape::vector;
        return;
      case Function::if_: {
        const Expr& c = *e.args[0];
        if (c.shape != Shape::boolean) {
          error(c, "the first argument of if() must be a comparison such as a < b; got " + shape_text(c.shape));
          return;
        }
        const Expr& a = *e.args[1];
        const Expr& b = *e.args[2];
        if (!value_operand(a, "a branch of if()") || !value_operand(b, "a branch of if()")) return;
        if (a.shape != b.shape) {
          error(e, "the branches of if() must have the same shape; got " + shape_text(a.shape) + " and " +
                       shape_text(b.shape));
          return;
        }
        e.shape = a.shape;
        return;
      }
      default:
        if (scalar_arguments(e, *f)) e.shape = Shape::scalar;
        return;
    }
  }

  void visit_average(Expr& e, const detail::FunctionInfo& f) {
    if (where_ == Where::definition) {
      error(e, std::string(f.name) + "() combines the two traces on a face, and a definition is evaluated at one "
                                     "point: apply " + std::string(f.name) + "() where the definition is used, as in " +
                   std::string(f.name) + "(p)");
      return;
    }
    if (where_ != Where::face) {
      error(e, std::string(f.name) + "() combines the two traces on a face and exists only in numerical "
                                     "fluxes, not in a " + to_string(where_) + " expression");
      return;
    }
    if (average_depth_ > 0) {
      error(e, std::string(f.name) + "() cannot be nested inside avg() or jump()");
      return;
    }
    ++average_depth_;
    visit(*e.args[0]);
    --average_depth_;
    if (!value_operand(*e.args[0], "the argument of " + std::string(f.name) + "()")) return;
    e.shape = e.args[0]->shape;
  }

  const Environment& env_;
  Where where_;
  const SourceText& source_;
  Diagnostics& out_;
  int average_depth_ = 0;
};

}  // namespace

bool check(Expr& expr, const Environment& env, Where where, const SourceText& source, Diagnostics& out) {
  Checker checker(env, where, source, out);
  return checker.run(expr);
}

}  // namespace fluxes
