// Out-of-line parts of Array and ArrayView: checks and fill.
#include <rtcg/array.hpp>
#include <rtcg/elementwise.hpp>

#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <utility>

namespace rtcg::detail {

void verify_view_range(std::size_t size, std::size_t offset, std::size_t count) {
  RTCG_VERIFY(offset <= size && count <= size - offset,
              "view [" << offset << ", " << offset << " + " << count << ") is outside the array's " << size
                       << " elements");
}

void verify_host_size(const char* operation, std::size_t array_size, std::size_t host_size) {
  RTCG_VERIFY(array_size == host_size, operation << ": the array has " << array_size << " elements but the other side "
                                                 << host_size << "; sizes must match (use a view for part of an array)");
}

std::size_t shape_size(const std::vector<std::size_t>& shape) {
  std::size_t size = 1;
  for (std::size_t extent : shape) {
    RTCG_VERIFY(extent == 0 || size <= std::numeric_limits<std::size_t>::max() / extent,
                "an array shape's element count overflows");
    size *= extent;
  }
  return size;
}

namespace {

// One fill kernel per backend and element type, compiled at first use.
template <ArrayElement T>
const ElementwiseKernel& fill_kernel(Backend& backend) {
  static std::mutex mutex;
  static std::map<const Backend*, std::unique_ptr<ElementwiseKernel>> kernels;
  std::lock_guard lock(mutex);
  auto& kernel = kernels[&backend];
  if (!kernel) {
    const std::string type = c_type(scalar_type_of<T>());
    kernel = std::make_unique<ElementwiseKernel>(backend, type + " value, " + type + "* x", "x[i] = value",
                                                 std::string("fill_") + short_name(scalar_type_of<T>()));
  }
  return *kernel;
}

}  // namespace

template <ArrayElement T>
void fill(Backend& backend, T* data, std::size_t size, T value) {
  // All-zero bits are 0 for every element type (but not -0.0): a memset is enough.
  bool zero_bits = value == T{};
  if constexpr (std::is_floating_point_v<T>) zero_bits = zero_bits && !std::signbit(value);
  if (zero_bits) {
    backend.memset_bytes(data, 0, size * sizeof(T));
    return;
  }
  fill_kernel<T>(backend)(value, ArrayView<T>(backend, data, size));
}

template void fill<float>(Backend&, float*, std::size_t, float);
template void fill<double>(Backend&, double*, std::size_t, double);
template void fill<std::int32_t>(Backend&, std::int32_t*, std::size_t, std::int32_t);
template void fill<std::int64_t>(Backend&, std::int64_t*, std::size_t, std::int64_t);

}  // namespace rtcg::detail
