#include <rtcg/source_writer.hpp>

namespace rtcg {

SourceWriter& SourceWriter::line(std::string_view text) {
  if (!text.empty()) text_.append(static_cast<std::size_t>(depth_ * indent_width_), ' ');
  text_.append(text);
  text_.push_back('\n');
  return *this;
}

SourceWriter::Scope SourceWriter::block(std::string_view header) {
  return block(header, {});
}

SourceWriter::Scope SourceWriter::block(std::string_view header, std::string trailer) {
  std::string opening(header);
  opening += opening.empty() ? "{" : " {";
  line(opening);
  indent();
  return Scope(*this, std::move(trailer));
}

SourceWriter::Scope::~Scope() {
  if (!writer_) return;
  writer_->dedent();
  writer_->line("}" + trailer_);
}

}  // namespace rtcg
