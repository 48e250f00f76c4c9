// generate_kernels (dg/kernels.hpp): the prelude, then the kernel family the plan asks for.
#include "kernels/families.hpp"

#include "dg/bernstein.hpp"
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

namespace {

GeneratedKernels generate(const KernelSpec& spec, const kernels::Pieces& pieces) {
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
  if (spec.curved) kernels::write_curved(w, spec, pieces, out);
  kernels::write_halo_pack(w);
  out.source = w.str();
  return out;
}

}  // namespace

GeneratedKernels generate_kernels(const KernelSpec& spec) {
  if (!spec.law) throw Error("generate_kernels: no law given");
  if (!spec.element) throw Error("generate_kernels: no reference element given");
  if (const std::string refusal = kernels::check_before_lowering(spec); !refusal.empty()) throw Error(refusal);
  const Element& element = *spec.element;
  const kernels::Pieces pieces = kernels::lower_pieces(spec);
  if (const std::string refusal = kernels::check_lowered(spec, pieces); !refusal.empty()) throw Error(refusal);
  if (spec.plan.basis == Basis::bernstein) {
    // The Bernstein plans' kernels: the same code with the element's operators in Bernstein form.
    const Element operators = bernstein_element(element);
    KernelSpec in_basis = spec;
    in_basis.element = &operators;
    return generate(in_basis, pieces);
  }
  return generate(spec, pieces);
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

namespace {

// How each output of a lowered piece depends on the state: `linear` (sums of state inputs times
// terms that do not vary), `fixed` (no state input, nothing that varies) or `other`. `input`
// classifies each input.
enum class Kind : unsigned char { fixed, linear, other };

template <class InputKindOf>
std::vector<Kind> classify(const fluxes::Dag& dag, InputKindOf input) {
  std::vector<Kind> kind(dag.size(), Kind::fixed);
  for (fluxes::NodeId id = 0; id < dag.size(); ++id) {
    const fluxes::Node& node = dag[id];
    auto arg = [&](int a) { return kind[node.args[static_cast<std::size_t>(a)]]; };
    Kind result = Kind::fixed;
    switch (node.op) {
      case fluxes::Op::constant: result = Kind::fixed; break;
      case fluxes::Op::input: result = input(node.input.kind); break;
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
  return kind;
}

}  // namespace

bool flux_is_linear(const fluxes::Lowered& flux) {
  // State inputs are linear, parameters fixed; position, time and the rest are variable
  // coefficients (`other`).
  const std::vector<Kind> kind = classify(flux.dag, [](fluxes::InputKind input) {
    switch (input) {
      case fluxes::InputKind::state: return Kind::linear;
      case fluxes::InputKind::parameter: return Kind::fixed;
      default: return Kind::other;
    }
  });
  for (fluxes::NodeId id : flux.outputs)
    if (kind[id] == Kind::other) return false;
  // An output that is a nonzero constant is affine (F = A u + b); zero outputs are fine.
  for (fluxes::NodeId id : flux.outputs)
    if (kind[id] == Kind::fixed && !flux.dag.is_constant(id, 0.0)) return false;
  return true;
}

std::string basis_change_obstacle(const fluxes::Lowered& piece) {
  // The interior and exterior states are linear, and so is the incident field: the kernels of a
  // Bernstein plan turn its values at a face's nodes into the face's coefficients
  // (write_face_flux). Parameters (also per element: constant on an element and across a face),
  // normals (constant on a straight-sided face) and time are fixed. An affine output (A u + b)
  // carries over too: the Bernstein polynomials sum to one, so a constant has every coefficient
  // equal to it.
  bool position = false;
  const std::vector<Kind> kind = classify(piece.dag, [&](fluxes::InputKind input) {
    switch (input) {
      case fluxes::InputKind::state:
      case fluxes::InputKind::exterior:
      case fluxes::InputKind::incident: return Kind::linear;
      case fluxes::InputKind::coordinate: position = true; return Kind::other;
      default: return Kind::fixed;
    }
  });
  bool other = false;
  for (fluxes::NodeId id : piece.outputs) other = other || kind[id] == Kind::other;
  if (!other) return {};
  // Name what made it so: the position only where an output depends on it.
  if (position && reads_input(piece, fluxes::InputKind::coordinate)) return "depends on the position";
  return "is not affine in the state";
}

void check_bernstein(const KernelSpec& spec, const Pieces& pieces) {
  const Element& element = *spec.element;
  const std::string law = "the law '" + spec.law->name + "'" + (spec.law->file.empty() ? "" : " (" + spec.law->file + ")");
  if (element.dim != 2 && element.dim != 3)
    throw Error("the plan's basis = bernstein is for triangles and tetrahedra, not " +
                std::string(shape_name(element.shape)) + "s: use basis = nodal");
  auto check = [&](const fluxes::Lowered& piece, const std::string& what) {
    const std::string obstacle = basis_change_obstacle(piece);
    if (!obstacle.empty())
      throw Error("the plan's basis = bernstein needs the law's pieces affine in the state, with coefficients "
                  "constant on each element and face; the " + what + " of " + law + " " + obstacle +
                  ": use basis = nodal");
  };
  check(pieces.flux, "flux");
  if (pieces.has_source) check(pieces.source, "source");
  check(pieces.difference, "numerical flux");
  for (std::size_t b = 0; b < pieces.boundary.size() && b < spec.conditions.size(); ++b)
    check(pieces.boundary[b], "boundary condition '" + spec.conditions[b]->name + "'");
}

}  // namespace kernels
}  // namespace rtdg::dg

namespace rtdg::dg {

std::string kernel_hash(const KernelSpec& spec) {
  if (!spec.law || !spec.element) throw Error("kernel_hash: no law or element given");
  // Bump when any kernel family's generated code changes meaning or speed, so stored tuning
  // results of the old generator are not reused.
  static constexpr std::string_view generator_version = "rtdg-dg-kernels-10 (unfused, fused stage, tensor products with m16n8k4 on sm_90, directions split, prefetch; halo faces, element ranges; padding-only zeros; vector state copies; by-column tasks a warp per case)";
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
  // The curved element group is its own kernel variant: tuned and stored under its own hash
  // (which changed when fused and Bernstein plans came to curved meshes: results tuned over the
  // unfused plans alone are not reused).
  if (spec.curved) text.line("curved elements: per-node geometry, weight-adjusted mass matrix; every plan family");
  if (!spec.tfsf.empty()) {
    std::string map = "total-field/scattered-field:";
    for (int i : spec.tfsf) map += " " + std::to_string(i);
    text.line(map);
  }
  return rtcg::Sha256::hex(text.str()).substr(0, 16);
}

}  // namespace rtdg::dg
