// Modules and kernels on a CUDA device (label gpu; skipped without one).
#include "module_sources.hpp"

#include <rtcg/backend.hpp>
#include <rtcg/error.hpp>

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

class CudaModule : public ::testing::Test {
protected:
  void SetUp() override {
    if (!rtcg::cuda_available()) GTEST_SKIP() << "no usable CUDA device: " << rtcg::cuda_unavailable_reason();
  }
  rtcg::Backend& backend() { return rtcg::backend("cuda"); }
};

std::string message_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const rtcg::Error& error) {
    return error.what();
  }
  return "(no error)";
}

TEST_F(CudaModule, CompilesLaunchesAndMatchesHost) {
  auto kernel = backend().compile(rtcg_test::axpy_program())->kernel("axpy");
  const long long n = 100003;  // not a multiple of the block
  std::vector<double> x(n), y(n), expected(n);
  for (std::size_t i = 0; i < x.size(); ++i) {
    x[i] = 0.5 * static_cast<double>(i);
    y[i] = -static_cast<double>(i) * 0.25;
    expected[i] = 2.0 * x[i] + y[i];
  }
  void* dx = backend().allocate(n * sizeof(double));
  void* dy = backend().allocate(n * sizeof(double));
  backend().copy_to_device(dx, x.data(), n * sizeof(double));
  backend().copy_to_device(dy, y.data(), n * sizeof(double));
  (*kernel)(rtcg::LaunchShape{{64}, {128}}, dy, dx, 2.0, n);
  backend().synchronize();
  backend().copy_to_host(y.data(), dy, n * sizeof(double));
  backend().deallocate(dx);
  backend().deallocate(dy);
  EXPECT_EQ(y, expected);
}

TEST_F(CudaModule, ReportsAttributesAndOccupancy) {
  auto kernel = backend().compile(rtcg_test::axpy_program())->kernel("axpy");
  const auto attributes = kernel->attributes();
  EXPECT_GT(attributes.registers, 0);
  EXPECT_EQ(attributes.local_bytes, 0);
  EXPECT_EQ(attributes.static_shared_bytes, 0);
  EXPECT_EQ(attributes.max_threads_per_block, 1024);
  EXPECT_EQ(attributes.binary_version, backend().device_info().compute_capability_major * 10 +
                                           backend().device_info().compute_capability_minor);
  const auto occupancy = kernel->occupancy(256);
  ASSERT_TRUE(occupancy.has_value());
  EXPECT_GT(*occupancy, 0.0);
  EXPECT_LE(*occupancy, 1.0);
  EXPECT_EQ(kernel->parameter_sizes(), (std::vector<std::size_t>{8, 8, 8, 8}));
}

TEST_F(CudaModule, WrongArgumentsNameTheParameter) {
  auto kernel = backend().compile(rtcg_test::axpy_program())->kernel("axpy");
  double* pointer = nullptr;
  EXPECT_EQ(message_of([&] { (*kernel)(rtcg::LaunchShape{}, pointer, pointer, 1.0); }),
            "kernel `axpy` takes 4 arguments but the launch passed 3; missing parameter 3 (`long long n`)");
  EXPECT_EQ(message_of([&] { (*kernel)(rtcg::LaunchShape{}, pointer, pointer, 1.0, 10); }),
            "kernel `axpy`: parameter 3 (`long long n`) is 8 bytes but the argument passed is 4 bytes "
            "(e.g. a double passed for a float, or an int for a long)");
}

TEST_F(CudaModule, TooLargeABlockIsAnErrorThatSaysTheLimit) {
  auto kernel = backend().compile(rtcg_test::axpy_program())->kernel("axpy");
  double* pointer = nullptr;
  const auto message = message_of([&] { (*kernel)(rtcg::LaunchShape{{1}, {2048}}, pointer, pointer, 1.0, 0LL); });
  EXPECT_NE(message.find("launching kernel `axpy` with grid (1, 1, 1), block (2048, 1, 1)"), std::string::npos) << message;
  EXPECT_NE(message.find("max block size for this kernel: 1024"), std::string::npos) << message;
}

TEST_F(CudaModule, NameExpressionFindsATemplateInstance) {
  auto module = backend().compile(rtcg_test::template_program());
  auto kernel = module->kernel("scale<float, 3>");
  std::vector<float> y = {1, 2, 3};
  void* dy = backend().allocate(sizeof(float) * 3);
  backend().copy_to_device(dy, y.data(), sizeof(float) * 3);
  (*kernel)(rtcg::LaunchShape{{1}, {32}}, dy, 3LL);
  backend().copy_to_host(y.data(), dy, sizeof(float) * 3);
  backend().deallocate(dy);
  EXPECT_EQ(y, (std::vector<float>{3, 6, 9}));
  EXPECT_EQ(kernel->parameter_names()[0], "T* y");
}

