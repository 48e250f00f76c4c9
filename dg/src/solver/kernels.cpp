// The DG kernel generator (dg/kernels.hpp). Every kernel body is written once: the CUDA and
// host variants differ only in the prologue that binds the element index k and the node
// loops (RTDG_NODES / RTDG_FACE_NODES and RTDG_SYNC), so the arithmetic cannot drift apart.
#include "dg/kernels.hpp"

#include "dg/error.hpp"

#include <fluxes/dag.hpp>
#include <rtcg/source_writer.hpp>

#include <algorithm>
#include <cctype>
#include <sstream>
#include <string>
#include <vector>

namespace rtdg::dg {
namespace {

using fluxes::InputKind;
using fluxes::InputRef;
using fluxes::Lowered;

// Law names and condition names are user text: only letters, digits and '_' of them reach the
// generated source (comments, the program's name), so no text from a file becomes code.
std::string identifier_text(const std::string& text) {
  std::string out;
  for (const char c : text) out += std::isalnum(static_cast<unsigned char>(c)) || c == '_' ? c : '_';
  return out.empty() ? std::string("_") : out;
}


bool all_zero(const Lowered& piece) {
  return std::all_of(piece.outputs.begin(), piece.outputs.end(),
                     [&](fluxes::NodeId id) { return piece.dag.is_constant(id, 0.0); });
}

// How generated code names each input: the same names in every kernel.
std::string input_name(const InputRef& ref) {
  const std::string index = std::to_string(ref.index);
  switch (ref.kind) {
    case InputKind::state: return "u[" + index + "]";
    case InputKind::exterior: return "uP[" + index + "]";
    case InputKind::normal: return "nrm[" + index + "]";
    case InputKind::coordinate: return "xn[" + index + "]";
    case InputKind::time: return "t";
    case InputKind::parameter: return "prm[" + index + "]";
    case InputKind::incident: return "inc[" + index + "]";
  }
  return "?";
}

// Writes the emitted statements of `piece` with outputs named `output(i)`.
void emit_piece(rtcg::SourceWriter& w, const Lowered& piece, const std::string& output, const std::string& prefix,
                fluxes::ScalarType scalar) {
  fluxes::CNaming naming;
  naming.input = input_name;
  naming.output = [&](std::size_t i) { return output + "[" + std::to_string(i) + "]"; };
  fluxes::EmitOptions options;
  options.scalar = scalar;
  options.temporary_prefix = prefix;
  const fluxes::EmittedC code = fluxes::emit_c(piece.dag, piece.outputs, naming, options);
  std::istringstream lines(code.code);
  for (std::string line; std::getline(lines, line);) w.line(line);
}

std::string join_ints(const std::vector<int>& values) {
  std::string text;
  for (std::size_t i = 0; i < values.size(); ++i) text += (i ? ", " : "") + std::to_string(values[i]);
  return text;
}

struct Pieces {
  Lowered flux;                      // F: [c*dim + d]
  Lowered source;                    // S: [c]
  Lowered difference;                // n.(F - F*): [c]
  std::vector<Lowered> boundary;     // per condition in use: n.(F - F*) with its exterior state
  bool has_source = false;
};

// Loads the interior state of node `node` of element k into u[].
void load_state(rtcg::SourceWriter& w, int components, const std::string& element, const std::string& node,
                const std::string& array_name) {
  w.line("real " + array_name + "[NCOMP];");
  for (int c = 0; c < components; ++c)
    w.line(array_name + "[" + std::to_string(c) + "] = q[QIDX(" + std::to_string(c) + ", " + element + ", " + node + ")];");
}

void load_coordinates(rtcg::SourceWriter& w, int dim, const std::string& node) {
  w.line("real xn[DIM];");
  for (int d = 0; d < dim; ++d)
    w.line("xn[" + std::to_string(d) + "] = xyz[(" + std::to_string(d) + " * K + k) * NP + " + node + "];");
}

void write_volume_body(rtcg::SourceWriter& w, const KernelSpec& spec, const Pieces& pieces) {
  const int dim = spec.element->dim;
  const int components = static_cast<int>(spec.law->state_components());
  {
    auto loop = w.block("RTDG_NODES(i)");
    load_state(w, components, "k", "i", "u");
    if (reads_input(pieces.flux, InputKind::coordinate)) load_coordinates(w, dim, "i");
    w.line("real F[NCOMP * DIM];");
    emit_piece(w, pieces.flux, "F", "vf", spec.scalar);
    w.line("const real* g = drdx + k * (DIM * DIM);");
    // G_a = sum_d (dr_a/dx_d) F_d, for each component.
    for (int c = 0; c < components; ++c)
      for (int a = 0; a < dim; ++a) {
        std::string sum;
        for (int d = 0; d < dim; ++d)
          sum += (d ? " + " : "") + std::string("g[") + std::to_string(a * dim + d) + "] * F[" +
                 std::to_string(c * dim + d) + "]";
        w.line("G[" + std::to_string(c * dim + a) + "][i] = " + sum + ";");
      }
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

void write_surface_body(rtcg::SourceWriter& w, const KernelSpec& spec, const Pieces& pieces) {
  const int dim = spec.element->dim;
  const int components = static_cast<int>(spec.law->state_components());
  {
    auto loop = w.block("RTDG_FACE_NODES(m)");
    w.line("const int f = m / NFP;");
    w.line("const int iM = rtdg_fmask[m];");
    w.line("const real* fg = fgeo + (k * NFACES + f) * (DIM + 1);");
    w.line("real nrm[DIM];");
    for (int d = 0; d < dim; ++d) w.line("nrm[" + std::to_string(d) + "] = fg[" + std::to_string(d) + "];");
    load_state(w, components, "k", "iM", "u");
    w.line("real dF[NCOMP];");
    w.line("const int code = bcode[k * NFACES + f];");
    {
      auto interior = w.block("if (code == 0)");
      w.line("const int p = vmapP[k * NFN + m];");
      w.line("const int kP = p / NP;");
      w.line("const int iP = p - kP * NP;");
      load_state(w, components, "kP", "iP", "uP");
      if (reads_input(pieces.difference, InputKind::coordinate)) load_coordinates(w, dim, "iM");
      emit_piece(w, pieces.difference, "dF", "sf", spec.scalar);
    }
    for (std::size_t b = 0; b < pieces.boundary.size(); ++b) {
      const Lowered& piece = pieces.boundary[b];
      auto branch = w.block("else if (code == " + std::to_string(b + 1) + ")");
      w.line("// boundary condition '" + identifier_text(spec.conditions[b]->name) + "'");
      const bool incident = reads_input(piece, InputKind::incident);
      if (reads_input(piece, InputKind::coordinate) || (incident && reads_input(*spec.incident, InputKind::coordinate)))
        load_coordinates(w, dim, "iM");
      if (incident) {
        w.line("real inc[NINC];");
        emit_piece(w, *spec.incident, "inc", "w" + std::to_string(b) + "_", spec.scalar);
      }
      emit_piece(w, piece, "dF", "b" + std::to_string(b) + "_", spec.scalar);
    }
    {
      auto other = w.block("else");
      w.line("// not reached: the solver writes only the codes above");
      for (int c = 0; c < components; ++c) w.line("dF[" + std::to_string(c) + "] = 0;");
    }
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
    w.line("rhs[QIDX(" + std::to_string(c) + ", k, i)] += acc[" + std::to_string(c) + "];");
}

// The per-element kernel frame: binds k and the loops for CUDA (a block of `per_block`
// elements, threadIdx.y picks the element) and for host (an OpenMP loop over elements).
// `shared` declares the element's scratch array named `scratch` with the given extents.
void write_element_kernel(rtcg::SourceWriter& w, const std::string& signature, const std::string& per_block,
                          const std::string& scratch, const std::string& extents, const std::string& body) {
  w.line("RTCG_KERNEL(" + signature + ")");
  w.line("{");
  w.line("#if RTCG_CUDA");
  // extents = [per_block][rows][columns]: the block's scratch; inner = one element's.
  const std::string inner = extents.substr(extents.find(']') + 1);
  w.line("  __shared__ real " + scratch + "_all" + extents + ";");
  w.line("  const int k = static_cast<int>(blockIdx.x) * " + per_block + " + static_cast<int>(threadIdx.y);");
  w.line("  const bool active = k < K;");
  // A pointer to the element's rows: the extents after the first of `inner`.
  const std::string row = inner.substr(inner.find(']') + 1);
  w.line("  real (*" + scratch + ")" + row + " = " + scratch + "_all[threadIdx.y];");
  w.line("#define RTDG_NODES(i) for (int i = static_cast<int>(threadIdx.x); active && i < NP; i += static_cast<int>(blockDim.x))");
  w.line("#define RTDG_FACE_NODES(m) for (int m = static_cast<int>(threadIdx.x); active && m < NFN; m += static_cast<int>(blockDim.x))");
  w.line("#define RTDG_SYNC() __syncthreads()");
  w.line("#else");
  w.line("#pragma omp parallel for schedule(static)");
  w.line("  for (int k = 0; k < K; ++k) {");
  w.line("  real " + scratch + inner + ";");
  w.line("#define RTDG_NODES(i) for (int i = 0; i < NP; ++i)");
  w.line("#define RTDG_FACE_NODES(m) for (int m = 0; m < NFN; ++m)");
  w.line("#define RTDG_SYNC()");
  w.line("#endif");
  std::istringstream lines(body);
  for (std::string line; std::getline(lines, line);) w.line("  " + line);
  w.line("#if RTCG_HOST");
  w.line("  }");
  w.line("#endif");
  w.line("#undef RTDG_NODES");
  w.line("#undef RTDG_FACE_NODES");
  w.line("#undef RTDG_SYNC");
  w.line("}");
  w.line();
}

std::string shape_tag(Shape shape) {
  switch (shape) {
    case Shape::interval: return "line";
    case Shape::triangle: return "tri";
    case Shape::tetrahedron: return "tet";
  }
  return "shape";
}

}  // namespace

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
  const int dim = element.dim;
  const int components = static_cast<int>(law.state_components());
  const int Np = element.Np, Nfp = element.Nfp, Nfaces = element.Nfaces, Nfn = Nfaces * Nfp;
  const bool single = spec.scalar == fluxes::ScalarType::float32;

  Pieces pieces;
  pieces.flux = fluxes::lower_volume_flux(law, spec.parameters);
  pieces.source = fluxes::lower_source(law, spec.parameters);
  pieces.has_source = !all_zero(pieces.source);
  pieces.difference = fluxes::lower_flux_difference(law, spec.parameters);
  for (const fluxes::BoundaryCondition* condition : spec.conditions) {
    if (!condition) throw Error("generate_kernels: a null boundary condition");
    pieces.boundary.push_back(fluxes::lower_boundary_flux(law, *condition, spec.parameters));
    if (reads_input(pieces.boundary.back(), InputKind::incident) && !spec.incident)
      throw Error("the boundary condition '" + condition->name + "' of law '" + law.name +
                  "' reads an incident field, but the run defines none (set [incident] in the config)");
  }

  GeneratedKernels out;
  out.name = "dg_" + identifier_text(law.name) + "_" + shape_tag(element.shape) + "_N" + std::to_string(element.N) + (single ? "_f32" : "_f64");
  out.volume_threads = Np;
  out.surface_threads = std::max(Np, Nfn);
  out.volume_elements_per_block = elements_per_block(spec.plan.volume_elements_per_block, out.volume_threads);
  out.surface_elements_per_block = elements_per_block(spec.plan.surface_elements_per_block, out.surface_threads);
  const std::size_t real_bytes = single ? 4 : 8;
  out.volume_shared_bytes = real_bytes * static_cast<std::size_t>(out.volume_elements_per_block * components * dim * Np);
  out.surface_shared_bytes = real_bytes * static_cast<std::size_t>(out.surface_elements_per_block * components * Nfn);
  for (auto [bytes, kernel] : {std::pair{out.volume_shared_bytes, "volume"}, std::pair{out.surface_shared_bytes, "surface"}})
    if (bytes > max_static_shared_bytes)
      throw Error(std::string("the plan does not fit: the ") + kernel + " kernel needs " + std::to_string(bytes) +
                  " bytes of shared memory per block (" + std::to_string(components) + " components, order " +
                  std::to_string(element.N) + "), more than " + std::to_string(max_static_shared_bytes) +
                  "; use fewer elements per block");

  rtcg::SourceWriter w;
  w.line("// Generated by rtdg: DG kernels for law '" + identifier_text(law.name) + "' on " + std::string(shape_name(element.shape)) +
         "s of order " + std::to_string(element.N) + " (" + spec.plan.describe() + ").");
  w.line(std::string("typedef ") + fluxes::c_type(spec.scalar) + " real;");
  w.line("#define NP " + std::to_string(Np));
  w.line("#define NFP " + std::to_string(Nfp));
  w.line("#define NFACES " + std::to_string(Nfaces));
  w.line("#define NFN " + std::to_string(Nfn));
  w.line("#define DIM " + std::to_string(dim));
  w.line("#define NCOMP " + std::to_string(components));
  w.line("#define NINC " + std::to_string(std::max<std::size_t>(1, law.env.incident_components())));
  if (spec.plan.layout == Layout::field_major) w.line("#define QIDX(c, k, i) (((c) * K + (k)) * NP + (i))");
  else w.line("#define QIDX(c, k, i) (((k) * NCOMP + (c)) * NP + (i))");
  w.line();
  // Fmask(j, f), flattened face by face: volume node of face node m = f * Nfp + j.
  std::vector<int> fmask;
  for (int f = 0; f < Nfaces; ++f)
    for (int j = 0; j < Nfp; ++j) fmask.push_back(element.Fmask(j, f));
  w.line("#if RTCG_CUDA");
  w.line("__constant__ int rtdg_fmask[NFN] = {" + join_ints(fmask) + "};");
  w.line("#else");
  w.line("static const int rtdg_fmask[NFN] = {" + join_ints(fmask) + "};");
  w.line("#endif");
  w.line();

  rtcg::SourceWriter volume;
  volume.line("(void)xyz; (void)prm; (void)t;");
  write_volume_body(volume, spec, pieces);
  write_element_kernel(w,
                       "rtdg_volume)(const real* RTCG_RESTRICT q, real* RTCG_RESTRICT rhs, const real* RTCG_RESTRICT drdx, "
                       "const real* RTCG_RESTRICT xyz, const real* RTCG_RESTRICT D, const real* RTCG_RESTRICT prm, real t, int K",
                       std::to_string(out.volume_elements_per_block), "G", "[" + std::to_string(out.volume_elements_per_block) + "][NCOMP * DIM][NP]",
                       volume.str());

  rtcg::SourceWriter surface;
  surface.line("(void)xyz; (void)prm; (void)t;");
  write_surface_body(surface, spec, pieces);
  write_element_kernel(w,
                       "rtdg_surface)(const real* RTCG_RESTRICT q, real* RTCG_RESTRICT rhs, const real* RTCG_RESTRICT fgeo, "
                       "const int* RTCG_RESTRICT vmapP, const int* RTCG_RESTRICT bcode, const real* RTCG_RESTRICT xyz, "
                       "const real* RTCG_RESTRICT LIFT, const real* RTCG_RESTRICT prm, real t, int K",
                       std::to_string(out.surface_elements_per_block), "sF", "[" + std::to_string(out.surface_elements_per_block) + "][NCOMP][NFN]",
                       surface.str());

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
  out.source = w.str();
  return out;
}

}  // namespace rtdg::dg
