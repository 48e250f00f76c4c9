// What names mean in an expression, and where an expression is evaluated.
//
// Built-in names: x, y, z (coordinates; z only in 3D), pos (the position vector), t (time),
// normal (outward unit normal of a face), pi. The law adds its fields (state), parameters,
// incident fields and definitions. Names are identifiers: [A-Za-z_][A-Za-z0-9_]*.
#pragma once

#include "fluxes/ast.hpp"

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fluxes {

// Where an expression is evaluated decides which names it may use:
//   volume    state fields as plain names (u, e); no normal, no traces. Volume flux, sources,
//             maximum wave speed.
//   face      traces u.int, u.ext, avg(), jump(), normal; plain field names only inside
//             avg()/jump(). The numerical flux.
//   boundary  interior traces u.int, normal, incident fields. Boundary exterior states.
//   pointwise no state at all: x, t, parameters. Initial conditions and exact solutions.
//   definition the body of a named definition: the state at one point as plain field names,
//             normal and incident fields (a use of the definition must be where those exist);
//             no traces, no avg()/jump() (those apply where the definition is used).
// Coordinates, t, parameters and definitions are available everywhere (a definition that
// depends on the state is used as a field is: plainly in volume expressions, as p.int, p.ext,
// avg(p), jump(p) on faces).
enum class Where : unsigned char { volume, face, boundary, pointwise, definition };

const char* to_string(Where where);

struct NamedShape {
  std::string name;
  Shape shape = Shape::scalar;  // scalar or vector
  std::size_t offset = 0;       // first flat component: scalars take 1, vectors `dimension`
};

// A named definition as expressions see it. Its shape and dependencies are known once its
// body is checked; Shape::unknown means not yet, or that the body has errors (uses of it then
// report nothing more).
struct DefinitionShape {
  std::string name;
  Shape shape = Shape::unknown;
  bool state = false;     // uses a field, directly or through another definition
  bool normal = false;    // uses normal, directly or through another definition
  bool incident = false;  // uses an incident field, directly or through another definition
};

class Environment {
public:
  // dimension: 1, 2 or 3 (vectors have this many components).
  explicit Environment(int dimension);

  int dimension() const noexcept { return dimension_; }

  // Each returns an empty string on success or says why the name cannot be declared
  // (not an identifier, reserved, already declared); nothing is added then.
  std::string add_field(const std::string& name, Shape shape);
  std::string add_parameter(const std::string& name);
  std::string add_incident(const std::string& name, Shape shape);
  // A definition is declared by name first (so definitions may use each other in any order),
  // and described by set_definition once its body is checked.
  std::string add_definition(const std::string& name);
  void set_definition(std::size_t index, const DefinitionShape& shape);

  const std::vector<NamedShape>& fields() const noexcept { return fields_; }
  const std::vector<std::string>& parameters() const noexcept { return parameters_; }
  const std::vector<NamedShape>& incident() const noexcept { return incident_; }
  const std::vector<DefinitionShape>& definitions() const noexcept { return definitions_; }
  // Scalar components of the state: the fields flattened in declaration order.
  std::size_t state_components() const noexcept { return state_components_; }
  std::size_t incident_components() const noexcept { return incident_components_; }
  std::size_t components(Shape shape) const noexcept {
    return shape == Shape::vector ? static_cast<std::size_t>(dimension_) : 1;
  }

  // What `name` means, or kind none. Built-ins are found whatever the dimension; the checker
  // refuses z in 2D with a message that says why.
  Symbol lookup(std::string_view name) const;

  // Built-in names and functions, which no law may redeclare.
  static bool is_reserved(std::string_view name);
  static bool is_identifier(std::string_view name);

private:
  std::string check_new_name(const std::string& name) const;

  int dimension_;
  std::vector<NamedShape> fields_;
  std::vector<std::string> parameters_;
  std::vector<NamedShape> incident_;
  std::vector<DefinitionShape> definitions_;
  std::map<std::string, Symbol, std::less<>> declared_;  // every name above: lookups stay fast with many
  std::size_t state_components_ = 0;
  std::size_t incident_components_ = 0;
};

}  // namespace fluxes
