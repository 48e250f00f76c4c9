// rtdg export <solution.h5> [-o out.vtu]
// rtdg export <a.h5> <b.h5> ... -o folder [--pvd series.pvd]
// Turns HDF5 solution files (snapshots or checkpoints, rtdg::output::write_solution) into VTU
// files for ParaView. A machine whose rtdg has no VTK (a GPU node) writes HDF5; this command,
// run where VTK is, converts afterwards. The work is rtdg::output; this file only maps the
// command line onto it.
#include "rtdg/command.hpp"

#include <output/error.hpp>
#include <output/hdf5_solution.hpp>
#include <output/vtu.hpp>

#include <dg/shape.hpp>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

struct ExportArguments {
  std::vector<std::string> inputs;
  std::string output;
  std::string pvd;
};

std::string describe(const rtdg::output::Solution& s) {
  std::string arrays;
  for (const rtdg::output::PointArray& array : rtdg::output::point_arrays(s.names, s.dim)) {
    arrays += (arrays.empty() ? "" : ", ") + array.name;
  }
  std::ostringstream text;
  text.precision(17);
  text << s.K << " " << (s.shape == rtdg::dg::Shape::tetrahedron ? "tetrahedra"
                         : s.shape == rtdg::dg::Shape::triangle  ? "triangles"
                                                                 : "intervals")
       << " of order " << s.N << ", time " << s.time << ", step " << s.step << ", arrays " << arrays;
  return text.str();
}

void run_export(const ExportArguments& arguments) {
  if (!rtdg::output::vtu_available()) {
    throw rtdg::output::Error(
        "rtdg export: this rtdg was built without VTK (RTDG_WITH_VTK), so it cannot write VTU files; run `rtdg "
        "export` on a machine whose rtdg has VTK (`rtdg info` tells), or rebuild with libvtk9-dev installed");
  }
  const bool many = arguments.inputs.size() > 1;
  if (many && arguments.output.empty()) {
    throw rtdg::output::Error("rtdg export: several inputs need -o <folder> for their .vtu files");
  }
  if (many) fs::create_directories(arguments.output);
  std::vector<std::pair<double, fs::path>> written;  // (time, file), for the series
  for (const std::string& input : arguments.inputs) {
    fs::path output;
    if (many || (!arguments.output.empty() && fs::is_directory(arguments.output))) {
      output = fs::path(arguments.output) / fs::path(input).filename().replace_extension(".vtu");
    } else if (!arguments.output.empty()) {
      output = arguments.output;
    } else {
      output = fs::path(input).replace_extension(".vtu");
    }
    const rtdg::output::Solution solution = rtdg::output::read_solution(input);
    rtdg::output::write_vtu(output, solution);
    written.emplace_back(solution.time, output);
    std::cout << output.string() << ": " << describe(solution) << "\n";
  }
  if (!arguments.pvd.empty()) {
    // A fresh series, in time order (the inputs may come in any order).
    std::error_code ignored;
    fs::remove(arguments.pvd, ignored);
    rtdg::output::PvdSeries series(arguments.pvd);
    std::stable_sort(written.begin(), written.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [time, file] : written) series.add(time, file);
    std::cout << series.path().string() << ": " << series.entries().size() << " snapshots\n";
  }
}

void setup_export(CLI::App& rtdg) {
  auto arguments = std::make_shared<ExportArguments>();
  CLI::App* command = rtdg.add_subcommand("export", "Convert HDF5 solution files (snapshots, checkpoints) to VTU for ParaView");
  command->add_option("inputs", arguments->inputs, "solution files (.h5) written by rtdg run")
      ->required()
      ->check(CLI::ExistingFile);
  command->add_option("-o,--output", arguments->output,
                      "the .vtu to write (default: the input with .vtu), or a folder (required with several inputs)");
  command->add_option("--pvd", arguments->pvd, "also write a ParaView series (.pvd) of the converted files, by time");
  command->callback([arguments] { run_export(*arguments); });
}

}  // namespace

RTDG_COMMAND(setup_export);
