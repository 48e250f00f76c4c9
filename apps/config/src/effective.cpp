// The effective config: the RunConfig written back as TOML, every default filled in, law and
// mesh paths absolute, so that it reads back (parse_config) to the same values from anywhere.
#include "toml_text.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdio>

namespace rtdg::config::detail {

std::string toml_string(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\t': out += "\\t"; break;
      case '\n': out += "\\n"; break;
      case '\f': out += "\\f"; break;
      case '\r': out += "\\r"; break;
      default: {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u == 0x7F) {
          std::array<char, 8> buffer{};
          std::snprintf(buffer.data(), buffer.size(), "\\u%04X", static_cast<unsigned>(u));
          out += buffer.data();
        } else {
          out += c;
        }
      }
    }
  }
  return out + "\"";
}

std::string toml_key(std::string_view key) {
  const bool bare = !key.empty() && key.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                                          "0123456789_-") == std::string_view::npos;
  return bare ? std::string(key) : toml_string(key);
}

std::string toml_float(double value) {
  std::array<char, 64> buffer{};
  const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  std::string text(buffer.data(), result.ptr);
  if (text.find_first_of(".eEn") == std::string::npos) text += ".0";  // 'n': inf, nan (never written)
  return text;
}

namespace {

std::string vector_text(const std::array<double, 3>& v) {
  return "[" + toml_float(v[0]) + ", " + toml_float(v[1]) + ", " + toml_float(v[2]) + "]";
}

std::string bool_text(bool b) { return b ? "true" : "false"; }

void line(std::string& out, std::string_view key, const std::string& value) {
  out += toml_key(key);
  out += " = ";
  out += value;
  out += '\n';
}

}  // namespace

