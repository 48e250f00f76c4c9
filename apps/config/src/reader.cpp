// Reads a run config: the file's TOML through toml++, the --set overrides merged into it,
// then every table checked against the schema (docs/config.md), collecting every problem with
// its location before throwing.
#include "config/run_config.hpp"

#include "dg/element.hpp"
#include "toml_prescan.hpp"  // fluxes' guard against toml++ 3.3's undefined behaviour
#include "toml_text.hpp"

#include <toml++/toml.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fluxes/text_file.hpp>
#include <fstream>
#include <vector>
#include <set>
#include <iterator>
#include <system_error>
#include <utility>

namespace rtdg::config {

namespace {

namespace fs = std::filesystem;
using fluxes::Location;

using Names = std::vector<std::string_view>;

const Names top_tables = {"run",    "law",      "mesh",   "discretization", "time", "boundary",
                              "initial", "incident", "output", "checkpoint",     "probe", "farfield", "stabilization"};
const Names run_keys = {"name",          "backend",       "precision", "output_dir",
                        "progress_every", "blowup_factor", "overlap",   "plan"};
const Names law_keys = {"file", "parameters"};
const Names mesh_keys = {"file", "parameters", "periodic"};
const Names discretization_keys = {"order"};
const Names time_keys = {"final", "cfl", "dt", "dt_update_every", "integrator", "allow_unstable", "max_steps"};
const Names initial_keys = {"condition"};
const Names incident_keys = {"kind",     "direction",    "polarization", "wavenumber", "amplitude",
                                 "envelope", "ramp_periods", "pulse_width",  "pulse_delay", "phase_origin",
                                 "total_field", "total_field_min", "total_field_max", "total_field_group"};
const Names farfield_keys = {"surface", "box_min", "box_max", "group", "frequencies", "every", "start", "angles", "grid"};
const Names output_keys = {"interval", "vtu", "hdf5", "error", "max_snapshots"};
const Names checkpoint_keys = {"interval", "keep"};
const Names probe_keys = {"name", "points", "fields", "every"};
const Names stabilization_keys = {"filter_strength", "filter_order", "filter_cutoff", "positive", "positivity_floor"};

// The table each key of the schema belongs to, for the hint on a key written above every
// table header.
struct KeyHome {
  std::string_view table;
  const Names* keys;
};
const std::array<KeyHome, 9> key_homes = {{{"run", &run_keys},
                                           {"discretization", &discretization_keys},
                                           {"time", &time_keys},
                                           {"initial", &initial_keys},
                                           {"incident", &incident_keys},
                                           {"output", &output_keys},
                                           {"checkpoint", &checkpoint_keys},
                                           {"probe", &probe_keys},
                                           {"farfield", &farfield_keys}}};

std::string join(const Names& names) {
  std::string text;
  for (auto n : names) text += (text.empty() ? "" : ", ") + std::string(n);
  return text;
}

bool contains(const Names& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0U : 1U)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

// " (did you mean 'x'?)" for the closest name within two edits, or "".
std::string suggestion(std::string_view wrong, const Names& names) {
  std::string_view best;
  std::size_t best_distance = 3;
  for (auto n : names) {
    const std::size_t d = edit_distance(wrong, n);
    if (d < best_distance && d < n.size()) {
      best = n;
      best_distance = d;
    }
  }
  return best.empty() ? std::string() : " (did you mean '" + std::string(best) + "'?)";
}

std::string type_name(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::table: return "a table";
    case toml::node_type::array: return "an array";
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a floating-point number";
    case toml::node_type::boolean: return "a boolean";
    case toml::node_type::date: return "a date";
    case toml::node_type::time: return "a time";
    case toml::node_type::date_time: return "a date-time";
    default: return "nothing";
  }
}

std::string number_text(double value) { return detail::toml_float(value); }

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  const auto last = s.find_last_not_of(" \t");
  return s.substr(first, last - first + 1);
}

// The first '=' outside quotes (a quoted key may contain one).
std::size_t find_equals(std::string_view text) {
  char quote = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quote != 0) {
      if (c == '\\' && quote == '"') {
        ++i;
      } else if (c == quote) {
        quote = 0;
      }
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '=') {
      return i;
    }
  }
  return std::string_view::npos;
}

// Parses TOML text that passed fluxes' hazard scan; nullopt with the reason otherwise.
std::optional<toml::table> try_parse(const std::string& text, const std::string& source, std::string& problem) {
  if (const auto hazard = fluxes::detail::find_toml_hazard(text)) {
    problem = hazard->message;
    return std::nullopt;
  }
  try {
    return toml::parse(text, std::string_view(source));
  } catch (const toml::parse_error& e) {
    problem = std::string(e.description());
    return std::nullopt;
  }
}

// Puts the override's values into the file's tables. A table written with dotted keys merges
// into the table of the same name; any other value (inline tables and arrays included)
// replaces what was there. Nodes keep their source region, whose path names the override.
void merge(toml::table& into, toml::table& from) {
  for (auto&& [key, value] : from) {
    toml::table* sub = value.as_table();
    toml::node* existing = into.get(key.str());
    if (sub != nullptr && !sub->is_inline() && existing != nullptr && existing->is_table()) {
      merge(*existing->as_table(), *sub);
      continue;
    }
    into.insert_or_assign(key, std::move(value));
  }
}

// Written as a decimal number is (digits, signs, points, exponents, underscores), starting as
// one does: a digit, or a sign or point followed by one. "2d" is a word, "1e400" a number.
bool looks_numeric(const std::string& value) {
  const auto digit = [](char c) { return c >= '0' && c <= '9'; };
  if (!std::all_of(value.begin(), value.end(), [&](char c) { return digit(c) || std::strchr("+-._eE", c) != nullptr; }))
    return false;
  std::size_t at = value[0] == '+' || value[0] == '-' ? 1 : 0;
  if (at < value.size() && value[at] == '.') ++at;
  return at < value.size() && digit(value[at]);
}

