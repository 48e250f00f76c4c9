// The kernel families (private to dg/src/kernels): each writes its kernels into the program
// and fills in the launch facts of GeneratedKernels it owns. generate.cpp picks them by plan.
#pragma once

#include "kernels/common.hpp"

namespace rtdg::dg::kernels {

// rtdg_volume, rtdg_surface (Plan::fusion == none): one thread per node, per-element scratch
// in shared memory (dg/kernels.hpp has the signatures).
void write_unfused(rtcg::SourceWriter& w, const KernelSpec& spec, const Pieces& pieces, GeneratedKernels& out);

// The curved element group's kernels (KernelSpec::curved), for every plan family (unfused.cpp):
// rtdg_surface_curved, rtdg_wadg, rtdg_volume_curved on nodal values; rtdg_curved_coefficients
// for a Bernstein plan; rtdg_curved_keep, rtdg_curved_lserk, rtdg_curved_ssp for a fused one.
void write_curved(rtcg::SourceWriter& w, const KernelSpec& spec, const Pieces& pieces, GeneratedKernels& out);

// rtdg_lserk, rtdg_ssp: the Runge-Kutta updates of the unfused plan.
void write_updates(rtcg::SourceWriter& w);

// rtdg_stage_lserk, rtdg_stage_ssp (Plan::fusion == stage): volume, surface and update of a
// block of elements in one kernel.
void write_fused(rtcg::SourceWriter& w, const KernelSpec& spec, const Pieces& pieces, GeneratedKernels& out);

// Why the fused stage kernel does not take the spec's plan (the reason, as dg::Error gives it),
// or "" when it does: plan values out of range or that do not go together, a state derivative
// of a nonlinear flux, a block too large for the threads, registers or shared memory.
std::string fused_plan_refusal(const KernelSpec& spec, const Pieces& pieces);

// Whether F(u) is linear in the state with constant coefficients (every path from a state
// input to an output goes through +, -, negation, and products or quotients by terms that do
// not depend on the state, position or time). Derivative::state needs it.
bool flux_is_linear(const fluxes::Lowered& flux);

// Why a lowered piece does not carry over to the Bernstein basis pointwise ("depends on the
// position", "is not affine in the state"), or "" when it does: each output affine in the state,
// the exterior state and the incident field (which the kernels carry to face coefficients) with
// coefficients from constants, parameters (also per element), normals and time.
std::string basis_change_obstacle(const fluxes::Lowered& piece);

// Throws dg::Error when a Bernstein plan (Basis::bernstein) does not fit the spec: an interval
// element, or a piece of the law with a basis_change_obstacle.
void check_bernstein(const KernelSpec& spec, const Pieces& pieces);

// dg::check in two parts, so that generate_kernels lowers the law's pieces once for both the
// check and the code: what needs no lowering (the plan values against the schema, unfused
// plans' values, the law's dimension against the element's), then the rest with the pieces.
std::string check_before_lowering(const KernelSpec& spec);
std::string check_lowered(const KernelSpec& spec, const Pieces& pieces);

// rtdg_pack_halo (dg/kernels.hpp), for every plan.
void write_halo_pack(rtcg::SourceWriter& w);

}  // namespace rtdg::dg::kernels
