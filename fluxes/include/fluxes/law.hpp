// A conservation law u_t + div F(u) = S(u, x, t), read from a law file (TOML; the schema is
// docs/laws.md). Reading parses and checks every expression, so a Law that exists is valid:
// every expression has the shape its place needs and uses only names allowed there.
#pragma once

#include "fluxes/ast.hpp"
#include "fluxes/diagnostics.hpp"
#include "fluxes/environment.hpp"
#include "fluxes/source_text.hpp"

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fluxes {

// A parsed, checked expression and the text its locations refer to.
struct Expression {
  std::shared_ptr<const Expr> ast;
  std::shared_ptr<const SourceText> source;
  Where where = Where::volume;
};

struct FieldDecl {
  std::string name;
  Shape shape = Shape::scalar;  // scalar or vector
  std::string description;
  Location where;
};

struct ParameterDecl {
  std::string name;
  double value = 0.0;     // the default, before run-config overrides
  bool constant = false;  // baked into generated code (else read at run time)
  std::optional<double> min, max;
  std::string description;
  Location where;
};

struct IncidentDecl {  // a named external field a run config supplies (for boundary conditions)
  std::string name;
  Shape shape = Shape::vector;
  std::string description;
  Location where;
};

// A named definition ([definitions]): an expression other expressions use by name. Its body is
// checked with Where::definition; env.definitions() has its shape and what it depends on.
struct Definition {
  std::string name;
  Expression body;
  std::vector<std::size_t> uses;  // the definitions the body uses (indices into Law::definitions)
  Location where;
};

// How the numerical flux is given: `difference` is n.(F - F*) as hedge writes it (what DG
// lifts); `full` is n.F* itself, and the difference is formed with the volume flux. The
// derived forms need no expressions, only the volume flux (and the wave speed):
//   central   n.F* = avg(n.F(u))
//   rusanov   n.F* = avg(n.F(u)) + lambda/2 jump(u), lambda = max(s(u.int), s(u.ext)) with s
//             the max_wave_speed expression, or Law::wave_speed when the law gives one
// (Rusanov's local Lax-Friedrichs flux; docs/laws.md has the formulas and references).
enum class FluxForm : unsigned char { difference, full, rusanov, central };

const char* to_string(FluxForm form);

struct BoundaryCondition {
  std::string name;
  std::string description;
  std::vector<Expression> exterior;  // [field]: the exterior state of each field
  Location where;
};

struct Law {
  std::string file;
  std::string name;
  std::string description;
  int dimension = 0;
  std::vector<FieldDecl> fields;
  std::vector<ParameterDecl> parameters;
  std::vector<IncidentDecl> incident;
  std::vector<Definition> definitions;  // in the order written; env numbers them alike
  Environment env{1};  // the names above, as expressions see them
  // [field][component of the field]: F of that scalar component, a vector.
  std::vector<std::vector<Expression>> volume_flux;
  FluxForm flux_form = FluxForm::difference;
  std::vector<Expression> numerical_flux;  // [field], shaped as the field; empty for derived forms
  std::optional<Expression> wave_speed;    // rusanov only: lambda on a face (face expression), if given
  std::vector<BoundaryCondition> boundaries;
  std::vector<std::optional<Expression>> source;  // [field]; nullopt: zero
  std::vector<Expression> initial;                // [field], or empty when not given
  std::vector<Expression> exact;                  // [field], or empty when not given
  Expression max_wave_speed;                      // scalar, volume

  std::size_t state_components() const { return env.state_components(); }
  // Names of the flat state components: a scalar field u is "u", a vector field E is
  // "E.x", "E.y", "E.z".
  std::vector<std::string> component_names() const;
  const BoundaryCondition* find_boundary(std::string_view name) const;
};

// Reads and checks a law file. Throws Error listing every problem found, each with its
// file:line:column: TOML syntax, unknown or missing keys, wrong value types, bad names and
// every expression error (located inside the TOML string).
Law read_law(const std::filesystem::path& path);
// The same from text in memory; `file` names it in messages.
Law parse_law(std::string_view text, const std::string& file);

}  // namespace fluxes
