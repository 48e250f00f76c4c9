// Modules and kernels on the host backend, and NVRTC compiling for sm_90 without a GPU.
#include "module_sources.hpp"

#include <rtcg/backend.hpp>
#include <rtcg/cache.hpp>
#include <rtcg/compiler.hpp>
#include <rtcg/headers.hpp>
#include <rtcg/error.hpp>
#include <rtcg/log.hpp>

#include <gtest/gtest.h>
#include <spdlog/sinks/ringbuffer_sink.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <vector>

namespace {

using rtcg_test::axpy_program;

std::string message_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const rtcg::Error& error) {
    return error.what();
  }
  return "(no error)";
}

TEST(HostModule, CompilesLaunchesAndMatchesPlainLoop) {
  auto& backend = rtcg::backend("host");
  auto kernel = backend.compile(axpy_program())->kernel("axpy");
  const long long n = 1000;
  std::vector<double> x(n), y(n), expected(n);
  for (long long i = 0; i < n; ++i) {
    x[static_cast<std::size_t>(i)] = 0.25 * static_cast<double>(i);
    y[static_cast<std::size_t>(i)] = 1.0 - static_cast<double>(i);
    expected[static_cast<std::size_t>(i)] = 3.0 * x[static_cast<std::size_t>(i)] + y[static_cast<std::size_t>(i)];
  }
  void* dx = backend.allocate(n * sizeof(double));
  void* dy = backend.allocate(n * sizeof(double));
  backend.copy_to_device(dx, x.data(), n * sizeof(double));
  backend.copy_to_device(dy, y.data(), n * sizeof(double));
  (*kernel)(rtcg::LaunchShape{{4}, {256}}, dy, dx, 3.0, n);
  backend.synchronize();
  backend.copy_to_host(y.data(), dy, n * sizeof(double));
  backend.deallocate(dx);
  backend.deallocate(dy);
  EXPECT_EQ(y, expected);
}

// The host's launch graph runs the launches as they come.
TEST(HostModule, LaunchGraphRunsTheLaunchesDirectly) {
  rtcg::Backend& host = rtcg::backend("host");
  const auto graph = host.make_launch_graph();
  EXPECT_FALSE(graph->graphs());
  int runs = 0;
  graph->run([&] { ++runs; });
  graph->run([&] { ++runs; });
  EXPECT_EQ(runs, 2);
  EXPECT_EQ(graph->instantiations(), 0);
  EXPECT_THROW(graph->run([] { throw rtcg::Error("from the launches"); }), rtcg::Error);
}

TEST(HostModule, ReportsAttributesAndParameters) {
  auto kernel = rtcg::backend("host").compile(axpy_program())->kernel("axpy");
  EXPECT_EQ(kernel->parameter_sizes(), (std::vector<std::size_t>{8, 8, 8, 8}));
  EXPECT_EQ(kernel->parameter_names()[2], "double a");
  EXPECT_EQ(kernel->attributes().max_threads_per_block, 1024);
  EXPECT_EQ(kernel->attributes().local_bytes, 0);
  EXPECT_FALSE(kernel->occupancy(256).has_value());
}

TEST(HostModule, WrongArgumentCountNamesTheMissingParameter) {
  auto kernel = rtcg::backend("host").compile(axpy_program())->kernel("axpy");
  double* pointer = nullptr;
  const auto message = message_of([&] { (*kernel)(rtcg::LaunchShape{}, pointer, pointer, 1.0); });
  EXPECT_EQ(message, "kernel `axpy` takes 4 arguments but the launch passed 3; missing parameter 3 (`long long n`)");
}

TEST(HostModule, WrongArgumentSizeNamesTheParameter) {
  auto kernel = rtcg::backend("host").compile(axpy_program())->kernel("axpy");
  double* pointer = nullptr;
  const auto message = message_of([&] { (*kernel)(rtcg::LaunchShape{}, pointer, pointer, 1.0f, 10LL); });
  EXPECT_EQ(message,
            "kernel `axpy`: parameter 2 (`double a`) is 8 bytes but the argument passed is 4 bytes "
            "(e.g. a double passed for a float, or an int for a long)");
}

