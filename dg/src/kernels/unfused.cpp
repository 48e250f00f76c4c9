// The unfused kernels of the default plan (Plan::fusion == none): rtdg_volume, rtdg_surface,
// and the Runge-Kutta updates. Every kernel body is written once: the CUDA and host variants
// differ only in the prologue that binds the element index k and the node loops (RTDG_NODES /
// RTDG_FACE_NODES and RTDG_SYNC), so the arithmetic cannot drift apart.
#include "kernels/families.hpp"

#include "dg/cubature.hpp"
#include "dg/error.hpp"

#include <sstream>

namespace rtdg::dg::kernels {
namespace {

using fluxes::InputKind;

void write_volume_body(rtcg::SourceWriter& w, const KernelSpec& spec, const Pieces& pieces) {
  const int dim = spec.element->dim;
  const int components = static_cast<int>(spec.law->state_components());
  {
    auto loop = w.block("RTDG_NODES(i)");
    load_state(w, components, "k", "i", "u");
    if (reads_input(pieces.flux, InputKind::coordinate)) load_coordinates(w, dim, "i");
    // G_a = sum_d (dr_a/dx_d) F_d, for each component.
    write_folded_flux(w, spec, pieces, [](int ca) { return "G[" + std::to_string(ca) + "][i]"; });
  }
  w.line("RTDG_SYNC();");
  auto loop = w.block("RTDG_NODES(i)");
  w.line("real acc[NCOMP];");
  for (int c = 0; c < components; ++c) w.line("acc[" + std::to_string(c) + "] = 0;");
  {
    auto j_loop = w.block("for (int j = 0; j < NP; ++j)");
    for (int a = 0; a < dim; ++a)
      w.line("const real d" + std::to_string(a) + " = D[(" + std::to_string(a) + " * NP + i) * NP + j];");
    for (int c = 0; c < components; ++c) {
      std::string sum;
      for (int a = 0; a < dim; ++a)
        sum += (a ? " + " : "") + std::string("d") + std::to_string(a) + " * G[" + std::to_string(c * dim + a) + "][j]";
      w.line("acc[" + std::to_string(c) + "] += " + sum + ";");
    }
  }
  if (pieces.has_source) {
    load_state(w, components, "k", "i", "u");
    if (reads_input(pieces.source, InputKind::coordinate)) load_coordinates(w, dim, "i");
    w.line("real S[NCOMP];");
    emit_piece(w, pieces.source, "S", "vs", spec.scalar);
    for (int c = 0; c < components; ++c)
      w.line("rhs[QIDX(" + std::to_string(c) + ", k, i)] = S[" + std::to_string(c) + "] - acc[" + std::to_string(c) + "];");
  } else {
    for (int c = 0; c < components; ++c)
      w.line("rhs[QIDX(" + std::to_string(c) + ", k, i)] = -acc[" + std::to_string(c) + "];");
  }
}

// `geometry`: where the face node's normal and scale come from (fg[DIM]: Fscale, or for a
// curved element sJ at the face node); `assign` writes rhs = LIFT (..) instead of adding it.
// `interior_trace` and `traces`, when given, write this element's trace u[] and the exterior
// uP[] instead of reading q's values (the curved kernels of a Bernstein plan).
void write_surface_body(rtcg::SourceWriter& w, const KernelSpec& spec, const Pieces& pieces,
                        const GeometryReads& geometry = {}, bool assign = false, const TraceLoads* traces = nullptr,
                        const std::function<void(rtcg::SourceWriter&)>& interior_trace = {}) {
  const int components = static_cast<int>(spec.law->state_components());
  {
    auto loop = w.block("RTDG_FACE_NODES(m)");
    w.line("const int f = m / NFP;");
    w.line("const int iM = rtdg_fmask[m];");
    if (interior_trace) interior_trace(w);
    else load_state(w, components, "k", "iM", "u");
    write_face_flux(w, spec, pieces, true, {}, geometry, traces);
    for (int c = 0; c < components; ++c)
      w.line("sF[" + std::to_string(c) + "][m] = fg[DIM] * dF[" + std::to_string(c) + "];");
  }
  w.line("RTDG_SYNC();");
  auto loop = w.block("RTDG_NODES(i)");
  w.line("real acc[NCOMP];");
  for (int c = 0; c < components; ++c) w.line("acc[" + std::to_string(c) + "] = 0;");
  {
    auto m_loop = w.block("for (int m = 0; m < NFN; ++m)");
    w.line("const real l = LIFT[i * NFN + m];");
    for (int c = 0; c < components; ++c)
      w.line("acc[" + std::to_string(c) + "] += l * sF[" + std::to_string(c) + "][m];");
  }
  for (int c = 0; c < components; ++c)
    w.line("rhs[QIDX(" + std::to_string(c) + ", k, i)] " + (assign ? "=" : "+=") + " acc[" + std::to_string(c) + "];");
}

// The curved group's volume term, pointwise: rhs += S - sum_a sum_d (dr_a/dx_d)(i) (D_a F_d)(i),
// exact at the nodes for a flux that is a polynomial of the nodal state (no aliasing of the
// varying metric); the metric per node from cdrdx.
// `load` writes `real u[NCOMP]` at node i of element k.
void write_curved_volume_body(rtcg::SourceWriter& w, const KernelSpec& spec, const Pieces& pieces,
                              const std::function<void(rtcg::SourceWriter&)>& load) {
  const int dim = spec.element->dim;
  const int components = static_cast<int>(spec.law->state_components());
  {
    auto loop = w.block("RTDG_NODES(i)");
    load(w);
    if (reads_input(pieces.flux, InputKind::coordinate)) load_coordinates(w, dim, "i");
    w.line("real F[NCOMP * DIM];");
    emit_piece(w, pieces.flux, "F", "vf", spec.scalar);
    w.line("for (int cd = 0; cd < NCOMP * DIM; ++cd) G[cd][i] = F[cd];");
  }
  w.line("RTDG_SYNC();");
  auto loop = w.block("RTDG_NODES(i)");
  w.line("real acc[NCOMP * DIM * DIM];  // (D_a F_d)(i) of component c at c * DIM * DIM + a * DIM + d");
  w.line("for (int s = 0; s < NCOMP * DIM * DIM; ++s) acc[s] = 0;");
  {
    auto j_loop = w.block("for (int j = 0; j < NP; ++j)");
    for (int a = 0; a < dim; ++a)
      w.line("const real d" + std::to_string(a) + " = D[(" + std::to_string(a) + " * NP + i) * NP + j];");
    for (int c = 0; c < components; ++c)
      for (int a = 0; a < dim; ++a)
        for (int d = 0; d < dim; ++d)
          w.line("acc[" + std::to_string((c * dim + a) * dim + d) + "] += d" + std::to_string(a) + " * G[" +
                 std::to_string(c * dim + d) + "][j];");
  }
  w.line("const real* g = cdrdx + (kc * NP + i) * (DIM * DIM);");
  w.line("real div[NCOMP];");
  for (int c = 0; c < components; ++c) {
    std::string sum;
    for (int a = 0; a < dim; ++a)
      for (int d = 0; d < dim; ++d)
        sum += std::string(sum.empty() ? "" : " + ") + "g[" + std::to_string(a * dim + d) + "] * acc[" +
               std::to_string((c * dim + a) * dim + d) + "]";
    w.line("div[" + std::to_string(c) + "] = " + sum + ";");
  }
  if (pieces.has_source) {
    if (reads_input(pieces.source, InputKind::coordinate)) load_coordinates(w, dim, "i");
    load(w);
    w.line("real S[NCOMP];");
    emit_piece(w, pieces.source, "S", "vs", spec.scalar);
    for (int c = 0; c < components; ++c)
      w.line("rhs[QIDX(" + std::to_string(c) + ", k, i)] += S[" + std::to_string(c) + "] - div[" + std::to_string(c) + "];");
  } else {
    for (int c = 0; c < components; ++c)
      w.line("rhs[QIDX(" + std::to_string(c) + ", k, i)] -= div[" + std::to_string(c) + "];");
  }
}

// The kernels of the curved element group (KernelSpec::curved) loop over kc, an index into the
// curved elements celem[], and bind k = celem[kc]; the others over k itself.
void write_element_kernel(rtcg::SourceWriter& w, const std::string& signature, const std::string& per_block,
                          const std::string& scratch, const std::string& extents, const std::string& body,
                          bool curved = false) {
  w.line("RTCG_KERNEL(" + signature + ")");
  w.line("{");
  w.line("#if RTCG_CUDA");
  // extents = [per_block][rows][columns]: the block's scratch; inner = one element's.
  const std::string inner = extents.substr(extents.find(']') + 1);
  const std::string index = curved ? "kc" : "k";
  w.line("  __shared__ real " + scratch + "_all" + extents + ";");
  w.line("  const int " + index + " = kb + static_cast<int>(blockIdx.x) * " + per_block + " + static_cast<int>(threadIdx.y);");
  w.line("  const bool active = " + index + " < ke;");
  if (curved) w.line("  const int k = active ? celem[kc] : 0;");
  // A pointer to the element's rows: the extents after the first of `inner`.
  const std::string row = inner.substr(inner.find(']') + 1);
  w.line("  real (*" + scratch + ")" + row + " = " + scratch + "_all[threadIdx.y];");
  w.line("#define RTDG_NODES(i) for (int i = static_cast<int>(threadIdx.x); active && i < NP; i += static_cast<int>(blockDim.x))");
  w.line("#define RTDG_FACE_NODES(m) for (int m = static_cast<int>(threadIdx.x); active && m < NFN; m += static_cast<int>(blockDim.x))");
  w.line("#define RTDG_CUBATURE(q) for (int q = static_cast<int>(threadIdx.x); active && q < NQ; q += static_cast<int>(blockDim.x))");
  w.line("#define RTDG_SYNC() __syncthreads()");
  w.line("#else");
  w.line("#pragma omp parallel for schedule(static)");
  w.line("  for (int " + index + " = kb; " + index + " < ke; ++" + index + ") {");
  if (curved) w.line("  const int k = celem[kc];");
  w.line("  real " + scratch + inner + ";");
  w.line("#define RTDG_NODES(i) for (int i = 0; i < NP; ++i)");
  w.line("#define RTDG_FACE_NODES(m) for (int m = 0; m < NFN; ++m)");
  w.line("#define RTDG_CUBATURE(q) for (int q = 0; q < NQ; ++q)");
  w.line("#define RTDG_SYNC()");
  w.line("#endif");
  std::istringstream lines(body);
  for (std::string line; std::getline(lines, line);) w.line("  " + line);
  w.line("#if RTCG_HOST");
  w.line("  }");
  w.line("#endif");
  w.line("#undef RTDG_NODES");
  w.line("#undef RTDG_FACE_NODES");
  w.line("#undef RTDG_CUBATURE");
  w.line("#undef RTDG_SYNC");
  w.line("}");
  w.line();
}

// rhs = M T at each node i of element k, for every component c: rhs[c](i) = sum_j M[i][j] T[c][j],
// M [Np][count] row-major (`matrix`), T [components][count] in shared memory (`buffer`), j named
// `index`: the last product of the weight-adjusted mass matrix (Pq) and of the change to
// Bernstein coefficients (VBinv).
void write_matrix_to_rhs(rtcg::SourceWriter& w, int components, const std::string& matrix, const std::string& count,
                         const std::string& index, const std::string& buffer) {
  auto loop = w.block("RTDG_NODES(i)");
  w.line("real acc[NCOMP];");
  for (int c = 0; c < components; ++c) w.line("acc[" + std::to_string(c) + "] = 0;");
  {
    auto j_loop = w.block("for (int " + index + " = 0; " + index + " < " + count + "; ++" + index + ")");
    w.line("const real l = " + matrix + "[i * " + count + " + " + index + "];");
    for (int c = 0; c < components; ++c)
      w.line("acc[" + std::to_string(c) + "] += l * " + buffer + "[" + std::to_string(c) + "][" + index + "];");
  }
  for (int c = 0; c < components; ++c)
    w.line("rhs[QIDX(" + std::to_string(c) + ", k, i)] = acc[" + std::to_string(c) + "];");
}

// rtdg_wadg's body: the weight-adjusted inverse of the curved element's mass matrix applied to
// its lifted surface term, rhs = Pq diag(1/J) Vq rhs.
void write_wadg_body(rtcg::SourceWriter& w, const KernelSpec& spec) {
  const int components = static_cast<int>(spec.law->state_components());
  {
    auto loop = w.block("RTDG_CUBATURE(qp)");
    w.line("real acc[NCOMP];");
    for (int c = 0; c < components; ++c) w.line("acc[" + std::to_string(c) + "] = 0;");
    {
      auto j_loop = w.block("for (int j = 0; j < NP; ++j)");
      w.line("const real v = Vq[qp * NP + j];");
      for (int c = 0; c < components; ++c)
        w.line("acc[" + std::to_string(c) + "] += v * rhs[QIDX(" + std::to_string(c) + ", k, j)];");
    }
    w.line("const real inverse_J = cwadg[kc * NQ + qp];");
    for (int c = 0; c < components; ++c)
      w.line("Tq[" + std::to_string(c) + "][qp] = inverse_J * acc[" + std::to_string(c) + "];");
  }
  w.line("RTDG_SYNC();");
  write_matrix_to_rhs(w, components, "Pq", "NQ", "qp", "Tq");
}

// The curved kernels of a Bernstein plan (Plan::basis): q holds each element's Bernstein
// coefficients, nodal values u = V_B c (VB [Np][Np] row-major), and the curved kernels work on
// nodal values. At a volume node every coefficient of the element contributes. At face node m
// (face f, volume node iM) only the face's Nfp do (the other basis functions vanish on it), and
// a neighbour's face coefficients belong to the same lattice points as this element's
// (bernstein.hpp: a face's coefficients are its lattice points'), so both traces are
// sum_b V_B(iM, Fmask(b, f)) times the coefficient at face node b: this element's at its node
// Fmask(b, f), the neighbour's through vmapP of face node b (or from the halo buffer, which holds
// the neighbour rank's coefficients at its face nodes).
void load_nodal_at_volume_node(rtcg::SourceWriter& w, int components) {
  w.line("real u[NCOMP];");
  for (int c = 0; c < components; ++c) w.line("u[" + std::to_string(c) + "] = 0;");
  auto loop = w.block("for (int j = 0; j < NP; ++j)");
  w.line("const real v = VB[i * NP + j];");
  for (int c = 0; c < components; ++c)
    w.line("u[" + std::to_string(c) + "] += v * q[QIDX(" + std::to_string(c) + ", k, j)];");
}

enum class TraceSide { interior, exterior, halo };

void load_nodal_at_face_node(rtcg::SourceWriter& w, int components, TraceSide side) {
  const std::string name = side == TraceSide::interior ? "u" : "uP";
  w.line("real " + name + "[NCOMP];");
  for (int c = 0; c < components; ++c) w.line(name + "[" + std::to_string(c) + "] = 0;");
  auto loop = w.block("for (int b = 0; b < NFP; ++b)");
  w.line("const int jb = rtdg_fmask[f * NFP + b];");
  w.line("const real v = VB[iM * NP + jb];");
  if (side == TraceSide::exterior) {
    w.line("const int pb = RTDG_VMAPP(k, f, f * NFP + b, NP);");
    w.line("const int kq = pb / NP;");
    w.line("const int iq = pb - kq * NP;");
  } else if (side == TraceSide::halo) {
    w.line("const int pb = RTDG_VMAPP(k, f, f * NFP + b, NCOMP * NFP);");
  }
  for (int c = 0; c < components; ++c) {
    const std::string cs = std::to_string(c);
    const std::string value = side == TraceSide::interior ? "q[QIDX(" + cs + ", k, jb)]"
                              : side == TraceSide::exterior ? "q[QIDX(" + cs + ", kq, iq)]"
                                                            : "halo[pb + " + cs + " * NFP]";
    w.line(name + "[" + cs + "] += v * " + value + ";");
  }
}

// rtdg_curved_coefficients' body (Bernstein plans): the curved elements' nodal right-hand side
// to coefficients, rhs = V_B^-1 rhs (VBinv [Np][Np] row-major).
void write_coefficients_body(rtcg::SourceWriter& w, int components) {
  {
    auto loop = w.block("RTDG_NODES(i)");
    for (int c = 0; c < components; ++c)
      w.line("Tn[" + std::to_string(c) + "][i] = rhs[QIDX(" + std::to_string(c) + ", k, i)];");
  }
  w.line("RTDG_SYNC();");
  write_matrix_to_rhs(w, components, "VBinv", "NP", "j", "Tn");
}

// The fused plans' Runge-Kutta updates of the curved elements (dg/kernels.hpp has the order of
// launches): value s of the curved elements [kb, ke) is node i of component c of element
// celem[kc], x its index in the state layout.
void write_curved_updates(rtcg::SourceWriter& w) {
  const char* bind =
      "const int kc = kb + static_cast<int>(s / (NCOMP * NP)); const int r = static_cast<int>(s % (NCOMP * NP)); "
      "const int c = r / NP; const int i = r - c * NP; const long long x = QIDX(c, celem[kc], i); "
      "const long long y = static_cast<long long>(kc) * (NCOMP * NP) + r; (void)y; (void)K;";
  w.line("RTCG_KERNEL(rtdg_curved_keep)(const real* RTCG_RESTRICT res, real* RTCG_RESTRICT keep, "
         "const int* RTCG_RESTRICT celem, int K, int kb, int ke)");
  {
    auto body = w.block("");
    auto loop = w.block("RTCG_GLOBAL_LOOP(s, static_cast<long long>(ke - kb) * (NCOMP * NP))");
    w.line(bind);
    w.line("keep[y] = res[x];");
  }
  w.line();
  w.line("RTCG_KERNEL(rtdg_curved_lserk)(const real* RTCG_RESTRICT q, real* RTCG_RESTRICT qo, real* RTCG_RESTRICT res, "
         "const real* RTCG_RESTRICT rhs, const real* RTCG_RESTRICT keep, real a, real b, real dt, "
         "const int* RTCG_RESTRICT celem, int K, int kb, int ke)");
  {
    auto body = w.block("");
    auto loop = w.block("RTCG_GLOBAL_LOOP(s, static_cast<long long>(ke - kb) * (NCOMP * NP))");
    w.line(bind);
    w.line("const real r_new = a * keep[y] + dt * rhs[x];");
    w.line("res[x] = r_new;");
    w.line("qo[x] = q[x] + b * r_new;");
  }
  w.line();
  w.line("RTCG_KERNEL(rtdg_curved_ssp)(real* RTCG_RESTRICT out, const real* RTCG_RESTRICT u0, const real* RTCG_RESTRICT u, "
         "const real* RTCG_RESTRICT rhs, real alpha, real beta, real dt, const int* RTCG_RESTRICT celem, int K, int kb, "
         "int ke)");
  {
    auto body = w.block("");
    auto loop = w.block("RTCG_GLOBAL_LOOP(s, static_cast<long long>(ke - kb) * (NCOMP * NP))");
    w.line(bind);
    w.line("out[x] = alpha * u0[x] + beta * (u[x] + dt * rhs[x]);");
  }
  w.line();
}

}  // namespace

// The curved element group's kernels (KernelSpec::curved; dg/kernels.hpp has the signatures), for
// every plan family: the unfused volume and surface bodies with per-node geometry on nodal
// values, then rtdg_wadg; for a Bernstein plan the basis changes around them; for a fused plan
// the curved elements' Runge-Kutta updates.
void write_curved(rtcg::SourceWriter& w, const KernelSpec& spec, const Pieces& pieces, GeneratedKernels& out) {
  const Element& element = *spec.element;
  const int components = static_cast<int>(spec.law->state_components());
  const bool bernstein = spec.plan.basis == Basis::bernstein;
  // The curved group works on nodal values whatever the plan's basis (the incident field at
  // the face nodes, not the face's coefficients of it).
  KernelSpec nodal = spec;
  nodal.plan.basis = Basis::nodal;
  out.curved = true;
  out.cubature_points = cubature_points(element.shape, weight_adjusted_cubature(element.N));
  out.wadg_threads = std::max(element.Np, out.cubature_points);
  out.curved_volume_threads = element.Np;
  out.curved_surface_threads = std::max(element.Np, element.Nfaces * element.Nfp);
  const std::size_t real_bytes = spec.scalar == fluxes::ScalarType::float32 ? 4 : 8;
  const std::size_t wadg_bytes = real_bytes * static_cast<std::size_t>(components * out.cubature_points);
  if (wadg_bytes > max_static_shared_bytes)
    throw Error("the plan does not fit: the curved elements' mass-matrix kernel needs " + std::to_string(wadg_bytes) +
                " bytes of shared memory per block (" + std::to_string(components) + " components, order " +
                std::to_string(element.N) + "), more than " + std::to_string(max_static_shared_bytes));
  GeometryReads curved;
  curved.face = "cfgeo + (kc * NFN + m) * (DIM + 1)";
  TraceLoads traces;
  traces.interior = [&](rtcg::SourceWriter& s) { load_nodal_at_face_node(s, components, TraceSide::exterior); };
  traces.halo = [&](rtcg::SourceWriter& s) { load_nodal_at_face_node(s, components, TraceSide::halo); };
  auto face_trace = [&](rtcg::SourceWriter& s) { load_nodal_at_face_node(s, components, TraceSide::interior); };
  auto volume_load = [&](rtcg::SourceWriter& s) {
    if (bernstein) load_nodal_at_volume_node(s, components);
    else load_state(s, components, "k", "i", "u");
  };
  const std::string unused_vb = bernstein ? "" : " (void)VB;";

  rtcg::SourceWriter volume;
  volume.line("(void)xyz; (void)prm; (void)t;" + unused_vb);
  write_curved_volume_body(volume, nodal, pieces, volume_load);
  write_element_kernel(w,
                       "rtdg_volume_curved)(const real* RTCG_RESTRICT q, real* RTCG_RESTRICT rhs, const real* RTCG_RESTRICT cdrdx, "
                       "const real* RTCG_RESTRICT xyz, const real* RTCG_RESTRICT D, const real* RTCG_RESTRICT prm, real t, "
                       "const real* RTCG_RESTRICT VB, const int* RTCG_RESTRICT celem, int K, int kb, int ke",
                       "1", "G", "[1][NCOMP * DIM][NP]", volume.str(), true);

  rtcg::SourceWriter surface;
  surface.line("(void)xyz; (void)prm; (void)t;" + unused_vb);
  write_surface_body(surface, nodal, pieces, curved, true, bernstein ? &traces : nullptr,
                     bernstein ? std::function<void(rtcg::SourceWriter&)>(face_trace) : nullptr);
  write_element_kernel(w,
                       "rtdg_surface_curved)(const real* RTCG_RESTRICT q, real* RTCG_RESTRICT rhs, const real* RTCG_RESTRICT cfgeo, "
                       "const int* RTCG_RESTRICT vmapP, const int* RTCG_RESTRICT bcode, const real* RTCG_RESTRICT xyz, "
                       "const real* RTCG_RESTRICT LIFT, const real* RTCG_RESTRICT prm, real t, " + std::string(halo_arguments) +
                           ", const real* RTCG_RESTRICT VB, const int* RTCG_RESTRICT celem, int K, int kb, int ke",
                       "1", "sF", "[1][NCOMP][NFN]", surface.str(), true);

  rtcg::SourceWriter wadg;
  wadg.line("(void)q; (void)xyz; (void)prm; (void)t;");
  write_wadg_body(wadg, nodal);
  write_element_kernel(w,
                       "rtdg_wadg)(const real* RTCG_RESTRICT q, real* RTCG_RESTRICT rhs, const real* RTCG_RESTRICT cwadg, "
                       "const real* RTCG_RESTRICT Vq, const real* RTCG_RESTRICT Pq, const real* RTCG_RESTRICT xyz, "
                       "const real* RTCG_RESTRICT prm, real t, const int* RTCG_RESTRICT celem, int K, int kb, int ke",
                       "1", "Tq", "[1][NCOMP][NQ]", wadg.str(), true);

  if (bernstein) {
    rtcg::SourceWriter coefficients;
    coefficients.line("(void)K;");
    write_coefficients_body(coefficients, components);
    write_element_kernel(w,
                         "rtdg_curved_coefficients)(real* RTCG_RESTRICT rhs, const real* RTCG_RESTRICT VBinv, "
                         "const int* RTCG_RESTRICT celem, int K, int kb, int ke",
                         "1", "Tn", "[1][NCOMP][NP]", coefficients.str(), true);
  }
  if (spec.plan.fusion == Fusion::stage) write_curved_updates(w);
}

void write_unfused(rtcg::SourceWriter& w, const KernelSpec& spec, const Pieces& pieces, GeneratedKernels& out) {
  const Element& element = *spec.element;
  const int dim = element.dim;
  const int components = static_cast<int>(spec.law->state_components());
  const int Np = element.Np, Nfn = element.Nfaces * element.Nfp;
  out.volume_threads = Np;
  out.surface_threads = std::max(Np, Nfn);
  out.volume_elements_per_block = elements_per_block(spec.plan.volume_elements_per_block, out.volume_threads);
  out.surface_elements_per_block = elements_per_block(spec.plan.surface_elements_per_block, out.surface_threads);
  const std::size_t real_bytes = spec.scalar == fluxes::ScalarType::float32 ? 4 : 8;
  out.volume_shared_bytes = real_bytes * static_cast<std::size_t>(out.volume_elements_per_block * components * dim * Np);
  out.surface_shared_bytes = real_bytes * static_cast<std::size_t>(out.surface_elements_per_block * components * Nfn);
  for (auto [bytes, kernel] : {std::pair{out.volume_shared_bytes, "volume"}, std::pair{out.surface_shared_bytes, "surface"}})
    if (bytes > max_static_shared_bytes)
      throw Error(std::string("the plan does not fit: the ") + kernel + " kernel needs " + std::to_string(bytes) +
                  " bytes of shared memory per block (" + std::to_string(components) + " components, order " +
                  std::to_string(element.N) + "), more than " + std::to_string(max_static_shared_bytes) +
                  "; use fewer elements per block");

  rtcg::SourceWriter volume;
  volume.line("(void)xyz; (void)prm; (void)t;");
  write_volume_body(volume, spec, pieces);
  write_element_kernel(w,
                       "rtdg_volume)(const real* RTCG_RESTRICT q, real* RTCG_RESTRICT rhs, const real* RTCG_RESTRICT drdx, "
                       "const real* RTCG_RESTRICT xyz, const real* RTCG_RESTRICT D, const real* RTCG_RESTRICT prm, real t, int K, int kb, int ke",
                       std::to_string(out.volume_elements_per_block), "G", "[" + std::to_string(out.volume_elements_per_block) + "][NCOMP * DIM][NP]",
                       volume.str());

  rtcg::SourceWriter surface;
  surface.line("(void)xyz; (void)prm; (void)t;");
  write_surface_body(surface, spec, pieces);
  write_element_kernel(w,
                       "rtdg_surface)(const real* RTCG_RESTRICT q, real* RTCG_RESTRICT rhs, const real* RTCG_RESTRICT fgeo, "
                       "const int* RTCG_RESTRICT vmapP, const int* RTCG_RESTRICT bcode, const real* RTCG_RESTRICT xyz, "
                       "const real* RTCG_RESTRICT LIFT, const real* RTCG_RESTRICT prm, real t, " + std::string(halo_arguments) +
                           ", int K, int kb, int ke",
                       std::to_string(out.surface_elements_per_block), "sF", "[" + std::to_string(out.surface_elements_per_block) + "][NCOMP][NFN]",
                       surface.str());
}

void write_updates(rtcg::SourceWriter& w) {
  w.line("RTCG_KERNEL(rtdg_lserk)(real* RTCG_RESTRICT q, real* RTCG_RESTRICT res, const real* RTCG_RESTRICT rhs, real a, real b, real dt, int n)");
  {
    auto body = w.block("");
    auto loop = w.block("RTCG_GLOBAL_LOOP(i, n)");
    w.line("const real r = a * res[i] + dt * rhs[i];");
    w.line("res[i] = r;");
    w.line("q[i] += b * r;");
  }
  w.line();
  w.line("RTCG_KERNEL(rtdg_ssp)(real* RTCG_RESTRICT out, const real* RTCG_RESTRICT u0, const real* RTCG_RESTRICT u, const real* RTCG_RESTRICT rhs, real alpha, real beta, real dt, int n)");
  {
    auto body = w.block("");
    auto loop = w.block("RTCG_GLOBAL_LOOP(i, n)");
    w.line("out[i] = alpha * u0[i] + beta * (u[i] + dt * rhs[i]);");
  }
}

}  // namespace rtdg::dg::kernels
