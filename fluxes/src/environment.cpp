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
  fields_.push_back(NamedShape{name, shape, state_components_});
  state_components_ += components(shape);
  return {};
}

std::string Environment::add_parameter(const std::string& name) {
  std::string problem = check_new_name(name);
  if (!problem.empty()) return problem;
  parameters_.push_back(name);
  return {};
}

std::string Environment::add_incident(const std::string& name, Shape shape) {
  std::string problem = check_new_name(name);
  if (!problem.empty()) return problem;
  incident_.push_back(NamedShape{name, shape, incident_components_});
  incident_components_ += components(shape);
  return {};
}

Symbol Environment::lookup(std::string_view name) const {
  if (name == "x") return {SymbolKind::coordinate, 0};
  if (name == "y") return {SymbolKind::coordinate, 1};
  if (name == "z") return {SymbolKind::coordinate, 2};
  if (name == "pos") return {SymbolKind::position, 0};
  if (name == "t") return {SymbolKind::time, 0};
  if (name == "normal") return {SymbolKind::normal, 0};
  if (name == "pi") return {SymbolKind::pi, 0};
  for (std::size_t i = 0; i < fields_.size(); ++i) {
    if (fields_[i].name == name) return {SymbolKind::field, i};
  }
  for (std::size_t i = 0; i < parameters_.size(); ++i) {
    if (parameters_[i] == name) return {SymbolKind::parameter, i};
  }
  for (std::size_t i = 0; i < incident_.size(); ++i) {
    if (incident_[i].name == name) return {SymbolKind::incident, i};
  }
  return {};
}

}  // namespace fluxes
