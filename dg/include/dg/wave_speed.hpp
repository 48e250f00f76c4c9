// The law's max_wave_speed reduced over the nodes on the device: a generated rtcg reduction
// whose map evaluates the expression at one node (emitted as C from the lowered DAG, as the flux
// kernels are) and whose reduce takes the larger value. The adaptive time step reads it every
// few steps, so only one number crosses to the host instead of the whole state.
#pragma once

#include "dg/plan.hpp"

#include <fluxes/law.hpp>
#include <fluxes/emit_c.hpp>
#include <rtcg/reduction.hpp>

#include <vector>

namespace rtdg::dg {

// The reduction over the K * Np nodes of a state in `layout` (node stride `node_stride`, 0: Np;
// dg::node_stride) with `components` components of `scalar` type. Its arguments, in order: the state q, the node coordinates xyz [dim][K][Np], the
// run-time parameters prm (pointers to `scalar`) and K (int). It yields max |speed| over the nodes,
// NaN when a node's speed is NaN (NaN wins every comparison), 0 for no nodes. The expression is
// evaluated at t = 0 (the host evaluation's time; the law's speed does not depend on t in
// practice). `per_element` flags the parameters given per element (KernelSpec::per_element): the
// kernel reads those from prm[P + p * K + k], as the DG kernels do, so a region with a faster
// material sets the speed. Throws fluxes::Error when the law's expression does not lower.
rtcg::ReductionSpec wave_speed_reduction(const fluxes::Law& law, const std::vector<double>& parameters, int Np,
                                         fluxes::ScalarType scalar, Layout layout,
                                         const std::vector<bool>& per_element = {}, int node_stride = 0);

}  // namespace rtdg::dg
