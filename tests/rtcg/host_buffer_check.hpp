// The staging-buffer check shared by the host and CUDA array tests: device -> HostBuffer (page-
// locked on cuda) -> device on `backend`, the buffer moved from one owner to another on the way.
#pragma once

#include <rtcg/array.hpp>
#include <rtcg/backend.hpp>
#include <rtcg/host_buffer.hpp>

#include <gtest/gtest.h>

#include <span>
#include <utility>
#include <vector>

namespace rtcg::test {

inline void check_host_buffer(rtcg::Backend& backend) {
  const std::vector<double> values = {1.5, -2.25, 3e300, 0.0, 7.0};
  auto a = rtcg::Array<double>::from_host(backend, values);
  rtcg::HostBuffer<double> staging(backend, values.size());
  ASSERT_EQ(staging.size(), values.size());
  a.copy_to_host(staging.span());
  rtcg::HostBuffer<double> moved = std::move(staging);
  EXPECT_EQ(staging.data(), nullptr);
  EXPECT_EQ(std::vector<double>(moved.data(), moved.data() + moved.size()), values);
  moved.data()[0] = 42.0;
  rtcg::Array<double> b(backend, values.size());
  b.copy_from_host(std::span<const double>(moved.data(), moved.size()));
  EXPECT_EQ(b.to_host()[0], 42.0);
  EXPECT_EQ(b.to_host()[4], 7.0);
  rtcg::HostBuffer<double> empty(backend, 0);
  EXPECT_EQ(empty.size(), 0u);
}

}  // namespace rtcg::test
