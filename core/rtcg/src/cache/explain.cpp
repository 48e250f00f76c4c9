#include "cache/explain.hpp"

#include <rtcg/hash.hpp>

#include <algorithm>
#include <map>
#include <utility>

namespace rtcg::cache_detail {
namespace {

constexpr std::size_t kMaxStemLength = 80;
constexpr std::size_t kMaxShownValue = 64;

bool stem_character(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '-';
}

bool shown_verbatim(std::string_view value) {
  return value.size() <= kMaxShownValue &&
         std::all_of(value.begin(), value.end(), [](char c) { return c >= 0x20 && c < 0x7f; });
}

// How a field reads in a table: the value itself when stored, else its digest and size.
std::string describe(const nlohmann::json& field) {
  if (field.contains("value") && field["value"].is_string()) {
    return "\"" + field["value"].get<std::string>() + "\"";
  }
  const auto sha = field.value("sha256", std::string());
  return "sha256 " + sha.substr(0, 16) + ", " +
         std::to_string(field.value("size", std::uint64_t{0})) + " bytes";
}

bool same_value(const nlohmann::json& a, const nlohmann::json& b) {
  return a.value("sha256", std::string()) == b.value("sha256", std::string()) &&
         a.value("size", std::uint64_t{0}) == b.value("size", std::uint64_t{0});
}

const nlohmann::json& fields_of(const nlohmann::json& record, const char* which) {
  static const nlohmann::json none = nlohmann::json::array();
  if (!record.is_object() || !record.contains(which)) return none;
  const auto& snapshot = record[which];
  if (!snapshot.is_object() || !snapshot.contains("fields") || !snapshot["fields"].is_array())
    return none;
  return snapshot["fields"];
}

}  // namespace

std::string explain_file_stem(std::string_view name) {
  std::string stem;
  for (const char c : name) stem.push_back(stem_character(c) ? c : '_');
  if (!stem.empty() && stem.front() == '.') stem.front() = '_';  // no hidden files, no ".."
  if (stem == name && !stem.empty() && stem.size() <= kMaxStemLength) return stem;
  stem.resize(std::min(stem.size(), kMaxStemLength));
  return stem + "-" + Sha256::hex(name).substr(0, 8);
}

nlohmann::json explain_snapshot(const std::string& digest, const CacheKey& key,
                                double unix_seconds) {
  auto fields = nlohmann::json::array();
  for (const auto& field : key.fields()) {
    nlohmann::json entry = {
        {"label", field.label}, {"sha256", Sha256::hex(field.value)}, {"size", field.value.size()}};
    if (shown_verbatim(field.value)) entry["value"] = field.value;
    fields.push_back(std::move(entry));
  }
  return {{"digest", digest}, {"time", unix_seconds}, {"fields", std::move(fields)}};
}

nlohmann::json next_explain_record(const std::string& name, nlohmann::json snapshot,
                                   const nlohmann::json& old_record) {
  nlohmann::json previous = nullptr;
  if (old_record.is_object() && old_record.contains("current") &&
      old_record["current"].is_object()) {
    previous = old_record["current"];
  }
  return {{"name", name}, {"current", std::move(snapshot)}, {"previous", std::move(previous)}};
}

std::vector<ExplainField> compare_explain_record(const nlohmann::json& record) {
  const auto& current = fields_of(record, "current");
  const auto& previous = fields_of(record, "previous");
  // (label, occurrence) -> index in previous; entries are erased as they are paired.
  std::map<std::pair<std::string, int>, std::size_t> unpaired;
  std::map<std::string, int> seen;
  for (std::size_t i = 0; i < previous.size(); ++i) {
    const auto label = previous[i].value("label", std::string());
    unpaired[{label, seen[label]++}] = i;
  }
  seen.clear();
  std::vector<ExplainField> result;
  for (const auto& field : current) {
    const auto label = field.value("label", std::string());
    ExplainField line{label, "", describe(field), true};
    if (const auto match = unpaired.find({label, seen[label]++}); match != unpaired.end()) {
      const auto& old = previous[match->second];
      line.previous = describe(old);
      line.changed = !same_value(old, field);
      unpaired.erase(match);
    }
    result.push_back(std::move(line));
  }
  // Fields the previous compile had and this one does not, in their old order.
  std::vector<std::size_t> gone;
  for (const auto& [label_occurrence, index] : unpaired) gone.push_back(index);
  std::sort(gone.begin(), gone.end());
  for (const auto index : gone) {
    result.push_back(ExplainField{previous[index].value("label", std::string()),
                                  describe(previous[index]), "", true});
  }
  return result;
}

}  // namespace rtcg::cache_detail
