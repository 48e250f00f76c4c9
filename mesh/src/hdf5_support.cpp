#include "hdf5_support.hpp"

#include "text.hpp"

namespace rtdg::mesh::detail::h5 {
void fail_h5(const std::string& source, const std::string& what) { fail(source, rtdg::h5::with_last_error(what)); }

namespace {

Handle open_dataset(hid_t location, const std::string& name, const std::string& source) {
  if (H5Lexists(location, name.c_str(), H5P_DEFAULT) <= 0) {
    fail(source, "dataset '/" + name + "' is missing; the file is not a complete rtdg mesh");
  }
  Handle dataset(H5Dopen2(location, name.c_str(), H5P_DEFAULT), H5Dclose);
  if (!dataset.valid()) fail_h5(source, "cannot open dataset '/" + name + "'");
  return dataset;
}

}  // namespace

void write_raw(hid_t location, const std::string& name, hid_t file_type, hid_t memory_type,
               const std::vector<hsize_t>& dims, const void* data, const std::string& source) {
  const Handle space(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr), H5Sclose);
  const Handle dataset(H5Dcreate2(location, name.c_str(), file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                       H5Dclose);
  if (!space.valid() || !dataset.valid()) fail_h5(source, "cannot create dataset '/" + name + "'");
  hsize_t count = 1;
  for (hsize_t d : dims) count *= d;
  if (count > 0 && H5Dwrite(dataset.get(), memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0) {
    fail_h5(source, "cannot write dataset '/" + name + "'");
  }
}

void write_strings(hid_t location, const std::string& name, const std::vector<std::string>& values,
                   const std::string& source) {
  const Handle type = string_type(H5T_VARIABLE);
  std::vector<const char*> pointers;
  for (const std::string& value : values) pointers.push_back(value.c_str());
  write_raw(location, name, type.get(), type.get(), {values.size()}, pointers.data(), source);
}

void write_attribute(hid_t location, const std::string& name, const std::string& value, const std::string& source) {
  const Handle type = string_type(H5T_VARIABLE);
  const Handle space(H5Screate(H5S_SCALAR), H5Sclose);
  const Handle attribute(H5Acreate2(location, name.c_str(), type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT),
                         H5Aclose);
  const char* pointer = value.c_str();
  if (!attribute.valid() || H5Awrite(attribute.get(), type.get(), &pointer) < 0) {
    fail_h5(source, "cannot write attribute '" + name + "'");
  }
}

void write_attribute(hid_t location, const std::string& name, int value, const std::string& source) {
  const Handle space(H5Screate(H5S_SCALAR), H5Sclose);
  const Handle attribute(H5Acreate2(location, name.c_str(), H5T_STD_I32LE, space.get(), H5P_DEFAULT, H5P_DEFAULT),
                         H5Aclose);
  if (!attribute.valid() || H5Awrite(attribute.get(), H5T_NATIVE_INT, &value) < 0) {
    fail_h5(source, "cannot write attribute '" + name + "'");
  }
}

void write_attribute(hid_t location, const std::string& name, double value, const std::string& source) {
  const Handle space(H5Screate(H5S_SCALAR), H5Sclose);
  const Handle attribute(H5Acreate2(location, name.c_str(), H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT),
                         H5Aclose);
  if (!attribute.valid() || H5Awrite(attribute.get(), H5T_NATIVE_DOUBLE, &value) < 0) {
    fail_h5(source, "cannot write attribute '" + name + "'");
  }
}

std::size_t check_dataset(hid_t location, const std::string& name, H5T_class_t type_class,
                          std::vector<hsize_t>& dims, const std::string& source) {
  const Handle dataset = open_dataset(location, name, source);
  const Handle type(H5Dget_type(dataset.get()), H5Tclose);
  if (H5Tget_class(type.get()) != type_class) {
    fail(source, "dataset '/" + name + "' holds " + std::string(type_class == H5T_FLOAT ? "non-floating-point" : "non-integer") +
                     " data");
  }
  const Handle space(H5Dget_space(dataset.get()), H5Sclose);
  const int rank = H5Sget_simple_extent_ndims(space.get());
  std::vector<hsize_t> actual(rank > 0 ? static_cast<std::size_t>(rank) : 0);
  if (rank > 0) H5Sget_simple_extent_dims(space.get(), actual.data(), nullptr);
  bool same = actual.size() == dims.size();
  for (std::size_t i = 0; same && i < dims.size(); ++i) same = dims[i] == kAny || dims[i] == actual[i];
  if (!same) {
    fail(source, "dataset '/" + name + "' has shape " + shape_text(actual) + ", expected " + shape_text(dims));
  }
  dims = actual;
  std::size_t count = 1;
  for (hsize_t d : actual) count *= static_cast<std::size_t>(d);
  return count;
}

void read_raw(hid_t location, const std::string& name, hid_t memory_type, void* data, const std::string& source) {
  const Handle dataset = open_dataset(location, name, source);
  if (H5Dread(dataset.get(), memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0) {
    fail_h5(source, "cannot read dataset '/" + name + "'");
  }
}

std::vector<std::string> read_strings(hid_t location, const std::string& name, const std::string& source) {
  const Handle dataset = open_dataset(location, name, source);
  const Handle file_type(H5Dget_type(dataset.get()), H5Tclose);
  if (H5Tget_class(file_type.get()) != H5T_STRING) fail(source, "dataset '/" + name + "' does not hold strings");
  std::vector<hsize_t> dims{kAny};
  const std::size_t count = check_dataset(location, name, H5T_STRING, dims, source);
  std::vector<std::string> values;
  const auto read = [&](hid_t type, void* buffer) {
    return H5Dread(dataset.get(), type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buffer);
  };
  if (!rtdg::h5::read_string_values(file_type.get(), count, read, values)) {
    fail_h5(source, "cannot read dataset '/" + name + "'");
  }
  return values;
}

bool has_attribute(hid_t location, const std::string& name) { return H5Aexists(location, name.c_str()) > 0; }

std::string read_string_attribute(hid_t location, const std::string& name, const std::string& source) {
  if (!has_attribute(location, name)) fail(source, "attribute '" + name + "' is missing");
  const Handle attribute(H5Aopen(location, name.c_str(), H5P_DEFAULT), H5Aclose);
  const Handle file_type(H5Aget_type(attribute.get()), H5Tclose);
  if (H5Tget_class(file_type.get()) != H5T_STRING) fail(source, "attribute '" + name + "' is not a string");
  if (rtdg::h5::attribute_values(attribute.get()) != 1) fail(source, "attribute '" + name + "' is not a single string");
  if (H5Tis_variable_str(file_type.get()) > 0) {
    const Handle type = string_type(H5T_VARIABLE);
    char* pointer = nullptr;
    if (H5Aread(attribute.get(), type.get(), &pointer) < 0) fail_h5(source, "cannot read attribute '" + name + "'");
    std::string value(pointer == nullptr ? "" : pointer);
    H5free_memory(pointer);
    return value;
  }
  const std::size_t size = H5Tget_size(file_type.get());
  const Handle type = string_type(size);
  std::string value(size, '\0');
  if (H5Aread(attribute.get(), type.get(), value.data()) < 0) fail_h5(source, "cannot read attribute '" + name + "'");
  return value.substr(0, value.find('\0'));
}

int read_int_attribute(hid_t location, const std::string& name, const std::string& source) {
  if (!has_attribute(location, name)) fail(source, "attribute '" + name + "' is missing");
  const Handle attribute(H5Aopen(location, name.c_str(), H5P_DEFAULT), H5Aclose);
  const Handle type(H5Aget_type(attribute.get()), H5Tclose);
  if (H5Tget_class(type.get()) != H5T_INTEGER) fail(source, "attribute '" + name + "' is not an integer");
  if (rtdg::h5::attribute_values(attribute.get()) != 1) fail(source, "attribute '" + name + "' is not a single integer");
  int value = 0;
  if (H5Aread(attribute.get(), H5T_NATIVE_INT, &value) < 0) fail_h5(source, "cannot read attribute '" + name + "'");
  return value;
}

double read_double_attribute(hid_t location, const std::string& name, const std::string& source) {
  if (!has_attribute(location, name)) fail(source, "attribute '" + name + "' is missing");
  const Handle attribute(H5Aopen(location, name.c_str(), H5P_DEFAULT), H5Aclose);
  const Handle type(H5Aget_type(attribute.get()), H5Tclose);
  if (H5Tget_class(type.get()) != H5T_FLOAT) fail(source, "attribute '" + name + "' is not a floating-point number");
  if (rtdg::h5::attribute_values(attribute.get()) != 1) fail(source, "attribute '" + name + "' is not a single number");
  double value = 0.0;
  if (H5Aread(attribute.get(), H5T_NATIVE_DOUBLE, &value) < 0) fail_h5(source, "cannot read attribute '" + name + "'");
  return value;
}

}  // namespace rtdg::mesh::detail::h5
