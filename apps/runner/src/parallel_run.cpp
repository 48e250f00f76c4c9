#include "parallel_run.hpp"

#include <dg/error.hpp>
#include <dg/incident.hpp>
#include <mesh/partition.hpp>
#include <rtcg/backend.hpp>

#include <algorithm>
#include <cstdlib>
#include <ostream>
#include <string>

namespace rtdg::runner {
namespace {

std::size_t flat(long long a, long long B, long long b, long long C, long long c) {
  return static_cast<std::size_t>((a * B + b) * C + c);
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
  part.exchange = comm.halo_exchange(local);
  setup.halo.faces = local.halo_faces;
  setup.halo.exchange = part.exchange.get();

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

std::vector<double> local_state(const Part& part, std::span<const double> global, int components, int Np) {
  const std::vector<int>& elements = part.local->element_global;
  const int Kl = static_cast<int>(elements.size()), K = part.global_K;
  std::vector<double> out(flat(components, Kl, 0, Np, 0));
  for (int c = 0; c < components; ++c)
    for (int k = 0; k < Kl; ++k)
      std::copy_n(global.begin() + static_cast<std::ptrdiff_t>(flat(c, K, elements[static_cast<std::size_t>(k)], Np, 0)), Np,
                  out.begin() + static_cast<std::ptrdiff_t>(flat(c, Kl, k, Np, 0)));
  return out;
}

}  // namespace rtdg::runner
