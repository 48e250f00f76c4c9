#include "fluxes/diagnostics.hpp"

#include <utility>

namespace fluxes {

std::string to_string(const Location& where) {
  std::string text = where.file.empty() ? std::string("<input>") : where.file;
  if (where.line > 0) {
    text += ":" + std::to_string(where.line);
    if (where.column > 0) text += ":" + std::to_string(where.column);
  }
  return text;
}

std::string to_string(const Diagnostic& diagnostic) {
  return to_string(diagnostic.where) + ": error: " + diagnostic.message;
}

namespace {
std::string join(const std::vector<Diagnostic>& diagnostics) {
  std::string text;
  for (const auto& d : diagnostics) {
    if (!text.empty()) text += "\n";
    text += to_string(d);
  }
  return text;
}
}  // namespace

Error::Error(std::vector<Diagnostic> diagnostics)
    : std::runtime_error(join(diagnostics)), diagnostics_(std::move(diagnostics)) {}

Error::Error(Location where, std::string message)
    : Error(std::vector<Diagnostic>{Diagnostic{std::move(where), std::move(message)}}) {}

void Diagnostics::add(Location where, std::string message) {
  list_.push_back(Diagnostic{std::move(where), std::move(message)});
}

void Diagnostics::append(const Error& error) {
  list_.insert(list_.end(), error.diagnostics().begin(), error.diagnostics().end());
}

void Diagnostics::throw_if_any() const {
  if (!list_.empty()) throw Error(list_);
}

}  // namespace fluxes
