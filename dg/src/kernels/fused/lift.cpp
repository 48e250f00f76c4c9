// LIFT in the Bernstein layers (Basis::bernstein, by-column plans), and the LIFT sum of the node phase.
#include "kernels/fused/fused.hpp"

namespace rtdg::dg::kernels::fused {

// The Bernstein LIFT of one column in layers (bernstein.hpp), the weights as literals. Per face,
// layer 0 = L0 x_f (x the column's face values in sF, Fmask order), then each layer from the one
// before, every entry a variable of its own (a layer's variables die once the next layer is
// computed), each added to the column's output row y (face 0 writes it).
//
// Where the faces are large (lift_faces_outlined: 28 or more nodes, order 6 and up on
// tetrahedra) each face is a function of its own, written once per program before the kernels
// (write_layered_lift_faces) and not inlined on CUDA, reaching x and y as offsets into the block's
// shared memory (so its loads and stores stay shared-memory ones): inlined, ptxas kept several
// faces' values live at once: compiled with NVRTC 13 for sm_90 (2-element literal
// plans of maxwell3d in double with every condition of the law, tests/dg/test_kernels.cpp), 182
// registers at order 7 (one block per SM; a compiler fence
// between the faces did not prevent it) and 94 at order 6, against 128 and 80 as functions, the
// count of the rest of the kernel. Below that the faces are written inline, fenced apart: there
// they take no more registers than the rest of the kernel (80 either way at orders 4-5), and the
// call is saved. The outlined faces' timings: benchmarks/results/pruning-evidence-sm90.md ("Outlined face layers").

// The entries of face f's layers: "const real l<e> = <sum>; y[<row>] = (or +=) l<e>;" per entry.
// Plan::face_threads = F: thread share p of a column takes faces [p Nfaces / F, (p + 1) Nfaces / F)
// into its own output buffer; the first face of a share writes it, the others add.

bool first_of_share(int f, int faces, int shares) {
  for (int p = 0; p < shares; ++p)
    if (share_begin(p, faces, shares) == f) return true;
  return false;
}

void write_face_layers(rtcg::SourceWriter& w, const BernsteinOperators& b, int f, bool first, bool single,
                       const std::string& indent) {
  const BernsteinFace& face = b.faces[static_cast<std::size_t>(f)];
  for (int e = 0; e < b.Np; ++e) {
    const std::vector<BernsteinEntry>& terms =
        e < b.Nfp ? face.L0[static_cast<std::size_t>(e)] : face.reduction[static_cast<std::size_t>(e)];
    std::string sum;
    for (const BernsteinEntry& t : terms) {
      if (t.weight == 0.0) continue;
      const std::string operand = e < b.Nfp ? "x[" + str(f * b.Nfp + t.index) + "]" : "l" + str(t.index);
      sum += (sum.empty() ? "" : " + ") + real_literal(t.weight, single) + " * " + operand;
    }
    if (sum.empty()) sum = "real(0)";
    const int row = face.volume[static_cast<std::size_t>(e)];
    w.line(indent + "const real l" + str(e) + " = " + sum + "; y[" + str(row) + "] " + (first ? "=" : "+=") + " l" + str(e) +
           ";");
  }
}

// dg/layered_lift.h, once per program that has a layered LIFT.
void write_layered_lift_header(rtcg::SourceWriter& w) {
  register_device_headers();
  w.line("#include <dg/layered_lift.h>");
}

// The faces' functions of an outlined layered LIFT (see above), rtdg_lift_face_<f>.
void write_layered_lift_faces(rtcg::SourceWriter& w, const KernelSpec& spec) {
  const bool single = spec.scalar == fluxes::ScalarType::float32;
  const BernsteinOperators b = make_bernstein(*spec.element);
  for (int f = 0; f < b.Nfaces; ++f) {
    const bool first = first_of_share(f, b.Nfaces, spec.plan.face_threads);
    w.line("// Face " + str(f) + " of LIFT in the Bernstein layers, one column: y " + (first ? "=" : "+=") +
           " its layers.");
    w.line("#if RTCG_CUDA");
    w.line("__device__ __noinline__ void rtdg_lift_face_" + str(f) + "(int x_offset, int y_offset) {");
    w.line("  extern __shared__ double rtdg_smem[];");
    w.line("  const real* RTCG_RESTRICT x = reinterpret_cast<const real*>(rtdg_smem) + x_offset;");
    w.line("  real* RTCG_RESTRICT y = reinterpret_cast<real*>(rtdg_smem) + y_offset;");
    w.line("#else");
    w.line("static inline void rtdg_lift_face_" + str(f) + "(const real* RTCG_RESTRICT x, real* RTCG_RESTRICT y) {");
    w.line("#endif");
    write_face_layers(w, b, f, first, single, "  ");
    w.line("}");
  }
  w.line();
}

// The layered LIFT of column col (a task of the by-column products): the faces of thread share
// `share` of Plan::face_threads, into that share's output buffer (`z_share` reals apart). `b`:
// the element's Bernstein form, for the faces written inline (not lift_faces_outlined).
void write_layered_lift(rtcg::SourceWriter& w, const KernelSpec& spec, const BernsteinOperators& b, const ColumnPart& part,
                        int share, long long z_share) {
  const int Nfaces = spec.element->Nfaces, shares = spec.plan.face_threads;
  const int f0 = share_begin(share, Nfaces, shares), f1 = share_begin(share + 1, Nfaces, shares);
  const ColumnInput& input = part.inputs.front();
  w.line("// LIFT in the Bernstein layers: faces " + str(f0) + " .. " + str(f1 - 1) + " of " + str(Nfaces) + ", " +
         str(spec.element->N + 1) + " layers each.");
  w.line("const real* x = " + input.buffer + " + col * " + input.ld + ";");
  w.line("real* y = " + part.output + " + " + (share > 0 ? str(share * z_share) + " + " : std::string()) + "col * " + part.ld +
         " + " + str(part.row0) + ";");
  if (lift_faces_outlined(*spec.element)) {
    w.line("#if RTCG_CUDA");
    w.line("const int x_offset = static_cast<int>(x - reinterpret_cast<const real*>(rtdg_smem));");
    w.line("const int y_offset = static_cast<int>(y - reinterpret_cast<real*>(rtdg_smem));");
    for (int f = f0; f < f1; ++f) w.line("rtdg_lift_face_" + str(f) + "(x_offset, y_offset);");
    w.line("#else");
    for (int f = f0; f < f1; ++f) w.line("rtdg_lift_face_" + str(f) + "(x, y);");
    w.line("#endif");
    return;
  }
  const bool single = spec.scalar == fluxes::ScalarType::float32;
  for (int f = f0; f < f1; ++f) {
    auto scope = w.block("");
    if (f > f0) w.line("RTDG_LIFT_FENCE();  // dg/layered_lift.h");
    write_face_layers(w, b, f, f == f0, single, "");
  }
}

// rhs += LIFT sF at node i of element e: sZ, and with Plan::face_threads = F > 1 the F - 1 other
// shares' buffers after it.
void write_lift_sum(rtcg::SourceWriter& w, const KernelSpec& spec, const Scratch& sc) {
  std::string sum = "sZ[(e * NCOMP + c) * LDZ + i]";
  for (int share = 1; share < spec.plan.face_threads; ++share)
    sum += " + sZ[" + str(static_cast<long long>(share) * sc.ncolp * sc.ldz) + " + (e * NCOMP + c) * LDZ + i]";
  w.line("for (int c = 0; c < NCOMP; ++c) rhs[c] += " + sum + ";");
}

}  // namespace rtdg::dg::kernels::fused
