// JSON forms of the tuning database's records (nlohmann_json). Private to src/tune.
#pragma once

#include <rtcg/tuning_db.hpp>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace rtcg::tune::detail {

inline constexpr const char* kTuningSchema = "rtdg-tuning-1";

nlohmann::json to_json(const TuningRecord& record);
// Throws nlohmann::json::exception (or rtcg::Error) for a malformed record.
TuningRecord record_from_json(const nlohmann::json& json);

// The whole file: {"schema": ..., "records": [...]}. parse throws on a malformed document.
std::string serialize(const std::vector<TuningRecord>& records);
std::vector<TuningRecord> parse(const std::string& text);

}  // namespace rtcg::tune::detail
