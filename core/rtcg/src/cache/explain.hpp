// Explain records: for each program name, the key fields of its last compile and of the one
// before, so `rtdg cache explain NAME` can say which field caused a recompile. Stored as
// <dir>/explain/<file stem>.json:
//
//   {"name": "axpy_f64",
//    "current":  {"digest": "<key>", "time": <unix seconds>,
//                 "fields": [{"label": "option", "sha256": "<hex>", "size": 4, "value": "-O3"}]},
//    "previous": <same shape> or null}
//
// Values are kept only as a digest and a size (sources can be large), plus the value itself
// when it is short and printable (options, targets), which is what a reader wants to see.
#pragma once

#include <rtcg/cache.hpp>

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace rtcg::cache_detail {

// A file stem for `name`: the name itself when it is made of [A-Za-z0-9._-] (not starting
// with '.') and short; otherwise a sanitised form plus 8 hex of its SHA-256, so names that
// sanitise alike still get different files.
std::string explain_file_stem(std::string_view name);

// The snapshot of one compile: key digest, time, fields.
nlohmann::json explain_snapshot(const std::string& digest, const CacheKey& key,
                                double unix_seconds);

// The record to write after a compile of `name`: `snapshot` becomes current, the old record's
// current becomes previous. `old_record` may be null or malformed (then there is no previous).
nlohmann::json next_explain_record(const std::string& name, nlohmann::json snapshot,
                                   const nlohmann::json& old_record);

// Fields of a record's current snapshot beside its previous one. Fields are paired by label
// and occurrence (the second "option" with the second "option"), so repeated labels line up.
std::vector<ExplainField> compare_explain_record(const nlohmann::json& record);

}  // namespace rtcg::cache_detail
