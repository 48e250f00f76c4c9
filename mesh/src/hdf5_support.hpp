// The mesh file's HDF5 reading and writing helpers (private to the mesh module), over the shared
// pieces of core/h5. Every failure becomes MeshError("<source>: ...") with HDF5's own innermost
// message appended.
#pragma once

#include <h5/h5.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace rtdg::mesh::detail::h5 {

// The shared pieces (core/h5): the handle, error silencing, types, string types, shapes.
using rtdg::h5::Handle;
using rtdg::h5::kAny;
using rtdg::h5::QuietErrors;
using rtdg::h5::shape_text;
using rtdg::h5::string_type;
using rtdg::h5::Type;

// Throws MeshError("<source>: <what> (HDF5: <last_error>)"), the HDF5 part only when there is one.
[[noreturn]] void fail_h5(const std::string& source, const std::string& what);

// Writes a dataset of `dims` (row-major) from data (dims' product elements).
void write_raw(hid_t location, const std::string& name, hid_t file_type, hid_t memory_type,
               const std::vector<hsize_t>& dims, const void* data, const std::string& source);

template <class T>
void write_array(hid_t location, const std::string& name, const std::vector<hsize_t>& dims,
                 const std::vector<T>& data, const std::string& source) {
  write_raw(location, name, Type<T>::file(), Type<T>::memory(), dims, data.data(), source);
}

// A 1D dataset of variable-length UTF-8 strings.
void write_strings(hid_t location, const std::string& name, const std::vector<std::string>& values,
                   const std::string& source);

void write_attribute(hid_t location, const std::string& name, const std::string& value, const std::string& source);
void write_attribute(hid_t location, const std::string& name, int value, const std::string& source);
void write_attribute(hid_t location, const std::string& name, double value, const std::string& source);

// Checks that dataset `name` exists, has elements of `type_class` and the shape `dims`; an
// entry of `dims` equal to kAny accepts any extent and is replaced by the actual one.
// Returns the number of elements.
std::size_t check_dataset(hid_t location, const std::string& name, H5T_class_t type_class,
                          std::vector<hsize_t>& dims, const std::string& source);

// Reads all of dataset `name`, converted to memory_type, into data.
void read_raw(hid_t location, const std::string& name, hid_t memory_type, void* data, const std::string& source);

template <class T>
std::vector<T> read_array(hid_t location, const std::string& name, std::vector<hsize_t>& dims,
                          const std::string& source) {
  std::vector<T> values(check_dataset(location, name, Type<T>::type_class(), dims, source));
  if (!values.empty()) read_raw(location, name, Type<T>::memory(), values.data(), source);
  return values;
}

// A 1D dataset of strings (variable- or fixed-length).
std::vector<std::string> read_strings(hid_t location, const std::string& name, const std::string& source);

std::string read_string_attribute(hid_t location, const std::string& name, const std::string& source);
int read_int_attribute(hid_t location, const std::string& name, const std::string& source);
double read_double_attribute(hid_t location, const std::string& name, const std::string& source);
bool has_attribute(hid_t location, const std::string& name);

}  // namespace rtdg::mesh::detail::h5
