#include "h5.hpp"

#include "support.hpp"

namespace rtdg::output::detail::h5 {
using rtdg::h5::shape_text;
using rtdg::h5::string_type;

namespace {

void write_scalar_attribute(hid_t location, const std::string& name, hid_t file_type, hid_t memory_type,
                            const void* value, const std::string& source) {
  const Handle space(H5Screate(H5S_SCALAR), H5Sclose);
  const Handle attribute(H5Acreate2(location, name.c_str(), file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  if (!attribute.valid() || H5Awrite(attribute.get(), memory_type, value) < 0) {
    fail_h5(source, "cannot write attribute '" + name + "'");
  }
}

Handle open_attribute(hid_t location, const std::string& name, const std::string& source) {
  if (!has_attribute(location, name)) fail(source, "attribute '" + name + "' is missing; not a complete rtdg solution");
  Handle attribute(H5Aopen(location, name.c_str(), H5P_DEFAULT), H5Aclose);
  if (!attribute.valid()) fail_h5(source, "cannot open attribute '" + name + "'");
  return attribute;
}

H5T_class_t attribute_class(const Handle& attribute) {
  const Handle type(H5Aget_type(attribute.get()), H5Tclose);
  return H5Tget_class(type.get());
}

}  // namespace

void fail_h5(const std::string& source, const std::string& what) { fail(source, rtdg::h5::with_last_error(what)); }

Handle create_group(hid_t location, const std::string& name, const std::string& source) {
  Handle group(H5Gcreate2(location, name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
  if (!group.valid()) fail_h5(source, "cannot create group '/" + name + "'");
  return group;
}

Handle open_group(hid_t location, const std::string& name, const std::string& source) {
  if (H5Lexists(location, name.c_str(), H5P_DEFAULT) <= 0) {
    fail(source, "group '/" + name + "' is missing; not a complete rtdg solution");
  }
  Handle group(H5Gopen2(location, name.c_str(), H5P_DEFAULT), H5Gclose);
  if (!group.valid()) fail_h5(source, "cannot open group '/" + name + "'");
  return group;
}

void write_dataset(hid_t location, const std::string& name, const std::string& path, hid_t file_type,
                   hid_t memory_type, const std::vector<hsize_t>& dims, const void* data, const std::string& source) {
  const Handle space(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr), H5Sclose);
  if (!space.valid()) fail_h5(source, "cannot create the dataspace of dataset '" + path + "'");
  // Names such as "E.x" are plain link names; no intermediate groups are created.
  const Handle dataset(H5Dcreate2(location, name.c_str(), file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                       H5Dclose);
  if (!dataset.valid()) fail_h5(source, "cannot create dataset '" + path + "'");
  hsize_t count = 1;
  for (hsize_t d : dims) count *= d;
  if (count > 0 && H5Dwrite(dataset.get(), memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0) {
    fail_h5(source, "cannot write dataset '" + path + "'");
  }
}

void write_attribute(hid_t location, const std::string& name, const std::string& value, const std::string& source) {
  const Handle type = string_type(H5T_VARIABLE);
  const char* pointer = value.c_str();
  write_scalar_attribute(location, name, type.get(), type.get(), &pointer, source);
}

void write_attribute(hid_t location, const std::string& name, int value, const std::string& source) {
  write_scalar_attribute(location, name, H5T_STD_I32LE, H5T_NATIVE_INT, &value, source);
}

void write_attribute(hid_t location, const std::string& name, long long value, const std::string& source) {
  write_scalar_attribute(location, name, H5T_STD_I64LE, H5T_NATIVE_LLONG, &value, source);
}

void write_attribute(hid_t location, const std::string& name, double value, const std::string& source) {
  write_scalar_attribute(location, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &value, source);
}

void write_attribute(hid_t location, const std::string& name, const std::vector<std::string>& values,
                     const std::string& source) {
  const Handle type = string_type(H5T_VARIABLE);
  const hsize_t count = values.size();
  const Handle space(H5Screate_simple(1, &count, nullptr), H5Sclose);
  const Handle attribute(H5Acreate2(location, name.c_str(), type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
  std::vector<const char*> pointers;
  for (const std::string& value : values) pointers.push_back(value.c_str());
  if (!attribute.valid() || (count > 0 && H5Awrite(attribute.get(), type.get(), pointers.data()) < 0)) {
    fail_h5(source, "cannot write attribute '" + name + "'");
  }
}

bool has_attribute(hid_t location, const std::string& name) { return H5Aexists(location, name.c_str()) > 0; }

std::string read_string_attribute(hid_t location, const std::string& name, const std::string& source) {
  const std::vector<std::string> values = read_strings_attribute(location, name, source);
  if (values.size() != 1) fail(source, "attribute '" + name + "' holds " + std::to_string(values.size()) + " strings, expected one");
  return values.front();
}

std::vector<std::string> read_strings_attribute(hid_t location, const std::string& name, const std::string& source) {
  const Handle attribute = open_attribute(location, name, source);
  const Handle file_type(H5Aget_type(attribute.get()), H5Tclose);
  if (H5Tget_class(file_type.get()) != H5T_STRING) fail(source, "attribute '" + name + "' is not a string");
  const Handle space(H5Aget_space(attribute.get()), H5Sclose);
  const hssize_t points = H5Sget_simple_extent_npoints(space.get());
  if (points < 0) fail_h5(source, "cannot read the size of attribute '" + name + "'");
  std::vector<std::string> values;
  const auto read = [&](hid_t type, void* buffer) { return H5Aread(attribute.get(), type, buffer); };
  if (!rtdg::h5::read_string_values(file_type.get(), static_cast<std::size_t>(points), read, values)) {
    fail_h5(source, "cannot read attribute '" + name + "'");
  }
  return values;
}

long long read_integer_attribute(hid_t location, const std::string& name, const std::string& source) {
  const Handle attribute = open_attribute(location, name, source);
  if (attribute_class(attribute) != H5T_INTEGER) fail(source, "attribute '" + name + "' is not an integer");
  if (rtdg::h5::attribute_values(attribute.get()) != 1) fail(source, "attribute '" + name + "' is not a single integer");
  long long value = 0;
  if (H5Aread(attribute.get(), H5T_NATIVE_LLONG, &value) < 0) fail_h5(source, "cannot read attribute '" + name + "'");
  return value;
}

double read_double_attribute(hid_t location, const std::string& name, const std::string& source) {
  const Handle attribute = open_attribute(location, name, source);
  const H5T_class_t type_class = attribute_class(attribute);
  if (type_class != H5T_FLOAT && type_class != H5T_INTEGER) fail(source, "attribute '" + name + "' is not a number");
  if (rtdg::h5::attribute_values(attribute.get()) != 1) fail(source, "attribute '" + name + "' is not a single number");
  double value = 0;
  if (H5Aread(attribute.get(), H5T_NATIVE_DOUBLE, &value) < 0) fail_h5(source, "cannot read attribute '" + name + "'");
  return value;
}

std::size_t read_doubles(hid_t location, const std::string& name, const std::string& path,
                         const std::vector<hsize_t>& dims, std::vector<double>& values, const std::string& source,
                         hsize_t first_row, std::optional<hsize_t> rows) {
  if (H5Lexists(location, name.c_str(), H5P_DEFAULT) <= 0) {
    fail(source, "dataset '" + path + "' is missing; not a complete rtdg solution");
  }
  const Handle dataset(H5Dopen2(location, name.c_str(), H5P_DEFAULT), H5Dclose);
  if (!dataset.valid()) fail_h5(source, "cannot open dataset '" + path + "'");
  const Handle type(H5Dget_type(dataset.get()), H5Tclose);
  if (H5Tget_class(type.get()) != H5T_FLOAT) fail(source, "dataset '" + path + "' does not hold floating-point numbers");
  const std::size_t size = H5Tget_size(type.get());
  const Handle space(H5Dget_space(dataset.get()), H5Sclose);
  const int rank = H5Sget_simple_extent_ndims(space.get());
  std::vector<hsize_t> actual(rank > 0 ? static_cast<std::size_t>(rank) : 0);
  if (rank > 0) H5Sget_simple_extent_dims(space.get(), actual.data(), nullptr);
  if (actual != dims) fail(source, "dataset '" + path + "' has shape " + shape_text(actual) + ", expected " + shape_text(dims));
  if (rows) {
    if (dims.size() != 2 || first_row + *rows > dims[0])
      fail(source, "rows " + std::to_string(first_row) + ".." + std::to_string(first_row + *rows) + " of dataset '" + path +
                       "' are outside its " + shape_text(dims));
    const hsize_t start[2] = {first_row, 0}, count[2] = {*rows, dims[1]};
    values.resize(static_cast<std::size_t>(*rows * dims[1]));
    if (values.empty()) return size;
    const Handle memory(H5Screate_simple(2, count, nullptr), H5Sclose);
    if (!memory.valid() || H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, start, nullptr, count, nullptr) < 0 ||
        H5Dread(dataset.get(), H5T_NATIVE_DOUBLE, memory.get(), space.get(), H5P_DEFAULT, values.data()) < 0)
      fail_h5(source, "cannot read rows of dataset '" + path + "'");
    return size;
  }
  std::size_t count = 1;
  for (hsize_t d : dims) count *= static_cast<std::size_t>(d);
  values.resize(count);
  if (count > 0 && H5Dread(dataset.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) < 0) {
    fail_h5(source, "cannot read dataset '" + path + "'");
  }
  return size;
}

}  // namespace rtdg::output::detail::h5
