// The roofline measurement: positive finite rates, the bound as the larger of its two terms,
// a copy kernel that copies. Built twice: on the host backend (with the CUDA source compiled
// through NVRTC, no GPU needed), and with RTCG_ROOFLINE_TEST_CUDA on a CUDA device (label gpu,
// skipped without one). Only the outcome is asserted, never a timing beyond > 0.
#include <rtcg/array.hpp>
#include <rtcg/backend.hpp>
#include <rtcg/compiler.hpp>
#include <rtcg/roofline.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <vector>

namespace {

void expect_positive_finite(const rtcg::Roofline& roof) {
  for (double value : {roof.copy_gbs, roof.fp64_gflops, roof.fp32_gflops, roof.seconds}) {
    EXPECT_TRUE(std::isfinite(value)) << value;
    EXPECT_GT(value, 0.0);
  }
  EXPECT_TRUE(roof.copy_method == "kernel" || roof.copy_method == "memcpy") << roof.copy_method;
  EXPECT_FALSE(roof.describe().empty());
  // The bound is the larger of the memory and compute terms, for either precision.
  for (bool single : {false, true}) {
    const double bytes = 1e9, flops = 1e11;
    const double memory = bytes / (roof.copy_gbs * 1e9), compute = flops / (roof.peak_gflops(single) * 1e9);
    EXPECT_DOUBLE_EQ(roof.bound_seconds(bytes, flops, single), std::max(memory, compute));
  }
  EXPECT_DOUBLE_EQ(roof.peak_gflops(true), roof.fp32_gflops);
}

// Copies a pattern of `count` int32 (so a byte count that need not be a multiple of 16) with
// the generated copy kernel and reads it back.
void check_copy(rtcg::Backend& backend, std::size_t count) {
  std::vector<std::int32_t> pattern(count);
  for (std::size_t i = 0; i < count; ++i) pattern[i] = static_cast<std::int32_t>(i * 2654435761u);
  auto source = rtcg::Array<std::int32_t>::from_host(backend, pattern);
  rtcg::Array<std::int32_t> destination(backend, count + 4);
  destination.fill(-1);
  rtcg::roofline_copy(backend, destination.data(), source.data(), count * sizeof(std::int32_t));
  const auto back = destination.to_host();
  EXPECT_EQ(std::vector<std::int32_t>(back.begin(), back.begin() + static_cast<std::ptrdiff_t>(count)), pattern)
      << count << " elements";
  // Nothing past the end is written.
  EXPECT_EQ(std::vector<std::int32_t>(back.begin() + static_cast<std::ptrdiff_t>(count), back.end()),
            std::vector<std::int32_t>(4, -1));
}

#ifndef RTCG_ROOFLINE_TEST_CUDA

rtcg::Backend& host() { return rtcg::backend("host"); }

TEST(Roofline, BoundIsTheLargerTerm) {
  rtcg::Roofline roof;
  roof.copy_gbs = 2000;     // 2e12 B/s
  roof.fp64_gflops = 50000;  // 5e13 flop/s
  roof.fp32_gflops = 100000;
  EXPECT_DOUBLE_EQ(roof.peak_gflops(false), 50000);
  EXPECT_DOUBLE_EQ(roof.peak_gflops(true), 100000);
  // Memory bound: 4e9 bytes take 2 ms; 1e9 flops 0.02 ms.
  EXPECT_DOUBLE_EQ(roof.bound_seconds(4e9, 1e9, false), 2e-3);
  // Compute bound: 1e12 flops take 20 ms in double, 10 ms in float.
  EXPECT_DOUBLE_EQ(roof.bound_seconds(1e6, 1e12, false), 2e-2);
  EXPECT_DOUBLE_EQ(roof.bound_seconds(1e6, 1e12, true), 1e-2);
  EXPECT_DOUBLE_EQ(roof.bound_seconds(0, 0, true), 0);
  // The two sides on their own (their sum is the serial bound rtdg bench reports).
  EXPECT_DOUBLE_EQ(roof.memory_seconds(4e9), 2e-3);
  EXPECT_DOUBLE_EQ(roof.compute_seconds(1e9, false), 2e-5);
  EXPECT_DOUBLE_EQ(roof.compute_seconds(1e9, true), 1e-5);
  // An unmeasured rate contributes nothing.
  rtcg::Roofline empty;
  EXPECT_DOUBLE_EQ(empty.bound_seconds(1e9, 1e9, false), 0);
  EXPECT_DOUBLE_EQ(empty.memory_seconds(1e9), 0);
  EXPECT_DOUBLE_EQ(empty.compute_seconds(1e9, true), 0);
}

TEST(Roofline, HostMeasurementIsPositiveAndFinite) {
  rtcg::RooflineOptions options;
  options.copy_bytes = (std::size_t{4} << 20) + 100;  // rounded down to a multiple of 256
  options.repeats = 3;
  const auto roof = rtcg::measure_roofline(host(), options);
  expect_positive_finite(roof);
  EXPECT_EQ(roof.copy_bytes, (std::size_t{4} << 20));
  std::cout << "host roofline: " << roof.describe() << "\n";
}

TEST(Roofline, HostCopyKernelCopies) {
  for (std::size_t count : {std::size_t{1}, std::size_t{3}, std::size_t{4}, std::size_t{1000003}}) check_copy(host(), count);
}

TEST(Roofline, RefusesBadOptions) {
  rtcg::RooflineOptions options;
  options.copy_bytes = 100;
  EXPECT_THROW(rtcg::measure_roofline(host(), options), rtcg::Error);
  options.copy_bytes = 4096;
  options.repeats = 0;
  EXPECT_THROW(rtcg::measure_roofline(host(), options), rtcg::Error);
}

// The CUDA branch of the same source compiles with NVRTC (no GPU needed).
TEST(Roofline, CudaSourceCompilesWithNvrtc) {
  const auto compiler = rtcg::make_nvrtc_compiler("sm_90");
  EXPECT_NO_THROW(compiler->compile(rtcg::roofline_program()));
}

#else

#define SKIP_WITHOUT_CUDA() \
  if (!rtcg::cuda_available()) GTEST_SKIP() << "no CUDA device: " << rtcg::cuda_unavailable_reason()

TEST(CudaRoofline, MeasurementIsPositiveAndFinite) {
  SKIP_WITHOUT_CUDA();
  auto& cuda = rtcg::backend("cuda");
  const auto roof = rtcg::measure_roofline(cuda);  // the defaults: 1 GiB, 10 repeats
  expect_positive_finite(roof);
  std::cout << "cuda roofline (" << cuda.device_info().name << "): " << roof.describe() << "\n";
  RecordProperty("copy_gbs", std::to_string(roof.copy_gbs));
  RecordProperty("fp64_gflops", std::to_string(roof.fp64_gflops));
  RecordProperty("fp32_gflops", std::to_string(roof.fp32_gflops));
}

TEST(CudaRoofline, CopyKernelCopies) {
  SKIP_WITHOUT_CUDA();
  for (std::size_t count : {std::size_t{1}, std::size_t{3}, std::size_t{4}, std::size_t{1000003}})
    check_copy(rtcg::backend("cuda"), count);
}

#endif

}  // namespace
