#include "fluxes/evaluate.hpp"

#include "scalar_ops.hpp"

namespace fluxes {

std::vector<double> evaluate(const Dag& dag, const std::vector<NodeId>& outputs, const InputValues& inputs) {
  Evaluator evaluator(dag, outputs);
  return evaluator(inputs);
}

Evaluator::Evaluator(const Dag& dag, const std::vector<NodeId>& outputs)
    : dag_(&dag), outputs_(&outputs), order_(reachable(dag, outputs)), value_(dag.size(), 0.0), result_(outputs.size()) {}

const std::vector<double>& Evaluator::operator()(const InputValues& inputs) {
  const Dag& dag = *dag_;
  for (NodeId id : order_) {
    const Node& n = dag[id];
    switch (n.op) {
      case Op::constant: value_[id] = n.value; break;
      case Op::input: value_[id] = inputs(n.input); break;
      default:
        value_[id] = detail::apply_op(n.op, value_[n.args[0]], value_[n.args[1]], value_[n.args[2]]);
        break;
    }
  }
  for (std::size_t o = 0; o < outputs_->size(); ++o) result_[o] = value_[(*outputs_)[o]];
  return result_;
}

}  // namespace fluxes
