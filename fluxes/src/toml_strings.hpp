// Locating the characters of a TOML string value in its file. toml++ says where a value
// starts (its opening quote); this re-reads the raw text from there, decoding the four TOML
// string forms and their escapes, so an expression error at character i of the decoded string
// names the file line and column where that character was written.
#pragma once

#include "fluxes/source_text.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace fluxes::detail {

// The string value that starts at line:column (1-based; columns count characters) of
// file_text, or nullopt if the raw text there does not decode to `expected` (which would be a
// bug here; the caller then falls back to approximate positions).
std::optional<SourceText> locate_toml_string(std::string_view file_text, const std::string& file, int line,
                                             int column, std::string_view expected);

}  // namespace fluxes::detail
