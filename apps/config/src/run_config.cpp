// The pieces of RunConfig that are not reading: errors, locations, comparison.
#include "config/run_config.hpp"

#include <utility>

namespace rtdg::config {

namespace {
std::string join(const std::vector<fluxes::Diagnostic>& diagnostics) {
  std::string text;
  for (const auto& d : diagnostics) {
    if (!text.empty()) text += "\n";
    text += fluxes::to_string(d);
  }
  return text;
}
}  // namespace

Error::Error(std::vector<fluxes::Diagnostic> diagnostics)
    : std::runtime_error(join(diagnostics)), diagnostics_(std::move(diagnostics)) {}

Error::Error(fluxes::Location where, std::string message)
    : Error(std::vector<fluxes::Diagnostic>{fluxes::Diagnostic{std::move(where), std::move(message)}}) {}

fluxes::Location RunConfig::where(std::string_view dotted_key) const {
  if (const auto it = locations.find(dotted_key); it != locations.end()) return it->second;
  return fluxes::Location{file.empty() ? std::string("<config>") : file.string(), 0, 0};
}

std::string_view to_string(Envelope envelope) { return envelope == Envelope::gaussian ? "gaussian" : "ramp"; }

bool same_values(const RunConfig& a, const RunConfig& b) {
  auto same_parameters = [](const auto& x, const auto& y) {
    if (x.size() != y.size()) return false;
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (x[i].name != y[i].name || x[i].value != y[i].value) return false;
    }
    return true;
  };
  auto same_periodic = [](const auto& x, const auto& y) {
    if (x.size() != y.size()) return false;
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (x[i].a != y[i].a || x[i].b != y[i].b || x[i].shift != y[i].shift) return false;
    }
    return true;
  };
  auto same_boundaries = [](const auto& x, const auto& y) {
    if (x.size() != y.size()) return false;
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (x[i].mesh_name != y[i].mesh_name || x[i].condition != y[i].condition) return false;
    }
    return true;
  };
  auto same_probes = [](const auto& x, const auto& y) {
    if (x.size() != y.size()) return false;
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (x[i].name != y[i].name || x[i].points != y[i].points || x[i].fields != y[i].fields ||
          x[i].every != y[i].every) {
        return false;
      }
    }
    return true;
  };
  const Incident& p = a.incident;
  const Incident& q = b.incident;
  const bool same_incident = p.kind == q.kind && p.direction == q.direction && p.polarization == q.polarization &&
                             p.wavenumber == q.wavenumber && p.amplitude == q.amplitude &&
                             p.envelope == q.envelope && p.ramp_periods == q.ramp_periods &&
                             p.pulse_width == q.pulse_width && p.pulse_delay == q.pulse_delay &&
                             p.phase_origin == q.phase_origin && p.total_field == q.total_field &&
                             p.total_field_min == q.total_field_min && p.total_field_max == q.total_field_max &&
                             p.total_field_group == q.total_field_group;
  auto same_regions = [](const auto& x, const auto& y) {
    if (x.size() != y.size()) return false;
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (x[i].region != y[i].region || x[i].value.name != y[i].value.name || x[i].value.value != y[i].value.value)
        return false;
    }
    return true;
  };
  const FarField& f = a.farfield;
  const FarField& g = b.farfield;
  const bool same_farfield = f.enabled == g.enabled && f.surface == g.surface && f.box_min == g.box_min &&
                             f.box_max == g.box_max && f.group == g.group && f.frequencies == g.frequencies &&
                             f.every == g.every && f.start == g.start && f.angles == g.angles && f.grid == g.grid;
  return a.name == b.name && a.backend == b.backend && a.precision == b.precision && a.output_dir == b.output_dir &&
         a.overlap == b.overlap && a.plan == b.plan &&
         a.law_file == b.law_file && same_parameters(a.law_parameters, b.law_parameters) &&
         same_regions(a.region_parameters, b.region_parameters) &&
         a.mesh_file == b.mesh_file && a.mesh_parameters == b.mesh_parameters &&
         same_periodic(a.periodic, b.periodic) && a.order == b.order && a.final_time == b.final_time &&
         a.cfl == b.cfl && a.dt == b.dt && a.dt_update_every == b.dt_update_every && a.integrator == b.integrator &&
         a.allow_unstable == b.allow_unstable && a.max_steps == b.max_steps && a.max_snapshots == b.max_snapshots &&
         same_boundaries(a.boundaries, b.boundaries) && a.initial == b.initial && same_incident &&
         a.output_interval == b.output_interval && a.vtu == b.vtu && a.hdf5 == b.hdf5 && a.error == b.error &&
         a.checkpoint_interval == b.checkpoint_interval && a.checkpoint_keep == b.checkpoint_keep &&
         same_probes(a.probes, b.probes) && a.progress_every == b.progress_every &&
         a.blowup_factor == b.blowup_factor && a.filter_strength == b.filter_strength &&
         a.filter_order == b.filter_order && a.filter_cutoff == b.filter_cutoff && a.positive == b.positive &&
         a.positivity_floor == b.positivity_floor && same_farfield;
}

}  // namespace rtdg::config
