// Every plan value computes the default plan's answer (host backend): the fused stage kernel
// with each layout, blocking, slicing, operator place and derivative, against the unfused
// default plan, for the right-hand side and for whole LSERK4 and SSP-RK3 steps; the plan's
// text names and the refusal of derivative = state for a nonlinear flux.
#include "solver_support.hpp"

#include <dg/error.hpp>
#include <dg/plan.hpp>
#include <rtcg/backend.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>

namespace rtdg::dg {
namespace {

using test::Cavity;

rtcg::Backend& host() { return rtcg::backend("host"); }

using test::max_abs;
using test::max_difference;

std::vector<double> random_state(std::size_t n) { return test::random_state(n, 7); }

using test::fused_plan;

// Plans that between them take every value of every fused-plan field.
std::vector<Plan> fused_plans() {
  return {fused_plan(Layout::field_major, 0, 1, Operators::global, Derivative::flux),
          fused_plan(Layout::element_major, 3, 2, Operators::shared, Derivative::flux),
          fused_plan(Layout::field_major, 2, 3, Operators::shared, Derivative::state),
          fused_plan(Layout::element_major, 1, 4, Operators::global, Derivative::state),
          // Tensor products (the host runs the padded fragment products as loops): columns
          // not a multiple of 8 (3 elements), a partial last block, both derivatives.
          fused_plan(Layout::field_major, 3, 1, Operators::global, Derivative::flux, Products::tensor),
          fused_plan(Layout::element_major, 4, 1, Operators::global, Derivative::state, Products::tensor),
          // Prefetched traces (and update inputs, with tensor products).
          fused_plan(Layout::element_major, 3, 2, Operators::global, Derivative::flux, Products::scalar, Prefetch::on),
          fused_plan(Layout::field_major, 3, 1, Operators::global, Derivative::flux, Products::tensor, Prefetch::on),
          fused_plan(Layout::element_major, 2, 1, Operators::global, Derivative::state, Products::tensor, Prefetch::on),
          // Prefetch async (the state, traces and geometry copied into shared memory, the
          // geometry read there): scalar and tensor products, both derivatives, split
          // directions, partial last blocks (3 and 5 elements).
          // Geometry read from global memory or from the block's copy in shared memory.
          fused_plan(Layout::field_major, 3, 2, Operators::shared, Derivative::flux, Products::scalar, Prefetch::async),
          [] {
            Plan plan = fused_plan(Layout::element_major, 3, 1, Operators::global, Derivative::state, Products::scalar, Prefetch::async);
            plan.geometry = GeometryPlace::shared;
            return plan;
          }(),
          fused_plan(Layout::element_major, 5, 1, Operators::global, Derivative::flux, Products::tensor, Prefetch::async),
          [] {
            Plan plan = fused_plan(Layout::element_major, 5, 1, Operators::global, Derivative::flux, Products::tensor, Prefetch::async);
            plan.geometry = GeometryPlace::shared;
            return plan;
          }(),
          [] {
            Plan plan = fused_plan(Layout::field_major, 4, 1, Operators::global, Derivative::state, Products::tensor, Prefetch::async);
            plan.geometry = GeometryPlace::shared;
            return plan;
          }(),
          [] {
            Plan plan = fused_plan(Layout::element_major, 3, 1, Operators::global, Derivative::flux, Products::tensor, Prefetch::async);
            plan.directions = Directions::split;
            plan.geometry = GeometryPlace::shared;
            return plan;
          }(),
          // Face connectivity (one word per face for vmapP): the neighbour read in the face
          // fluxes (no prefetch), gathered with the state (on), copied (async, both geometries).
          [] {
            Plan plan = fused_plan(Layout::field_major, 3, 1, Operators::global, Derivative::flux);
            plan.connectivity = Connectivity::faces;
            return plan;
          }(),
          [] {
            Plan plan = fused_plan(Layout::element_major, 2, 2, Operators::global, Derivative::state, Products::scalar, Prefetch::on);
            plan.connectivity = Connectivity::faces;
            return plan;
          }(),
          [] {
            Plan plan = fused_plan(Layout::element_major, 5, 1, Operators::global, Derivative::flux, Products::tensor, Prefetch::async);
            plan.connectivity = Connectivity::faces;
            return plan;
          }(),
          [] {
            Plan plan = fused_plan(Layout::element_major, 3, 1, Operators::global, Derivative::state, Products::tensor, Prefetch::async);
            plan.geometry = GeometryPlace::shared;
            plan.connectivity = Connectivity::faces;
            return plan;
          }(),
          // State columns padded (Plan::align; 2D order 4: Np = 15 -> 16, 3D order 3: Np = 20
          // -> 24 or 32): the copies of whole padded columns 16 bytes at a time into sq (2D;
          // sq's column of 20 rows holds 16), one real at a time where the stride is longer
          // than sq's column (3D, 64 bytes), scalar and tensor products, each prefetch, both
          // layouts, with face connectivity.
          [] {
            Plan plan = fused_plan(Layout::element_major, 3, 1, Operators::global, Derivative::state, Products::tensor,
                              Prefetch::async);
            plan.align = 16;
            return plan;
          }(),
          [] {
            Plan plan = fused_plan(Layout::element_major, 5, 1, Operators::global, Derivative::flux, Products::tensor, Prefetch::async);
            plan.directions = Directions::split;
            plan.geometry = GeometryPlace::shared;
            plan.align = 64;
            return plan;
          }(),
          [] {
            Plan plan = fused_plan(Layout::field_major, 3, 1, Operators::global, Derivative::flux);
            plan.align = 128;
            return plan;
          }(),
          [] {
            Plan plan = fused_plan(Layout::element_major, 2, 2, Operators::global, Derivative::state, Products::scalar, Prefetch::on);
            plan.align = 32;
            return plan;
          }(),
          [] {
            Plan plan = fused_plan(Layout::element_major, 3, 1, Operators::global, Derivative::state, Products::tensor,
                              Prefetch::async);
            plan.geometry = GeometryPlace::shared;
            plan.connectivity = Connectivity::faces;
            plan.align = 64;
            return plan;
          }(),
          // 16-row tiles (on sm_90 the m16n8k16/m16n8k4 path; the output columns are padded
          // to 16 rows), both derivatives, one with the tile outputs held in registers.
          [] {
            Plan plan = fused_plan(Layout::field_major, 5, 1, Operators::global, Derivative::flux, Products::tensor, Prefetch::on);
            plan.tile_rows = 16;
            return plan;
          }(),
          [] {
            Plan plan = fused_plan(Layout::element_major, 3, 1, Operators::global, Derivative::state, Products::tensor);
            plan.tile_rows = 16;
            return plan;
          }(),
          // Column tiles (the block's columns padded to 16: 3 elements of 3 or 6 components
          // leave padding columns), each product path: state, joint flux with held tiles, split
          // directions, with a set k unrolling and prefetch async; a last partial row item.
          [] {
            Plan plan = fused_plan(Layout::element_major, 3, 1, Operators::global, Derivative::state, Products::tensor,
                              Prefetch::async);
            plan.tiles = Tiles::columns;
            plan.row_tiles = 2;
            return plan;
          }(),
          [] {
            Plan plan = fused_plan(Layout::field_major, 3, 1, Operators::global, Derivative::flux, Products::tensor, Prefetch::on);
            plan.tiles = Tiles::columns;
            plan.row_tiles = 3;
            return plan;
          }(),
          [] {
            Plan plan = fused_plan(Layout::element_major, 8, 1, Operators::global, Derivative::flux, Products::tensor,
                              Prefetch::async);
            plan.tiles = Tiles::columns;
            plan.directions = Directions::split;
            plan.row_tiles = 2;
            plan.k_unroll = 2;
            return plan;
          }(),
          // Directions split (G_a one at a time, windows of [-D_r, -D_s, -D_t] that start
          // inside a fragment when Np is not a multiple of 4): padded columns and a partial
          // last block, 16-row tiles with prefetch.
          [] {
            Plan plan = fused_plan(Layout::field_major, 3, 1, Operators::global, Derivative::flux, Products::tensor);
            plan.directions = Directions::split;
            return plan;
          }(),
          [] {
            Plan plan = fused_plan(Layout::element_major, 5, 1, Operators::global, Derivative::flux, Products::tensor, Prefetch::on);
            plan.tile_rows = 16;
            plan.directions = Directions::split;
            return plan;
          }(),
          // Pipelined element groups (the next group's loads during this one): scalar and
          // tensor products, both derivatives, split directions; partial last groups and
          // blocks with fewer groups than the plan's.
          [] {
            Plan plan = fused_plan(Layout::field_major, 4, 2, Operators::shared, Derivative::flux, Products::scalar, Prefetch::on);
            plan.groups_per_block = 3;
            return plan;
          }(),
          [] {
            Plan plan = fused_plan(Layout::element_major, 3, 1, Operators::global, Derivative::state, Products::tensor, Prefetch::on);
            plan.groups_per_block = 4;
            return plan;
          }(),
          [] {
            Plan plan = fused_plan(Layout::element_major, 5, 1, Operators::global, Derivative::flux, Products::tensor, Prefetch::on);
            plan.directions = Directions::split;
            plan.groups_per_block = 2;
            return plan;
          }(),
          // Several operator row tiles per warp item (a last partial item where the row tiles
          // are not a multiple): each product path (state, joint flux, split flux, pipelined).
          [] {
            Plan plan = fused_plan(Layout::field_major, 3, 1, Operators::global, Derivative::state, Products::tensor);
            plan.row_tiles = 2;
            return plan;
          }(),
          [] {
            Plan plan = fused_plan(Layout::element_major, 4, 1, Operators::global, Derivative::flux, Products::tensor, Prefetch::on);
            plan.row_tiles = 3;
            return plan;
          }(),
          [] {
            Plan plan = fused_plan(Layout::element_major, 3, 1, Operators::global, Derivative::flux, Products::tensor, Prefetch::on);
            plan.directions = Directions::split;
            plan.row_tiles = 2;
            plan.groups_per_block = 2;
            return plan;
          }(),
          // The products' k loops unrolled a set number of steps (on the host the products are
          // loops either way; the GPU test checks the CUDA code).
          [] {
            Plan plan = fused_plan(Layout::element_major, 4, 1, Operators::global, Derivative::flux, Products::tensor, Prefetch::on);
            plan.directions = Directions::split;
            plan.k_unroll = 2;
            return plan;
          }(),
          // The same with the next k step's fragments loaded ahead, 16-row tiles of the state.
          [] {
            Plan plan = fused_plan(Layout::element_major, 4, 1, Operators::global, Derivative::state, Products::tensor,
                              Prefetch::async);
            plan.tile_rows = 16;
            plan.k_unroll = 2;
            plan.k_ahead = 1;
            return plan;
          }(),
          // Teams sharing the block's copy of the fragments (operators = shared): both
          // derivatives, joint and split directions, one group per team (blocks whose last
          // teams have no elements), groups in turn and pipelined; one team alone with its
          // copy; scalar products in teams (each team its own copy of D and LIFT).
          [] {
            Plan plan = fused_plan(Layout::field_major, 3, 1, Operators::shared, Derivative::flux, Products::tensor);
            plan.teams = 3;
            return plan;
          }(),
          [] {
            Plan plan = fused_plan(Layout::element_major, 2, 1, Operators::shared, Derivative::state, Products::tensor);
            plan.tile_rows = 16;
            plan.teams = 2;
            plan.groups_per_block = 3;
            return plan;
          }(),
          [] {
            Plan plan = fused_plan(Layout::element_major, 3, 1, Operators::shared, Derivative::flux, Products::tensor, Prefetch::on);
            plan.directions = Directions::split;
            plan.teams = 2;
            plan.groups_per_block = 2;
            return plan;
          }(),
          [] {
            Plan plan = fused_plan(Layout::element_major, 4, 1, Operators::shared, Derivative::flux, Products::tensor, Prefetch::on);
            plan.groups_per_block = 3;
            return plan;
          }(),
          [] {
            Plan plan = fused_plan(Layout::field_major, 2, 2, Operators::shared, Derivative::state);
            plan.teams = 3;
            plan.groups_per_block = 2;
            return plan;
          }(),
          // Products by column with the operators in constant memory or as literals (zero
          // entries dropped): both derivatives, each prefetch, pipelined groups, a partial last
          // block (3 elements per block).
          fused_plan(Layout::field_major, 3, 1, Operators::literals, Derivative::flux),
          fused_plan(Layout::element_major, 4, 1, Operators::literals, Derivative::state, Products::scalar, Prefetch::async),
          fused_plan(Layout::element_major, 3, 1, Operators::constant, Derivative::flux, Products::scalar, Prefetch::on),
          fused_plan(Layout::field_major, 2, 1, Operators::constant, Derivative::state),
          [] {
            Plan plan = fused_plan(Layout::element_major, 3, 1, Operators::literals, Derivative::state, Products::scalar,
                              Prefetch::on);
            plan.groups_per_block = 2;
            return plan;
          }(),
          // A register cap (CUDA's __maxnreg__; the host compiles the same source without it).
          [] {
            Plan plan = fused_plan(Layout::element_major, 4, 1, Operators::global, Derivative::flux, Products::tensor,
                              Prefetch::async);
            plan.max_registers = 64;
            return plan;
          }(),
          // The update input read where the update needs it (Plan::prefetch_update), pipelined groups.
          [] {
            Plan plan = fused_plan(Layout::element_major, 3, 1, Operators::global, Derivative::state, Products::tensor,
                              Prefetch::on);
            plan.groups_per_block = 2;
            plan.prefetch_update = false;
            return plan;
          }()};
}

struct PlanCase {
  const char* law;
  int n;  // elements per side of the cavity
  int N;
};

class PlanAgreement : public ::testing::TestWithParam<PlanCase> {};

TEST_P(PlanAgreement, RightHandSideAndStepsMatchTheDefaultPlan) {
  const PlanCase c = GetParam();
  for (const Integrator integrator : {Integrator::lserk4, Integrator::ssprk3}) {
    Cavity reference(c.law, c.n, c.N, host(), 1.0, fluxes::ScalarType::float64, integrator);
    const std::vector<double> start = random_state(reference.solver->size());
    reference.solver->set_state(start);
    const std::vector<double> rhs = reference.solver->rhs(0.25);
    const double dt = reference.solver->stable_dt(0.5);
    reference.solver->step(0.25, dt);
    reference.solver->step(0.25 + dt, dt);
    const std::vector<double> after = reference.solver->state();
    std::vector<double> change = after;
    for (std::size_t i = 0; i < change.size(); ++i) change[i] -= start[i];

    for (const Plan& plan : fused_plans()) {
      SCOPED_TRACE(plan.describe() + ", " + to_string(integrator));
      Cavity other(c.law, c.n, c.N, host(), 1.0, fluxes::ScalarType::float64, integrator, plan);
      other.solver->set_state(start);
      EXPECT_LE(max_difference(other.solver->rhs(0.25), rhs), 1e-12 * max_abs(rhs));
      other.solver->set_state(start);  // rhs() leaves the state alone, but be explicit
      other.solver->step(0.25, dt);
      other.solver->step(0.25 + dt, dt);
      std::vector<double> other_change = other.solver->state();
      for (std::size_t i = 0; i < other_change.size(); ++i) other_change[i] -= start[i];
      EXPECT_LE(max_difference(other_change, change), 1e-11 * max_abs(change));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Cavities, PlanAgreement,
                         ::testing::Values(PlanCase{"maxwell2d_tm", 3, 4}, PlanCase{"maxwell3d", 2, 3}),
                         [](const auto& p) { return std::string(p.param.law); });

// set_plan switches kernels and layout in place: the state survives and the answers agree.
TEST(SolverPlans, SetPlanKeepsTheStateAcrossLayouts) {
  Cavity a("maxwell3d", 2, 2, host());
  const std::vector<double> start = random_state(a.solver->size());
  a.solver->set_state(start);
  const std::vector<double> rhs = a.solver->rhs(0.0);
  a.solver->set_plan(fused_plan(Layout::element_major, 2, 2, Operators::shared, Derivative::state));
  EXPECT_EQ(max_difference(a.solver->state(), start), 0.0);
  EXPECT_LE(max_difference(a.solver->rhs(0.0), rhs), 1e-12 * max_abs(rhs));
  a.solver->set_plan(Plan{});
  EXPECT_EQ(max_difference(a.solver->state(), start), 0.0);
}

// A padded node stride (Plan::align): set_plan moves the state into it and back, the device
// state has value (c, k, i) at device_index and zeros in the padding after steps of both
// integrators, and copy_elements, the wave speed, kept states and changes see the same state
// as with the default plan.
TEST(SolverPlans, PaddedNodeStride) {
  for (const Integrator integrator : {Integrator::lserk4, Integrator::ssprk3}) {
    SCOPED_TRACE(to_string(integrator));
    Cavity a("maxwell2d_tm", 3, 4, host(), 1.0, fluxes::ScalarType::float64, integrator);  // Np = 15
    const int K = a.disc.K, Np = a.disc.element.Np, C = a.solver->components();
    ASSERT_EQ(Np, 15);
    const std::vector<double> start = random_state(a.solver->size());
    a.solver->set_state(start);
    const std::vector<double> rhs = a.solver->rhs(0.0);
    const double speed = a.solver->max_wave_speed();
    const double dt = a.solver->stable_dt(0.5);
    // The default plan's change over two steps, kept on the device for compare_change.
    a.solver->keep_state();
    a.solver->step(0.0, dt);
    a.solver->step(dt, dt);
    const std::vector<double> after = a.solver->state();
    a.solver->keep_change();
    a.solver->restore_kept_state();

    Plan padded = fused_plan(Layout::element_major, 3, 1, Operators::global, Derivative::state, Products::tensor, Prefetch::async);
    padded.align = 16;
    a.solver->set_plan(padded);
    EXPECT_EQ(max_difference(a.solver->state(), start), 0.0);
    EXPECT_LE(max_difference(a.solver->rhs(0.0), rhs), 1e-12 * max_abs(rhs));
    EXPECT_EQ(a.solver->max_wave_speed(), speed);
    a.solver->restore_kept_state();  // the kept state, moved to the padded layout
    a.solver->step(0.0, dt);
    a.solver->step(dt, dt);
    const Solver::ChangeDifference difference = a.solver->compare_change();
    EXPECT_LE(difference.worst, 1e-11 * difference.scale);
    EXPECT_GT(difference.scale, 0.0);

    // (a B + b) C + c, in 64 bits.
    auto flat = [](long long a_, long long B, long long b, long long C_, long long c) {
      return static_cast<std::size_t>((a_ * B + b) * C_ + c);
    };
    const Solver::DeviceState q = a.solver->device_state();
    ASSERT_EQ(q.size, static_cast<std::size_t>(C * K * 16));
    const double* device = static_cast<const double*>(q.data);  // host backend: host memory
    const std::vector<double> state = a.solver->state();
    EXPECT_LE(max_difference(state, after), 1e-11 * max_abs(after));
    int mismatched = 0, padding_nonzero = 0;
    for (int c = 0; c < C; ++c)
      for (int k = 0; k < K; ++k) {
        for (int i = 0; i < Np; ++i)
          mismatched += device[a.solver->device_index(c, k, i)] != state[flat(c, K, k, Np, i)];
        EXPECT_EQ(a.solver->device_index(c, k, 0), flat(k, C, c, 16, 0));
        padding_nonzero += device[flat(k, C, c, 16, 15)] != 0.0;
      }
    EXPECT_EQ(mismatched, 0);
    EXPECT_EQ(padding_nonzero, 0);
    std::vector<double> some(a.solver->size(), -1.0);
    a.solver->copy_elements(std::vector<int>{0, K - 1}, some);
    for (int c = 0; c < C; ++c)
      for (const int k : {0, K - 1})
        for (int i = 0; i < Np; ++i) {
          const std::size_t at = flat(c, K, k, Np, i);
          EXPECT_EQ(some[at], state[at]);
        }
    EXPECT_EQ(some[static_cast<std::size_t>(Np)], -1.0);  // element 1, not asked for

    a.solver->set_plan(Plan{});
    EXPECT_EQ(max_difference(a.solver->state(), state), 0.0);
    EXPECT_EQ(a.solver->device_state().size, a.solver->size());
  }
}

// copy_elements (probes) reads the asked elements' current values whatever it was asked before:
// the packed ranges and their offsets kept on the device between calls must follow the element
// set, the state after a step, and the layout and basis after set_plan.
TEST(SolverPlans, CopyElementsFollowsTheElementsTheStateTheLayoutAndTheBasis) {
  Cavity a("maxwell2d_tm", 3, 2, host());
  const int K = a.disc.K, Np = a.disc.element.Np, C = a.solver->components();
  a.solver->set_state(random_state(a.solver->size()));
  auto check = [&](const std::vector<int>& elements) {
    SCOPED_TRACE(::testing::PrintToString(elements));
    const std::vector<double> state = a.solver->state();
    std::vector<double> some(a.solver->size(), -1.0);
    a.solver->copy_elements(elements, some);
    int wrong = 0, asked = 0;
    for (int c = 0; c < C; ++c)
      for (int k = 0; k < K; ++k) {
        const bool wanted = std::find(elements.begin(), elements.end(), k) != elements.end();
        asked += wanted;
        for (int i = 0; i < Np; ++i) {
          const std::size_t at = (static_cast<std::size_t>(c) * static_cast<std::size_t>(K) + static_cast<std::size_t>(k)) *
                                     static_cast<std::size_t>(Np) + static_cast<std::size_t>(i);
          wrong += some[at] != (wanted ? state[at] : -1.0);
        }
      }
    EXPECT_EQ(wrong, 0);
    EXPECT_EQ(asked, C * static_cast<int>(elements.size()));
  };
  check({3, 0});
  check({K - 1, 2, 5});
  a.solver->step(0.0, a.solver->stable_dt(0.5));
  check({3, 0});
  a.solver->set_plan(fused_plan(Layout::element_major, 2, 1, Operators::global, Derivative::state));
  check({3, 0});
  check({1});
  // A Bernstein plan: the asked columns converted to nodal values as state() converts them all.
  Plan bernstein = fused_plan(Layout::element_major, 2, 1, Operators::global, Derivative::state);
  bernstein.basis = Basis::bernstein;
  a.solver->set_plan(bernstein);
  check({1});
  check({K - 1, 4});
}

TEST(SolverPlans, DescribeAndParseNames) {
  EXPECT_EQ(parse_fusion("stage"), Fusion::stage);
  EXPECT_EQ(parse_operators("shared"), Operators::shared);
  EXPECT_EQ(parse_derivative("state"), Derivative::state);
  EXPECT_EQ(parse_layout("element_major"), Layout::element_major);
  try {
    parse_fusion("kernel");
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_STREQ(error.what(), "unknown fusion 'kernel'; valid values: none, stage");
  }
  const Plan plan = fused_plan(Layout::element_major, 4, 2, Operators::shared, Derivative::state);
  EXPECT_EQ(plan.describe(),
            "fused stage, element_major, 4 elements/block, 2 nodes/thread, operators shared, derivative of the state");
  EXPECT_EQ(parse_prefetch("on"), Prefetch::on);
  EXPECT_EQ(parse_prefetch("async"), Prefetch::async);
  const Plan prefetching = fused_plan(Layout::field_major, 4, 1, Operators::global, Derivative::flux, Products::tensor, Prefetch::on);
  EXPECT_EQ(prefetching.describe(),
            "fused stage, field_major, 4 elements/block, 1 nodes/thread, operators global, derivative of the flux, tensor "
            "cores, prefetch");
  EXPECT_EQ(to_text(prefetching), "fusion=stage layout=field_major elements=4 nodes_per_thread=1 operators=global "
                                  "derivative=flux products=tensor prefetch=on tile_rows=8 directions=joint row_tiles=1 "
                                  "k_unroll=all k_ahead=0 groups=1 teams=1 geometry=global connectivity=nodes align=0 tiles=rows");
  EXPECT_EQ(plan_from_text(to_text(prefetching)), prefetching);
  Plan copying = prefetching;
  copying.prefetch = Prefetch::async;
  copying.directions = Directions::split;
  copying.geometry = GeometryPlace::shared;
  EXPECT_EQ(copying.describe(),
            "fused stage, field_major, 4 elements/block, 1 nodes/thread, operators global, derivative of "
            "the flux, tensor cores, prefetch async, directions split, geometry shared");
  EXPECT_NE(to_text(copying).find(" prefetch=async "), std::string::npos) << to_text(copying);
  EXPECT_NE(to_text(copying).find(" teams=1 geometry=shared"), std::string::npos) << to_text(copying);
  EXPECT_EQ(plan_from_text(to_text(copying)), copying);
  EXPECT_EQ(parse_geometry("shared"), GeometryPlace::shared);
  Plan compressed = copying;
  compressed.connectivity = Connectivity::faces;
  EXPECT_EQ(compressed.describe(),
            "fused stage, field_major, 4 elements/block, 1 nodes/thread, operators global, derivative of "
            "the flux, tensor cores, prefetch async, directions split, geometry shared, face connectivity");
  EXPECT_NE(to_text(compressed).find(" geometry=shared connectivity=faces"), std::string::npos) << to_text(compressed);
  EXPECT_EQ(plan_from_text(to_text(compressed)), compressed);
  EXPECT_EQ(parse_connectivity("faces"), Connectivity::faces);
  EXPECT_THROW((void)parse_connectivity("edges"), Error);
  Plan aligned = compressed;
  aligned.align = 16;
  EXPECT_EQ(aligned.describe(),
            "fused stage, field_major, 4 elements/block, 1 nodes/thread, operators global, derivative of "
            "the flux, tensor cores, prefetch async, directions split, geometry shared, face connectivity, "
            "columns aligned to 16 bytes");
  EXPECT_NE(to_text(aligned).find(" connectivity=faces align=16"), std::string::npos) << to_text(aligned);
  EXPECT_EQ(plan_from_text(to_text(aligned)), aligned);
  // Texts written before align= existed are not padded; align takes 0 or powers of two 8..128.
  EXPECT_EQ(plan_from_text("fusion=stage layout=field_major elements=4 nodes_per_thread=1 operators=global "
                           "derivative=flux connectivity=faces").align,
            0);
  for (const char* bad : {"align=24", "align=4", "align=256", "align=-8"}) {
    try {
      (void)plan_from_text(std::string("fusion=stage layout=field_major elements=4 nodes_per_thread=1 operators=global "
                                       "derivative=flux ") + bad);
      FAIL() << bad << ": no error";
    } catch (const Error& error) {
      EXPECT_NE(std::string(error.what()).find(bad), std::string::npos) << error.what();
    }
  }
  // The node stride: Np for unfused plans and align 0 or at most a real, else Np rounded up.
  Plan unfused_aligned;
  unfused_aligned.align = 16;
  EXPECT_EQ(node_stride(unfused_aligned, 35, 8), 35);
  aligned.align = 8;
  EXPECT_EQ(node_stride(aligned, 35, 8), 35);
  EXPECT_EQ(node_stride(aligned, 35, 4), 36);
  aligned.align = 16;
  EXPECT_EQ(node_stride(aligned, 35, 8), 36);
  EXPECT_EQ(node_stride(aligned, 10, 8), 10);
  EXPECT_EQ(node_stride(aligned, 10, 4), 12);
  aligned.align = 128;
  EXPECT_EQ(node_stride(aligned, 35, 8), 48);
  EXPECT_EQ(node_stride(aligned, 120, 4), 128);
  // Texts written before connectivity= existed read vmapP.
  EXPECT_EQ(plan_from_text("fusion=stage layout=field_major elements=4 nodes_per_thread=1 operators=global "
                           "derivative=flux products=tensor prefetch=async geometry=shared").connectivity,
            Connectivity::nodes);
  // Texts written before geometry= existed read the geometry from global memory.
  EXPECT_EQ(plan_from_text("fusion=stage layout=field_major elements=4 nodes_per_thread=1 operators=global "
                           "derivative=flux products=tensor prefetch=async").geometry,
            GeometryPlace::global);
  Plan tall = prefetching;
  tall.tile_rows = 16;
  EXPECT_EQ(tall.describe(),
            "fused stage, field_major, 4 elements/block, 1 nodes/thread, operators global, derivative of "
            "the flux, tensor cores, prefetch, 16-row tiles");
  EXPECT_EQ(plan_from_text(to_text(tall)), tall);
  Plan split = tall;
  split.directions = Directions::split;
  EXPECT_EQ(split.describe(),
            "fused stage, field_major, 4 elements/block, 1 nodes/thread, operators global, derivative of "
            "the flux, tensor cores, prefetch, 16-row tiles, directions split");
  EXPECT_EQ(plan_from_text(to_text(split)), split);
  Plan tf32 = split;
  tf32.products = Products::tf32x3;
  EXPECT_EQ(tf32.describe(),
            "fused stage, field_major, 4 elements/block, 1 nodes/thread, operators global, derivative of "
            "the flux, TF32 tensor cores (3 products), prefetch, 16-row tiles, directions split");
  EXPECT_EQ(to_text(tf32), "fusion=stage layout=field_major elements=4 nodes_per_thread=1 operators=global "
                           "derivative=flux products=tf32x3 prefetch=on tile_rows=16 directions=split row_tiles=1 "
                           "k_unroll=all k_ahead=0 groups=1 teams=1 geometry=global connectivity=nodes align=0 tiles=rows");
  EXPECT_EQ(plan_from_text(to_text(tf32)), tf32);
  Plan pipelined = split;
  pipelined.groups_per_block = 4;
  EXPECT_EQ(pipelined.describe(),
            "fused stage, field_major, 4 elements/block, 1 nodes/thread, operators global, derivative of "
            "the flux, tensor cores, prefetch, 16-row tiles, directions split, 4 groups/block pipelined");
  EXPECT_EQ(plan_from_text(to_text(pipelined)), pipelined);
  Plan blocked = pipelined;
  blocked.row_tiles = 2;
  EXPECT_EQ(blocked.describe(),
            "fused stage, field_major, 4 elements/block, 1 nodes/thread, operators global, derivative of "
            "the flux, tensor cores, prefetch, 16-row tiles, directions split, 2 row tiles/warp, 4 "
            "groups/block pipelined");
  EXPECT_EQ(plan_from_text(to_text(blocked)), blocked);
  Plan unrolled = blocked;
  unrolled.k_unroll = 2;
  EXPECT_EQ(unrolled.describe(),
            "fused stage, field_major, 4 elements/block, 1 nodes/thread, operators global, derivative of "
            "the flux, tensor cores, prefetch, 16-row tiles, directions split, 2 row tiles/warp, k unrolled "
            "2x, 4 groups/block pipelined");
  EXPECT_NE(to_text(unrolled).find(" k_unroll=2 k_ahead=0 "), std::string::npos) << to_text(unrolled);
  EXPECT_EQ(plan_from_text(to_text(unrolled)), unrolled);
  Plan ahead = unrolled;
  ahead.k_ahead = 1;
  EXPECT_EQ(ahead.describe(),
            "fused stage, field_major, 4 elements/block, 1 nodes/thread, operators global, derivative of "
            "the flux, tensor cores, prefetch, 16-row tiles, directions split, 2 row tiles/warp, k unrolled "
            "2x, 1 k step loaded ahead, 4 groups/block pipelined");
  EXPECT_NE(to_text(ahead).find(" k_unroll=2 k_ahead=1 "), std::string::npos) << to_text(ahead);
  EXPECT_EQ(plan_from_text(to_text(ahead)), ahead);
  // Texts written before k_ahead existed load nothing ahead.
  EXPECT_EQ(plan_from_text("fusion=stage layout=field_major elements=4 nodes_per_thread=1 operators=global "
                           "derivative=flux products=tensor prefetch=on k_unroll=2")
                .k_ahead,
            0);
  Plan teams = unrolled;
  teams.operators = Operators::shared;
  teams.prefetch = Prefetch::off;
  teams.teams = 5;
  EXPECT_EQ(teams.describe(),
            "fused stage, field_major, 4 elements/block, 1 nodes/thread, operators shared, derivative of the flux, tensor "
            "cores, 16-row tiles, directions split, 2 row tiles/warp, k unrolled 2x, 4 groups/block in turn, 5 teams/block");
  EXPECT_NE(to_text(teams).find(" groups=4 teams=5"), std::string::npos) << to_text(teams);
  EXPECT_EQ(plan_from_text(to_text(teams)), teams);
  // Plan texts from before teams existed have one.
  EXPECT_EQ(plan_from_text("fusion=stage layout=field_major elements=4 nodes_per_thread=1 operators=global "
                           "derivative=flux products=tensor prefetch=on").teams,
            1);
  for (const char* bad : {"teams=0", "teams=16"}) {
    try {
      (void)plan_from_text(std::string("fusion=stage layout=field_major elements=4 nodes_per_thread=1 operators=shared "
                                       "derivative=flux products=tensor prefetch=on ") + bad);
      FAIL() << bad << ": no error";
    } catch (const Error& error) {
      EXPECT_NE(std::string(error.what()).find(std::string(bad) + " is not a whole number in 1..15"), std::string::npos)
          << error.what();
    }
  }
  for (const char* bad : {"k_ahead=2", "k_ahead=-1", "k_ahead=yes"}) {
    try {
      (void)plan_from_text(std::string("fusion=stage layout=field_major elements=4 nodes_per_thread=1 operators=global "
                                       "derivative=flux products=tensor prefetch=on k_unroll=2 ") + bad);
      FAIL() << bad << ": no error";
    } catch (const Error& error) {
      EXPECT_NE(std::string(error.what()).find(std::string(bad) + " is not a whole number in 0..1"), std::string::npos)
          << error.what();
    }
  }
  for (const char* bad : {"k_unroll=0", "k_unroll=17", "k_unroll=full"}) {
    try {
      (void)plan_from_text(std::string("fusion=stage layout=field_major elements=4 nodes_per_thread=1 operators=global "
                                       "derivative=flux products=tensor prefetch=on ") + bad);
      FAIL() << bad << ": no error";
    } catch (const Error& error) {
      EXPECT_NE(std::string(error.what()).find(std::string(bad) + " is not 'all' or a whole number in 1..16"),
                std::string::npos)
          << error.what();
    }
  }
  try {
    (void)plan_from_text("fusion=stage layout=field_major elements=4 nodes_per_thread=1 operators=global "
                         "derivative=flux products=tensor prefetch=on row_tiles=0");
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("row_tiles=0 is not a whole number in 1..8"), std::string::npos) << error.what();
  }
  try {
    (void)plan_from_text("fusion=stage layout=field_major elements=4 nodes_per_thread=1 operators=global "
                         "derivative=flux products=tensor prefetch=on groups=0");
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("groups=0 is not a whole number in 1..64"), std::string::npos) << error.what();
  }
  EXPECT_EQ(parse_products("tf32x3"), Products::tf32x3);
  try {
    (void)parse_products("tf32");
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_STREQ(error.what(), "unknown products 'tf32'; valid values: scalar, tensor, tf32x3");
  }
  EXPECT_EQ(parse_directions("split"), Directions::split);
  EXPECT_THROW((void)parse_directions("one"), Error);
  try {
    (void)plan_from_text("fusion=stage layout=field_major elements=4 nodes_per_thread=1 operators=global "
                         "derivative=flux products=tensor prefetch=on tile_rows=12");
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("tile_rows=12 is not 8 or 16"), std::string::npos) << error.what();
  }
  // A plan text from before prefetching existed does not prefetch.
  EXPECT_EQ(plan_from_text("fusion=stage layout=field_major elements=4 nodes_per_thread=1 operators=global "
                           "derivative=flux products=tensor"),
            fused_plan(Layout::field_major, 4, 1, Operators::global, Derivative::flux, Products::tensor));
}

// The device-side kept state and reference change the tuner uses: restored and compared
// across a layout change, and a wrong step is seen.
TEST(SolverPlans, KeptStateAndChangeAcrossLayouts) {
  Cavity a("maxwell3d", 2, 2, host());
  const std::vector<double> start = random_state(a.solver->size());
  a.solver->set_state(start);
  a.solver->keep_state();
  const double dt = a.solver->stable_dt(0.5);
  a.solver->step(0.1, dt);
  a.solver->keep_change();
  EXPECT_EQ(a.solver->compare_change().worst, 0.0);
  const double scale = a.solver->compare_change().scale;
  EXPECT_GT(scale, 0.0);

  a.solver->set_plan(fused_plan(Layout::element_major, 2, 1, Operators::global, Derivative::state),
                     Solver::StateOnReplan::discard);
  a.solver->restore_kept_state();
  EXPECT_EQ(max_difference(a.solver->state(), start), 0.0);
  a.solver->step(0.1, dt);
  const Solver::ChangeDifference same = a.solver->compare_change();
  EXPECT_LE(same.worst, 1e-12 * scale);
  EXPECT_EQ(same.scale, scale);

  // Two more state layouts in turn (node strides 12 and 16: Plan::align), and back: each
  // reads the kept state and change converted from the saved ones.
  for (const int align : {32, 128, 0}) {
    Plan padded = fused_plan(Layout::element_major, 2, 1, Operators::global, Derivative::state);
    padded.align = align;
    a.solver->set_plan(padded, Solver::StateOnReplan::discard);
    a.solver->restore_kept_state();
    EXPECT_EQ(max_difference(a.solver->state(), start), 0.0) << align;
    a.solver->step(0.1, dt);
    const Solver::ChangeDifference padded_same = a.solver->compare_change();
    EXPECT_LE(padded_same.worst, 1e-12 * scale) << align;
    EXPECT_EQ(padded_same.scale, scale) << align;
  }

  a.solver->restore_kept_state();
  a.solver->step(0.1, 2 * dt);  // a different step: the difference is of the change's size
  EXPECT_GT(a.solver->compare_change().worst, 0.1 * scale);
  std::vector<double> bad = start;
  bad[5] = std::nan("");
  a.solver->set_state(bad);
  EXPECT_TRUE(std::isnan(a.solver->compare_change().worst));

  a.solver->release_kept_state();
  EXPECT_THROW(a.solver->restore_kept_state(), Error);
}

// Tensor products in float: the operands are widened to double at the fragment loads and the
// sums kept in double, so the right-hand side agrees with the default float plan to float
// rounding (and is closer to the double one than float FMA chains need be).
TEST(SolverPlans, TensorProductsInFloatMatchTheDefaultFloatPlan) {
  Cavity reference("maxwell3d", 2, 3, host(), 1.0, fluxes::ScalarType::float32);
  Cavity exact("maxwell3d", 2, 3, host(), 1.0, fluxes::ScalarType::float64);
  const std::vector<double> start = random_state(reference.solver->size());
  reference.solver->set_state(start);
  exact.solver->set_state(start);
  const std::vector<double> rhs = reference.solver->rhs(0.25), rhs64 = exact.solver->rhs(0.25);
  Plan joint = fused_plan(Layout::element_major, 3, 1, Operators::global, Derivative::flux, Products::tensor, Prefetch::on);
  Plan split = fused_plan(Layout::field_major, 4, 1, Operators::global, Derivative::flux, Products::tensor);
  split.directions = Directions::split;
  split.tile_rows = 16;
  const Plan state = fused_plan(Layout::field_major, 2, 1, Operators::global, Derivative::state, Products::tensor);
  // TF32 products: on the host the same padded products in double (CUDA: three TF32 products
  // per tile, checked against the default plan by the gpu tests).
  Plan tf32_split = split, tf32_state = state;
  tf32_split.products = tf32_state.products = Products::tf32x3;
  tf32_state.tile_rows = 16;
  // TF32 column tiles (the block's columns as the mma's 16 rows, 8-row operator fragments):
  // the joint flux derivative with held tiles, and the state derivative.
  Plan tf32_columns = joint, tf32_columns_state = state;
  for (Plan* plan : {&tf32_columns, &tf32_columns_state}) {
    plan->products = Products::tf32x3;
    plan->tiles = Tiles::columns;
    plan->row_tiles = 2;
  }
  for (const Plan& plan : {joint, split, state, tf32_split, tf32_state, tf32_columns, tf32_columns_state}) {
    SCOPED_TRACE(plan.describe());
    Cavity other("maxwell3d", 2, 3, host(), 1.0, fluxes::ScalarType::float32, Integrator::lserk4, plan);
    other.solver->set_state(start);
    const std::vector<double> got = other.solver->rhs(0.25);
    EXPECT_LE(max_difference(got, rhs), 1e-5 * max_abs(rhs));
    EXPECT_LE(max_difference(got, rhs64), 1e-5 * max_abs(rhs64));
  }
  // TF32 products with 8-row tiles of the operator's rows are refused with what to change.
  Plan rows8 = tf32_columns;
  rows8.tiles = Tiles::rows;
  try {
    reference.solver->set_plan(rows8);
    ADD_FAILURE() << "no error";
  } catch (const Error& error) {
    EXPECT_STREQ(error.what(), "the plan does not fit: TF32 tensor products (products = tf32x3) take 16-row tiles "
                               "(tile_rows = 16) or column tiles (tiles = columns)");
  }
}

// What a step's kernels use: the unfused plan's three, the fused plan's one stage kernel of
// the integrator, with the launch's threads and shared memory (the host gives no registers or
// blocks per SM).
TEST(SolverPlans, KernelUsesNameTheLaunchesOfAStep) {
  Cavity unfused("maxwell3d", 1, 2, host());
  std::vector<std::string> names;
  for (const rtcg::tune::KernelUse& k : unfused.solver->kernel_uses()) {
    names.push_back(k.kernel);
    EXPECT_GT(k.threads, 0) << k.kernel;
    EXPECT_EQ(k.registers, 0) << k.kernel;
    EXPECT_EQ(k.blocks_per_multiprocessor, 0) << k.kernel;
  }
  EXPECT_EQ(names, (std::vector<std::string>{"rtdg_volume", "rtdg_surface", "rtdg_lserk"}));
  for (const Integrator integrator : {Integrator::lserk4, Integrator::ssprk3}) {
    Cavity fused_case("maxwell3d", 1, 2, host(), 1.0, fluxes::ScalarType::float64, integrator,
                      fused_plan(Layout::element_major, 3, 1, Operators::global, Derivative::flux, Products::tensor));
    const std::vector<rtcg::tune::KernelUse> uses = fused_case.solver->kernel_uses();
    ASSERT_EQ(uses.size(), 1u);
    EXPECT_EQ(uses[0].kernel, integrator == Integrator::lserk4 ? "rtdg_stage_lserk" : "rtdg_stage_ssp");
    EXPECT_EQ(uses[0].threads, fused_case.solver->kernels().stage_threads);
    EXPECT_EQ(uses[0].shared_bytes, fused_case.solver->kernels().stage_shared_bytes);
    EXPECT_GT(uses[0].shared_bytes, 0u);
  }
}

// A plan that does not fit is refused with what to change.
TEST(SolverPlans, OversizedPlansAreRefused) {
  Cavity a("maxwell3d", 1, 3, host());  // Np = 20: 64 elements are 1280 threads
  try {
    a.solver->set_plan(fused_plan(Layout::field_major, 64, 1, Operators::global, Derivative::flux));
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("more than 1024 threads per block"), std::string::npos) << error.what();
  }
}

