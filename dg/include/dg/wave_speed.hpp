// The law's max_wave_speed reduced over the nodes on the device: a generated rtcg reduction
// whose map evaluates the expression at one node (emitted as C from the lowered DAG, as the flux
// kernels are) and whose reduce takes the larger value. The adaptive time step reads it every
// few steps, so only one number crosses to the host instead of the whole state.
#pragma once

#include "dg/plan.hpp"

#include <fluxes/law.hpp>
#include <fluxes/emit_c.hpp>
#include <rtcg/reduction.hpp>

#include <string>
#include <vector>

namespace rtdg::dg {

// The reduction over the K * Np nodes of a state in `layout` (node stride `node_stride`, 0: Np;
// dg::node_stride) with `components` components of `scalar` type. Its arguments, in order: the state q, the node coordinates xyz [dim][K][Np], the
// run-time parameters prm (pointers to `scalar`) and K (int). It yields the largest speed over the
// nodes when every node's is >= 0; else NaN when a node's speed is NaN, or a negative value
// when one is negative (never |speed|: a negative speed is the law's error); 0 for no nodes.
// The expression is
// evaluated at t = 0 (the host evaluation's time; the law's speed does not depend on t in
// practice). `per_element` flags the parameters given per element (KernelSpec::per_element): the
// kernel reads those from prm[P + p * K + k], as the DG kernels do, so a region with a faster
// material sets the speed. Throws fluxes::Error when the law's expression does not lower.
rtcg::ReductionSpec wave_speed_reduction(const fluxes::Law& law, const std::vector<double>& parameters, int Np,
                                         fluxes::ScalarType scalar, Layout layout,
                                         const std::vector<bool>& per_element = {}, int node_stride = 0);

class Solver;

// The first node of the solver's state whose speed is negative, NaN or infinite, described for a
// message: "nan at node 3 of element 7 (x = 0.5, y = 0.25), where rho = -0.5, m.x = 0.1, ...";
// empty when every node's speed is a finite value >= 0. Evaluated on the host, in double (it
// moves the state there): for messages, not for every step.
std::string wave_speed_culprit(const Solver& solver);

}  // namespace rtdg::dg
