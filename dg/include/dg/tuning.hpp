// Tuning the DG kernels: the plan space (dg/plan.hpp) as a search space of rtcg's tuner, the
// job that scores each plan by the time of whole Runge-Kutta steps of a solver (hedge's joint
// score: the kernels of a stage together, not each alone), and the choice of plan for a run
// (the tuning database, tuning on the spot within a time budget, or the default plan).
//
//   dg::Solver solver(backend, disc, setup);          // built with the default plan
//   auto choice = dg::choose_plan(solver, rtcg::tune::tune_mode(), db, {});
//   solver.set_plan(choice.plan);                      // choose_plan leaves the solver on it
//
// Every variant is checked against the default plan before it is timed: from the same state,
// one step's change of the state must agree to 1e-11 (double) or 1e-4 (float) relative to
// its largest entry; a variant that does not is dropped with the difference found.
#pragma once

#include "dg/kernels.hpp"
#include "dg/plan.hpp"
#include "dg/solver.hpp"

#include <rtcg/backend.hpp>
#include <rtcg/tuner.hpp>
#include <rtcg/tuning_db.hpp>

#include <cstddef>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace rtdg::dg {

// The values the tuner tries. Fused plans: every combination of the lists, limited to blocks
// of min_threads..max_threads threads; derivative = state only for laws with a linear flux.
// Unfused plans (the default's family): one per layout, elements per block automatic.
struct PlanSpace {
  std::vector<Layout> layouts{Layout::field_major, Layout::element_major};
  // Unfused plans (three kernels per stage) in each layout. The default plan (unfused,
  // field-major) is the reference and stays in every space, whatever this and `layouts` say.
  bool unfused = true;
  std::vector<int> elements_per_block{1, 2, 4, 8, 16, 32, 64, 128};
  std::vector<int> nodes_per_thread{1, 2};
  // Operators::literals (products by column, the operators in the code) is tried where D and
  // LIFT have at most 1,024 entries together, with `prune` (operators_pruned: orders 1-2 on
  // tetrahedra); Operators::constant only where asked for and with prune off (it never came
  // first: docs/tuning.md).
  // Operators::stencil (the Bernstein lattice stencil) for Bernstein plans of the state
  // derivative only.
  std::vector<Operators> operators{Operators::global, Operators::shared, Operators::literals, Operators::stencil};
  std::vector<Derivative> derivatives{Derivative::flux, Derivative::state};
  // Tensor products: double, and float through the FP64 tensor cores. tf32x3 (float, compute
  // capability 8.0 and newer; ignored elsewhere) is not tried by default: on the H100 it lost
  // or tied at every order with 16-row tiles and lost by 1.27-1.57x with column tiles
  // (docs/tuning.md), and made the float sweep of orders 1-7 25-55 % longer.
  std::vector<Products> products{Products::scalar, Products::tensor};
  // Prefetch async only where cp.async exists (CUDA, compute capability 8.0 and newer); there,
  // with `prune`, plans without prefetch and scalar plans with `on` are dropped before compiling
  // (prefetch_pruned).
  std::vector<Prefetch> prefetch{Prefetch::off, Prefetch::on, Prefetch::async};
  // Where the fused kernel reads the geometry (Plan::geometry); shared with prefetch = async only.
  std::vector<GeometryPlace> geometry{GeometryPlace::global, GeometryPlace::shared};
  // Tensor products only; 16 is tried only on devices of compute capability 9.0 and newer (and
  // for tf32x3, which takes 16-row tiles or column tiles).
  std::vector<int> tile_rows{8, 16};
  // Tensor products of the flux derivative only.
  std::vector<Directions> directions{Directions::joint, Directions::split};
  // Tensor products only: operator row tiles per warp item (Plan::row_tiles). Not tried by
  // default: on the H100 (2026-11-26, double, orders 2-7) the best plan with 2 or 3 was 7-17 %
  // slower than the best with 1, and trying them made the sweep of orders 1-7 take 304 s
  // instead of about 200.
  std::vector<int> row_tiles{1};
  // Tensor products only: k steps unrolled in the products' loops (Plan::k_unroll; 0: all).
  // 2 takes 16-row tiles from 80-108 registers to 56-64 (m16n8k4 instead of m16n8k16): in
  // sweeps of 4-element async plans on the H100 (2026-11-26, orders 3-6) a 16-row plan with it
  // came first at float orders 4-6 (5-9 % less time than the best fully unrolled plan) and
  // double orders 5 and 6 (5 and 2 %); with 8-row tiles it never came first (docs/tuning.md).
  // With `prune`, tiling_pruned keeps it to 16-row tiles and async.
  std::vector<int> k_unroll{0, 2};
  // Tensor products with k_unroll > 0: k steps loaded ahead (Plan::k_ahead). With `prune`,
  // tiling_pruned keeps 1 to plans of the state derivative (with 16-row tiles and async, as
  // k_unroll).
  std::vector<int> k_ahead{0, 1};
  // Element groups per block (prefetching fused plans; CUDA devices of compute capability 8.0
  // and newer, or the host). With `prune`, G > 1 is compiled only where it costs no thread
  // blocks per SM (pipelining_pruned); measured on the H100 that is where it wins (order 7).
  std::vector<int> groups_per_block{1, 2};
  // Teams per block (Plan::teams), tried with tensor products whose fragments are copied to
  // shared memory (operators = shared), which is what the teams share. Not tried by default:
  // on the H100 (2026-11-26, double orders 2-5) the best plan with teams was 11-57 % slower
  // than the winner; the fragments' shared memory costs warps per SM (docs/tuning.md).
  std::vector<int> teams{1};
  // How the fused kernels find the neighbours' nodes (Plan::connectivity). Not tried by
  // default: on the H100 (2026-11-27) faces was 2-5 % slower than nodes (median over the same
  // plans, orders 2-5; `--space connectivity=nodes,faces`).
  std::vector<Connectivity> connectivity{Connectivity::nodes};
  // The state columns' alignment in bytes (Plan::align), 0 or powers of two 8..128. A value is
  // tried only where it changes the node stride (and differs from a smaller value's), so at an
  // order whose Np is already a multiple it adds nothing to the sweep. Default: 0 only
  // (`--space align=0,16` tries padding).
  std::vector<int> align{0};
  // Which side of the tensor products the mma's 16 rows take (Plan::tiles); columns only
  // on CUDA devices of compute capability 9.0 and newer. Where columns are tried and row_tiles
  // lacks 2, column-tile plans get 2 as well (row tiles per warp item: the winners had 2). With
  // `prune`, tiling_pruned keeps columns to float, 2-8 elements per block, more than one row
  // tile per item and k loops unrolled fully (H100, 2026-11-27: they won float orders 2, 4 and
  // 5, never double).
  std::vector<Tiles> tiles{Tiles::rows, Tiles::columns};
  // The state's basis (Plan::basis). Bernstein plans are tried where the law and the run allow
  // them (dg/plan.hpp: triangles and tetrahedra, pieces affine in the state without position
  // inputs, no shock capturing), as fused plans by column (operators = literals, constant or
  // stencil), the only kernels whose cost falls with the sparser operators. With `prune`, basis_pruned keeps
  // them to what won in the measurements.
  std::vector<Basis> bases{Basis::nodal, Basis::bernstein};
  // Threads per column for the layered LIFT of Bernstein plans (Plan::face_threads).
  std::vector<int> face_threads{1, 2, 4};
  // Register caps of fused one-team plans (Plan::max_registers; 0: the compiler's choice). A
  // capped variant may spill up to capped_local_bytes per thread and still be timed. Default:
  // 0 only (`--space max_registers=0,80` tries a cap on every fused plan).
  std::vector<int> max_registers{0};
  // `--space max_registers=auto`: on CUDA, once a fused one-team plan has compiled without a
  // cap, try the caps that would fit it 1 and 2 more blocks per SM where its registers are what
  // limit them (register_caps), instead of a fixed list on every plan. Off by default: on the
  // H200 (session 31) the double sweep of orders 1-7 with it took 285-305 s, at the 5-minute
  // goal, and its caps gained 3-3.5 % at orders 1 and 7 only.
  bool derived_register_caps = false;
  // Whether prefetching plans with staged products load each thread's update input into
  // registers with the prefetch (Plan::prefetch_update). Off is tried where it fits, and with
  // `prune` on CUDA only for the stencil plans (update_pruned), where it saves the registers
  // that fit another block per SM.
  std::vector<bool> prefetch_update{true, false};
  // Whether a step is launched as one CUDA graph (Plan::graph), on CUDA only and not where the
  // solver has halo faces. The graph changes no kernel, and it gained the same few per cent on
  // every plan of a sweep (H200, session 37: 2-7 % of a stage on 1,238 tets, 0.7 % on 205k), so
  // with `prune` on it is tried on the sweep's winner only (rtcg::tune::Job::refine): timing every
  // plan twice would add up to a minute to a sweep of orders 1-7. With prune off, every plan
  // is timed both ways; `--space graph=off` never tries it.
  std::vector<bool> graph{false, true};
  int min_threads = 64;
  int max_threads = 512;
  // Drop, before compiling, plans that rules say cannot win (status "pruned" with the rule):
  // pipelined groups that would cost blocks per SM (pipelining_pruned), where prefetch async
  // exists, plans without prefetch and scalar ones with `on` (prefetch_pruned), and on sm_90 and
  // newer, 16-row tiles outside 2-8 elements per block, k_unroll other than with 16-row tiles
  // and async, and k_ahead with the flux derivative (tiling_pruned); on CUDA, operators in
  // constant memory, and as literals where D and LIFT have more than 1,024 entries
  // (operators_pruned); Bernstein plans other than those that won (basis_pruned); and graphs
  // other than the winner's (see graph). Off to check every plan (gpu tests; `--space prune=off`).
  bool prune = true;