// A decimal number strtod reads whole but only as an overflow (1e400) or underflow (1e-400).
bool is_out_of_range(const std::string& value) {
  std::string plain;
  for (const char c : value)
    if (c != '_') plain.push_back(c);
  errno = 0;
  char* end = nullptr;
  (void)std::strtod(plain.c_str(), &end);
  return end == plain.c_str() + plain.size() && errno == ERANGE;
}

// toml++ says "'1e400' could not be interpreted as a value" for a number beyond a double's
// range: say which limit it is.
std::string range_hint(std::string_view description) {
  const auto open = description.find('\'');
  const auto close = open == std::string_view::npos ? open : description.find('\'', open + 1);
  if (close == std::string_view::npos) return {};
  const std::string quoted(description.substr(open + 1, close - open - 1));
  return !quoted.empty() && looks_numeric(quoted) && is_out_of_range(quoted)
             ? " (beyond the range of a double, about 1e-308 to 1.8e308 in magnitude)"
             : std::string();
}

enum class Sign { any, positive, nonnegative };

class Reader {
public:
  Reader(std::string_view text, const fs::path& file, const std::vector<std::string>& overrides)
      : text_(text), overrides_(overrides) {
    config_.file = file;
    display_ = file.empty() ? std::string("<config>") : file.string();
  }

  RunConfig read() {
    toml::table root = parse_file();
    for (std::size_t i = 0; i < overrides_.size(); ++i) apply_override(root, overrides_[i], i);
    check_top_level(root);
    read_run(table(root, "run"));
    read_law(root);
    read_mesh(root);
    read_discretization(table(root, "discretization"));
    read_time(root);
    read_boundary(table(root, "boundary"));
    read_initial(table(root, "initial"));
    read_incident(table(root, "incident"));
    read_output(table(root, "output"));
    read_checkpoint(table(root, "checkpoint"));
    read_stabilization(table(root, "stabilization"));
    read_probes(root);
    read_farfield(table(root, "farfield"));
    if (!diagnostics_.empty()) throw Error(diagnostics_);
    config_.effective_toml = detail::effective_toml(config_);
    return std::move(config_);
  }

private:
  // ----- locations and messages ---------------------------------------------------------
  Location at(const toml::source_region& region) const {
    if (region.path && *region.path != display_) return Location{*region.path, 0, 0};
    return Location{display_, static_cast<int>(region.begin.line), static_cast<int>(region.begin.column)};
  }
  Location at(const toml::node& node) const { return at(node.source()); }
  Location at(const toml::key& key) const { return at(key.source()); }

  void error(Location where, std::string message) {
    // Something of the file without a position (an implicit table): its start.
    if (where.file == display_ && where.line == 0) where = Location{display_, 1, 1};
    diagnostics_.push_back(fluxes::Diagnostic{std::move(where), std::move(message)});
  }

  // 0 for the file, 1 + i for the i-th override: keys are taken in the order written, the
  // file's first.
  std::size_t rank(const toml::source_region& region) const {
    if (!region.path || *region.path == display_) return 0;
    for (std::size_t i = 0; i < override_labels_.size(); ++i) {
      if (*region.path == override_labels_[i]) return i + 1;
    }
    return override_labels_.size() + 1;
  }

  using Entry = std::pair<const toml::key*, const toml::node*>;

  // A table's entries in the order written (toml++ keeps them sorted by key).
  std::vector<Entry> ordered(const toml::table& table) const {
    std::vector<Entry> entries;
    for (const auto& [key, node] : table) entries.emplace_back(&key, &node);
    std::stable_sort(entries.begin(), entries.end(), [this](const Entry& a, const Entry& b) {
      const auto& sa = a.first->source();
      const auto& sb = b.first->source();
      const std::size_t ra = rank(sa);
      const std::size_t rb = rank(sb);
      if (ra != rb) return ra < rb;
      return sa.begin.line != sb.begin.line ? sa.begin.line < sb.begin.line : sa.begin.column < sb.begin.column;
    });
    return entries;
  }

  void note(const std::string& dotted, const toml::node& node) { config_.locations[dotted] = at(node); }

