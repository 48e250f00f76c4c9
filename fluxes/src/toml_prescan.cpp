#include "toml_prescan.hpp"

namespace fluxes::detail {

namespace {

bool non_ascii(char c) { return (static_cast<unsigned char>(c) & 0x80U) != 0U; }
bool continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0U) == 0x80U; }

// Follows TOML's lexical structure just far enough to know whether a byte is inside a
// string or a comment.
class Scanner {
public:
  explicit Scanner(std::string_view text) : text_(text) {}

  std::optional<TomlHazard> run() {
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == '#') {
        skip_comment();
      } else if (starts("\"\"\"")) {
        if (auto hazard = string("\"\"\"", true)) return hazard;
      } else if (starts("'''")) {
        if (auto hazard = string("'''", false)) return hazard;
      } else if (c == '"') {
        if (auto hazard = string("\"", true)) return hazard;
      } else if (c == '\'') {
        if (auto hazard = string("'", false)) return hazard;
      } else if (non_ascii(c)) {
        return TomlHazard{at_, "non-ASCII character outside a string or comment (TOML allows them only there)"};
      } else {
        step();
      }
    }
    return std::nullopt;
  }

private:
  bool starts(std::string_view s) const { return text_.substr(pos_, s.size()) == s; }

  void step() {
    const char c = text_[pos_++];
    if (c == '\n') {
      ++at_.line;
      at_.column = 1;
    } else if (pos_ >= text_.size() || !continuation(text_[pos_])) {
      ++at_.column;
    }
  }

  void skip_comment() {
    while (pos_ < text_.size() && text_[pos_] != '\n') step();
  }

  // From an opening delimiter to the closing one (or, for single-line strings, the end of the
  // line, where toml++ stops with an error of its own).
  std::optional<TomlHazard> string(std::string_view delimiter, bool escapes) {
    const bool multi_line = delimiter.size() == 3;
    for (std::size_t i = 0; i < delimiter.size(); ++i) step();
    while (pos_ < text_.size()) {
      if (starts(delimiter)) {
        // A multi-line string may end in up to two extra quotes: """a""""" is 'a""'.
        std::size_t run = 0;
        while (pos_ + run < text_.size() && text_[pos_ + run] == delimiter[0]) ++run;
        const std::size_t take = multi_line ? (run > 5 ? 3 : run) : 1;
        for (std::size_t i = 0; i < take; ++i) step();
        return std::nullopt;
      }
      const char c = text_[pos_];
      if (c == '\n' && !multi_line) return std::nullopt;
      if (escapes && c == '\\') {
        const Position backslash = at_;
        step();
        if (pos_ < text_.size() && non_ascii(text_[pos_])) {
          return TomlHazard{backslash, "invalid escape: '\\' followed by a non-ASCII character"};
        }
        if (pos_ < text_.size() && text_[pos_] != '\n') step();  // the escaped character
        continue;
      }
      step();
    }
    return std::nullopt;
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  Position at_{1, 1};
};

}  // namespace

std::optional<TomlHazard> find_toml_hazard(std::string_view text) { return Scanner(text).run(); }

}  // namespace fluxes::detail