  // The defaults above on CUDA; on host a small space (each variant is a C++ compile).
  static PlanSpace for_backend(rtcg::BackendKind kind);
};

// A command line's change to a space: "name=v1,v2,..." replaces that list, e.g. "groups=1,2,4",
// "tile_rows=8,16", "products=scalar,tensor,tf32x3", "elements=2,4". Names: layouts,
// elements, nodes_per_thread, operators, derivatives, products, prefetch, tile_rows,
// directions, row_tiles, k_unroll, groups, teams, geometry, connectivity, align, tiles, bases,
// face_threads, max_registers, prefetch_update, graph (values as in plan texts: k_unroll=all,2,
// prefetch_update=on,off, graph=off,on). Throws
// dg::Error naming what is wrong.
void set_space_values(PlanSpace& space, const std::string& text);

// The tuning database's family name for DG plans.
inline constexpr const char* plan_family = "dg_stage";

// Plan <-> point of the search space (parameters fusion, layout, elements, nodes_per_thread,
// operators, derivative, products, prefetch, tile_rows, directions, row_tiles, k_unroll (0:
// all), groups, teams, geometry, connectivity, align, tiles, basis; enums as their integer values). A point without products (stored before
// tensor products existed) is a scalar plan, one without prefetch does not prefetch, one
// without tile_rows has 8-row tiles, one without directions computes them jointly, one without
// row_tiles has one row tile per warp item, one without k_unroll unrolls all k steps, one
// without groups has one group per block, one without teams one team, one without geometry reads
// it from global memory, one without connectivity reads vmapP, one without align is not padded,
// one without tiles has row tiles, one without basis is nodal.
rtcg::tune::Point point_of(const Plan& plan);
Plan plan_of(const rtcg::tune::Point& point);

