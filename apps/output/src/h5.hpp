// The solution file's HDF5 reading and writing helpers (private to the output module), over the
// shared pieces of core/h5. Every failure becomes output::Error("<source>: ...") with HDF5's
// innermost message appended.
#pragma once

#include <h5/h5.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace rtdg::output::detail::h5 {

// The shared pieces (core/h5): the handle and error silencing.
using rtdg::h5::Handle;
using rtdg::h5::QuietErrors;

// Throws Error("<source>: <what> (HDF5: <last_error>)").
[[noreturn]] void fail_h5(const std::string& source, const std::string& what);

Handle create_group(hid_t location, const std::string& name, const std::string& source);
Handle open_group(hid_t location, const std::string& name, const std::string& source);

// A dataset of `dims` (row-major) in file_type from `data` in memory_type. `path` is the
// dataset's full name, for messages.
void write_dataset(hid_t location, const std::string& name, const std::string& path, hid_t file_type,
                   hid_t memory_type, const std::vector<hsize_t>& dims, const void* data, const std::string& source);

void write_attribute(hid_t location, const std::string& name, const std::string& value, const std::string& source);
void write_attribute(hid_t location, const std::string& name, int value, const std::string& source);
void write_attribute(hid_t location, const std::string& name, long long value, const std::string& source);
void write_attribute(hid_t location, const std::string& name, double value, const std::string& source);
void write_attribute(hid_t location, const std::string& name, const std::vector<std::string>& values,
                     const std::string& source);

bool has_attribute(hid_t location, const std::string& name);
std::string read_string_attribute(hid_t location, const std::string& name, const std::string& source);
long long read_integer_attribute(hid_t location, const std::string& name, const std::string& source);
double read_double_attribute(hid_t location, const std::string& name, const std::string& source);
std::vector<std::string> read_strings_attribute(hid_t location, const std::string& name, const std::string& source);

// Reads dataset `name` (full name `path`, for messages) of floating-point elements and shape
// `dims` as doubles (a float32 dataset converts exactly). Throws naming the dataset when it is
// missing, not floating-point or of another shape. Returns the file's element size in bytes.
// With `rows` given, only rows [first_row, first_row + rows) of the 2D dataset are read (dims is
// still the whole dataset's shape).
std::size_t read_doubles(hid_t location, const std::string& name, const std::string& path,
                         const std::vector<hsize_t>& dims, std::vector<double>& values, const std::string& source,
                         hsize_t first_row = 0, std::optional<hsize_t> rows = std::nullopt);

}  // namespace rtdg::output::detail::h5
