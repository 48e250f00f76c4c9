// The fused stage kernels (Plan::fusion == stage): one launch per Runge-Kutta stage does the
// volume term, the surface term and the update for a block of NE elements, so a stage moves
// the minimal four state-sized arrays (read q_in and res, write q_out and res) plus the
// neighbours' face traces and the per-element geometry.
//
// A block's scratch (CUDA: dynamic shared memory; host: a stack array per block), in reals:
//   sq [NE][NCOMP][NP]        the elements' state, loaded once, coalesced
//   sG [NE][NCOMP*DIM][NP]    metric-folded fluxes G_a (Derivative::flux only)
//   sF [NE][NCOMP][NFN]       Fscale * n.(F - F*) at the face nodes
//   sD [DIM][NP][NP]          D_a transposed, sD[(a*NP + j)*NP + i] = D_a(i, j)  (Operators::shared)
//   sL [NFN][NP]              LIFT transposed, sL[m*NP + i] = LIFT(i, m)         (Operators::shared)
// The operators arrive transposed (DT, LT) so that the threads of an element, which hold
// consecutive nodes i, read consecutive addresses.
//
// Threads: TPE = ceil(NP / NPT) per element, NE * TPE per block. Thread l of element e owns
// the output nodes i = l + r * TPE, r < NPT (inline-parallel slicing: every operator entry
// and state value it loads serves NPT outputs). The flux and face-flux phases loop over node
// and face-node slots with the block's threads, as the unfused kernels do.
//
// Kernels (T = float or double):
//   rtdg_stage_lserk(const T* q, T* qo, T* res, drdx, fgeo, vmapP, bcode, xyz, DT, LT, prm,
//                    T t, T a, T b, T dt, int K)
//       res = a res + dt L(q);  qo = q + b res           (LSERK4 stage; a = 0, b = 0, dt = 1
//                                                         leaves L(q) in res)
//   rtdg_stage_ssp  (const T* q, const T* u0, T* qo, drdx, fgeo, vmapP, bcode, xyz, DT, LT,
//                    prm, T t, T alpha, T beta, T dt, int K)
//       qo = alpha u0 + beta (q + dt L(q))                (SSP-RK3 stage)
// The geometry arguments are those of the unfused kernels (dg/kernels.hpp).
#include "kernels/families.hpp"

#include "dg/error.hpp"

#include <fluxes/dag.hpp>

#include <algorithm>
#include <string>

