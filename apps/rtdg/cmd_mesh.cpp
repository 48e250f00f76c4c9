// rtdg mesh in.geo|in.msh|in.h5 [-D name=value ...] [--periodic a:b ...] [--partitions P ...] -o mesh.h5
// Meshes a .geo (parameters set with -D) or reads a .msh, validates the mesh, writes it with
// its connectivity (and METIS partitions into P parts) to .h5 (or to .msh, --msh-version,
// --binary) and prints a summary. The work is rtdg::mesh::convert_mesh; this file only maps
// the command line onto it.
#include "rtdg/command.hpp"

#include <mesh/load.hpp>
#include <mesh/partition.hpp>
#include <mesh/reorder.hpp>
#include <mesh/summary.hpp>

#include <iostream>
#include <memory>
#include <string>
#include <vector>

namespace {

struct MeshArguments {
  std::string input;
  std::string output;
  std::vector<std::string> defines;
  std::vector<std::string> periodic;
  std::string msh_version = "4.1";
  bool binary = false;
  std::vector<int> partitions;
  int partition_seed = 0;
  double partition_tolerance = 1.03;
  std::string order = "as-read";
};

void run_mesh(const MeshArguments& arguments) {
  rtdg::mesh::LoadOptions options;
  for (const std::string& define : arguments.defines) {
    const auto [name, value] = rtdg::mesh::parse_parameter(define);
    options.parameters[name] = value;
  }
  for (const std::string& pair : arguments.periodic) options.periodic.push_back(rtdg::mesh::parse_periodic(pair));
  const rtdg::mesh::MshFormat format{arguments.msh_version == "2.2" ? 2.2 : 4.1, arguments.binary};
  std::vector<rtdg::mesh::PartitionOptions> partitions;
  for (int parts : arguments.partitions) {
    partitions.push_back({parts, {}, arguments.partition_seed, arguments.partition_tolerance});
  }
  const rtdg::mesh::ConvertedMesh converted =
      rtdg::mesh::convert_mesh(arguments.input, arguments.output, options, format, partitions,
                               arguments.order == "morton" ? rtdg::mesh::ElementOrder::morton
                                                           : rtdg::mesh::ElementOrder::as_read);
  std::cout << arguments.output << ": " << rtdg::mesh::format_summary(rtdg::mesh::summarize(converted.mesh));
  std::cout << "  element order: " << arguments.order << " (mean |k - neighbour| over interior faces "
            << rtdg::mesh::mean_neighbour_distance(converted.mesh) << ")\n";
  for (const rtdg::mesh::Partition& partition : converted.partitions) {
    std::cout << "  partition: "
              << rtdg::mesh::format_partition(partition, rtdg::mesh::partition_stats(converted.mesh, partition)) << "\n";
  }
}

void setup_mesh(CLI::App& rtdg) {
  auto arguments = std::make_shared<MeshArguments>();
  CLI::App* command = rtdg.add_subcommand(
      "mesh", "Mesh a .geo file or read a .msh file, validate it, and write it with its connectivity (.h5)");
  command->add_option("input", arguments->input, "a .geo geometry (meshed by Gmsh) or a .msh mesh")
      ->required()
      ->check(CLI::ExistingFile);
  command->add_option("-o,--output", arguments->output, "the mesh file to write: .h5 (or .msh)")->required();
  command->add_option("-D,--define", arguments->defines, "name=value: set a parameter of the .geo file (repeatable)")
      ->allow_extra_args(false);
  command->add_option("--periodic", arguments->periodic,
                      "a:b: identify boundary groups a and b by translation (repeatable)")
      ->allow_extra_args(false);
  command->add_option("--msh-version", arguments->msh_version, "MSH version of a .msh output")
      ->check(CLI::IsMember({"2.2", "4.1"}));
  command->add_flag("--binary", arguments->binary, "write a .msh output in binary");
  command->add_option("--partitions", arguments->partitions,
                      "P[,P...]: store a METIS partition into P parts in the .h5 output (repeatable); those an "
                      ".h5 input holds are kept")
      ->delimiter(',')
      ->allow_extra_args(false)
      ->check(CLI::Range(1, 1000000));
  command->add_option("--order", arguments->order,
                      "element order of an .h5 output: as-read (the input's) or morton (by the Z-order curve of "
                      "the centroids, so that face neighbours sit close in memory)")
      ->check(CLI::IsMember({"as-read", "morton"}));
  command->add_option("--partition-seed", arguments->partition_seed, "METIS's random seed (partitions are reproducible)");
  command->add_option("--partition-tolerance", arguments->partition_tolerance,
                      "allowed heaviest / average part, 1.001 to 2")
      ->check(CLI::Range(1.001, 2.0));
  command->callback([arguments] { run_mesh(*arguments); });
}

}  // namespace

RTDG_COMMAND(setup_mesh);
