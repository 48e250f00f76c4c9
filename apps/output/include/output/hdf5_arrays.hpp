// Small HDF5 files of named float64 arrays with string and number attributes, for derived
// results such as the far fields (docs/scattering.md): written atomically like the solution
// files (hdf5_solution.hpp).
//
//   /                    attribute format = <format>, then `attributes`
//   /<group>/<name>      float64 array of `shape` (row-major); one level of groups
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace rtdg::output {

struct NamedArray {
  std::string group;               // "" for the root
  std::string name;
  std::vector<std::size_t> shape;  // product = values.size()
  std::vector<double> values;
  std::vector<std::pair<std::string, double>> attributes;  // on the dataset
};

// Throws output::Error naming the file.
void write_arrays(const std::filesystem::path& file, const std::string& format,
                  const std::vector<std::pair<std::string, std::string>>& attributes, const std::vector<NamedArray>& arrays);

}  // namespace rtdg::output