namespace rtdg::dg::kernels {
namespace {

using fluxes::InputKind;

std::string str(int v) { return std::to_string(v); }

void write_stage_body(rtcg::SourceWriter& w, const KernelSpec& spec, const Pieces& pieces,
                      const std::vector<std::string>& epilogue);

// A stage kernel: the frame binding the block's elements (CUDA: a thread block; host: one
// iteration of an OpenMP loop over blocks), then the body. `epilogue` writes the update of
// component c of output node i (state index idx) from rhs[c] and the stage input se[c*NP + i].
void write_stage_kernel(rtcg::SourceWriter& w, const KernelSpec& spec, const Pieces& pieces, const std::string& name,
                        const std::string& parameters, const std::vector<std::string>& epilogue) {
  w.line("RTCG_KERNEL(" + name + ")(" + parameters + ")");
  w.line("{");
  w.line("#if RTCG_CUDA");
  w.line("  extern __shared__ double rtdg_smem[];");
  w.line("  real* scratch = reinterpret_cast<real*>(rtdg_smem);");
  w.line("  const int tid = static_cast<int>(threadIdx.x);");
  w.line("  const int k0 = static_cast<int>(blockIdx.x) * NE;");
  w.line("#define RTDG_SLOTS(s, n) for (int s = tid; s < (n); s += NE * TPE)");
  w.line("#define RTDG_SYNC() __syncthreads()");
  w.line("#else");
  w.line("#pragma omp parallel for schedule(static)");
  w.line("  for (int block = 0; block < (K + NE - 1) / NE; ++block) {");
  w.line("  real scratch[SCRATCH];");
  w.line("  const int k0 = block * NE;");
  w.line("#define RTDG_SLOTS(s, n) for (int s = 0; s < (n); ++s)");
  w.line("#define RTDG_SYNC()");
  w.line("#endif");
  w.indent();
  write_stage_body(w, spec, pieces, epilogue);
  w.dedent();
  w.line("#if RTCG_HOST");
  w.line("  }");
  w.line("#endif");
  w.line("}");
  w.line();
}

void write_stage_body(rtcg::SourceWriter& w, const KernelSpec& spec, const Pieces& pieces,
                      const std::vector<std::string>& epilogue) {
  const Element& element = *spec.element;
  const int dim = element.dim;
  const int components = static_cast<int>(spec.law->state_components());
  const Plan& plan = spec.plan;
  const bool by_state = plan.derivative == Derivative::state;
  const bool shared_ops = plan.operators == Operators::shared;
  w.line("(void)xyz; (void)prm; (void)t;");
  w.line("real* sq = scratch;");
  w.line("real* sF = scratch + OFF_F;");
  if (!by_state) w.line("real* sG = scratch + OFF_G;");
  if (shared_ops) {
    w.line("real* sD = scratch + OFF_D;");
    w.line("real* sL = scratch + OFF_L;");
    w.line("RTDG_SLOTS(s, DIM * NP * NP) sD[s] = DT[s];");
    w.line("RTDG_SLOTS(s, NFN * NP) sL[s] = LT[s];");
    w.line("const real* Dop = sD;");
    w.line("const real* Lop = sL;");
  } else {
    w.line("const real* Dop = DT;");
    w.line("const real* Lop = LT;");
  }
  w.line("// The block's state: NP consecutive values per (element, component) in either layout.");
  {
    auto load = w.block("RTDG_SLOTS(s, NE * NCOMP * NP)");
    w.line("const int e = s / (NCOMP * NP);");
    w.line("const int c = (s / NP) % NCOMP;");
    w.line("const int i = s % NP;");
    w.line("const int k = k0 + e;");
    w.line("sq[s] = k < K ? q[QIDX(c, k, i)] : real(0);");
  }
  w.line("RTDG_SYNC();");

  if (!by_state) {
    w.line("// G_a = sum_d (dr_a/dx_d) F_d(u) at every node of the block.");
    auto nodes = w.block("RTDG_SLOTS(s, NE * NP)");
    w.line("const int e = s / NP;");
    w.line("const int i = s % NP;");
    w.line("const int k = k0 + e;");
    w.line("if (k >= K) continue;");
    w.line("real u[NCOMP];");
    for (int c = 0; c < components; ++c) w.line("u[" + str(c) + "] = sq[(e * NCOMP + " + str(c) + ") * NP + i];");
    if (reads_input(pieces.flux, InputKind::coordinate)) load_coordinates(w, dim, "i");
    write_folded_flux(w, spec, pieces,
                      [](int ca) { return "sG[(e * (NCOMP * DIM) + " + std::to_string(ca) + ") * NP + i]"; });
  }
  {
    w.line("// Fscale n.(F - F*) at every face node of the block; exterior traces from q.");
    auto faces = w.block("RTDG_SLOTS(s, NE * NFN)");
    w.line("const int e = s / NFN;");
    w.line("const int m = s % NFN;");
    w.line("const int k = k0 + e;");
    w.line("if (k >= K) continue;");
    w.line("const int f = m / NFP;");
    w.line("const int iM = rtdg_fmask[m];");
    w.line("real u[NCOMP];");
    for (int c = 0; c < components; ++c) w.line("u[" + str(c) + "] = sq[(e * NCOMP + " + str(c) + ") * NP + iM];");
    write_face_flux(w, spec, pieces);
    for (int c = 0; c < components; ++c)
      w.line("sF[(e * NCOMP + " + str(c) + ") * NFN + m] = fg[DIM] * dF[" + str(c) + "];");
  }
  w.line("RTDG_SYNC();");

  auto outputs = w.block("RTDG_SLOTS(s, NE * TPE)");
  w.line("const int e = s / TPE;");
  w.line("const int l = s % TPE;");
  w.line("const int k = k0 + e;");
  w.line("if (k >= K) continue;");
  w.line("// Output r is node l + r * TPE; past NP the last node is computed and not stored.");
  w.line("int node[NPT];");
  w.line("for (int r = 0; r < NPT; ++r) node[r] = l + r * TPE < NP ? l + r * TPE : NP - 1;");
  w.line("const real* se = sq + e * (NCOMP * NP);");
  if (by_state) {
    w.line("// du[r][c][a] = (D_a u_c)(node r)");
    w.line("real du[NPT][NCOMP][DIM];");
    w.line("for (int r = 0; r < NPT; ++r) for (int c = 0; c < NCOMP; ++c) for (int a = 0; a < DIM; ++a) du[r][c][a] = 0;");
    auto j_loop = w.block("for (int j = 0; j < NP; ++j)");
    w.line("real v[NCOMP];");
    w.line("for (int c = 0; c < NCOMP; ++c) v[c] = se[c * NP + j];");
    auto r_loop = w.block("for (int r = 0; r < NPT; ++r)");
    w.line("real d[DIM];");
    w.line("for (int a = 0; a < DIM; ++a) d[a] = Dop[(a * NP + j) * NP + node[r]];");
    w.line("for (int c = 0; c < NCOMP; ++c) for (int a = 0; a < DIM; ++a) du[r][c][a] += d[a] * v[c];");
  } else {
    w.line("// acc[r][c] = sum_a (D_a G_a,c)(node r)");
    w.line("real acc[NPT][NCOMP];");
    w.line("for (int r = 0; r < NPT; ++r) for (int c = 0; c < NCOMP; ++c) acc[r][c] = 0;");
    w.line("const real* ge = sG + e * (NCOMP * DIM * NP);");
    auto j_loop = w.block("for (int j = 0; j < NP; ++j)");
    w.line("real gj[NCOMP * DIM];");
    w.line("for (int ca = 0; ca < NCOMP * DIM; ++ca) gj[ca] = ge[ca * NP + j];");
    auto r_loop = w.block("for (int r = 0; r < NPT; ++r)");
    w.line("real d[DIM];");
    w.line("for (int a = 0; a < DIM; ++a) d[a] = Dop[(a * NP + j) * NP + node[r]];");
    w.line("for (int c = 0; c < NCOMP; ++c) for (int a = 0; a < DIM; ++a) acc[r][c] += d[a] * gj[c * DIM + a];");
  }
  w.line("// lift[r][c] = (LIFT sF_c)(node r)");
  w.line("real lift[NPT][NCOMP];");
  w.line("for (int r = 0; r < NPT; ++r) for (int c = 0; c < NCOMP; ++c) lift[r][c] = 0;");
  w.line("const real* fe = sF + e * (NCOMP * NFN);");
  {
    auto m_loop = w.block("for (int m = 0; m < NFN; ++m)");
    w.line("real fm[NCOMP];");
    w.line("for (int c = 0; c < NCOMP; ++c) fm[c] = fe[c * NFN + m];");
    w.line("for (int r = 0; r < NPT; ++r) { const real lm = Lop[m * NP + node[r]]; for (int c = 0; c < NCOMP; ++c) lift[r][c] += lm * fm[c]; }");
  }
  if (by_state) w.line("const real* g = drdx + k * (DIM * DIM);");
  auto r_loop = w.block("for (int r = 0; r < NPT; ++r)");
  // A guard, not a break: with a break the loop is not unrolled and the per-output arrays go
  // to local memory.
  auto valid = w.block("if (l + r * TPE < NP)");
  w.line("const int i = node[r];");
  w.line("real rhs[NCOMP];");
  if (by_state) {
    // div F(u) = sum_d F_d(du/dx_d) for a linear F: the flux of the d-th physical derivative,
    // component d. gx[c*DIM + d] = du_c/dx_d = sum_a (dr_a/dx_d) du[r][c][a].
    w.line("real gx[NCOMP * DIM];");
    w.line("for (int c = 0; c < NCOMP; ++c) for (int d = 0; d < DIM; ++d) { real v = 0; for (int a = 0; a < DIM; ++a) v += g[a * DIM + d] * du[r][c][a]; gx[c * DIM + d] = v; }");
    w.line("for (int c = 0; c < NCOMP; ++c) rhs[c] = 0;");
    for (int d = 0; d < dim; ++d) {
      auto direction = w.block("");
      w.line("real Fd[NCOMP * DIM];");
      emit_piece(w, pieces.flux, "Fd", "vd" + str(d) + "_", spec.scalar,
                 [d, dim](std::size_t c) { return "gx[" + std::to_string(static_cast<int>(c) * dim + d) + "]"; });
      for (int c = 0; c < components; ++c) w.line("rhs[" + str(c) + "] -= Fd[" + str(c * dim + d) + "];");
    }
  } else {
    w.line("for (int c = 0; c < NCOMP; ++c) rhs[c] = -acc[r][c];");
  }
  w.line("for (int c = 0; c < NCOMP; ++c) rhs[c] += lift[r][c];");
  if (pieces.has_source) {
    w.line("real u[NCOMP];");
    w.line("for (int c = 0; c < NCOMP; ++c) u[c] = se[c * NP + i];");
    if (reads_input(pieces.source, InputKind::coordinate)) load_coordinates(w, dim, "i");
    w.line("real S[NCOMP];");
    emit_piece(w, pieces.source, "S", "vs", spec.scalar);
    w.line("for (int c = 0; c < NCOMP; ++c) rhs[c] += S[c];");
  }
  {
    auto c_loop = w.block("for (int c = 0; c < NCOMP; ++c)");
    w.line("const int idx = QIDX(c, k, i);");
    for (const std::string& line : epilogue) w.line(line);
  }
}

}  // namespace

void write_fused(rtcg::SourceWriter& w, const KernelSpec& spec, const Pieces& pieces, GeneratedKernels& out) {
  const Element& element = *spec.element;
  const Plan& plan = spec.plan;
  const int dim = element.dim;
  const int components = static_cast<int>(spec.law->state_components());
  const int Np = element.Np, Nfn = element.Nfaces * element.Nfp;
  const int npt = std::clamp(plan.nodes_per_thread, 1, Np);
  const int tpe = (Np + npt - 1) / npt;
  if (plan.nodes_per_thread < 1 || plan.nodes_per_thread > 8)
    throw Error("the plan's nodes_per_thread must be 1 to 8, got " + std::to_string(plan.nodes_per_thread));
  if (plan.derivative == Derivative::state && !flux_is_linear(pieces.flux))
    throw Error("the plan differentiates the state (derivative = state), which needs a volume flux linear in the "
                "state with constant coefficients; the law '" + spec.law->name + "' has a nonlinear or "
                "position-dependent flux: use derivative = flux");
  const int ne = elements_per_block(plan.stage_elements_per_block, tpe);
  if (ne * tpe > 1024)
    throw Error("the plan does not fit: " + std::to_string(ne) + " elements per block of " + std::to_string(tpe) +
                " threads each is more than 1024 threads per block");

  // Scratch offsets in reals (see the file comment).
  const long long q_size = static_cast<long long>(ne) * components * Np;
  const long long f_size = static_cast<long long>(ne) * components * Nfn;
  const long long g_size = plan.derivative == Derivative::flux ? static_cast<long long>(ne) * components * dim * Np : 0;
  const long long d_size = plan.operators == Operators::shared ? static_cast<long long>(dim) * Np * Np : 0;
  const long long l_size = plan.operators == Operators::shared ? static_cast<long long>(Nfn) * Np : 0;
  const long long off_f = q_size, off_g = off_f + f_size, off_d = off_g + g_size, off_l = off_d + d_size;
  const long long scratch = std::max(1LL, off_l + l_size);
  const std::size_t real_bytes = spec.scalar == fluxes::ScalarType::float32 ? 4 : 8;
  out.stage_shared_bytes = static_cast<std::size_t>(scratch) * real_bytes;
  if (out.stage_shared_bytes > max_dynamic_shared_bytes)
    throw Error("the plan does not fit: the fused stage kernel needs " + std::to_string(out.stage_shared_bytes) +
                " bytes of shared memory per block (" + std::to_string(ne) + " elements of order " +
                std::to_string(element.N) + (plan.operators == Operators::shared ? ", operators in shared memory" : "") +
                "), more than " + std::to_string(max_dynamic_shared_bytes) +
                "; use fewer elements per block or operators in global memory");
  out.stage_elements_per_block = ne;
  out.stage_threads = ne * tpe;

  w.line("#define NE " + str(ne));
  w.line("#define NPT " + str(npt));
  w.line("#define TPE " + str(tpe));
  w.line("#define OFF_F " + std::to_string(off_f));
  w.line("#define OFF_G " + std::to_string(off_g));
  w.line("#define OFF_D " + std::to_string(off_d));
  w.line("#define OFF_L " + std::to_string(off_l));
  w.line("#define SCRATCH " + std::to_string(scratch));
  w.line();
  const std::string geometry =
      "const real* RTCG_RESTRICT drdx, const real* RTCG_RESTRICT fgeo, const int* RTCG_RESTRICT vmapP, "
      "const int* RTCG_RESTRICT bcode, const real* RTCG_RESTRICT xyz, const real* RTCG_RESTRICT DT, "
      "const real* RTCG_RESTRICT LT, const real* RTCG_RESTRICT prm, real t, ";
  write_stage_kernel(w, spec, pieces, "rtdg_stage_lserk",
                     "const real* RTCG_RESTRICT q, real* RTCG_RESTRICT qo, real* RTCG_RESTRICT res, " + geometry +
                         "real a, real b, real dt, int K",
                     {"const real rr = a * res[idx] + dt * rhs[c];", "res[idx] = rr;",
                      "qo[idx] = se[c * NP + i] + b * rr;"});
  write_stage_kernel(w, spec, pieces, "rtdg_stage_ssp",
                     "const real* RTCG_RESTRICT q, const real* RTCG_RESTRICT u0, real* RTCG_RESTRICT qo, " + geometry +
                         "real alpha, real beta, real dt, int K",
                     {"qo[idx] = alpha * u0[idx] + beta * (se[c * NP + i] + dt * rhs[c]);"});
  w.line("#undef RTDG_SLOTS");
  w.line("#undef RTDG_SYNC");
  w.line();
}

}  // namespace rtdg::dg::kernels
