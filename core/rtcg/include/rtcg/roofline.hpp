// The roofline of the device at hand, measured rather than taken from a datasheet: the best
// device-to-device copy rate and the fused multiply-add throughput in double and float. A
// benchmark measures it once at its start and reports its kernels against it:
//
//   auto roof = rtcg::measure_roofline(backend);   // a fraction of a second (plus compiles)
//   double floor_s = roof.bound_seconds(bytes_moved, flops, /*single=*/false);
//   double fraction = floor_s / measured_s;        // 1 = on the roofline
//
// The kernels are generated in the portable dialect, so the host backend gives the CPU's
// numbers (OpenMP threads, SIMD FMAs) from the same source.
#pragma once

#include <rtcg/backend.hpp>
#include <rtcg/program.hpp>

#include <cstddef>
#include <string>

namespace rtcg {

struct Roofline {
  double copy_gbs = 0;         // best measured copy rate: bytes read + written per second / 1e9
  double fp64_gflops = 0;      // measured FMA throughput in double (2 flops per FMA) / 1e9
  double fp32_gflops = 0;      // the same in float
  std::string copy_method;     // which copy was fastest: "kernel" or "memcpy"
  std::string copy_shape;      // the fastest kernel's launch shape, e.g. "block 256, 4 x 16 B per thread, grid cover"
  std::size_t copy_bytes = 0;  // bytes per array (the source; as many are written)
  double seconds = 0;          // how long the measurement took, compiles included

  // fp32_gflops when `single`, else fp64_gflops.
  double peak_gflops(bool single) const;
  // The two sides of the bound: bytes / copy rate, flops / peak (0 for a rate not measured).
  double memory_seconds(double bytes) const;
  double compute_seconds(double flops, bool single) const;
  // A lower bound on the time of a kernel that moves `bytes` (read + written) and does `flops`
  // floating-point operations: max(memory_seconds, compute_seconds). A rate that was not
  // measured (0) contributes nothing. (Their sum is what a kernel takes that does its memory
  // traffic and its arithmetic one after the other, each at its full rate.)
  double bound_seconds(double bytes, double flops, bool single) const;
  // One line for logs: "copy 2950.3 GB/s (kernel, ...), fp64 ... GFLOP/s, fp32 ... GFLOP/s".
  std::string describe() const;
};

struct RooflineOptions {
  // Bytes per array for the copy (rounded down to a multiple of 256). 0: 1 GiB on cuda (less
  // when free memory is short), 64 MiB on host.
  std::size_t copy_bytes = 0;
  // Timed runs per copy method and per FMA kernel. A copy rate is from the median run (as
  // benchmarks time their kernels); an FMA peak from the fastest (a peak is what the hardware
  // can do; on a shared CPU other processes slow some runs down).
  int repeats = 10;
};

// Measures the roofline on `backend`. Every copy kernel's output is checked on the device
// (rtcg::Error if it is wrong). Leaves no memory allocated.
Roofline measure_roofline(Backend& backend, const RooflineOptions& options = {});

// The generated copy kernel that measure_roofline times, with its first launch shape: copies
// `bytes` (any count) from `source` to `destination`, both in `backend`'s memory, 16-byte
// aligned and not overlapping. Asynchronous on cuda. For tests and for a copy reference.
void roofline_copy(Backend& backend, void* destination, const void* source, std::size_t bytes);

// The generated source of the roofline kernels (one program for both backends), e.g. to
// compile it for a GPU architecture with no GPU present.
const Program& roofline_program();

}  // namespace rtcg
