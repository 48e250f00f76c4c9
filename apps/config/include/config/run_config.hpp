// The run configuration of `rtdg run <config.toml>`: a TOML file naming the law, the mesh,
// the discretization, time stepping, boundary conditions, the incident field, output,
// checkpoints and probes. docs/config.md is the reference of every key.
//
// Reading checks everything it can without the law and the mesh (types, ranges, choices,
// unknown keys, that the law and mesh files exist) and reports every problem at once, each as
// file:line:column. Checks that need the law (boundary condition and parameter names, probe
// field names) or the mesh (boundary group names) are the caller's; where() and the `where`
// members give the locations for their messages.
#pragma once

#include "fluxes/diagnostics.hpp"
#include "fluxes/law_lowering.hpp"
#include "mesh/load.hpp"

#include <array>
#include <filesystem>
#include <map>
#include <numbers>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace rtdg::config {

// Anything wrong in a config file or a --set override. what() lists every problem, one line
// each: "file:line:column: error: message" ("--set key=value: error: message" for an
// override); diagnostics() gives them separately.
class Error : public std::runtime_error {
public:
  explicit Error(std::vector<fluxes::Diagnostic> diagnostics);
  Error(fluxes::Location where, std::string message);
  const std::vector<fluxes::Diagnostic>& diagnostics() const noexcept { return diagnostics_; }

private:
  std::vector<fluxes::Diagnostic> diagnostics_;
};

// [boundary] mesh_name = "condition": the law's boundary condition on a mesh boundary group.
struct BoundaryAssignment {
  std::string mesh_name;    // a physical group of the mesh
  std::string condition;    // a [boundary.<name>] of the law
  fluxes::Location where;   // the condition's value
  fluxes::Location name_where;  // the key (the mesh group's name)
};

enum class Envelope { ramp, gaussian };

// [incident]: a plane wave with E along `polarization`, travelling along `direction`, angular
// frequency omega = wavenumber * c (c: the law's wave speed). The solver defines the
// waveform; the reader checks and completes the numbers.
struct Incident {
  std::string kind = "none";                  // "none" | "plane_wave"
  std::array<double, 3> direction{1, 0, 0};     // unit vector (normalised by the reader)
  std::array<double, 3> polarization{0, 0, 1};  // unit vector perpendicular to direction
  double wavenumber = 2 * std::numbers::pi;     // angular wavenumber k > 0
  double amplitude = 1.0;
  Envelope envelope = Envelope::ramp;
  double ramp_periods = 2.0;  // ramp: smooth switch-on over this many periods (> 0)
  // Gaussian envelope exp(-(tau - pulse_delay)^2 / (2 pulse_width^2)). Filled in by the
  // reader when the envelope is gaussian: pulse_width defaults to 2 / wavenumber (for wave
  // speed 1: a period / pi), pulse_delay to 4 * pulse_width. Use them as they are (an
  // explicit pulse_delay = 0 is kept). Left 0 for the ramp.
  double pulse_width = 0.0;
  double pulse_delay = 0.0;
  // The point where the carrier's phase is zero at t = 0 (docs/scattering.md): far fields
  // are referred to it. [x, y] gives z = 0.
  std::array<double, 3> phase_origin{0, 0, 0};
  // Total-field/scattered-field incidence (docs/scattering.md): "none" (the incident wave
  // enters through boundary conditions), "box" (the elements whose centroid is inside
  // [total_field_min, total_field_max] carry the total field) or "region" (the elements of the
  // mesh region total_field_group do).
  std::string total_field = "none";
  std::array<double, 3> total_field_min{0, 0, 0}, total_field_max{0, 0, 0};
  std::string total_field_group;
  fluxes::Location where;  // the [incident] table; {file, 0, 0} when absent
};

// [farfield]: the near-to-far-field transform of a scattering run (docs/scattering.md).
struct FarField {
  bool enabled = false;                  // a [farfield] table was given
  std::string surface = "box";           // "box" | "boundary" | "region"
  std::array<double, 3> box_min{0, 0, 0}, box_max{0, 0, 0};  // surface = "box"; min < max
  std::string group;                     // surface = "boundary": a mesh boundary group; "region": a region
  std::vector<double> frequencies;       // > 0, cycles per unit time; empty: the incident wave's
  int every = 1;                         // steps between samples, >= 1
  std::optional<double> start;           // ramp (time-harmonic) runs: first sample time; unset: automatic
  int angles = 0;                        // points per cut; 0: 361 (2D, 0..360 deg) or 181 (3D, 0..180 deg)
  std::vector<int> grid;                 // [n_theta, n_phi] (3D): a full theta-phi grid too; empty: none
  fluxes::Location where;                // the [farfield] table
};

// [[probe]]: fields sampled at points every `every` steps.
struct Probe {
  std::string name;                          // default "probe<i>", i = 1, 2, ... in file order
  std::vector<std::array<double, 3>> points;  // at least one; [x, y] gives z = 0
  std::vector<std::string> fields;           // state component names ("E.z", "Ez"); empty = all
  int every = 1;                             // steps, >= 1
  fluxes::Location where;                    // the [[probe]] table
};

