// Validation of the names a caller hands the emitter: generated code contains only these,
// temporaries and formatted numbers, so checking them keeps anything but plain C accesses
// out of the code.
#include "fluxes/emit_c.hpp"

#include <array>

namespace fluxes {

namespace {

bool ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool digit(char c) { return c >= '0' && c <= '9'; }

// C and C++ keywords that could change what an access path means.
constexpr std::array<std::string_view, 40> keywords = {
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else",
    "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long", "register",
    "restrict", "return", "short", "signed", "sizeof", "static", "struct", "switch", "typedef", "union",
    "unsigned", "void", "volatile", "while", "asm", "delete", "new", "operator", "this", "throw"};

// Reads an identifier at text[pos]; returns its end, or pos if there is none or it is a keyword.
std::size_t identifier_end(std::string_view text, std::size_t pos) {
  if (pos >= text.size() || !ident_start(text[pos])) return pos;
  std::size_t end = pos;
  while (end < text.size() && (ident_start(text[end]) || digit(text[end]))) ++end;
  const std::string_view word = text.substr(pos, end - pos);
  for (auto k : keywords) {
    if (word == k) return pos;
  }
  return end;
}

void skip_spaces(std::string_view text, std::size_t& pos) {
  while (pos < text.size() && text[pos] == ' ') ++pos;
}

// index := term { ('+' | '-' | '*') term }; returns false if malformed. Stops at ']'.
bool index_expression(std::string_view text, std::size_t& pos) {
  while (true) {
    skip_spaces(text, pos);
    if (pos < text.size() && digit(text[pos])) {
      while (pos < text.size() && digit(text[pos])) ++pos;
      if (pos < text.size() && (ident_start(text[pos]))) return false;  // 1u, 0x1f: not plain decimal
    } else {
      const std::size_t end = identifier_end(text, pos);
      if (end == pos) return false;
      pos = end;
    }
    skip_spaces(text, pos);
    if (pos < text.size() && (text[pos] == '+' || text[pos] == '-' || text[pos] == '*')) {
      ++pos;
      continue;
    }
    return true;
  }
}

}  // namespace

bool is_c_identifier(std::string_view text) {
  return !text.empty() && identifier_end(text, 0) == text.size();
}

bool is_c_access_path(std::string_view text) {
  std::size_t pos = identifier_end(text, 0);
  if (pos == 0) return false;
  while (pos < text.size()) {
    if (text[pos] == '.') {
      const std::size_t end = identifier_end(text, pos + 1);
      if (end == pos + 1) return false;
      pos = end;
    } else if (text.substr(pos, 2) == "->") {
      const std::size_t end = identifier_end(text, pos + 2);
      if (end == pos + 2) return false;
      pos = end;
    } else if (text[pos] == '[') {
      ++pos;
      if (!index_expression(text, pos)) return false;
      if (pos >= text.size() || text[pos] != ']') return false;
      ++pos;
    } else {
      return false;
    }
  }
  return true;
}

}  // namespace fluxes
