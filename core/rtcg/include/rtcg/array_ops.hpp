// Array operations built on the elementwise and reduction generators, with plans (block
// size, items per thread, grid) from the tuning database (see <rtcg/tuning_db.hpp>; the
// built-in default when nothing was tuned). They take arrays or views of one element type:
//
//   rtcg::axpy(2.0, x, y);          // y <- 2 x + y
//   double s = rtcg::sum(x);        // waits for the device; sum_into() does not
//   double d = rtcg::dot(x.view(0, 100), y.view(0, 100));
//
// Reductions give the same bits run after run (see <rtcg/reduction.hpp>). max returns NaN when
// an element is NaN and the lowest value of the type for an empty array; sum, dot and norm2
// return 0 for empty arrays. Integer sums wrap like the element type does on the device.
#pragma once

#include <rtcg/array.hpp>

#include <type_traits>

namespace rtcg {

namespace detail {
// In array_ops.cpp for float, double, int32_t and int64_t.
template <ArrayElement T>
void axpy(T a, ArrayView<const T> x, ArrayView<T> y);
template <ArrayElement T>
void scale(T a, ArrayView<T> x);
template <ArrayElement T>
void sum_into(ArrayView<const T> x, ArrayView<T> result);
template <ArrayElement T>
void dot_into(ArrayView<const T> x, ArrayView<const T> y, ArrayView<T> result);
template <ArrayElement T>
void max_into(ArrayView<const T> x, ArrayView<T> result);
template <ArrayElement T>
void norm2_into(ArrayView<const T> x, ArrayView<T> result);
template <ArrayElement T>
T read_scalar(ArrayView<const T> result);  // copies result[0] to the host
template <ArrayElement T>
Array<T> scalar_array(Backend& backend);  // one element from the pool
}  // namespace detail

template <class A>
using mutable_view_t = decltype(as_mutable_view(std::declval<A&>()));

// y <- a x + y (asynchronous on CUDA).
template <class X, class Y>
void axpy(array_value_t<Y> a, const X& x, Y&& y) {
  detail::axpy(a, as_const_view(x), as_mutable_view(y));
}
// x <- a x.
template <class X>
void scale(array_value_t<X> a, X&& x) {
  detail::scale(a, as_mutable_view(x));
}

// Reductions into result[0] on the device, without waiting.
template <class X, class R>
void sum_into(const X& x, R&& result) {
  detail::sum_into(as_const_view(x), as_mutable_view(result));
}
template <class X, class Y, class R>
void dot_into(const X& x, const Y& y, R&& result) {
  detail::dot_into(as_const_view(x), as_const_view(y), as_mutable_view(result));
}
template <class X, class R>
void max_into(const X& x, R&& result) {
  detail::max_into(as_const_view(x), as_mutable_view(result));
}
template <class X, class R>
void norm2_into(const X& x, R&& result) {
  detail::norm2_into(as_const_view(x), as_mutable_view(result));
}

// The same, returning the value on the host.
template <class X>
array_value_t<X> sum(const X& x) {
  auto view = as_const_view(x);
  auto result = detail::scalar_array<array_value_t<X>>(view.backend());
  detail::sum_into(view, result.view());
  return detail::read_scalar<array_value_t<X>>(result.view());
}
template <class X, class Y>
array_value_t<X> dot(const X& x, const Y& y) {
  auto view = as_const_view(x);
  auto result = detail::scalar_array<array_value_t<X>>(view.backend());
  detail::dot_into(view, as_const_view(y), result.view());
  return detail::read_scalar<array_value_t<X>>(result.view());
}
template <class X>
array_value_t<X> max(const X& x) {
  auto view = as_const_view(x);
  auto result = detail::scalar_array<array_value_t<X>>(view.backend());
  detail::max_into(view, result.view());
  return detail::read_scalar<array_value_t<X>>(result.view());
}
// sqrt(sum of squares); float and double only. No scaling: squares that overflow give inf.
template <class X>
array_value_t<X> norm2(const X& x) {
  static_assert(std::is_floating_point_v<array_value_t<X>>, "norm2 needs a float or double array");
  auto view = as_const_view(x);
  auto result = detail::scalar_array<array_value_t<X>>(view.backend());
  detail::norm2_into(view, result.view());
  return detail::read_scalar<array_value_t<X>>(result.view());
}

}  // namespace rtcg