// Column tiles (Plan::tiles = columns) outside FP64 tensor products with 8-row fragments and no
// k step ahead are refused with what to change.
TEST(SolverPlans, ColumnTilesThatDoNotFitAreRefused) {
  Cavity a("maxwell3d", 1, 3, host());
  auto refusal = [&](const Plan& plan) {
    try {
      a.solver->set_plan(plan);
    } catch (const Error& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  Plan plan = fused_plan(Layout::element_major, 8, 1, Operators::global, Derivative::flux, Products::tensor);
  plan.tiles = Tiles::columns;
  plan.row_tiles = 2;
  EXPECT_NO_THROW(a.solver->set_plan(plan));
  Plan scalar = plan;
  scalar.products = Products::scalar;
  scalar.row_tiles = 1;
  EXPECT_EQ(refusal(scalar), "the plan does not fit: column tiles (tiles = columns) are for tensor-core products "
                             "(products = tensor or tf32x3)");
  Plan sixteen = plan;
  sixteen.tile_rows = 16;
  EXPECT_EQ(refusal(sixteen), "the plan does not fit: column tiles (tiles = columns) take 8 operator rows per tile "
                              "(tile_rows = 8); the 16 rows of their mma are the block's columns");
  Plan ahead = plan;
  ahead.k_unroll = 2;
  ahead.k_ahead = 1;
  EXPECT_EQ(refusal(ahead), "the plan does not fit: column tiles (tiles = columns) load no k step ahead (k_ahead = 0)");
}

// Products by column (operators = constant or literals) with tensor products, several nodes per
// thread, or operators too large for constant memory or for literal code are refused with what
// to change.
TEST(SolverPlans, ByColumnPlansThatDoNotFitAreRefused) {
  auto refusal = [](Cavity& cavity, const Plan& plan) {
    try {
      cavity.solver->set_plan(plan);
    } catch (const Error& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  Cavity a("maxwell3d", 1, 2, host());
  const Plan plan = fused_plan(Layout::element_major, 4, 1, Operators::literals, Derivative::flux);
  EXPECT_NO_THROW(a.solver->set_plan(plan));
  Plan tensor = plan;
  tensor.products = Products::tensor;
  EXPECT_EQ(refusal(a, tensor), "the plan does not fit: operators = literals computes the products by column with FMAs "
                                "(products = scalar); tensor-core products read their operators' fragments from global "
                                "or shared memory");
  Plan two = plan;
  two.operators = Operators::constant;
  two.nodes_per_thread = 2;
  EXPECT_EQ(refusal(a, two), "the plan does not fit: operators = constant computes the products by column, and the "
                             "update one node per thread (nodes_per_thread = 1)");
  // Order 5 in double: 3 x 56^2 + 56 x 84 = 14,112 entries, 112,896 bytes.
  Cavity five("maxwell3d", 1, 5, host());
  Plan constant = plan;
  constant.operators = Operators::constant;
  EXPECT_EQ(refusal(five, constant), "the plan does not fit: operators = constant needs 112896 bytes of constant memory "
                                     "for D and LIFT at order 5, more than 61440; use operators = global or shared");
  // Literals count the non-zero entries only: order 5 has 9,432 of its 14,112 (it fits), order 6
  // 20,742 of 3 x 84^2 + 84 x 112 = 30,576 (the exact zeros of D, element.hpp).
  Plan literal_five = plan;
  EXPECT_NO_THROW(five.solver->set_plan(literal_five));
  Cavity six("maxwell3d", 1, 6, host());
  EXPECT_EQ(refusal(six, plan), "the plan does not fit: operators = literals would write the 20742 non-zero entries of D "
                                "and LIFT at order 6 into the kernel, more than 16384; use operators = global, shared or "
                                "constant");
}

// What set_plan says about `plan` ("no error" when it takes it).
std::string set_plan_error(Solver& solver, const Plan& plan) {
  try {
    solver.set_plan(plan);
  } catch (const Error& error) {
    return std::string(error.what());
  }
  return std::string("no error");
}

// Element groups per block and teams per block: within their ranges, and a block of teams at
// most 1024 threads.
// Plan::max_registers: its text, and the plans it does not fit.
TEST(SolverPlans, RegisterCapTextAndRefusals) {
  Plan capped = fused_plan(Layout::element_major, 2, 1, Operators::literals, Derivative::state, Products::scalar,
                           Prefetch::async);
  capped.max_registers = 80;
  EXPECT_NE(to_text(capped).find(" max_registers=80"), std::string::npos) << to_text(capped);
  EXPECT_EQ(plan_from_text(to_text(capped)), capped);
  EXPECT_NE(capped.describe().find(", at most 80 registers"), std::string::npos) << capped.describe();
  EXPECT_EQ(to_text(capped).find("max_registers"), to_text(capped).rfind("max_registers"));
  Plan uncapped = capped;
  uncapped.max_registers = 0;
  EXPECT_EQ(to_text(uncapped).find("max_registers"), std::string::npos);  // older texts read as before
  EXPECT_EQ(plan_from_text(to_text(uncapped)).max_registers, 0);
  for (const char* bad : {"max_registers=16", "max_registers=256", "max_registers=-8", "max_registers=many"}) {
    try {
      (void)plan_from_text(to_text(uncapped) + " " + bad);
      FAIL() << bad << ": no error";
    } catch (const Error& error) {
      EXPECT_NE(std::string(error.what()).find(bad), std::string::npos) << error.what();
    }
  }

  Cavity a("maxwell3d", 1, 2, host());
  auto error_of = [&](const Plan& plan) { return set_plan_error(*a.solver, plan); };
  EXPECT_EQ(error_of(capped), "no error");
  Plan unfused;
  unfused.max_registers = 80;
  EXPECT_NE(error_of(unfused).find("max_registers caps the registers of the fused stage kernel (fusion = stage)"),
            std::string::npos)
      << error_of(unfused);
  Plan teams = fused_plan(Layout::element_major, 2, 1, Operators::shared, Derivative::state, Products::tensor);
  teams.teams = 2;
  teams.max_registers = 80;
  EXPECT_NE(error_of(teams).find("max_registers caps the registers of a one-team kernel (teams = 1); with 2 teams"),
            std::string::npos)
      << error_of(teams);
  Plan low = capped;
  low.max_registers = 16;
  EXPECT_NE(error_of(low).find("the plan's max_registers must be 0 or 32 to 255, got 16"), std::string::npos)
      << error_of(low);
}

// Plan::graph: written only when on, read back, described, for fused and unfused plans; on the
// host backend a step as one graph runs its launches as they come, so it is the same step.
TEST(SolverPlans, GraphTextAndHostSteps) {
  for (Plan plan : {Plan{}, fused_plan(Layout::element_major, 2, 1, Operators::global, Derivative::state)}) {
    EXPECT_EQ(to_text(plan).find("graph"), std::string::npos);  // older texts read as before
    EXPECT_FALSE(plan_from_text(to_text(plan)).graph);
    plan.graph = true;
    EXPECT_NE(to_text(plan).find(" graph=on"), std::string::npos) << to_text(plan);
    EXPECT_EQ(plan_from_text(to_text(plan)), plan);
    EXPECT_NE(plan.describe().find(", steps as CUDA graphs"), std::string::npos) << plan.describe();
  }
  EXPECT_FALSE(plan_from_text(to_text(Plan{}) + " graph=off").graph);
  try {
    (void)plan_from_text(to_text(Plan{}) + " graph=yes");
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("graph=yes is not on or off"), std::string::npos) << error.what();
  }

  for (const Integrator integrator : {Integrator::lserk4, Integrator::ssprk3}) {
    Cavity a("maxwell2d_tm", 2, 3, host(), 1.0, fluxes::ScalarType::float64, integrator);
    Plan graph;
    graph.graph = true;
    Cavity b("maxwell2d_tm", 2, 3, host(), 1.0, fluxes::ScalarType::float64, integrator, graph);
    for (Cavity* c : {&a, &b}) {
      c->solver->set_state(c->solver->exact_values(0.0));
      const double dt = c->solver->stable_dt(0.5);
      for (int s = 0; s < 3; ++s) c->solver->step(s * dt, dt);
    }
    EXPECT_EQ(b.solver->state(), a.solver->state());
  }
}

// Plan::prefetch_update: written only when off, read back, described; refused where there is
// no prefetched update input to read late (unfused plans, no prefetch, products not staged).
TEST(SolverPlans, LateUpdateInputTextAndRefusals) {
  Plan late = fused_plan(Layout::element_major, 2, 1, Operators::literals, Derivative::state, Products::scalar,
                         Prefetch::async);
  EXPECT_EQ(to_text(late).find("prefetch_update"), std::string::npos);  // older texts read as before
  EXPECT_TRUE(plan_from_text(to_text(late)).prefetch_update);
  late.prefetch_update = false;
  EXPECT_NE(to_text(late).find(" prefetch_update=off"), std::string::npos) << to_text(late);
  EXPECT_EQ(plan_from_text(to_text(late)), late);
  EXPECT_NE(late.describe().find(", update input read late"), std::string::npos) << late.describe();
  try {
    (void)plan_from_text(to_text(Plan{}) + " prefetch_update=late");
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("prefetch_update=late is not on or off"), std::string::npos) << error.what();
  }

  Cavity a("maxwell3d", 1, 2, host());
  auto error_of = [&](const Plan& plan) { return set_plan_error(*a.solver, plan); };
  EXPECT_EQ(error_of(late), "no error");
  Plan unfused;
  unfused.prefetch_update = false;
  EXPECT_NE(error_of(unfused).find("prefetch_update = off reads the update input late in the fused stage kernel"),
            std::string::npos)
      << error_of(unfused);
  const std::string not_staged = "prefetch_update = off reads the update input late instead of prefetching it";
  Plan no_prefetch = late;
  no_prefetch.prefetch = Prefetch::off;
  EXPECT_NE(error_of(no_prefetch).find(not_staged), std::string::npos) << error_of(no_prefetch);
  Plan scalar = fused_plan(Layout::element_major, 2, 1, Operators::global, Derivative::state, Products::scalar,
                           Prefetch::on);
  scalar.prefetch_update = false;
  EXPECT_NE(error_of(scalar).find(not_staged), std::string::npos) << error_of(scalar);
}

TEST(SolverPlans, GroupsAndTeamsOutsideTheirRangesAreRefused) {
  Cavity a("maxwell3d", 1, 1, host());
  Plan plan = fused_plan(Layout::field_major, 2, 1, Operators::global, Derivative::flux, Products::tensor);
  plan.groups_per_block = 2;  // in turn, without prefetch
  EXPECT_NO_THROW(a.solver->set_plan(plan));
  plan.groups_per_block = max_groups_per_block + 1;
  EXPECT_THROW(a.solver->set_plan(plan), Error);
  plan.groups_per_block = 1;
  plan.operators = Operators::shared;
  plan.teams = max_teams + 1;
  try {
    a.solver->set_plan(plan);
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("teams must be 1 to 15, got 16"), std::string::npos) << error.what();
  }
  // Np = 4: 32 elements of 4 threads are 128 threads a team; 9 teams are 1152.
  plan.stage_elements_per_block = 32;
  plan.teams = 9;
  try {
    a.solver->set_plan(plan);
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("9 teams of 32 elements per block of 4 threads each (128 threads per "
                                             "team) is more than 1024 threads per block"),
              std::string::npos)
        << error.what();
  }
  // Teams take whole warps, scalar products too: 20 elements of 4 threads are 80 threads, a
  // team 96; 11 teams are 1056 (880 without the rounding).
  Plan scalar = plan;
  scalar.products = Products::scalar;
  // Global operators and the state derivative: a team's scratch small enough for 10 teams.
  scalar.operators = Operators::global;
  scalar.derivative = Derivative::state;
  scalar.stage_elements_per_block = 20;
  scalar.teams = 11;
  try {
    a.solver->set_plan(scalar);
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("11 teams of 20 elements per block of 4 threads each (96 threads per "
                                             "team, whole warps) is more than 1024 threads per block"),
              std::string::npos)
        << error.what();
  }
  scalar.teams = 10;  // 960 threads
  EXPECT_NO_THROW(a.solver->set_plan(scalar));
  // 6 teams of 32 elements (768 threads) need more shared memory than a block may have.
  plan.teams = 6;
  try {
    a.solver->set_plan(plan);
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("(6 teams of 32 elements of order 1, operators in shared memory, tensor "
                                             "products), more than 232448; use fewer teams"),
              std::string::npos)
        << error.what();
  }
  // 8 elements of 4 threads are a warp; 4 teams, 4 groups each: 16 groups a block.
  plan.stage_elements_per_block = 8;
  plan.teams = 4;
  plan.groups_per_block = 4;
  EXPECT_NO_THROW(a.solver->set_plan(plan));
  EXPECT_EQ(a.solver->kernels().stage_threads, 128);
  EXPECT_EQ(a.solver->kernels().stage_groups_per_block, 16);
  // Geometry in shared memory is copied by prefetch async.
  plan.groups_per_block = 1;
  plan.teams = 1;
  plan.operators = Operators::global;
  plan.prefetch = Prefetch::on;
  plan.geometry = GeometryPlace::shared;
  try {
    a.solver->set_plan(plan);
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("geometry = shared is copied in the load phase of prefetch = async"),
              std::string::npos)
        << error.what();
  }
  plan.geometry = GeometryPlace::global;
  // Prefetch async is for one group and one team.
  for (const auto& [groups, teams] : {std::pair{2, 1}, std::pair{1, 2}}) {
    plan.groups_per_block = groups;
    plan.teams = teams;
    plan.prefetch = Prefetch::async;
    try {
      a.solver->set_plan(plan);
      FAIL() << "no error";
    } catch (const Error& error) {
      EXPECT_NE(std::string(error.what()).find("prefetch = async is for one element group per block and one team (got " +
                                               std::to_string(groups) + " groups and " + std::to_string(teams) +
                                               " teams); use prefetch = on"),
                std::string::npos)
          << error.what();
    }
  }
}

