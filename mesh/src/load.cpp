// load_mesh and convert_mesh: pick the reader by extension, add periodic pairs given by name.
#include "mesh/load.hpp"

#include "mesh/build.hpp"
#include "mesh/error.hpp"
#include "mesh/hdf5_io.hpp"

#include "text.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace rtdg::mesh {
namespace {

using detail::fail;

bool is_hdf5_extension(const std::string& extension) { return extension == ".h5" || extension == ".hdf5"; }

int group_index(const RawMesh& raw, const std::string& name) {
  const auto it = std::find(raw.boundary_names.begin(), raw.boundary_names.end(), name);
  if (it == raw.boundary_names.end()) {
    fail(raw.source, "periodic boundary names an unknown group '" + name + "'; boundary groups: " +
                         detail::format_name_list(raw.boundary_names));
  }
  return static_cast<int>(it - raw.boundary_names.begin());
}

std::string trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t");
  return std::string(text.substr(first, last - first + 1));
}

}  // namespace

bool have_gmsh() { return RTDG_HAVE_GMSH != 0; }

Mesh load_mesh(const std::filesystem::path& file, const LoadOptions& options) {
  const std::string extension = detail::lower_extension(file);
  if (is_hdf5_extension(extension)) {
    if (!options.parameters.empty() || !options.periodic.empty()) {
      fail(file.string(), "an .h5 mesh is final: parameters and periodic pairs apply when it is written "
                          "(rtdg mesh in.geo -D ... --periodic a:b -o mesh.h5)");
    }
    return read_hdf5(file);
  }
  if (extension != ".geo" && extension != ".msh") {
    fail(file.string(), "unknown mesh file type '" + extension + "'; rtdg reads .geo, .msh and .h5");
  }
  RawMesh raw = read_gmsh(file, options.parameters);
  for (const PeriodicNames& names : options.periodic) {
    const int a = group_index(raw, names.a);
    const int b = group_index(raw, names.b);
    const bool from_gmsh = std::any_of(raw.periodic.begin(), raw.periodic.end(), [&](const PeriodicSpec& spec) {
      return (spec.group_a == a && spec.group_b == b) || (spec.group_a == b && spec.group_b == a);
    });
    if (!from_gmsh) raw.periodic.push_back({a, b, names.shift});
  }
  return build_mesh(std::move(raw));
}

std::pair<std::string, double> parse_parameter(std::string_view text) {
  const auto equals = text.find('=');
  const std::string name = trim(text.substr(0, equals));
  if (equals == std::string_view::npos || name.empty()) {
    throw MeshError("parameter '" + std::string(text) + "' must have the form name=value");
  }
  const std::string value = trim(text.substr(equals + 1));
  char* end = nullptr;
  errno = 0;
  const double number = std::strtod(value.c_str(), &end);
  if (value.empty() || end != value.c_str() + value.size() || errno == ERANGE || !std::isfinite(number)) {
    throw MeshError("parameter '" + name + "': '" + value + "' is not a finite number");
  }
  return {name, number};
}

PeriodicNames parse_periodic(std::string_view text) {
  const auto colon = text.find(':');
  PeriodicNames names;
  if (colon != std::string_view::npos) {
    names.a = trim(text.substr(0, colon));
    names.b = trim(text.substr(colon + 1));
  }
  if (names.a.empty() || names.b.empty()) {
    throw MeshError("periodic pair '" + std::string(text) + "' must have the form group_a:group_b");
  }
  return names;
}

Mesh convert_mesh(const std::filesystem::path& input, const std::filesystem::path& output,
                  const LoadOptions& options, MshFormat msh_format) {
  return convert_mesh(input, output, options, msh_format, {}).mesh;
}

ConvertedMesh convert_mesh(const std::filesystem::path& input, const std::filesystem::path& output,
                           const LoadOptions& options, MshFormat msh_format,
                           const std::vector<PartitionOptions>& partitions, ElementOrder order) {
  const std::string extension = detail::lower_extension(output);
  const bool h5_input = is_hdf5_extension(detail::lower_extension(input));
  if (is_hdf5_extension(extension)) {
    ConvertedMesh converted{load_mesh(input, options), {}};
    // Partitions stored in an .h5 input stay valid: the elements keep their numbers (or are
    // renumbered with them).
    if (h5_input) converted.partitions = read_hdf5_partitions(input);
    if (order == ElementOrder::morton) {
      const std::vector<int> renumbered = morton_order(converted.mesh);
      converted.mesh = reorder_elements(converted.mesh, renumbered, input.string());
      for (Partition& p : converted.partitions) {
        std::vector<int> part(p.element_part.size());
        for (std::size_t i = 0; i < renumbered.size(); ++i) part[i] = p.element_part[static_cast<std::size_t>(renumbered[i])];
        p.element_part = std::move(part);
      }
    }
    for (const PartitionOptions& request : partitions) {
      Partition partition = partition_mesh(converted.mesh, request, input.string());
      std::erase_if(converted.partitions, [&](const Partition& p) { return p.parts == request.parts; });
      converted.partitions.push_back(std::move(partition));
    }
    std::sort(converted.partitions.begin(), converted.partitions.end(),
              [](const Partition& a, const Partition& b) { return a.parts < b.parts; });
    write_hdf5(converted.mesh, output, {input.string(), options.parameters}, converted.partitions);
    return converted;
  }
  if (extension == ".msh") {
    if (h5_input) {
      fail(output.string(), "a .msh file is written from a .geo or .msh input, not from " + input.string());
    }
    if (!options.periodic.empty()) {
      fail(output.string(), "--periodic pairs are stored in .h5 meshes only; in a .msh file use Gmsh's "
                            "Periodic Curve/Surface ... Translate{...} constraints");
    }
    if (!partitions.empty()) {
      fail(output.string(), "partitions are stored in .h5 meshes only; write mesh.h5 to store them");
    }
    if (order != ElementOrder::as_read) {
      fail(output.string(), "a .msh output keeps the input's element order; write mesh.h5 to reorder the elements");
    }
    return {write_msh(input, options.parameters, output, msh_format), {}};
  }
  fail(output.string(), "unknown output type '" + extension + "'; rtdg mesh writes .h5 (or .msh)");
}

}  // namespace rtdg::mesh
