// ReductionKernel, in PyCUDA's spirit: the user gives the value type, the neutral element, a
// reduce expression in `a` and `b`, a map expression in `i` and the arguments, and the
// arguments; rtcg owns the loops, the combine and the launch shapes.
//
//   rtcg::ReductionKernel<double> dot(backend, "0", "a + b", "x[i] * y[i]",
//                                     "const double* x, const double* y", "dot");
//   double d = dot(x, y);                  // synchronous: the value on the host
//   dot.into(result.view(), x, y);         // asynchronous: result[0] on the device
//
// Results are deterministic: the same bits run after run for the same size and parameters.
// Two passes with fixed shapes: per-block (CUDA) or per-chunk (host) partial results, each
// combined in a fixed order, then one block (or one loop) over the partials in order. On CUDA
// the combine inside a block is a warp-shuffle tree (no volatile warp-synchronous code); on
// host the chunking depends on the size alone, not on the number of OpenMP threads. The
// neutral element must be an identity of the reduce expression: lanes without data hold it.
#pragma once

#include <rtcg/argument_binding.hpp>
#include <rtcg/array.hpp>
#include <rtcg/backend.hpp>
#include <rtcg/kernel_arguments.hpp>
#include <rtcg/memory_pool.hpp>
#include <rtcg/module.hpp>
#include <rtcg/program.hpp>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace rtcg {

// The shape of both passes; what the tuner varies.
struct ReductionParams {
  unsigned block_size = 256;       // CUDA threads per block: a multiple of 32 in [32, 1024]
  unsigned items_per_thread = 4;   // independent accumulators per thread (CUDA) or per chunk (host)
  unsigned blocks_per_sm = 4;      // CUDA first pass: SMs * blocks_per_sm blocks; 0 = one block per tile
  unsigned host_chunk = 1u << 16;  // host first pass: elements per chunk (one partial result each)

  std::string describe() const;  // "block 256, items 4, grid 4/SM, chunk 65536"
};

struct ReductionSpec {
  std::string name = "reduce";       // kernels are <name>_partials and <name>_combine
  ScalarType type = ScalarType::f64;  // the type of values being combined and of the result
  std::string neutral;                // identity of reduce: "0", "1", "-INFINITY"-like literals
  std::string reduce_expr;            // in a and b: "a + b"
  std::string map_expr;               // in i and the arguments: "x[i] * y[i]"
  std::string arguments;              // "const double* x, const double* y"
  std::string preamble;               // optional helpers placed before the kernels
  std::string finalize;               // optional, in a: applied to the result ("sqrt(a)")
};

Program reduction_program(const ReductionSpec& spec, const ReductionParams& params);
// How many partial results the first pass writes for n elements: CUDA blocks, or host chunks.
std::size_t reduction_partials(const ReductionParams& params, std::size_t n, BackendKind backend, int multiprocessors);

// The type-erased engine behind ReductionKernel<T>: compiles both passes and runs them.
class ReductionEngine {
public:
  ReductionEngine(Backend& backend, ReductionSpec spec, ReductionParams params);

  // Queues both passes over n elements; the result lands in *result (a device pointer to one
  // value of the spec's type). Scratch memory comes from the pool.
  void run(std::size_t n, detail::ArgumentBinder& binder, void* result) const;

  Backend& backend() const noexcept { return *backend_; }
  const ReductionSpec& spec() const noexcept { return spec_; }
  const ReductionParams& params() const noexcept { return params_; }
  const std::vector<ArgumentDecl>& arguments() const noexcept { return arguments_; }
  const std::string& source() const noexcept { return program_.source; }
  const Kernel& partials_kernel() const noexcept { return *partials_; }
  const Kernel& combine_kernel() const noexcept { return *combine_; }

private:
  Backend* backend_;
  ReductionSpec spec_;
  ReductionParams params_;
  std::vector<ArgumentDecl> arguments_;
  Program program_;
  int multiprocessors_ = 1;
  std::shared_ptr<const Module> module_;
  std::shared_ptr<const Kernel> partials_;
  std::shared_ptr<const Kernel> combine_;
};

template <ArrayElement T>
class ReductionKernel {
public:
  ReductionKernel(Backend& backend, std::string neutral, std::string reduce_expr, std::string map_expr,
                  std::string arguments, std::string name = "reduce", ReductionParams params = {},
                  std::string preamble = {}, std::string finalize = {})
      : engine_(backend,
                ReductionSpec{std::move(name), scalar_type_of<T>(), std::move(neutral), std::move(reduce_expr),
                              std::move(map_expr), std::move(arguments), std::move(preamble), std::move(finalize)},
                params) {}
  ReductionKernel(Backend& backend, ReductionSpec spec, ReductionParams params = {})
      : engine_(backend, checked(std::move(spec)), params) {}

  // Reduces over n = the common size of the array arguments and returns the value on the
  // host (waits for the device).
  template <class... A>
  T operator()(A&&... args) const {
    Array<T> result(engine_.backend(), 1);
    into(result.view(), std::forward<A>(args)...);
    T value{};
    result.copy_to_host(std::span<T>(&value, 1));
    return value;
  }
  // The same into result[0] on the device, without waiting.
  template <class... A>
  void into(ArrayView<T> result, A&&... args) const {
    detail::ArgumentBinder binder(engine_.backend(), engine_.arguments(), engine_.spec().name);
    (binder.bind(std::forward<A>(args)), ...);
    binder.finish();
    const std::size_t n = binder.common_array_size();
    engine_.run(n, binder, checked_result(result));
  }
  // Over an explicit n; every array argument must hold at least n elements.
  template <class... A>
  void launch_into(std::size_t n, ArrayView<T> result, A&&... args) const {
    detail::ArgumentBinder binder(engine_.backend(), engine_.arguments(), engine_.spec().name);
    (binder.bind(std::forward<A>(args)), ...);
    binder.verify_arrays_hold(n);
    engine_.run(n, binder, checked_result(result));
  }

  const ReductionEngine& engine() const noexcept { return engine_; }
  const std::string& source() const noexcept { return engine_.source(); }

private:
  static ReductionSpec checked(ReductionSpec spec) {
    RTCG_VERIFY(spec.type == scalar_type_of<T>(), "ReductionKernel<" << c_type(scalar_type_of<T>())
                                                                     << "> given a spec of type " << c_type(spec.type));
    return spec;
  }
  void* checked_result(ArrayView<T> result) const {
    RTCG_VERIFY(result.size() >= 1, "reduction `" << engine_.spec().name << "`: the result view is empty");
    RTCG_VERIFY(&result.backend() == &engine_.backend(),
                "reduction `" << engine_.spec().name << "`: the result array is on another backend");
    return result.data();
  }

  ReductionEngine engine_;
};

}  // namespace rtcg
