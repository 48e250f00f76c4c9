// Errors from the flux language and law files. Every diagnostic names a place in a file as
// file:line:column (1-based; columns count characters, as toml++ does), so an editor can jump
// to it, and says what was expected there.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace fluxes {

struct Location {
  std::string file;  // as the user named it; "<expression>" for text that has no file
  int line = 0;      // 1-based; 0 when unknown
  int column = 0;    // 1-based; 0 when unknown
};

// "file:line:column", or the shorter forms when line or column are unknown.
std::string to_string(const Location& where);

struct Diagnostic {
  Location where;
  std::string message;  // one sentence, no location, no trailing newline
};

// "file:line:column: error: message"
std::string to_string(const Diagnostic& diagnostic);

// Thrown for anything wrong in user input (expressions, law files, parameter overrides).
// what() lists every diagnostic, one per line; diagnostics() gives them separately.
class Error : public std::runtime_error {
public:
  explicit Error(std::vector<Diagnostic> diagnostics);
  Error(Location where, std::string message);
  const std::vector<Diagnostic>& diagnostics() const noexcept { return diagnostics_; }

private:
  std::vector<Diagnostic> diagnostics_;
};

// Collects diagnostics so one pass over a law reports every problem, not just the first.
class Diagnostics {
public:
  void add(Location where, std::string message);
  void append(const Error& error);
  bool empty() const noexcept { return list_.empty(); }
  std::size_t size() const noexcept { return list_.size(); }
  const std::vector<Diagnostic>& list() const noexcept { return list_; }
  // Throws Error with everything collected, if anything was.
  void throw_if_any() const;

private:
  std::vector<Diagnostic> list_;
};

}  // namespace fluxes
