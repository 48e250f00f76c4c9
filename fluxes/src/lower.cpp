#include "fluxes/lower.hpp"

#include "fluxes/diagnostics.hpp"
#include "functions.hpp"

#include <cmath>
#include <map>
#include <numbers>
#include <string>
#include <utility>

namespace fluxes {

namespace {

using detail::Function;
using Value = std::vector<NodeId>;  // [1] for a scalar or condition, [dimension] for a vector
// Definitions already lowered in this lower() call: (definition, trace) -> value.
using DefinitionValues = std::map<std::pair<std::size_t, TraceSide>, Value>;

class Lowerer {
public:
  Lowerer(Dag& dag, const LowerContext& context, const SourceText& source, DefinitionValues& definitions,
          TraceSide side)
      : dag_(dag), context_(context), env_(*context.env), source_(source), definitions_(definitions), side_(side) {}

  Value visit(const Expr& e) {
    try {
      return visit_node(e);
    } catch (const FoldError& fold) {
      // The innermost node being lowered is where the fold failed; name it.
      throw Error(source_.at(e.offset), std::string(fold.what()) +
                                            " (parameters declared constant are substituted before folding)");
    }
  }

private:
  std::size_t dim() const { return static_cast<std::size_t>(env_.dimension()); }

  Value inputs(InputKind kind, std::size_t first, std::size_t count) {
    Value v;
    for (std::size_t i = 0; i < count; ++i) v.push_back(dag_.input(InputRef{kind, static_cast<std::uint32_t>(first + i)}));
    return v;
  }

  Value field(std::size_t index, TraceSide side) {
    const NamedShape& f = env_.fields()[index];
    const std::size_t count = env_.components(f.shape);
    if (side == TraceSide::exterior && context_.exterior != nullptr) {
      return Value(context_.exterior->begin() + static_cast<std::ptrdiff_t>(f.offset),
                   context_.exterior->begin() + static_cast<std::ptrdiff_t>(f.offset + count));
    }
    return inputs(side == TraceSide::interior ? InputKind::state : InputKind::exterior, f.offset, count);
  }

  // A parameter on one side: baked, read from prm, or per element (this element's value, or on
  // an interior face's exterior side the neighbour's; a boundary face has no neighbour, so its
  // exterior side, the condition's state, keeps this element's value).
  Value parameter(std::size_t index, TraceSide side) {
    if (index < context_.per_element.size() && context_.per_element[index]) {
      const bool neighbour = side == TraceSide::exterior && context_.exterior == nullptr;
      return inputs(neighbour ? InputKind::neighbour_parameter : InputKind::element_parameter, index, 1);
    }
    const auto& baked = context_.parameters.at(index);
    if (baked) return {dag_.constant(*baked)};
    return inputs(InputKind::parameter, index, 1);
  }

  Value visit_node(const Expr& e) {
    switch (e.kind) {
      case ExprKind::number: return {dag_.constant(e.number)};
      case ExprKind::name: return name(e);
      case ExprKind::trace:
        if (e.symbol.kind == SymbolKind::definition) return definition(e.symbol.index, e.side);
        if (e.symbol.kind == SymbolKind::parameter) return parameter(e.symbol.index, e.side);
        return field(e.symbol.index, e.side);
      case ExprKind::component: return {visit(*e.args[0]).at(static_cast<std::size_t>(e.component))};
      case ExprKind::negate: return map(visit(*e.args[0]), Op::negate);
      case ExprKind::binary: return binary(e);
      case ExprKind::compare: return compare(e);
      case ExprKind::call: return call(e);
    }
    return {};
  }

  Value name(const Expr& e) {
    switch (e.symbol.kind) {
      case SymbolKind::field: return field(e.symbol.index, side_);
      case SymbolKind::definition: return definition(e.symbol.index, side_);
      case SymbolKind::parameter: return parameter(e.symbol.index, side_);
      case SymbolKind::incident: {
        const NamedShape& f = env_.incident()[e.symbol.index];
        return inputs(InputKind::incident, f.offset, env_.components(f.shape));
      }
      case SymbolKind::coordinate: return inputs(InputKind::coordinate, e.symbol.index, 1);
      case SymbolKind::position: return inputs(InputKind::coordinate, 0, dim());
      case SymbolKind::time: return inputs(InputKind::time, 0, 1);
      case SymbolKind::normal: return inputs(InputKind::normal, 0, dim());
      case SymbolKind::pi: return {dag_.constant(std::numbers::pi)};
      case SymbolKind::none: break;
    }
    return {};
  }

