// Arrays in a backend's memory, as PyCUDA's GPUArray: a shape, RAII ownership of memory from
// the backend's pool, explicit copies to and from host memory, fill, and views of contiguous
// ranges. Arithmetic lives in <rtcg/array_ops.hpp>; custom operations in
// <rtcg/elementwise.hpp> and <rtcg/reduction.hpp>.
//
//   auto& b = rtcg::backend("auto");
//   rtcg::Array<double> x(b, {rows, cols});            // uninitialised, row-major
//   x.copy_from_host(Eigen::Map<const Eigen::VectorXd>(v.data(), v.size()));
//   x.view(10, 5).fill(0.0);                            // elements 10..14
//   std::vector<double> back = x.to_host();
#pragma once

#include <rtcg/backend.hpp>
#include <rtcg/error.hpp>
#include <rtcg/kernel_arguments.hpp>
#include <rtcg/memory_pool.hpp>

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

namespace rtcg {

// Element types of arrays.
template <class T>
concept ArrayElement = std::same_as<T, float> || std::same_as<T, double> || std::same_as<T, std::int32_t> ||
                       std::same_as<T, std::int64_t>;

namespace detail {
// Checks shared by views and arrays; out of line so the header stays light.
void verify_view_range(std::size_t size, std::size_t offset, std::size_t count);
void verify_host_size(const char* operation, std::size_t array_size, std::size_t host_size);
std::size_t shape_size(const std::vector<std::size_t>& shape);  // throws on overflow
template <ArrayElement T>
void fill(Backend& backend, T* data, std::size_t size, T value);  // in array.cpp, for the four types

// Host ranges copies accept: anything with contiguous data() and size() (std::vector,
// std::span, std::array, Eigen vectors, matrices and maps with unit inner stride).
template <class R, class T>
concept HostRange = requires(R& r) {
  { r.data() } -> std::convertible_to<T*>;
  r.size();
};
template <class R>
void verify_contiguous(const R& range) {
  // Eigen expressions: data() of a strided map is not a contiguous run of size() elements.
  if constexpr (requires { range.innerStride(); range.outerStride(); range.innerSize(); range.outerSize(); }) {
    RTCG_VERIFY(range.innerStride() == 1 && (range.outerSize() <= 1 || range.outerStride() == range.innerSize()),
                "the host range is strided (inner stride " << range.innerStride() << ", outer stride "
                                                           << range.outerStride()
                                                           << "); copy it into a contiguous vector first");
  }
}
}  // namespace detail

// A contiguous range of elements in a backend's memory; does not own it. T may be const
// (a read-only view). Cheap to copy; valid while the array it views is alive.
template <class T>
class ArrayView {
public:
  using value_type = std::remove_const_t<T>;
  static_assert(ArrayElement<value_type>, "arrays hold float, double, int32_t or int64_t");

  ArrayView() = default;
  ArrayView(Backend& backend, T* data, std::size_t size) : backend_(&backend), data_(data), size_(size) {}
  // A writable view converts to a read-only one.
  template <class U>
    requires(std::is_const_v<T> && std::same_as<const U, T>)
  ArrayView(ArrayView<U> other) : backend_(other.backend_pointer()), data_(other.data()), size_(other.size()) {}

  Backend& backend() const {
    RTCG_VERIFY(backend_, "this view is empty (default-constructed) and belongs to no backend");
    return *backend_;
  }
  Backend* backend_pointer() const noexcept { return backend_; }
  T* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }
  std::size_t bytes() const noexcept { return size_ * sizeof(T); }
  bool empty() const noexcept { return size_ == 0; }

  // Elements [offset, offset + count) of this view.
  ArrayView view(std::size_t offset, std::size_t count) const {
    detail::verify_view_range(size_, offset, count);
    return ArrayView(*backend_, data_ + offset, count);
  }

  void copy_to_host(std::span<value_type> destination) const {
    detail::verify_host_size("copy_to_host", size_, destination.size());
    if (size_) backend().copy_to_host(destination.data(), data_, bytes());
  }
  template <class R>
    requires detail::HostRange<R, value_type>
  void copy_to_host(R&& destination) const {
    detail::verify_contiguous(destination);
    copy_to_host(std::span<value_type>(destination.data(), static_cast<std::size_t>(destination.size())));
  }
  std::vector<value_type> to_host() const {
    std::vector<value_type> result(size_);
    copy_to_host(std::span<value_type>(result));
    return result;
  }

  void copy_from_host(std::span<const value_type> source) const
    requires(!std::is_const_v<T>)
  {
    detail::verify_host_size("copy_from_host", size_, source.size());
    if (size_) backend().copy_to_device(data_, source.data(), bytes());
  }
  template <class R>
    requires(!std::is_const_v<T> && detail::HostRange<const R, const value_type>)
  void copy_from_host(const R& source) const {
    detail::verify_contiguous(source);
    copy_from_host(std::span<const value_type>(source.data(), static_cast<std::size_t>(source.size())));
  }

  // Copies another view of the same size and backend (device to device).
  void copy_from(ArrayView<const value_type> source) const
    requires(!std::is_const_v<T>)
  {
    detail::verify_host_size("copy_from", size_, source.size());
    RTCG_VERIFY(source.empty() || &source.backend() == backend_,
                "copy_from: the source array lives on the " << source.backend().name() << " backend, this one on "
                                                            << backend().name() << "; go through host memory");
    if (size_) backend().copy_on_device(data_, source.data(), bytes());
  }

