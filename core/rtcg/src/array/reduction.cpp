// The reduction generator and its two-pass engine.
#include <rtcg/reduction.hpp>
#include <rtcg/source_writer.hpp>

#include "array/generator_support.hpp"

#include <algorithm>
#include <limits>

namespace rtcg {
namespace {

void verify_params(const ReductionParams& params) {
  RTCG_VERIFY(params.block_size >= 32 && params.block_size <= 1024 && params.block_size % 32 == 0,
              "reduction block size " << params.block_size << " must be a multiple of 32 in [32, 1024]");
  RTCG_VERIFY(params.items_per_thread >= 1 && params.items_per_thread <= 32,
              "reduction items per thread " << params.items_per_thread << " must be in [1, 32]");
  RTCG_VERIFY(params.blocks_per_sm <= 64, "reduction blocks per SM " << params.blocks_per_sm << " must be in [0, 64]");
  RTCG_VERIFY(params.host_chunk >= 64, "reduction host chunk " << params.host_chunk << " must be at least 64");
}

struct Names {
  std::string type, reduce, block, finalize, partials, combine;
};

// `<name>_block(v, neutral)`: one value per thread in, the block's result out in thread 0. A
// shuffle tree in each warp (lane j takes lane j + 16, then j + 8, ... j + 1), the warps'
// results through shared memory, and the same tree in warp 0: a fixed order, so the same
// bits every run.
void write_cuda_block_reduce(SourceWriter& w, const Names& names, unsigned block_size) {
  const std::string warps = detail::literal(block_size / 32);
  auto function = w.block("__device__ __forceinline__ " + names.type + " " + names.block + "(" + names.type +
                          " rtcg_v, " + names.type + " rtcg_neutral)");
  w.line("__shared__ " + names.type + " rtcg_warp_results[" + warps + "];");
  w.line("const unsigned rtcg_lane = threadIdx.x % 32u;");
  w.line("const unsigned rtcg_warp = threadIdx.x / 32u;");
  w.line("#pragma unroll");
  w.line("for (int rtcg_offset = 16; rtcg_offset > 0; rtcg_offset /= 2)");
  w.line("  rtcg_v = " + names.reduce + "(rtcg_v, __shfl_down_sync(0xffffffffu, rtcg_v, rtcg_offset));");
  w.line("if (rtcg_lane == 0) rtcg_warp_results[rtcg_warp] = rtcg_v;");
  w.line("__syncthreads();");
  {
    auto first_warp = w.block("if (rtcg_warp == 0)");
    w.line("rtcg_v = rtcg_lane < " + warps + "u ? rtcg_warp_results[rtcg_lane] : rtcg_neutral;");
    w.line("#pragma unroll");
    w.line("for (int rtcg_offset = 16; rtcg_offset > 0; rtcg_offset /= 2)");
    w.line("  rtcg_v = " + names.reduce + "(rtcg_v, __shfl_down_sync(0xffffffffu, rtcg_v, rtcg_offset));");
  }
  w.line("return rtcg_v;");
}

// The accumulators of one thread (CUDA) or chunk (host): `items` of them, combined in order.
void write_accumulators(SourceWriter& w, const Names& names, const std::string& items, const std::string& neutral) {
  w.line("const " + names.type + " rtcg_neutral = (" + neutral + ");");
  w.line(names.type + " rtcg_acc[" + items + "];");
  w.line("#pragma unroll");
  w.line("for (int rtcg_k = 0; rtcg_k < " + items + "; ++rtcg_k) rtcg_acc[rtcg_k] = rtcg_neutral;");
}
void write_combine_accumulators(SourceWriter& w, const Names& names, const std::string& items) {
  w.line(names.type + " rtcg_v = rtcg_acc[0];");
  w.line("#pragma unroll");
  w.line("for (int rtcg_k = 1; rtcg_k < " + items + "; ++rtcg_k) rtcg_v = " + names.reduce +
         "(rtcg_v, rtcg_acc[rtcg_k]);");
}

// First pass on CUDA: block b reduces tiles b, b + grid, ... (a tile is block_size * items
// consecutive elements, thread t taking t, t + block_size, ...: coalesced loads, `items` of
// them in flight) into one partial result.
void write_cuda_partials(SourceWriter& w, const ReductionSpec& spec, const ReductionParams& params,
                         const Names& names, const std::string& header) {
  const std::string items = detail::literal(params.items_per_thread);
  const std::string block = detail::literal(params.block_size);
  const std::string tile = detail::literal(static_cast<unsigned long long>(params.block_size) * params.items_per_thread);
  auto kernel = w.block(header);
  write_accumulators(w, names, items, spec.neutral);
  w.line("const long long rtcg_tile = " + tile + "LL;");
  {
    auto loop = w.block("for (long long rtcg_start = static_cast<long long>(blockIdx.x) * rtcg_tile; rtcg_start < n; "
                        "rtcg_start += static_cast<long long>(gridDim.x) * rtcg_tile)");
    auto items_loop = [&](bool guarded) {
      w.line("#pragma unroll");
      auto item = w.block("for (int rtcg_k = 0; rtcg_k < " + items + "; ++rtcg_k)");
      w.line("const long long i = rtcg_start + rtcg_k * " + block + " + static_cast<long long>(threadIdx.x);");
      const std::string update = "rtcg_acc[rtcg_k] = " + names.reduce + "(rtcg_acc[rtcg_k], (" + spec.map_expr + "));";
      w.line(guarded ? "if (i < n) " + update : update);
    };
    {
      auto whole = w.block("if (rtcg_start + rtcg_tile <= n)");
      items_loop(false);
    }
    auto partial = w.block("else");
    items_loop(true);
  }
  write_combine_accumulators(w, names, items);
  w.line("rtcg_v = " + names.block + "(rtcg_v, rtcg_neutral);");
  w.line("if (threadIdx.x == 0) rtcg_partials[blockIdx.x] = rtcg_v;");
}

// Second pass on CUDA: one block; thread t combines partials t, t + block_size, ... in order.
void write_cuda_combine(SourceWriter& w, const ReductionSpec& spec, const ReductionParams& params, const Names& names,
                        const std::string& header) {
  auto kernel = w.block(header);
  w.line("const " + names.type + " rtcg_neutral = (" + spec.neutral + ");");
  w.line(names.type + " rtcg_v = rtcg_neutral;");
  w.line("for (long long rtcg_j = threadIdx.x; rtcg_j < rtcg_count; rtcg_j += " + detail::literal(params.block_size) +
         ") rtcg_v = " + names.reduce + "(rtcg_v, rtcg_partials[rtcg_j]);");
  w.line("rtcg_v = " + names.block + "(rtcg_v, rtcg_neutral);");
  w.line(std::string("if (threadIdx.x == 0) rtcg_result[0] = ") +
         (spec.finalize.empty() ? "rtcg_v;" : names.finalize + "(rtcg_v);"));
}

// First pass on host: chunk c (host_chunk consecutive elements) reduced with `items`
// interleaved accumulators into partial c. Chunks depend on n alone, not on the thread count.
void write_host_partials(SourceWriter& w, const ReductionSpec& spec, const ReductionParams& params,
                         const Names& names, const std::string& header) {
  const std::string items = detail::literal(params.items_per_thread);
  const std::string chunk = detail::literal(params.host_chunk);
  auto kernel = w.block(header);
  w.line("const long long rtcg_chunks = (n + " + chunk + "LL - 1) / " + chunk + "LL;");
  w.line("#pragma omp parallel for schedule(static)");
  auto chunks = w.block("for (long long rtcg_c = 0; rtcg_c < rtcg_chunks; ++rtcg_c)");
  write_accumulators(w, names, items, spec.neutral);
  w.line("const long long rtcg_begin = rtcg_c * " + chunk + "LL;");
  w.line("const long long rtcg_end = rtcg_begin + " + chunk + "LL < n ? rtcg_begin + " + chunk + "LL : n;");
  w.line("long long rtcg_j = rtcg_begin;");
  const std::string update = "rtcg_acc[rtcg_k] = " + names.reduce + "(rtcg_acc[rtcg_k], (" + spec.map_expr + "));";
  {
    auto whole = w.block("for (; rtcg_j + " + items + " <= rtcg_end; rtcg_j += " + items + ")");
    auto item = w.block("for (int rtcg_k = 0; rtcg_k < " + items + "; ++rtcg_k)");
    w.line("const long long i = rtcg_j + rtcg_k;");
    w.line(update);
  }
  {
    auto rest = w.block("for (int rtcg_k = 0; rtcg_j + rtcg_k < rtcg_end; ++rtcg_k)");
    w.line("const long long i = rtcg_j + rtcg_k;");
    w.line(update);
  }
  write_combine_accumulators(w, names, items);
  w.line("rtcg_partials[rtcg_c] = rtcg_v;");
}

void write_host_combine(SourceWriter& w, const ReductionSpec& spec, const Names& names, const std::string& header) {
  auto kernel = w.block(header);
  w.line(names.type + " rtcg_v = (" + spec.neutral + ");");
  w.line("for (long long rtcg_j = 0; rtcg_j < rtcg_count; ++rtcg_j) rtcg_v = " + names.reduce +
         "(rtcg_v, rtcg_partials[rtcg_j]);");
  w.line(std::string("rtcg_result[0] = ") + (spec.finalize.empty() ? "rtcg_v;" : names.finalize + "(rtcg_v);"));
}

}  // namespace

std::string ReductionParams::describe() const {
  std::string text = "block " + std::to_string(block_size) + ", items " + std::to_string(items_per_thread) + ", grid ";
  text += blocks_per_sm == 0 ? std::string("cover") : std::to_string(blocks_per_sm) + "/SM";
  text += ", chunk " + std::to_string(host_chunk);
  return text;
}

Program reduction_program(const ReductionSpec& spec, const ReductionParams& params) {
  verify_identifier(spec.name, "reduction kernel name");
  const auto arguments = parse_arguments(spec.arguments);
  verify_snippet(spec.neutral, "the reduction's neutral element");
  verify_snippet(spec.reduce_expr, "the reduce expression");
  verify_snippet(spec.map_expr, "the map expression");
  if (!spec.finalize.empty()) verify_snippet(spec.finalize, "the finalize expression");
  verify_params(params);

  Names names;
  names.type = c_type(spec.type);
  names.reduce = spec.name + "_reduce";
  names.block = spec.name + "_block";
  names.finalize = spec.name + "_finalize";
  names.partials = spec.name + "_partials";
  names.combine = spec.name + "_combine";

  SourceWriter w;
  w.line("// Generated by rtcg::ReductionKernel `" + spec.name + "` over " + names.type + " (" + params.describe() + ").");
  detail::write_comment(w, "arguments", spec.arguments);
  detail::write_comment(w, "map", spec.map_expr);
  detail::write_comment(w, "reduce", spec.reduce_expr);
  detail::write_comment(w, "neutral", spec.neutral);
  if (!spec.finalize.empty()) detail::write_comment(w, "finalize", spec.finalize);
  detail::write_math_include(w);
  detail::write_preamble(w, spec.preamble);
  w.line();
  {
    auto function = w.block("RTCG_DEVICE " + names.type + " " + names.reduce + "(" + names.type + " a, " + names.type + " b)");
    w.line("return (" + spec.reduce_expr + ");");
  }
  if (!spec.finalize.empty()) {
    auto function = w.block("RTCG_DEVICE " + names.type + " " + names.finalize + "(" + names.type + " a)");
    w.line("return (" + spec.finalize + ");");
  }
  w.line();
  const std::string partials_header = detail::kernel_header(
      names.partials, arguments, false, {"long long n", names.type + "* RTCG_RESTRICT rtcg_partials"});
  const std::string combine_header =
      detail::kernel_header(names.combine, {}, false,
                            {"const " + names.type + "* RTCG_RESTRICT rtcg_partials", "long long rtcg_count",
                             names.type + "* RTCG_RESTRICT rtcg_result"});
  w.line("#if RTCG_CUDA");
  write_cuda_block_reduce(w, names, params.block_size);
  w.line();
  write_cuda_partials(w, spec, params, names, partials_header);
  w.line();
  write_cuda_combine(w, spec, params, names, combine_header);
  w.line("#else");
  write_host_partials(w, spec, params, names, partials_header);
  w.line();
  write_host_combine(w, spec, names, combine_header);
  w.line("#endif");

  Program program;
  program.name = spec.name;
  program.source = w.str();
  return program;
}

std::size_t reduction_partials(const ReductionParams& params, std::size_t n, BackendKind backend, int multiprocessors) {
  if (backend == BackendKind::host) return (n + params.host_chunk - 1) / params.host_chunk;
  const std::size_t tile = std::size_t{params.block_size} * params.items_per_thread;
  std::size_t grid = std::max<std::size_t>(1, (n + tile - 1) / tile);
  if (params.blocks_per_sm > 0)
    grid = std::min(grid, static_cast<std::size_t>(std::max(1, multiprocessors)) * params.blocks_per_sm);
  return std::min<std::size_t>(grid, std::numeric_limits<int>::max());
}

ReductionEngine::ReductionEngine(Backend& backend, ReductionSpec spec, ReductionParams params)
    : backend_(&backend), spec_(std::move(spec)), params_(params), arguments_(parse_arguments(spec_.arguments)),
      program_(reduction_program(spec_, params_)), multiprocessors_(std::max(1, backend.device_info().multiprocessors)),
      module_(backend.compile(program_)), partials_(module_->kernel(spec_.name + "_partials")),
      combine_(module_->kernel(spec_.name + "_combine")) {}

void ReductionEngine::run(std::size_t n, detail::ArgumentBinder& binder, void* result) const {
  KernelArgs& args = binder.finish();
  RTCG_VERIFY(n <= static_cast<std::size_t>(std::numeric_limits<long long>::max()), "too many elements: " << n);
  const std::size_t count = n == 0 ? 0 : reduction_partials(params_, n, backend_->kind(), multiprocessors_);
  // Scratch for the partial results; returned to the pool once both passes are queued
  // (stream-ordered on CUDA, so the second pass still reads it).
  PoolBlock partials(memory_pool(*backend_), std::max<std::size_t>(count, 1) * size_of(spec_.type));
  if (n > 0) {
    args.push(static_cast<long long>(n));
    args.push(partials.get());
    LaunchShape first;
    first.grid.x = static_cast<unsigned>(count);
    first.block.x = params_.block_size;
    partials_->launch(first, std::move(args));
  }
  LaunchShape second;
  second.block.x = params_.block_size;
  combine_->launch(second, KernelArgs(static_cast<const void*>(partials.get()), static_cast<long long>(count), result));
}

}  // namespace rtcg
