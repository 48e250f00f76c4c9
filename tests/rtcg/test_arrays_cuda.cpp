// Arrays, the stream-ordered pool and the array operations on a CUDA device, against plain
// loops; skipped when no device is usable.
#include <rtcg/array.hpp>
#include <rtcg/array_ops.hpp>
#include <rtcg/array_tuning.hpp>
#include <rtcg/backend.hpp>
#include <rtcg/elementwise.hpp>
#include <rtcg/memory_pool.hpp>
#include <rtcg/reduction.hpp>
#include <rtcg/tuner.hpp>

#include "host_buffer_check.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <random>
#include <vector>

namespace {

#define SKIP_WITHOUT_CUDA() \
  if (!rtcg::cuda_available()) GTEST_SKIP() << "no CUDA device: " << rtcg::cuda_unavailable_reason()

rtcg::Backend& cuda() { return rtcg::backend("cuda"); }

const std::vector<std::size_t> kSizes = {0, 1, 10007, (1u << 20) - 1, (1u << 20) + 1};

template <class T>
std::vector<T> pattern(std::size_t n, unsigned seed) {
  std::mt19937 generator(seed);
  std::vector<T> values(n);
  for (auto& v : values) {
    const auto k = static_cast<int>(generator() % 33) - 16;
    if constexpr (std::is_floating_point_v<T>) v = static_cast<T>(k) / T(8);
    else v = static_cast<T>(k);
  }
  return values;
}

TEST(CudaArrays, CopiesFillsAndViews) {
  SKIP_WITHOUT_CUDA();
  auto a = rtcg::Array<double>::from_host(cuda(), std::vector<double>{1, 2, 3, 4, 5});
  a.view(1, 3).fill(-1.5);
  EXPECT_EQ(a.to_host(), (std::vector<double>{1, -1.5, -1.5, -1.5, 5}));
  auto b = a.clone();
  a.fill(0);
  EXPECT_EQ(b.to_host(), (std::vector<double>{1, -1.5, -1.5, -1.5, 5}));
  rtcg::Array<std::int32_t> i(cuda(), std::size_t{1000});
  i.fill(7);
  EXPECT_EQ(i.to_host(), std::vector<std::int32_t>(1000, 7));
}

template <class T>
void check_ops() {
  for (std::size_t n : kSizes) {
    const auto x = pattern<T>(n, 1), y = pattern<T>(n, 2);
    auto dx = rtcg::Array<T>::from_host(cuda(), x);
    auto dy = rtcg::Array<T>::from_host(cuda(), y);
    long double sum = 0, dot = 0, magnitude = 0;
    T max = std::numeric_limits<T>::lowest();
    if constexpr (std::is_floating_point_v<T>) max = -std::numeric_limits<T>::infinity();
    for (std::size_t k = 0; k < n; ++k) {
      sum += x[k];
      dot += static_cast<long double>(x[k]) * y[k];
      magnitude += 4 * std::fabs(static_cast<long double>(x[k]));
      max = std::max(max, x[k]);
    }
    const long double tolerance = std::is_same_v<T, float> ? 1e-6L * magnitude : 0;
    EXPECT_LE(std::fabs(static_cast<long double>(rtcg::sum(dx)) - sum), tolerance) << n;
    EXPECT_LE(std::fabs(static_cast<long double>(rtcg::dot(dx, dy)) - dot), tolerance) << n;
    EXPECT_EQ(rtcg::max(dx), max) << n;
    rtcg::axpy(T(3), dx, dy);
    const auto got = dy.to_host();
    for (std::size_t k = 0; k < n; ++k) ASSERT_EQ(got[k], static_cast<T>(T(3) * x[k] + y[k])) << k;
  }
}

TEST(CudaArrays, StageThroughPinnedHostBuffers) {
  SKIP_WITHOUT_CUDA();
  rtcg::test::check_host_buffer(cuda());
}

TEST(CudaArrayOps, MatchPlainLoopsOverEdgeSizes) {
  SKIP_WITHOUT_CUDA();
  check_ops<double>();
  check_ops<float>();
  check_ops<std::int32_t>();
  check_ops<std::int64_t>();
}

TEST(CudaArrayOps, ReductionsAreBitwiseReproducibleAndPropagateNaN) {
  SKIP_WITHOUT_CUDA();
  std::mt19937_64 generator(3);
  std::uniform_real_distribution<double> uniform(-1, 1);
  std::vector<double> x(5000011);
  for (auto& v : x) v = uniform(generator) * std::exp(10 * uniform(generator));
  auto dx = rtcg::Array<double>::from_host(cuda(), x);
  const auto bits = std::bit_cast<std::uint64_t>(rtcg::sum(dx));
  const auto norm_bits = std::bit_cast<std::uint64_t>(rtcg::norm2(dx));
  for (int run = 0; run < 5; ++run) {
    EXPECT_EQ(std::bit_cast<std::uint64_t>(rtcg::sum(dx)), bits);
    EXPECT_EQ(std::bit_cast<std::uint64_t>(rtcg::norm2(dx)), norm_bits);
  }
  x[4000000] = std::numeric_limits<double>::quiet_NaN();
  dx.copy_from_host(x);
  EXPECT_TRUE(std::isnan(rtcg::sum(dx)));
  EXPECT_TRUE(std::isnan(rtcg::max(dx)));
  EXPECT_TRUE(std::isnan(rtcg::norm2(dx)));
}

TEST(CudaElementwise, EveryLoopShapeMatches) {
  SKIP_WITHOUT_CUDA();
  const std::size_t n = (1u << 20) + 3;
  const auto x = pattern<float>(n, 4);
  auto dx = rtcg::Array<float>::from_host(cuda(), x);
  for (const rtcg::ElementwiseParams params :
       {rtcg::ElementwiseParams{}, rtcg::ElementwiseParams{128, 4, 8, true}, rtcg::ElementwiseParams{1024, 8, 0, true}}) {
    rtcg::ElementwiseKernel k(cuda(), "const float* x, float* y", "y[i] = fabsf(x[i]) + 1.0f", "abs_plus_one", params);
    rtcg::Array<float> dy(cuda(), n);
    k(dx, dy);
    const auto got = dy.to_host();
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(got[i], std::fabs(x[i]) + 1.0f) << params.describe() << " at " << i;
  }
}

TEST(CudaMemoryPool, ReusesMemoryAndReportsOutOfMemory) {
  SKIP_WITHOUT_CUDA();
  auto& pool = rtcg::memory_pool(cuda());
  for (int k = 0; k < 10; ++k) rtcg::Array<double> scratch(cuda(), std::size_t{1} << 20);
  EXPECT_GE(pool.stats().allocations, 10u);
  const std::size_t too_much = cuda().device_info().total_memory * 2;
  try {
    (void)pool.allocate(too_much);
    FAIL() << "expected OutOfMemoryError";
  } catch (const rtcg::OutOfMemoryError& error) {
    EXPECT_EQ(error.requested_bytes(), too_much);
    // "requested 158.36 GiB (170034987008 bytes), 16.94 MiB (17760256 bytes) free (...)"
    EXPECT_NE(std::string(error.what()).find("bytes) free ("), std::string::npos) << error.what();
  }
  EXPECT_GE(pool.stats().out_of_memory_retries, 1u);
  rtcg::Array<double> still_works(cuda(), std::size_t{100});
  still_works.fill(1);
  EXPECT_EQ(rtcg::sum(still_works), 100.0);
}

TEST(CudaTuner, TunesAxpyAndSumWithChecks) {
  SKIP_WITHOUT_CUDA();
  for (const char* name : {"axpy", "sum"}) {
    const auto job = rtcg::make_array_tuning_job(name, cuda(), rtcg::ScalarType::f64, std::size_t{1} << 22);
    const auto result = rtcg::tune::Tuner(cuda()).tune(job);
    ASSERT_TRUE(result.winner) << rtcg::tune::format_table(result);
    for (const auto& v : result.variants)
      EXPECT_TRUE(v.ok() || v.status == "spill" || v.status == "launch") << rtcg::tune::to_string(v.point) << ": " << v.reason;
  }
}

// A variant's own local-memory allowance (Variant::max_local_bytes) replaces the tuner's: the
// same kernel with a stack array indexed at run time (local memory) is dropped as "spill" under
// the tuner's limit of 0 and timed where the variant allows it.
TEST(CudaTuner, AVariantMayAllowLocalMemory) {
  SKIP_WITHOUT_CUDA();
  auto x = std::make_shared<rtcg::Array<double>>(rtcg::Array<double>::filled(cuda(), {1u << 16}, 1.0));
  rtcg::tune::Job job;
  job.family = "local_memory_test";
  job.problem = {"f64", 16};
  job.template_hash = rtcg::tune::template_hash("local_memory_test v1");
  job.space.parameter("allow", {0, 1});
  job.default_point = {{"allow", 1}};
  job.generate = [x](const rtcg::tune::Point& point) {
    const rtcg::ElementwiseSpec spec{"local_" + std::to_string(point.at("allow")), "double* x",
                                     "volatile double a[32]; for (int r = 0; r < 32; ++r) a[r] = x[i] * r; x[i] = a[i & 31]", ""};
    rtcg::tune::Variant variant;
    variant.program = rtcg::elementwise_program(spec, {});
    variant.launches = {{spec.name, rtcg::elementwise_shape({}, x->size(), 1)}};
    variant.run = [x, spec](const rtcg::Module& module) {
      module.kernel(spec.name)->operator()(rtcg::LaunchShape{{64}, {256}}, x->data(), static_cast<long long>(x->size()));
    };
    if (point.at("allow") == 1) variant.max_local_bytes = 4096;
    return variant;
  };
  const auto result = rtcg::tune::Tuner(cuda()).tune(job);  // TimingOptions::max_local_bytes = 0
  ASSERT_EQ(result.variants.size(), 2u);
  for (const auto& v : result.variants) {
    if (v.point.at("allow") == 1) {
      EXPECT_TRUE(v.ok()) << v.status << ": " << v.reason;
    } else {
      EXPECT_EQ(v.status, "spill") << v.reason;
      EXPECT_NE(v.reason.find("bytes of local memory per thread"), std::string::npos) << v.reason;
    }
  }
}

}  // namespace
