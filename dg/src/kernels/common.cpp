#include "kernels/common.hpp"

#include "dg/cubature.hpp"

#include "dg/bernstein.hpp"

#include "dg/error.hpp"

#include <fluxes/dag.hpp>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <sstream>

namespace rtdg::dg::kernels {
namespace {

using fluxes::InputKind;
using fluxes::InputRef;

bool all_zero(const fluxes::Lowered& piece) {
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
    case InputKind::element_parameter: return "prm[NPRM + " + index + " * K + k]";
    case InputKind::neighbour_parameter: return "prm[NPRM + " + index + " * K + kP]";
  }
  return "?";
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

Pieces lower_pieces(const KernelSpec& spec) {
  const fluxes::Law& law = *spec.law;
  Pieces pieces;
  pieces.flux = fluxes::lower_volume_flux(law, spec.parameters, spec.per_element);
  pieces.source = fluxes::lower_source(law, spec.parameters, spec.per_element);
  pieces.has_source = !all_zero(pieces.source);
  pieces.difference = fluxes::lower_flux_difference(law, spec.parameters, spec.per_element);
  for (const fluxes::BoundaryCondition* condition : spec.conditions) {
    if (!condition) throw Error("generate_kernels: a null boundary condition");
    pieces.boundary.push_back(fluxes::lower_boundary_flux(law, *condition, spec.parameters, spec.per_element));
    if (reads_input(pieces.boundary.back(), InputKind::incident) && !spec.incident)
      throw Error("the boundary condition '" + condition->name + "' of law '" + law.name +
                  "' reads an incident field, but the run defines none (set [incident] in the config)");
  }
  if (!spec.tfsf.empty()) {
    if (!spec.incident)
      throw Error("total-field/scattered-field incidence needs an incident field, but the run defines none");
    if (spec.tfsf.size() != law.state_components())
      throw Error("total-field/scattered-field incidence: " + std::to_string(spec.tfsf.size()) +
                  " component entries for the " + std::to_string(law.state_components()) + " state components");
  }
  return pieces;
}

std::string identifier_text(const std::string& text) {
  std::string out;
  for (const char c : text) out += std::isalnum(static_cast<unsigned char>(c)) || c == '_' ? c : '_';
  return out.empty() ? std::string("_") : out;
}

std::string program_name(const KernelSpec& spec) {
  const bool single = spec.scalar == fluxes::ScalarType::float32;
  return "dg_" + identifier_text(spec.law->name) + "_" + shape_tag(spec.element->shape) + "_N" +
         std::to_string(spec.element->N) + (single ? "_f32" : "_f64");
}

void emit_piece(rtcg::SourceWriter& w, const fluxes::Lowered& piece, const std::string& output, const std::string& prefix,
                fluxes::ScalarType scalar, const StateNames& state_of, const InputNames& other) {
  fluxes::CNaming naming;
  naming.input = [&](const InputRef& ref) {
    if (other) {
      std::string name = other(ref);
      if (!name.empty()) return name;
    }
    return state_of && ref.kind == InputKind::state ? state_of(ref.index) : input_name(ref);
  };
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

void load_state(rtcg::SourceWriter& w, int components, const std::string& element, const std::string& node,
                const std::string& name) {
  w.line("real " + name + "[NCOMP];");
  for (int c = 0; c < components; ++c)
    w.line(name + "[" + std::to_string(c) + "] = q[QIDX(" + std::to_string(c) + ", " + element + ", " + node + ")];");
}

void load_coordinates(rtcg::SourceWriter& w, int dim, const std::string& node) {
  w.line("real xn[DIM];");
  for (int d = 0; d < dim; ++d)
    w.line("xn[" + std::to_string(d) + "] = xyz[(" + std::to_string(d) + " * K + k) * NP + " + node + "];");
}

void write_prelude(rtcg::SourceWriter& w, const KernelSpec& spec) {
  const fluxes::Law& law = *spec.law;
  const Element& element = *spec.element;
  const int Nfn = element.Nfaces * element.Nfp;
  w.line("// Generated by rtdg: DG kernels for law '" + identifier_text(law.name) + "' on " +
         std::string(shape_name(element.shape)) + "s of order " + std::to_string(element.N) + " (" +
         spec.plan.describe() + ").");
  w.line(std::string("typedef ") + fluxes::c_type(spec.scalar) + " real;");
  w.line("#define NP " + std::to_string(element.Np));
  w.line("#define NFP " + std::to_string(element.Nfp));
  w.line("#define NFACES " + std::to_string(element.Nfaces));
  w.line("#define NFN " + std::to_string(Nfn));
  w.line("#define DIM " + std::to_string(element.dim));
  w.line("#define NCOMP " + std::to_string(law.state_components()));
  w.line("#define NINC " + std::to_string(std::max<std::size_t>(1, law.env.incident_components())));
  if (spec.curved)
    w.line("#define NQ " + std::to_string(cubature_points(element.shape, weight_adjusted_cubature(element.N))) +
           "  // cubature points of the curved elements' weight-adjusted mass matrix");
  // Per-element parameters follow the P uniform ones in prm (KernelSpec::per_element).
  if (std::find(spec.per_element.begin(), spec.per_element.end(), true) != spec.per_element.end())
    w.line("#define NPRM " + std::to_string(law.parameters.size()));
  const int stride = node_stride(spec);
  if (stride != element.Np) w.line("#define NPS " + std::to_string(stride) + "  // the state's node stride (Np padded)");
  w.line(state_index_macro(spec.plan.layout, stride, element.Np));
  // RTDG_VMAPP(k, f, m, stride): vmapP of face node m (of face f) of element k, with stride NP,
  // or NCOMP * NFP on a halo face. Face connectivity: the face's word w (after the FACE_ORDERS
  // x NFP table of face-node orders) gives (w / FACE_ORDERS) * stride + table[w % FACE_ORDERS][m - f NFP].
  if (face_connectivity(spec.plan)) {
    w.line("#define FACE_ORDERS " + std::to_string(max_face_orders));
    w.line("#define RTDG_FACE_WORD(k, f) vmapP[FACE_ORDERS * NFP + (k) * NFACES + (f)]");
    w.line("#define RTDG_VMAPP(k, f, m, stride) ((RTDG_FACE_WORD(k, f) / FACE_ORDERS) * (stride) + "
           "vmapP[(RTDG_FACE_WORD(k, f) % FACE_ORDERS) * NFP + (m) - (f) * NFP])");
  } else {
    w.line("#define RTDG_VMAPP(k, f, m, stride) vmapP[(k) * NFN + (m)]");
  }
  w.line();
  // Fmask(j, f), flattened face by face: volume node of face node m = f * Nfp + j.
  std::vector<int> fmask;
  for (int f = 0; f < element.Nfaces; ++f)
    for (int j = 0; j < element.Nfp; ++j) fmask.push_back(element.Fmask(j, f));
  w.line("#if RTCG_CUDA");
  w.line("__constant__ int rtdg_fmask[NFN] = {" + join_ints(fmask) + "};");
  w.line("#else");
  w.line("static const int rtdg_fmask[NFN] = {" + join_ints(fmask) + "};");
  w.line("#endif");
  if (spec.plan.basis == Basis::bernstein && spec.incident) {
    // Bernstein plans whose faces read the incident field (boundary conditions, TF/SF): row m =
    // f NFP + j holds the weights that turn the incident values at face f's nodes into the
    // face's Bernstein coefficient j, (V_F^-1)(j, :) with V_F(j', j'') = B_(node Fmask(j'', f))
    // at node Fmask(j', f) (bernstein.hpp: a face's coefficients are its lattice points').
    // Global memory, read on those faces only; double, whatever the kernels' precision.
    const BernsteinOperators b = make_bernstein(element);
    std::vector<std::string> weights;
    for (int f = 0; f < element.Nfaces; ++f) {
      Eigen::MatrixXd VF(element.Nfp, element.Nfp);
      for (int j = 0; j < element.Nfp; ++j)
        for (int jj = 0; jj < element.Nfp; ++jj) VF(j, jj) = b.V(element.Fmask(j, f), element.Fmask(jj, f));
      const Eigen::MatrixXd inverse = VF.inverse();
      for (int j = 0; j < element.Nfp; ++j)
        for (int jj = 0; jj < element.Nfp; ++jj) {
          char text[40];
          std::snprintf(text, sizeof text, "%a", inverse(j, jj));
          weights.emplace_back(text);
        }
    }
    std::string table;
    for (const std::string& x : weights) table += (table.empty() ? "" : ", ") + x;
    w.line("#if RTCG_CUDA");
    w.line("__device__ const double rtdg_face_coefficients[NFN * NFP] = {" + table + "};");
    w.line("#else");
    w.line("static const double rtdg_face_coefficients[NFN * NFP] = {" + table + "};");
    w.line("#endif");
  }
  w.line();
}

void write_folded_flux(rtcg::SourceWriter& w, const KernelSpec& spec, const Pieces& pieces,
                       const std::function<std::string(int ca)>& target, int direction, const GeometryReads& geometry) {
  const int dim = spec.element->dim;
  const int components = static_cast<int>(spec.law->state_components());
  w.line("real F[NCOMP * DIM];");
  emit_piece(w, pieces.flux, "F", "vf", spec.scalar);
  w.line("const real* g = " + geometry.drdx + ";");
  for (int c = 0; c < components; ++c)
    for (int a = 0; a < dim; ++a) {
      if (direction >= 0 && a != direction) continue;
      std::string sum;
      for (int d = 0; d < dim; ++d)
        sum += (d ? " + " : "") + std::string("g[") + std::to_string(a * dim + d) + "] * F[" +
               std::to_string(c * dim + d) + "]";
      w.line(target(c * dim + a) + " = " + sum + ";");
    }
}

void write_face_flux(rtcg::SourceWriter& w, const KernelSpec& spec, const Pieces& pieces, bool halo,
                     const std::function<std::string(int c)>& staged, const GeometryReads& geometry,
                     const TraceLoads* traces) {
  const int dim = spec.element->dim;
  const int components = static_cast<int>(spec.law->state_components());
  const bool bernstein = spec.plan.basis == Basis::bernstein;
  // inc[NINC]: the incident field at face node m (nodal plans), or the face's Bernstein
  // coefficient of it (the incident values at the face's nodes through rtdg_face_coefficients).
  // Nodal plans read the coordinates xn the caller loaded.
  auto incident_values = [&](const std::string& prefix) {
    w.line("real inc[NINC];");
    if (!bernstein) {
      emit_piece(w, *spec.incident, "inc", prefix, spec.scalar);
      return;
    }
    w.line("for (int q = 0; q < NINC; ++q) inc[q] = 0;");
    auto loop = w.block("for (int jj = 0; jj < NFP; ++jj)");
    w.line("const int iF = rtdg_fmask[f * NFP + jj];");
    load_coordinates(w, dim, "iF");
    w.line("real at_node[NINC];");
    emit_piece(w, *spec.incident, "at_node", prefix, spec.scalar);
    w.line("const real weight = static_cast<real>(rtdg_face_coefficients[m * NFP + jj]);");
    w.line("for (int q = 0; q < NINC; ++q) inc[q] += weight * at_node[q];");
  };
  // Whether the incident field's evaluation needs xn at node iM loaded before it.
  const bool incident_at_node = !bernstein && spec.incident && reads_input(*spec.incident, InputKind::coordinate);
  w.line("const real* fg = " + geometry.face + ";");
  w.line("real nrm[DIM];");
  for (int d = 0; d < dim; ++d) w.line("nrm[" + std::to_string(d) + "] = fg[" + std::to_string(d) + "];");
  w.line("real dF[NCOMP];");
  w.line("const int code = " + geometry.code + ";");
  {
    auto interior = w.block("if (code == 0)");
    w.line("const int p = RTDG_VMAPP(k, f, m, NP);");
    w.line("const int kP = p / NP;");
    w.line("const int iP = p - kP * NP;");
    if (traces) {
      traces->interior(w);
    } else if (staged) {
      w.line("(void)iP;");
      w.line("real uP[NCOMP];");
      for (int c = 0; c < components; ++c) w.line("uP[" + std::to_string(c) + "] = " + staged(c) + ";");
    } else {
      load_state(w, components, "kP", "iP", "uP");
    }
    if (reads_input(pieces.difference, InputKind::coordinate)) load_coordinates(w, dim, "iM");
    emit_piece(w, pieces.difference, "dF", "sf", spec.scalar);
  }
  // The neighbour rank's trace at face node m: uP from the halo buffer, p its offset, h its
  // halo face (for neighbour parameters).
  auto load_halo_trace = [&] {
    w.line("const int p = RTDG_VMAPP(k, f, m, NCOMP * NFP);");
    w.line("const int h = p / (NCOMP * NFP);");
    w.line("(void)h;");
    if (traces) return traces->halo(w);
    w.line("real uP[NCOMP];");
    for (int c = 0; c < components; ++c)
      w.line("uP[" + std::to_string(c) + "] = halo[p + " + std::to_string(c) + " * NFP];");
  };
  if (halo && !spec.tfsf.empty()) {
    // A TF/SF face whose neighbour is on another rank: the TF/SF branch below on the halo trace.
    auto branch = w.block("else if (code == " + std::to_string(tfsf_halo_total_code) + " || code == " +
                          std::to_string(tfsf_halo_scattered_code) + ")");
    load_halo_trace();
    if (incident_at_node || reads_input(pieces.difference, InputKind::coordinate)) load_coordinates(w, dim, "iM");
    incident_values("th_");
    w.line("const real side = code == " + std::to_string(tfsf_halo_total_code) + " ? real(1) : real(-1);");
    for (int c = 0; c < components; ++c) {
      const int i = spec.tfsf.at(static_cast<std::size_t>(c));
      if (i >= 0) w.line("uP[" + std::to_string(c) + "] += side * inc[" + std::to_string(i) + "];");
    }
    const std::string parameters = std::to_string(spec.law->parameters.size());
    emit_piece(w, pieces.difference, "dF", "th", spec.scalar, {}, [&](const InputRef& ref) -> std::string {
      if (ref.kind != InputKind::neighbour_parameter) return "";
      return "prm[NPRM + " + parameters + " * K + " + std::to_string(ref.index) + " * H + h]";
    });
  }
  if (halo) {
    // The same numerical flux with the neighbour rank's trace (parallel runs, docs/parallel.md).
    auto branch = w.block("else if (code < 0)");
    load_halo_trace();
    if (reads_input(pieces.difference, InputKind::coordinate)) load_coordinates(w, dim, "iM");
    const std::string parameters = std::to_string(spec.law->parameters.size());
    emit_piece(w, pieces.difference, "dF", "hf", spec.scalar, {}, [&](const InputRef& ref) -> std::string {
      if (ref.kind != InputKind::neighbour_parameter) return "";
      return "prm[NPRM + " + parameters + " * K + " + std::to_string(ref.index) + " * H + h]";
    });
  }
  if (!spec.tfsf.empty()) {
    // Total-field/scattered-field faces: the neighbour's trace in this side's formulation, its
    // scattered field plus the incident one (this side total) or its total field minus it.
    const int total = tfsf_total_code(spec), scattered = tfsf_scattered_code(spec);
    auto branch = w.block("else if (code == " + std::to_string(total) + " || code == " + std::to_string(scattered) + ")");
    w.line("const int p = RTDG_VMAPP(k, f, m, NP);");
    w.line("const int kP = p / NP;");
    w.line("const int iP = p - kP * NP;");
    if (traces) traces->interior(w);
    else load_state(w, components, "kP", "iP", "uP");
    if (incident_at_node || reads_input(pieces.difference, InputKind::coordinate)) load_coordinates(w, dim, "iM");
    incident_values("ti_");
    w.line("const real side = code == " + std::to_string(total) + " ? real(1) : real(-1);");
    for (int c = 0; c < components; ++c) {
      const int i = spec.tfsf.at(static_cast<std::size_t>(c));
      if (i >= 0) w.line("uP[" + std::to_string(c) + "] += side * inc[" + std::to_string(i) + "];");
    }
    emit_piece(w, pieces.difference, "dF", "tf", spec.scalar);
  }
  for (std::size_t b = 0; b < pieces.boundary.size(); ++b) {
    const fluxes::Lowered& piece = pieces.boundary[b];
    auto branch = w.block("else if (code == " + std::to_string(b + 1) + ")");
    w.line("// boundary condition '" + identifier_text(spec.conditions[b]->name) + "'");
    const bool incident = reads_input(piece, InputKind::incident);
    if (reads_input(piece, InputKind::coordinate) || (incident && incident_at_node)) load_coordinates(w, dim, "iM");
    if (incident) incident_values("w" + std::to_string(b) + "_");
    emit_piece(w, piece, "dF", "b" + std::to_string(b) + "_", spec.scalar);
  }
  {
    auto other = w.block("else");
    w.line("// not reached: the solver writes only the codes above");
    for (int c = 0; c < components; ++c) w.line("dF[" + std::to_string(c) + "] = 0;");
  }
}

}  // namespace rtdg::dg::kernels
