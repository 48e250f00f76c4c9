#include "lexer.hpp"

#include <charconv>
#include <cstdio>
#include <system_error>

namespace fluxes::detail {

namespace {
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_ident_char(char c) { return is_ident_start(c) || is_digit(c); }

// A character as an error message shows it: printable ASCII as itself, anything else as its
// byte value, so messages never carry control characters or broken UTF-8.
std::string show_char(char c) {
  const auto byte = static_cast<unsigned char>(c);
  if (byte >= 0x20 && byte < 0x7F) return std::string("'") + c + "'";
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "byte 0x%02X", static_cast<unsigned>(byte));
  return buffer;
}
}  // namespace

void Lexer::fail(std::size_t offset, const std::string& message) const {
  throw Error(source_.at(offset), message);
}

Token Lexer::lex_number(std::size_t start) {
  std::size_t p = start;
  while (p < text_.size() && is_digit(text_[p])) ++p;
  if (p < text_.size() && text_[p] == '.') {
    ++p;
    while (p < text_.size() && is_digit(text_[p])) ++p;
  }
  if (p < text_.size() && (text_[p] == 'e' || text_[p] == 'E')) {
    std::size_t q = p + 1;
    if (q < text_.size() && (text_[q] == '+' || text_[q] == '-')) ++q;
    if (q >= text_.size() || !is_digit(text_[q])) {
      fail(start, "malformed number '" + std::string(text_.substr(start, q - start)) +
                      "': expected digits after the exponent");
    }
    while (q < text_.size() && is_digit(text_[q])) ++q;
    p = q;
  }
  if (p < text_.size() && is_ident_char(text_[p])) {
    fail(p, "malformed number: " + show_char(text_[p]) + " cannot follow the digits of a number");
  }
  Token token{TokenKind::number, start, p - start, text_.substr(start, p - start), 0.0};
  const char* first = text_.data() + start;
  const char* last = text_.data() + p;
  const auto [ptr, ec] = std::from_chars(first, last, token.number);
  if (ec == std::errc::result_out_of_range) {
    fail(start, "number '" + std::string(token.text) + "' is out of the range of a double");
  }
  if (ec != std::errc() || ptr != last) {
    fail(start, "malformed number '" + std::string(token.text) + "'");
  }
  pos_ = p;
  return token;
}

Token Lexer::next() {
  while (pos_ < text_.size() &&
         (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' || text_[pos_] == '\r')) {
    ++pos_;
  }
  const std::size_t start = pos_;
  if (pos_ >= text_.size()) return Token{TokenKind::end, start, 0, {}, 0.0};
  const char c = text_[pos_];
  if (is_digit(c) || (c == '.' && pos_ + 1 < text_.size() && is_digit(text_[pos_ + 1]))) {
    return lex_number(start);
  }
  if (is_ident_start(c)) {
    while (pos_ < text_.size() && is_ident_char(text_[pos_])) ++pos_;
    return Token{TokenKind::identifier, start, pos_ - start, text_.substr(start, pos_ - start), 0.0};
  }
  auto single = [&](TokenKind kind) {
    ++pos_;
    return Token{kind, start, 1, text_.substr(start, 1), 0.0};
  };
  auto twin = [&](TokenKind kind) {
    pos_ += 2;
    return Token{kind, start, 2, text_.substr(start, 2), 0.0};
  };
  const char after = pos_ + 1 < text_.size() ? text_[pos_ + 1] : '\0';
  switch (c) {
    case '+': return single(TokenKind::plus);
    case '-': return single(TokenKind::minus);
    case '*':
      if (after == '*') fail(start, "'**' is not an operator: write a^b or pow(a, b) for a power");
      return single(TokenKind::star);
    case '/': return single(TokenKind::slash);
    case '^': return single(TokenKind::caret);
    case '(': return single(TokenKind::left_paren);
    case ')': return single(TokenKind::right_paren);
    case ',': return single(TokenKind::comma);
    case '.': return single(TokenKind::dot);
    case '<': return after == '=' ? twin(TokenKind::less_equal) : single(TokenKind::less);
    case '>': return after == '=' ? twin(TokenKind::greater_equal) : single(TokenKind::greater);
    case '=':
      if (after == '=') return twin(TokenKind::equal_equal);
      fail(start, "unexpected '=': an expression is not an assignment (the law file's key names "
                  "what it defines); write '==' to compare");
    case '!':
      if (after == '=') return twin(TokenKind::not_equal);
      break;
    case ';':
      fail(start, "unexpected ';': a flux expression is a single expression, not statements");
    case '"':
    case '\'':
      fail(start, "unexpected " + show_char(c) + ": the flux language has no strings");
    default:
      break;
  }
  fail(start, "unexpected character " + show_char(c) +
                  " (expected a number, a name, an operator + - * / ^ < <= > >= == !=, "
                  "'(', ')', ',' or '.')");
}

std::string describe(const Token& token) {
  if (token.kind == TokenKind::end) return "the end of the expression";
  return "'" + std::string(token.text) + "'";
}

}  // namespace fluxes::detail
