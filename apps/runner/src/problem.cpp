#include "runner/problem.hpp"

#include <dg/error.hpp>
#include <dg/parallel.hpp>
#include <dg/plan.hpp>
#include <dg/total_field.hpp>
#include <fluxes/law_lowering.hpp>
#include <mesh/bytes.hpp>
#include <mesh/error.hpp>
#include <mesh/load.hpp>

#include <algorithm>

namespace rtdg::runner {
namespace {

std::string location(const fluxes::Location& where) { return where.line > 0 ? fluxes::to_string(where) : where.file; }

}  // namespace

dg::PlaneWave plane_wave(const config::Incident& incident) {
  dg::PlaneWave wave;
  wave.direction = incident.direction;
  wave.polarization = incident.polarization;
  wave.wavenumber = incident.wavenumber;
  wave.amplitude = incident.amplitude;
  wave.envelope = incident.envelope == config::Envelope::ramp ? dg::Envelope::ramp : dg::Envelope::gaussian;
  wave.ramp_periods = incident.ramp_periods;
  wave.pulse_width = incident.pulse_width;
  wave.pulse_delay = incident.pulse_delay;
  wave.phase_origin = incident.phase_origin;
  return wave;
}

void Problem::set_order(int N) {
  if (N == cfg.order && disc.K > 0) return;
  disc = dg::discretize(mesh, N);
  cfg.order = N;
}

void Problem::set_precision(const std::string& precision) {
  if (precision != "float" && precision != "double")
    throw dg::Error("unknown precision '" + precision + "'; valid values: float, double");
  cfg.precision = precision;
  setup.scalar = precision == "float" ? fluxes::ScalarType::float32 : fluxes::ScalarType::float64;
}

namespace {

// Materials per region: [law.parameters.region.<region>] values as [parameter][K] (empty for a
// parameter no region sets; elements of other regions keep the uniform value). Throws
// fluxes::Error at the config line for a region the mesh lacks, a parameter the law lacks or
// a value outside the parameter's bounds.
std::vector<std::vector<double>> element_parameters(const fluxes::Law& law, const std::vector<double>& uniform,
                                                    const mesh::Mesh& mesh, const config::RunConfig& cfg) {
  if (cfg.region_parameters.empty()) return {};
  std::vector<std::vector<double>> values(law.parameters.size());
  for (const config::RunConfig::RegionParameter& r : cfg.region_parameters) {
    const auto found = std::find(mesh.region_names.begin(), mesh.region_names.end(), r.region);
    if (found == mesh.region_names.end()) {
      std::string known;
      for (const std::string& name : mesh.region_names) known += (known.empty() ? "" : ", ") + name;
      throw fluxes::Error(r.region_where, "the mesh has no region '" + r.region + "'; its regions are " +
                                              (known.empty() ? std::string("(none)") : known));
    }
    const int region = static_cast<int>(found - mesh.region_names.begin());
    // Checks the name and bounds as [law.parameters] does, then picks the one value out.
    const std::vector<double> resolved = fluxes::resolve_parameters(law, {r.value});
    std::size_t p = 0;
    while (law.parameters[p].name != r.value.name) ++p;
    if (values[p].empty()) values[p].assign(mesh.element_region.size(), uniform[p]);
    for (std::size_t k = 0; k < mesh.element_region.size(); ++k)
      if (mesh.element_region[k] == region) values[p][k] = resolved[p];
  }
  return values;
}

// The mesh: a parallel run's rank 0 meshes the .geo (or reads the file) and hands it to the
// other ranks, so Gmsh runs once; a failure there is every rank's, with its message.
mesh::Mesh load_once(const std::filesystem::path& file, const mesh::LoadOptions& options) {
  const dg::Communicator& comm = dg::world();
  if (comm.size() == 1) return mesh::load_mesh(file, options);
  std::string bytes;
  if (comm.rank() == 0) {
    try {
      bytes = "1" + mesh::mesh_to_bytes(mesh::load_mesh(file, options));
    } catch (const std::exception& e) {
      bytes = std::string("0") + e.what();
    }
  }
  bytes = comm.broadcast(bytes, 0);
  if (bytes.empty() || bytes[0] != '1') throw mesh::MeshError(bytes.empty() ? std::string() : bytes.substr(1));
  return mesh::mesh_from_bytes(std::string_view(bytes).substr(1), file.string());
}

// The mesh on rank 0 only (rank 0 partitions it and sends the parts, parallel_run.hpp); a
// failure there is every rank's, with its message.
mesh::Mesh load_on_rank0(const std::filesystem::path& file, const mesh::LoadOptions& options) {
  const dg::Communicator& comm = dg::world();
  mesh::Mesh mesh;
  std::string failure;
  if (comm.rank() == 0) {
    try {
      mesh = mesh::load_mesh(file, options);
    } catch (const std::exception& e) {
      failure = std::string("0") + e.what();
    }
  }
  failure = comm.broadcast(failure, 0);
  if (!failure.empty()) throw mesh::MeshError(failure.substr(1));
  return mesh;
}

}  // namespace

std::unique_ptr<Problem> load_problem(const std::filesystem::path& config, const std::vector<std::string>& overrides) {
  auto p = std::make_unique<Problem>();
  p->cfg = config::read_config(config, overrides);
  load(*p);
  return p;
}

void set_up_elements(Problem& problem, const mesh::Mesh& mesh, bool whole) {
  const config::RunConfig& cfg = problem.cfg;
  dg::SolverSetup& setup = problem.setup;
  setup.element_parameters = element_parameters(problem.law, problem.parameters, mesh, cfg);
  setup.total_field.clear();
  if (cfg.incident.total_field != "none") {
    const fluxes::Location where = cfg.where("incident.total_field");
    try {
      const config::Incident& inc = cfg.incident;
      setup.total_field = inc.total_field == "box" ? dg::total_field_box(mesh, inc.total_field_min, inc.total_field_max)
                                                   : dg::total_field_region(mesh, inc.total_field_group);
      if (whole) dg::check_total_field(mesh, setup.total_field, "the total-field " + inc.total_field);
    } catch (const dg::Error& e) {
      throw fluxes::Error(where, e.what());
    }
  }
}

void load(Problem& problem, bool discretize, WholeMesh whole) {
  Problem* p = &problem;
  const config::RunConfig& cfg = p->cfg;
  // run.plan's words, before anything is loaded (whether the plan fits is the solver's check).
  p->plan.reset();
  if (!cfg.plan.empty()) {
    try {
      p->plan = dg::plan_from_text(cfg.plan);
    } catch (const dg::Error& e) {
      throw fluxes::Error(cfg.where("run.plan"), "'run.plan': " + std::string(e.what()));
    }
  }
  p->law = fluxes::read_law(cfg.law_file);
  p->parameters = fluxes::resolve_parameters(p->law, cfg.law_parameters);
  mesh::LoadOptions load;
  load.parameters = cfg.mesh_parameters;
  load.periodic = cfg.periodic;
  if (whole == WholeMesh::every_rank) {
    p->mesh = load_once(cfg.mesh_file, load);
    if (discretize) p->disc = dg::discretize(p->mesh, cfg.order);
  } else if (whole == WholeMesh::rank0) {
    p->mesh = load_on_rank0(cfg.mesh_file, load);
  }
  dg::SolverSetup& setup = p->setup;
  setup.law = &p->law;
  setup.parameters = p->parameters;
  if (whole == WholeMesh::every_rank) set_up_elements(*p, p->mesh, true);
  for (const config::BoundaryAssignment& b : cfg.boundaries)
    setup.boundaries.push_back({b.mesh_name, b.condition, location(b.name_where)});
  if (cfg.incident.kind == "plane_wave") setup.incident = plane_wave(cfg.incident);
  setup.scalar = cfg.precision == "float" ? fluxes::ScalarType::float32 : fluxes::ScalarType::float64;
  setup.integrator = dg::parse_integrator(cfg.integrator);
  setup.stabilization.filter_strength = cfg.filter_strength;
  setup.stabilization.filter_order = cfg.filter_order;
  setup.stabilization.filter_cutoff = cfg.filter_cutoff;
  setup.stabilization.positive = cfg.positive;
  setup.stabilization.positivity_floor = cfg.positivity_floor;
  // Each positive quantity is checked against the law here, so a mistake names the config line.
  for (std::size_t j = 0; j < cfg.positive.size(); ++j) {
    const fluxes::Location where = cfg.where("stabilization.positive." + std::to_string(j));
    dg::lower_positive_quantity(p->law, p->parameters, cfg.positive[j], where);
  }
}

}  // namespace rtdg::runner
