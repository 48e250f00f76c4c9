// PvdSeries: ParaView collections (pvd.hpp). Plain text; needs no VTK.
#include "output/pvd.hpp"

#include "support.hpp"

#include <algorithm>
#include <string_view>
#include <system_error>

namespace rtdg::output {
namespace {

using detail::fail;

std::string escape(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string unescape(std::string_view text) {
  static constexpr std::pair<std::string_view, char> entities[] = {
      {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}};
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    bool replaced = false;
    for (const auto& [entity, c] : entities) {
      if (text.substr(i, entity.size()) == entity) {
        out += c;
        i += entity.size();
        replaced = true;
        break;
      }
    }
    if (!replaced) out += text[i++];
  }
  return out;
}

// The value of attribute `name` in the tag text, or nullopt.
std::optional<std::string> attribute(std::string_view tag, std::string_view name) {
  for (std::size_t at = tag.find(name); at != std::string_view::npos; at = tag.find(name, at + 1)) {
    const bool starts = at > 0 && (tag[at - 1] == ' ' || tag[at - 1] == '\t' || tag[at - 1] == '\n' || tag[at - 1] == '\r');
    std::size_t i = at + name.size();
    while (i < tag.size() && tag[i] == ' ') ++i;
    if (!starts || i >= tag.size() || tag[i] != '=') continue;
    ++i;
    while (i < tag.size() && tag[i] == ' ') ++i;
    if (i >= tag.size() || (tag[i] != '"' && tag[i] != '\'')) continue;
    const char quote = tag[i];
    const std::size_t end = tag.find(quote, i + 1);
    if (end == std::string_view::npos) return std::nullopt;
    return unescape(tag.substr(i + 1, end - i - 1));
  }
  return std::nullopt;
}

std::vector<PvdSeries::Entry> parse(const std::string& text, const std::string& source) {
  if (text.find("<VTKFile") == std::string::npos || text.find("Collection") == std::string::npos) {
    fail(source, "not a ParaView collection (no <VTKFile type=\"Collection\">); move it away to start a new series");
  }
  std::vector<PvdSeries::Entry> entries;
  for (std::size_t at = text.find("<DataSet"); at != std::string::npos; at = text.find("<DataSet", at + 1)) {
    const std::size_t end = text.find('>', at);
    if (end == std::string::npos) fail(source, "a <DataSet> tag is not closed");
    const std::string_view tag(text.data() + at, end - at);
    const std::optional<std::string> time = attribute(tag, "timestep");
    const std::optional<std::string> file = attribute(tag, "file");
    const std::optional<double> value = time ? detail::parse_double(*time) : std::nullopt;
    if (!value || !file) {
      fail(source, "a <DataSet> entry lacks a numeric timestep or a file: " + std::string(tag) + ">");
    }
    entries.push_back({*value, std::filesystem::path(*file)});
  }
  return entries;
}

}  // namespace

PvdSeries::PvdSeries(std::filesystem::path pvd) : pvd_(std::move(pvd)) {
  std::error_code error;
  if (std::filesystem::exists(pvd_, error)) entries_ = parse(detail::read_file(pvd_), pvd_.string());
}

void PvdSeries::keep_until(double time) {
  const std::size_t before = entries_.size();
  entries_.erase(std::remove_if(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.time > time; }),
                 entries_.end());
  if (entries_.size() != before) write();
}

void PvdSeries::add(double time, const std::filesystem::path& vtu) {
  std::error_code error;
  const std::filesystem::path folder = std::filesystem::absolute(pvd_, error).parent_path();
  std::filesystem::path stored = std::filesystem::absolute(vtu, error);
  const std::filesystem::path relative = stored.lexically_normal().lexically_relative(folder.lexically_normal());
  if (!relative.empty()) stored = relative;

  entries_.erase(std::remove_if(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.time >= time; }),
                 entries_.end());
  entries_.push_back({time, stored});
  write();
}

void PvdSeries::write() const {
  std::string text =
      "<?xml version=\"1.0\"?>\n"
      "<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
      "  <Collection>\n";
  for (const Entry& entry : entries_) {
    text += "    <DataSet timestep=\"" + detail::format_double(entry.time) + "\" group=\"\" part=\"0\" file=\"" +
            escape(entry.file.generic_string()) + "\"/>\n";
  }
  text += "  </Collection>\n</VTKFile>\n";
  detail::write_file_atomically(pvd_, text);
}

}  // namespace rtdg::output
