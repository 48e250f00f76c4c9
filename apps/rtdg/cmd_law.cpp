// `rtdg law check <file>`: reads a conservation-law file, checks it, and prints its fields,
// parameters, definitions, numerical flux, boundary conditions and the generated code (for
// every piece, derived numerical fluxes included), or every error with its
// file:line:column. The work is fluxes::check_law_report; this only parses the command line.
#include "rtdg/command.hpp"

#include <fluxes/diagnostics.hpp>
#include <fluxes/report.hpp>

#include <charconv>
#include <iostream>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

namespace {

struct LawCheckOptions {
  std::string file;
  bool single = false;
  std::vector<std::string> overrides;  // name=value
};

// "alpha=0.5" -> {alpha, 0.5}; the location names the command-line argument.
fluxes::ParameterOverride parse_override(const std::string& text, std::size_t index) {
  const fluxes::Location where{"--set " + text, 0, 0};
  const auto equals = text.find('=');
  if (equals == std::string::npos || equals == 0) {
    throw fluxes::Error(where, "expected name=value, e.g. --set alpha=0.5");
  }
  fluxes::ParameterOverride o;
  o.name = text.substr(0, equals);
  const std::string value = text.substr(equals + 1);
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), o.value);
  if (ec != std::errc() || end != value.data() + value.size() || value.empty()) {
    throw fluxes::Error(where, "'" + value + "' is not a number");
  }
  o.where = fluxes::Location{"command line (--set #" + std::to_string(index + 1) + ")", 0, 0};
  return o;
}

void setup_law(CLI::App& rtdg) {
  CLI::App* law = rtdg.add_subcommand("law", "Conservation-law files");
  law->require_subcommand(1);
  auto options = std::make_shared<LawCheckOptions>();
  CLI::App* check = law->add_subcommand("check", "Parse and check a law file; print its fields, parameters, "
                                                  "definitions, boundary conditions and the generated code");
  check->add_option("file", options->file, "The law file (TOML), e.g. data/laws/maxwell3d.toml")->required();
  check->add_flag("--float", options->single, "Generate single-precision code (default: double)");
  check->add_option("--set", options->overrides, "Override a parameter: name=value (repeatable)");
  check->callback([options]() {
    fluxes::ReportOptions report;
    report.scalar = options->single ? fluxes::ScalarType::float32 : fluxes::ScalarType::float64;
    try {
      for (std::size_t i = 0; i < options->overrides.size(); ++i) {
        report.overrides.push_back(parse_override(options->overrides[i], i));
      }
      std::cout << fluxes::check_law_report(options->file, report);
    } catch (const fluxes::Error& e) {
      // One "file:line:column: error: message" line per problem, as compilers print them,
      // so editors can jump to each; then a non-zero exit with nothing more said.
      for (const auto& d : e.diagnostics()) std::cerr << fluxes::to_string(d) << "\n";
      throw CLI::RuntimeError(1);
    }
  });
}

}  // namespace

RTDG_COMMAND(setup_law);