struct RunConfig {
  std::filesystem::path file;  // the config file as given
  std::string name;            // run.name, default: the config file's stem
  std::string backend = "auto";      // run.backend: auto | cuda | host
  std::string precision = "double";  // run.precision: float | double
  std::filesystem::path output_dir;  // run.output_dir, default "output/<name>"; relative to the current directory
  // run.overlap: parallel runs compute the elements without halo faces while the neighbours'
  // traces travel; false waits for the traces first (to measure what the overlap hides).
  bool overlap = true;
  // run.plan: the kernel plan to run, in dg::to_text's words (as `rtdg run` logs it and a
  // checkpoint's `plan` attribute holds it), instead of the tuning database's choice; empty:
  // RTDG_TUNE and the database choose. Its words are checked when the problem is loaded
  // (runner::load_problem), whether it fits the element, order, precision and device when the
  // kernels are built.
  std::string plan;
  // law.file, resolved against the config file's folder: absolute and lexically normal.
  std::filesystem::path law_file;
  std::vector<fluxes::ParameterOverride> law_parameters;  // [law.parameters] name = number, in file order
  // [law.parameters.region.<region>] name = number: materials per mesh region (physical group
  // of elements), in file order; the region name is checked against the mesh when it is loaded.
  struct RegionParameter {
    std::string region;
    fluxes::Location region_where;  // the [law.parameters.region.<region>] key
    fluxes::ParameterOverride value;
  };
  std::vector<RegionParameter> region_parameters;
  // mesh.file (.geo, .msh or .h5), resolved like law_file; exists.
  std::filesystem::path mesh_file;
  std::map<std::string, double> mesh_parameters;  // [mesh.parameters] (.geo -D values)
  std::vector<mesh::PeriodicNames> periodic;      // mesh.periodic = [["xmin", "xmax"], ...]
  int order = 3;                                  // discretization.order, dg::min_order..dg::max_order
  double final_time = 0;                          // time.final (required, > 0)
  std::optional<double> cfl;  // time.cfl (> 0); 0.5 when neither cfl nor dt is given; never both
  std::optional<double> dt;   // time.dt (> 0)
  // time.dt_update_every: steps between re-evaluations of dt = cfl-based step from the current
  // state's max wave speed (steps 0, n, 2n, ...); 0 = dt from the initial state only. Needs cfl.
  int dt_update_every = 0;
  std::string integrator = "lserk4";           // time.integrator: lserk4 | ssprk3
  // time.allow_unstable: run a time.cfl (or a time.dt's Courant number) above the integrator's
  // stability limit instead of stopping (docs/running.md, "Time step").
  bool allow_unstable = false;
  // time.max_steps, output.max_snapshots: a run that would take more steps or write more
  // snapshots stops before the first step unless these are raised (a typo such as
  // output.interval = 1e-300 would fill the disk).
  double max_steps = 1e8;
  double max_snapshots = 1e5;
  std::vector<BoundaryAssignment> boundaries;  // [boundary] mesh_name = "condition", in file order
  std::string initial = "zero";                // initial.condition: "zero" | "law"
  Incident incident;
  double output_interval = 0;  // output.interval: simulated time between snapshots; 0 = final state only
  bool vtu = true;             // output.vtu
  bool hdf5 = true;            // output.hdf5
  bool error = false;          // output.error: L2 error against the law's exact solution at each output
  double checkpoint_interval = 0;  // checkpoint.interval (time; 0 = only the final one and on a signal)
  int checkpoint_keep = 2;         // checkpoint.keep >= 1
  // [stabilization] (dg/stabilization.hpp, docs/shock-capturing.md): filter_strength (alpha >= 0;
  // 0 = no filter), filter_order (s >= 1), filter_cutoff (Nc, 0 <= Nc < order), positive (scalar
  // expressions of the law's state kept positive, checked when the law is loaded), positivity_floor.
  double filter_strength = 0;
  int filter_order = 16;
  int filter_cutoff = 0;
  std::vector<std::string> positive;
  double positivity_floor = 1e-10;
  std::vector<Probe> probes;       // [[probe]]
  FarField farfield;               // [farfield]
  int progress_every = 0;          // run.progress_every: steps between progress lines; 0 = about once a second
  // run.blowup_factor: the run stops when the state's largest |value| exceeds this many times
  // its reference scale (docs/running.md); 0 = check finiteness only.
  double blowup_factor = 1e6;
  // The whole config with every default filled in, as TOML; law and mesh paths absolute.
  // parse_config(effective_toml, file) gives the same values.
  std::string effective_toml;

  // Where each key's value was written, by dotted key: "discretization.order",
  // "boundary.walls", "law.parameters.eps", "mesh.periodic", "probe.0.points" (arrays of
  // tables by 0-based index); tables by name ("incident", "probe.1"). Filled by the reader.
  std::map<std::string, fluxes::Location, std::less<>> locations;

  // The location of a key's value; {file, 0, 0} for a default (a key not written), and
  // {"--set key=value", 0, 0} for one set by an override.
  fluxes::Location where(std::string_view dotted_key) const;
};

// Reads and checks a config file. `overrides` are --set texts "dotted.key=value": the value
// is read as a TOML value (number, boolean, "string", [array], { inline table }); a value that
// is not valid TOML and does not start with a quote, '[' or '{' is taken as a string, so
// --set run.backend=host works. Overrides replace the file's values before any check.
// Throws Error listing every problem.
RunConfig read_config(const std::filesystem::path& file, const std::vector<std::string>& overrides = {});

// The same from text (tests; a restart from a checkpoint's stored config). Relative paths in
// the text are resolved against file's folder.
RunConfig parse_config(std::string_view text, const std::filesystem::path& file,
                       const std::vector<std::string>& overrides = {});

// True when a and b hold the same values (locations, `file` and effective_toml not compared).
bool same_values(const RunConfig& a, const RunConfig& b);

std::string_view to_string(Envelope envelope);

}  // namespace rtdg::config
