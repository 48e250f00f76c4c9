// Experiments on the element operators the kernels get (session 26, 2026-11-27; not plan
// values, not used unless asked for by RTDG_EXPERIMENT_OPERATORS).
//
// `noisy`: D_r, D_s, D_t as Vr V^-1 comes out, with the rounding noise make_element drops
// (element.hpp), so an A/B in one run measures what the exact zeros save literal operators.
//
// `bernstein`: what the fused kernels cost with the element operators of the Bernstein-Bezier
// basis instead of the nodal one (Chan & Warburton, "GPU-accelerated Bernstein-Bezier
// discontinuous Galerkin methods for wave problems", SIAM J. Sci. Comput. 2017). discretize()
// replaces D_r, D_s, D_t and LIFT by their Bernstein forms (bernstein.hpp: the same as T D V_B
// and T LIFT V_F, V_B the Bernstein polynomials of degree N at the nodes, T = V_B^-1, V_F the
// face ones at the face nodes, but built from the lattice, so the zeros are exact), after the
// geometry was computed with the nodal ones. The state the kernels step is then the Bernstein
// coefficients: the same semi-discrete system up to the similarity T for a linear law with
// element-wise constant coefficients and homogeneous boundary conditions (the coefficients of
// face f are those of the lattice points on f, which are the nodes Fmask lists, and both sides
// of a face pair them as they pair the nodes). Every plan takes the same operators, so the
// tuner's agreement check holds among them; what is measured is the time of the sparser
// operators: the derivatives have at most 7 entries per row (order 4 on tetrahedra: 146 of
// 1,225 in D_r against 594 nodal), LIFT about half of its entries. Initial values, output and
// boundary data are not transformed: the answers are not the nodal run's. By-column plans that
// differentiate the state apply LIFT in the Bernstein layers (session 27, kernels/fused.cpp);
// `bernstein_product`: the same operators with LIFT as a product everywhere, for an A/B of the
// layers.
#include "dg/basis.hpp"
#include "dg/bernstein.hpp"
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

void use_bernstein_operators(Element& e) {
  if (e.dim < 2) return;
  const BernsteinOperators b = make_bernstein(e);
  e.Dr = b.derivative(0);
  e.Ds = b.derivative(1);
  if (e.dim == 3) e.Dt = b.derivative(2);
  e.LIFT = b.lift();
}

}  // namespace

bool bernstein_operators_experiment() {
  const char* value = std::getenv("RTDG_EXPERIMENT_OPERATORS");
  return value != nullptr && std::string(value) == "bernstein";
}

void apply_operators_experiment(Element& e) {
  const char* value = std::getenv("RTDG_EXPERIMENT_OPERATORS");
  if (value == nullptr || *value == 0) return;
  const std::string which = value;
  if (which == "bernstein" || which == "bernstein_product") use_bernstein_operators(e);
  else if (which == "noisy") use_noisy_derivatives(e);
  else
    throw Error("RTDG_EXPERIMENT_OPERATORS = '" + which + "' is not an operator experiment; use 'noisy', 'bernstein' or "
                "'bernstein_product', or leave it unset");
}

}  // namespace rtdg::dg::detail
