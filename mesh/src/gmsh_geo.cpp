// .geo parameters through ONELAB: a DefineConstant with a Name takes its value from the ONELAB
// database when the parameter is already there. So: parse once to learn the declared names,
// set the requested values, parse again.
#include "gmsh_support.hpp"

#include "text.hpp"

#include <gmsh.h>

#include <algorithm>
#include <cmath>

namespace rtdg::mesh::detail {
namespace {

// Gmsh publishes model information under these; they are not user parameters.
bool is_internal(const std::string& name) {
  return name.rfind("Gmsh/", 0) == 0 || name.rfind("ONELAB/", 0) == 0;
}

std::string short_name(const std::string& name) {
  const auto slash = name.rfind('/');
  return slash == std::string::npos ? name : name.substr(slash + 1);
}

// The full ONELAB name that `requested` refers to (itself, or the one whose last component
// it is).
std::string resolve(const Parameters& declared, const std::string& requested, const std::string& source) {
  if (declared.count(requested) != 0) return requested;
  std::vector<std::string> matches;
  std::vector<std::string> valid;
  for (const auto& [name, value] : declared) {
    if (short_name(name) == requested) matches.push_back(name);
    valid.push_back(short_name(name) + " (default " + format_number(value) + ")");
  }
  if (matches.size() == 1) return matches.front();
  if (matches.size() > 1) {
    fail(source, "parameter '" + requested + "' is ambiguous: it could be " + format_name_list(matches) +
                     "; use the full name");
  }
  std::string list;
  for (const std::string& entry : valid) list += (list.empty() ? "" : ", ") + entry;
  fail(source, "unknown parameter '" + requested + "'; " +
                   (valid.empty() ? std::string("the file declares no parameters (DefineConstant[ x = {value, Name \"Parameters/x\"} ])")
                                  : "valid parameters: " + list));
}

}  // namespace

Parameters declared_parameters() {
  std::vector<std::string> names;
  gmsh::onelab::getNames(names);
  Parameters declared;
  for (const std::string& name : names) {
    if (is_internal(name)) continue;
    std::vector<double> value;
    gmsh::onelab::getNumber(name, value);
    if (value.size() == 1) declared[name] = value.front();
  }
  return declared;
}

void open_geo(const std::filesystem::path& file, const Parameters& parameters) {
  const std::string source = file.string();
  gmsh::onelab::clear();
  run_gmsh(source, [&] { gmsh::open(source); });
  if (parameters.empty()) return;
  Parameters declared;
  run_gmsh(source, [&] { declared = declared_parameters(); });
  Parameters full;
  for (const auto& [name, value] : parameters) {
    if (!std::isfinite(value)) fail(source, "parameter '" + name + "' must be a finite number");
    full[resolve(declared, name, source)] = value;
  }
  run_gmsh(source, [&] {
    for (const auto& [name, value] : full) gmsh::onelab::setNumber(name, {value});
    gmsh::open(source);
  });
  // A ReadOnly parameter keeps its value from the file: say so rather than ignore the request.
  for (const auto& [name, value] : full) {
    std::vector<double> now;
    gmsh::onelab::getNumber(name, now);
    if (now.size() != 1 || now.front() != value) {
      fail(source, "parameter '" + name + "' did not take the value " + format_number(value) +
                       " (is it ReadOnly in the file?)");
    }
  }
}

}  // namespace rtdg::mesh::detail
