// ix(i): a signed index (int, Eigen::Index) as a std::size_t for std::vector/std::array
// subscripts, where -Wsign-conversion wants the conversion spelled out. Private to dg.
#pragma once

#include <cstddef>
#include <type_traits>

namespace rtdg::dg::detail {

template <class Int>
constexpr std::size_t ix(Int i) {
  static_assert(std::is_integral_v<Int>);
  return static_cast<std::size_t>(i);
}

}  // namespace rtdg::dg::detail