std::string effective_toml(const RunConfig& c) {
  std::string out = "# The effective run configuration: every key, defaults filled in.\n";

  out += "\n[run]\n";
  line(out, "name", toml_string(c.name));
  line(out, "backend", toml_string(c.backend));
  line(out, "precision", toml_string(c.precision));
  line(out, "output_dir", toml_string(c.output_dir.string()));
  line(out, "progress_every", std::to_string(c.progress_every));
  line(out, "blowup_factor", toml_float(c.blowup_factor));
  line(out, "overlap", c.overlap ? "true" : "false");
  if (!c.plan.empty()) line(out, "plan", toml_string(c.plan));

  out += "\n[law]\n";
  line(out, "file", toml_string(c.law_file.string()));
  if (!c.law_parameters.empty()) {
    out += "\n[law.parameters]\n";
    for (const auto& p : c.law_parameters) line(out, p.name, toml_float(p.value));
  }
  // Materials per region, each region's table once (in the order the config first names them).
  std::vector<std::string> regions;
  for (const auto& r : c.region_parameters)
    if (std::find(regions.begin(), regions.end(), r.region) == regions.end()) regions.push_back(r.region);
  for (const std::string& region : regions) {
    out += "\n[law.parameters.region." + toml_key(region) + "]\n";
    for (const auto& r : c.region_parameters)
      if (r.region == region) line(out, r.value.name, toml_float(r.value.value));
  }

  out += "\n[mesh]\n";
  line(out, "file", toml_string(c.mesh_file.string()));
  if (!c.periodic.empty()) {
    std::string pairs = "[";
    for (std::size_t i = 0; i < c.periodic.size(); ++i) {
      const auto& p = c.periodic[i];
      if (i > 0) pairs += ", ";
      if (p.shift) {
        pairs += "{ a = " + toml_string(p.a) + ", b = " + toml_string(p.b) + ", shift = " + vector_text(*p.shift) + " }";
      } else {
        pairs += "[" + toml_string(p.a) + ", " + toml_string(p.b) + "]";
      }
    }
    line(out, "periodic", pairs + "]");
  }
  if (!c.mesh_parameters.empty()) {
    out += "\n[mesh.parameters]\n";
    for (const auto& [name, value] : c.mesh_parameters) line(out, name, toml_float(value));
  }

  out += "\n[discretization]\n";
  line(out, "order", std::to_string(c.order));

  out += "\n[time]\n";
  line(out, "final", toml_float(c.final_time));
  if (c.cfl) line(out, "cfl", toml_float(*c.cfl));
  if (c.dt) line(out, "dt", toml_float(*c.dt));
  line(out, "dt_update_every", std::to_string(c.dt_update_every));
  line(out, "integrator", toml_string(c.integrator));
  line(out, "allow_unstable", c.allow_unstable ? "true" : "false");
  line(out, "max_steps", toml_float(c.max_steps));

  out += "\n[boundary]\n";
  for (const auto& b : c.boundaries) line(out, b.mesh_name, toml_string(b.condition));

  out += "\n[initial]\n";
  line(out, "condition", toml_string(c.initial));

  const Incident& inc = c.incident;
  out += "\n[incident]\n";
  line(out, "kind", toml_string(inc.kind));
  line(out, "direction", vector_text(inc.direction));
  line(out, "polarization", vector_text(inc.polarization));
  line(out, "wavenumber", toml_float(inc.wavenumber));
  line(out, "amplitude", toml_float(inc.amplitude));
  line(out, "envelope", toml_string(to_string(inc.envelope)));
  line(out, "ramp_periods", toml_float(inc.ramp_periods));
  line(out, "pulse_width", toml_float(inc.pulse_width));
  line(out, "pulse_delay", toml_float(inc.pulse_delay));
  line(out, "phase_origin", vector_text(inc.phase_origin));
  line(out, "total_field", toml_string(inc.total_field));
  if (inc.total_field == "box") {
    line(out, "total_field_min", vector_text(inc.total_field_min));
    line(out, "total_field_max", vector_text(inc.total_field_max));
  }
  if (inc.total_field == "region") line(out, "total_field_group", toml_string(inc.total_field_group));

  out += "\n[output]\n";
  line(out, "interval", toml_float(c.output_interval));
  line(out, "max_snapshots", toml_float(c.max_snapshots));
  line(out, "vtu", bool_text(c.vtu));
  line(out, "hdf5", bool_text(c.hdf5));
  line(out, "error", bool_text(c.error));

  out += "\n[checkpoint]\n";
  line(out, "interval", toml_float(c.checkpoint_interval));
  line(out, "keep", std::to_string(c.checkpoint_keep));

  if (const FarField& ff = c.farfield; ff.enabled) {
    out += "\n[farfield]\n";
    line(out, "surface", toml_string(ff.surface));
    if (ff.surface == "box") {
      line(out, "box_min", vector_text(ff.box_min));
      line(out, "box_max", vector_text(ff.box_max));
    } else {
      line(out, "group", toml_string(ff.group));
    }
    if (!ff.frequencies.empty()) {
      std::string list = "[";
      for (std::size_t i = 0; i < ff.frequencies.size(); ++i) list += (i > 0 ? ", " : "") + toml_float(ff.frequencies[i]);
      line(out, "frequencies", list + "]");
    }
    line(out, "every", std::to_string(ff.every));
    if (ff.start) line(out, "start", toml_float(*ff.start));
    line(out, "angles", std::to_string(ff.angles));
    if (!ff.grid.empty()) line(out, "grid", "[" + std::to_string(ff.grid[0]) + ", " + std::to_string(ff.grid[1]) + "]");
  }

  out += "\n[stabilization]\n";
  line(out, "filter_strength", toml_float(c.filter_strength));
  line(out, "filter_order", std::to_string(c.filter_order));
  line(out, "filter_cutoff", std::to_string(c.filter_cutoff));
  std::string positive = "[";
  for (std::size_t i = 0; i < c.positive.size(); ++i) positive += (i > 0 ? ", " : "") + toml_string(c.positive[i]);
  line(out, "positive", positive + "]");
  line(out, "positivity_floor", toml_float(c.positivity_floor));

  for (const auto& p : c.probes) {
    out += "\n[[probe]]\n";
    line(out, "name", toml_string(p.name));
    std::string points = "[";
    for (std::size_t i = 0; i < p.points.size(); ++i) points += (i > 0 ? ", " : "") + vector_text(p.points[i]);
    line(out, "points", points + "]");
    std::string fields = "[";
    for (std::size_t i = 0; i < p.fields.size(); ++i) fields += (i > 0 ? ", " : "") + toml_string(p.fields[i]);
    line(out, "fields", fields + "]");
    line(out, "every", std::to_string(p.every));
  }
  return out;
}

}  // namespace rtdg::config::detail
