// The update phase: the node's source term, the Runge-Kutta update and its inputs.
#include "kernels/fused/fused.hpp"

namespace rtdg::dg::kernels::fused {

// The products go through sY (and sZ), then one thread per node updates: tensor products and
// by-column products (operators constant or literals).

// Whether each thread's update input (res or u0) is copied into registers with the prefetch
// (RTDG_PRE is then that copy on CUDA); otherwise the node phase loads it (write_update_loads).
bool update_prefetched(const Plan& plan, const Scratch& sc) {
  return plan.prefetch != Prefetch::off && staged_products(plan, sc) && plan.prefetch_update;
}

// The update inputs of node i of element k into upd[NCOMP], all loaded before the update's first
// store: LSERK reads res and writes it, and loads and stores in one loop would each wait for the
// store before (the compiler cannot tell the addresses apart), NCOMP memory latencies in a row.
void write_update_loads(rtcg::SourceWriter& w) {
  w.line("real upd[NCOMP];  // the update input (res or u0), loaded before any store");
  w.line("for (int c = 0; c < NCOMP; ++c) upd[c] = RTDG_PRE_SOURCE[QIDX(c, k, i)];");
}

// The rest of an output node's right-hand side (the source) and its update; rhs[NCOMP] holds
// -div F + LIFT (...) for node i of element e (k = k0 + e), se the element's stage input.
void write_node_update(rtcg::SourceWriter& w, const KernelSpec& spec, const Pieces& pieces,
                       const std::vector<std::string>& epilogue) {
  const int dim = spec.element->dim;
  if (pieces.has_source) {
    w.line("real u[NCOMP];");
    w.line("for (int c = 0; c < NCOMP; ++c) u[c] = se[c * LDQ + i];");
    if (reads_input(pieces.source, InputKind::coordinate)) load_coordinates(w, dim, "i");
    w.line("real S[NCOMP];");
    emit_piece(w, pieces.source, "S", "vs", spec.scalar);
    w.line("for (int c = 0; c < NCOMP; ++c) rhs[c] += S[c];");
  }
  auto c_loop = w.block("for (int c = 0; c < NCOMP; ++c)");
  w.line("const int idx = QIDX(c, k, i);");
  for (const std::string& line : epilogue) w.line(line);
}

// div F(u) = sum_d F_d(du/dx_d) for a linear F (Derivative::state): the flux of the d-th
// physical derivative, component d, subtracted from rhs. `du(c, a)` is (D_a u_c) at the node;
// gx[c*DIM + d] = du_c/dx_d = sum_a (dr_a/dx_d) du(c, a).
void write_flux_of_gradient(rtcg::SourceWriter& w, const KernelSpec& spec, const Pieces& pieces,
                            const std::string& du_c_a) {
  const int dim = spec.element->dim;
  const int components = static_cast<int>(spec.law->state_components());
  w.line("real gx[NCOMP * DIM];");
  w.line("for (int c = 0; c < NCOMP; ++c) for (int d = 0; d < DIM; ++d) { real v = 0; for (int a = 0; a < DIM; ++a) v += g[a * DIM + d] * " +
         du_c_a + "; gx[c * DIM + d] = v; }");
  w.line("for (int c = 0; c < NCOMP; ++c) rhs[c] = 0;");
  for (int d = 0; d < dim; ++d) {
    auto direction = w.block("");
    w.line("real Fd[NCOMP * DIM];");
    emit_piece(w, pieces.flux, "Fd", "vd" + str(d) + "_", spec.scalar,
               [d, dim](std::size_t c) { return "gx[" + std::to_string(static_cast<int>(c) * dim + d) + "]"; });
    for (int c = 0; c < components; ++c) w.line("rhs[" + str(c) + "] -= Fd[" + str(c * dim + d) + "];");
  }
}

// Tensor products with prefetch: this thread's output node's res (u0) into registers.
void write_update_prefetch(rtcg::SourceWriter& w) {
  w.line("#if RTCG_CUDA");
  w.line("// Prefetch: this thread's output node's res (u0) into registers (one node per thread).");
  w.line("real pre[NCOMP] = {};");
  {
    auto node = w.block("");
    w.line("const int e = tid / NP;");
    w.line("const int i = tid - e * NP;");
    w.line("const int k = k0 + e;");
    w.line("if (tid < NE * NP && k < ke)");
    w.line("  for (int c = 0; c < NCOMP; ++c) pre[c] = RTDG_PRE_SOURCE[QIDX(c, k, i)];");
  }
  w.line("#endif");
}

}  // namespace rtdg::dg::kernels::fused
