// The "library formulation" of a solver's DG operator, as in Hesthaven & Warburton's
// MaxwellRHS3D: the derivative and lift products as one GEMM each over all elements by a
// vendor library (cuBLAS on the CUDA backend, Eigen on the host backend), with generated
// pointwise kernels around them. `rtdg bench` compares the solver's generated stage against it.
//
// With the state field-major, q is an Np x (ncomp*K) column-major matrix (column c*K + k). A
// right-hand side evaluation is
//   lib_flux          G_a = sum_d (dr_a/dx_d) F_d(u) at every node, written as the
//                     (dim*Np) x (ncomp*K) matrix G (row a*Np + i); rhs = S(u, x, t) when the
//                     law has a source
//   GEMM              rhs = -[D_r | D_s | D_t] G (+ rhs when the law has a source)
//                     (m = Np, n = ncomp*K, k = dim*Np)
//   lib_surface_flux  Fscale n.(F - F*) at every face node (the exterior trace through vmapP,
//                     or the face's boundary condition), the Nfn x (ncomp*K) matrix Fs
//   GEMM              rhs += LIFT Fs                       (m = Np, n = ncomp*K, k = Nfn)
// and an LSERK stage adds
//   lib_update        res = a res + dt rhs; q += b res
// The pointwise kernels are emitted by the same functions as the solver's kernels (flux,
// boundary conditions, incident field), so the two compute the same right-hand side to
// rounding (the tests check it).
#pragma once

#include "dg/kernels.hpp"
#include "dg/solver.hpp"

#include <rtcg/program.hpp>

#include <memory>
#include <span>
#include <string>
#include <vector>

namespace rtdg::dg {

class LibraryFormulation {
public:
  // Built from a solver: same backend, law, discretization, precision, boundary conditions
  // and incident field (solver.kernel_spec(), solver.face_codes()); allocates its own device
  // arrays and starts with a zero state and residual. The solver must outlive it. Throws
  // dg::Error when the backend is CUDA and cuBLAS cannot be loaded or initialised ("cuBLAS
  // unavailable: ..."), rtcg errors when the pointwise kernels do not compile.
  explicit LibraryFormulation(const Solver& solver);
  ~LibraryFormulation();
  LibraryFormulation(const LibraryFormulation&) = delete;
  LibraryFormulation& operator=(const LibraryFormulation&) = delete;

  // The state, host layout [component][K][Np] as Solver::set_state; also zeroes the residual.
  void set_state(std::span<const double> values);
  std::vector<double> state() const;
  // L(q, t) for the current state, host layout.
  std::vector<double> rhs(double t);
  // One LSERK stage: res = a res + dt L(q, t); q += b res.
  void stage(double t, double a, double b, double dt);

  // e.g. "cuBLAS DGEMM (Dr|Ds|Dt) and LIFT + 3 generated pointwise kernels".
  std::string describe() const;
  // Kernel launches and library calls per stage: lib_flux, GEMM, lib_surface_flux, GEMM,
  // lib_update.
  int launches_per_stage() const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The program of the pointwise kernels (lib_flux, lib_surface_flux, lib_update) for a
// solver's kernel spec, in rtcg's portable dialect (compiles on both backends); the spec's
// plan is ignored (field-major). Throws dg::Error as generate_kernels does.
rtcg::Program library_program(const KernelSpec& spec);

// Whether libcublas can be loaded (dlopen; needs no device), and why not when it cannot.
bool cublas_loadable();
std::string cublas_load_failure();

}  // namespace rtdg::dg
