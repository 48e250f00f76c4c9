// generate_kernels (dg/kernels.hpp): the prelude, then the kernel family the plan asks for.
#include "kernels/families.hpp"

#include "dg/error.hpp"

#include <fluxes/dag.hpp>
#include <rtcg/hash.hpp>

#include <string_view>

namespace rtdg::dg {

bool reads_input(const fluxes::Lowered& piece, fluxes::InputKind kind) {
  for (fluxes::NodeId id : fluxes::reachable(piece.dag, piece.outputs)) {
    const fluxes::Node& node = piece.dag[id];
    if (node.op == fluxes::Op::input && node.input.kind == kind) return true;
  }
  return false;
}

GeneratedKernels generate_kernels(const KernelSpec& spec) {
  if (!spec.law) throw Error("generate_kernels: no law given");
  if (!spec.element) throw Error("generate_kernels: no reference element given");
  const fluxes::Law& law = *spec.law;
  const Element& element = *spec.element;
  if (law.dimension != element.dim)
    throw Error("the law '" + law.name + "' is " + std::to_string(law.dimension) + "D but the mesh elements are " +
                std::string(shape_name(element.shape)) + "s (" + std::to_string(element.dim) + "D)");
  const kernels::Pieces pieces = kernels::lower_pieces(spec);

  GeneratedKernels out;
  out.name = kernels::program_name(spec);
  out.fusion = spec.plan.fusion;
  rtcg::SourceWriter w;
  kernels::write_prelude(w, spec);
  if (spec.plan.fusion == Fusion::stage) {
    kernels::write_fused(w, spec, pieces, out);
  } else {
    kernels::write_unfused(w, spec, pieces, out);
    kernels::write_updates(w);
  }
  kernels::write_halo_pack(w);
  out.source = w.str();
  return out;
}

namespace kernels {

void write_halo_pack(rtcg::SourceWriter& w) {
  w.line("// Parallel runs: the traces of this rank's H halo faces, out [H][NCOMP][NFP] in each face's");
  w.line("// own node order, from the state q; faces [H][2] = (element, face).");
  w.line("RTCG_KERNEL(rtdg_pack_halo)(const real* RTCG_RESTRICT q, real* RTCG_RESTRICT out, "
         "const int* RTCG_RESTRICT faces, int H, int K)");
  auto body = w.block("");
  auto loop = w.block("RTCG_GLOBAL_LOOP(s, static_cast<long long>(H) * NCOMP * NFP)");
  w.line("const int h = static_cast<int>(s / (NCOMP * NFP));");
  w.line("const int r = static_cast<int>(s - static_cast<long long>(h) * (NCOMP * NFP));");
  w.line("const int c = r / NFP;");
  w.line("const int j = r - c * NFP;");
  w.line("out[s] = q[QIDX(c, faces[2 * h], rtdg_fmask[faces[2 * h + 1] * NFP + j])];");
}

bool flux_is_linear(const fluxes::Lowered& flux) {
  // Per node: does it depend on the state (linearly: `linear`), on nothing that varies (a
  // constant or parameter: `fixed`), or otherwise (`other`: products of state terms,
  // functions of the state, position or time dependence).
  enum class Kind : unsigned char { fixed, linear, other };
  const fluxes::Dag& dag = flux.dag;
  std::vector<Kind> kind(dag.size(), Kind::fixed);
  for (fluxes::NodeId id = 0; id < dag.size(); ++id) {
    const fluxes::Node& node = dag[id];
    auto arg = [&](int a) { return kind[node.args[static_cast<std::size_t>(a)]]; };
    Kind result = Kind::fixed;
    switch (node.op) {
      case fluxes::Op::constant: result = Kind::fixed; break;
      case fluxes::Op::input:
        switch (node.input.kind) {
          case fluxes::InputKind::state: result = Kind::linear; break;
          case fluxes::InputKind::parameter: result = Kind::fixed; break;
          default: result = Kind::other; break;  // position, time: variable coefficients
        }
        break;
      case fluxes::Op::negate: result = arg(0); break;
      case fluxes::Op::add:
      case fluxes::Op::subtract:
        // A sum of linear terms is linear; linear plus a constant is affine, not linear.
        if (arg(0) == Kind::other || arg(1) == Kind::other) result = Kind::other;
        else if (arg(0) == arg(1)) result = arg(0);
        else result = Kind::other;
        break;
      case fluxes::Op::multiply:
        if (arg(0) == Kind::other || arg(1) == Kind::other) result = Kind::other;
        else if (arg(0) == Kind::linear && arg(1) == Kind::linear) result = Kind::other;
        else result = arg(0) == Kind::linear || arg(1) == Kind::linear ? Kind::linear : Kind::fixed;
        break;
      case fluxes::Op::divide:
        if (arg(1) != Kind::fixed || arg(0) == Kind::other) result = Kind::other;
        else result = arg(0);
        break;
      default: {
        bool all_fixed = true;
        for (int a = 0; a < fluxes::arity(node.op); ++a) all_fixed = all_fixed && arg(a) == Kind::fixed;
        result = all_fixed ? Kind::fixed : Kind::other;
      }
    }
    kind[id] = result;
  }
  for (fluxes::NodeId id : flux.outputs)
    if (kind[id] == Kind::other) return false;
  // An output that is a nonzero constant is affine (F = A u + b); zero outputs are fine.
  for (fluxes::NodeId id : flux.outputs)
    if (kind[id] == Kind::fixed && !dag.is_constant(id, 0.0)) return false;
  return true;
}

}  // namespace kernels
}  // namespace rtdg::dg

namespace rtdg::dg {

std::string kernel_hash(const KernelSpec& spec) {
  if (!spec.law || !spec.element) throw Error("kernel_hash: no law or element given");
  // Bump when any kernel family's generated code changes meaning or speed, so stored tuning
  // results of the old generator are not reused.
  static constexpr std::string_view generator_version = "rtdg-dg-kernels-9 (unfused, fused stage, tensor products with m16n8k4 on sm_90, directions split, prefetch; halo faces, element ranges; padding-only zeros; vector state copies)";
  // The incident wave is left out (its constants do not change which plan wins); the
  // boundary pieces only read it.
  const kernels::Pieces pieces = kernels::lower_pieces(spec);
  rtcg::SourceWriter text;
  text.line(generator_version);
  kernels::emit_piece(text, pieces.flux, "F", "f", spec.scalar);
  kernels::emit_piece(text, pieces.source, "S", "s", spec.scalar);
  kernels::emit_piece(text, pieces.difference, "dF", "d", spec.scalar);
  for (std::size_t b = 0; b < pieces.boundary.size(); ++b)
    kernels::emit_piece(text, pieces.boundary[b], "dF", "b" + std::to_string(b) + "_", spec.scalar);
  if (!spec.tfsf.empty()) {
    std::string map = "total-field/scattered-field:";
    for (int i : spec.tfsf) map += " " + std::to_string(i);
    text.line(map);
  }
  return rtcg::Sha256::hex(text.str()).substr(0, 16);
}

}  // namespace rtdg::dg
