// point_arrays: how component names become VTU arrays (vtu.hpp). Needs no VTK.
#include "output/vtu.hpp"

#include <algorithm>
#include <map>

namespace rtdg::output {

std::vector<PointArray> point_arrays(const std::vector<std::string>& names, int dim) {
  const auto index_of = [&](const std::string& name) {
    const auto it = std::find(names.begin(), names.end(), name);
    return it == names.end() ? -1 : static_cast<int>(it - names.begin());
  };
  // The vector each component belongs to, if any.
  std::vector<int> in_vector(names.size(), -1);
  std::vector<PointArray> vectors;
  std::map<std::string, bool> tried;
  for (const std::string& name : names) {
    const std::size_t dot = name.rfind('.');
    if (dot == std::string::npos || dot == 0 || dot + 2 != name.size()) continue;
    const std::string base = name.substr(0, dot);
    if (tried[base]) continue;
    tried[base] = true;
    const int x = index_of(base + ".x"), y = index_of(base + ".y"), z = index_of(base + ".z");
    if (x < 0 || y < 0 || (dim >= 3 && z < 0) || index_of(base) >= 0) continue;
    for (int c : {x, y, z}) {
      if (c >= 0) in_vector[static_cast<std::size_t>(c)] = static_cast<int>(vectors.size());
    }
    vectors.push_back({base, {x, y, z}});
  }
  std::vector<PointArray> arrays;
  std::vector<bool> placed(vectors.size(), false);
  for (std::size_t c = 0; c < names.size(); ++c) {
    const int v = in_vector[c];
    if (v < 0) {
      arrays.push_back({names[c], {static_cast<int>(c)}});
    } else if (!placed[static_cast<std::size_t>(v)]) {
      placed[static_cast<std::size_t>(v)] = true;
      arrays.push_back(vectors[static_cast<std::size_t>(v)]);
    }
  }
  return arrays;
}

}  // namespace rtdg::output
