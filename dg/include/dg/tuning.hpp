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
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rtdg::dg {

// The values the tuner tries (dg/plan_schema.hpp says what each plan value does). Fused plans:
// every combination of the lists, limited to blocks of min_threads..max_threads threads and to
// what the device has (cp.async and pipelined groups from compute capability 8.0, TF32 products
// for float from 8.0, 16-row FP64 tiles and column tiles from 9.0, graphs on CUDA without halo
// faces); derivative = state only for laws with a linear flux; Bernstein plans where the law
// and the run take them. Unfused plans: one per layout, elements per block automatic. The
// default plan (unfused, field-major) is the reference and stays in every space. With `prune`,
// the rules of data/tuning/pruning.json for the device's architecture drop plans before they
// are compiled (`rtdg tune dg --explain` lists them).
struct PlanSpace {
  std::vector<Layout> layouts{Layout::field_major, Layout::element_major};
  bool unfused = true;  // unfused plans in each layout (the default plan is there regardless)
  std::vector<int> elements_per_block{1, 2, 4, 8, 16, 32, 64, 128};
  std::vector<int> nodes_per_thread{1, 2};
  // literals where D and LIFT are small enough (operators.literals_size), constant where asked
  // for (operators.constant prunes it), stencil for Bernstein plans of the state derivative.
  std::vector<Operators> operators{Operators::global, Operators::shared, Operators::literals, Operators::stencil};
  std::vector<Derivative> derivatives{Derivative::flux, Derivative::state};
  // tf32x3 only where asked for (`--space products=scalar,tensor,tf32x3`).
  std::vector<Products> products{Products::scalar, Products::tensor};
  std::vector<Prefetch> prefetch{Prefetch::off, Prefetch::on, Prefetch::async};
  std::vector<GeometryPlace> geometry{GeometryPlace::global, GeometryPlace::shared};
  std::vector<int> tile_rows{8, 16};
  std::vector<Directions> directions{Directions::joint, Directions::split};
  // Column-tile plans also get 2 where this lacks it (one row tile per item never suits them).
  std::vector<int> row_tiles{1};
  std::vector<int> k_unroll{0, 2};
  std::vector<int> k_ahead{0, 1};
  std::vector<int> groups_per_block{1, 2};
  std::vector<int> teams{1};
  std::vector<Connectivity> connectivity{Connectivity::nodes};
  // A value is tried only where it changes the node stride (and differs from a smaller value's).
  std::vector<int> align{0};
  std::vector<Tiles> tiles{Tiles::rows, Tiles::columns};
  std::vector<Basis> bases{Basis::nodal, Basis::bernstein};
  std::vector<int> face_threads{1, 2, 4};
  // A capped variant may spill up to capped_local_bytes per thread and still be timed.
  std::vector<int> max_registers{0};
  // `--space max_registers=auto`: on CUDA, once a fused one-team plan has compiled without a
  // cap, try the caps that would fit it 1 and 2 more blocks per SM where its registers are what
  // limit them (register_caps), instead of a fixed list on every plan.
  bool derived_register_caps = false;
  std::vector<bool> prefetch_update{true, false};
  // With prune on and the rule graph.winner_only, graph = on is timed on the sweep's winner only
  // (rtcg::tune::Job::refine); with prune off on every plan.
  std::vector<bool> graph{false, true};
  int min_threads = 64;
  int max_threads = 512;
  // Apply the pruning rules (`--space prune=off` checks every plan: the gpu tests do).
  bool prune = true;

  // The defaults above on CUDA; on host a small space (each variant is a C++ compile).
  static PlanSpace for_backend(rtcg::BackendKind kind);
};

// A command line's change to a space: "name=v1,v2,..." replaces that list, e.g. "groups=1,2,4",
// "tile_rows=8,16", "products=scalar,tensor,tf32x3", "elements=2,4". Names are the plan
// schema's keys (also "layouts", "derivatives" and "bases"), values as in plan texts
// (k_unroll=all,2, prefetch_update=on,off), "max_registers=auto" and "prune=on|off". Throws
// dg::Error naming what is wrong.
void set_space_values(PlanSpace& space, const std::string& text);
// The schema keys that have a PlanSpace list, and a list's values as the schema's ints.
std::vector<std::string> space_list_keys();
std::vector<int> space_values(const PlanSpace& space, const std::string& key);

// The tuning database's family name for DG plans.
inline constexpr const char* plan_family = "dg_stage";

// Plan <-> point of the search space: every tuned plan value of the schema under its key, with
// its int value (dg/plan_schema.hpp). A point without a value that is not required (stored
// before the value existed) reads as the value's default.
rtcg::tune::Point point_of(const Plan& plan);
Plan plan_of(const rtcg::tune::Point& point);

// The search space for this solver's law and element.
rtcg::tune::SearchSpace plan_search_space(const Solver& solver, const PlanSpace& space);

// Thread blocks of `threads` threads and `shared_bytes` of dynamic shared memory each that fit
// on one SM by the device's limits on threads, blocks and shared memory (registers are known
// only after compiling and are not counted); 0 when the device does not give those limits
// (the host backend).
int blocks_per_multiprocessor(const rtcg::DeviceInfo& device, int threads, std::size_t shared_bytes);

// A rule that drops plans before they are compiled, on the architectures it lists: an entry of
// data/tuning/pruning.json. The code decides which plans a rule's name covers (the *_pruned
// functions below); the table decides where it applies and with which parameters, and records
// the measurements it rests on.
struct PruningRule {
  struct Evidence {
    std::string device, date, results, commit;  // results: a file in benchmarks/results at that commit
  };
  std::string name;     // e.g. "tiling.k_unroll"
  std::string drops;    // which plans, in words
  std::string finding;  // what the measurement showed
  std::vector<std::string> architectures;  // "sm_90", as architecture_of names them
  std::map<std::string, double> parameters;
  std::vector<Evidence> rests_on;
  double parameter(const std::string& key) const;  // throws dg::Error naming the rule when absent
};
struct PruningRules {
  std::vector<PruningRule> rules;
  std::string source;  // where the table came from
  // The rule named `name` if it applies on the device's architecture, else nullptr.
  const PruningRule* find(std::string_view name, const rtcg::DeviceInfo& device) const;
};
// "sm_90" for a CUDA device of compute capability 9.0, "host" for the host backend.
std::string architecture_of(const rtcg::DeviceInfo& device);
// Throws dg::Error naming `source` and the rule for a table that does not parse.
PruningRules parse_pruning_rules(const std::string& json, const std::string& source);
// The table built from data/tuning/pruning.json, or the file RTDG_PRUNING_RULES names.
const PruningRules& pruning_rules();
// The rule that dropped a variant ("tiling.k_unroll"), read from its reason as the *_pruned
// functions below write it ("... (rule <name>: ..."); "" for a variant not pruned by a rule.
std::string pruning_rule_of(const rtcg::tune::Timing& timing);

// Plans rtdg measured on the devices named in data/tuning/measured/*.json (tuning database
// documents, winners only, built into the library; docs/tuning.md), consulted by choose_plan
// after the user's database and before tuning, so that a first run on such a device starts at
// once. `configs` maps each template hash to the config it was measured with, which lets a
// test recompute the hash and notice records a changed generator no longer reaches.
struct MeasuredTuning {
  std::string source;  // "data/tuning/measured (built in)", or the file RTDG_MEASURED_TUNING names
  std::vector<rtcg::tune::TuningRecord> records;
  std::map<std::string, std::string> configs;  // template hash -> config file, relative to the repository
};
// One document (the tuning database's format plus "measured" and "configs"); throws
// dg::Error naming `source` for one that does not parse or whose records are not DG plans.
MeasuredTuning parse_measured_tuning(const std::string& json, const std::string& source);
// The built-in documents; RTDG_MEASURED_TUNING=off gives none, =<file> that file instead.
const MeasuredTuning& measured_tuning();
// The lookup's fallback chain over `measured`'s records of a device with the same backend and
// name as `device` (another model of the same architecture has other limits and other
// winners, and is better served by tuning).
rtcg::tune::Lookup measured_lookup(const MeasuredTuning& measured, const rtcg::tune::DeviceFingerprint& device,
                                   const std::string& template_hash, const rtcg::tune::ProblemClass& problem);

// Why a plan is dropped before compiling on `device`, or "" when it is not: each names the
// rule that applied and the measurement it rests on. Rules that do not list the device's
// architecture drop nothing; on the host none do.
//   pipelining_pruned: pipelined groups (groups > 1) that fit fewer blocks per SM than one group
//   prefetch_pruned: where async is tried (`async_tried`), plans without prefetch and scalar
//     ones with prefetch = on and one group
//   tiling_pruned: tensor-product tilings (16-row tiles' block sizes, k_unroll, k_ahead,
//     column tiles), `single` for float
//   operators_pruned: operators in constant memory, and literal nodal operators above a count
//     of non-zero entries of D and LIFT (`operator_nonzeros`)
//   basis_pruned: Bernstein plans other than the stencil plans of the rules, at `order` on an
//     element of `faces` faces
//   update_pruned: the update input read late other than in the stencil plans
std::string pipelining_pruned(const KernelSpec& spec, const rtcg::DeviceInfo& device);
// The same with the pipelined plan's kernels already generated (the tuner's generator has them).
std::string pipelining_pruned(const KernelSpec& spec, const GeneratedKernels& pipelined, const rtcg::DeviceInfo& device);
std::string prefetch_pruned(const Plan& plan, const rtcg::DeviceInfo& device, bool async_tried);
std::string tiling_pruned(const Plan& plan, const rtcg::DeviceInfo& device, bool single);
std::string operators_pruned(const Plan& plan, long long operator_nonzeros, const rtcg::DeviceInfo& device,
                             bool single);
std::string basis_pruned(const Plan& plan, int order, int faces, const rtcg::DeviceInfo& device);
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
// nearest size class and the same architecture), else the measured tuning's entry for a
// device of the same name (measured_tuning()), else tuned now within budget_seconds and
// stored. force: tuned now and stored. The solver is left on the chosen plan; its state is
// overwritten when tuning ran (set it afterwards). A stored plan that no longer fits (e.g. a
// different device's shared memory) falls back to the default with a warning in `source`.
// `log`, when given, gets one line before a tuning starts (it can take the whole budget).
// `measured`: the measured tuning consulted (nullptr: measured_tuning()).
PlanChoice choose_plan(Solver& solver, rtcg::tune::TuneMode mode, rtcg::tune::TuningDb& db, double budget_seconds,
                       const PlanSpace& space, std::ostream* log = nullptr, const MeasuredTuning* measured = nullptr);

// The tuner's options for DG plans: small stack frames (math functions of incident fields)
// allowed, real spills dropped (except in plans with a register cap: capped_local_bytes);
// `budget_seconds` 0 for none.
rtcg::tune::TimingOptions plan_timing_options(double budget_seconds = 0);
// Local memory per thread a plan with a register cap (Plan::max_registers) may use and still be
// timed: the cap asks for spills, and only the timing says whether more blocks per SM pay for
// them.
inline constexpr std::size_t capped_local_bytes = 256;
// The register caps PlanSpace::derived_register_caps tries for a compiled plan whose stage
// kernel `stage` (its registers, threads, shared memory and blocks per SM, from the compiler and
// the occupancy calculator) runs on `device`: for 1 and 2 more blocks per SM than it fits now,
// the largest multiple of 8 registers per thread that fits them, where the registers are what
// limits the blocks (the device's threads, shared memory and block limits allow them) and that
// count is at least min_derived_cap and below the kernel's own. Empty where the device does not
// give its register file (the host).
std::vector<int> register_caps(const rtcg::DeviceInfo& device, const rtcg::tune::KernelUse& stage);
inline constexpr int min_derived_cap = 64;

// RTDG_TUNE_BUDGET: seconds a run may spend tuning its kernels at start (default 60); throws
// dg::Error for a value that is not a positive number.
double tune_budget_seconds();

// The variant table: plan, ms per step and per stage, GB/s against the minimal traffic,
// GFLOP/s of useful work, and status; the winner marked.
std::string format_plan_table(const rtcg::tune::TuningResult& result, const PlanJob& job);

}  // namespace rtdg::dg