  // A definition's value with its fields on the given trace. The definitions it needs are
  // lowered first, deepest first (an iterative walk over `uses`), so that each body's lowering
  // finds the definitions it uses already done instead of recursing into them.
  Value definition(std::size_t index, TraceSide side) {
    if (const auto found = definitions_.find({index, side}); found != definitions_.end()) return found->second;
    std::vector<std::size_t> order;  // post-order: what a definition uses comes before it
    std::vector<char> seen(context_.definitions.size(), 0);
    std::vector<std::pair<std::size_t, std::size_t>> stack{{index, 0}};  // (definition, next use)
    seen.at(index) = 1;
    while (!stack.empty()) {
      auto& [d, next] = stack.back();
      const std::vector<std::size_t>& uses = context_.definitions.at(d).uses;
      if (next < uses.size()) {
        const std::size_t u = uses[next++];
        if (!seen.at(u) && !definitions_.contains({u, side})) {
          seen[u] = 1;
          stack.emplace_back(u, 0);
        }
        continue;
      }
      order.push_back(d);
      stack.pop_back();
    }
    for (std::size_t d : order) {
      const DefinitionBody& body = context_.definitions[d];
      Lowerer inner(dag_, context_, *body.source, definitions_, side);
      Value value = inner.visit(*body.expr);
      definitions_.emplace(std::pair{d, side}, std::move(value));
    }
    return definitions_.at({index, side});
  }

  Value map(const Value& v, Op op) {
    Value out;
    for (NodeId c : v) out.push_back(dag_.unary(op, c));
    return out;
  }

  // a (scalar or vector) op b (scalar or vector); a scalar is broadcast.
  Value zip(const Value& a, const Value& b, Op op) {
    Value out;
    const std::size_t n = std::max(a.size(), b.size());
    for (std::size_t i = 0; i < n; ++i) {
      out.push_back(dag_.binary(op, a[a.size() == 1 ? 0 : i], b[b.size() == 1 ? 0 : i]));
    }
    return out;
  }

  // x^n for a constant integer |n| <= 8 as multiplications (x^2 -> x*x, x^4 -> (x*x)*(x*x)),
  // which shares better and costs less than pow(); other exponents call pow().
  NodeId power(NodeId base, NodeId exponent) {
    const Node& ex = dag_[exponent];
    if (ex.op == Op::constant && std::trunc(ex.value) == ex.value && std::fabs(ex.value) <= 8.0) {
      const int n = static_cast<int>(ex.value);
      unsigned m = static_cast<unsigned>(n < 0 ? -n : n);
      NodeId result = dag_.constant(1.0);
      NodeId square = base;
      while (m > 0) {
        if ((m & 1U) != 0U) result = dag_.binary(Op::multiply, result, square);
        m >>= 1U;
        if (m > 0) square = dag_.binary(Op::multiply, square, square);
      }
      return n < 0 ? dag_.binary(Op::divide, dag_.constant(1.0), result) : result;
    }
    return dag_.binary(Op::pow, base, exponent);
  }

  Value binary(const Expr& e) {
    const Value a = visit(*e.args[0]);
    const Value b = visit(*e.args[1]);
    switch (e.binary) {
      case BinaryOp::add: return zip(a, b, Op::add);
      case BinaryOp::subtract: return zip(a, b, Op::subtract);
      case BinaryOp::multiply: return zip(a, b, Op::multiply);
      case BinaryOp::divide:
        if (dag_.is_constant(b[0], 0.0)) {
          throw Error(source_.at(e.offset), "division by zero: the divisor is constant 0 once parameters "
                                            "declared constant are substituted");
        }
        return zip(a, b, Op::divide);
      case BinaryOp::power: return {power(a[0], b[0])};
    }
    return {};
  }

