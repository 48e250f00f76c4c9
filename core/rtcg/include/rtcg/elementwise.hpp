// ElementwiseKernel, in PyCUDA's spirit: the user writes the pointwise body in terms of the
// index `i`; rtcg owns the loop, the indexing and the launch shape, and one generated source
// compiles on both backends (a tiled grid-stride loop on CUDA, an OpenMP loop on host).
//
//   rtcg::ElementwiseKernel lin_comb(backend, "double a, const double* x, double b, const double* y, double* z",
//                                    "z[i] = a * x[i] + b * y[i]", "lin_comb");
//   lin_comb(5.0, x, 6.0, y, z);   // n = the arrays' common size
//
// The operation is the user's C code, placed in the loop body as written (math functions
// such as sqrt, fabs, fma, exp are available on both backends). Argument names and types
// are parsed and checked (see <rtcg/kernel_arguments.hpp>). Kernels compile once per process
// (and once per machine, through the disk cache).
#pragma once

#include <rtcg/argument_binding.hpp>
#include <rtcg/array.hpp>
#include <rtcg/backend.hpp>
#include <rtcg/kernel_arguments.hpp>
#include <rtcg/module.hpp>
#include <rtcg/program.hpp>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace rtcg {

// The shape of the generated loop; what the tuner varies. Only block_size, items_per_thread
// and blocks_per_sm shape the CUDA code; the host loop is one OpenMP loop either way.
struct ElementwiseParams {
  unsigned block_size = 256;      // CUDA threads per block: a multiple of 32 in [32, 1024]
  unsigned items_per_thread = 1;  // CUDA: elements per thread per tile, block_size apart (loads in flight)
  unsigned blocks_per_sm = 0;     // CUDA grid: 0 = one block per tile (covers n once); k = SMs * k blocks
                                  // looping over the tiles
  bool restrict_pointers = false;  // pointer arguments never alias: lets loads move above stores. Only
                                   // for kernels whose arrays are distinct (in-place through one
                                   // pointer is fine)

  std::string describe() const;  // "block 256, items 4, grid cover, restrict"
};

struct ElementwiseSpec {
  std::string name = "elementwise";  // the kernel's name: an identifier
  std::string arguments;              // "double a, const double* x, double* y"
  std::string operation;              // "y[i] = a * x[i] + y[i]"
  std::string preamble;               // optional helpers placed before the kernel (RTCG_DEVICE functions)
};

// The generator, for the tuner and for readers: the program for a spec and parameters (the
// same text for both backends), and the launch shape for n elements on a device. Throws
// rtcg::Error for an invalid spec or parameters.
Program elementwise_program(const ElementwiseSpec& spec, const ElementwiseParams& params);
LaunchShape elementwise_shape(const ElementwiseParams& params, std::size_t n, int multiprocessors);

class ElementwiseKernel {
public:
  ElementwiseKernel(Backend& backend, ElementwiseSpec spec, ElementwiseParams params = {});
  ElementwiseKernel(Backend& backend, std::string arguments, std::string operation, std::string name = "elementwise",
                    ElementwiseParams params = {}, std::string preamble = {});

  // Runs over n = the common size of the array arguments (asynchronously on CUDA).
  template <class... A>
  void operator()(A&&... args) const {
    detail::ArgumentBinder binder(*backend_, arguments_, spec_.name);
    (binder.bind(std::forward<A>(args)), ...);
    binder.finish();
    const std::size_t n = binder.common_array_size();
    run(n, binder);
  }
  // Runs over an explicit n; every array argument must hold at least n elements.
  template <class... A>
  void launch(std::size_t n, A&&... args) const {
    detail::ArgumentBinder binder(*backend_, arguments_, spec_.name);
    (binder.bind(std::forward<A>(args)), ...);
    binder.verify_arrays_hold(n);
    run(n, binder);
  }

  Backend& backend() const noexcept { return *backend_; }
  const ElementwiseSpec& spec() const noexcept { return spec_; }
  const ElementwiseParams& params() const noexcept { return params_; }
  const std::vector<ArgumentDecl>& arguments() const noexcept { return arguments_; }
  const std::string& source() const noexcept { return program_.source; }
  LaunchShape shape(std::size_t n) const { return elementwise_shape(params_, n, multiprocessors_); }
  const Kernel& kernel() const noexcept { return *kernel_; }

private:
  void run(std::size_t n, detail::ArgumentBinder& binder) const;

  Backend* backend_;
  ElementwiseSpec spec_;
  ElementwiseParams params_;
  std::vector<ArgumentDecl> arguments_;
  Program program_;
  int multiprocessors_ = 1;
  std::shared_ptr<const Module> module_;
  std::shared_ptr<const Kernel> kernel_;
};

}  // namespace rtcg
