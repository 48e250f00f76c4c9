// What `rtdg law check <file>` prints: the law's fields, parameters, incident fields,
// definitions, numerical flux and boundary conditions, then the C generated for each of its
// pieces.
#pragma once

#include "fluxes/emit_c.hpp"
#include "fluxes/law.hpp"
#include "fluxes/law_lowering.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace fluxes {

struct ReportOptions {
  ScalarType scalar = ScalarType::float64;
  std::vector<ParameterOverride> overrides;
};

// Naming used by the report's code (the DG kernel generator uses its own): interior or
// volume state qM[k], exterior state qP[k], normal n[d], position x[d], time t, parameters
// that are not constant param[i], incident fields inc[k]; outputs out[i].
CNaming report_naming();

// The report for a law already read.
std::string law_report(const Law& law, const ReportOptions& options = {});

// Reads, checks and reports. Throws Error (every problem with file:line:column) when the law
// is invalid.
std::string check_law_report(const std::filesystem::path& path, const ReportOptions& options = {});

}  // namespace fluxes
