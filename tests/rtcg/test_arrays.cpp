// Arrays, the memory pool, ElementwiseKernel, ReductionKernel and the array operations on the
// host backend, against plain loops; the generated CUDA source compiled with NVRTC (no GPU).
#include <rtcg/array.hpp>
#include <rtcg/array_ops.hpp>
#include <rtcg/array_tuning.hpp>
#include <rtcg/backend.hpp>
#include <rtcg/compiler.hpp>
#include <rtcg/elementwise.hpp>
#include <rtcg/memory_pool.hpp>
#include <rtcg/reduction.hpp>

#include "host_buffer_check.hpp"

#include <Eigen/Dense>
#include <gtest/gtest.h>
#include <omp.h>

#include <bit>
#include <cstdlib>
#include <map>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

namespace {

rtcg::Backend& host() { return rtcg::backend("host"); }

std::string message_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const rtcg::Error& error) {
    return error.what();
  }
  return "(no error)";
}

// Sizes every reduction is checked over: empty, one, a prime, and 2^k -/+ 1 around the
// host chunk (65536) and the CUDA tile sizes.
const std::vector<std::size_t> kSizes = {0, 1, 10007, 65535, 65537};

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

// ---------------------------------------------------------------------------------------------
// Arrays

TEST(Array, HasShapeSizeAndOwnsItsMemory) {
  rtcg::Array<double> a(host(), {3, 4});
  EXPECT_EQ(a.shape(), (std::vector<std::size_t>{3, 4}));
  EXPECT_EQ(a.size(), 12u);
  EXPECT_EQ(a.ndim(), 2u);
  EXPECT_EQ(a.bytes(), 96u);
  a.reshape({12});
  EXPECT_EQ(a.shape(), (std::vector<std::size_t>{12}));
  EXPECT_NE(message_of([&] { a.reshape({5}); }).find("5 elements, the array 12"), std::string::npos);

  rtcg::Array<double> b = std::move(a);
  EXPECT_EQ(b.size(), 12u);
  EXPECT_EQ(a.size(), 0u);  // NOLINT(bugprone-use-after-move): moved-from arrays are empty
  EXPECT_NE(message_of([&] { (void)a.backend(); }).find("empty"), std::string::npos);

  rtcg::Array<float> empty(host(), std::size_t{0});
  EXPECT_TRUE(empty.empty());
  EXPECT_TRUE(empty.to_host().empty());
}

TEST(Array, CopiesToAndFromHostAndClones) {
  const std::vector<std::int64_t> values = {5, -3, 7, 1ll << 40};
  auto a = rtcg::Array<std::int64_t>::from_host(host(), values);
  EXPECT_EQ(a.to_host(), values);
  auto b = a.clone();
  a.fill(0);
  EXPECT_EQ(b.to_host(), values);
  EXPECT_EQ(a.to_host(), std::vector<std::int64_t>(4, 0));

  std::vector<std::int64_t> wrong(3);
  EXPECT_NE(message_of([&] { b.copy_to_host(wrong); }).find("the array has 4 elements but the other side 3"),
            std::string::npos);
}

TEST(Array, StagesThroughHostBuffers) { rtcg::test::check_host_buffer(host()); }

TEST(Array, WorksWithEigenMaps) {
  Eigen::VectorXd v = Eigen::VectorXd::LinSpaced(10, 0.0, 9.0);
  auto a = rtcg::Array<double>::from_host(host(), Eigen::Map<const Eigen::VectorXd>(v.data(), v.size()));
  Eigen::VectorXd back(10);
  Eigen::Map<Eigen::VectorXd> map(back.data(), back.size());
  a.copy_to_host(map);
  EXPECT_EQ(back, v);

  Eigen::MatrixXf m = Eigen::MatrixXf::Random(3, 5);
  rtcg::Array<float> am(host(), {5, 3});  // column-major 3x5 is row-major 5x3
  am.copy_from_host(m);
  Eigen::MatrixXf m_back(3, 5);
  am.copy_to_host(m_back);
  EXPECT_EQ(m_back, m);

  // Every second element is not a contiguous range.
  Eigen::Map<const Eigen::VectorXd, 0, Eigen::InnerStride<2>> strided(v.data(), 5);
  rtcg::Array<double> five(host(), std::size_t{5});
  EXPECT_NE(message_of([&] { five.copy_from_host(strided); }).find("strided"), std::string::npos);
}