// Split directions keep every warp's tiles in registers: a block with too many tiles per warp
// is refused, and so is split with scalar products or the state derivative.
TEST(SolverPlans, SplitDirectionsThatDoNotFitAreRefused) {
  Cavity a("maxwell3d", 1, 1, host());
  // Order 1, 15 elements: 96 columns in 3 groups of 4 tiles for 2 warps; 16-row tiles would
  // hold 2 items x 4 tiles x 4 accumulators.
  Plan plan = fused_plan(Layout::field_major, 15, 1, Operators::global, Derivative::flux, Products::tensor);
  plan.directions = Directions::split;
  plan.tile_rows = 16;
  try {
    a.solver->set_plan(plan);
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("more than 48 accumulator registers per thread"), std::string::npos) << error.what();
  }
  plan.tile_rows = 8;
  EXPECT_NO_THROW(a.solver->set_plan(plan));
  for (const Plan& other : {fused_plan(Layout::field_major, 2, 1, Operators::global, Derivative::flux),
                            fused_plan(Layout::field_major, 2, 1, Operators::global, Derivative::state, Products::tensor)}) {
    Plan split = other;
    split.directions = Directions::split;
    try {
      a.solver->set_plan(split);
      FAIL() << "no error for " << split.describe();
    } catch (const Error& error) {
      EXPECT_NE(std::string(error.what()).find("directions = split is for tensor-core products of the flux derivative"),
                std::string::npos)
          << error.what();
    }
  }
}

