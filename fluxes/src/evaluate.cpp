#include "fluxes/evaluate.hpp"

#include "scalar_ops.hpp"

namespace fluxes {

std::vector<double> evaluate(const Dag& dag, const std::vector<NodeId>& outputs, const InputValues& inputs) {
  std::vector<double> value(dag.size(), 0.0);
  for (NodeId id : reachable(dag, outputs)) {
    const Node& n = dag[id];
    switch (n.op) {
      case Op::constant: value[id] = n.value; break;
      case Op::input: value[id] = inputs(n.input); break;
      default:
        value[id] = detail::apply_op(n.op, value[n.args[0]], value[n.args[1]], value[n.args[2]]);
        break;
    }
  }
  std::vector<double> result;
  result.reserve(outputs.size());
  for (NodeId out : outputs) result.push_back(value[out]);
  return result;
}

}  // namespace fluxes