  Value compare(const Expr& e) {
    const NodeId a = visit(*e.args[0])[0];
    const NodeId b = visit(*e.args[1])[0];
    switch (e.compare) {
      case CompareOp::less: return {dag_.binary(Op::less, a, b)};
      case CompareOp::less_equal: return {dag_.binary(Op::less_equal, a, b)};
      case CompareOp::greater: return {dag_.binary(Op::less, b, a)};
      case CompareOp::greater_equal: return {dag_.binary(Op::less_equal, b, a)};
      case CompareOp::equal: return {dag_.binary(Op::equal, a, b)};
      case CompareOp::not_equal: return {dag_.binary(Op::not_equal, a, b)};
    }
    return {};
  }

  NodeId dot(const Value& a, const Value& b) {
    NodeId sum = dag_.binary(Op::multiply, a[0], b[0]);
    for (std::size_t i = 1; i < a.size(); ++i) sum = dag_.binary(Op::add, sum, dag_.binary(Op::multiply, a[i], b[i]));
    return sum;
  }

  Value cross(const Value& a, const Value& b) {
    auto term = [&](std::size_t i, std::size_t j) {
      return dag_.binary(Op::subtract, dag_.binary(Op::multiply, a[i], b[j]), dag_.binary(Op::multiply, a[j], b[i]));
    };
    return {term(1, 2), term(2, 0), term(0, 1)};
  }

  Value call(const Expr& e) {
    const detail::FunctionInfo* f = detail::find_function(e.name);
    if (f->id == Function::avg || f->id == Function::jump) {
      const TraceSide saved = side_;
      side_ = TraceSide::interior;
      const Value inner = visit(*e.args[0]);
      side_ = TraceSide::exterior;
      const Value outer = visit(*e.args[0]);
      side_ = saved;
      if (f->id == Function::jump) return zip(inner, outer, Op::subtract);
      return zip(zip(inner, outer, Op::add), {dag_.constant(0.5)}, Op::multiply);
    }
    std::vector<Value> args;
    for (const auto& arg : e.args) args.push_back(visit(*arg));
    switch (f->id) {
      case Function::dot: return {dot(args[0], args[1])};
      case Function::cross: return cross(args[0], args[1]);
      case Function::norm: return {dag_.unary(Op::sqrt, dot(args[0], args[0]))};
      case Function::abs: return map(args[0], Op::abs);
      case Function::sqrt: return map(args[0], Op::sqrt);
      case Function::exp: return map(args[0], Op::exp);
      case Function::log: return map(args[0], Op::log);
      case Function::sin: return map(args[0], Op::sin);
      case Function::cos: return map(args[0], Op::cos);
      case Function::tan: return map(args[0], Op::tan);
      case Function::min:
      case Function::max: {
        const Op op = f->id == Function::min ? Op::min : Op::max;
        NodeId result = args[0][0];
        for (std::size_t i = 1; i < args.size(); ++i) result = dag_.binary(op, result, args[i][0]);
        return {result};
      }
      case Function::atan2: return {dag_.binary(Op::atan2, args[0][0], args[1][0])};
      case Function::pow: return {power(args[0][0], args[1][0])};
      case Function::sign: {
        // sign(s) = 1, -1 or 0; as selects, so the emitter and interpreter need no extra op.
        const NodeId s = args[0][0];
        const NodeId zero = dag_.constant(0.0);
        const NodeId negative = dag_.select(dag_.binary(Op::less, s, zero), dag_.constant(-1.0), zero);
        return {dag_.select(dag_.binary(Op::less, zero, s), dag_.constant(1.0), negative)};
      }
      case Function::if_: {
        Value out;
        for (std::size_t i = 0; i < args[1].size(); ++i) out.push_back(dag_.select(args[0][0], args[1][i], args[2][i]));
        return out;
      }
      case Function::vec: {
        Value out;
        for (const auto& a : args) out.push_back(a[0]);
        return out;
      }
      case Function::avg:
      case Function::jump: break;
    }
    return {};
  }

  Dag& dag_;
  const LowerContext& context_;
  const Environment& env_;
  const SourceText& source_;
  DefinitionValues& definitions_;
  TraceSide side_;  // the trace a plain field name means (volume: the state)
};

}  // namespace

std::vector<NodeId> lower(const Expr& expr, Dag& dag, const LowerContext& context, const SourceText& source) {
  DefinitionValues definitions;
  Lowerer lowerer(dag, context, source, definitions, context.state_side);
  return lowerer.visit(expr);
}

}  // namespace fluxes