// Row tiles per warp item are for tensor products, and count in split directions' registers.
TEST(SolverPlans, RowTilesOutsideTensorProductsOrRegistersAreRefused) {
  Cavity a("maxwell3d", 1, 1, host());
  Plan plan = fused_plan(Layout::field_major, 2, 1, Operators::global, Derivative::flux);
  plan.row_tiles = 2;
  try {
    a.solver->set_plan(plan);
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("row tiles per warp item (row_tiles > 1) are for tensor-core products"),
              std::string::npos)
        << error.what();
  }
  // Order 1 (one row tile), 15 elements: 3 groups of 4 column tiles for 2 warps, so 2 items of
  // 4 tiles per warp: 32 accumulator registers at one row tile, 64 at two (the second a
  // recomputed copy of the first, but held all the same).
  plan = fused_plan(Layout::field_major, 15, 1, Operators::global, Derivative::flux, Products::tensor);
  plan.directions = Directions::split;
  EXPECT_NO_THROW(a.solver->set_plan(plan));
  plan.row_tiles = 2;
  try {
    a.solver->set_plan(plan);
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("more than 48 accumulator registers per thread"), std::string::npos) << error.what();
  }
  plan.row_tiles = max_row_tiles + 1;
  EXPECT_THROW(a.solver->set_plan(plan), Error);
}

