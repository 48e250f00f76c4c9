// The operator experiments (operators_experiment.cpp; timing only, not plan values). Private to
// dg: the discretization applies them, the fused-kernel generator asks which one is on.
#pragma once

#include "dg/element.hpp"

namespace rtdg::dg::detail {

// With RTDG_EXPERIMENT_OPERATORS set (`noisy`, `bernstein`, `bernstein_product`), the element's
// D (and LIFT) replaced after the geometry is computed; throws dg::Error for another value.
void apply_operators_experiment(Element& e);

// Whether RTDG_EXPERIMENT_OPERATORS is `bernstein`: by-column plans that differentiate the state
// then apply LIFT in the Bernstein layers (kernels/fused.cpp) instead of as a product.
bool bernstein_operators_experiment();

}  // namespace rtdg::dg::detail
