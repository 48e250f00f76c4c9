// A numerical interpreter for the DAG, in double: checks lowering without a C compiler and
// serves as the reference for emitted code.
#pragma once

#include "fluxes/dag.hpp"

#include <functional>
#include <vector>

namespace fluxes {

using InputValues = std::function<double(const InputRef&)>;

// Values of `outputs`, in order. Only the nodes they depend on are evaluated; `inputs` is
// called once for each input node among them.
std::vector<double> evaluate(const Dag& dag, const std::vector<NodeId>& outputs, const InputValues& inputs);

// The same for many points (e.g. every node of a mesh): the nodes to evaluate are found once,
// and one buffer serves every call. `dag` and `outputs` must outlive the evaluator.
class Evaluator {
 public:
  Evaluator(const Dag& dag, const std::vector<NodeId>& outputs);
  // Values of the outputs, in order; valid until the next call.
  const std::vector<double>& operator()(const InputValues& inputs);

 private:
  const Dag* dag_;
  const std::vector<NodeId>* outputs_;
  std::vector<NodeId> order_;   // reachable(dag, outputs): what each call evaluates, in order
  std::vector<double> value_;   // [dag.size()]
  std::vector<double> result_;  // [outputs.size()]
};

}  // namespace fluxes
