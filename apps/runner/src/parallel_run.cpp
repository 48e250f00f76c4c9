#include "parallel_run.hpp"

#include <dg/error.hpp>
#include <dg/incident.hpp>
#include <mesh/partition.hpp>
#include <rtcg/backend.hpp>

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <numeric>
#include <ostream>
#include <string>

namespace rtdg::runner {
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

void make_part(Problem& problem, Part& part, const dg::Communicator& comm, std::ostream& log) {
  part.comm = &comm;
  part.parts = comm.size();
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
  part.element_part = loaded.partition.element_part;
  const mesh::LocalMesh& local = *part.local;

  if (comm.rank() == 0) part.global_disc = std::move(problem.disc);
  problem.disc = dg::discretize(local, problem.cfg.order);

  // The incident wave enters where the whole mesh begins: the minimum over the ranks of each
  // part's front is the serial run's value exactly (the same nodes, computed the same way).
  dg::SolverSetup& setup = problem.setup;
  if (setup.incident) setup.incident_front = comm.min(dg::plane_wave_front(problem.disc, setup.incident->direction));

  // Per-element parameters of the part and, across each halo face, of the neighbour.
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
    part.global_total_field = std::move(setup.total_field);
    setup.total_field.clear();
    for (const int g : local.element_global) setup.total_field.push_back(part.global_total_field[static_cast<std::size_t>(g)]);
    setup.halo.neighbour_total_field.clear();
    for (const mesh::HaloFace& f : local.halo_faces)
      setup.halo.neighbour_total_field.push_back(part.global_total_field[static_cast<std::size_t>(f.neighbour_element)]);
  }
  part.exchange = comm.halo_exchange(local);
  setup.halo.faces = local.halo_faces;
  setup.halo.exchange = part.exchange.get();
  make_blocks(part, problem.disc);

  const std::vector<int> counts = comm.gather(std::span<const int>(std::vector<int>{
      static_cast<int>(local.element_global.size()), local.num_halo_faces()}));
  part.gathered_elements = comm.gather(std::span<const int>(local.element_global));
  if (comm.rank() == 0) {
    std::vector<int> elements, halo;
    for (std::size_t r = 0; r < counts.size(); r += 2) {
      elements.push_back(counts[r]);
      halo.push_back(counts[r + 1]);
    }
    part.rank_elements = elements;
    part.rank_halo_faces = halo;
    log << "[rtdg] " << comm.describe() << ": partition " << part.partition_source << ", " << range_text(elements)
        << " elements and " << range_text(halo) << " halo faces per rank\n";
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
