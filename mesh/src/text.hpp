// Error messages (private to the mesh module): formatting of points, vertex lists and numbers
// with enough digits to tell a degenerate element from a small one; the throw helper.
#pragma once

#include <array>
#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace rtdg::mesh::detail {

std::string format_number(double value);
std::string format_point(const std::array<double, 3>& point);

// "(3, 7, 12)" for the first n entries.
std::string format_indices(const int* indices, int n);

// "a, b and c" (names quoted).
std::string format_name_list(const std::vector<std::string>& names);

// A path's extension in lower case, with the dot (".geo").
std::string lower_extension(const std::filesystem::path& file);

// Throws MeshError("<source>: <message>").
[[noreturn]] void fail(std::string_view source, const std::string& message);

// int -> std::size_t for indexing, where the int is known to be non-negative.
constexpr std::size_t ix(int i) { return static_cast<std::size_t>(i); }

}  // namespace rtdg::mesh::detail
