// Experiments on the element operators the kernels get (session 26, 2026-11-27; not plan
// values, not used unless asked for by RTDG_EXPERIMENT_OPERATORS).
//
// `noisy`: D_r, D_s, D_t as Vr V^-1 comes out, with the rounding noise make_element drops
// (element.hpp), so an A/B in one run measures what the exact zeros save literal operators.
//
// `bernstein`: what the fused kernels cost with the element operators of the Bernstein-Bezier
// basis instead of the nodal one (Chan & Warburton, "GPU-accelerated Bernstein-Bezier
// discontinuous Galerkin methods for wave problems", SIAM J. Sci. Comput. 2017). discretize()
// replaces D_r, D_s, D_t and LIFT by T D V_B and T LIFT V_F (V_B: the Bernstein polynomials of
// degree N at the nodes, T = V_B^-1, V_F: the face ones at the face nodes, per face), after the
// geometry was computed with the nodal ones. The state the kernels step is then the Bernstein
// coefficients: the same semi-discrete system up to the similarity T for a linear law with
// element-wise constant coefficients and homogeneous boundary conditions (the coefficients of
// face f are those of the lattice points on f, which are the nodes Fmask lists, and both sides
// of a face pair them as they pair the nodes). Every plan takes the same operators, so the
// tuner's agreement check holds among them; what is measured is the time of the sparser
// operators: the derivatives have at most 7 entries per row (order 4 on tetrahedra: 146 of
// 1,225 in D_r against 594 nodal), LIFT about half of its entries. Initial values, output and
// boundary data are not transformed: the answers are not the nodal run's.
#include "dg/basis.hpp"
#include "dg/element.hpp"
#include "dg/error.hpp"

#include "lattice.hpp"

#include <array>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

namespace rtdg::dg::detail {
namespace {

// B_alpha(lambda) = N! / prod alpha_q! prod lambda_q^alpha_q at reference point (r, s, t).
double bernstein(int N, int dim, const std::array<int, 3>& index, double r, double s, double t) {
  const double lambda[4] = {-(dim == 3 ? 1.0 + r + s + t : r + s) / 2.0, (1.0 + r) / 2.0, (1.0 + s) / 2.0,
                            (1.0 + t) / 2.0};
  const int alpha[4] = {N - index[0] - index[1] - index[2], index[0], index[1], index[2]};
  double value = std::tgamma(N + 1.0);
  for (int q = 0; q <= dim; ++q) value *= std::pow(lambda[q], alpha[q]) / std::tgamma(alpha[q] + 1.0);
  return value;
}

void drop_noise(Eigen::MatrixXd& m) {
  const double limit = 1e-10 * m.cwiseAbs().maxCoeff();
  m = m.unaryExpr([limit](double v) { return std::abs(v) < limit ? 0.0 : v; });
}

void use_noisy_derivatives(Element& e) {
  const std::vector<Eigen::MatrixXd> grad_V = grad_vandermonde(e.shape, e.N, e.nodes());
  e.Dr = grad_V[0] * e.invV;
  if (e.dim >= 2) e.Ds = grad_V[1] * e.invV;
  if (e.dim >= 3) e.Dt = grad_V[2] * e.invV;
}

void use_bernstein_operators(Element& e) {
  if (e.dim < 2) return;
  const std::vector<std::array<int, 3>> lattice = lattice_indices(e.dim, e.N);
  const Eigen::MatrixXd nodes = e.nodes();
  auto at = [&](int node, int coefficient) {
    return bernstein(e.N, e.dim, lattice[static_cast<std::size_t>(coefficient)], nodes(node, 0), nodes(node, 1),
                     e.dim == 3 ? nodes(node, 2) : -1.0);
  };
  Eigen::MatrixXd VB(e.Np, e.Np);
  for (int i = 0; i < e.Np; ++i)
    for (int n = 0; n < e.Np; ++n) VB(i, n) = at(i, n);
  const Eigen::MatrixXd T = VB.inverse();
  Eigen::MatrixXd VF = Eigen::MatrixXd::Zero(e.Nfaces * e.Nfp, e.Nfaces * e.Nfp);
  for (int f = 0; f < e.Nfaces; ++f)
    for (int j = 0; j < e.Nfp; ++j)
      for (int b = 0; b < e.Nfp; ++b) VF(f * e.Nfp + j, f * e.Nfp + b) = at(e.Fmask(j, f), e.Fmask(b, f));
  for (Eigen::MatrixXd* D : {&e.Dr, &e.Ds, &e.Dt}) {
    if (D->size() == 0) continue;
    *D = T * *D * VB;
    drop_noise(*D);
  }
  e.LIFT = T * e.LIFT * VF;
  drop_noise(e.LIFT);
}

}  // namespace

void apply_operators_experiment(Element& e) {
  const char* value = std::getenv("RTDG_EXPERIMENT_OPERATORS");
  if (value == nullptr || *value == 0) return;
  const std::string which = value;
  if (which == "bernstein") use_bernstein_operators(e);
  else if (which == "noisy") use_noisy_derivatives(e);
  else
    throw Error("RTDG_EXPERIMENT_OPERATORS = '" + which + "' is not an operator experiment; use 'noisy' or 'bernstein', "
                "or leave it unset");
}

}  // namespace rtdg::dg::detail
