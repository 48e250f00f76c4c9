// The plans the curved-element tests run on meshes that mix affine and curved elements (host:
// test_curved_plans.cpp; CUDA against the host: test_curved_cuda.cpp): the fused stage kernel
// with several layouts, operator places, prefetch values and the face connectivity, the
// Bernstein basis unfused and fused, and a CUDA graph. The affine group runs the plan; the
// curved group its own kernels (docs/curved.md).
#pragma once

#include "solver_support.hpp"

#include <dg/plan.hpp>

#include <vector>

namespace rtdg::dg::test {

inline Plan in_bernstein(Plan plan) {
  plan.basis = Basis::bernstein;
  return plan;
}

// Built as one list (not push_back one by one: GCC 13 at -O3 reports a false
// -Wstringop-overflow inside vector's reallocation of Plan).
inline std::vector<Plan> curved_plans() {
  const Plan global = fused_plan(Layout::field_major, 2, 1, Operators::global, Derivative::flux);
  const Plan shared = fused_plan(Layout::element_major, 3, 1, Operators::shared, Derivative::state, Products::scalar,
                                 Prefetch::on);
  Plan padded = fused_plan(Layout::element_major, 2, 1, Operators::literals, Derivative::state, Products::scalar,
                           Prefetch::async);
  padded.align = 32;
  padded.prefetch_update = false;
  Plan faces = fused_plan(Layout::field_major, 2, 1, Operators::constant, Derivative::state);
  faces.connectivity = Connectivity::faces;
  faces.graph = true;
  Plan unfused = Plan{};
  unfused.layout = Layout::element_major;
  return {global,
          shared,
          padded,
          faces,
          in_bernstein(unfused),
          in_bernstein(fused_plan(Layout::element_major, 3, 1, Operators::literals, Derivative::state, Products::scalar,
                                  Prefetch::async)),
          in_bernstein(fused_plan(Layout::field_major, 2, 1, Operators::stencil, Derivative::state))};
}

}  // namespace rtdg::dg::test