TEST_F(CudaModule, SyntaxErrorCarriesTheLog) {
  const auto message = message_of([&] { backend().compile(rtcg_test::broken_program()); });
  EXPECT_NE(message.find("broken.cu(3): error"), std::string::npos) << message;
}

TEST_F(CudaModule, OutOfMemorySaysHowMuch) {
  const auto message = message_of([&] { backend().allocate(std::size_t{1} << 50); });
  EXPECT_NE(message.find("out of device memory: asked for 1125899906842624 bytes"), std::string::npos) << message;
}

// Two device arrays of n doubles, x and y, uploaded from the host; freed with the object.
struct DevicePair {
  DevicePair(rtcg::Backend& b, const std::vector<double>& x, const std::vector<double>& y)
      : backend(b), n(static_cast<long long>(y.size())), dx(b.allocate(x.size() * sizeof(double))),
        dy(b.allocate(y.size() * sizeof(double))) {
    backend.copy_to_device(dx, x.data(), x.size() * sizeof(double));
    backend.copy_to_device(dy, y.data(), y.size() * sizeof(double));
  }
  ~DevicePair() {
    backend.deallocate(dx);
    backend.deallocate(dy);
  }
  DevicePair(const DevicePair&) = delete;
  DevicePair& operator=(const DevicePair&) = delete;
  std::vector<double> y_on_host() const {
    backend.synchronize();
    std::vector<double> y(static_cast<std::size_t>(n));
    backend.copy_to_host(y.data(), dy, y.size() * sizeof(double));
    return y;
  }
  rtcg::Backend& backend;
  long long n;
  void* dx;
  void* dy;
};

// A launch graph (rtcg::LaunchGraph, CUDA graphs): the recorded launches run only when the
// graph is launched, give what the launches give directly, and a run with other arguments but
// the same shape updates the one instantiated graph; another shape instantiates a new one.
TEST_F(CudaModule, LaunchGraphRunsUpdatesAndReinstantiates) {
  auto kernel = backend().compile(rtcg_test::axpy_program())->kernel("axpy");
  const long long n = 4099;
  DevicePair d(backend(), std::vector<double>(n, 1.0), std::vector<double>(n, 0.0));
  void *dx = d.dx, *dy = d.dy;
  const auto graph = backend().make_launch_graph();
  ASSERT_TRUE(graph->graphs());
  const rtcg::LaunchShape shape{{17}, {256}};
  // y += a x twice per run: 2 a per run.
  auto run = [&](double a) {
    graph->run([&] {
      (*kernel)(shape, dy, dx, a, n);
      (*kernel)(shape, dy, dx, a, n);
    });
  };
  run(1.0);
  run(0.25);  // other arguments, same shape: updated, not instantiated again
  EXPECT_EQ(d.y_on_host(), std::vector<double>(n, 2.5));
  EXPECT_EQ(graph->instantiations(), 1);
  // Another shape (three launches): a new graph.
  graph->run([&] {
    for (int i = 0; i < 3; ++i) (*kernel)(shape, dy, dx, 1.0, n);
  });
  EXPECT_EQ(d.y_on_host(), std::vector<double>(n, 5.5));
  EXPECT_EQ(graph->instantiations(), 2);
}

// A host copy inside the recording fails with the driver's reason and runs nothing; a failing
// launch's error passes through; the stream works as before afterwards.
TEST_F(CudaModule, LaunchGraphRefusesWhatAGraphCannotHold) {
  auto kernel = backend().compile(rtcg_test::axpy_program())->kernel("axpy");
  const long long n = 1000;
  std::vector<double> y(n, 0.0);
  DevicePair d(backend(), std::vector<double>(n, 1.0), y);
  void *dx = d.dx, *dy = d.dy;
  const auto graph = backend().make_launch_graph();
  const std::string copy_error = message_of([&] {
    graph->run([&] {
      (*kernel)(rtcg::LaunchShape{{4}, {256}}, dy, dx, 1.0, n);
      backend().copy_to_host(y.data(), dy, n * sizeof(double));  // synchronises: not in a graph
    });
  });
  // The driver refuses the copy (or, were it recorded, the synchronisation after it) while it records.
  EXPECT_NE(copy_error.find("STREAM_CAPTURE"), std::string::npos) << copy_error;
  const std::string launch_error = message_of([&] {
    graph->run([&] { (*kernel)(rtcg::LaunchShape{{1}, {2048}}, dy, dx, 1.0, n); });
  });
  EXPECT_NE(launch_error.find("launching kernel `axpy`"), std::string::npos) << launch_error;
  EXPECT_EQ(graph->instantiations(), 0);
  // Nothing of either recording ran, and the stream takes plain launches again.
  (*kernel)(rtcg::LaunchShape{{4}, {256}}, dy, dx, 3.0, n);
  EXPECT_EQ(d.y_on_host(), std::vector<double>(n, 3.0));
}

}  // namespace
