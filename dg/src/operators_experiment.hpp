// The operator experiments (operators_experiment.cpp; timing only, not plan values). Private to
// dg: the discretization applies them.
#pragma once

#include "dg/element.hpp"

namespace rtdg::dg::detail {

// With RTDG_EXPERIMENT_OPERATORS = `noisy`, the element's D replaced after the geometry is
// computed; throws dg::Error for another value.
void apply_operators_experiment(Element& e);

}  // namespace rtdg::dg::detail
