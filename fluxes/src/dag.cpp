#include "fluxes/dag.hpp"

#include "fluxes/printer.hpp"
#include "scalar_ops.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <string>
#include <utility>

namespace fluxes {

const char* to_string(InputKind kind) {
  switch (kind) {
    case InputKind::state: return "state";
    case InputKind::exterior: return "exterior";
    case InputKind::normal: return "normal";
    case InputKind::coordinate: return "coordinate";
    case InputKind::time: return "time";
    case InputKind::parameter: return "parameter";
    case InputKind::incident: return "incident";
    case InputKind::element_parameter: return "element parameter";
    case InputKind::neighbour_parameter: return "neighbour parameter";
  }
  return "?";
}

int arity(Op op) {
  switch (op) {
    case Op::constant:
    case Op::input: return 0;
    case Op::negate:
    case Op::abs:
    case Op::sqrt:
    case Op::exp:
    case Op::log:
    case Op::sin:
    case Op::cos:
    case Op::tan: return 1;
    case Op::select: return 3;
    default: return 2;
  }
}

bool is_condition(Op op) {
  return op == Op::less || op == Op::less_equal || op == Op::equal || op == Op::not_equal;
}

const char* to_string(Op op) {
  switch (op) {
    case Op::constant: return "constant";
    case Op::input: return "input";
    case Op::negate: return "negate";
    case Op::abs: return "abs";
    case Op::sqrt: return "sqrt";
    case Op::exp: return "exp";
    case Op::log: return "log";
    case Op::sin: return "sin";
    case Op::cos: return "cos";
    case Op::tan: return "tan";
    case Op::add: return "add";
    case Op::subtract: return "subtract";
    case Op::multiply: return "multiply";
    case Op::divide: return "divide";
    case Op::pow: return "pow";
    case Op::atan2: return "atan2";
    case Op::min: return "min";
    case Op::max: return "max";
    case Op::less: return "less";
    case Op::less_equal: return "less_equal";
    case Op::equal: return "equal";
    case Op::not_equal: return "not_equal";
    case Op::select: return "select";
  }
  return "?";
}

std::size_t Dag::KeyHash::operator()(const Key& key) const noexcept {
  std::uint64_t h = 0xcbf29ce484222325ULL ^ static_cast<std::uint64_t>(key.op);
  auto mix = [&h](std::uint64_t v) {
    h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  };
  for (NodeId a : key.args) mix(a);
  mix(key.bits);
  return static_cast<std::size_t>(h);
}

NodeId Dag::add_node(const Node& node, const Key& key) {
  if (share_) {
    const auto found = index_.find(key);
    if (found != index_.end()) return found->second;
  }
  const auto id = static_cast<NodeId>(nodes_.size());
  nodes_.push_back(node);
  if (share_) index_.emplace(key, id);
  return id;
}

bool Dag::is_constant(NodeId id, double value) const {
  const Node& n = nodes_.at(id);
  return n.op == Op::constant && n.value == value;
}

NodeId Dag::constant(double value) {
  if (!std::isfinite(value)) {
    throw FoldError("a constant expression evaluates to " + shortest_decimal(value));
  }
  Node node;
  node.op = Op::constant;
  node.value = value;
  return add_node(node, Key{Op::constant, {}, std::bit_cast<std::uint64_t>(value)});
}

NodeId Dag::input(InputRef ref) {
  Node node;
  node.op = Op::input;
  node.input = ref;
  const std::uint64_t bits = (static_cast<std::uint64_t>(ref.kind) << 32) | ref.index;
  return add_node(node, Key{Op::input, {}, bits});
}

NodeId Dag::unary(Op op, NodeId a) {
  const Node& x = nodes_.at(a);
  if (x.op == Op::constant) return constant(detail::apply_op(op, x.value, 0.0, 0.0));
  if (op == Op::negate && x.op == Op::negate) return x.args[0];
  Node node;
  node.op = op;
  node.args = {a, 0, 0};
  return add_node(node, Key{op, node.args, 0});
}

NodeId Dag::binary(Op op, NodeId a, NodeId b) {
  if (is_constant(a) && is_constant(b)) {
    return constant(detail::apply_op(op, nodes_[a].value, nodes_[b].value, 0.0));
  }
  return fold_binary(op, a, b);
}

NodeId Dag::fold_binary(Op op, NodeId a, NodeId b) {
  switch (op) {
    case Op::add:
      if (is_constant(a, 0.0)) return b;
      if (is_constant(b, 0.0)) return a;
      // a + (-b) is a - b exactly in IEEE arithmetic.
      if (nodes_[b].op == Op::negate) return fold_binary(Op::subtract, a, nodes_[b].args[0]);
      if (nodes_[a].op == Op::negate) return fold_binary(Op::subtract, b, nodes_[a].args[0]);
      break;
    case Op::subtract:
      if (is_constant(b, 0.0)) return a;
      if (is_constant(a, 0.0)) return unary(Op::negate, b);
      if (a == b && share_) return constant(0.0);
      if (nodes_[b].op == Op::negate) return fold_binary(Op::add, a, nodes_[b].args[0]);
      break;
    case Op::multiply:
      if (is_constant(a, 0.0) || is_constant(b, 0.0)) return constant(0.0);
      if (is_constant(a, 1.0)) return b;
      if (is_constant(b, 1.0)) return a;
      if (is_constant(a, -1.0)) return unary(Op::negate, b);
      if (is_constant(b, -1.0)) return unary(Op::negate, a);
      break;
    case Op::divide:
      if (is_constant(b, 1.0)) return a;
      if (is_constant(b, 0.0)) throw FoldError("division by a constant zero");
      break;
    default:
      break;
  }
  // Commutative operations get their operands in a canonical order, so a*b and b*a share.
  const bool commutative = op == Op::add || op == Op::multiply || op == Op::min || op == Op::max ||
                           op == Op::equal || op == Op::not_equal;
  if (commutative && share_ && b < a) std::swap(a, b);
  Node node;
  node.op = op;
  node.args = {a, b, 0};
  return add_node(node, Key{op, node.args, 0});
}

NodeId Dag::select(NodeId condition, NodeId a, NodeId b) {
  const Node& c = nodes_.at(condition);
  if (c.op == Op::constant) return c.value != 0.0 ? a : b;
  if (a == b && share_) return a;
  Node node;
  node.op = Op::select;
  node.args = {condition, a, b};
  return add_node(node, Key{Op::select, node.args, 0});
}

std::vector<NodeId> reachable(const Dag& dag, const std::vector<NodeId>& outputs) {
  std::vector<char> used(dag.size(), 0);
  for (NodeId out : outputs) used.at(out) = 1;
  // Operands have smaller ids than their users, so one backward sweep marks everything.
  for (std::size_t i = dag.size(); i-- > 0;) {
    if (!used[i]) continue;
    const Node& n = dag[static_cast<NodeId>(i)];
    for (int k = 0; k < arity(n.op); ++k) used[n.args[static_cast<std::size_t>(k)]] = 1;
  }
  std::vector<NodeId> order;
  for (std::size_t i = 0; i < dag.size(); ++i) {
    if (used[i]) order.push_back(static_cast<NodeId>(i));
  }
  return order;
}

}  // namespace fluxes