// The search space for this solver's law and element.
rtcg::tune::SearchSpace plan_search_space(const Solver& solver, const PlanSpace& space);

// Thread blocks of `threads` threads and `shared_bytes` of dynamic shared memory each that fit
// on one SM by the device's limits on threads, blocks and shared memory (registers are known
// only after compiling and are not counted); 0 when the device does not give those limits
// (the host backend).
int blocks_per_multiprocessor(const rtcg::DeviceInfo& device, int threads, std::size_t shared_bytes);

// Why the pipelined plan of `spec` (groups_per_block > 1) is not worth compiling on `device`,
// or "" when it is. Pipelining overlaps a block's next loads with its own products, which
// pays where few blocks share an SM; its second state buffer and trace buffer cost shared
// memory, and where that costs a block per SM the other blocks' overlap is lost (measured on
// the H100, 2026-11-25: the best pipelined plans 10-19 % slower at orders 2-6 in double, where they
// cost blocks, 4 % faster at order 7, where the unpipelined plan already runs one block per
// SM). So: pruned when the pipelined plan fits fewer blocks per SM than the same plan with
// one group. Never pruned where the device gives no limits (the host).
std::string pipelining_pruned(const KernelSpec& spec, const rtcg::DeviceInfo& device);
// The same with the pipelined plan's kernels already generated (the tuner's generator has them).
std::string pipelining_pruned(const KernelSpec& spec, const GeneratedKernels& pipelined, const rtcg::DeviceInfo& device);

