// Thin RAII and typed helpers over the HDF5 C API (private to the mesh module). Every failure
// becomes MeshError("<source>: ...") with HDF5's own innermost message appended.
#pragma once

#include <hdf5.h>

#include <cstdint>
#include <string>
#include <vector>

namespace rtdg::mesh::detail::h5 {

// Owns an HDF5 identifier and closes it with the matching H5?close.
class Handle {
public:
  using Closer = herr_t (*)(hid_t);
  Handle() = default;
  Handle(hid_t id, Closer closer) : id_(id), close_(closer) {}
  ~Handle() { reset(); }
  Handle(Handle&& other) noexcept : id_(other.id_), close_(other.close_) { other.id_ = -1; }
  Handle& operator=(Handle&& other) noexcept {
    if (this != &other) {
      reset();
      id_ = other.id_;
      close_ = other.close_;
      other.id_ = -1;
    }
    return *this;
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;

  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }
  // Closes now and reports whether HDF5 accepted it (a file's data is flushed on close).
  bool close() {
    const bool ok = id_ < 0 || close_(id_) >= 0;
    id_ = -1;
    return ok;
  }

private:
  void reset() {
    if (id_ >= 0) close_(id_);
    id_ = -1;
  }
  hid_t id_ = -1;
  Closer close_ = nullptr;
};

// While alive, HDF5 does not print its error stack to stderr (we report errors ourselves);
// the previous handler is restored afterwards.
class QuietErrors {
public:
  QuietErrors();
  ~QuietErrors();
  QuietErrors(const QuietErrors&) = delete;
  QuietErrors& operator=(const QuietErrors&) = delete;

private:
  H5E_auto2_t function_ = nullptr;
  void* data_ = nullptr;
};

// The innermost message on HDF5's current error stack ("" when empty).
std::string last_error();

// Element types: how T is stored in the file and in memory.
template <class T>
struct Type;
template <>
struct Type<double> {
  static hid_t file() { return H5T_IEEE_F64LE; }
  static hid_t memory() { return H5T_NATIVE_DOUBLE; }
  static H5T_class_t type_class() { return H5T_FLOAT; }
};
template <>
struct Type<int> {
  static hid_t file() { return H5T_STD_I32LE; }
  static hid_t memory() { return H5T_NATIVE_INT; }
  static H5T_class_t type_class() { return H5T_INTEGER; }
};
template <>
struct Type<std::int8_t> {
  static hid_t file() { return H5T_STD_I8LE; }
  static hid_t memory() { return H5T_NATIVE_SCHAR; }
  static H5T_class_t type_class() { return H5T_INTEGER; }
};

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
inline constexpr hsize_t kAny = static_cast<hsize_t>(-1);
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
