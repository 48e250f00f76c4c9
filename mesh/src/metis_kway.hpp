// The METIS call behind partition_mesh (private to the mesh module): metis_kway.cpp with
// METIS, metis_unavailable.cpp without.
#pragma once

#include "mesh/partition.hpp"

#include <string_view>
#include <vector>

namespace rtdg::mesh::detail {

// METIS_PartGraphKway on the dual graph; weights: [K] element weights >= 1. Returns [K] parts.
std::vector<int> metis_kway(const DualGraph& graph, const std::vector<int>& weights, int parts, int seed,
                            double tolerance, std::string_view source);

}  // namespace rtdg::mesh::detail
