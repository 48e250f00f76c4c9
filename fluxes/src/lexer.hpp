// Tokens of the flux language. Private to the parser.
#pragma once

#include "fluxes/source_text.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace fluxes::detail {

enum class TokenKind : std::uint8_t {
  number, identifier,
  plus, minus, star, slash, caret,
  left_paren, right_paren, comma, dot,
  less, less_equal, greater, greater_equal, equal_equal, not_equal,
  end,
};

struct Token {
  TokenKind kind = TokenKind::end;
  std::size_t offset = 0;  // first byte
  std::size_t length = 0;
  std::string_view text;   // a view into the SourceText
  double number = 0.0;     // for TokenKind::number
};

// Splits text into tokens one at a time. Throws Error at the first character that cannot
// start a token (quotes, ';', '=', non-ASCII, ...), naming it and its location.
class Lexer {
public:
  explicit Lexer(const SourceText& source) : source_(source), text_(source.text()) {}
  Token next();

private:
  [[noreturn]] void fail(std::size_t offset, const std::string& message) const;
  Token lex_number(std::size_t start);

  const SourceText& source_;
  std::string_view text_;
  std::size_t pos_ = 0;
};

// How a token is named in error messages: "'+'", "'alpha'", "the end of the expression".
std::string describe(const Token& token);

}  // namespace fluxes::detail