// A set k-loop unrolling is for tensor products; out-of-range counts are refused.
TEST(SolverPlans, KUnrollOutsideTensorProductsIsRefused) {
  Cavity a("maxwell3d", 1, 1, host());
  Plan plan = fused_plan(Layout::field_major, 2, 1, Operators::global, Derivative::flux);
  plan.k_unroll = 2;
  try {
    a.solver->set_plan(plan);
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("unrolling the k loop by a set count (k_unroll) is for tensor-core products"),
              std::string::npos)
        << error.what();
  }
  plan.products = Products::tensor;
  EXPECT_NO_THROW(a.solver->set_plan(plan));
  plan.k_unroll = max_k_unroll + 1;
  EXPECT_THROW(a.solver->set_plan(plan), Error);
  plan.k_unroll = -1;
  EXPECT_THROW(a.solver->set_plan(plan), Error);
}

// Loading k steps ahead is for FP64 tensor products whose k loops are unrolled a set count.
TEST(SolverPlans, KAheadOutsideUnrolledTensorProductsIsRefused) {
  Cavity a("maxwell3d", 1, 1, host());
  Plan plan = fused_plan(Layout::field_major, 2, 1, Operators::global, Derivative::flux, Products::tensor);
  plan.k_ahead = 1;
  auto refusal = [&] {
    try {
      a.solver->set_plan(plan);
    } catch (const Error& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(refusal().find("loading k steps ahead (k_ahead) is for k loops unrolled a set count (k_unroll > 0)"),
            std::string::npos)
      << refusal();
  plan.k_unroll = 2;
  EXPECT_EQ(refusal(), "no error");
  plan.products = Products::scalar;
  plan.k_unroll = 0;
  EXPECT_NE(refusal().find("loading k steps ahead (k_ahead) is for FP64 tensor-core products (products = tensor)"),
            std::string::npos)
      << refusal();
  plan.products = Products::tensor;
  plan.k_unroll = 2;
  plan.k_ahead = max_k_ahead + 1;
  EXPECT_NE(refusal().find("the plan's k_ahead must be 0 to 1, got 2"), std::string::npos) << refusal();
}

// TF32 products are for float plans with 16-row tiles; anything else is refused with what to use.
TEST(SolverPlans, Tf32ProductsOutsideFloatOr16RowTilesAreRefused) {
  Plan plan = fused_plan(Layout::field_major, 2, 1, Operators::global, Derivative::flux, Products::tf32x3);
  plan.tile_rows = 16;
  Cavity a("maxwell3d", 1, 2, host());  // double
  try {
    a.solver->set_plan(plan);
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("(products = tf32x3) are for float; double plans use products = tensor"),
              std::string::npos)
        << error.what();
  }
  Cavity b("maxwell3d", 1, 2, host(), 1.0, fluxes::ScalarType::float32);
  EXPECT_NO_THROW(b.solver->set_plan(plan));
  plan.tile_rows = 8;
  try {
    b.solver->set_plan(plan);
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("take 16-row tiles (tile_rows = 16)"), std::string::npos) << error.what();
  }
}

