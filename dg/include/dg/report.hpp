// Human- and machine-readable dumps of a reference element (`rtdg element`).
#pragma once

#include "dg/element.hpp"

#include <string>

namespace rtdg::dg {

enum class ReportFormat { text, json };

// Text: a header, then nodes and every operator with labelled rows, 17 significant digits.
// JSON: {"shape", "N", "Np", "Nfp", "Nfaces", "dim", "nodes": {"r": [...], ...},
//        "V", "invV", "M", "Dr", ("Ds", "Dt"), "LIFT": arrays of rows, "Fmask": Nfaces arrays
//        (one per face, the face's node indices)}. Doubles round-trip exactly.
std::string element_report(const Element& element, ReportFormat format);

}  // namespace rtdg::dg
