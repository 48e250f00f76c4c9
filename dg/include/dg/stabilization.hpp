// Shock capturing that works with any law: an exponential modal filter and a
// positivity-preserving limiter, applied to the state after every Runge-Kutta stage by one generated
// kernel (both backends, through rtcg like the solver's own kernels). docs/shock-capturing.md
// describes the choice and its references.
//
//   filter      per element and component, u <- V diag(sigma) V^-1 u with
//               sigma(n) = exp(-alpha ((n - Nc)/(N - Nc))^s) for modes of total degree n > Nc,
//               1 below (Hesthaven & Warburton, Nodal DG Methods, sec. 5.3): the element mean
//               (mode 0) is kept, so the filter conserves.
//   positivity  Zhang & Shu's scaling limiter (J. Comput. Phys. 229 (2010) 3091-3120): for each
//               listed quantity g (a scalar expression of the state that is concave in it:
//               density, pressure, water depth), in the order listed, the element's values are
//               pulled towards its mean, u <- ubar + theta (u - ubar), with the largest theta
//               in [0, 1] that keeps g >= min(floor, g(ubar)) at every node. By concavity
//               theta = min over nodes with g_i < eps of (g(ubar) - eps)/(g(ubar) - g_i) is
//               enough. Conservative (the mean is kept); elements whose mean already violates
//               g > 0 are left alone (nothing local can fix them).
#pragma once

#include "dg/discretization.hpp"
#include "dg/element.hpp"
#include "dg/plan.hpp"

#include <fluxes/emit_c.hpp>
#include <fluxes/law.hpp>
#include <fluxes/law_lowering.hpp>
#include <rtcg/backend.hpp>

#include <Eigen/Dense>

#include <memory>
#include <string>
#include <vector>

namespace rtdg::dg {

struct Stabilization {
  double filter_strength = 0;  // alpha; 0: no filter (alpha = 36 takes the top mode to machine epsilon)
  int filter_order = 16;       // s >= 1: larger is gentler on the low modes
  int filter_cutoff = 0;       // Nc, 0 <= Nc < N: modes of degree <= Nc are untouched
  // Scalar expressions of the state (fields, the law's definitions, parameters) kept positive,
  // in this order; e.g. {"rho", "p"} for euler2d.toml.
  std::vector<std::string> positive;
  double positivity_floor = 1e-10;  // eps: g is kept >= min(eps, g(element mean))

  bool filter() const { return filter_strength > 0; }
  bool active() const { return filter() || !positive.empty(); }
  friend bool operator==(const Stabilization&, const Stabilization&) = default;
};

// The filter as a nodal operator, Np x Np: V diag(sigma) V^-1. Throws dg::Error for s < 1,
// alpha < 0, or Nc outside [0, N) (any Nc filters nothing at order 0).
Eigen::MatrixXd filter_matrix(const Element& element, double alpha, int s, int Nc);

// One positive quantity lowered to a DAG of the state and parameters (one output). Throws
// fluxes::Error located inside the expression (`where` is the position of the string's value,
// its opening quote, e.g. in a run config) for a parse or check error, a vector, or an
// expression that reads the position or time or not the state.
fluxes::Lowered lower_positive_quantity(const fluxes::Law& law, const std::vector<double>& parameters,
                                        const std::string& expression, const fluxes::Location& where);

// The kernel source (rtdg_stabilize(real* q, const real* F [Np][Np], const real* w [Np],
// const real* prm, int K): one element per thread/iteration), for tests and `law check`.
// node_stride: the state's (dg::node_stride; 0: Np).
std::string stabilization_source(const fluxes::Law& law, const std::vector<double>& parameters, const Element& element,
                                 const Stabilization& stabilization, fluxes::ScalarType scalar, Layout layout,
                                 int node_stride = 0);

// The compiled kernel and its operators on one backend; apply() runs it on a state in device
// memory (the solver's, in its kernel layout).
class Stabilizer {
public:
  Stabilizer(rtcg::Backend& backend, const Discretization& disc, const fluxes::Law& law,
             const std::vector<double>& parameters, const Stabilization& stabilization, fluxes::ScalarType scalar,
             Layout layout, int node_stride = 0);
  ~Stabilizer();
  Stabilizer(const Stabilizer&) = delete;
  Stabilizer& operator=(const Stabilizer&) = delete;

  // q: components * K * node stride values of the scalar type, in `layout`, on the backend's device.
  void apply(void* q) const;
  const std::string& source() const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rtdg::dg
