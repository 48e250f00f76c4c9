// The roofline measurement: generated copy and FMA kernels, timed on the backend.
#include <rtcg/error.hpp>
#include <rtcg/log.hpp>
#include <rtcg/roofline.hpp>
#include <rtcg/source_writer.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <functional>
#include <iterator>
#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace rtcg {
namespace {

// Items (16-byte vectors) per thread per tile of the CUDA copy kernels; one kernel each.
constexpr int kCopyItems[] = {1, 2, 4, 8};

// The CUDA FMA kernel: kChains independent accumulators per thread, each loop iteration
// kUnroll FMAs on each (the loop's own instructions are then ~1 % of the issue slots, which
// matters for float, where the FMA pipe takes one warp instruction per clock).
constexpr int kChains = 8;
constexpr int kUnroll = 32;
// The host FMA kernel: this many SIMD registers of accumulators per OpenMP thread (FMA latency
// 4 cycles times 2 FMA ports needs 8; 12 plus the two operands still fit AVX2's 16 registers).
constexpr int kHostVectors = 12;

constexpr unsigned long long kSeed = 0x5DEECE66DULL;

std::string copy_kernel_name(int items) { return "rtcg_roofline_copy" + std::to_string(items); }
std::string fma_kernel_name(bool single) { return single ? "rtcg_roofline_fma_f32" : "rtcg_roofline_fma_f64"; }

void write_pattern_helpers(SourceWriter& w) {
  w.line("// The test pattern: word i of the source.");
  auto f = w.block("RTCG_DEVICE unsigned long long rtcg_roofline_pattern(long long i, unsigned long long seed)");
  w.line("return static_cast<unsigned long long>(i) * 0x9E3779B97F4A7C15ULL + seed;");
}

void write_init_and_check(SourceWriter& w) {
  {
    auto k = w.block("RTCG_KERNEL(rtcg_roofline_init)(unsigned long long* RTCG_RESTRICT data, long long n, "
                     "unsigned long long seed)");
    auto loop = w.block("RTCG_GLOBAL_LOOP(i, n)");
    w.line("data[i] = rtcg_roofline_pattern(i, seed);");
  }
  w.line();
  w.line("// Adds the number of words that differ from the pattern to *bad.");
  auto k = w.block("RTCG_KERNEL(rtcg_roofline_check)(const unsigned long long* RTCG_RESTRICT data, long long n, "
                   "unsigned long long seed, unsigned long long* RTCG_RESTRICT bad)");
  w.line("#if RTCG_CUDA");
  {
    auto loop = w.block("RTCG_GLOBAL_LOOP(i, n)");
    w.line("if (data[i] != rtcg_roofline_pattern(i, seed)) atomicAdd(bad, 1ULL);");
  }
  w.line("#else");
  w.line("unsigned long long count = 0;");
  w.line("#pragma omp parallel for simd reduction(+ : count) schedule(static)");
  w.line("for (long long i = 0; i < n; ++i) count += data[i] != rtcg_roofline_pattern(i, seed) ? 1ULL : 0ULL;");
  w.line("*bad += count;");
  w.line("#endif");
}

// Copies `bytes` bytes. CUDA: 16-byte vectors, tiles of blockDim.x * items vectors per block
// in a grid-stride loop, thread t taking vectors t, t + blockDim.x, ... of a tile (coalesced;
// all the tile's loads in flight before its stores); the last bytes % 16 bytes by block 0.
// Host: one OpenMP loop over 8-byte words, then the last bytes.
void write_copy_kernel(SourceWriter& w, int items) {
  const std::string n_items = std::to_string(items);
  auto k = w.block("RTCG_KERNEL(" + copy_kernel_name(items) +
                   ")(unsigned char* RTCG_RESTRICT dst, const unsigned char* RTCG_RESTRICT src, long long bytes)");
  w.line("#if RTCG_CUDA");
  w.line("const long long n = bytes / 16;");
  w.line("uint4* RTCG_RESTRICT d = reinterpret_cast<uint4*>(dst);");
  w.line("const uint4* RTCG_RESTRICT s = reinterpret_cast<const uint4*>(src);");
  w.line("const long long stride = static_cast<long long>(blockDim.x);");
  w.line("const long long tile = stride * " + n_items + ";");
  {
    auto loop = w.block("for (long long start = static_cast<long long>(blockIdx.x) * tile; start < n; "
                        "start += static_cast<long long>(gridDim.x) * tile)");
    w.line("const long long i = start + static_cast<long long>(threadIdx.x);");
    {
      auto whole = w.block("if (start + tile <= n)");
      for (int item = 0; item < items; ++item)
        w.line("const uint4 v" + std::to_string(item) + " = s[i + " + std::to_string(item) + " * stride];");
      for (int item = 0; item < items; ++item)
        w.line("d[i + " + std::to_string(item) + " * stride] = v" + std::to_string(item) + ";");
    }
    auto partial = w.block("else");
    for (int item = 0; item < items; ++item) {
      const std::string j = "i + " + std::to_string(item) + " * stride";
      w.line("if (" + j + " < n) d[" + j + "] = s[" + j + "];");
    }
  }
  {
    auto tail = w.block("if (blockIdx.x == 0)");
    w.line("for (long long b = n * 16 + threadIdx.x; b < bytes; b += stride) dst[b] = src[b];");
  }
  w.line("#else");
  w.line("const long long n = bytes / 8;");
  w.line("unsigned long long* RTCG_RESTRICT d = reinterpret_cast<unsigned long long*>(dst);");
  w.line("const unsigned long long* RTCG_RESTRICT s = reinterpret_cast<const unsigned long long*>(src);");
  {
    auto loop = w.block("RTCG_GLOBAL_LOOP(i, n)");
    w.line("d[i] = s[i];");
  }
  w.line("for (long long b = n * 8; b < bytes; ++b) dst[b] = src[b];");
  w.line("#endif");
}

// Long independent chains of FMAs on registers; the result is stored only if it equals
// `sentinel` (never, but the compiler cannot know), so nothing is optimised away and the
// memory traffic is nil. *fmas_per_iteration receives the FMAs the whole launch does per
// iteration of the loop.
void write_fma_kernel(SourceWriter& w, bool single) {
  const std::string type = single ? "float" : "double";
  const std::string fma = single ? "fmaf" : "fma";
  auto k = w.block("RTCG_KERNEL(" + fma_kernel_name(single) + ")(" + type + "* RTCG_RESTRICT out, " + type + " x, " +
                   type + " y, " + type + " sentinel, int iterations, long long* RTCG_RESTRICT fmas_per_iteration)");
  w.line("#if RTCG_CUDA");
  w.line("const long long t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;");
  w.line("const " + type + " start = static_cast<" + type + ">(threadIdx.x) * static_cast<" + type + ">(1e-3);");
  for (int c = 0; c < kChains; ++c)
    w.line(type + " a" + std::to_string(c) + " = start + static_cast<" + type + ">(" + std::to_string(c) + ");");
  {
    auto loop = w.block("for (int it = 0; it < iterations; ++it)");
    w.line("#pragma unroll");
    auto unrolled = w.block("for (int u = 0; u < " + std::to_string(kUnroll) + "; ++u)");
    for (int c = 0; c < kChains; ++c) {
      const std::string a = "a" + std::to_string(c);
      w.line(a + " = " + fma + "(" + a + ", x, y);");
    }
  }
  std::string sum = "a0";
  for (int c = 1; c < kChains; ++c) sum += " + a" + std::to_string(c);
  w.line("const " + type + " sum = " + sum + ";");
  w.line("if (sum == sentinel) out[t] = sum;");
  w.line("if (t == 0) *fmas_per_iteration = static_cast<long long>(gridDim.x) * blockDim.x * " +
         std::to_string(kChains * kUnroll) + "LL;");
  w.line("#else");
  // Host: kHostVectors chains of SIMD vectors (GCC/Clang vector types, so the width does not
  // depend on the vectoriser's choices, e.g. GCC's 256-bit preference on Intel AVX-512
  // parts); `a * x + y` on them is contracted into vector FMAs (C++'s default contraction).
  w.line("typedef " + type + " rtcg_vector __attribute__((vector_size(RTCG_ROOFLINE_VECTOR_BYTES)));");
  w.line("enum { width = RTCG_ROOFLINE_VECTOR_BYTES / sizeof(" + type + ") };");
  w.line("long long threads = 0;");
  w.line("#pragma omp parallel reduction(+ : threads)");
  {
    auto region = w.block("");
    w.line("threads += 1;");
    w.line("const rtcg_vector zero = {};");
    w.line("const rtcg_vector xv = zero + x, yv = zero + y;");
    for (int c = 0; c < kHostVectors; ++c)
      w.line("rtcg_vector a" + std::to_string(c) + " = zero + static_cast<" + type + ">(" + std::to_string(c) + ");");
    {
      auto lanes = w.block("for (int l = 0; l < width; ++l)");
      for (int c = 0; c < kHostVectors; ++c)
        w.line("a" + std::to_string(c) + "[l] += static_cast<" + type + ">(l) * static_cast<" + type + ">(1e-3);");
    }
    {
      auto loop = w.block("for (int it = 0; it < iterations; ++it)");
      for (int c = 0; c < kHostVectors; ++c) {
        const std::string a = "a" + std::to_string(c);
        w.line(a + " = " + a + " * xv + yv;");
      }
    }
    w.line(type + " sum = 0;");
    std::string lane_sum = "a0[l]";
    for (int c = 1; c < kHostVectors; ++c) lane_sum += " + a" + std::to_string(c) + "[l]";
    w.line("for (int l = 0; l < width; ++l) sum += " + lane_sum + ";");
    w.line("if (sum == sentinel) out[0] = sum;");
  }
  w.line("*fmas_per_iteration = threads * width * " + std::to_string(kHostVectors) + ";");
  w.line("#endif");
}

}  // namespace

