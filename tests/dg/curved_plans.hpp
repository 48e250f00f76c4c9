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

inline std::vector<Plan> curved_plans() {
  std::vector<Plan> plans;
  plans.push_back(fused_plan(Layout::field_major, 2, 1, Operators::global, Derivative::flux));
  plans.push_back(fused_plan(Layout::element_major, 3, 1, Operators::shared, Derivative::state, Products::scalar,
                             Prefetch::on));
  Plan padded = fused_plan(Layout::element_major, 2, 1, Operators::literals, Derivative::state, Products::scalar,
                           Prefetch::async);
  padded.align = 32;
  padded.prefetch_update = false;
  plans.push_back(padded);
  Plan faces = fused_plan(Layout::field_major, 2, 1, Operators::constant, Derivative::state);
  faces.connectivity = Connectivity::faces;
  faces.graph = true;
  plans.push_back(faces);
  Plan unfused = Plan{};
  unfused.layout = Layout::element_major;
  plans.push_back(in_bernstein(unfused));
  plans.push_back(in_bernstein(fused_plan(Layout::element_major, 3, 1, Operators::literals, Derivative::state,
                                          Products::scalar, Prefetch::async)));
  plans.push_back(in_bernstein(fused_plan(Layout::field_major, 2, 1, Operators::stencil, Derivative::state)));
  return plans;
}

}  // namespace rtdg::dg::test
