#include "parallel_run.hpp"

#include <dg/enclosure.hpp>
#include <dg/error.hpp>
#include <dg/incident.hpp>
#include <fluxes/diagnostics.hpp>
#include <mesh/bytes.hpp>
#include <mesh/error.hpp>
#include <mesh/hdf5_io.hpp>
#include <mesh/partition.hpp>
#include <output/hdf5_solution.hpp>
#include <rtcg/backend.hpp>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <numeric>
#include <optional>
#include <ostream>
#include <string>

namespace rtdg::runner {
namespace fs = std::filesystem;
namespace {

std::size_t flat(long long a, long long B, long long b, long long C, long long c) {
  return static_cast<std::size_t>((a * B + b) * C + c);
}

// Values per rank for an all-to-all of `per_element` values per element, from elements per
// rank; MPI counts are ints, so a part too large for one message is an error, not an overflow.
std::vector<int> value_counts(const std::vector<int>& elements, std::size_t per_element) {
  std::vector<int> counts;
  for (const int n : elements) {
    const long long values = static_cast<long long>(n) * static_cast<long long>(per_element);
    if (values > std::numeric_limits<int>::max())
      throw dg::Error("parallel output: " + std::to_string(values) + " values for one rank are more than an MPI count " +
                      "holds; run on more ranks");
    counts.push_back(static_cast<int>(values));
  }
  return counts;
}

std::string range_text(const std::vector<int>& values) {
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  return *lo == *hi ? std::to_string(*lo) : std::to_string(*lo) + ".." + std::to_string(*hi);
}

}  // namespace

void choose_device(const dg::Communicator& comm, const std::string& backend) {
  if (comm.size() < 2 || backend == "host") return;
  const char* set = std::getenv("RTDG_CUDA_DEVICE");
  if (set && *set) return;
  const int devices = rtcg::cuda_device_count();
  if (devices <= 0) return;
  setenv("RTDG_CUDA_DEVICE", std::to_string(comm.local_rank() % devices).c_str(), 1);
}

MeshInput choose_mesh_input(const config::RunConfig& cfg, const dg::Communicator& comm) {
  MeshInput input;
  if (comm.size() < 2) return input;
  const fs::path& file = cfg.mesh_file;
  const std::string whole = ": rank 0 reads the whole mesh and every rank holds it";
  if (const char* env = std::getenv("RTDG_WHOLE_MESH"); env && *env && std::string(env) != "0") {
    input.note = "mesh: RTDG_WHOLE_MESH is set" + whole;
    return input;
  }
  if (!output::parallel_hdf5_available()) {
    input.note = "mesh: this rtdg's HDF5 is serial (rank 0 writes the output files alone)" + whole;
    return input;
  }
  input.how = MeshInput::How::sent;
  std::string extension = file.extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(), [](unsigned char c) { return std::tolower(c); });
  // A .geo or .msh is meshed or read on rank 0; mesh parameters or periodic pairs for an .h5 are
  // an error load_mesh reports.
  if (extension != ".h5" || !cfg.mesh_parameters.empty() || !cfg.periodic.empty()) return input;
  std::vector<int> counts;
  try {
    counts = mesh::hdf5_partition_counts(file);
  } catch (const mesh::MeshError&) {
    return input;  // rank 0's reading of the mesh names the problem
  }
  if (std::find(counts.begin(), counts.end(), comm.size()) == counts.end()) {
    std::string stored;
    for (const int c : counts) stored += (stored.empty() ? "" : ", ") + std::to_string(c);
    input.note = "mesh: " + file.filename().string() + " stores no partition into " + std::to_string(comm.size()) +
                 " parts (" + (stored.empty() ? std::string("it stores none") : "it stores " + stored) +
                 "): rank 0 reads the whole mesh, partitions it and sends each rank its part; `rtdg mesh " +
                 file.string() + " --partitions " + std::to_string(comm.size()) + " -o " + file.string() +
                 "` adds one, and each rank then reads only its part";
    return input;
  }
  input.how = MeshInput::How::read;
  return input;
}

bool meshes_geo(const config::RunConfig& cfg) {
  std::string extension = cfg.mesh_file.extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(), [](unsigned char c) { return std::tolower(c); });
  return extension == ".geo";
}

std::string meshed_file_name(const config::RunConfig& cfg) { return cfg.mesh_file.stem().string() + "_meshed.h5"; }