// Why a fused plan's prefetch is not worth compiling on `device` when the space also tries
// prefetch = async (`async_tried`), or "" when it is. Where async exists (CUDA, compute
// capability 8.0 and newer) it issues the loads of
// prefetch = on sooner, with no registers held: in full sweeps on the H100 (2026-11-26, orders
// 1-7, double and float) no plan without prefetch came first by more than 1 %, and no plan of
// scalar products with prefetch = on beat the same plan with async. So there: prefetch = off
// is pruned, and prefetch = on for scalar products with one group per block (pipelined groups
// need it). Keeps a default sweep of orders 1-7 within its five minutes. Never pruned on the host.
std::string prefetch_pruned(const Plan& plan, const rtcg::DeviceInfo& device, bool async_tried);

// Why a fused plan's tensor-product tiling is not worth compiling on `device`, or "" when it
// is. On CUDA devices of compute capability 9.0 and newer (where 16-row tiles use m16n8k*),
// FP64-tensor plans (products = tensor) only: 16-row tiles with fewer than 2 or more than 8
// elements per block (in full sweeps on the H100, 2026-11-26, orders 1-7, double and float,
// none came within 10 % of the order's winner), and a set k unrolling (k_unroll > 0) other
// than with 16-row tiles and prefetch = async (8-row tiles: never first; it exists to bring
// the 16-row kernels' registers down), and a k step loaded ahead (k_ahead > 0) with the flux
// derivative (slower than without in most such plans). Column tiles (tiles = columns): in
// double (`single` false; in sweeps on the H100, 2026-11-27, double orders 2-6, the best
// column-tile plan was 1-38 % behind the best row-tile plan), with one operator row tile per
// warp item (never the best column-tile plan at orders 4-6), outside 2-8 elements per block,
// as 16-row tiles, and with k_unroll > 0 (the best such plan 3-25 % behind the best column-tile
// plan unrolled fully in the float sweep of orders 2-7). Keeps the default sweep
// within its five minutes with k_unroll = 2, k_ahead = 1 and column tiles in the space. Never
// pruned on the host or below sm_90.
std::string tiling_pruned(const Plan& plan, const rtcg::DeviceInfo& device, bool single);

// Why the DG tuning job drops a plan for where it keeps its operators, before compiling, or
// empty: on CUDA, operators = constant (measured on the H100, 2026-11-27: behind the same
// unrolled code with literals by 1-4 % at order 1 and 1.1-2.5x at orders 2-3, so the constant
// cache, not the code, holds it back; behind the winner at orders 1-4), and operators = literals where D and LIFT have more than
// 1,024 non-zero entries together in double, 2,048 in float (`operator_nonzeros`: the code
// holds one FMA per non-zero entry; on tetrahedra 342, 1,286 and 3,810 at orders 2-4). Measured
// on the H100 (2026-11-27): at double order 3 the literal code ran 1.36x slower than the winner,
// at order 4 (session 23, before D's exact zeros were dropped) 4.7x; float order 3 literals came
// within reach of the winner once the zeros were dropped (session 26). The literal limit is not
// applied to Bernstein plans (their operators are sparser; basis_pruned decides). Never pruned on
// the host.
std::string operators_pruned(const Plan& plan, long long operator_nonzeros, const rtcg::DeviceInfo& device,
                             bool single);

// Why the DG tuning job drops a Bernstein plan (Plan::basis) before compiling, or empty: on CUDA,
// every Bernstein plan but the lattice stencil (operators = stencil) element-major with prefetch
// async, the geometry in global memory and the layered LIFT's faces on 4 threads per column (2
// on triangles, `faces` = 3), and every one below order 4 (`order`). In the default sweeps of
// 2026-11-28 (H100, the 205k-tet sphere, double, session 29) those stencil plans won orders 4-7
// (0.875 / 1.404 / 3.134 / 4.795 ms per stage against the best nodal plans' 0.925 / 1.601 /
// 3.423 / 5.406); the best literal Bernstein plans were 2-18 % behind them at orders 5-7, faces
// on 1 or 2 threads 4-13 % behind 4, field-major and the geometry in shared memory 0-3 %; at
// order 3 the stencil was 16 % behind the nodal winner. Never pruned on the host.
std::string basis_pruned(const Plan& plan, int order, int faces, const rtcg::DeviceInfo& device);

// Why the DG tuning job drops a plan that reads its update input late (Plan::prefetch_update =
// off) before compiling, or empty: on CUDA, every such plan but the Bernstein stencil plans.
// There the early copy's NCOMP registers are what stands between 96 registers and 72 in
// double (nvcc 13, sm_90), one or two blocks per SM, and that is where it was measured (session
// 31: order 6 14 % faster); `--space prune=off` tries it on the other staged plans. Never pruned
// on the host.
std::string update_pruned(const Plan& plan, const rtcg::DeviceInfo& device);

