// The DLPack ABI (https://dmlc.github.io/dlpack/latest/c_api.html), version 1.0 and the
// unversioned tensor before it: the structs as the protocol lays them out, declared here so the
// module needs no dlpack.h.
#pragma once

#include <cstdint>

namespace rtdg::python::dlpack {

enum DeviceType : std::int32_t { cpu = 1, cuda = 2, cuda_host = 3, cuda_managed = 13 };
enum TypeCode : std::uint8_t { int_code = 0, uint_code = 1, float_code = 2 };

struct Device {
  std::int32_t device_type;
  std::int32_t device_id;
};
struct DataType {
  std::uint8_t code;
  std::uint8_t bits;
  std::uint16_t lanes;
};
struct Tensor {
  void* data;
  Device device;
  std::int32_t ndim;
  DataType dtype;
  std::int64_t* shape;
  std::int64_t* strides;  // in elements; null: compact row-major
  std::uint64_t byte_offset;
};
struct ManagedTensor {
  Tensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(ManagedTensor* self);
};
struct Version {
  std::uint32_t major;
  std::uint32_t minor;
};
inline constexpr std::uint64_t flag_read_only = 1ull << 0;
inline constexpr std::uint64_t flag_is_copied = 1ull << 1;
struct ManagedTensorVersioned {
  Version version;
  void* manager_ctx;
  void (*deleter)(ManagedTensorVersioned* self);
  std::uint64_t flags;
  Tensor dl_tensor;
};

}  // namespace rtdg::python::dlpack
