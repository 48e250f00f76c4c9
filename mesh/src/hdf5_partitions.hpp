// The /partitions group of an .h5 mesh (private to the mesh module; layout in docs/mesh.md).
#pragma once

#include "mesh/partition.hpp"

#include <hdf5.h>

#include <string>
#include <vector>

namespace rtdg::mesh::detail {

// Writes /partitions/<P> for each partition (K elements; parts distinct, checked).
void write_partitions(hid_t file, const std::vector<Partition>& partitions, int K, const std::string& source);

// The part counts /partitions holds, ascending (none when the group is absent); MeshError for
// a dataset not named by a count.
std::vector<int> partition_counts(hid_t file, const std::string& source);

// "partitions/<parts>", the dataset of the partition into `parts`.
std::string partition_dataset(int parts);

// Reads the attributes of /partitions/<parts> into `partition` (parts, method, seed, tolerance,
// weighted), checking `parts` against the name.
void check_partition_attributes(hid_t file, int parts, Partition& partition, const std::string& source);

// Every partition in /partitions (none when the group is absent), ascending part count,
// each checked against the K rows of /EToV.
std::vector<Partition> read_partitions(hid_t file, const std::string& source);

}  // namespace rtdg::mesh::detail
