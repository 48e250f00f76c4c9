// METIS_PartGraphKway with fixed options, so a partition depends only on its inputs.
#include "metis_kway.hpp"

#include "text.hpp"

#include <metis.h>

#include <cmath>
#include <string>

namespace rtdg::mesh::detail {
namespace {

std::vector<idx_t> to_idx(const std::vector<int>& values) { return {values.begin(), values.end()}; }

std::string metis_status(int status) {
  switch (status) {
    case METIS_ERROR_INPUT: return "METIS_ERROR_INPUT (invalid input)";
    case METIS_ERROR_MEMORY: return "METIS_ERROR_MEMORY (out of memory)";
    default: return "METIS_ERROR (" + std::to_string(status) + ")";
  }
}

}  // namespace

std::vector<int> metis_kway(const DualGraph& graph, const std::vector<int>& weights, int parts, int seed,
                            double tolerance, std::string_view source) {
  idx_t nvertices = static_cast<idx_t>(graph.offsets.size() - 1);
  idx_t nconstraints = 1;
  idx_t nparts = parts;
  std::vector<idx_t> xadj = to_idx(graph.offsets);
  std::vector<idx_t> adjncy = to_idx(graph.adjacency);
  std::vector<idx_t> vwgt = to_idx(weights);
  // Edge weight = shared faces: the cut then counts the face traces a step exchanges.
  std::vector<idx_t> adjwgt = to_idx(graph.face_count);

  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_NUMBERING] = 0;
  options[METIS_OPTION_SEED] = seed;
  options[METIS_OPTION_UFACTOR] = static_cast<idx_t>(std::lround(1000.0 * (tolerance - 1.0)));

  idx_t cut = 0;
  std::vector<idx_t> part(static_cast<std::size_t>(nvertices), 0);
  // METIS wants non-null adjacency arrays even for a graph without edges.
  idx_t dummy = 0;
  const int status = METIS_PartGraphKway(&nvertices, &nconstraints, xadj.data(), adjncy.empty() ? &dummy : adjncy.data(),
                                         vwgt.data(), nullptr, adjwgt.empty() ? &dummy : adjwgt.data(), &nparts,
                                         nullptr, nullptr, options, &cut, part.data());
  if (status != METIS_OK) {
    fail(source, "METIS_PartGraphKway into " + std::to_string(parts) + " parts failed: " + metis_status(status));
  }
  return {part.begin(), part.end()};
}

}  // namespace rtdg::mesh::detail