TEST(HostModule, UnknownKernelListsTheModulesKernels) {
  auto module = rtcg::backend("host").compile(axpy_program());
  const auto message = message_of([&] { module->kernel("axpby"); });
  EXPECT_NE(message.find("the module has no kernel `axpby`; kernels: axpy"), std::string::npos) << message;
}

TEST(HostModule, SyntaxErrorShowsLogOptionsAndSourceLines) {
  std::string message;
  try {
    rtcg::backend("host").compile(rtcg_test::broken_program());
  } catch (const rtcg::CompileError& error) {
    message = error.what();
    EXPECT_NE(error.log().find("undefined_variable"), std::string::npos);
  }
  EXPECT_NE(message.find("compiling `broken` for host"), std::string::npos) << message;
  EXPECT_NE(message.find("options: -std=c++20 -fPIC -shared"), std::string::npos) << message;
  EXPECT_NE(message.find("broken.cpp:3:"), std::string::npos) << message;
  EXPECT_NE(message.find(" >   3 |     y[i] = undefined_variable * 2.0f;"), std::string::npos) << message;
  EXPECT_NE(message.find("     2 |   RTCG_GLOBAL_LOOP(i, n) {"), std::string::npos) << message;
  EXPECT_NE(message.find("compiler log:"), std::string::npos) << message;
  EXPECT_NE(message.find("set RTDG_DUMP_SOURCE=1"), std::string::npos) << message;
}

