#include "fluxes/environment.hpp"

#include "functions.hpp"

#include <array>

namespace fluxes {

const char* to_string(Where where) {
  switch (where) {
    case Where::volume: return "volume";
    case Where::face: return "face";
    case Where::boundary: return "boundary";
    case Where::pointwise: return "pointwise";
    case Where::definition: return "definition";
  }
  return "?";
}

Environment::Environment(int dimension) : dimension_(dimension) {}

bool Environment::is_identifier(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  auto start = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  if (!start(name[0])) return false;
  for (char c : name) {
    if (!start(c) && !(c >= '0' && c <= '9')) return false;
  }
  return true;
}

bool Environment::is_reserved(std::string_view name) {
  static constexpr std::array<std::string_view, 9> builtins = {"x", "y", "z", "pos", "t", "normal", "pi", "int", "ext"};
  for (auto b : builtins) {
    if (name == b) return true;
  }
  return detail::find_function(name) != nullptr;
}

std::string Environment::check_new_name(const std::string& name) const {
  if (!is_identifier(name)) {
    return "'" + name + "' is not a name: names are letters, digits and '_', start with a letter "
           "or '_', and are at most 64 characters";
  }
  if (is_reserved(name)) return "'" + name + "' is a built-in name or function and cannot be redeclared";
  if (lookup(name).kind != SymbolKind::none) return "'" + name + "' is already declared";
  return {};
}

std::string Environment::add_field(const std::string& name, Shape shape) {
  std::string problem = check_new_name(name);
  if (!problem.empty()) return problem;
  declared_.emplace(name, Symbol{SymbolKind::field, fields_.size()});
  fields_.push_back(NamedShape{name, shape, state_components_});
  state_components_ += components(shape);
  return {};
}

std::string Environment::add_parameter(const std::string& name) {
  std::string problem = check_new_name(name);
  if (!problem.empty()) return problem;
  declared_.emplace(name, Symbol{SymbolKind::parameter, parameters_.size()});
  parameters_.push_back(name);
  return {};
}

std::string Environment::add_incident(const std::string& name, Shape shape) {
  std::string problem = check_new_name(name);
  if (!problem.empty()) return problem;
  declared_.emplace(name, Symbol{SymbolKind::incident, incident_.size()});
  incident_.push_back(NamedShape{name, shape, incident_components_});
  incident_components_ += components(shape);
  return {};
}

std::string Environment::add_definition(const std::string& name) {
  std::string problem = check_new_name(name);
  if (!problem.empty()) return problem;
  declared_.emplace(name, Symbol{SymbolKind::definition, definitions_.size()});
  definitions_.push_back(DefinitionShape{name, Shape::unknown, false, false, false});
  return {};
}

void Environment::set_definition(std::size_t index, const DefinitionShape& shape) {
  DefinitionShape& d = definitions_.at(index);
  const std::string name = d.name;
  d = shape;
  d.name = name;
}

Symbol Environment::lookup(std::string_view name) const {
  if (name == "x") return {SymbolKind::coordinate, 0};
  if (name == "y") return {SymbolKind::coordinate, 1};
  if (name == "z") return {SymbolKind::coordinate, 2};
  if (name == "pos") return {SymbolKind::position, 0};
  if (name == "t") return {SymbolKind::time, 0};
  if (name == "normal") return {SymbolKind::normal, 0};
  if (name == "pi") return {SymbolKind::pi, 0};
  if (const auto found = declared_.find(name); found != declared_.end()) return found->second;
  return {};
}

}  // namespace fluxes
