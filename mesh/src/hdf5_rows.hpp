// Partial reads of an .h5 mesh's datasets (private to the mesh module): chosen rows by
// hyperslabs, or the whole dataset in blocks, so a reader's memory follows what it keeps.
#pragma once

#include "hdf5_support.hpp"

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

namespace rtdg::mesh::detail {

inline constexpr hsize_t kBlockRows = hsize_t{1} << 16;  // rows per block of a scan or window of a read

// A dataset opened for partial reads, its shape checked (kAny entries replaced).
struct Dataset {
  h5::Handle handle;
  std::vector<hsize_t> dims;
  std::string name;
  std::size_t row_values = 1;  // values per row (the product of the dimensions after the first)
};

inline Dataset open_dataset(hid_t file, const std::string& name, H5T_class_t type_class, std::vector<hsize_t> dims,
                     const std::string& source) {
  h5::check_dataset(file, name, type_class, dims, source);
  Dataset d{h5::Handle(H5Dopen2(file, name.c_str(), H5P_DEFAULT), H5Dclose), dims, name, 1};
  if (!d.handle.valid()) h5::fail_h5(source, "cannot open dataset '/" + name + "'");
  for (std::size_t i = 1; i < dims.size(); ++i) d.row_values *= static_cast<std::size_t>(dims[i]);
  return d;
}

// Reads the file selection `space` (already selected, `values` values) into out.
template <class T>
void read_selection(const Dataset& d, hid_t space, std::size_t values, T* out, const std::string& source) {
  if (values == 0) return;
  const hsize_t n = values;
  const h5::Handle memory(H5Screate_simple(1, &n, nullptr), H5Sclose);
  if (H5Dread(d.handle.get(), h5::Type<T>::memory(), memory.get(), space, H5P_DEFAULT, out) < 0)
    h5::fail_h5(source, "cannot read dataset '/" + d.name + "'");
}

// Rows `rows` (ascending, distinct) of the dataset, whole, in that order. The rows go in
// windows: consecutive wanted rows spanning at most kBlockRows rows are one contiguous
// hyperslab read, from the first to the last of them, the rows between dropped. So memory is
// one window, the reads are few, and what is read is the wanted rows when they come in long
// runs (a part of a Morton-ordered mesh) and at most the whole dataset once when they are
// scattered. (HDF5's unions of many hyperslabs, H5S_SELECT_OR, cost quadratic time in the
// blocks; point selections a coordinate per value.)
template <class T>
std::vector<T> read_rows(const Dataset& d, const std::vector<int>& rows, const std::string& source,
                         hsize_t block_rows = kBlockRows) {
  std::vector<T> out(rows.size() * d.row_values);
  const h5::Handle space(H5Dget_space(d.handle.get()), H5Sclose);
  std::vector<hsize_t> start(d.dims.size(), 0), count = d.dims;
  std::vector<T> window;
  std::size_t i = 0;
  while (i < rows.size()) {
    std::size_t j = i + 1;
    while (j < rows.size() && static_cast<hsize_t>(rows[j] - rows[i]) < block_rows) ++j;
    start[0] = static_cast<hsize_t>(rows[i]);
    count[0] = static_cast<hsize_t>(rows[j - 1] - rows[i] + 1);
    if (H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr) < 0)
      h5::fail_h5(source, "cannot select rows of dataset '/" + d.name + "'");
    window.resize(static_cast<std::size_t>(count[0]) * d.row_values);
    read_selection(d, space.get(), window.size(), window.data(), source);
    for (std::size_t r = i; r < j; ++r)
      std::copy_n(window.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(rows[r] - rows[i]) * d.row_values),
                  d.row_values, out.begin() + static_cast<std::ptrdiff_t>(r * d.row_values));
    i = j;
  }
  return out;
}

// Calls visit(first row, values of rows [first, first + n)) for the whole dataset, kBlockRows
// rows at a time.
template <class T>
void scan_rows(const Dataset& d, const std::string& source, const std::function<void(std::size_t, const std::vector<T>&)>& visit,
               hsize_t block_rows = kBlockRows) {
  const h5::Handle space(H5Dget_space(d.handle.get()), H5Sclose);
  std::vector<hsize_t> start(d.dims.size(), 0), count = d.dims;
  std::vector<T> block;
  for (hsize_t first = 0; first < d.dims[0]; first += block_rows) {
    start[0] = first;
    count[0] = std::min(block_rows, d.dims[0] - first);
    if (H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr) < 0)
      h5::fail_h5(source, "cannot select rows of dataset '/" + d.name + "'");
    block.resize(static_cast<std::size_t>(count[0]) * d.row_values);
    read_selection(d, space.get(), block.size(), block.data(), source);
    visit(static_cast<std::size_t>(first), block);
  }
}

}  // namespace rtdg::mesh::detail
