// Private helpers of the output module: number formatting, errors, atomic file publication.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rtdg::output::detail {

// Throws output::Error("<source>: <message>").
[[noreturn]] void fail(std::string_view source, const std::string& message);

// The shortest text that reads back as exactly `value` (std::to_chars); "nan", "inf", "-inf".
std::string format_double(double value);
// "(x, y, z)" with format_double.
std::string format_point(const double* point, int n);
// Parses a whole string as a double (std::from_chars); nullopt unless all of it is a number.
std::optional<double> parse_double(std::string_view text);
std::optional<long long> parse_integer(std::string_view text);

// "a, b, c" (names quoted).
std::string format_name_list(const std::vector<std::string>& names);

// int -> std::size_t for indexing, where the int is known to be non-negative.
constexpr std::size_t ix(int i) { return static_cast<std::size_t>(i); }
constexpr std::size_t ix(long long i) { return static_cast<std::size_t>(i); }

// Calls write(temporary) with a temporary path next to `target` ending in `suffix`; then
// fsyncs the temporary, renames it to `target` and fsyncs the folder. On any failure the
// temporary is removed and `target` is untouched; the exception propagates.
void publish_atomically(const std::filesystem::path& target, const std::string& suffix,
                        const std::function<void(const std::filesystem::path&)>& write);

// The parts of publish_atomically, for writers that make the temporary themselves (the
// collective HDF5 write of a parallel run): a fresh hidden name next to `target`, and fsync
// of a file or folder (throws output::Error naming `source`).
std::filesystem::path temporary_name(const std::filesystem::path& target, const std::string& suffix);
void sync_path(const std::filesystem::path& path, bool directory, const std::string& source);

// publish_atomically with a file holding exactly `contents`.
void write_file_atomically(const std::filesystem::path& target, std::string_view contents);

// The whole file; throws output::Error naming it when it cannot be read.
std::string read_file(const std::filesystem::path& file);

}  // namespace rtdg::output::detail