const Program& roofline_program() {
  static const Program program = [] {
    SourceWriter w;
    w.line("// Generated by rtcg::measure_roofline: copy and FMA-throughput kernels.");
    w.line("#if RTCG_HOST");
    w.line("#if defined(__AVX512F__)");
    w.line("#define RTCG_ROOFLINE_VECTOR_BYTES 64");
    w.line("#elif defined(__AVX__)");
    w.line("#define RTCG_ROOFLINE_VECTOR_BYTES 32");
    w.line("#else");
    w.line("#define RTCG_ROOFLINE_VECTOR_BYTES 16");
    w.line("#endif");
    w.line("#endif");
    w.line();
    write_pattern_helpers(w);
    w.line();
    write_init_and_check(w);
    for (int items : kCopyItems) {
      w.line();
      write_copy_kernel(w, items);
    }
    for (bool single : {false, true}) {
      w.line();
      write_fma_kernel(w, single);
    }
    Program p;
    p.name = "roofline";
    p.source = w.str();
    return p;
  }();
  return program;
}

namespace {

// Backend memory, freed at scope exit.
class DeviceBuffer {
public:
  DeviceBuffer(Backend& backend, std::size_t bytes) : backend_(&backend), pointer_(backend.allocate(bytes)) {}
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() {
    try {
      backend_->synchronize();  // no kernel may still use it
    } catch (const std::exception&) {
      // a failed launch was already reported by whatever raised it
    }
    backend_->deallocate(pointer_);
  }
  void* get() const noexcept { return pointer_; }

private:
  Backend* backend_;
  void* pointer_;
};

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

double median_ms(Backend& backend, int repeats, const std::function<void()>& work) {
  std::vector<double> times;
  times.reserve(static_cast<std::size_t>(repeats));
  for (int r = 0; r < repeats; ++r) times.push_back(backend.time_ms(work));
  return median(times);
}

struct CopyShape {
  int items;
  unsigned block;
  int blocks_per_sm;  // 0: one block per tile ("cover")
};
// Shapes tried on CUDA, the first also roofline_copy's.
constexpr CopyShape kCopyShapes[] = {{4, 256, 0}, {4, 256, 8}, {2, 512, 0}, {1, 1024, 2}, {8, 128, 0}, {2, 256, 16}};

std::string describe_shape(const CopyShape& shape) {
  return "block " + std::to_string(shape.block) + ", " + std::to_string(shape.items) + " x 16 B per thread, grid " +
         (shape.blocks_per_sm == 0 ? std::string("cover") : std::to_string(shape.blocks_per_sm) + "/SM");
}

LaunchShape copy_launch(const CopyShape& shape, std::size_t bytes, int multiprocessors) {
  const std::size_t tile = std::size_t{shape.block} * static_cast<std::size_t>(shape.items) * 16;
  std::size_t grid = std::max<std::size_t>(1, (bytes + tile - 1) / tile);
  if (shape.blocks_per_sm > 0)
    grid = std::min(grid, static_cast<std::size_t>(std::max(1, multiprocessors)) * static_cast<std::size_t>(shape.blocks_per_sm));
  grid = std::min<std::size_t>(grid, std::numeric_limits<int>::max());
  LaunchShape launch;
  launch.grid.x = static_cast<unsigned>(grid);
  launch.block.x = shape.block;
  return launch;
}

// A grid-stride shape that fills the device, for the init and check kernels.
LaunchShape fill_launch(int multiprocessors) {
  LaunchShape launch;
  launch.grid.x = static_cast<unsigned>(std::max(1, multiprocessors) * 8);
  launch.block.x = 256;
  return launch;
}

void launch_copy(const Kernel& kernel, const LaunchShape& launch, void* destination, const void* source, std::size_t bytes) {
  kernel(launch, static_cast<unsigned char*>(destination), static_cast<const unsigned char*>(source),
         static_cast<long long>(bytes));
}

struct CopyResult {
  double gbs = 0;
  std::string method, shape;
};

CopyResult measure_copy(Backend& backend, const Module& module, std::size_t bytes, int repeats) {
  const bool cuda = backend.kind() == BackendKind::cuda;
  const int multiprocessors = std::max(1, backend.device_info().multiprocessors);
  DeviceBuffer source(backend, bytes), destination(backend, bytes), bad(backend, sizeof(unsigned long long));
  const long long words = static_cast<long long>(bytes / 8);
  (*module.kernel("rtcg_roofline_init"))(fill_launch(multiprocessors), static_cast<unsigned long long*>(source.get()),
                                          words, kSeed);
  const auto check = module.kernel("rtcg_roofline_check");
  auto mismatches = [&] {
    backend.memset_bytes(bad.get(), 0, sizeof(unsigned long long));
    (*check)(fill_launch(multiprocessors), static_cast<const unsigned long long*>(destination.get()), words, kSeed,
             static_cast<unsigned long long*>(bad.get()));
    unsigned long long count = 0;
    backend.copy_to_host(&count, bad.get(), sizeof count);
    return count;
  };
  const double traffic = 2.0 * static_cast<double>(bytes);
  CopyResult best;
  auto consider = [&](double ms, const std::string& method, const std::string& shape) {
    const double gbs = traffic / (ms * 1e-3) / 1e9;
    log().debug("roofline: copy {} {}: {:.4f} ms, {:.1f} GB/s", method, shape, ms, gbs);
    if (gbs > best.gbs) best = {gbs, method, shape};
  };

  // The generated kernel, in each shape (one on host, where the loop ignores the shape).
  const std::size_t shapes = cuda ? std::size(kCopyShapes) : 1;
  for (std::size_t s = 0; s < shapes; ++s) {
    const CopyShape& shape = kCopyShapes[s];
    const auto kernel = module.kernel(copy_kernel_name(cuda ? shape.items : 1));
    const LaunchShape launch = copy_launch(shape, bytes, multiprocessors);
    auto run = [&] { launch_copy(*kernel, launch, destination.get(), source.get(), bytes); };
    backend.memset_bytes(destination.get(), 0, bytes);
    run();  // also the warm-up
    const unsigned long long wrong = mismatches();
    RTCG_VERIFY(wrong == 0, "roofline: the copy kernel (" << describe_shape(shape) << ") left " << wrong << " of "
                                                          << words << " words wrong on the " << backend.name()
                                                          << " backend");
    consider(median_ms(backend, repeats, run), "kernel", cuda ? describe_shape(shape) : "OpenMP loop");
  }
  // The backend's own copy (cuMemcpyDtoDAsync; memmove on host).
  auto memcpy_run = [&] { backend.copy_on_device(destination.get(), source.get(), bytes); };
  memcpy_run();
  consider(median_ms(backend, repeats, memcpy_run), "memcpy", "");
  return best;
}

// FMA throughput in GFLOP/s: the iteration count calibrated so that a launch takes at least
// `target_ms`, then the fastest of `repeats` launches.
double measure_fma(Backend& backend, const Module& module, bool single, int repeats) {
  const bool cuda = backend.kind() == BackendKind::cuda;
  const auto kernel = module.kernel(fma_kernel_name(single));
  const DeviceInfo info = backend.device_info();
  LaunchShape launch;
  std::size_t threads = 1;
  if (cuda) {
    // One full wave: as many blocks as fit on every multiprocessor at once.
    const unsigned block = 256;
    const double occupancy = kernel->occupancy(static_cast<int>(block)).value_or(1.0);
    const int per_sm = std::max(1, static_cast<int>(std::lround(occupancy * info.max_threads_per_multiprocessor / block)));
    launch.grid.x = static_cast<unsigned>(std::max(1, info.multiprocessors) * per_sm);
    launch.block.x = block;
    threads = std::size_t{launch.grid.x} * block;
  }
  const std::size_t element = single ? sizeof(float) : sizeof(double);
  DeviceBuffer out(backend, threads * element), fmas(backend, sizeof(long long));
  auto run = [&](int iterations) {
    if (single)
      (*kernel)(launch, static_cast<float*>(out.get()), 0.9999f, 1e-4f, -1.0f, iterations, static_cast<long long*>(fmas.get()));
    else
      (*kernel)(launch, static_cast<double*>(out.get()), 0.999999, 1e-6, -1.0, iterations, static_cast<long long*>(fmas.get()));
  };
  // The fastest of `runs` launches: a peak is what the hardware can do, so a run slowed by
  // something else (another process on a shared CPU, a clock ramping up) should not count.
  auto fastest_ms = [&](int iterations, int runs) {
    double best = std::numeric_limits<double>::infinity();
    for (int r = 0; r < runs; ++r) best = std::min(best, backend.time_ms([&] { run(iterations); }));
    return best;
  };
  // Grow the iteration count (never shrink it: a slow first launch must not leave tiny ones)
  // until a launch takes at least target_ms and the last growth step took proportionally
  // longer, so the time is the work's and not a fixed overhead's (on a CPU shared with other
  // processes, an OpenMP region can cost a scheduler slice whatever it does).
  const double target_ms = cuda ? 2.0 : 4.0;
  const double max_ms = 25 * target_ms;
  const int max_iterations = 1 << 26;
  int iterations = cuda ? 64 : 4096;
  run(iterations);  // warm-up
  double ms = fastest_ms(iterations, 2);
  bool proportional = false;
  while (!(ms >= target_ms && proportional) && ms < max_ms && iterations < max_iterations) {
    const double factor = ms >= target_ms ? 2.0 : std::clamp(1.1 * target_ms / std::max(ms, 1e-6), 2.0, 16.0);
    const int next = static_cast<int>(std::min(static_cast<double>(max_iterations), iterations * factor));
    const double next_ms = fastest_ms(next, 2);
    proportional = next_ms >= 0.8 * ms * next / iterations;
    iterations = next;
    ms = next_ms;
  }
  ms = fastest_ms(iterations, repeats);
  long long per_iteration = 0;
  backend.copy_to_host(&per_iteration, fmas.get(), sizeof per_iteration);
  RTCG_VERIFY(per_iteration > 0, "roofline: the FMA kernel reported no work");
  const double flops = 2.0 * static_cast<double>(per_iteration) * iterations;
  log().debug("roofline: {} FMA: {} iterations of {} FMAs, {:.4f} ms", single ? "float" : "double", iterations,
              per_iteration, ms);
  return flops / (ms * 1e-3) / 1e9;
}

std::size_t default_copy_bytes(Backend& backend) {
  constexpr std::size_t MiB = std::size_t{1} << 20;
  if (backend.kind() != BackendKind::cuda) return 64 * MiB;
  // Two arrays and some room for the rest of the process.
  const std::size_t free = backend.free_memory();
  const std::size_t reserve = 256 * MiB;
  const std::size_t wanted = 1024 * MiB;
  if (free >= 2 * wanted + reserve) return wanted;
  const std::size_t available = free > reserve ? (free - reserve) / 2 : free / 4;
  return std::max<std::size_t>(available / MiB * MiB, MiB);
}

}  // namespace

