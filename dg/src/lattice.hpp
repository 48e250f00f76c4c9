// Integer indices of the equispaced lattice of order n on a simplex, in the order every node
// set of the book uses (nodes.hpp, equispaced.hpp): i (the r index) fastest, then j (s), then
// k (t), with i + j + k <= n. Entries beyond the dimension are 0. Private to dg.
#pragma once

#include <array>
#include <vector>

namespace rtdg::dg::detail {

inline std::vector<std::array<int, 3>> lattice_indices(int dim, int n) {
  std::vector<std::array<int, 3>> indices;
  const int k_max = dim >= 3 ? n : 0;
  for (int k = 0; k <= k_max; ++k) {
    const int j_max = dim >= 2 ? n - k : 0;
    for (int j = 0; j <= j_max; ++j) {
      for (int i = 0; i <= n - j - k; ++i) indices.push_back({i, j, k});
    }
  }
  return indices;
}

}  // namespace rtdg::dg::detail
