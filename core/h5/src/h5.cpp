#include "h5/h5.hpp"

namespace rtdg::h5 {
namespace {

herr_t keep_innermost(unsigned position, const H5E_error2_t* error, void* data) {
  // H5E_WALK_DOWNWARD visits the innermost (most specific) error first.
  auto* text = static_cast<std::string*>(data);
  if (position == 0 && error->desc != nullptr) *text = error->desc;
  return 0;
}

}  // namespace

QuietErrors::QuietErrors() {
  H5Eget_auto2(H5E_DEFAULT, &function_, &data_);
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

QuietErrors::~QuietErrors() { H5Eset_auto2(H5E_DEFAULT, function_, data_); }

std::string last_error() {
  std::string text;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, keep_innermost, &text);
  return text;
}

std::string with_last_error(const std::string& what) {
  const std::string detail = last_error();
  return what + (detail.empty() ? "" : " (HDF5: " + detail + ")");
}

Handle string_type(std::size_t size) {
  Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(type.get(), size);
  H5Tset_cset(type.get(), H5T_CSET_UTF8);
  return type;
}

long long attribute_values(hid_t attribute) {
  const Handle space(H5Aget_space(attribute), H5Sclose);
  if (!space.valid()) return -1;
  return static_cast<long long>(H5Sget_simple_extent_npoints(space.get()));
}

Handle open_read_only(const std::filesystem::path& file, std::string& problem) {
  std::error_code error;
  const std::filesystem::file_status status = std::filesystem::status(file, error);
  if (!std::filesystem::exists(status)) {
    problem = "no such file";
    return {};
  }
  if (std::filesystem::is_directory(status)) {
    problem = "is a folder, not an HDF5 file";
    return {};
  }
  if (!std::filesystem::is_regular_file(status)) {
    // A FIFO or a device would block or never end: HDF5 is not let near it.
    problem = "is not a regular file (a FIFO, device or socket); rtdg reads HDF5 files only from regular files";
    return {};
  }
  if (H5Fis_hdf5(file.c_str()) <= 0) {
    problem = "not an HDF5 file";
    return {};
  }
  Handle handle(H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  // It has the HDF5 signature, so the usual cause is a file cut short (a copy or a write that
  // did not finish): said with its size, HDF5's own words after.
  if (!handle.valid())
    problem = with_last_error("an HDF5 file that cannot be opened (" + std::to_string(std::filesystem::file_size(file, error)) +
                              " bytes): it is most likely truncated or damaged, e.g. a copy that did not finish; use "
                              "another copy of it");
  return handle;
}

bool read_string_values(hid_t file_type, std::size_t count, const std::function<herr_t(hid_t, void*)>& read,
                        std::vector<std::string>& values) {
  values.clear();
  if (count == 0) return true;
  if (H5Tis_variable_str(file_type) > 0) {
    const Handle type = string_type(H5T_VARIABLE);
    std::vector<char*> pointers(count, nullptr);
    if (read(type.get(), pointers.data()) < 0) return false;
    for (char* pointer : pointers) {
      values.emplace_back(pointer == nullptr ? "" : pointer);
      H5free_memory(pointer);
    }
    return true;
  }
  // Fixed length: each string fills `size` bytes, NUL-padded when shorter.
  const std::size_t size = H5Tget_size(file_type);
  const Handle type = string_type(size);
  std::vector<char> buffer(count * size);
  if (read(type.get(), buffer.data()) < 0) return false;
  for (std::size_t i = 0; i < count; ++i) {
    const char* begin = buffer.data() + i * size;
    std::size_t length = 0;
    while (length < size && begin[length] != '\0') ++length;
    values.emplace_back(begin, length);
  }
  return true;
}

std::string shape_text(const std::vector<hsize_t>& dims) {
  std::string text;
  for (hsize_t d : dims) text += "[" + (d == kAny ? std::string("*") : std::to_string(d)) + "]";
  return text.empty() ? "scalar" : text;
}

}  // namespace rtdg::h5