TEST(HostModule, DumpSourceWritesTheFullSource) {
  const auto dir = std::filesystem::temp_directory_path() / ("rtcg-dump-test-" + std::to_string(getpid()));
  setenv("RTDG_DUMP_SOURCE", "1", 1);
  setenv("RTDG_DUMP_DIR", dir.c_str(), 1);
  const auto message = message_of([] { rtcg::backend("host").compile(rtcg_test::broken_program()); });
  unsetenv("RTDG_DUMP_SOURCE");
  unsetenv("RTDG_DUMP_DIR");
  const auto at = message.find("full source written to ");
  ASSERT_NE(at, std::string::npos) << message;
  const auto path = message.substr(at + 23, message.find('\n', at) - at - 23);
  std::ifstream in(path);
  std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(content.find("#include <rtcg/kernel.h>"), std::string::npos);
  EXPECT_NE(content.find("undefined_variable"), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(HostModule, NameExpressionFindsATemplateInstance) {
  auto& backend = rtcg::backend("host");
  auto module = backend.compile(rtcg_test::template_program());
  auto kernel = module->kernel("scale<float, 3>");
  std::vector<float> y = {1, 2, 3};
  void* dy = backend.allocate(sizeof(float) * 3);
  backend.copy_to_device(dy, y.data(), sizeof(float) * 3);
  (*kernel)(rtcg::LaunchShape{}, dy, 3LL);
  backend.copy_to_host(y.data(), dy, sizeof(float) * 3);
  backend.deallocate(dy);
  EXPECT_EQ(y, (std::vector<float>{3, 6, 9}));
  EXPECT_EQ(module->lowered_name("scale<float, 3>"), "rtcg_expr_0");
}

// Kernels named like functions of libraries loaded before the module (libc's getpid and clock,
// which no header of the dialect declares): each launch runs the module's kernel, not libc's
// function (ELF interposition, which the host compiler's -fvisibility=hidden rules out).
TEST(HostModule, AKernelNamedLikeALibcFunctionRunsItself) {
  auto& backend = rtcg::backend("host");
  for (const std::string name : {"getpid", "clock", "getppid"}) {
    SCOPED_TRACE(name);
    rtcg::Program program;
    program.name = "libc_name_" + name;
    program.source = "RTCG_KERNEL(" + name + ")(double* y, long long n) { RTCG_GLOBAL_LOOP(i, n) { y[i] = 2.0 * i + 1; } }\n";
    auto kernel = backend.compile(program)->kernel(name);
    const long long n = 5;
    std::vector<double> y(n, -1.0);
    void* dy = backend.allocate(n * sizeof(double));
    backend.copy_to_device(dy, y.data(), n * sizeof(double));
    (*kernel)(rtcg::LaunchShape{}, dy, n);
    backend.copy_to_host(y.data(), dy, n * sizeof(double));
    backend.deallocate(dy);
    EXPECT_EQ(y, (std::vector<double>{1, 3, 5, 7, 9}));
  }
}

TEST(HostModule, SameProgramGivesTheSameModuleAndAChangedOneANewModule) {
  auto& backend = rtcg::backend("host");
  auto first = backend.compile(axpy_program());
  EXPECT_EQ(first, backend.compile(axpy_program()));
  auto changed = axpy_program();
  changed.options.push_back("-DCHANGED=1");
  EXPECT_NE(first, backend.compile(changed));
}

TEST(HostModule, CompilerWarningsAreShownOnce) {
  auto sink = std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(64);
  rtcg::log().sinks().push_back(sink);
  rtcg::Program program = axpy_program("warns");
  program.source = "#warning rtcg-test-warning-" + std::to_string(getpid()) + "\n" + program.source;
  rtcg::backend("host").compile(program);
  rtcg::backend("host").compile(program);
  rtcg::log().sinks().pop_back();
  int shown = 0;
  for (const auto& line : sink->last_formatted())
    if (line.find("rtcg-test-warning") != std::string::npos) ++shown;
  EXPECT_EQ(shown, 1);
}

// The key changes with each field that changes the binary.
TEST(CacheKey, ChangesWithSourceHeaderOptionTargetAndCompiler) {
  const auto dir = std::filesystem::temp_directory_path() / ("rtcg-key-test-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "coefficients.h") << "#define COEFFICIENT 2.0\n";
  rtcg::Program program = axpy_program();
  program.source = "#include \"coefficients.h\"\n" + program.source;
  program.include_dirs = {dir};

  auto sm90 = rtcg::make_nvrtc_compiler("sm_90");
  const auto base = sm90->cache_key(program).digest();
  EXPECT_EQ(base, sm90->cache_key(program).digest());

  auto edited = program;
  edited.source += "// edited\n";
  EXPECT_NE(base, sm90->cache_key(edited).digest());

  std::ofstream(dir / "coefficients.h") << "#define COEFFICIENT 3.0\n";
  EXPECT_NE(base, sm90->cache_key(program).digest());
  std::ofstream(dir / "coefficients.h") << "#define COEFFICIENT 2.0\n";
  EXPECT_EQ(base, sm90->cache_key(program).digest());

  auto with_option = program;
  with_option.options.push_back("--use_fast_math");
  EXPECT_NE(base, sm90->cache_key(with_option).digest());

  EXPECT_NE(base, rtcg::make_nvrtc_compiler("sm_80")->cache_key(program).digest());

  // Compiler identity: the same target and source through another host compiler.
  const auto host_key = rtcg::make_host_compiler()->cache_key(program).digest();
  if (std::system("clang++ --version > /dev/null 2>&1") == 0) {
    setenv("CXX", "clang++", 1);
    const auto clang_key = rtcg::make_host_compiler()->cache_key(program).digest();
    unsetenv("CXX");
    EXPECT_NE(host_key, clang_key);
  }
  std::filesystem::remove_all(dir);
}

// A library's registered headers (rtcg/headers.hpp): found by NVRTC and the host compiler with
// no include folder given, and their text in the cache key.
TEST(CacheKey, RegisteredHeadersAreFoundAndHashed) {
  rtcg::register_headers({{"rtcg_test_library/scale.h", "#define RTCG_TEST_SCALE 2.0\n"}});
  rtcg::Program program;
  program.name = "registered_header";
  program.source = "#include <rtcg_test_library/scale.h>\n"
                   "RTCG_KERNEL(scale)(double* x, long long n) { RTCG_GLOBAL_LOOP(i, n) x[i] *= RTCG_TEST_SCALE; }\n";
  auto sm90 = rtcg::make_nvrtc_compiler("sm_90");
  EXPECT_NO_THROW((void)sm90->compile(program));
  auto host = rtcg::make_host_compiler();
  EXPECT_NO_THROW((void)host->compile(program));
  const auto before = sm90->cache_key(program).digest();
  rtcg::register_headers({{"rtcg_test_library/scale.h", "#define RTCG_TEST_SCALE 3.0\n"}});
  EXPECT_NE(before, sm90->cache_key(program).digest());
  EXPECT_NE(before, host->cache_key(program).digest());
  rtcg::register_headers({{"rtcg_test_library/scale.h", "#define RTCG_TEST_SCALE 2.0\n"}});
  EXPECT_EQ(before, sm90->cache_key(program).digest());
}

TEST(Nvrtc, CompilesForSm90WithoutAGpu) {
  auto compiler = rtcg::make_nvrtc_compiler("sm_90");
  const auto binary = compiler->compile(axpy_program());
  ASSERT_GE(binary.image.size(), 4u);
  EXPECT_EQ(binary.image.substr(0, 4), "\x7f" "ELF");  // a CUBIN is an ELF file
  EXPECT_EQ(binary.target, "sm_90");
  EXPECT_EQ(binary.signatures.at("axpy").parameters.size(), 4u);
  EXPECT_NE(compiler->identity().find("nvrtc 13."), std::string::npos) << compiler->identity();
}

TEST(Nvrtc, SyntaxErrorShowsTheSourceLine) {
  std::string message;
  try {
    rtcg::make_nvrtc_compiler("sm_90")->compile(rtcg_test::broken_program());
  } catch (const rtcg::CompileError& error) {
    message = error.what();
  }
  EXPECT_NE(message.find("compiling `broken` for cuda (sm_90) failed"), std::string::npos) << message;
  EXPECT_NE(message.find("--gpu-architecture=sm_90"), std::string::npos) << message;
  EXPECT_NE(message.find("broken.cu(3): error: identifier \"undefined_variable\" is undefined"), std::string::npos) << message;
  EXPECT_NE(message.find(" >   3 |     y[i] = undefined_variable * 2.0f;"), std::string::npos) << message;
}

TEST(Nvrtc, NameExpressionIsLowered) {
  const auto binary = rtcg::make_nvrtc_compiler("sm_90")->compile(rtcg_test::template_program());
  const auto& lowered = binary.lowered_names.at("scale<float, 3>");
  EXPECT_EQ(lowered.substr(0, 2), "_Z") << lowered;
}

TEST(Nvrtc, RejectsAVirtualArchitecture) {
  EXPECT_NE(message_of([] { rtcg::make_nvrtc_compiler("compute_90"); }).find("expected a real architecture"),
            std::string::npos);
}

TEST(Backends, UnknownNameListsTheValidOnes) {
  EXPECT_EQ(message_of([] { rtcg::backend("opencl"); }), "unknown backend `opencl`; valid backends: cuda, host, auto");
}

TEST(Backends, CudaWithoutADeviceSaysWhyAndWhatToDo) {
  if (rtcg::cuda_available()) GTEST_SKIP() << "a CUDA device is usable here";
  const auto message = message_of([] { rtcg::backend("cuda"); });
  EXPECT_NE(message.find("no CUDA device is usable"), std::string::npos) << message;
  EXPECT_NE(message.find("--backend host"), std::string::npos) << message;
  EXPECT_EQ(rtcg::backend("auto").kind(), rtcg::BackendKind::host);
}

}  // namespace
