#include "toml_strings.hpp"

#include <cstdint>
#include <vector>

namespace fluxes::detail {

namespace {

bool continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0U) == 0x80U; }

// A cursor over the raw file that keeps the line and column of the byte it is on.
struct Cursor {
  std::string_view text;
  std::size_t pos = 0;
  Position at{1, 1};

  bool done() const { return pos >= text.size(); }
  char peek(std::size_t ahead = 0) const { return pos + ahead < text.size() ? text[pos + ahead] : '\0'; }
  bool starts(std::string_view s) const { return text.substr(pos, s.size()) == s; }
  void step() {
    if (done()) return;
    const char c = text[pos++];
    if (c == '\n') {
      ++at.line;
      at.column = 1;
    } else {
      // A character's column is that of its first byte: inside a multi-byte character (the
      // next byte continues it) the column stays.
      if (pos < text.size() && continuation(text[pos])) return;
      ++at.column;
    }
  }
};

struct Decoded {
  std::string text;
  std::vector<Position> positions;
  void put(char c, Position p) {
    text += c;
    positions.push_back(p);
  }
};

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void put_utf8(Decoded& out, std::uint32_t cp, Position p) {
  auto byte = [](std::uint32_t v) { return static_cast<char>(static_cast<unsigned char>(v)); };
  if (cp < 0x80) {
    out.put(byte(cp), p);
  } else if (cp < 0x800) {
    out.put(byte(0xC0 | (cp >> 6)), p);
    out.put(byte(0x80 | (cp & 0x3F)), p);
  } else if (cp < 0x10000) {
    out.put(byte(0xE0 | (cp >> 12)), p);
    out.put(byte(0x80 | ((cp >> 6) & 0x3F)), p);
    out.put(byte(0x80 | (cp & 0x3F)), p);
  } else {
    out.put(byte(0xF0 | (cp >> 18)), p);
    out.put(byte(0x80 | ((cp >> 12) & 0x3F)), p);
    out.put(byte(0x80 | ((cp >> 6) & 0x3F)), p);
    out.put(byte(0x80 | (cp & 0x3F)), p);
  }
}

// An escape after '\' in a basic string; false if malformed.
bool escape(Cursor& c, Decoded& out, Position backslash) {
  const char e = c.peek();
  c.step();
  switch (e) {
    case 'b': out.put('\b', backslash); return true;
    case 't': out.put('\t', backslash); return true;
    case 'n': out.put('\n', backslash); return true;
    case 'f': out.put('\f', backslash); return true;
    case 'r': out.put('\r', backslash); return true;
    case 'e': out.put('\x1B', backslash); return true;
    case '"': out.put('"', backslash); return true;
    case '\\': out.put('\\', backslash); return true;
    case 'u':
    case 'U': {
      const int digits = e == 'u' ? 4 : 8;
      std::uint32_t cp = 0;
      for (int i = 0; i < digits; ++i) {
        const int h = hex_value(c.peek());
        if (h < 0) return false;
        cp = cp * 16 + static_cast<std::uint32_t>(h);
        c.step();
      }
      put_utf8(out, cp, backslash);
      return true;
    }
    default: return false;
  }
}

// After an opening """ or ''', a newline right away is not part of the string.
void skip_first_newline(Cursor& c) {
  if (c.starts("\r\n")) {
    c.step();
    c.step();
  } else if (c.peek() == '\n') {
    c.step();
  }
}

// At a run of quotes that may close a multi-line string: the closing delimiter is the last
// three of a run of three to five, the others are content. Returns true when it closed.
bool close_multiline(Cursor& c, Decoded& out, char quote) {
  std::size_t run = 0;
  while (c.peek(run) == quote) ++run;
  if (run < 3) return false;
  for (std::size_t i = 0; i + 3 < run && i < 2; ++i) {
    out.put(quote, c.at);
    c.step();
  }
  return true;
}

bool decode(Cursor& c, Decoded& out) {
  if (c.starts("\"\"\"") || c.starts("'''")) {
    const char quote = c.peek();
    const bool basic = quote == '"';
    for (int i = 0; i < 3; ++i) c.step();
    skip_first_newline(c);
    while (!c.done()) {
      if (c.peek() == quote && close_multiline(c, out, quote)) return true;
      if (basic && c.peek() == '\\') {
        const Position backslash = c.at;
        c.step();
        // A line-ending backslash swallows the newline and the whitespace after it.
        std::size_t ahead = 0;
        while (c.peek(ahead) == ' ' || c.peek(ahead) == '\t') ++ahead;
        if (c.peek(ahead) == '\n' || (c.peek(ahead) == '\r' && c.peek(ahead + 1) == '\n')) {
          while (c.peek() == ' ' || c.peek() == '\t' || c.peek() == '\n' || c.peek() == '\r') c.step();
          continue;
        }
        if (!escape(c, out, backslash)) return false;
        continue;
      }
      if (c.starts("\r\n")) {
        c.step();  // toml++ reads CRLF inside strings as LF
        continue;
      }
      out.put(c.peek(), c.at);
      c.step();
    }
    return false;
  }
  const char quote = c.peek();
  if (quote != '"' && quote != '\'') return false;
  c.step();
  while (!c.done() && c.peek() != quote && c.peek() != '\n') {
    if (quote == '"' && c.peek() == '\\') {
      const Position backslash = c.at;
      c.step();
      if (!escape(c, out, backslash)) return false;
      continue;
    }
    out.put(c.peek(), c.at);
    c.step();
  }
  return c.peek() == quote;
}

}  // namespace

std::optional<SourceText> locate_toml_string(std::string_view file_text, const std::string& file, int line,
                                             int column, std::string_view expected) {
  if (line < 1 || column < 1) return std::nullopt;
  // Lines end at '\n' only, so the line's start is found without stepping through every
  // character (a law with many expressions would otherwise take quadratic time).
  std::size_t start = 0;
  for (int l = 1; l < line; ++l) {
    start = file_text.find('\n', start);
    if (start == std::string_view::npos) return std::nullopt;
    ++start;
  }
  Cursor c{file_text, start, {line, 1}};
  while (!c.done() && c.at.line == line && c.at.column < column) c.step();
  if (c.at.line != line || c.at.column != column) return std::nullopt;
  Decoded out;
  if (!decode(c, out) || out.text != expected) return std::nullopt;
  // The end of the text is the closing quote's position.
  out.positions.push_back(c.at);
  return SourceText(file, std::move(out.text), std::move(out.positions));
}

}  // namespace fluxes::detail
