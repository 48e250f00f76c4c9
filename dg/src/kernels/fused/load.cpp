// The load phase: the block's state, the neighbours' traces, the geometry copies, the padding zeros.
#include "kernels/fused/fused.hpp"

namespace rtdg::dg::kernels::fused {

// Zeros in the padding of a [NCOLP][ld] scratch buffer: rows `rows` .. ld - 1 of every column,
// then (`column_loop`) rows 0 .. rows - 1 of the columns from `first_column` (an expression) on.
// No row loop where there are no padding rows: it would divide by zero.
void write_zero_padding(rtcg::SourceWriter& w, const std::string& buffer, const std::string& ld, int ld_value,
                        const std::string& rows, int rows_value, const std::string& first_column, bool column_loop) {
  if (ld_value > rows_value) {
    const std::string pad = "(" + ld + " - " + rows + ")";
    w.line("RTDG_SLOTS(s, NCOLP * " + pad + ") " + buffer + "[s / " + pad + " * " + ld + " + " + rows + " + s % " + pad +
           "] = real(0);");
  }
  if (column_loop)
    w.line("RTDG_SLOTS(s, (NCOLP - " + first_column + ") * " + rows + ") " + buffer + "[(" + first_column + " + s / " + rows +
           ") * " + ld + " + s % " + rows + "] = real(0);");
}

// How many consecutive reals of the state one async copy moves (RTDG_ASYNC_COPY_STATE, 16
// bytes at most): element-major state puts a block's NE elements in one contiguous run of NE x
// NCOMP x NP reals, and a copy of `width` of them lands in one column of sq when NP and LDQ are
// multiples of `width` (then every copy's source and destination are width x real_bytes
// aligned, given a 16-byte aligned state array: the solver's arrays are 256-byte aligned).
// 1: one real per copy, any layout. (Two reals per copy against one:
// benchmarks/results/dg-bench-h100-double-vec-2026-11-26.json at commit 9ebc789.)
int state_copy_width(const KernelSpec& spec, const Scratch& sc) {
  if (spec.plan.layout != Layout::element_major) return 1;
  const int stride = node_stride(spec);  // Np, or Np padded (Plan::align)
  if (stride > sc.ldq) return 1;         // a column of the copy must fit in one of sq
  int width = spec.scalar == fluxes::ScalarType::float32 ? 4 : 2;
  while (width > 1 && (stride % width != 0 || sc.ldq % width != 0)) width /= 2;
  return width;
}

// The state of the NE elements from element `base` on into `state` ([NCOLP][LDQ], padding zero);
// async: as RTDG_ASYNC_COPY, or with `width` > 1 (state_copy_width) `width` reals at a time
// (RTDG_ASYNC_COPY_STATE), then the padding. With a padded node stride (Plan::align) the
// copies move whole columns of NPS reals, whose last NPS - NP are the state's zero padding, so
// only the rows from NPS on are zeroed here.
void write_state_loads(rtcg::SourceWriter& w, const std::string& base, const std::string& state, bool async,
                       const KernelSpec& spec, const Scratch& sc) {
  const int width = async ? state_copy_width(spec, sc) : 1;
  if (width > 1) {
    const int stride = node_stride(spec);
    const std::string S = stride == spec.element->Np ? "NP" : "NPS";
    const int columns = sc.ne * static_cast<int>(spec.law->state_components());
    const std::string W = str(width);
    {
      auto load = w.block("RTDG_SLOTS(s, NE * NCOMP * " + S + " / " + W + ")");
      w.line("const int col = s / (" + S + " / " + W + ");");
      w.line("const int i = " + W + " * s - col * " + S + ";");
      w.line("if (" + base + " + col / NCOMP < ke) RTDG_ASYNC_COPY_STATE(" + state + " + col * LDQ + i, q + (" + base +
             ") * (NCOMP * " + S + ") + " + W + " * s);");
      w.line("else for (int r = 0; r < " + W + "; ++r) " + state + "[col * LDQ + i + r] = real(0);");
    }
    write_zero_padding(w, state, "LDQ", sc.ldq, S, stride, "NE * NCOMP", sc.ncolp > columns);
    return;
  }
  auto load = w.block("RTDG_SLOTS(s, NCOLP * LDQ)");
  w.line("const int col = s / LDQ;");
  w.line("const int i = s % LDQ;");
  w.line("const int e = col / NCOMP;");
  w.line("const int c = col % NCOMP;");
  w.line("const int k = " + base + " + e;");
  if (async) {
    w.line("if (e < NE && i < NP && k < ke) RTDG_ASYNC_COPY(" + state + " + s, q + (QIDX(c, k, i)));");
    w.line("else " + state + "[s] = real(0);");
  } else {
    w.line(state + "[s] = e < NE && i < NP && k < ke ? q[QIDX(c, k, i)] : real(0);");
  }
}

// A group's global loads (the file comment's load phase): the state of the NE elements from
// element `base` on into `state`, and with prefetch the neighbours' traces of interior faces
// into `traces` (a [NCOL][LDF] buffer). async: issued as RTDG_ASYNC_COPY (cp.async on CUDA),
// complete after RTDG_ASYNC_WAIT.
void write_group_loads(rtcg::SourceWriter& w, const KernelSpec& spec, const Scratch& sc, const std::string& base,
                       const std::string& state, const std::string& traces, bool async) {
  const int components = static_cast<int>(spec.law->state_components());
  w.line("// The block's state: NP consecutive values per (element, component) in either layout.");
  write_state_loads(w, base, state, async, spec, sc);
  if (spec.plan.prefetch == Prefetch::off) return;
  if (async) {
    w.line("// The neighbours' traces of interior faces, for the face-flux phase (the same slot, so the");
    w.line("// same thread, reads them there).");
  } else {
    w.line("// Prefetch: the neighbours' traces of interior faces go into sF now, with the state's loads;");
    w.line("// the face-flux phase (the same slot, so the same thread) reads them there and writes");
    w.line("// the flux over them.");
  }
  auto gather = w.block("RTDG_SLOTS(s, NE * NFN)");
  w.line("const int e = s / NFN;");
  w.line("const int m = s % NFN;");
  w.line("const int k = " + base + " + e;");
  w.line("if (k >= ke || bcode[k * NFACES + m / NFP] != 0) continue;");
  w.line("const int p = RTDG_VMAPP(k, m / NFP, m, NP);");
  w.line("const int kP = p / NP;");
  w.line("const int iP = p - kP * NP;");
  for (int c = 0; c < components; ++c) {
    const std::string slot = "(e * NCOMP + " + str(c) + ") * LDF + m";
    if (async) w.line("RTDG_ASYNC_COPY(" + traces + " + " + slot + ", q + (QIDX(" + str(c) + ", kP, iP)));");
    else w.line(traces + "[" + slot + "] = q[QIDX(" + str(c) + ", kP, iP)];");
  }
}

// GeometryPlace::shared: the block's face geometry and dr_a/dx_d ([K][NFACES][DIM + 1] and [K][DIM *
// DIM], so the block's part is one contiguous run of each) into sFgeo and sDrdx, one slot per
// real. `one_pass`: the block has a thread for every slot, so each thread copies at most one
// (no loop: with two slot loops NVRTC kept the order-4 split plan at 64 registers, not 56).
void write_geometry_copies(rtcg::SourceWriter& w, bool one_pass) {
  const std::string faces = "NE * NFACES * (DIM + 1)";
  auto slot = w.block(one_pass ? "if (const int s = tid; s < " + faces + " + NE * DIM * DIM)"
                                : "RTDG_SLOTS(s, " + faces + " + NE * DIM * DIM)");
  {
    auto face = w.block("if (s < " + faces + ")");
    w.line("if (k0 + s / (NFACES * (DIM + 1)) < ke) RTDG_ASYNC_COPY(sFgeo + s, fgeo + k0 * (NFACES * (DIM + 1)) + s);");
  }
  auto metric = w.block("else");
  w.line("const int r = s - " + faces + ";");
  w.line("if (k0 + r / (DIM * DIM) < ke) RTDG_ASYNC_COPY(sDrdx + r, drdx + k0 * (DIM * DIM) + r);");
}

// Prefetch::async, one group (k0 on): on CUDA each thread first loads the face codes and vmapP
// entries of all its face-node slots (independent loads, one latency), then issues the state's
// copies, `between` (the res prefetch) and the geometry's copies, then, the codes and entries
// arrived, the face codes into sCode and every neighbour copy; the host copies as
// write_group_loads does. Complete after RTDG_ASYNC_COMMIT and RTDG_ASYNC_WAIT.
void write_async_group_loads(rtcg::SourceWriter& w, const KernelSpec& spec, const Scratch& sc,
                             const std::function<void()>& between) {
  const int components = static_cast<int>(spec.law->state_components());
  const Element& element = *spec.element;
  const bool one_pass = sc.threads >= sc.ne * (element.Nfaces * (element.dim + 1) + element.dim * element.dim);
  const bool shared_geometry = spec.plan.geometry == GeometryPlace::shared;
  w.line("#if RTCG_CUDA");
  {
    // No scope of its own: `between` declares what the kernel uses later (pre[]).
    w.line(std::string("// The face codes and vmapP entries of this thread's face-node slots, then the state's") +
           (shared_geometry ? " and the geometry's" : "") + " copies,");
    w.line("// then the neighbours' traces of interior faces into sF for the face-flux phase (the same");
    w.line("// slot, so the same thread, reads them there).");
    w.line("constexpr int slots = (NE * NFN + NTHREADS - 1) / NTHREADS;");
    w.line("int gp[slots];  // vmapP of the slot's face node");
    w.line("int gc[slots];  // the code of the slot's face");
    {
      w.line("#pragma unroll");
      auto slot = w.block("for (int j = 0; j < slots; ++j)");
      w.line("const int s = tid + j * NTHREADS;");
      w.line("const int e = s / NFN;");
      w.line("const int m = s - e * NFN;");
      w.line("const int k = k0 + e;");
      w.line("gp[j] = 0;");
      w.line("gc[j] = 0;");
      auto valid = w.block("if (s < NE * NFN && k < ke)");
      w.line("gc[j] = bcode[k * NFACES + m / NFP];");
      w.line("gp[j] = RTDG_VMAPP(k, m / NFP, m, NP);");
    }
    write_state_loads(w, "k0", "sq", true, spec, sc);
    between();
    if (shared_geometry) write_geometry_copies(w, one_pass);
    w.line("// Only now wait for the codes and vmapP entries: the copies above are under way.");
    w.line("#pragma unroll");
    auto slot = w.block("for (int j = 0; j < slots; ++j)");
    w.line("const int s = tid + j * NTHREADS;");
    w.line("const int e = s / NFN;");
    w.line("const int m = s - e * NFN;");
    w.line("if (s >= NE * NFN || k0 + e >= ke) continue;");
    if (shared_geometry) w.line("if (m % NFP == 0) sCode[e * NFACES + m / NFP] = real(gc[j]);");
    w.line("if (gc[j] != 0) continue;");
    w.line("const int kP = gp[j] / NP;");
    w.line("const int iP = gp[j] - kP * NP;");
    for (int c = 0; c < components; ++c)
      w.line("RTDG_ASYNC_COPY(sF + (e * NCOMP + " + str(c) + ") * LDF + m, q + (QIDX(" + str(c) + ", kP, iP)));");
  }
  w.line("#else");
  if (shared_geometry) {
    write_geometry_copies(w, false);
    w.line("RTDG_SLOTS(s, NE * NFACES) if (k0 + s / NFACES < ke) sCode[s] = real(bcode[k0 * NFACES + s]);");
  }
  write_group_loads(w, spec, sc, "k0", "sq", "sF", true);
  between();
  w.line("#endif");
}

// Tensor products: the padding of sF and sG must be zeros (0 x leftover NaN is NaN), and only
// the padding is written here: every other entry the products read is written before them
// (sF's by the neighbour copies and the face-flux phase, sG's by the G passes), and with
// prefetch the copies into sF are under way. The padding: the rows past the face nodes (sF)
// and the fluxes (sG) in every column, up to the leading dimension, and the columns past the
// block's last element. Split directions read only rows below each pass's window, which its
// G pass writes, so sG's padding there is the columns alone. (Zeroing all of sF, checking each
// entry, took about a tenth of an order-2 block's instructions:
// benchmarks/results/dg-bench-h100-double-pad-2026-11-26.json at commit b95d82b.)
void write_padding_zeros(rtcg::SourceWriter& w, const KernelSpec& spec, const Scratch& sc) {
  const bool by_state = spec.plan.derivative == Derivative::state;
  w.line("// Padding rows and columns take part in the products: zeros, not leftovers.");
  auto scope = w.block("");
  w.line("const int valid = (ke - k0 < NE ? ke - k0 : NE) * NCOMP;  // the block's columns");
  const Element& element = *spec.element;
  write_zero_padding(w, "sF", "LDF", sc.ldf, "NFN", element.Nfaces * element.Nfp, "valid", true);
  if (by_state) return;
  if (sc.split) w.line("RTDG_SLOTS(s, (NCOLP - valid) * LDG) sG[valid * LDG + s] = real(0);");
  else write_zero_padding(w, "sG", "LDG", sc.ldg, "(DIM * NP)", element.dim * element.Np, "valid", true);
}

}  // namespace rtdg::dg::kernels::fused