std::vector<double> neighbour_values(const dg::Communicator& comm, const mesh::LocalMesh& local, std::span<const double> own) {
  // halo_faces runs by neighbour rank, each range in the agreed order both sides share: the
  // i-th value this rank receives from rank r is across the i-th face of r's range.
  std::vector<double> send;
  send.reserve(local.halo_faces.size());
  for (const mesh::HaloFace& f : local.halo_faces) send.push_back(own[static_cast<std::size_t>(f.element)]);
  std::vector<int> counts(static_cast<std::size_t>(comm.size()), 0);
  for (const mesh::HaloNeighbour& n : local.neighbours) counts[static_cast<std::size_t>(n.rank)] = n.count;
  std::vector<double> received = comm.all_to_all(std::span<const double>(send), std::span<const int>(counts));
  if (received.size() != local.halo_faces.size())
    throw dg::Error("internal: " + std::to_string(received.size()) + " values received for " +
                    std::to_string(local.halo_faces.size()) + " halo faces");
  return received;
}

void check_enclosure(const dg::Communicator& comm, const mesh::LocalMesh& local, const std::vector<char>& inside,
                     const std::string& what) {
  dg::Enclosure e = dg::enclosure(local.mesh, inside);
  e.inside = comm.sum(e.inside);
  e.elements = comm.sum(e.elements);
  for (std::size_t g = 0; g < e.group_inside.size(); ++g) {
    e.group_inside[g] = comm.any(e.group_inside[g] != 0) ? 1 : 0;
    e.group_outside[g] = comm.any(e.group_outside[g] != 0) ? 1 : 0;
  }
  dg::check_enclosure(e, local.mesh.boundary_names, what);
}

