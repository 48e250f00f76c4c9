// Human- and machine-readable dumps of a reference element (`rtdg element`).
#pragma once

#include "dg/element.hpp"

#include <string>

namespace rtdg::dg {

enum class ReportFormat { text, json };

// Text: a header, then nodes and every operator with labelled rows, 17 significant digits.
// JSON, one line, keys in this order: "shape", "dim", "N", "Np", "Nfp", "Nfaces",
//   "nodes": {"r", "s", "t"} (arrays; s and t only in 2D/3D), "V", "invV", "M", "Dr", "Ds",
//   "Dt" (arrays of rows; Ds and Dt only in 2D/3D), "Fmask" (one array of volume node indices
//   per face), "LIFT" (array of rows). Doubles round-trip exactly.
std::string element_report(const Element& element, ReportFormat format);

}  // namespace rtdg::dg
