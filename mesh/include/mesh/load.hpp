// One entry point for every mesh file rtdg reads, and the `rtdg mesh` conversion:
//   .geo  meshed by Gmsh with parameters    .msh  read by Gmsh    .h5  written by rtdg mesh
#pragma once

#include "mesh/gmsh_io.hpp"
#include "mesh/mesh.hpp"
#include "mesh/partition.hpp"
#include "mesh/reorder.hpp"

#include <array>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rtdg::mesh {

// Two boundary groups to make periodic by name (in addition to Gmsh's own periodic
// constraints): x_b = x_a + shift; without a shift, the difference of the groups' centroids.
struct PeriodicNames {
  std::string a;
  std::string b;
  std::optional<std::array<double, 3>> shift;
};

struct LoadOptions {
  Parameters parameters;               // .geo only
  std::vector<PeriodicNames> periodic;  // .geo and .msh only
};

// Reads, builds and validates a mesh from .geo, .msh or .h5 (chosen by extension). Throws
// MeshError naming the file: e.g. parameters or periodic pairs given for an .h5 file, an
// unknown boundary group name, or any error of read_gmsh, build_mesh and read_hdf5.
Mesh load_mesh(const std::filesystem::path& file, const LoadOptions& options = {});

// Parses "name=value" (the -D option); throws MeshError on a missing '=' or a value that is
// not a finite number.
std::pair<std::string, double> parse_parameter(std::string_view text);

// Parses "a:b" (the --periodic option).
PeriodicNames parse_periodic(std::string_view text);

// `rtdg mesh`: loads `input` and writes `output`, an rtdg .h5 mesh, or a .msh file (from
// a .geo or .msh input) in `msh_format`. Returns the mesh written. An .h5 output keeps the
// partitions an .h5 input stores.
Mesh convert_mesh(const std::filesystem::path& input, const std::filesystem::path& output,
                  const LoadOptions& options = {}, MshFormat msh_format = {});

// `rtdg mesh ... --partitions P`: convert_mesh, and a partition for each entry of
// `partitions` (partition_mesh) stored in the .h5 output beside those an .h5 input holds for
// other part counts. Throws MeshError for partitions asked of a .msh output. Returns the mesh
// and every partition the output holds, ascending part count. `order` renumbers the elements of
// an .h5 output (mesh/reorder.hpp; the input's stored partitions follow); a .msh output keeps
// the input's order (MeshError when asked for another).
struct ConvertedMesh {
  Mesh mesh;
  std::vector<Partition> partitions;
};
ConvertedMesh convert_mesh(const std::filesystem::path& input, const std::filesystem::path& output,
                           const LoadOptions& options, MshFormat msh_format,
                           const std::vector<PartitionOptions>& partitions, ElementOrder order = ElementOrder::as_read);

}  // namespace rtdg::mesh
