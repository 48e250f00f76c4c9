// The scalar expression DAG that vector algebra lowers to. Nodes are hash-consed: building a
// node that already exists returns the existing one, which is common-subexpression
// elimination by construction (operands of commutative operations are put in a canonical
// order first, so a*b and b*a are one node). Constants fold as nodes are built.
//
// Folding assumes finite values, as flux code does: x*0 -> 0, x-x -> 0, x+0 -> x, x*1 -> x,
// -(-x) -> x, a-(-b) -> a+b, a+(-b) -> a-b, if(c, a, a) -> a. A fold whose result is not
// finite (log(0), 1/0 after a constant parameter is substituted) throws FoldError, so no inf
// or nan ever reaches generated code.
//
// Node ids are topologically ordered: a node's operands always have smaller ids.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <unordered_map>
#include <vector>

namespace fluxes {

using NodeId = std::uint32_t;

// An input of a generated evaluator. The caller of the emitter decides how each is named in C.
enum class InputKind : std::uint8_t {
  state,       // index: flat state component (the volume state, or the interior trace on a face)
  exterior,    // index: flat state component of the exterior trace on a face
  normal,      // index: dimension d of the outward unit normal
  coordinate,  // index: dimension d of the position
  time,        // index: 0
  parameter,   // index: parameter number in the law (only parameters that are not constant)
  incident,    // index: flat incident-field component
  // Parameters that take a value per element (materials per region): index: parameter number.
  // Only parameters the lowering is told vary (LowerContext::per_element) become these.
  element_parameter,    // this element's value (the interior side on a face)
  neighbour_parameter,  // the neighbour's value on an interior face (a parameter's .ext)
};

struct InputRef {
  InputKind kind = InputKind::state;
  std::uint32_t index = 0;
  friend bool operator==(const InputRef&, const InputRef&) = default;
};

const char* to_string(InputKind kind);

enum class Op : std::uint8_t {
  constant, input,
  negate, abs, sqrt, exp, log, sin, cos, tan,       // unary
  add, subtract, multiply, divide, pow, atan2, min, max,  // binary
  less, less_equal, equal, not_equal,                // binary, result is a condition (0 or 1)
  select,                                            // args[0] ? args[1] : args[2]
};

int arity(Op op);
bool is_condition(Op op);  // comparisons: their value is 0 or 1, used only by select
const char* to_string(Op op);

struct Node {
  Op op = Op::constant;
  std::array<NodeId, 3> args{};  // the first arity(op) are used
  double value = 0.0;            // Op::constant
  InputRef input;                // Op::input
};

// A constant fold gave inf or nan.
class FoldError : public std::domain_error {
public:
  using std::domain_error::domain_error;
};

class Dag {
public:
  // share = false turns hash-consing off (every call makes a new node), so tests can count
  // what sharing saves. Folding stays on.
  explicit Dag(bool share = true) : share_(share) {}

  NodeId constant(double value);
  NodeId input(InputRef ref);
  NodeId unary(Op op, NodeId a);
  NodeId binary(Op op, NodeId a, NodeId b);
  NodeId select(NodeId condition, NodeId a, NodeId b);

  const Node& operator[](NodeId id) const { return nodes_.at(id); }
  std::size_t size() const noexcept { return nodes_.size(); }
  bool is_constant(NodeId id) const { return nodes_.at(id).op == Op::constant; }
  bool is_constant(NodeId id, double value) const;

private:
  struct Key {
    Op op;
    std::array<NodeId, 3> args;
    std::uint64_t bits;  // constant value bits, or input kind and index
    friend bool operator==(const Key&, const Key&) = default;
  };
  struct KeyHash {
    std::size_t operator()(const Key& key) const noexcept;
  };

  NodeId add_node(const Node& node, const Key& key);
  NodeId fold_binary(Op op, NodeId a, NodeId b);

  bool share_;
  std::vector<Node> nodes_;
  std::unordered_map<Key, NodeId, KeyHash> index_;
};

// Ids of the nodes that `outputs` depend on, in topological (increasing) order.
std::vector<NodeId> reachable(const Dag& dag, const std::vector<NodeId>& outputs);

}  // namespace fluxes
