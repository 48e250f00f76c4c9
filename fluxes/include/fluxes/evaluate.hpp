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

}  // namespace fluxes
