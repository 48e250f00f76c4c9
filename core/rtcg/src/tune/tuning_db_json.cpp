#include "tune/tuning_db_json.hpp"

#include <rtcg/error.hpp>

namespace rtcg::tune::detail {

using nlohmann::json;

namespace {

json point_json(const Point& point) {
  json result = json::object();
  for (const auto& [name, value] : point) result[name] = value;
  return result;
}

Point point_from(const json& j) {
  Point point;
  for (const auto& [name, value] : j.items()) point[name] = value.get<std::int64_t>();
  return point;
}

json device_json(const DeviceFingerprint& d) {
  return {{"backend", d.backend},
          {"name", d.name},
          {"arch", d.arch},
          {"compute_capability_major", d.compute_capability_major},
          {"compute_capability_minor", d.compute_capability_minor},
          {"multiprocessors", d.multiprocessors},
          {"total_memory", d.total_memory},
          {"memory_clock_khz", d.memory_clock_khz},
          {"driver_version", d.driver_version}};
}

DeviceFingerprint device_from(const json& j) {
  DeviceFingerprint d;
  d.backend = j.at("backend").get<std::string>();
  d.name = j.at("name").get<std::string>();
  d.arch = j.at("arch").get<std::string>();
  d.compute_capability_major = j.at("compute_capability_major").get<int>();
  d.compute_capability_minor = j.at("compute_capability_minor").get<int>();
  d.multiprocessors = j.at("multiprocessors").get<int>();
  d.total_memory = j.at("total_memory").get<std::uint64_t>();
  d.memory_clock_khz = j.at("memory_clock_khz").get<int>();
  d.driver_version = j.at("driver_version").get<int>();
  return d;
}

json timing_json(const Timing& t) {
  json result = {{"point", point_json(t.point)}, {"status", t.status}};
  if (!t.reason.empty()) result["reason"] = t.reason;
  if (t.ok()) {
    result["times_ms"] = t.times_ms;
    result["median_ms"] = t.median_ms;
    result["min_ms"] = t.min_ms;
    result["max_ms"] = t.max_ms;
    result["spread"] = t.spread;
    result["stopped_early"] = t.stopped_early;
  }
  if (!t.kernels.empty()) {
    json kernels = json::array();
    for (const KernelUse& k : t.kernels)
      kernels.push_back({{"kernel", k.kernel},
                         {"registers", k.registers},
                         {"threads", k.threads},
                         {"shared_bytes", k.shared_bytes},
                         {"blocks_per_multiprocessor", k.blocks_per_multiprocessor}});
    result["kernels"] = kernels;
  }
  return result;
}

Timing timing_from(const json& j) {
  Timing t;
  t.point = point_from(j.at("point"));
  t.status = j.at("status").get<std::string>();
  t.reason = j.value("reason", std::string());
  if (t.ok()) {
    t.times_ms = j.at("times_ms").get<std::vector<double>>();
    t.median_ms = j.at("median_ms").get<double>();
    t.min_ms = j.at("min_ms").get<double>();
    t.max_ms = j.at("max_ms").get<double>();
    t.spread = j.at("spread").get<double>();
    t.stopped_early = j.value("stopped_early", false);
  }
  // Written before kernels' resources were recorded: none.
  if (const auto kernels = j.find("kernels"); kernels != j.end())
    for (const json& k : *kernels)
      t.kernels.push_back({k.at("kernel").get<std::string>(), k.value("registers", 0), k.value("threads", 0),
                           k.value("shared_bytes", std::size_t{0}), k.value("blocks_per_multiprocessor", 0)});
  return t;
}

}  // namespace

json to_json(const TuningRecord& record) {
  json timings = json::array();
  for (const auto& t : record.timings) timings.push_back(timing_json(t));
  return {{"device", device_json(record.device)},
          {"family", record.family},
          {"template_hash", record.template_hash},
          {"problem", {{"kind", record.problem.kind}, {"size_class", record.problem.size_class}}},
          {"winner", point_json(record.winner)},
          {"created", record.created},
          {"timings", timings}};
}

TuningRecord record_from_json(const json& j) {
  TuningRecord record;
  record.device = device_from(j.at("device"));
  record.family = j.at("family").get<std::string>();
  record.template_hash = j.at("template_hash").get<std::string>();
  record.problem.kind = j.at("problem").at("kind").get<std::string>();
  record.problem.size_class = j.at("problem").at("size_class").get<std::int64_t>();
  record.winner = point_from(j.at("winner"));
  record.created = j.value("created", std::string());
  for (const auto& t : j.at("timings")) record.timings.push_back(timing_from(t));
  return record;
}

std::string serialize(const std::vector<TuningRecord>& records) {
  json all = json::array();
  for (const auto& record : records) all.push_back(to_json(record));
  return json{{"schema", kTuningSchema}, {"records", all}}.dump(1) + "\n";
}

std::vector<TuningRecord> parse(const std::string& text) {
  const json document = json::parse(text);
  const auto schema = document.at("schema").get<std::string>();
  if (schema != kTuningSchema)
    throw Error("tuning database schema `" + schema + "` is not the supported `" + kTuningSchema + "`");
  std::vector<TuningRecord> records;
  for (const auto& record : document.at("records")) records.push_back(record_from_json(record));
  return records;
}

}  // namespace rtcg::tune::detail
