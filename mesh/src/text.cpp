#include "text.hpp"

#include "mesh/error.hpp"

#include <algorithm>
#include <cctype>
#include <iomanip>
#include <limits>
#include <sstream>

namespace rtdg::mesh::detail {

void fail(std::string_view source, const std::string& message) {
  throw MeshError(std::string(source) + ": " + message);
}

std::string lower_extension(const std::filesystem::path& file) {
  std::string extension = file.extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return extension;
}

std::string format_number(double value) {
  std::ostringstream out;
  out << std::setprecision(std::numeric_limits<double>::max_digits10 - 2) << value;
  return out.str();
}

std::string format_point(const std::array<double, 3>& point) {
  return "(" + format_number(point[0]) + ", " + format_number(point[1]) + ", " +
         format_number(point[2]) + ")";
}

std::string format_indices(const int* indices, int n) {
  std::string out = "(";
  for (int i = 0; i < n; ++i) {
    if (i > 0) out += ", ";
    out += std::to_string(indices[i]);
  }
  return out + ")";
}

std::string format_name_list(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += i + 1 == names.size() ? " and " : ", ";
    out += "'" + names[i] + "'";
  }
  return out;
}

}  // namespace rtdg::mesh::detail
