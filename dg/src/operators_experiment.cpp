// Experiments on the element operators the kernels get (session 26, 2026-11-27; not plan
// values, not used unless asked for by RTDG_EXPERIMENT_OPERATORS).
//
// `noisy`: D_r, D_s, D_t as Vr V^-1 comes out, with the rounding noise make_element drops
// (element.hpp), so an A/B in one run measures what the exact zeros save literal operators.
//
// (`bernstein` and `bernstein_product`, sessions 26-27, replaced the element's operators by their
// Bernstein forms without transforming the state; the plan value dg::Basis::bernstein does it
// properly and replaced them, tuning-history.md.)
#include "dg/basis.hpp"
#include "dg/element.hpp"
#include "dg/error.hpp"
#include "operators_experiment.hpp"

#include <cstdlib>
#include <string>
#include <vector>

namespace rtdg::dg::detail {
namespace {

void use_noisy_derivatives(Element& e) {
  const std::vector<Eigen::MatrixXd> grad_V = grad_vandermonde(e.shape, e.N, e.nodes());
  e.Dr = grad_V[0] * e.invV;
  if (e.dim >= 2) e.Ds = grad_V[1] * e.invV;
  if (e.dim >= 3) e.Dt = grad_V[2] * e.invV;
}

}  // namespace

void apply_operators_experiment(Element& e) {
  const char* value = std::getenv("RTDG_EXPERIMENT_OPERATORS");
  if (value == nullptr || *value == 0) return;
  const std::string which = value;
  if (which == "noisy") use_noisy_derivatives(e);
  else if (which == "bernstein" || which == "bernstein_product")
    throw Error("RTDG_EXPERIMENT_OPERATORS = '" + which + "' is gone: the Bernstein operators are the plan value basis = "
                "bernstein now (docs/tuning.md); unset it");
  else
    throw Error("RTDG_EXPERIMENT_OPERATORS = '" + which + "' is not an operator experiment; use 'noisy', or leave it unset");
}

}  // namespace rtdg::dg::detail
