// Turns the C++ values given to a generated kernel (arrays, views, pointers, numbers) into
// KernelArgs, checked against the kernel's parsed argument list: arrays of the right element
// type and backend for pointers, read-only arrays only for const pointers, numbers converted
// to the declared scalar type (integers range-checked; no float passed for an int).
#pragma once

#include <rtcg/array.hpp>
#include <rtcg/kernel_arguments.hpp>
#include <rtcg/module.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace rtcg::detail {

template <class V>
struct is_array : std::false_type {};
template <class T>
struct is_array<Array<T>> : std::true_type {};
template <class V>
struct is_view : std::false_type {};
template <class T>
struct is_view<ArrayView<T>> : std::true_type {};

class ArgumentBinder {
public:
  ArgumentBinder(const Backend& backend, const std::vector<ArgumentDecl>& decls, std::string kernel_name)
      : backend_(&backend), decls_(&decls), kernel_name_(std::move(kernel_name)) {}

  // Binds the next declared argument to `value`.
  template <class V>
  void bind(V&& value) {
    using Plain = std::remove_cvref_t<V>;
    if constexpr (is_array<Plain>::value) {
      // A const Array& is read-only.
      bind_pointer(value.data(), scalar_type_of<typename Plain::value_type>(),
                   std::is_const_v<std::remove_reference_t<V>>, value.size(), value.backend_pointer());
    } else if constexpr (is_view<Plain>::value) {
      // An ArrayView<const T> is read-only, however the view object itself is qualified.
      bind_pointer(value.data(), scalar_type_of<typename Plain::value_type>(),
                   std::is_const_v<std::remove_pointer_t<decltype(value.data())>>, value.size(),
                   value.backend_pointer());
    } else if constexpr (std::is_pointer_v<Plain>) {
      using Pointee = std::remove_pointer_t<Plain>;
      if constexpr (std::is_void_v<std::remove_cv_t<Pointee>>)
        bind_pointer(value, std::nullopt, std::is_const_v<Pointee>, std::nullopt, nullptr);
      else
        bind_pointer(value, scalar_type_of<Pointee>(), std::is_const_v<Pointee>, std::nullopt, nullptr);
    } else if constexpr (std::is_floating_point_v<Plain>) {
      bind_floating(static_cast<double>(value));
    } else if constexpr (std::is_integral_v<Plain> && std::is_signed_v<Plain>) {
      bind_signed(static_cast<long long>(value));
    } else if constexpr (std::is_integral_v<Plain>) {
      bind_unsigned(static_cast<unsigned long long>(value));
    } else {
      static_assert(sizeof(Plain) == 0,
                    "generated kernels take arrays, views, pointers to elements and numbers");
    }
  }

  // Checks every declared argument was given; returns the arguments.
  KernelArgs& finish();
  // The size every array argument has, for launches that infer n; throws LaunchError when
  // there is no array argument or two differ.
  std::size_t common_array_size() const;
  // Every array bound has at least `n` elements (for launches with an explicit n).
  void verify_arrays_hold(std::size_t n) const;

private:
  const ArgumentDecl& next(const char* kind);
  void bind_pointer(const void* pointer, std::optional<ScalarType> element, bool read_only,
                    std::optional<std::size_t> count, const Backend* owner);
  void bind_floating(double value);
  void bind_signed(long long value);
  void bind_unsigned(unsigned long long value);
  std::string where(const ArgumentDecl& decl) const;

  const Backend* backend_;
  const std::vector<ArgumentDecl>* decls_;
  std::string kernel_name_;
  std::size_t index_ = 0;
  KernelArgs args_;
  std::vector<std::pair<std::string, std::size_t>> array_sizes_;  // argument name, elements
};

}  // namespace rtcg::detail