  // Sets every element to `value` (a memset for zero, else a generated kernel).
  void fill(value_type value) const
    requires(!std::is_const_v<T>)
  {
    if (size_) detail::fill<value_type>(backend(), data_, size_, value);
  }

private:
  Backend* backend_ = nullptr;
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

// An array that owns its memory (from memory_pool(backend)). Move-only; copies are explicit
// (clone(), copy_from(), copy_to_host()). Elements are stored contiguously, row-major.
template <ArrayElement T>
class Array {
public:
  using value_type = T;

  Array() = default;
  // Uninitialised elements, as numpy.empty.
  Array(Backend& backend, std::vector<std::size_t> shape)
      : backend_(&backend), shape_(std::move(shape)), size_(detail::shape_size(shape_)),
        block_(memory_pool(backend), size_ * sizeof(T)) {}
  Array(Backend& backend, std::initializer_list<std::size_t> shape) : Array(backend, std::vector<std::size_t>(shape)) {}
  Array(Backend& backend, std::size_t size) : Array(backend, std::vector<std::size_t>{size}) {}

  static Array filled(Backend& backend, std::vector<std::size_t> shape, T value) {
    Array result(backend, std::move(shape));
    result.fill(value);
    return result;
  }
  // A 1-D array with a copy of `values` (any contiguous host range, Eigen included).
  template <class R>
    requires detail::HostRange<const R, const T>
  static Array from_host(Backend& backend, const R& values) {
    Array result(backend, static_cast<std::size_t>(values.size()));
    result.copy_from_host(values);
    return result;
  }

  // A moved-from array is empty.
  Array(Array&& other) noexcept
      : backend_(std::exchange(other.backend_, nullptr)), shape_(std::exchange(other.shape_, {})),
        size_(std::exchange(other.size_, 0)), block_(std::move(other.block_)) {}
  Array& operator=(Array&& other) noexcept {
    if (this != &other) {
      block_ = std::move(other.block_);
      backend_ = std::exchange(other.backend_, nullptr);
      shape_ = std::exchange(other.shape_, {});
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }
  Array(const Array&) = delete;  // a device copy is never implicit: use clone()
  Array& operator=(const Array&) = delete;

  Array clone() const {
    Array result(backend(), shape_);
    result.copy_from(view());
    return result;
  }

  Backend& backend() const {
    RTCG_VERIFY(backend_, "this array is empty (default-constructed or moved from)");
    return *backend_;
  }
  Backend* backend_pointer() const noexcept { return backend_; }
  const std::vector<std::size_t>& shape() const noexcept { return shape_; }
  std::size_t ndim() const noexcept { return shape_.size(); }
  std::size_t size() const noexcept { return size_; }
  std::size_t bytes() const noexcept { return size_ * sizeof(T); }
  bool empty() const noexcept { return size_ == 0; }
  T* data() noexcept { return static_cast<T*>(block_.get()); }
  const T* data() const noexcept { return static_cast<const T*>(block_.get()); }

  // Same elements, another shape of the same size.
  void reshape(std::vector<std::size_t> shape) {
    RTCG_VERIFY(detail::shape_size(shape) == size_,
                "reshape: the new shape has " << detail::shape_size(shape) << " elements, the array " << size_);
    shape_ = std::move(shape);
  }

  ArrayView<T> view() { return backend_ ? ArrayView<T>(*backend_, data(), size_) : ArrayView<T>(); }
  ArrayView<const T> view() const { return backend_ ? ArrayView<const T>(*backend_, data(), size_) : ArrayView<const T>(); }
  ArrayView<T> view(std::size_t offset, std::size_t count) { return view().view(offset, count); }
  ArrayView<const T> view(std::size_t offset, std::size_t count) const { return view().view(offset, count); }
  operator ArrayView<T>() & { return view(); }
  operator ArrayView<const T>() const& { return view(); }

  template <class R>
  void copy_to_host(R&& destination) const {
    view().copy_to_host(std::forward<R>(destination));
  }
  std::vector<T> to_host() const { return view().to_host(); }
  template <class R>
  void copy_from_host(const R& source) {
    view().copy_from_host(source);
  }
  void copy_from(ArrayView<const T> source) { view().copy_from(source); }
  void fill(T value) { view().fill(value); }

private:
  Backend* backend_ = nullptr;
  std::vector<std::size_t> shape_;
  std::size_t size_ = 0;
  PoolBlock block_;
};

// What operations accept: arrays and views, read-only or writable.
template <class T>
ArrayView<const T> as_const_view(const Array<T>& array) {
  return array.view();
}
template <class T>
ArrayView<const std::remove_const_t<T>> as_const_view(ArrayView<T> view) {
  return view;
}
template <class T>
ArrayView<T> as_mutable_view(Array<T>& array) {
  return array.view();
}
template <class T>
  requires(!std::is_const_v<T>)
ArrayView<T> as_mutable_view(ArrayView<T> view) {
  return view;
}

template <class A>
using array_value_t = typename decltype(as_const_view(std::declval<const std::remove_cvref_t<A>&>()))::value_type;

}  // namespace rtcg