double Roofline::peak_gflops(bool single) const { return single ? fp32_gflops : fp64_gflops; }

double Roofline::memory_seconds(double bytes) const { return copy_gbs > 0 ? bytes / (copy_gbs * 1e9) : 0.0; }

double Roofline::compute_seconds(double flops, bool single) const {
  const double peak = peak_gflops(single);
  return peak > 0 ? flops / (peak * 1e9) : 0.0;
}

double Roofline::bound_seconds(double bytes, double flops, bool single) const {
  return std::max(memory_seconds(bytes), compute_seconds(flops, single));
}

std::string Roofline::describe() const {
  char text[512];
  std::snprintf(text, sizeof text, "copy %.1f GB/s (%s%s%s, %.1f MiB), fp64 %.1f GFLOP/s, fp32 %.1f GFLOP/s (%.2f s)",
                copy_gbs, copy_method.c_str(), copy_shape.empty() ? "" : ": ", copy_shape.c_str(),
                static_cast<double>(copy_bytes) / (1 << 20), fp64_gflops, fp32_gflops, seconds);
  return text;
}

Roofline measure_roofline(Backend& backend, const RooflineOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  RTCG_VERIFY(options.repeats >= 1, "roofline: repeats must be at least 1, not " << options.repeats);
  std::size_t bytes = options.copy_bytes ? options.copy_bytes : default_copy_bytes(backend);
  bytes = bytes / 256 * 256;
  RTCG_VERIFY(bytes >= 256, "roofline: the copy needs at least 256 bytes per array, not " << options.copy_bytes);

  const auto module = backend.compile(roofline_program());
  Roofline roof;
  roof.copy_bytes = bytes;
  const CopyResult copy = measure_copy(backend, *module, bytes, options.repeats);
  roof.copy_gbs = copy.gbs;
  roof.copy_method = copy.method;
  roof.copy_shape = copy.shape;
  roof.fp64_gflops = measure_fma(backend, *module, false, options.repeats);
  roof.fp32_gflops = measure_fma(backend, *module, true, options.repeats);
  roof.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  log().info("roofline on {} ({}): {}", backend.name(), backend.device_info().name, roof.describe());
  return roof;
}

void roofline_copy(Backend& backend, void* destination, const void* source, std::size_t bytes) {
  if (bytes == 0) return;
  RTCG_VERIFY(reinterpret_cast<std::uintptr_t>(destination) % 16 == 0 && reinterpret_cast<std::uintptr_t>(source) % 16 == 0,
              "roofline_copy: the pointers must be 16-byte aligned");
  const auto module = backend.compile(roofline_program());
  const bool cuda = backend.kind() == BackendKind::cuda;
  const CopyShape& shape = kCopyShapes[0];
  const auto kernel = module->kernel(copy_kernel_name(cuda ? shape.items : 1));
  launch_copy(*kernel, copy_launch(shape, bytes, backend.device_info().multiprocessors), destination, source, bytes);
}

}  // namespace rtcg
