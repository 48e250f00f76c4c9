// The flux phase: the volume fluxes G_a and the face fluxes of a group.
#include "kernels/fused/fused.hpp"

namespace rtdg::dg::kernels::fused {

// The group's volume fluxes (joint G_a) and face fluxes, sq and (prefetch) the neighbours'
// traces in `traces` loaded; ends before the products' barrier.
void write_group_fluxes(rtcg::SourceWriter& w, const KernelSpec& spec, const Pieces& pieces, const Scratch& sc,
                        const std::string& traces) {
  const int dim = spec.element->dim;
  const int components = static_cast<int>(spec.law->state_components());
  const bool by_state = spec.plan.derivative == Derivative::state;
  if (!by_state && !sc.split) {
    w.line("// G_a = sum_d (dr_a/dx_d) F_d(u) at every node of the block.");
    auto nodes = w.block("RTDG_SLOTS(s, NE * NP)");
    w.line("const int e = s / NP;");
    w.line("const int i = s % NP;");
    w.line("const int k = k0 + e;");
    w.line("if (k >= ke) continue;");
    w.line("real u[NCOMP];");
    for (int c = 0; c < components; ++c) w.line("u[" + str(c) + "] = sq[(e * NCOMP + " + str(c) + ") * LDQ + i];");
    if (reads_input(pieces.flux, InputKind::coordinate)) load_coordinates(w, dim, "i");
    write_folded_flux(
        w, spec, pieces,
        [dim](int ca) {
          return "sG[(e * NCOMP + " + std::to_string(ca / dim) + ") * LDG + " + std::to_string(ca % dim) + " * NP + i]";
        },
        -1, geometry_reads(spec.plan));
  }
  w.line("// Fscale n.(F - F*) at every face node of the block; exterior traces from q.");
  auto faces = w.block("RTDG_SLOTS(s, NE * NFN)");
  w.line("const int e = s / NFN;");
  w.line("const int m = s % NFN;");
  w.line("const int k = k0 + e;");
  w.line("if (k >= ke) continue;");
  w.line("const int f = m / NFP;");
  w.line("const int iM = rtdg_fmask[m];");
  w.line("real u[NCOMP];");
  for (int c = 0; c < components; ++c) w.line("u[" + str(c) + "] = sq[(e * NCOMP + " + str(c) + ") * LDQ + iM];");
  if (spec.plan.prefetch != Prefetch::off)
    write_face_flux(
        w, spec, pieces, true,
        [traces](int c) { return traces + "[(e * NCOMP + " + std::to_string(c) + ") * LDF + m]"; },
        geometry_reads(spec.plan));
  else
    write_face_flux(w, spec, pieces);
  for (int c = 0; c < components; ++c)
    w.line("sF[(e * NCOMP + " + str(c) + ") * LDF + m] = fg[DIM] * dF[" + str(c) + "];");
}

}  // namespace rtdg::dg::kernels::fused
