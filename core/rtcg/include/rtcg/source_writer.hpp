// A small indented writer for generated source, so generators never build code by string
// concatenation: line() writes one indented line, block() opens a brace scope.
#pragma once

#include <string>
#include <string_view>

namespace rtcg {

class SourceWriter {
public:
  explicit SourceWriter(int indent_width = 2) : indent_width_(indent_width) {}

  SourceWriter& line(std::string_view text = {});
  // Writes `header {`, indents, and returns a guard that writes the closing `}` (plus
  // `trailer`, e.g. ";") when it goes out of scope.
  class Scope {
  public:
    Scope(SourceWriter& writer, std::string trailer) : writer_(&writer), trailer_(std::move(trailer)) {}
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;
    Scope(Scope&& other) noexcept : writer_(other.writer_), trailer_(std::move(other.trailer_)) { other.writer_ = nullptr; }
    Scope& operator=(Scope&&) = delete;
    ~Scope();

  private:
    SourceWriter* writer_;
    std::string trailer_;
  };
  [[nodiscard]] Scope block(std::string_view header);
  [[nodiscard]] Scope block(std::string_view header, std::string trailer);
  void indent() { ++depth_; }
  void dedent() { if (depth_ > 0) --depth_; }

  const std::string& str() const noexcept { return text_; }

private:
  std::string text_;
  int depth_ = 0;
  int indent_width_;
};

}  // namespace rtcg
