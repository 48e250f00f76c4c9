// dg::check (dg/kernels.hpp): the one validity check of plans.
#include "dg/kernels.hpp"

#include "dg/bernstein.hpp"
#include "dg/error.hpp"
#include "dg/plan_schema.hpp"
#include "kernels/families.hpp"

#include <fluxes/law_lowering.hpp>

namespace rtdg::dg {
namespace {

// Values of the fused stage kernel that an unfused plan must leave at their defaults (they
// are plan values of every plan in texts and points, so that those keep their meaning).
std::string unfused_refusal(const Plan& plan) {
  if (plan.fusion == Fusion::stage) return {};
  if (plan.operators == Operators::stencil)
    return "the plan does not fit: operators = stencil is the Bernstein lattice stencil of the fused stage kernel "
           "(basis = bernstein, fusion = stage)";
  if (plan.max_registers != 0)
    return "the plan does not fit: max_registers caps the registers of the fused stage kernel (fusion = stage)";
  if (!plan.prefetch_update)
    return "the plan does not fit: prefetch_update = off reads the update input late in the fused stage kernel "
           "(fusion = stage); unfused plans do not prefetch it";
  return {};
}

}  // namespace

namespace kernels {

std::string check_before_lowering(const KernelSpec& spec) {
  if (!spec.law) return "no law given";
  if (!spec.element) return "no reference element given";
  const Plan& plan = spec.plan;
  for (const PlanField& field : plan_fields()) {
    if (!applies_to(field, plan)) continue;
    const std::string refusal = value_refusal(field, field.get(plan));
    if (!refusal.empty()) return refusal;
  }
  if (std::string refusal = unfused_refusal(plan); !refusal.empty()) return refusal;
  const fluxes::Law& law = *spec.law;
  const Element& element = *spec.element;
  if (law.dimension != element.dim)
    return "the law '" + law.name + "' is " + std::to_string(law.dimension) + "D but the mesh elements are " +
           std::string(shape_name(element.shape)) + "s (" + std::to_string(element.dim) + "D)";
  return {};
}

std::string check_lowered(const KernelSpec& spec, const Pieces& pieces) {
  const Plan& plan = spec.plan;
  if (plan.basis == Basis::bernstein) {
    try {
      check_bernstein(spec, pieces);
    } catch (const Error& error) {
      return error.what();
    }
  }
  if (plan.fusion != Fusion::stage) return {};
  // A Bernstein plan's kernel is laid out for the element's operators in Bernstein form (their
  // sparsity decides, e.g., how many literal entries the code holds).
  if (plan.basis == Basis::bernstein) {
    const Element operators = bernstein_element(*spec.element);
    KernelSpec in_basis = spec;
    in_basis.element = &operators;
    return fused_plan_refusal(in_basis, pieces);
  }
  return fused_plan_refusal(spec, pieces);
}

}  // namespace kernels

std::string check(const KernelSpec& spec) {
  if (std::string refusal = kernels::check_before_lowering(spec); !refusal.empty()) return refusal;
  return kernels::check_lowered(spec, kernels::lower_pieces(spec));
}

}  // namespace rtdg::dg
