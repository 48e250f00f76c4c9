#include "toml_prescan.hpp"

#include <vector>

namespace fluxes::detail {

namespace {

bool non_ascii(char c) { return (static_cast<unsigned char>(c) & 0x80U) != 0U; }
bool continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0U) == 0x80U; }
bool ascii_whitespace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// Follows TOML's lexical structure just far enough to know whether a byte is inside a
// string or a comment, as toml++ sees it. The subtle part is where a quote opens a string:
// only at the start of a key segment or of a value. Inside a bare token toml++ keeps
// scanning through quotes (`1."x"`, `x["y"]`, `1="z"` are one invalid token to it), so
// there a quote is an ordinary character and what follows it is outside any string.
class Scanner {
public:
  explicit Scanner(std::string_view text) : text_(text) {}

  std::optional<TomlHazard> run() {
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == '#') {
        skip_comment();
        continue;
      }
      if ((c == '"' || c == '\'') && at_start_) {
        std::optional<TomlHazard> hazard;
        if (starts("\"\"\"")) {
          hazard = string("\"\"\"", true);
        } else if (starts("'''")) {
          hazard = string("'''", false);
        } else {
          hazard = string(std::string_view(&text_[pos_], 1), c == '"');
        }
        if (hazard) return hazard;
        at_start_ = false;
        continue;
      }
      if (non_ascii(c)) {
        return TomlHazard{at_, "non-ASCII character outside a string or comment (TOML allows them only there)"};
      }
      structure(c);
      step();
    }
    return std::nullopt;
  }

private:
  enum class Mode { key, value };
  enum class Container { array, inline_table };

  // Updates where the next token starts for one ASCII character outside strings and
  // comments.
  void structure(char c) {
    if (c == '\n') {
      if (stack_.empty()) {
        mode_ = Mode::key;
        at_start_ = true;
        header_ = false;
      }
      return;
    }
    if (ascii_whitespace(c)) return;  // ends a token; a token start stays a token start
    const bool in_array = !stack_.empty() && stack_.back() == Container::array;
    const bool in_table = !stack_.empty() && stack_.back() == Container::inline_table;
    if (mode_ == Mode::key) {
      if (c == '[' && stack_.empty() && at_start_ && (header_ || line_start())) {
        header_ = true;  // [table] or [[array of tables]]
      } else if (c == '.') {
        at_start_ = true;
        return;
      } else if (c == '=' && !header_) {
        mode_ = Mode::value;
        at_start_ = true;
        return;
      } else if (c == '}' && in_table) {
        stack_.pop_back();
        mode_ = Mode::value;
      }
      at_start_ = c == '[' && header_;
      return;
    }
    // A value.
    if (at_start_ && c == '[') {
      stack_.push_back(Container::array);
      return;  // still at the start of a value
    }
    if (at_start_ && c == '{') {
      stack_.push_back(Container::inline_table);
      mode_ = Mode::key;
      return;  // at the start of a key
    }
    if (c == ',') {
      at_start_ = in_array || in_table;
      if (in_table) mode_ = Mode::key;
      return;
    }
    if ((c == ']' && in_array) || (c == '}' && in_table)) stack_.pop_back();
    at_start_ = false;
  }

  // Whether only whitespace precedes pos_ on its line.
  bool line_start() const {
    for (std::size_t i = pos_; i > 0; --i) {
      const char c = text_[i - 1];
      if (c == '\n') return true;
      if (c != ' ' && c != '\t') return false;
    }
    return true;
  }

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
    const char quote = delimiter[0];
    for (std::size_t i = 0; i < delimiter.size(); ++i) step();
    while (pos_ < text_.size()) {
      if (starts(delimiter)) {
        // A multi-line string may end in up to two extra quotes: """a""""" is 'a""'.
        std::size_t run = 0;
        while (pos_ + run < text_.size() && text_[pos_ + run] == quote) ++run;
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
        if (multi_line && pos_ < text_.size() && ascii_whitespace(text_[pos_])) {
          // A line-ending backslash: toml++ tests every character up to the next
          // non-whitespace one for Unicode whitespace, which is where it goes wrong.
          while (pos_ < text_.size() && ascii_whitespace(text_[pos_])) step();
          if (pos_ < text_.size() && non_ascii(text_[pos_])) {
            return TomlHazard{at_,
                              "non-ASCII character right after a line-ending backslash (the TOML reader cannot "
                              "check it for whitespace; put an ASCII character or an escape such as \\u00e9 first)"};
          }
          continue;
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
  Mode mode_ = Mode::key;
  bool at_start_ = true;  // the next non-whitespace character starts a key segment or a value
  bool header_ = false;   // inside [table] or [[array of tables]]
  std::vector<Container> stack_;
};

}  // namespace

std::optional<TomlHazard> find_toml_hazard(std::string_view text) { return Scanner(text).run(); }

}  // namespace fluxes::detail
