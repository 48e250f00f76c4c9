// partition_mesh and what is known about a partition: the dual graph METIS cuts, the checks
// a stored partition must pass, the balance report.
#include "mesh/partition.hpp"

#include "mesh/error.hpp"
#include "mesh/hdf5_io.hpp"

#include "metis_kway.hpp"
#include "text.hpp"

#include <algorithm>
#include <iomanip>
#include <set>
#include <sstream>

namespace rtdg::mesh {
namespace {

using detail::fail;
using detail::ix;

// Checks options.element_weights; returns them, or [K] ones when empty.
std::vector<int> element_weights(const std::vector<int>& weights, int K, std::string_view source) {
  if (weights.empty()) return std::vector<int>(ix(K), 1);
  if (weights.size() != ix(K)) {
    fail(source, "element weights: " + std::to_string(weights.size()) + " values for " + std::to_string(K) +
                     " elements");
  }
  for (std::size_t k = 0; k < weights.size(); ++k) {
    if (weights[k] < 1) {
      fail(source, "element weights: element " + std::to_string(k) + " has weight " + std::to_string(weights[k]) +
                       "; weights are relative costs >= 1");
    }
  }
  return weights;
}

}  // namespace

bool have_metis() { return RTDG_HAVE_METIS != 0; }

DualGraph dual_graph(const Mesh& mesh) {
  const int K = mesh.num_elements();
  DualGraph graph;
  graph.offsets.reserve(ix(K) + 1);
  graph.offsets.push_back(0);
  std::array<int, 4> neighbours{};
  for (int k = 0; k < K; ++k) {
    int n = 0;
    for (int f = 0; f < mesh.num_faces(); ++f) {
      const int k2 = mesh.EToE[ix(k)][ix(f)];
      if (k2 != k) neighbours[ix(n++)] = k2;
    }
    // Insertion sort of at most 4 entries (std::sort on a small std::array trips GCC 12's
    // -Warray-bounds).
    for (int i = 1; i < n; ++i) {
      for (int j = i; j > 0 && neighbours[ix(j)] < neighbours[ix(j - 1)]; --j) std::swap(neighbours[ix(j)], neighbours[ix(j - 1)]);
    }
    for (int i = 0; i < n; ++i) {
      if (i > 0 && neighbours[ix(i)] == neighbours[ix(i - 1)]) {
        ++graph.face_count.back();
      } else {
        graph.adjacency.push_back(neighbours[ix(i)]);
        graph.face_count.push_back(1);
      }
    }
    graph.offsets.push_back(static_cast<int>(graph.adjacency.size()));
  }
  return graph;
}

void check_partition(const Partition& partition, int K, std::string_view source) {
  if (partition.parts < 1) fail(source, "a partition into " + std::to_string(partition.parts) + " parts");
  if (partition.element_part.size() != ix(K)) {
    fail(source, "the partition into " + std::to_string(partition.parts) + " parts has " +
                     std::to_string(partition.element_part.size()) + " entries for a mesh of " + std::to_string(K) +
                     " elements");
  }
  std::vector<int> count(ix(partition.parts), 0);
  for (std::size_t k = 0; k < partition.element_part.size(); ++k) {
    const int p = partition.element_part[k];
    if (p < 0 || p >= partition.parts) {
      fail(source, "the partition into " + std::to_string(partition.parts) + " parts puts element " +
                       std::to_string(k) + " in part " + std::to_string(p));
    }
    ++count[ix(p)];
  }
  for (int p = 0; p < partition.parts; ++p) {
    if (count[ix(p)] == 0) {
      fail(source, "part " + std::to_string(p) + " of the partition into " + std::to_string(partition.parts) +
                       " parts has no elements; use fewer parts for a mesh of " + std::to_string(K) + " elements");
    }
  }
}

Partition partition_mesh(const Mesh& mesh, const PartitionOptions& options, std::string_view source) {
  const int K = mesh.num_elements();
  if (options.parts < 1 || options.parts > K) {
    fail(source, "cannot partition " + std::to_string(K) + " elements into " + std::to_string(options.parts) +
                     " parts (1 to " + std::to_string(K) + ")");
  }
  if (!(options.tolerance >= 1.001 && options.tolerance <= 2.0)) {
    fail(source, "partition tolerance " + detail::format_number(options.tolerance) +
                     " (the allowed heaviest / average part weight) must be in [1.001, 2]");
  }
  const std::vector<int> weights = element_weights(options.element_weights, K, source);
  Partition partition;
  partition.parts = options.parts;
  partition.seed = options.seed;
  partition.tolerance = options.tolerance;
  partition.weighted = !options.element_weights.empty() &&
                       std::any_of(weights.begin(), weights.end(), [&](int w) { return w != weights.front(); });
  if (options.parts == 1) {
    // METIS is neither needed nor reliable for one part.
    partition.method = "single";
    partition.element_part.assign(ix(K), 0);
    return partition;
  }
  partition.method = "metis-kway";
  partition.element_part =
      detail::metis_kway(dual_graph(mesh), weights, options.parts, options.seed, options.tolerance, source);
  check_partition(partition, K, source);
  return partition;
}

PartitionStats partition_stats(const Mesh& mesh, const Partition& partition, const std::vector<int>& element_weights) {
  const int K = mesh.num_elements();
  check_partition(partition, K, "partition_stats");
  const std::vector<int> weights = mesh::element_weights(element_weights, K, "partition_stats");
  const std::size_t P = ix(partition.parts);
  PartitionStats stats;
  stats.elements.assign(P, 0);
  stats.weight.assign(P, 0);
  stats.halo_faces.assign(P, 0);
  std::vector<std::set<int>> neighbours(P);
  for (int k = 0; k < K; ++k) {
    const int p = partition.element_part[ix(k)];
    ++stats.elements[ix(p)];
    stats.weight[ix(p)] += weights[ix(k)];
    for (int f = 0; f < mesh.num_faces(); ++f) {
      const int q = partition.element_part[ix(mesh.EToE[ix(k)][ix(f)])];
      if (q == p) continue;
      ++stats.halo_faces[ix(p)];
      neighbours[ix(p)].insert(q);
    }
  }
  for (const auto& set : neighbours) stats.neighbours.push_back(static_cast<int>(set.size()));
  int halo = 0;
  for (int h : stats.halo_faces) halo += h;
  stats.cut_faces = halo / 2;
  long total = 0;
  for (long w : stats.weight) total += w;
  const long heaviest = *std::max_element(stats.weight.begin(), stats.weight.end());
  stats.imbalance = static_cast<double>(heaviest) * static_cast<double>(P) / static_cast<double>(total);
  return stats;
}

std::string format_partition(const Partition& partition, const PartitionStats& stats) {
  const auto range = [](const auto& values) {
    const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
    return *lo == *hi ? std::to_string(*lo) : std::to_string(*lo) + ".." + std::to_string(*hi);
  };
  std::ostringstream text;
  text << partition.parts << (partition.parts == 1 ? " part (" : " parts (") << partition.method;
  if (partition.method != "single") text << ", seed " << partition.seed;
  if (partition.weighted) text << ", weighted";
  text << "): " << range(stats.elements) << " elements per part (imbalance " << std::fixed << std::setprecision(3)
       << stats.imbalance << "), " << stats.cut_faces << " faces cut, " << range(stats.halo_faces) << " halo faces per part";
  return text.str();
}

LoadedPartition load_partition(const std::filesystem::path& file, const Mesh& mesh, const PartitionOptions& options) {
  const std::string extension = detail::lower_extension(file);
  if (extension == ".h5" || extension == ".hdf5") {
    for (Partition& stored : read_hdf5_partitions(file)) {
      if (stored.parts != options.parts) continue;
      check_partition(stored, mesh.num_elements(), file.string());
      return {std::move(stored), true};
    }
  }
  return {partition_mesh(mesh, options, file.string()), false};
}

}  // namespace rtdg::mesh
