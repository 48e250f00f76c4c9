// An expression's text and where each of its characters came from. Expressions usually live
// inside TOML strings, so offset 0 of the expression is not column 1 of a line; errors use
// at(offset) to name the file position the user sees.
#pragma once

#include "fluxes/diagnostics.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace fluxes {

struct Position {
  int line = 0;
  int column = 0;
};

class SourceText {
public:
  // Text that stands alone (a command-line argument, a test): positions follow the text's own
  // lines, starting at first_line:first_column.
  SourceText(std::string file, std::string text, int first_line = 1, int first_column = 1);
  // Text decoded from a file: positions[i] is where byte i of text came from, with one extra
  // entry for the end of the text (positions.size() == text.size() + 1).
  SourceText(std::string file, std::string text, std::vector<Position> positions);

  const std::string& file() const noexcept { return file_; }
  const std::string& text() const noexcept { return text_; }
  // Location of byte `offset` of the text (clamped to the end).
  Location at(std::size_t offset) const;

private:
  std::string file_;
  std::string text_;
  std::vector<Position> positions_;  // [text_.size() + 1]
};

}  // namespace fluxes
