#include "fluxes/source_text.hpp"

#include <utility>

namespace fluxes {

namespace {
// UTF-8 continuation bytes (10xxxxxx) belong to the character before them: they share its
// column, so columns count characters as toml++ and editors do.
bool is_continuation_byte(char c) {
  return (static_cast<unsigned char>(c) & 0xC0U) == 0x80U;
}
}  // namespace

SourceText::SourceText(std::string file, std::string text, int first_line, int first_column)
    : file_(std::move(file)), text_(std::move(text)) {
  positions_.reserve(text_.size() + 1);
  Position p{first_line, first_column};
  for (char c : text_) {
    if (is_continuation_byte(c)) {
      positions_.push_back(Position{p.line, p.column - 1});
      continue;
    }
    positions_.push_back(p);
    if (c == '\n') {
      ++p.line;
      p.column = 1;
    } else {
      ++p.column;
    }
  }
  positions_.push_back(p);
}

SourceText::SourceText(std::string file, std::string text, std::vector<Position> positions)
    : file_(std::move(file)), text_(std::move(text)), positions_(std::move(positions)) {
  if (positions_.size() != text_.size() + 1) {
    // A mapping that does not fit is a bug in the caller; fall back to the text's own lines
    // rather than index out of range.
    *this = SourceText(file_, text_);
  }
}

Location SourceText::at(std::size_t offset) const {
  if (offset >= positions_.size()) offset = positions_.size() - 1;
  return Location{file_, positions_[offset].line, positions_[offset].column};
}

}  // namespace fluxes
