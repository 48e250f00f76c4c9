// Partitions stored in an .h5 mesh: one int32 [K] dataset per part count under /partitions,
// named by the count, with attributes saying how it was made.
#include "hdf5_partitions.hpp"

#include "hdf5_support.hpp"
#include "text.hpp"

#include <algorithm>
#include <charconv>
#include <set>

namespace rtdg::mesh::detail {
namespace {

constexpr const char* kGroup = "partitions";

std::string dataset_path(int parts) { return std::string(kGroup) + "/" + std::to_string(parts); }

}  // namespace

void write_partitions(hid_t file, const std::vector<Partition>& partitions, int K, const std::string& source) {
  if (partitions.empty()) return;
  std::set<int> seen;
  for (const Partition& partition : partitions) {
    check_partition(partition, K, source);
    if (!seen.insert(partition.parts).second) {
      fail(source, "two partitions into " + std::to_string(partition.parts) + " parts; a file stores one per count");
    }
  }
  const h5::Handle group(H5Gcreate2(file, kGroup, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
  if (!group.valid()) h5::fail_h5(source, "cannot create group '/" + std::string(kGroup) + "'");
  for (const Partition& partition : partitions) {
    const std::string path = dataset_path(partition.parts);
    h5::write_array(file, path, {partition.element_part.size()}, partition.element_part, source);
    const h5::Handle dataset(H5Dopen2(file, path.c_str(), H5P_DEFAULT), H5Dclose);
    if (!dataset.valid()) h5::fail_h5(source, "cannot reopen dataset '/" + path + "'");
    h5::write_attribute(dataset.get(), "parts", partition.parts, source);
    h5::write_attribute(dataset.get(), "method", partition.method, source);
    h5::write_attribute(dataset.get(), "seed", partition.seed, source);
    h5::write_attribute(dataset.get(), "tolerance", partition.tolerance, source);
    h5::write_attribute(dataset.get(), "weighted", partition.weighted ? 1 : 0, source);
  }
}

std::vector<int> partition_counts(hid_t file, const std::string& source) {
  std::vector<int> counts;
  if (H5Lexists(file, kGroup, H5P_DEFAULT) <= 0) return counts;
  const h5::Handle group(H5Gopen2(file, kGroup, H5P_DEFAULT), H5Gclose);
  H5G_info_t info{};
  if (!group.valid() || H5Gget_info(group.get(), &info) < 0) {
    h5::fail_h5(source, "'/" + std::string(kGroup) + "' is not a group");
  }
  for (hsize_t i = 0; i < info.nlinks; ++i) {
    const ssize_t length = H5Lget_name_by_idx(group.get(), ".", H5_INDEX_NAME, H5_ITER_INC, i, nullptr, 0, H5P_DEFAULT);
    if (length <= 0) h5::fail_h5(source, "cannot list '/" + std::string(kGroup) + "'");
    std::string name(static_cast<std::size_t>(length) + 1, '\0');
    H5Lget_name_by_idx(group.get(), ".", H5_INDEX_NAME, H5_ITER_INC, i, name.data(), name.size(), H5P_DEFAULT);
    name.resize(static_cast<std::size_t>(length));
    int parts = 0;
    const auto [end, error] = std::from_chars(name.data(), name.data() + name.size(), parts);
    if (error != std::errc() || end != name.data() + name.size() || parts < 1) {
      fail(source, "'/" + std::string(kGroup) + "/" + name +
                       "' is not named by a part count; /partitions holds one dataset per count, e.g. /partitions/4");
    }
    counts.push_back(parts);
  }
  std::sort(counts.begin(), counts.end());
  return counts;
}

std::string partition_dataset(int parts) { return dataset_path(parts); }

void check_partition_attributes(hid_t file, int parts, Partition& partition, const std::string& source) {
  const std::string path = dataset_path(parts);
  const h5::Handle dataset(H5Dopen2(file, path.c_str(), H5P_DEFAULT), H5Dclose);
  const std::string where = source + ": /" + path;
  if (!dataset.valid()) h5::fail_h5(source, "cannot open dataset '/" + path + "'");
  if (h5::read_int_attribute(dataset.get(), "parts", where) != parts) {
    fail(where, "attribute parts = " + std::to_string(h5::read_int_attribute(dataset.get(), "parts", where)) +
                    " does not match the dataset name");
  }
  partition.parts = parts;
  partition.method = h5::read_string_attribute(dataset.get(), "method", where);
  partition.seed = h5::read_int_attribute(dataset.get(), "seed", where);
  partition.tolerance = h5::read_double_attribute(dataset.get(), "tolerance", where);
  partition.weighted = h5::read_int_attribute(dataset.get(), "weighted", where) != 0;
}

std::vector<Partition> read_partitions(hid_t file, const std::string& source) {
  std::vector<Partition> partitions;
  const std::vector<int> counts = partition_counts(file, source);
  if (counts.empty()) return partitions;
  std::vector<hsize_t> dims{h5::kAny, h5::kAny};
  h5::check_dataset(file, "EToV", H5T_INTEGER, dims, source);
  const int K = static_cast<int>(dims[0]);
  for (const int parts : counts) {
    const std::string path = dataset_path(parts);
    Partition partition;
    dims = {static_cast<hsize_t>(K)};
    partition.element_part = h5::read_array<int>(file, path, dims, source);
    check_partition_attributes(file, parts, partition, source);
    check_partition(partition, K, source + ": /" + path);
    partitions.push_back(std::move(partition));
  }
  return partitions;
}

}  // namespace rtdg::mesh::detail