  // ----- the file and the overrides -------------------------------------------------------
  toml::table parse_file() {
    std::string_view text = text_;
    if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);  // a UTF-8 byte order mark
    if (const auto hazard = fluxes::detail::find_toml_hazard(text)) {
      throw Error(Location{display_, hazard->where.line, hazard->where.column}, "invalid TOML: " + hazard->message);
    }
    try {
      return toml::parse(text, std::string_view(display_));
    } catch (const toml::parse_error& e) {
      const auto& begin = e.source().begin;
      throw Error(Location{display_, static_cast<int>(begin.line), static_cast<int>(begin.column)},
                  "invalid TOML: " + std::string(e.description()) + range_hint(e.description()));
    }
  }

  void apply_override(toml::table& root, const std::string& text, std::size_t index) {
    const std::string label = "--set " + text;
    override_labels_.resize(index + 1);
    override_labels_[index] = label;
    const Location where{label, 0, 0};
    if (text.find_first_of("\r\n") != std::string::npos) {
      error(where, "an override must be one line");
      return;
    }
    const std::size_t equals = find_equals(text);
    if (equals == std::string::npos) {
      error(where, "expected key=value, e.g. --set discretization.order=4");
      return;
    }
    const std::string key(trim(std::string_view(text).substr(0, equals)));
    const std::string value(trim(std::string_view(text).substr(equals + 1)));
    if (key.empty()) {
      error(where, "no key before '=' (expected key=value, e.g. --set discretization.order=4)");
      return;
    }
    if (value.empty()) {
      error(where, "no value after '=' (a string is written --set key=word or --set 'key=\"any text\"')");
      return;
    }
    std::string problem;
    if (!try_parse(key + " = 0", label, problem)) {
      error(where, "invalid key '" + key + "': " + problem);
      return;
    }
    auto parsed = try_parse(key + " = " + value, label, problem);
    if (!parsed) {
      if (value.front() == '"' || value.front() == '\'' || value.front() == '[' || value.front() == '{') {
        error(where, "invalid TOML value '" + value + "': " + problem);
        return;
      }
      // A value that reads as a number to a person (1e400, 1.5.2, 0x1p3) is not taken for a
      // string: that would only be refused later as "got a string".
      if (looks_numeric(value)) {
        error(where, "'" + value + "' is not a number TOML can hold" +
                         (is_out_of_range(value) ? " (beyond the range of a double, about 1e-308 to 1.8e308 in magnitude)" : "") +
                         ": " + problem + "; a string is written --set 'key=\"" + value + "\"'");
        return;
      }
      parsed = try_parse(key + " = " + detail::toml_string(value), label, problem);  // a bare word: a string
      if (!parsed) {
        error(where, "invalid value '" + value + "': " + problem);
        return;
      }
    }
    merge(root, *parsed);
  }

  // ----- generic readers ----------------------------------------------------------------
  // Reports the keys of `table` that are not in `valid`; `label` is "[discretization]".
  void check_keys(const toml::table& table, const std::string& label, const Names& valid) {
    for (const auto& [key, node] : ordered(table)) {
      if (contains(valid, key->str())) continue;
      error(at(*key), "unknown key '" + std::string(key->str()) + "' in " + label + suggestion(key->str(), valid) +
                          "; valid keys: " + join(valid));
    }
  }

  // The table at parent[key] (dotted: its full name), or nullptr when absent or not a table.
  const toml::table* table(const toml::table& parent, std::string_view key, const std::string& dotted) {
    const toml::node* node = parent.get(key);
    if (node == nullptr) return nullptr;
    note(dotted, *node);
    if (const toml::table* t = node->as_table()) return t;
    error(at(*node), "'" + dotted + "' must be a table ([" + dotted + "]); got " + type_name(*node));
    return nullptr;
  }
  const toml::table* table(const toml::table& root, std::string_view name) {
    return table(root, name, std::string(name));
  }

  // Location for "missing key" messages: the table if there is one, else the file's start.
  Location missing_at(const toml::table* table) const {
    return table != nullptr ? at(*table) : Location{display_, 1, 1};
  }

  const toml::node* get(const toml::table* table, std::string_view key, const std::string& dotted) {
    if (table == nullptr) return nullptr;
    const toml::node* node = table->get(key);
    if (node != nullptr) note(dotted, *node);
    return node;
  }

  std::optional<std::string> string_value(const toml::node& node, const std::string& dotted) {
    if (const auto* s = node.as_string()) return s->get();
    error(at(node), "'" + dotted + "' must be a string; got " + type_name(node));
    return std::nullopt;
  }

  void read_string(const toml::table* table, std::string_view key, const std::string& dotted, std::string& out) {
    if (const toml::node* node = get(table, key, dotted)) {
      if (auto s = string_value(*node, dotted)) out = *s;
    }
  }

  void read_choice(const toml::table* table, std::string_view key, const std::string& dotted, const Names& choices,
                   std::string& out) {
    const toml::node* node = get(table, key, dotted);
    if (node == nullptr) return;
    const auto s = string_value(*node, dotted);
    if (!s) return;
    if (!contains(choices, *s)) {
      error(at(*node), "'" + dotted + "' must be one of " + join(choices) + "; got \"" + *s + "\"" +
                           suggestion(*s, choices));
      return;
    }
    out = *s;
  }

  void read_bool(const toml::table* table, std::string_view key, const std::string& dotted, bool& out) {
    const toml::node* node = get(table, key, dotted);
    if (node == nullptr) return;
    if (const auto* b = node->as_boolean()) {
      out = b->get();
    } else {
      error(at(*node), "'" + dotted + "' must be true or false; got " + type_name(*node));
    }
  }

  std::optional<double> number_value(const toml::node& node, const std::string& dotted, Sign sign) {
    std::optional<double> value;
    if (const auto* f = node.as_floating_point()) {
      value = f->get();
    } else if (const auto* i = node.as_integer()) {
      value = static_cast<double>(i->get());
    }
    const char* requirement = sign == Sign::positive ? " greater than 0" : sign == Sign::nonnegative ? " >= 0" : "";
    if (!value) {
      error(at(node), "'" + dotted + "' must be a number" + requirement + "; got " + type_name(node));
      return std::nullopt;
    }
    if (!std::isfinite(*value)) {
      error(at(node), "'" + dotted + "' must be a finite number" + requirement);
      return std::nullopt;
    }
    if ((sign == Sign::positive && !(*value > 0)) || (sign == Sign::nonnegative && !(*value >= 0))) {
      error(at(node), "'" + dotted + "' must be a number" + requirement + "; got " + number_text(*value));
      return std::nullopt;
    }
    return value;
  }

  void read_number(const toml::table* table, std::string_view key, const std::string& dotted, Sign sign,
                   double& out) {
    if (const toml::node* node = get(table, key, dotted)) {
      if (auto v = number_value(*node, dotted, sign)) out = *v;
    }
  }

  std::optional<int> integer_value(const toml::node& node, const std::string& dotted, long long min, long long max) {
    const std::string range = max == INT_MAX ? " >= " + std::to_string(min)
                                             : " from " + std::to_string(min) + " to " + std::to_string(max);
    std::optional<long long> value;
    bool integral = true;
    if (const auto* i = node.as_integer()) {
      value = i->get();
    } else if (const auto* f = node.as_floating_point()) {
      const double d = f->get();
      if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 1e15) {
        value = static_cast<long long>(d);
      } else {
        integral = false;
      }
    }
    if (!value) {
      error(at(node), "'" + dotted + "' must be an integer" + range + "; got " +
                          (integral ? type_name(node) : number_text(node.as_floating_point()->get())));
      return std::nullopt;
    }
    if (*value < min || *value > max) {
      error(at(node), "'" + dotted + "' must be an integer" + range + "; got " + std::to_string(*value));
      return std::nullopt;
    }
    return static_cast<int>(*value);
  }

  void read_integer(const toml::table* table, std::string_view key, const std::string& dotted, long long min,
                    long long max, int& out) {
    if (const toml::node* node = get(table, key, dotted)) {
      if (auto v = integer_value(*node, dotted, min, max)) out = *v;
    }
  }

  // [x, y] or [x, y, z] (z = 0 when left out).
  std::optional<std::array<double, 3>> point_value(const toml::node& node, const std::string& dotted,
                                                   const std::string& example) {
    const toml::array* a = node.as_array();
    if (a == nullptr || a->size() < 2 || a->size() > 3) {
      error(at(node), "'" + dotted + "' must be an array of 2 or 3 numbers, e.g. " + example + "; got " +
                          (a == nullptr ? type_name(node) : "an array of " + std::to_string(a->size())));
      return std::nullopt;
    }
    std::array<double, 3> p{0, 0, 0};
    bool ok = true;
    for (std::size_t i = 0; i < a->size(); ++i) {
      if (auto v = number_value(*a->get(i), dotted + "[" + std::to_string(i) + "]", Sign::any)) {
        p[i] = *v;
      } else {
        ok = false;
      }
    }
    if (!ok) return std::nullopt;
    return p;
  }

  // A unit vector in the direction of `node`; an error for the zero vector. A vector already
  // of unit length (to rounding) is kept as it is, so the effective config reads back to the
  // same numbers.
  std::optional<std::array<double, 3>> direction_value(const toml::node& node, const std::string& dotted) {
    auto v = point_value(node, dotted, "[1, 0, 0]");
    if (!v) return std::nullopt;
    const double norm = std::hypot((*v)[0], (*v)[1], (*v)[2]);
    if (!(norm > 0) || !std::isfinite(norm)) {
      error(at(node), "'" + dotted + "' must be a nonzero vector");
      return std::nullopt;
    }
    if (std::fabs(norm - 1.0) > 4e-16) {
      for (double& x : *v) x /= norm;
    }
    return v;
  }

  // law.file and mesh.file: resolved against the config file's folder, absolute.
  std::optional<fs::path> file_value(const toml::table* table, std::string_view key, const std::string& dotted,
                                     const std::string& what) {
    const toml::node* node = get(table, key, dotted);
    if (node == nullptr) {
      error(missing_at(table), "missing '" + dotted + "': the " + what);
      return std::nullopt;
    }
    const auto written = string_value(*node, dotted);
    if (!written) return std::nullopt;
    if (written->empty()) {
      error(at(*node), "'" + dotted + "' must not be empty");
      return std::nullopt;
    }
    fs::path path(*written);
    if (path.is_relative()) path = config_.file.parent_path() / path;
    std::error_code ec;
    fs::path absolute = fs::absolute(path, ec);
    if (!ec) path = absolute;
    path = path.lexically_normal();
    const fs::file_status status = fs::status(path, ec);
    if (!fs::exists(status)) {
      error(at(*node), what + " not found: " + path.string() +
                           (fs::path(*written).is_relative() ? " ('" + *written + "' relative to the config file's folder)" : ""));
      return std::nullopt;
    }
    if (fs::is_directory(status)) {
      error(at(*node), "'" + dotted + "' names a folder, not a file: " + path.string());
      return std::nullopt;
    }
    return path;
  }

  // ----- the tables -------------------------------------------------------------------------
  void check_top_level(const toml::table& root) {
    for (const auto& [key, node] : ordered(root)) {
      const std::string_view name = key->str();
      if (contains(top_tables, name)) continue;
      if (node->is_table() || node->is_array_of_tables()) {
        error(at(*key), "unknown table [" + std::string(name) + "]" + suggestion(name, top_tables) +
                            "; valid tables: " + join(top_tables));
        continue;
      }
      std::string home;
      for (const auto& h : key_homes) {
        if (contains(*h.keys, name)) home += (home.empty() ? "" : " or ") + ("[" + std::string(h.table) + "]");
      }
      error(at(*key), "unknown key '" + std::string(name) + "' at the top level" +
                          (home.empty() ? std::string() : " (it belongs in " + home + ")") +
                          "; keys belong in the tables " + join(top_tables));
    }
  }

  void read_run(const toml::table* run) {
    if (run != nullptr) check_keys(*run, "[run]", run_keys);
    const std::string stem = config_.file.stem().string();
    config_.name = stem.empty() ? "run" : stem;
    if (const toml::node* node = get(run, "name", "run.name")) {
      if (auto s = string_value(*node, "run.name")) {
        const bool bad = s->empty() || *s == "." || *s == ".." ||
                         std::any_of(s->begin(), s->end(), [](char c) {
                           return c == '/' || c == '\\' || static_cast<unsigned char>(c) < 0x20 || c == 0x7F;
                         });
        if (bad) {
          error(at(*node), "'run.name' names the run and its output folder: it must not be empty, '.' or '..', "
                           "nor contain '/', '\\' or control characters");
        } else {
          config_.name = *s;
        }
      }
    }
    read_choice(run, "backend", "run.backend", {"auto", "cuda", "host"}, config_.backend);
    read_choice(run, "precision", "run.precision", {"float", "double"}, config_.precision);
    config_.output_dir = fs::path("output") / config_.name;
    if (const toml::node* node = get(run, "output_dir", "run.output_dir")) {
      if (auto s = string_value(*node, "run.output_dir")) {
        if (s->empty()) {
          error(at(*node), "'run.output_dir' must not be empty (\".\" is the current folder)");
        } else {
          config_.output_dir = *s;
        }
      }
    }
    read_integer(run, "progress_every", "run.progress_every", 0, INT_MAX, config_.progress_every);
    read_number(run, "blowup_factor", "run.blowup_factor", Sign::nonnegative, config_.blowup_factor);
    read_bool(run, "overlap", "run.overlap", config_.overlap);
    // run.plan's words are checked by the runner (runner::load_problem), which has the solver.
    read_string(run, "plan", "run.plan", config_.plan);
  }

  void read_law(const toml::table& root) {
    const toml::table* law = table(root, "law");
    if (law == nullptr) {
      if (root.get("law") == nullptr) {
        error(Location{display_, 1, 1},
              "missing [law]: law.file names the conservation law, e.g. file = \"../laws/maxwell3d.toml\"");
      }
      return;
    }
    check_keys(*law, "[law]", law_keys);
    if (auto path = file_value(law, "file", "law.file", "law file")) config_.law_file = *path;
    if (const toml::table* parameters = table(*law, "parameters", "law.parameters")) {
      for (const auto& [key, node] : ordered(*parameters)) {
        const std::string dotted = "law.parameters." + std::string(key->str());
        note(dotted, *node);
        if (key->str() == "region") {
          read_region_parameters(*node, dotted);
          continue;
        }
        if (auto v = number_value(*node, dotted, Sign::any)) {
          config_.law_parameters.push_back(fluxes::ParameterOverride{std::string(key->str()), *v, at(*node)});
        }
      }
    }
  }

  // [law.parameters.region.<region>] name = number, one table per mesh region.
  void read_region_parameters(const toml::node& node, const std::string& dotted) {
    const toml::table* regions = node.as_table();
    if (regions == nullptr) {
      error(at(node), "'" + dotted + "' must be a table of regions, e.g. [law.parameters.region.dielectric] eps = 4");
      return;
    }
    for (const auto& [region, values] : ordered(*regions)) {
      const std::string region_dotted = dotted + "." + std::string(region->str());
      const toml::table* table = values->as_table();
      if (table == nullptr) {
        error(at(*values), "'" + region_dotted + "' must be a table of parameter values, e.g. eps = 4");
        continue;
      }
      for (const auto& [key, value] : ordered(*table)) {
        const std::string value_dotted = region_dotted + "." + std::string(key->str());
        note(value_dotted, *value);
        if (auto v = number_value(*value, value_dotted, Sign::any)) {
          config_.region_parameters.push_back(
              RunConfig::RegionParameter{std::string(region->str()), at(*region),
                                         fluxes::ParameterOverride{std::string(key->str()), *v, at(*value)}});
        }
      }
    }
  }

  void read_mesh(const toml::table& root) {
    const toml::table* mesh = table(root, "mesh");
    if (mesh == nullptr) {
      if (root.get("mesh") == nullptr) {
        error(Location{display_, 1, 1},
              "missing [mesh]: mesh.file names a .geo, .msh or .h5 file, e.g. file = \"../geometries/sphere.geo\"");
      }
      return;
    }
    check_keys(*mesh, "[mesh]", mesh_keys);
    std::string extension;
    if (auto path = file_value(mesh, "file", "mesh.file", "mesh file")) {
      extension = path->extension().string();
      std::transform(extension.begin(), extension.end(), extension.begin(),
                     [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; });
      if (extension != ".geo" && extension != ".msh" && extension != ".h5" && extension != ".hdf5") {
        error(config_.where("mesh.file"), "unknown mesh file type '" + extension +
                                              "'; rtdg reads .geo (meshed by Gmsh), .msh and .h5 (written by rtdg mesh)");
        extension.clear();
      }
      config_.mesh_file = *path;
    }
    const bool hdf5 = extension == ".h5" || extension == ".hdf5";
    if (const toml::table* parameters = table(*mesh, "parameters", "mesh.parameters")) {
      for (const auto& [key, node] : ordered(*parameters)) {
        const std::string dotted = "mesh.parameters." + std::string(key->str());
        note(dotted, *node);
        if (auto v = number_value(*node, dotted, Sign::any)) config_.mesh_parameters[std::string(key->str())] = *v;
      }
      if (hdf5 && !parameters->empty()) {
        error(at(*parameters), "mesh parameters apply to .geo files; an .h5 mesh is final (set them when writing "
                               "it: rtdg mesh in.geo -D name=value -o mesh.h5)");
      }
    }
    if (const toml::node* node = get(mesh, "periodic", "mesh.periodic")) {
      read_periodic(*node);
      if (hdf5) {
        error(at(*node), "periodic pairs apply to .geo and .msh files; an .h5 mesh is final (set them when writing "
                         "it: rtdg mesh in.geo --periodic a:b -o mesh.h5)");
      }
    }
  }

  void read_periodic(const toml::node& node) {
    static const std::string expected =
        "a pair of boundary group names, e.g. [\"xmin\", \"xmax\"], or { a = \"xmin\", b = \"xmax\", "
        "shift = [1, 0, 0] }";
    const toml::array* list = node.as_array();
    if (list == nullptr) {
      error(at(node), "'mesh.periodic' must be an array of pairs, e.g. [[\"xmin\", \"xmax\"]]; got " + type_name(node));
      return;
    }
    for (std::size_t i = 0; i < list->size(); ++i) {
      const toml::node& item = *list->get(i);
      const std::string dotted = "mesh.periodic[" + std::to_string(i) + "]";
      mesh::PeriodicNames pair;
      if (const toml::array* names = item.as_array()) {
        if (names->size() != 2 || !names->get(0)->is_string() || !names->get(1)->is_string()) {
          error(at(item), "'" + dotted + "' must be " + expected);
          continue;
        }
        pair.a = names->get(0)->as_string()->get();
        pair.b = names->get(1)->as_string()->get();
      } else if (const toml::table* t = item.as_table()) {
        check_keys(*t, "'" + dotted + "'", {"a", "b", "shift"});
        const toml::node* a = t->get("a");
        const toml::node* b = t->get("b");
        if (a == nullptr || b == nullptr) {
          error(at(item), "'" + dotted + "' needs both a and b, the two boundary groups");
          continue;
        }
        auto sa = string_value(*a, dotted + ".a");
        auto sb = string_value(*b, dotted + ".b");
        if (!sa || !sb) continue;
        pair.a = *sa;
        pair.b = *sb;
        if (const toml::node* shift = t->get("shift")) {
          auto s = point_value(*shift, dotted + ".shift", "[1, 0, 0]");
          if (!s) continue;
          pair.shift = *s;
        }
      } else {
        error(at(item), "'" + dotted + "' must be " + expected + "; got " + type_name(item));
        continue;
      }
      if (pair.a.empty() || pair.b.empty() || pair.a == pair.b) {
        error(at(item), "'" + dotted + "' must name two different boundary groups");
        continue;
      }
      config_.periodic.push_back(std::move(pair));
    }
  }

  void read_discretization(const toml::table* t) {
    if (t != nullptr) check_keys(*t, "[discretization]", discretization_keys);
    read_integer(t, "order", "discretization.order", dg::min_order, dg::max_order, config_.order);
  }

  void read_time(const toml::table& root) {
    const toml::table* t = table(root, "time");
    if (t != nullptr) check_keys(*t, "[time]", time_keys);
    if (t == nullptr || t->get("final") == nullptr) {
      if (t != nullptr || root.get("time") == nullptr) {
        error(missing_at(t), "missing 'time.final': the simulated time to reach (> 0)");
      }
    } else {
      read_number(t, "final", "time.final", Sign::positive, config_.final_time);
    }
    if (const toml::node* cfl = get(t, "cfl", "time.cfl")) {
      if (auto v = number_value(*cfl, "time.cfl", Sign::positive)) config_.cfl = *v;
    }
    if (const toml::node* dt = get(t, "dt", "time.dt")) {
      if (auto v = number_value(*dt, "time.dt", Sign::positive)) config_.dt = *v;
      if (t->get("cfl") != nullptr) {
        error(at(*dt), "give either 'time.cfl' or 'time.dt', not both (the step comes from one of them)");
      }
    }
    if (t == nullptr || (t->get("cfl") == nullptr && t->get("dt") == nullptr)) config_.cfl = 0.5;
    read_integer(t, "dt_update_every", "time.dt_update_every", 0, 1000000000, config_.dt_update_every);
    if (config_.dt_update_every > 0 && config_.dt) {
      if (const toml::node* every = get(t, "dt_update_every", "time.dt_update_every"))
        error(at(*every), "'time.dt_update_every' re-evaluates a cfl-based step, but 'time.dt' fixes the step; give "
                          "'time.cfl' instead of 'time.dt', or drop 'time.dt_update_every'");
    }
    read_choice(t, "integrator", "time.integrator", {"lserk4", "ssprk3"}, config_.integrator);
    read_bool(t, "allow_unstable", "time.allow_unstable", config_.allow_unstable);
    read_number(t, "max_steps", "time.max_steps", Sign::positive, config_.max_steps);
  }

  void read_boundary(const toml::table* t) {
    if (t == nullptr) return;
    for (const auto& [key, node] : ordered(*t)) {
      const std::string dotted = "boundary." + std::string(key->str());
      note(dotted, *node);
      const auto* s = node->as_string();
      if (s == nullptr || s->get().empty()) {
        error(at(*node), "'" + dotted + "' must name a boundary condition of the law, e.g. \"pec\"; got " +
                             (s == nullptr ? type_name(*node) : "an empty string"));
        continue;
      }
      config_.boundaries.push_back(BoundaryAssignment{std::string(key->str()), s->get(), at(*node), at(*key)});
    }
  }

  void read_initial(const toml::table* t) {
    if (t != nullptr) check_keys(*t, "[initial]", initial_keys);
    read_choice(t, "condition", "initial.condition", {"zero", "law"}, config_.initial);
  }

  void read_incident(const toml::table* t) {
    Incident& inc = config_.incident;
    inc.where = t != nullptr ? at(*t) : Location{display_, 0, 0};
    if (t == nullptr) return;
    check_keys(*t, "[incident]", incident_keys);
    read_choice(t, "kind", "incident.kind", {"none", "plane_wave"}, inc.kind);
    const toml::node* direction = get(t, "direction", "incident.direction");
    const toml::node* polarization = get(t, "polarization", "incident.polarization");
    bool vectors_ok = true;
    if (direction != nullptr) {
      if (auto v = direction_value(*direction, "incident.direction")) inc.direction = *v; else vectors_ok = false;
    }
    if (polarization != nullptr) {
      if (auto v = direction_value(*polarization, "incident.polarization")) inc.polarization = *v; else vectors_ok = false;
    }
    if (vectors_ok) {
      const auto& d = inc.direction;
      const auto& p = inc.polarization;
      const double dot = d[0] * p[0] + d[1] * p[1] + d[2] * p[2];
      if (!(std::fabs(dot) < 1e-9)) {
        const toml::node* blame = polarization != nullptr ? polarization : direction;
        error(blame != nullptr ? at(*blame) : at(*t),
              "'incident.polarization' (the direction of E) must be perpendicular to 'incident.direction'; their "
              "unit vectors have dot product " + number_text(dot));
      }
    }
    read_number(t, "wavenumber", "incident.wavenumber", Sign::positive, inc.wavenumber);
    read_number(t, "amplitude", "incident.amplitude", Sign::any, inc.amplitude);
    std::string envelope = std::string(to_string(inc.envelope));
    read_choice(t, "envelope", "incident.envelope", {"ramp", "gaussian"}, envelope);
    inc.envelope = envelope == "gaussian" ? Envelope::gaussian : Envelope::ramp;
    read_number(t, "ramp_periods", "incident.ramp_periods", Sign::positive, inc.ramp_periods);
    read_number(t, "pulse_width", "incident.pulse_width", Sign::nonnegative, inc.pulse_width);
    const bool delay_given = t->get("pulse_delay") != nullptr;
    read_number(t, "pulse_delay", "incident.pulse_delay", Sign::any, inc.pulse_delay);
    if (const toml::node* origin = get(t, "phase_origin", "incident.phase_origin")) {
      if (auto v = point_value(*origin, "incident.phase_origin", "[0, 0, 0]")) inc.phase_origin = *v;
    }
    read_choice(t, "total_field", "incident.total_field", {"none", "box", "region"}, inc.total_field);
    if (inc.total_field != "none" && inc.kind != "plane_wave")
      error(at(*t->get("total_field")), "'incident.total_field' needs an incident wave (kind = \"plane_wave\")");
    for (const auto& [key, out] : {std::pair<const char*, std::array<double, 3>*>{"total_field_min", &inc.total_field_min},
                                   {"total_field_max", &inc.total_field_max}}) {
      if (const toml::node* node = get(t, key, std::string("incident.") + key)) {
        if (auto v = point_value(*node, std::string("incident.") + key, "[-1, -1, -1]")) *out = *v;
        if (inc.total_field != "box")
          error(at(*node), std::string("'incident.") + key + "' is for total_field = \"box\"");
      } else if (inc.total_field == "box") {
        error(at(*t), std::string("[incident] total_field = \"box\" needs '") + key +
                          "' (the box's corners, [x, y] or [x, y, z]): elements whose centroid is inside carry the total field");
      }
    }
    if (inc.total_field == "box" && t->get("total_field_min") && t->get("total_field_max"))
      for (std::size_t d = 0; d < 3; ++d)
        if (!(inc.total_field_min[d] < inc.total_field_max[d]) &&
            !(d == 2 && inc.total_field_min[d] == 0 && inc.total_field_max[d] == 0)) {
          error(at(*t->get("total_field_max")),
                "'incident.total_field_max' must exceed 'incident.total_field_min' in every coordinate (a 2D box gives [x, y])");
          break;
        }
    read_string(t, "total_field_group", "incident.total_field_group", inc.total_field_group);
    if (inc.total_field == "region" && inc.total_field_group.empty())
      error(at(*t), "[incident] total_field = \"region\" needs 'total_field_group': the mesh region (physical group) "
                    "whose elements carry the total field");
    if (inc.total_field != "region" && !inc.total_field_group.empty())
      error(at(*t->get("total_field_group")), "'incident.total_field_group' is for total_field = \"region\"");
    if (inc.envelope == Envelope::gaussian) {
      if (inc.pulse_width == 0) inc.pulse_width = 2.0 / inc.wavenumber;
      if (!delay_given) inc.pulse_delay = 4.0 * inc.pulse_width;
    }
  }

  void read_farfield(const toml::table* t) {
    FarField& ff = config_.farfield;
    if (t == nullptr) return;
    ff.enabled = true;
    ff.where = at(*t);
    check_keys(*t, "[farfield]", farfield_keys);
    read_choice(t, "surface", "farfield.surface", {"box", "boundary", "region"}, ff.surface);
    for (const auto& [key, out] : {std::pair<const char*, std::array<double, 3>*>{"box_min", &ff.box_min}, {"box_max", &ff.box_max}}) {
      if (const toml::node* node = get(t, key, std::string("farfield.") + key)) {
        if (auto v = point_value(*node, std::string("farfield.") + key, "[-1, -1, -1]")) *out = *v;
      } else if (ff.surface == "box") {
        error(at(*t), std::string("[farfield] surface = \"box\" needs '") + key + "' (the box's corners, [x, y] or [x, y, z])");
      }
    }
    if (ff.surface == "box" && t->get("box_min") && t->get("box_max"))
      for (std::size_t d = 0; d < 3; ++d)
        if (!(ff.box_min[d] < ff.box_max[d]) && !(d == 2 && ff.box_min[d] == 0 && ff.box_max[d] == 0)) {
          error(at(*t->get("box_max")), "'farfield.box_max' must exceed 'farfield.box_min' in every coordinate (a 2D box gives [x, y])");
          break;
        }
    read_string(t, "group", "farfield.group", ff.group);
    if (ff.surface != "box" && ff.group.empty())
      error(at(*t), "[farfield] surface = \"" + ff.surface + "\" needs 'group': the mesh " +
                        (ff.surface == "boundary" ? "boundary group" : "region") + " whose faces form the surface");
    if (const toml::node* node = get(t, "frequencies", "farfield.frequencies")) {
      const toml::array* a = node->as_array();
      if (a == nullptr || a->empty()) {
        error(at(*node), "'farfield.frequencies' must be a nonempty array of positive numbers (cycles per unit time)");
      } else {
        for (std::size_t i = 0; i < a->size(); ++i)
          if (auto v = number_value(*a->get(i), "farfield.frequencies[" + std::to_string(i) + "]", Sign::positive)) ff.frequencies.push_back(*v);
      }
    }
    read_integer(t, "every", "farfield.every", 1, INT_MAX, ff.every);
    if (const toml::node* node = get(t, "start", "farfield.start")) {
      if (auto v = number_value(*node, "farfield.start", Sign::nonnegative)) ff.start = *v;
    }
    read_integer(t, "angles", "farfield.angles", 0, 100000, ff.angles);
    if (const toml::node* node = get(t, "grid", "farfield.grid")) {
      const toml::array* a = node->as_array();
      if (a == nullptr || a->size() != 2) {
        error(at(*node), "'farfield.grid' must be [n_theta, n_phi], two integers >= 2");
      } else {
        for (std::size_t i = 0; i < 2; ++i)
          if (auto v = integer_value(*a->get(i), "farfield.grid[" + std::to_string(i) + "]", 2, 100000)) ff.grid.push_back(*v);
      }
    }
  }

  void read_output(const toml::table* t) {
    if (t != nullptr) check_keys(*t, "[output]", output_keys);
    read_number(t, "interval", "output.interval", Sign::nonnegative, config_.output_interval);
    read_bool(t, "vtu", "output.vtu", config_.vtu);
    read_bool(t, "hdf5", "output.hdf5", config_.hdf5);
    read_bool(t, "error", "output.error", config_.error);
    read_number(t, "max_snapshots", "output.max_snapshots", Sign::positive, config_.max_snapshots);
  }

  void read_checkpoint(const toml::table* t) {
    if (t != nullptr) check_keys(*t, "[checkpoint]", checkpoint_keys);
    read_number(t, "interval", "checkpoint.interval", Sign::nonnegative, config_.checkpoint_interval);
    read_integer(t, "keep", "checkpoint.keep", 1, INT_MAX, config_.checkpoint_keep);
  }

  void read_stabilization(const toml::table* t) {
    if (t == nullptr) return;
    check_keys(*t, "[stabilization]", stabilization_keys);
    read_number(t, "filter_strength", "stabilization.filter_strength", Sign::nonnegative, config_.filter_strength);
    read_integer(t, "filter_order", "stabilization.filter_order", 1, 64, config_.filter_order);
    read_integer(t, "filter_cutoff", "stabilization.filter_cutoff", 0, dg::max_order - 1, config_.filter_cutoff);
    if (const toml::node* cutoff = get(t, "filter_cutoff", "stabilization.filter_cutoff"))
      if (config_.filter_cutoff >= config_.order)
        error(at(*cutoff), "'stabilization.filter_cutoff' must be below the order (" + std::to_string(config_.order) +
                               "): modes of degree up to the cutoff are left alone; got " +
                               std::to_string(config_.filter_cutoff));
    read_number(t, "positivity_floor", "stabilization.positivity_floor", Sign::positive, config_.positivity_floor);
    if (const toml::node* positive = get(t, "positive", "stabilization.positive")) {
      const toml::array* a = positive->as_array();
      if (a == nullptr) {
        error(at(*positive), "'stabilization.positive' must be an array of scalar expressions of the state, e.g. "
                             "[\"rho\", \"p\"]; got " + type_name(*positive));
        return;
      }
      for (std::size_t j = 0; j < a->size(); ++j) {
        const toml::node& f = *a->get(j);
        const auto* s = f.as_string();
        if (s == nullptr || s->get().empty()) {
          error(at(f), "'stabilization.positive' must hold expressions, e.g. \"rho\"; got " +
                           (s == nullptr ? type_name(f) : "an empty string"));
          continue;
        }
        note("stabilization.positive." + std::to_string(j), f);
        config_.positive.push_back(s->get());
      }
    }
  }

  void read_probes(const toml::table& root) {
    const toml::node* node = root.get("probe");
    if (node == nullptr) return;
    note("probe", *node);
    const toml::array* list = node->as_array();
    if (list == nullptr) {
      error(at(*node), "'probe' must be an array of tables: write [[probe]] above each probe's keys");
      return;
    }
    std::set<std::string> names;
    for (std::size_t i = 0; i < list->size(); ++i) {
      const toml::node& item = *list->get(i);
      const std::string prefix = "probe." + std::to_string(i);
      note(prefix, item);
      const toml::table* t = item.as_table();
      if (t == nullptr) {
        error(at(item), "each probe must be a table ([[probe]] or { points = [[x, y, z]] }); got " + type_name(item));
        continue;
      }
      check_keys(*t, "[[probe]]", probe_keys);
      Probe probe;
      probe.where = at(*t);
      probe.name = "probe" + std::to_string(i + 1);
      bool ok = true;
      const toml::node* name = get(t, "name", prefix + ".name");
      if (name != nullptr) {
        const auto s = string_value(*name, prefix + ".name");
        const bool plain = s && !s->empty() && *s != "." && *s != ".." &&
                           std::all_of(s->begin(), s->end(), [](char c) {
                             return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                                    c == '_' || c == '-' || c == '.';
                           });
        if (s && !plain) {
          error(at(*name), "'" + prefix + ".name' names the probe's output file: letters, digits, '_', '-' and '.'");
        }
        if (plain) probe.name = *s; else ok = false;
      }
      if (ok && !names.insert(probe.name).second) {
        error(name != nullptr ? at(*name) : at(*t), "two probes are named '" + probe.name + "'");
      }
      const toml::node* points = get(t, "points", prefix + ".points");
      if (points == nullptr) {
        error(at(*t), "probe '" + probe.name + "' has no points (points = [[x, y, z], ...])");
        ok = false;
      } else if (const toml::array* a = points->as_array(); a == nullptr || a->empty() || !a->get(0)->is_array()) {
        error(at(*points), "'" + prefix + ".points' must be a nonempty array of points, e.g. [[0.5, 0, 0]] "
                                          "(one point is [[x, y, z]])");
        ok = false;
      } else {
        for (std::size_t j = 0; j < a->size(); ++j) {
          if (auto p = point_value(*a->get(j), prefix + ".points[" + std::to_string(j) + "]", "[0.5, 0, 0]")) {
            probe.points.push_back(*p);
          } else {
            ok = false;
          }
        }
      }
      if (const toml::node* fields = get(t, "fields", prefix + ".fields")) {
        const toml::array* a = fields->as_array();
        if (a == nullptr) {
          error(at(*fields), "'" + prefix + ".fields' must be an array of component names, e.g. [\"E.z\"]; got " +
                                 type_name(*fields));
          ok = false;
        } else {
          for (std::size_t j = 0; j < a->size(); ++j) {
            const toml::node& f = *a->get(j);
            const auto* s = f.as_string();
            if (s == nullptr || s->get().empty()) {
              error(at(f), "'" + prefix + ".fields' must hold component names, e.g. \"E.z\"; got " +
                               (s == nullptr ? type_name(f) : "an empty string"));
              ok = false;
            } else if (std::find(probe.fields.begin(), probe.fields.end(), s->get()) != probe.fields.end()) {
              error(at(f), "'" + prefix + ".fields' names '" + s->get() + "' twice");
              ok = false;
            } else {
              probe.fields.push_back(s->get());
            }
          }
        }
      }
      read_integer(t, "every", prefix + ".every", 1, INT_MAX, probe.every);
      if (ok) config_.probes.push_back(std::move(probe));
    }
  }

  std::string_view text_;
  const std::vector<std::string>& overrides_;
  std::vector<std::string> override_labels_;
  std::string display_;
  RunConfig config_;
  std::vector<fluxes::Diagnostic> diagnostics_;
};

}  // namespace

RunConfig parse_config(std::string_view text, const std::filesystem::path& file,
                       const std::vector<std::string>& overrides) {
  return Reader(text, file, overrides).read();
}

RunConfig read_config(const std::filesystem::path& file, const std::vector<std::string>& overrides) {
  const Location where{file.string(), 0, 0};
  // A regular file of at most a few MB: a FIFO, a device or a huge file is refused unread.
  const fluxes::TextFile read = fluxes::read_text_file(file, "config file");
  if (!read.ok()) throw Error(where, read.problem);
  return parse_config(read.text, file, overrides);
}

}  // namespace rtdg::config
