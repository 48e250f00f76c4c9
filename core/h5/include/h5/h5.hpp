// Thin RAII and typed pieces over the HDF5 C API, shared by the mesh and output modules. They
// throw nothing: each module reports failures with its own error type, adding last_error().
#pragma once

#include <hdf5.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace rtdg::h5 {

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

// The innermost (most specific) message on HDF5's current error stack ("" when empty).
std::string last_error();

// `what`, with " (HDF5: <last_error()>)" appended when HDF5 has something to say.
std::string with_last_error(const std::string& what);

// A UTF-8 C string type of `size` bytes, or of variable length with H5T_VARIABLE.
Handle string_type(std::size_t size);

// The number of values an attribute holds (1 for a scalar), or -1 when HDF5 cannot tell. A
// reader of one value checks it first: H5Aread of an attribute of 3 values into one variable
// writes past it.
long long attribute_values(hid_t attribute);

// Opens an existing HDF5 file for reading. On failure the handle is invalid and `problem` says
// why: "no such file", "not an HDF5 file", or "cannot open" with HDF5's message.
Handle open_read_only(const std::filesystem::path& file, std::string& problem);

// Reads `count` strings stored as `file_type` (variable- or fixed-length) through `read`, which
// reads the whole attribute or dataset as the memory type it is given into the buffer (H5Aread,
// H5Dread). Returns false, leaving `values` empty, when `read` fails.
bool read_string_values(hid_t file_type, std::size_t count, const std::function<herr_t(hid_t, void*)>& read,
                        std::vector<std::string>& values);

// A dataset extent that accepts any size where a shape is checked.
inline constexpr hsize_t kAny = static_cast<hsize_t>(-1);

// "[3][4]" for a shape ("[*]" for kAny), "scalar" for none.
std::string shape_text(const std::vector<hsize_t>& dims);

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

}  // namespace rtdg::h5