namespace {

// The flags [K_local] as values, for neighbour_values.
std::vector<double> as_values(const std::vector<char>& flags) { return {flags.begin(), flags.end()}; }

// Rank 0 holds the whole mesh, the other ranks none: rank 0 partitions it (the partition stored
// in the file, else METIS) and sends each rank its part, one at a time, then frees the mesh. A
// failure on rank 0 before the first part is sent is every rank's, with its message.
mesh::LocalMesh send_parts(Problem& problem, Part& part, const dg::Communicator& comm) {
  const fs::path& file = problem.cfg.mesh_file;
  mesh::LoadedPartition loaded;
  std::optional<mesh::LocalMesh> own;
  std::string failure;
  if (comm.rank() == 0) {
    try {
      mesh::PartitionOptions options;
      options.parts = comm.size();
      loaded = mesh::load_partition(file, problem.mesh, options);
      if (part.claim_meshed_file) {
        // Written atomically (a temporary file renamed into place), with the partition, so a
        // later run on it reads each rank's part without meshing or partitioning.
        const fs::path meshed = part.claim_meshed_file();
        mesh::Provenance provenance;
        provenance.source = file.string();
        provenance.parameters = problem.cfg.mesh_parameters;
        mesh::write_hdf5(problem.mesh, meshed, provenance, {loaded.partition});
        part.meshed_note = "mesh: rank 0 meshed " + file.filename().string() + " (" +
                           std::to_string(problem.mesh.num_elements()) + " elements) once and wrote it, with its partition into " +
                           std::to_string(comm.size()) + " parts, to " + meshed.string() +
                           " (kept: mesh.file = that file, with mesh.parameters = {}, runs on it without meshing, each "
                           "rank reading its part)";
      }
    } catch (const std::exception& e) {
      failure = e.what();
    }
  }
  const std::string bytes = comm.scatter(
      [&](int r) -> std::string {
        if (failure.empty()) {
          try {
            mesh::LocalMesh local = mesh::build_local_mesh(problem.mesh, loaded.partition, r, file.string());
            if (r == 0) {
              own = std::move(local);
              return "1";
            }
            return "1" + mesh::local_mesh_to_bytes(local);
          } catch (const std::exception& e) {
            failure = e.what();
          }
        }
        return "0" + failure;
      },
      0);
  if (comm.rank() == 0) problem.mesh = mesh::Mesh();  // no rank holds the whole mesh from here
  const std::string name = file.filename().string();
  part.partition_source = (loaded.stored ? "stored in " + name : std::string("METIS k-way")) +
                          " on rank 0, which sent each rank its part";
  if (bytes.empty() || bytes[0] != '1') throw mesh::MeshError(bytes.empty() ? std::string() : bytes.substr(1));
  if (own) return std::move(*own);
  return mesh::local_mesh_from_bytes(std::string_view(bytes).substr(1), name + " (the part rank 0 sent)");
}

// A rank that holds only its part: read from the file, or sent by rank 0; its discretization
// and element set-up.
void read_part(Problem& problem, Part& part, const dg::Communicator& comm) {
  const config::RunConfig& cfg = problem.cfg;
  if (part.input == MeshInput::How::read) {
    part.local = mesh::read_hdf5_local(cfg.mesh_file, comm.size(), comm.rank());
    part.partition_source = "stored in " + cfg.mesh_file.filename().string() + ", each rank reading its part";
  } else {
    part.local = send_parts(problem, part, comm);
  }
  const mesh::LocalMesh& local = *part.local;
  part.global_K = local.global_elements;
  problem.disc = dg::discretize(local, cfg.order);
  set_up_elements(problem, local.mesh, false);
  dg::SolverSetup& setup = problem.setup;
  if (!setup.element_parameters.empty()) {
    setup.halo.neighbour_parameters.assign(setup.element_parameters.size(), {});
    for (std::size_t p = 0; p < setup.element_parameters.size(); ++p)
      if (!setup.element_parameters[p].empty())
        setup.halo.neighbour_parameters[p] = neighbour_values(comm, local, setup.element_parameters[p]);
  }
  if (!setup.total_field.empty()) {
    try {
      check_enclosure(comm, local, setup.total_field, "the total-field " + cfg.incident.total_field);
    } catch (const dg::Error& e) {
      throw fluxes::Error(cfg.where("incident.total_field"), e.what());
    }
    setup.halo.neighbour_total_field.clear();
    for (const double v : neighbour_values(comm, local, as_values(setup.total_field)))
      setup.halo.neighbour_total_field.push_back(static_cast<char>(v));
  }
}

// The whole mesh every rank holds: the partition (stored, else METIS) and the part cut from it;
// the per-element set-up cut to the part and its halo neighbours.
void cut_part(Problem& problem, Part& part, const dg::Communicator& comm) {
  const mesh::Mesh& global = problem.mesh;
  part.global_K = global.num_elements();
  mesh::PartitionOptions options;
  options.parts = comm.size();
  // Every rank computes the same partition (METIS is deterministic with a fixed seed), or
  // reads the same stored one.
  const mesh::LoadedPartition loaded = mesh::load_partition(problem.cfg.mesh_file, global, options);
  part.partition_source = loaded.stored ? "stored in " + problem.cfg.mesh_file.filename().string()
                                        : std::string("METIS k-way at start");
  part.local = mesh::build_local_mesh(global, loaded.partition, comm.rank(), problem.cfg.mesh_file.string());
  const mesh::LocalMesh& local = *part.local;

  if (comm.rank() == 0) part.global_disc = std::move(problem.disc);
  problem.disc = dg::discretize(local, problem.cfg.order);

  // Per-element parameters of the part and, across each halo face, of the neighbour.
  dg::SolverSetup& setup = problem.setup;
  if (!setup.element_parameters.empty()) {
    const std::vector<std::vector<double>> whole = std::move(setup.element_parameters);
    setup.element_parameters.assign(whole.size(), {});
    setup.halo.neighbour_parameters.assign(whole.size(), {});
    for (std::size_t p = 0; p < whole.size(); ++p) {
      if (whole[p].empty()) continue;
      for (const int g : local.element_global) setup.element_parameters[p].push_back(whole[p][static_cast<std::size_t>(g)]);
      for (const mesh::HaloFace& f : local.halo_faces)
        setup.halo.neighbour_parameters[p].push_back(whole[p][static_cast<std::size_t>(f.neighbour_element)]);
    }
  }
  // TF/SF: the part's total-field flags, and across each halo face the neighbour's (its face
  // then carries the incident correction as an interior one would).
  if (!setup.total_field.empty()) {
    const std::vector<char> whole = std::move(setup.total_field);
    setup.total_field.clear();
    for (const int g : local.element_global) setup.total_field.push_back(whole[static_cast<std::size_t>(g)]);
    setup.halo.neighbour_total_field.clear();
    for (const mesh::HaloFace& f : local.halo_faces)
      setup.halo.neighbour_total_field.push_back(whole[static_cast<std::size_t>(f.neighbour_element)]);
  }
}

}  // namespace

