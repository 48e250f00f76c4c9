#include "fluxes/report.hpp"

#include "fluxes/printer.hpp"

#include <algorithm>
#include <sstream>

namespace fluxes {

CNaming report_naming() {
  CNaming naming;
  naming.input = [](const InputRef& ref) -> std::string {
    const std::string i = std::to_string(ref.index);
    switch (ref.kind) {
      case InputKind::state: return "qM[" + i + "]";
      case InputKind::exterior: return "qP[" + i + "]";
      case InputKind::normal: return "n[" + i + "]";
      case InputKind::coordinate: return "x[" + i + "]";
      case InputKind::time: return "t";
      case InputKind::parameter: return "param[" + i + "]";
      case InputKind::incident: return "inc[" + i + "]";
      case InputKind::element_parameter: return "paramM[" + i + "]";
      case InputKind::neighbour_parameter: return "paramP[" + i + "]";
    }
    return "unknown";
  };
  naming.output = [](std::size_t i) { return "out[" + std::to_string(i) + "]"; };
  return naming;
}

namespace {

const char* shape_name(Shape s) { return s == Shape::vector ? "vector" : "scalar"; }

std::string pad(std::string text, std::size_t width) {
  if (text.size() < width) text.append(width - text.size(), ' ');
  return text;
}

void code_section(std::ostringstream& out, const std::string& title, const std::string& outputs, const Lowered& lowered,
                  const ReportOptions& options) {
  EmitOptions emit;
  emit.scalar = options.scalar;
  emit.indent = "  ";
  const EmittedC code = emit_c(lowered.dag, lowered.outputs, report_naming(), emit);
  out << "\n// " << title << "\n// out[i]: " << outputs << "; " << code.temporaries << " temporaries\n{\n"
      << code.code << "}\n";
}

}  // namespace

std::string law_report(const Law& law, const ReportOptions& options) {
  const std::vector<double> parameters = resolve_parameters(law, options.overrides);
  std::ostringstream out;
  out << "law " << law.name << " (" << law.dimension << "D) from " << law.file << "\n";
  if (!law.description.empty()) out << "  " << law.description << "\n";

  const std::vector<std::string> components = law.component_names();
  out << "\nfields (" << components.size() << " state components):\n";
  for (const auto& f : law.fields) {
    out << "  " << pad(f.name, 10) << pad(shape_name(f.shape), 8);
    if (!f.description.empty()) out << f.description;
    out << "\n";
  }
  out << "state components:";
  for (std::size_t k = 0; k < components.size(); ++k) out << " [" << k << "] " << components[k];
  out << "\n";

  out << "\nparameters:\n";
  if (law.parameters.empty()) out << "  (none)\n";
  for (std::size_t i = 0; i < law.parameters.size(); ++i) {
    const ParameterDecl& p = law.parameters[i];
    out << "  " << pad(p.name, 10) << "= " << pad(shortest_decimal(parameters[i]), 8)
        << (p.constant ? "constant (baked into the code)" : "run time: param[" + std::to_string(i) + "]");
    if (p.min || p.max) {
      out << ", in [" << (p.min ? shortest_decimal(*p.min) : "-inf") << ", " << (p.max ? shortest_decimal(*p.max) : "inf")
          << "]";
    }
    if (!p.description.empty()) out << "; " << p.description;
    out << "\n";
  }

  if (!law.incident.empty()) {
    out << "\nincident fields (supplied by the run config):\n";
    for (std::size_t i = 0; i < law.incident.size(); ++i) {
      const IncidentDecl& d = law.incident[i];
      const std::size_t first = law.env.incident()[i].offset;
      const std::size_t count = law.env.components(d.shape);
      out << "  " << pad(d.name, 10) << pad(shape_name(d.shape), 8) << "inc[" << first
          << (count > 1 ? ".." + std::to_string(first + count - 1) : std::string()) << "]";
      if (!d.description.empty()) out << " " << d.description;
      out << "\n";
    }
  }

  if (!law.definitions.empty()) {
    out << "\ndefinitions:\n";
    std::size_t width = 10;
    for (const auto& d : law.definitions) width = std::max(width, d.name.size() + 2);
    for (std::size_t i = 0; i < law.definitions.size(); ++i) {
      const Definition& d = law.definitions[i];
      const DefinitionShape& shape = law.env.definitions()[i];
      out << "  " << pad(d.name, width) << pad(shape_name(shape.shape), 8) << "= " << print(*d.body.ast) << "\n";
    }
  }

  switch (law.flux_form) {
    case FluxForm::difference:
    case FluxForm::full:
      out << "\nnumerical flux ("
          << (law.flux_form == FluxForm::difference ? "difference form n.(F - F*)" : "full form n.F*") << "):\n";
      for (std::size_t i = 0; i < law.fields.size(); ++i) {
        out << "  " << pad(law.fields[i].name, 10) << print(*law.numerical_flux[i].ast) << "\n";
      }
      break;
    case FluxForm::rusanov:
      out << "\nnumerical flux (rusanov, from the volume flux): n.F* = avg(n.F(u)) + lambda/2*jump(u)\n  lambda = "
          << (law.wave_speed ? print(*law.wave_speed->ast)
                             : "max(s(u.int), s(u.ext)), s = max wave speed = " + print(*law.max_wave_speed.ast))
          << "\n";
      break;
    case FluxForm::central:
      out << "\nnumerical flux (central, from the volume flux): n.F* = avg(n.F(u))\n";
      break;
  }

  out << "\nboundary conditions (exterior states):\n";
  if (law.boundaries.empty()) out << "  (none)\n";
  for (const auto& bc : law.boundaries) {
    out << "  " << bc.name;
    if (!bc.description.empty()) out << ": " << bc.description;
    out << "\n";
    for (std::size_t i = 0; i < law.fields.size(); ++i) {
      out << "    " << law.fields[i].name << ".ext = " << print(*bc.exterior[i].ast) << "\n";
    }
  }

  out << "\nmax wave speed: " << print(*law.max_wave_speed.ast) << "\n";
  out << "initial condition: "
      << (!law.initial.empty() ? "given" : !law.exact.empty() ? "the exact solution at t = 0" : "none (the run config gives it)")
      << "; exact solution: " << (law.exact.empty() ? "none" : "given") << "\n";

  out << "\ngenerated code (" << c_type(options.scalar)
      << "): qM[k] interior or volume state, qP[k] exterior state, n[d] normal, x[d] position, t time, "
         "param[i] parameters that are not constant, inc[k] incident fields\n";
  const std::size_t dim = static_cast<std::size_t>(law.dimension);
  code_section(out, "volume flux F(u)", "F of component i / " + std::to_string(dim) + " along dimension i % " + std::to_string(dim),
               lower_volume_flux(law, parameters), options);
  code_section(out, "flux difference n.(F - F*) on interior faces", "component i",
               lower_flux_difference(law, parameters), options);
  for (const auto& bc : law.boundaries) {
    code_section(out, "flux difference n.(F - F*) on boundary '" + bc.name + "'", "component i",
                 lower_boundary_flux(law, bc, parameters), options);
  }
  if (std::any_of(law.source.begin(), law.source.end(), [](const auto& s) { return s.has_value(); })) {
    code_section(out, "source S(u, x, t)", "component i", lower_source(law, parameters), options);
  }
  code_section(out, "maximum wave speed", "the speed", lower_max_wave_speed(law, parameters), options);
  if (!law.initial.empty() || !law.exact.empty()) {
    code_section(out, "initial condition", "component i", lower_initial(law, parameters), options);
  }
  if (!law.exact.empty()) code_section(out, "exact solution", "component i", lower_exact(law, parameters), options);
  return out.str();
}

std::string check_law_report(const std::filesystem::path& path, const ReportOptions& options) {
  return law_report(read_law(path), options);
}

}  // namespace fluxes