// derivative = state is right only for a linear flux; the generator refuses it otherwise.
TEST(SolverPlans, StateDerivativeNeedsALinearFlux) {
  const std::filesystem::path file = std::filesystem::path(::testing::TempDir()) / "burgers2d.toml";
  std::ofstream(file) << R"LAW(name = "burgers2d"
description = "inviscid Burgers along a fixed direction"
dimension = 2
max_wave_speed = "abs(u)"
[fields]
u = { shape = "scalar" }
[volume_flux]
u = "vec(1, 1)*u*u/2"
[numerical_flux]
form = "full"
u = "dot(vec(1, 1), normal)*(u.int*u.int + u.ext*u.ext)/4 + 1/2*max(abs(u.int), abs(u.ext))*jump(u)"
[boundary.outflow]
u = "u.int"
)LAW";
  fluxes::Law law = fluxes::read_law(file.string());
  mesh::Mesh m = mesh::build_mesh(test::box_mesh(2, 1));
  Discretization disc = discretize(m, 2);
  SolverSetup setup;
  setup.law = &law;
  setup.parameters = fluxes::resolve_parameters(law, {});
  for (const char* wall : {"xmin", "xmax", "ymin", "ymax"}) setup.boundaries.push_back({wall, "outflow", ""});
  Solver solver(host(), disc, setup);
  solver.set_plan(fused_plan(Layout::field_major, 1, 1, Operators::global, Derivative::flux));  // fine
  try {
    solver.set_plan(fused_plan(Layout::field_major, 1, 1, Operators::global, Derivative::state));
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("the law 'burgers2d' has a nonlinear or position-dependent flux"),
              std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace rtdg::dg