TEST(Array, FillsEveryTypeAndViewsOfRanges) {
  rtcg::Array<float> f(host(), std::size_t{100});
  f.fill(2.5f);
  EXPECT_EQ(f.to_host(), std::vector<float>(100, 2.5f));
  f.fill(-0.0f);  // not all-zero bits: must not become +0.0
  EXPECT_TRUE(std::signbit(f.to_host()[50]));

  rtcg::Array<std::int32_t> i(host(), std::size_t{10});
  i.fill(0);
  i.view(2, 3).fill(-7);
  EXPECT_EQ(i.to_host(), (std::vector<std::int32_t>{0, 0, -7, -7, -7, 0, 0, 0, 0, 0}));
  EXPECT_EQ(i.view(2, 3).view(1, 2).to_host(), (std::vector<std::int32_t>{-7, -7}));
  EXPECT_NE(message_of([&] { (void)i.view(8, 3); }).find("outside the array's 10 elements"), std::string::npos);

  auto d = rtcg::Array<double>::filled(host(), {2, 2}, 1.25);
  EXPECT_EQ(d.to_host(), std::vector<double>(4, 1.25));
  rtcg::Array<std::int64_t> l(host(), std::size_t{3});
  l.fill(std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(l.to_host(), std::vector<std::int64_t>(3, std::numeric_limits<std::int64_t>::min()));
}

// ---------------------------------------------------------------------------------------------
// The memory pool

// A host-memory backend with a byte budget, to make the pool run out of memory on purpose.
class LimitedBackend final : public rtcg::Backend {
public:
  explicit LimitedBackend(std::size_t capacity) : Backend(nullptr), capacity_(capacity) {}
  rtcg::BackendKind kind() const override { return rtcg::BackendKind::host; }
  rtcg::DeviceInfo device_info() const override { return {}; }
  std::shared_ptr<const rtcg::Module> load(const rtcg::Binary&) const override { return nullptr; }
  void* allocate(std::size_t bytes) override {
    if (used_ + bytes > capacity_) throw rtcg::DeviceError("fake out of memory");
    used_ += bytes;
    ++allocations;
    void* p = std::malloc(bytes);
    sizes_[p] = bytes;
    return p;
  }
  void deallocate(void* pointer) noexcept override {
    used_ -= sizes_[pointer];
    sizes_.erase(pointer);
    std::free(pointer);
  }
  void copy_to_device(void*, const void*, std::size_t) override {}
  void copy_to_host(void*, const void*, std::size_t) override {}
  void copy_on_device(void*, const void*, std::size_t) override {}
  void memset_bytes(void*, unsigned char, std::size_t) override {}
  std::size_t free_memory() const override { return capacity_ - used_; }
  void synchronize() override {}
  double time_ms(const std::function<void()>& work) override {
    work();
    return 0;
  }
  int allocations = 0;

private:
  std::size_t capacity_;
  std::size_t used_ = 0;
  std::map<void*, std::size_t> sizes_;
};

TEST(MemoryPool, BinsRoundUpByAtMostAnEighth) {
  EXPECT_EQ(rtcg::CachingPool::bin_size(1), 256u);
  EXPECT_EQ(rtcg::CachingPool::bin_size(256), 256u);
  EXPECT_EQ(rtcg::CachingPool::bin_size(1000), 1024u);
  EXPECT_EQ(rtcg::CachingPool::bin_size(1100), 1152u);
  for (std::size_t bytes : {257ul, 4097ul, 123456ul, 1ul << 30, (1ul << 30) + 1}) {
    const std::size_t bin = rtcg::CachingPool::bin_size(bytes);
    EXPECT_GE(bin, bytes);
    EXPECT_LE(static_cast<double>(bin), 1.125 * static_cast<double>(bytes) + 1);
  }
}

TEST(MemoryPool, ReusesFreedBlocks) {
  LimitedBackend backend(1 << 20);
  rtcg::CachingPool pool(backend);
  void* first = pool.allocate(1000);
  pool.deallocate(first, 1000);
  void* second = pool.allocate(1010);  // same bin (1024)
  EXPECT_EQ(second, first);
  EXPECT_EQ(backend.allocations, 1);
  const auto stats = pool.stats();
  EXPECT_EQ(stats.allocations, 2u);
  EXPECT_EQ(stats.reused, 1u);
  EXPECT_EQ(stats.bytes_in_use, 1024u);
  pool.deallocate(second, 1010);
  EXPECT_EQ(pool.stats().bytes_cached, 1024u);
  pool.release_cached();
  EXPECT_EQ(pool.stats().bytes_cached, 0u);
}

TEST(MemoryPool, ArraysOfTheSameSizeReuseMemory) {
  auto& pool = rtcg::memory_pool(host());
  const void* first = nullptr;
  {
    rtcg::Array<double> a(host(), std::size_t{12345});
    first = a.data();
  }
  const auto reused_before = pool.stats().reused;
  rtcg::Array<double> b(host(), std::size_t{12345});
  EXPECT_EQ(b.data(), first);
  EXPECT_EQ(pool.stats().reused, reused_before + 1);
}

TEST(MemoryPool, OnOutOfMemoryReleasesItsCacheAndRetriesOnce) {
  LimitedBackend backend(4096);
  rtcg::CachingPool pool(backend);
  void* held = pool.allocate(3000);  // bin 3072
  pool.deallocate(held, 3000);       // cached, still counted by the backend
  void* big = pool.allocate(3500);   // bin 3584: fails, cache released, retried
  EXPECT_NE(big, nullptr);
  EXPECT_EQ(pool.stats().out_of_memory_retries, 1u);
  EXPECT_EQ(pool.stats().bytes_cached, 0u);

  try {
    (void)pool.allocate(100000);
    FAIL() << "expected OutOfMemoryError";
  } catch (const rtcg::OutOfMemoryError& error) {
    EXPECT_EQ(error.requested_bytes(), 100000u);
    EXPECT_EQ(error.free_bytes(), 4096u - 3584u);
    const std::string what = error.what();
    EXPECT_NE(what.find("requested 97.66 KiB (100000 bytes)"), std::string::npos) << what;
    EXPECT_NE(what.find("512 bytes free"), std::string::npos) << what;
  }
  pool.deallocate(big, 3500);
}

// ---------------------------------------------------------------------------------------------
// ElementwiseKernel

TEST(KernelArguments, ParsesKnownTypesAndRejectsTheRest) {
  const auto args = rtcg::parse_arguments("double a, const float *x,  long   long k, int32_t* counts");
  ASSERT_EQ(args.size(), 4u);
  EXPECT_EQ(args[0].declaration(), "double a");
  EXPECT_EQ(args[1].declaration(), "const float* x");
  EXPECT_EQ(args[2].declaration(), "long long k");
  EXPECT_EQ(args[3].declaration(), "int* counts");

  EXPECT_NE(message_of([] { rtcg::parse_arguments("complex z"); }).find("unknown type"), std::string::npos);
  EXPECT_NE(message_of([] { rtcg::parse_arguments("double 2x"); }).find("not a C identifier"), std::string::npos);
  EXPECT_NE(message_of([] { rtcg::parse_arguments("double i"); }).find("`i` and `n`"), std::string::npos);
  EXPECT_NE(message_of([] { rtcg::parse_arguments("double a, float a"); }).find("declared twice"), std::string::npos);
  EXPECT_NE(message_of([] { rtcg::parse_arguments("double* rtcg_x"); }).find("rtcg_"), std::string::npos);
  EXPECT_NE(message_of([] { rtcg::parse_arguments("double a,"); }).find("empty"), std::string::npos);
  EXPECT_NE(message_of([] { rtcg::parse_arguments("double x; system(\"rm\")"); }).find("argument 1"),
            std::string::npos);
  EXPECT_NE(message_of([] { rtcg::verify_snippet("x[i] = 1; } void evil() {", "op"); }).find("unmatched `}`"),
            std::string::npos);
  EXPECT_NE(message_of([] { rtcg::verify_snippet("#include <x>\nx[i]", "op"); }).find("preprocessor"),
            std::string::npos);
}

TEST(ElementwiseKernel, MatchesAPlainLoopForEveryLoopShape) {
  for (const rtcg::ElementwiseParams params :
       {rtcg::ElementwiseParams{}, rtcg::ElementwiseParams{128, 4, 8, true}, rtcg::ElementwiseParams{64, 3, 0, false}}) {
    rtcg::ElementwiseKernel lin_comb(host(), "double a, const double* x, double b, const double* y, double* z",
                                     "z[i] = a * x[i] + b * sqrt(y[i])", "lin_comb", params);
    for (std::size_t n : kSizes) {
      const auto x = pattern<double>(n, 1);
      auto y = pattern<double>(n, 2);
      for (auto& v : y) v = std::fabs(v);
      auto dx = rtcg::Array<double>::from_host(host(), x);
      auto dy = rtcg::Array<double>::from_host(host(), y);
      rtcg::Array<double> dz(host(), n);
      lin_comb(5.0, dx, 6, dy, dz);  // an int for a double is converted
      // The host compiler may contract a*x + b*y into an FMA (-march=native): one rounding less.
      const auto z = dz.to_host();
      ASSERT_EQ(z.size(), n);
      for (std::size_t i = 0; i < n; ++i)
        ASSERT_NEAR(z[i], 5.0 * x[i] + 6.0 * std::sqrt(y[i]), 1e-14) << "n = " << n << ", " << params.describe() << ", i = " << i;
    }
  }
}

TEST(ElementwiseKernel, ChecksArgumentsAtLaunch) {
  rtcg::ElementwiseKernel scale(host(), "float a, float* x", "x[i] *= a", "scale_f32_test");
  rtcg::Array<float> x(host(), std::size_t{10});
  const rtcg::Array<float> frozen(host(), std::size_t{10});
  rtcg::Array<double> wrong(host(), std::size_t{10});
  EXPECT_NE(message_of([&] { scale(2.0f, wrong); }).find("an array of double was passed for float"), std::string::npos);
  EXPECT_NE(message_of([&] { scale(2.0f, frozen); }).find("read-only array"), std::string::npos);
  EXPECT_NE(message_of([&] { scale(x, 2.0f); }).find("array or pointer was passed for a scalar"), std::string::npos);
  EXPECT_NE(message_of([&] { scale(2.0f); }).find("missing `float* x`"), std::string::npos);
  EXPECT_NE(message_of([&] { scale(2.0f, x.data()); }).find("launch(n, ...)"), std::string::npos);
  EXPECT_NE(message_of([&] { scale.launch(11, 2.0f, x); }).find("has only 10"), std::string::npos);

  rtcg::ElementwiseKernel add(host(), "const int* a, int* b", "b[i] += a[i]", "add_i32_test");
  rtcg::Array<std::int32_t> a(host(), std::size_t{4}), b(host(), std::size_t{5});
  EXPECT_NE(message_of([&] { add(a, b); }).find("must have the same size"), std::string::npos);
  rtcg::ElementwiseKernel set(host(), "int k, int* b", "b[i] = k", "set_i32_test");
  EXPECT_NE(message_of([&] { set(1.5, b); }).find("floating-point value was passed for an integer"), std::string::npos);
  EXPECT_NE(message_of([&] { set(1ll << 40, b); }).find("does not fit in int"), std::string::npos);

  // Raw pointers with an explicit count work, on a part of the array.
  set.launch(2, 9, b.data());
  EXPECT_EQ(b.to_host()[1], 9);
}

TEST(ElementwiseKernel, GeneratedSourceIsReadable) {
  rtcg::ElementwiseKernel k(host(), "double a, double* x", "x[i] = a", "readable", {256, 2, 0, false});
  const std::string& source = k.source();
  EXPECT_NE(source.find("// Generated by rtcg::ElementwiseKernel `readable` (block 256, items 2, grid cover)."),
            std::string::npos);
  EXPECT_NE(source.find("// operation: x[i] = a"), std::string::npos);
  EXPECT_NE(source.find("RTCG_KERNEL(readable)(double a, double* x, long long n) {"), std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// Reductions and array operations

template <class T>
void expect_close(T got, long double expected, long double tolerance, const std::string& what) {
  EXPECT_LE(std::fabs(static_cast<long double>(got) - expected), tolerance) << what << ": got " << got << ", expected "
                                                                            << static_cast<double>(expected);
}

template <class T>
void check_reductions_over_sizes() {
  for (std::size_t n : kSizes) {
    const auto x = pattern<T>(n, 3);
    const auto y = pattern<T>(n, 4);
    auto dx = rtcg::Array<T>::from_host(host(), x);
    auto dy = rtcg::Array<T>::from_host(host(), y);
    long double sum = 0, dot = 0, squares = 0, magnitude = 0;
    T max = std::numeric_limits<T>::lowest();
    if constexpr (std::is_floating_point_v<T>) max = -std::numeric_limits<T>::infinity();
    for (std::size_t i = 0; i < n; ++i) {
      sum += static_cast<long double>(x[i]);
      dot += static_cast<long double>(x[i]) * static_cast<long double>(y[i]);
      squares += static_cast<long double>(x[i]) * static_cast<long double>(x[i]);
      magnitude += std::fabs(static_cast<long double>(x[i])) * 4;
      max = std::max(max, x[i]);
    }
    // f64 sums of these multiples of 1/8 are exact in any order; f32 may round.
    const long double tolerance = std::is_same_v<T, float> ? 1e-6L * magnitude : 0;
    const std::string where = std::string(rtcg::c_type(rtcg::scalar_type_of<T>())) + ", n = " + std::to_string(n);
    expect_close(rtcg::sum(dx), sum, tolerance, "sum, " + where);
    expect_close(rtcg::dot(dx, dy), dot, tolerance, "dot, " + where);
    EXPECT_EQ(rtcg::max(dx), max) << "max, " << where;
    if constexpr (std::is_floating_point_v<T>)
      expect_close(rtcg::norm2(dx), std::sqrt(squares), tolerance + 1e-6L * std::sqrt(squares), "norm2, " + where);
  }
}

TEST(ArrayOps, ReductionsMatchPlainLoopsOverEdgeSizes) {
  check_reductions_over_sizes<double>();
  check_reductions_over_sizes<float>();
  check_reductions_over_sizes<std::int32_t>();
  check_reductions_over_sizes<std::int64_t>();
}

TEST(ArrayOps, AxpyAndScaleMatchPlainLoops) {
  for (std::size_t n : kSizes) {
    const auto x = pattern<double>(n, 5);
    const auto y = pattern<double>(n, 6);
    auto dx = rtcg::Array<double>::from_host(host(), x);
    auto dy = rtcg::Array<double>::from_host(host(), y);
    rtcg::axpy(0.5, dx, dy);
    rtcg::scale(-2.0, dx);
    std::vector<double> expected_y(n), expected_x(n);
    for (std::size_t i = 0; i < n; ++i) {
      expected_y[i] = 0.5 * x[i] + y[i];
      expected_x[i] = -2.0 * x[i];
    }
    EXPECT_EQ(dy.to_host(), expected_y) << n;
    EXPECT_EQ(dx.to_host(), expected_x) << n;
  }
  // x and y the same array: the restrict plan must not be used.
  auto v = rtcg::Array<std::int32_t>::from_host(host(), std::vector<std::int32_t>{1, 2, 3});
  rtcg::axpy(2, v, v);
  EXPECT_EQ(v.to_host(), (std::vector<std::int32_t>{3, 6, 9}));
  // Views: only the range changes.
  auto w = rtcg::Array<float>::filled(host(), {6}, 1.0f);
  rtcg::scale(3.0f, w.view(1, 2));
  EXPECT_EQ(w.to_host(), (std::vector<float>{1, 3, 3, 1, 1, 1}));
  EXPECT_NE(message_of([&] { rtcg::axpy(1.0f, w.view(0, 2), w.view(0, 3)); }).find("x has 2 elements, y 3"),
            std::string::npos);
}

TEST(ArrayOps, NaNPropagates) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (std::size_t position : {std::size_t{0}, std::size_t{40000}, std::size_t{65536}}) {
    auto x = pattern<double>(65537, 7);
    x[position] = nan;
    auto dx = rtcg::Array<double>::from_host(host(), x);
    EXPECT_TRUE(std::isnan(rtcg::sum(dx))) << position;
    EXPECT_TRUE(std::isnan(rtcg::dot(dx, dx))) << position;
    EXPECT_TRUE(std::isnan(rtcg::max(dx))) << position;
    EXPECT_TRUE(std::isnan(rtcg::norm2(dx))) << position;
  }
  auto f = rtcg::Array<float>::from_host(host(), std::vector<float>{1.0f, std::numeric_limits<float>::quiet_NaN()});
  EXPECT_TRUE(std::isnan(rtcg::max(f)));
  rtcg::Array<double> empty(host(), std::size_t{0});
  EXPECT_EQ(rtcg::max(empty), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(rtcg::sum(empty), 0.0);
}

TEST(ArrayOps, ReductionsGiveTheSameBitsRunAfterRunAndForAnyThreadCount) {
  std::mt19937_64 generator(11);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::vector<double> x(300001);
  for (auto& v : x) v = uniform(generator) * std::exp(10 * uniform(generator));  // rounding-sensitive
  auto dx = rtcg::Array<double>::from_host(host(), x);
  const int threads = omp_get_max_threads();
  const double first = rtcg::sum(dx);
  const double first_dot = rtcg::dot(dx, dx);
  for (int run = 0; run < 3; ++run) {
    omp_set_num_threads(run % 2 == 0 ? 1 : 3);
    EXPECT_EQ(std::bit_cast<std::uint64_t>(rtcg::sum(dx)), std::bit_cast<std::uint64_t>(first));
    EXPECT_EQ(std::bit_cast<std::uint64_t>(rtcg::dot(dx, dx)), std::bit_cast<std::uint64_t>(first_dot));
  }
  omp_set_num_threads(threads);
}

TEST(ReductionKernel, CustomMapReduceAndSmallChunks) {
  // Counts positive elements as int64, with chunks small enough that many partials combine.
  rtcg::ReductionParams params;
  params.host_chunk = 64;
  params.items_per_thread = 3;
  rtcg::ReductionKernel<std::int64_t> count_positive(host(), "0", "a + b", "x[i] > 0.0 ? 1 : 0", "const double* x",
                                                     "count_positive", params);
  for (std::size_t n : kSizes) {
    const auto x = pattern<double>(n, 8);
    auto dx = rtcg::Array<double>::from_host(host(), x);
    const auto expected = std::count_if(x.begin(), x.end(), [](double v) { return v > 0; });
    EXPECT_EQ(count_positive(dx), expected) << n;
  }
  // The device-result form, and a product with its own neutral element.
  rtcg::ReductionKernel<double> product(host(), "1", "a * b", "x[i]", "const double* x", "product");
  auto dx = rtcg::Array<double>::from_host(host(), std::vector<double>{2, 3, 0.5, 4});
  rtcg::Array<double> result(host(), std::size_t{1});
  product.into(result.view(), dx);
  EXPECT_EQ(result.to_host()[0], 12.0);
  EXPECT_NE(message_of([] {
              rtcg::ReductionKernel<double>(host(), "0", "a + b)", "x[i]", "const double* x", "broken");
            }).find("reduce expression has an unmatched `)`"),
            std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// The same generated source through NVRTC (compile only: no GPU needed)

TEST(GeneratedSource, CompilesWithNvrtcForSm90) {
  const auto nvrtc = rtcg::make_nvrtc_compiler("sm_90");
  for (const rtcg::ElementwiseParams params : {rtcg::ElementwiseParams{}, rtcg::ElementwiseParams{512, 4, 8, true}}) {
    const auto program = rtcg::elementwise_program(
        {"lin_comb", "double a, const double* x, float b, const float* y, double* z", "z[i] = a * x[i] + b * sqrtf(y[i])",
         ""},
        params);
    EXPECT_NO_THROW((void)nvrtc->compile(program)) << program.source;
  }
  // The array operations' own generators, for every element type, at both ends of their
  // CUDA search spaces.
  for (const std::string name : {"axpy", "scale", "sum", "dot", "max", "norm2"}) {
    for (const auto type : {rtcg::ScalarType::f64, rtcg::ScalarType::f32, rtcg::ScalarType::i32, rtcg::ScalarType::i64}) {
      if (name == "norm2" && !rtcg::is_floating(type)) continue;
      const auto job = rtcg::make_array_tuning_job(name, host(), type, 16);
      const auto points = rtcg::array_tuning_space(name + "-wide", rtcg::BackendKind::cuda).points();
      for (const auto& point : {points.front(), points.back()}) {
        if (type != rtcg::ScalarType::f64 && point == points.back()) continue;
        const auto program = job.generate(point).program;
        EXPECT_NO_THROW((void)nvrtc->compile(program)) << program.source;
      }
    }
  }
}

}  // namespace