// Problem class: kind "<law>/<shape>/N<order>/<f32|f64>/<integrator>", size class
// ceil(log2(K)).
rtcg::tune::ProblemClass plan_problem(const Solver& solver);

// The tuning job over `space` for `solver`: each run is one whole time step of the solver with
// the variant's plan (Solver::set_plan), from a fixed state (the law's initial condition when
// it gives a nonzero one, else pseudo-random values in [-1, 1]). The job holds a reference
// to the solver; the solver's state is overwritten. bytes_per_run is the minimal traffic of a
// step: stages x 4 state-sized arrays.
struct PlanJob {
  rtcg::tune::Job job;
  int stages_per_step = 5;
  double minimal_bytes_per_stage = 0;
  double useful_flops_per_stage = 0;  // 2 x components x (dim Np + Nfaces Nfp) per node
  std::shared_ptr<void> context;      // what the job's functions refer to
  bool graph_on_winner = false;       // Plan::graph tried on the winner only (PlanSpace::graph)
};
PlanJob make_plan_job(Solver& solver, const PlanSpace& space);

// The minimal traffic of a stage (4 state-sized arrays) and its useful flops (the derivative
// and lift products), for rates and rooflines.
double minimal_stage_bytes(const Solver& solver);
double useful_stage_flops(const Solver& solver);

// What a run uses and why.
struct PlanChoice {
  Plan plan;
  std::string source;  // e.g. "tuning database (exact match)", "tuned now: 24 variants in 8.1 s", "default (RTDG_TUNE=off)"
  std::optional<rtcg::tune::TuningResult> tuned;  // when it was measured now
};

// off: the default plan. auto: the database's entry for this solver (falling back to the
// nearest size class and the same architecture), else tuned now within budget_seconds and
// stored. force: tuned now and stored. The solver is left on the chosen plan; its state is
// overwritten when tuning ran (set it afterwards). A stored plan that no longer fits (e.g. a
// different device's shared memory) falls back to the default with a warning in `source`.
// `log`, when given, gets one line before a tuning starts (it can take the whole budget).
PlanChoice choose_plan(Solver& solver, rtcg::tune::TuneMode mode, rtcg::tune::TuningDb& db, double budget_seconds,
                       const PlanSpace& space, std::ostream* log = nullptr);

// The tuner's options for DG plans: small stack frames (math functions of incident fields)
// allowed, real spills dropped (except in plans with a register cap: capped_local_bytes);
// `budget_seconds` 0 for none.
rtcg::tune::TimingOptions plan_timing_options(double budget_seconds = 0);
// Local memory per thread a plan with a register cap (Plan::max_registers) may use and still be
// timed: the cap asks for spills, and only the timing says whether more blocks per SM pay for
// them (nvcc 13, sm_90, order 5 stencil in double: 96 registers and 40 bytes of stack; capped at
// 80, 96 bytes; at 64, 280).
inline constexpr std::size_t capped_local_bytes = 256;
// The register caps PlanSpace::derived_register_caps tries for a compiled plan whose stage
// kernel `stage` (its registers, threads, shared memory and blocks per SM, from the compiler and
// the occupancy calculator) runs on `device`: for 1 and 2 more blocks per SM than it fits now,
// the largest multiple of 8 registers per thread that fits them, where the registers are what
// limits the blocks (the device's threads, shared memory and block limits allow them) and that
// count is at least min_derived_cap and below the kernel's own. Empty where the device does not
// give its register file (the host). On the H100 (session 30) caps that gained blocks won where
// the uncapped plan held 96-106 registers: 16-row tensor plans at 64 (order 5: 1.981 to 1.529 ms
// per stage, 2 to 4 blocks per SM), the stencil at 80 (order 6: 3.770 to 2.875, 1 to 2).
std::vector<int> register_caps(const rtcg::DeviceInfo& device, const rtcg::tune::KernelUse& stage);
inline constexpr int min_derived_cap = 64;

// RTDG_TUNE_BUDGET: seconds a run may spend tuning its kernels at start (default 60); throws
// dg::Error for a value that is not a positive number.
double tune_budget_seconds();

// The variant table: plan, ms per step and per stage, GB/s against the minimal traffic,
// GFLOP/s of useful work, and status; the winner marked.
std::string format_plan_table(const rtcg::tune::TuningResult& result, const PlanJob& job);

}  // namespace rtdg::dg