void make_part(Problem& problem, Part& part, const dg::Communicator& comm, std::ostream& log) {
  part.comm = &comm;
  part.parts = comm.size();
  const auto start = std::chrono::steady_clock::now();
  if (part.distributed()) read_part(problem, part, comm);
  else cut_part(problem, part, comm);
  // The slowest rank's time to read its part (with its discretization and element set-up).
  const double part_seconds = comm.max(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  const mesh::LocalMesh& local = *part.local;

  // The incident wave enters where the whole mesh begins: the minimum over the ranks of each
  // part's front is the serial run's value exactly (the same nodes, computed the same way).
  dg::SolverSetup& setup = problem.setup;
  if (setup.incident) setup.incident_front = comm.min(dg::plane_wave_front(problem.disc, setup.incident->direction));
  part.exchange = comm.halo_exchange(local);
  setup.halo.faces = local.halo_faces;
  setup.halo.exchange = part.exchange.get();
  make_blocks(part, problem.disc);

  const std::vector<int> counts = comm.gather(std::span<const int>(std::vector<int>{
      static_cast<int>(local.element_global.size()), local.num_halo_faces()}));
  // gather_state's map (rank 0 writes the files alone only with a serial HDF5, and then no rank
  // reads only its part).
  if (!part.distributed()) part.gathered_elements = comm.gather(std::span<const int>(local.element_global));
  if (comm.rank() == 0) {
    std::vector<int> elements, halo;
    for (std::size_t r = 0; r < counts.size(); r += 2) {
      elements.push_back(counts[r]);
      halo.push_back(counts[r + 1]);
    }
    part.rank_elements = elements;
    part.rank_halo_faces = halo;
    if (!part.meshed_note.empty()) log << "[rtdg] " << part.meshed_note << "\n";
    log << "[rtdg] " << comm.describe() << ": partition " << part.partition_source << ", " << range_text(elements)
        << " elements and " << range_text(halo) << " halo faces per rank";
    if (part.distributed()) {
      char seconds[32];
      std::snprintf(seconds, sizeof seconds, "%.3g", part_seconds);
      log << (part.input == MeshInput::How::read ? " (read and set up in " : " (partitioned, sent and set up in ")
          << seconds << " s)";
    }
    log << "\n";
  }
}

std::vector<double> gather_state(const Part& part, std::span<const double> local, int components, int Np) {
  const std::vector<double> all = part.comm->gather(local);
  if (!part.root()) return {};
  const int K = part.global_K;
  std::vector<double> out(flat(components, K, 0, Np, 0), 0.0);
  // Rank r's block is [component][K_r][Np] for its elements, listed in gathered_elements.
  std::size_t offset = 0, first = 0;
  for (const int Kr : part.rank_elements) {
    for (int c = 0; c < components; ++c)
      for (int k = 0; k < Kr; ++k) {
        const int g = part.gathered_elements[first + static_cast<std::size_t>(k)];
        std::copy_n(all.begin() + static_cast<std::ptrdiff_t>(offset + flat(c, Kr, k, Np, 0)), Np,
                    out.begin() + static_cast<std::ptrdiff_t>(flat(c, K, g, Np, 0)));
      }
    offset += flat(components, Kr, 0, Np, 0);
    first += static_cast<std::size_t>(Kr);
  }
  return out;
}

void make_blocks(Part& part, const dg::Discretization& local_disc) {
  const dg::Communicator& comm = *part.comm;
  const long long K = part.global_K, P = comm.size();
  auto first_of = [&](long long r) { return K * r / P; };
  part.block_first = first_of(comm.rank());
  part.block_rows = static_cast<int>(first_of(comm.rank() + 1) - part.block_first);
  // Local elements grouped by the rank whose block holds them (local order is not global
  // order: elements without halo faces come first).
  const std::vector<int>& global = part.local->element_global;
  part.block_send_counts.assign(static_cast<std::size_t>(P), 0);
  std::vector<int> owner(global.size());
  for (std::size_t k = 0; k < global.size(); ++k) {
    // The last rank r with first_of(r) <= g.
    long long r = global[k] * P / K;
    while (r + 1 < P && first_of(r + 1) <= global[k]) ++r;
    while (r > 0 && first_of(r) > global[k]) --r;
    owner[k] = static_cast<int>(r);
    ++part.block_send_counts[static_cast<std::size_t>(r)];
  }
  part.block_send_order.resize(global.size());
  std::iota(part.block_send_order.begin(), part.block_send_order.end(), 0);
  std::stable_sort(part.block_send_order.begin(), part.block_send_order.end(),
                   [&](int a, int b) { return owner[static_cast<std::size_t>(a)] < owner[static_cast<std::size_t>(b)]; });
  std::vector<int> ids;
  for (const int k : part.block_send_order) ids.push_back(global[static_cast<std::size_t>(k)]);
  const std::vector<int> ones(static_cast<std::size_t>(P), 1);
  part.block_receive_counts = comm.all_to_all(std::span<const int>(part.block_send_counts), std::span<const int>(ones));
  const std::vector<int> arrived = comm.all_to_all(std::span<const int>(ids), std::span<const int>(part.block_send_counts));
  part.block_arrivals.clear();
  for (const int g : arrived) part.block_arrivals.push_back(static_cast<int>(g - part.block_first));
  if (static_cast<int>(part.block_arrivals.size()) != part.block_rows)
    throw dg::Error("parallel output: rank " + std::to_string(comm.rank()) + " received " +
                    std::to_string(part.block_arrivals.size()) + " elements for a block of " +
                    std::to_string(part.block_rows));
  // The block's node coordinates, moved like a state of dim components.
  const int Np = local_disc.element.Np, Kl = local_disc.K;
  const Eigen::MatrixXd* coordinates[3] = {&local_disc.x, &local_disc.y, &local_disc.z};
  std::vector<double> xyz(flat(local_disc.dim, Kl, 0, Np, 0));
  for (int d = 0; d < local_disc.dim; ++d)
    for (int k = 0; k < Kl; ++k)
      for (int i = 0; i < Np; ++i) xyz[flat(d, Kl, k, Np, i)] = (*coordinates[d])(i, k);
  part.block_xyz = block_values(part, xyz, local_disc.dim, Np);
}

std::vector<double> block_values(const Part& part, std::span<const double> local, int components, int Np) {
  const int Kl = static_cast<int>(part.local->element_global.size());
  const std::size_t per_element = static_cast<std::size_t>(components) * static_cast<std::size_t>(Np);
  // Sent per element: [component][Np], elements in block_send_order.
  std::vector<double> send;
  send.reserve(part.block_send_order.size() * per_element);
  for (const int k : part.block_send_order)
    for (int c = 0; c < components; ++c) {
      const auto from = local.begin() + static_cast<std::ptrdiff_t>(flat(c, Kl, k, Np, 0));
      send.insert(send.end(), from, from + Np);
    }
  const std::vector<int> counts = value_counts(part.block_send_counts, per_element);
  const std::vector<double> arrived = part.comm->all_to_all(std::span<const double>(send), std::span<const int>(counts));
  const int rows = part.block_rows;
  std::vector<double> out(flat(components, rows, 0, Np, 0));
  for (std::size_t e = 0; e < part.block_arrivals.size(); ++e)
    for (int c = 0; c < components; ++c)
      std::copy_n(arrived.begin() + static_cast<std::ptrdiff_t>(e * per_element + static_cast<std::size_t>(c * Np)), Np,
                  out.begin() + static_cast<std::ptrdiff_t>(flat(c, rows, part.block_arrivals[e], Np, 0)));
  return out;
}

std::vector<double> local_from_blocks(const Part& part, std::span<const double> block, int components, int Np) {
  const int rows = part.block_rows;
  const std::size_t per_element = static_cast<std::size_t>(components) * static_cast<std::size_t>(Np);
  // Back the way block_values came: the block's rows in arrival order (grouped by the rank
  // that sent them), to that rank.
  std::vector<double> send;
  send.reserve(part.block_arrivals.size() * per_element);
  for (const int row : part.block_arrivals)
    for (int c = 0; c < components; ++c) {
      const auto from = block.begin() + static_cast<std::ptrdiff_t>(flat(c, rows, row, Np, 0));
      send.insert(send.end(), from, from + Np);
    }
  const std::vector<int> counts = value_counts(part.block_receive_counts, per_element);
  const std::vector<double> arrived = part.comm->all_to_all(std::span<const double>(send), std::span<const int>(counts));
  // They arrive as this rank sent them: in block_send_order.
  const int Kl = static_cast<int>(part.local->element_global.size());
  std::vector<double> out(flat(components, Kl, 0, Np, 0));
  for (std::size_t j = 0; j < part.block_send_order.size(); ++j)
    for (int c = 0; c < components; ++c)
      std::copy_n(arrived.begin() + static_cast<std::ptrdiff_t>(j * per_element + static_cast<std::size_t>(c * Np)), Np,
                  out.begin() + static_cast<std::ptrdiff_t>(flat(c, Kl, part.block_send_order[j], Np, 0)));
  return out;
}

}  // namespace rtdg::runner
