// The discretization as the generated kernels read it (private to the solver target): host
// arrays in the layouts dg/kernels.hpp documents, uploaded by the solver and by the library
// formulation that `rtdg bench` compares against.
#pragma once

#include "dg/discretization.hpp"

#include <cstdint>
#include <vector>

namespace rtdg::dg {

struct Geometry {
  std::vector<double> drdx;  // [K][dim][dim] dr_a/dx_d
  std::vector<double> xyz;   // [dim][K][Np] node coordinates
  std::vector<double> D;     // [dim][Np][Np] D_a(i, j)
  std::vector<double> LIFT;  // [Np][Nfn]
  std::vector<double> DT;    // [dim][Np][Np] D_a(i, j) at (a, j, i)
  std::vector<double> LT;    // [Nfn][Np] LIFT(i, m) at (m, i)
  std::vector<double> fgeo;  // [K][Nfaces][dim + 1] outward normal, Fscale
  std::vector<double> prm;   // the law's parameters (one 0 when it has none)
  std::vector<std::int32_t> vmapP;  // [K][Nfn] flat k * Np + i of the exterior twin
  std::vector<std::int32_t> bcode;  // [K][Nfaces] 0 interior, b + 1 boundary condition b
};

// `codes` are the face codes ([K][Nfaces]); `parameters` every law parameter's value.
Geometry kernel_geometry(const Discretization& disc, std::vector<std::int32_t> codes,
                         const std::vector<double>& parameters);

}  // namespace rtdg::dg
