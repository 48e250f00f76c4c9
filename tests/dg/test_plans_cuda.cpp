// Every CUDA plan variant against the host (label gpu; skipped without a device): for orders
// 1-7 in double and float, the CUDA default plan's right-hand side matches the host's, and the
// DG tuning job over the whole CUDA plan space keeps every variant that fits (its check
// compares one step of each with the CUDA default plan). A variant may be dropped only for
// not fitting (shared memory, threads, registers), never for a wrong answer, a failed
// compile or a failed run. The same for narrower spaces: the products' k loops unrolled a set
// number of steps (Plan::k_unroll), teams, prefetch async, padded columns, column tiles and
// products by column (operators in constant memory or as literals; with the default space's
// bases, nodal and Bernstein), and Bernstein plans against the host's nodal plan.
#include "solver_support.hpp"

#include <dg/bernstein.hpp>
#include <dg/farfield.hpp>
#include <dg/tuning.hpp>
#include <rtcg/backend.hpp>
#include <rtcg/tuner.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace rtdg::dg {
namespace {

using test::Cavity;

std::vector<double> random_state(std::size_t n) {
  std::mt19937_64 random(3);
  std::vector<double> values(n);
  for (double& v : values) v = static_cast<double>(random() >> 11) * 0x1.0p-53 * 2.0 - 1.0;
  return values;
}

struct CudaCase {
  const char* law;
  int n;
  int N;
  fluxes::ScalarType scalar;
};

// A sweep case compiles every variant of its plan space with NVRTC (hundreds per case, minutes
// of compile each), so the full lists take longer than a GPU test run should. By default the
// cases at order 4 run (each suite's laws and precisions there: the order where every plan
// family, Bernstein and stencil plans included, is valid) and CudaPlans' double orders 1 and 7
// (the ends of the range); RTDG_GPU_TESTS=full runs every case (scripts/gpu-check --full).
// Returns why a case is skipped, or "" when it runs.
std::string outside_sample(const CudaCase& c, bool whole_space) {
  const char* tier = std::getenv("RTDG_GPU_TESTS");
  if (tier && std::string(tier) == "full") return {};
  if (c.N == 4) return {};
  if (whole_space && c.scalar == fluxes::ScalarType::float64 && std::string(c.law) == "maxwell3d" && (c.N == 1 || c.N == 7))
    return {};
  return "outside the default sample of the sweeps (order 4, and orders 1 and 7 of the whole space in double); "
         "RTDG_GPU_TESTS=full runs it";
}

// Tunes `space` on the solver with one run per variant: every variant either runs (and so passed
// the tuner's check against the CUDA default plan) or does not fit.
void expect_every_variant_fits_or_matches(Solver& solver, const PlanSpace& space) {
  rtcg::Backend& cuda = rtcg::backend("cuda");
  // Steps as one CUDA graph launch the same kernels (CudaGraph checks them): with prune off
  // they would double every case's runs for nothing new.
  PlanSpace kernels_only = space;
  kernels_only.graph = {false};
  const PlanJob job = make_plan_job(solver, kernels_only);
  rtcg::tune::TimingOptions options = plan_timing_options();
  options.warmup_runs = 0;
  options.min_runs = 1;
  options.max_runs = 1;
  const rtcg::tune::TuningResult result = rtcg::tune::Tuner(cuda, options).tune(job.job);
  int kept = 0;
  for (const rtcg::tune::Timing& t : result.variants) {
    const std::string plan = plan_of(t.point).describe();
    EXPECT_TRUE(t.ok() || t.status == "generate" || t.status == "launch" || t.status == "spill")
        << plan << ": " << t.status << ": " << t.reason;
    if (t.status == "generate") {
      EXPECT_NE(t.reason.find("does not fit"), std::string::npos) << plan << ": " << t.reason;
    }
    // A plan that ran says what its kernels use: registers from the compiler, blocks per SM
    // from the driver's occupancy calculator.
    if (t.ok()) {
      EXPECT_FALSE(t.kernels.empty()) << plan;
      for (const rtcg::tune::KernelUse& k : t.kernels) {
        EXPECT_GT(k.registers, 0) << plan << ": " << k.kernel;
        EXPECT_GE(k.blocks_per_multiprocessor, 1) << plan << ": " << k.kernel;
      }
    }
    kept += t.ok() ? 1 : 0;
  }
  EXPECT_GE(kept, 2) << "fewer than two plans ran";
}

class CudaPlans : public ::testing::TestWithParam<CudaCase> {};

TEST_P(CudaPlans, EveryVariantThatFitsMatchesTheDefaultPlan) {
  if (!rtcg::cuda_available()) GTEST_SKIP() << rtcg::cuda_unavailable_reason();
  if (const std::string why = outside_sample(GetParam(), true); !why.empty()) GTEST_SKIP() << why;
  const CudaCase c = GetParam();
  const bool single = c.scalar == fluxes::ScalarType::float32;
  rtcg::Backend& cuda = rtcg::backend("cuda");
  Cavity host_case(c.law, c.n, c.N, rtcg::backend("host"));
  Cavity cuda_case(c.law, c.n, c.N, cuda, 1.0, c.scalar);
  const std::vector<double> start = random_state(host_case.solver->size());
  host_case.solver->set_state(start);
  cuda_case.solver->set_state(start);
  const std::vector<double> expected = host_case.solver->rhs(0.3), got = cuda_case.solver->rhs(0.3);
  double scale = 0, worst = 0;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    scale = std::max(scale, std::abs(expected[i]));
    worst = std::max(worst, std::abs(expected[i] - got[i]));
  }
  EXPECT_LE(worst, (single ? 1e-4 : 1e-12) * scale);
  // The default plan's kernels as compiled for this device: registers and blocks per SM.
  for (const rtcg::tune::KernelUse& k : cuda_case.solver->kernel_uses()) {
    EXPECT_GT(k.registers, 0) << k.kernel;
    EXPECT_GE(k.blocks_per_multiprocessor, 1) << k.kernel;
  }

  // The CUDA space, with the TF32 products (float only) and the pipelined element groups the
  // default space leaves out; prefetch async and the geometry in shared memory have their own
  // suite (CudaAsync), which keeps this one within about 10 minutes per half of the orders.
  PlanSpace space = PlanSpace::for_backend(rtcg::BackendKind::cuda);
  space.products.push_back(Products::tf32x3);
  space.prefetch = {Prefetch::off, Prefetch::on};
  space.geometry = {GeometryPlace::global};
  space.groups_per_block = {1, 2};
  space.row_tiles = {1, 2, 3};
  space.k_unroll = {0};  // the k loops unrolled a set count (and k_ahead): CudaKUnroll and CudaAsync
  space.operators = {Operators::global, Operators::shared};  // constant and literals: CudaByColumn
  space.prune = false;  // every pipelined plan too, not only those the tuner would time
  expect_every_variant_fits_or_matches(*cuda_case.solver, space);
}

// The products' k loops unrolled a set number of steps (Plan::k_unroll; 16-row tiles then take
// k in steps of 4 only), with and without the next step's fragments loaded ahead (Plan::k_ahead,
// FP64 tensor products), in every tensor-product path, with the tuner's check against the default
// plan. A narrower space (4 elements per block) and fewer cases than the test above, which would
// take twice as long with k_unroll in it.
class CudaKUnroll : public ::testing::TestWithParam<CudaCase> {};

TEST_P(CudaKUnroll, KUnrolledProductsMatchTheDefaultPlan) {
  if (!rtcg::cuda_available()) GTEST_SKIP() << rtcg::cuda_unavailable_reason();
  if (const std::string why = outside_sample(GetParam(), false); !why.empty()) GTEST_SKIP() << why;
  const CudaCase c = GetParam();
  Cavity cuda_case(c.law, c.n, c.N, rtcg::backend("cuda"), 1.0, c.scalar);
  PlanSpace space = PlanSpace::for_backend(rtcg::BackendKind::cuda);
  space.layouts = {Layout::element_major};
  space.elements_per_block = {4};
  space.nodes_per_thread = {1};
  space.operators = {Operators::global};
  space.products = {Products::tensor, Products::tf32x3};
  space.prefetch = {Prefetch::on};
  space.row_tiles = {1, 2};
  space.k_unroll = {1, 2};
  space.k_ahead = {0, 1};
  space.groups_per_block = {1, 2};
  space.prune = false;
  expect_every_variant_fits_or_matches(*cuda_case.solver, space);
}

// Teams sharing the block's shared-memory copy of the operator fragments (Plan::teams with
// operators = shared), one group per team, groups in turn and pipelined, in every tensor-product
// path, and teams of scalar products (each team with its own copy of D and LIFT, its threads
// rounded up to whole warps), with the tuner's check against the default plan. 2 elements per
// team on a cavity of 48 tetrahedra (24 groups): blocks whose last teams have fewer groups or none.
class CudaTeams : public ::testing::TestWithParam<CudaCase> {};

TEST_P(CudaTeams, TeamsSharingFragmentsMatchTheDefaultPlan) {
  if (!rtcg::cuda_available()) GTEST_SKIP() << rtcg::cuda_unavailable_reason();
  if (const std::string why = outside_sample(GetParam(), false); !why.empty()) GTEST_SKIP() << why;
  const CudaCase c = GetParam();
  Cavity cuda_case(c.law, c.n, c.N, rtcg::backend("cuda"), 1.0, c.scalar);
  PlanSpace space = PlanSpace::for_backend(rtcg::BackendKind::cuda);
  space.layouts = {Layout::element_major};
  space.elements_per_block = {2};
  space.nodes_per_thread = {1};
  space.operators = {Operators::shared};
  space.products = {Products::scalar, Products::tensor, Products::tf32x3};
  space.groups_per_block = {1, 3};
  space.teams = {2, 3};
  space.min_threads = 32;
  space.prune = false;
  expect_every_variant_fits_or_matches(*cuda_case.solver, space);
}

// Prefetch async (the state and the neighbours' traces copied into shared memory by cp.async,
// the gather's indices loaded first), the geometry read from global memory or copied there
// too (Plan::geometry): scalar, FP64 tensor and TF32
// products, both derivatives, joint and split directions, 8- and 16-row tiles, the k loops
// unrolled fully or 2 steps at a time (with and without a step loaded ahead); 5 elements per block leave a partial last block on the
// 48-tetrahedron cavity.
class CudaAsync : public ::testing::TestWithParam<CudaCase> {};

TEST_P(CudaAsync, AsyncCopiesMatchTheDefaultPlan) {
  if (!rtcg::cuda_available()) GTEST_SKIP() << rtcg::cuda_unavailable_reason();
  if (const std::string why = outside_sample(GetParam(), false); !why.empty()) GTEST_SKIP() << why;
  const CudaCase c = GetParam();
  Cavity cuda_case(c.law, c.n, c.N, rtcg::backend("cuda"), 1.0, c.scalar);
  PlanSpace space = PlanSpace::for_backend(rtcg::BackendKind::cuda);
  space.elements_per_block = {2, 5};
  space.nodes_per_thread = {1};
  space.operators = {Operators::global};
  space.products = {Products::scalar, Products::tensor, Products::tf32x3};
  space.prefetch = {Prefetch::async};
  space.geometry = {GeometryPlace::global, GeometryPlace::shared};
  space.k_unroll = {0, 2};  // the default space's: 16-row tiles with async unrolled 2 steps at a time,
  space.k_ahead = {0, 1};   // with and without the next step's fragments loaded ahead
  space.groups_per_block = {1};
  space.min_threads = 32;
  space.prune = false;
  expect_every_variant_fits_or_matches(*cuda_case.solver, space);
}

// Face connectivity (Plan::connectivity = faces: one word per face and a table of face-node
// orders instead of vmapP) in every load path: neighbours read in the face fluxes (prefetch off),
// gathered with the state (on), copied with cp.async (async, the geometry in global or shared
// memory); scalar and FP64 tensor products, both derivatives.
class CudaFaceConnectivity : public ::testing::TestWithParam<CudaCase> {};

TEST_P(CudaFaceConnectivity, FaceConnectivityMatchesTheDefaultPlan) {
  if (!rtcg::cuda_available()) GTEST_SKIP() << rtcg::cuda_unavailable_reason();
  if (const std::string why = outside_sample(GetParam(), false); !why.empty()) GTEST_SKIP() << why;
  const CudaCase c = GetParam();
  Cavity cuda_case(c.law, c.n, c.N, rtcg::backend("cuda"), 1.0, c.scalar);
  PlanSpace space = PlanSpace::for_backend(rtcg::BackendKind::cuda);
  space.layouts = {Layout::element_major};
  space.elements_per_block = {3};
  space.nodes_per_thread = {1};
  space.operators = {Operators::global};
  space.products = {Products::scalar, Products::tensor};
  space.prefetch = {Prefetch::off, Prefetch::on, Prefetch::async};
  space.geometry = {GeometryPlace::global, GeometryPlace::shared};
  space.tile_rows = {8};
  space.k_unroll = {0};
  space.k_ahead = {0};
  space.groups_per_block = {1};
  space.connectivity = {Connectivity::faces};
  space.min_threads = 32;
  space.prune = false;
  expect_every_variant_fits_or_matches(*cuda_case.solver, space);
}

// Padded state columns (Plan::align = 16 and 64 bytes, where they change the node stride): the
// 16-byte copies of whole padded columns (async, element-major), one-real copies and gathers
// through the padded index (field-major, prefetch on); scalar and FP64 tensor products with 8-
// and 16-row tiles, both derivatives, the geometry in global and shared memory.
class CudaAlign : public ::testing::TestWithParam<CudaCase> {};

TEST_P(CudaAlign, PaddedColumnsMatchTheDefaultPlan) {
  if (!rtcg::cuda_available()) GTEST_SKIP() << rtcg::cuda_unavailable_reason();
  if (const std::string why = outside_sample(GetParam(), false); !why.empty()) GTEST_SKIP() << why;
  const CudaCase c = GetParam();
  Cavity cuda_case(c.law, c.n, c.N, rtcg::backend("cuda"), 1.0, c.scalar);
  PlanSpace space = PlanSpace::for_backend(rtcg::BackendKind::cuda);
  space.layouts = {Layout::field_major, Layout::element_major};
  space.elements_per_block = {3};
  space.nodes_per_thread = {1};
  space.operators = {Operators::global};
  space.products = {Products::scalar, Products::tensor};
  space.prefetch = {Prefetch::on, Prefetch::async};
  space.geometry = {GeometryPlace::global, GeometryPlace::shared};
  space.tile_rows = {8, 16};
  space.directions = {Directions::joint};
  space.k_unroll = {0};
  space.k_ahead = {0};
  space.groups_per_block = {1};
  space.align = {16, 64};
  space.min_threads = 32;
  space.prune = false;
  expect_every_variant_fits_or_matches(*cuda_case.solver, space);
}

// Column tiles (Plan::tiles = columns: the block's columns as the mma's 16 rows, m16n8k4 on
// sm_90): both derivatives, joint and split directions, 1-3 operator row tiles per warp item
// (held in registers where they fit), k loops unrolled fully and 2 steps at a time, padding
// columns (3 elements) and none (8 elements of 6 components); in float also on the TF32 tensor
// cores (products = tf32x3: mma.m16n8k8, three products per tile).
class CudaColumns : public ::testing::TestWithParam<CudaCase> {};

TEST_P(CudaColumns, ColumnTilesMatchTheDefaultPlan) {
  if (!rtcg::cuda_available()) GTEST_SKIP() << rtcg::cuda_unavailable_reason();
  if (const std::string why = outside_sample(GetParam(), false); !why.empty()) GTEST_SKIP() << why;
  const CudaCase c = GetParam();
  Cavity cuda_case(c.law, c.n, c.N, rtcg::backend("cuda"), 1.0, c.scalar);
  PlanSpace space = PlanSpace::for_backend(rtcg::BackendKind::cuda);
  space.layouts = {Layout::field_major, Layout::element_major};
  space.elements_per_block = {3, 8};
  space.nodes_per_thread = {1};
  space.operators = {Operators::global};
  space.products = {Products::tensor, Products::tf32x3};  // tf32x3: float only
  space.prefetch = {Prefetch::on, Prefetch::async};
  space.geometry = {GeometryPlace::global};
  space.tile_rows = {8};
  space.row_tiles = {1, 2, 3};
  space.k_unroll = {0, 2};
  space.k_ahead = {0};
  space.groups_per_block = {1};
  space.tiles = {Tiles::columns};
  space.min_threads = 32;
  space.max_threads = 1024;
  space.prune = false;
  expect_every_variant_fits_or_matches(*cuda_case.solver, space);
}

// Products by column with the operators in constant memory or as literals (Operators::constant,
// literals): both derivatives, both layouts, each prefetch, a partial block (3 elements) and a
// full one; orders whose operators do not fit (constant memory, the literal code's size) are
// refused as "does not fit".
class CudaByColumn : public ::testing::TestWithParam<CudaCase> {};

TEST_P(CudaByColumn, ByColumnProductsMatchTheDefaultPlan) {
  if (!rtcg::cuda_available()) GTEST_SKIP() << rtcg::cuda_unavailable_reason();
  if (const std::string why = outside_sample(GetParam(), false); !why.empty()) GTEST_SKIP() << why;
  const CudaCase c = GetParam();
  Cavity cuda_case(c.law, c.n, c.N, rtcg::backend("cuda"), 1.0, c.scalar);
  PlanSpace space = PlanSpace::for_backend(rtcg::BackendKind::cuda);
  space.layouts = {Layout::field_major, Layout::element_major};
  space.elements_per_block = {3, 8};
  space.nodes_per_thread = {1};
  space.operators = {Operators::constant, Operators::literals};
  space.products = {Products::scalar};
  space.prefetch = {Prefetch::off, Prefetch::on, Prefetch::async};
  space.geometry = {GeometryPlace::global};
  space.groups_per_block = {1};
  space.min_threads = 1;
  space.max_threads = 1024;
  space.prune = false;
  expect_every_variant_fits_or_matches(*cuda_case.solver, space);
}

// Bernstein plans on the device (Plan::basis): the state converted by the generated transform
// kernel at set_state, state, rhs and device_state, read by columns in copy_elements and the
// far-field transform, and the right-hand side and a step equal to the host's nodal default
// plan's (1e-11 relative in double; float to its rounding).
class CudaBernstein : public ::testing::TestWithParam<CudaCase> {};

TEST_P(CudaBernstein, BernsteinPlansMatchTheHostsNodalPlan) {
  if (!rtcg::cuda_available()) GTEST_SKIP() << rtcg::cuda_unavailable_reason();
  if (const std::string why = outside_sample(GetParam(), false); !why.empty()) GTEST_SKIP() << why;
  const CudaCase c = GetParam();
  const bool single = c.scalar == fluxes::ScalarType::float32;
  const double tolerance = single ? 1e-4 : 1e-11;
  Cavity host_case(c.law, c.n, c.N, rtcg::backend("host"));
  const std::vector<double> start = random_state(host_case.solver->size());
  host_case.solver->set_state(start);
  const std::vector<double> rhs = host_case.solver->rhs(0.3);
  const double dt = host_case.solver->stable_dt(0.5);
  host_case.solver->step(0.3, dt);
  const std::vector<double> after = host_case.solver->state();
  auto worst_of = [](const std::vector<double>& a, const std::vector<double>& b) {
    double scale = 0, worst = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
      scale = std::max(scale, std::abs(b[i]));
      worst = std::max(worst, std::abs(a[i] - b[i]));
    }
    return worst / scale;
  };
  // set_state then state() goes to the coefficients and back in the plan's precision: it loses
  // up to about eps x cond(V) of the largest value, V the Bernstein Vandermonde (infinity-norm
  // condition 1 to 640 at orders 1-7 on tetrahedra; float at order 7 lost 2.0e-6 on the H200).
  const BernsteinOperators b = make_bernstein(host_case.disc.element);
  const double condition = b.V.cwiseAbs().rowwise().sum().maxCoeff() * b.invV.cwiseAbs().rowwise().sum().maxCoeff();
  const double round_trip = single ? std::max(1e-6, 4 * 0x1p-24 * condition) : std::max(1e-13, 4 * 0x1p-53 * condition);
  Plan by_column;
  by_column.fusion = Fusion::stage;
  by_column.layout = Layout::element_major;
  by_column.stage_elements_per_block = 4;
  by_column.operators = c.N <= 5 ? Operators::literals : Operators::global;
  by_column.derivative = Derivative::state;
  by_column.prefetch = Prefetch::async;
  by_column.basis = Basis::bernstein;
  Plan tensor = by_column;
  tensor.operators = Operators::global;
  tensor.products = Products::tensor;
  tensor.align = 16;
  Plan stencil = by_column;
  stencil.operators = Operators::stencil;
  stencil.stage_elements_per_block = 2;
  stencil.geometry = GeometryPlace::shared;
  Plan shared_faces = stencil;  // the layered LIFT's faces on 4 threads per column (2 on triangles)
  shared_faces.face_threads = std::string(c.law).find("3d") != std::string::npos ? 4 : 2;
  Plan capped = shared_faces;  // a register cap below what the stencil takes in double (96): spills
  capped.geometry = GeometryPlace::global;
  capped.max_registers = 64;
  Plan late = shared_faces;  // the update input read where the update needs it
  late.prefetch_update = false;
  for (const Plan& plan : {by_column, tensor, stencil, shared_faces, capped, late}) {
    SCOPED_TRACE(plan.describe());
    Cavity cuda_case(c.law, c.n, c.N, rtcg::backend("cuda"), 1.0, c.scalar, Integrator::lserk4, plan);
    if (plan.max_registers != 0) {
      for (const auto& use : cuda_case.solver->kernel_uses()) EXPECT_LE(use.registers, plan.max_registers) << use.kernel;
    }
    cuda_case.solver->set_state(start);
    EXPECT_LE(worst_of(cuda_case.solver->state(), start), round_trip);
    EXPECT_LE(worst_of(cuda_case.solver->rhs(0.3), rhs), tolerance);
    cuda_case.solver->set_state(start);
    cuda_case.solver->step(0.3, dt);
    EXPECT_LE(worst_of(cuda_case.solver->state(), after), tolerance);
    std::vector<double> picked(after.size(), 0.0);
    const std::vector<int> elements = {0, cuda_case.disc.K - 1};
    cuda_case.solver->copy_elements(elements, picked);
    const int K = cuda_case.disc.K, Np = cuda_case.disc.element.Np;
    double worst = 0;
    for (const int k : elements)
      for (int comp = 0; comp < cuda_case.solver->components(); ++comp)
        for (int i = 0; i < Np; ++i) {
          const std::size_t at = (static_cast<std::size_t>(comp) * static_cast<std::size_t>(K) + static_cast<std::size_t>(k)) *
                                     static_cast<std::size_t>(Np) + static_cast<std::size_t>(i);
          worst = std::max(worst, std::abs(picked[at] - after[at]));
        }
    EXPECT_LE(worst, 10 * tolerance);

    // The far-field transform reads the coefficients as stored (Solver::stored_state), V_B's
    // row of each trace's node times its element's column, on the device: one sample's sums
    // against the host's nodal state after the step.
    const std::vector<std::pair<int, int>> faces = {{0, 0}, {K - 1, 1}, {K / 2, 2}};
    const HuygensSurface surface = huygens_surface(cuda_case.disc, faces);
    const int C = std::min(cuda_case.solver->components(), 6);
    std::array<int, 6> slots{-1, -1, -1, -1, -1, -1};
    for (int comp = 0; comp < C; ++comp) slots[static_cast<std::size_t>(comp)] = comp;
    const double omega = 2.5, t = 0.3 + dt;
    SurfaceDft dft(*cuda_case.solver, surface, slots, {omega});
    dft.accumulate(t, dt, 0.0);
    const std::vector<double> sums = dft.device_sums();
    const std::size_t P = surface.size();
    std::vector<double> expected(2 * static_cast<std::size_t>(C) * P);
    for (int comp = 0; comp < C; ++comp)
      for (std::size_t p = 0; p < P; ++p) {
        const std::size_t column = static_cast<std::size_t>(comp) * static_cast<std::size_t>(K) * static_cast<std::size_t>(Np);
        const double v = 0.5 * (after[column + static_cast<std::size_t>(surface.inner[p])] +
                                after[column + static_cast<std::size_t>(surface.outer[p])]);
        expected[2 * (static_cast<std::size_t>(comp) * P + p)] = v * dt * std::cos(omega * t);
        expected[2 * (static_cast<std::size_t>(comp) * P + p) + 1] = v * dt * std::sin(omega * t);
      }
    EXPECT_LE(worst_of(sums, expected), 10 * tolerance);
  }
}

std::vector<CudaCase> cases() {
  std::vector<CudaCase> out;
  for (int N = 1; N <= 7; ++N) {
    out.push_back({"maxwell3d", 2, N, fluxes::ScalarType::float64});
    out.push_back({"maxwell3d", 2, N, fluxes::ScalarType::float32});
  }
  for (int N : {1, 4, 7}) out.push_back({"maxwell2d_tm", 3, N, fluxes::ScalarType::float64});
  return out;
}

std::vector<CudaCase> k_unroll_cases() {
  std::vector<CudaCase> out;
  for (int N = 1; N <= 7; ++N) out.push_back({"maxwell3d", 2, N, fluxes::ScalarType::float64});
  for (int N : {2, 4, 7}) out.push_back({"maxwell3d", 2, N, fluxes::ScalarType::float32});
  out.push_back({"maxwell2d_tm", 3, 4, fluxes::ScalarType::float64});
  return out;
}

std::vector<CudaCase> teams_cases() {
  std::vector<CudaCase> out;
  for (int N = 1; N <= 5; ++N) out.push_back({"maxwell3d", 2, N, fluxes::ScalarType::float64});
  for (int N : {2, 4}) out.push_back({"maxwell3d", 2, N, fluxes::ScalarType::float32});
  out.push_back({"maxwell2d_tm", 3, 4, fluxes::ScalarType::float64});
  return out;
}

std::vector<CudaCase> async_cases() {
  std::vector<CudaCase> out;
  for (int N = 1; N <= 7; ++N) out.push_back({"maxwell3d", 2, N, fluxes::ScalarType::float64});
  for (int N : {2, 4}) out.push_back({"maxwell3d", 2, N, fluxes::ScalarType::float32});
  out.push_back({"maxwell2d_tm", 3, 4, fluxes::ScalarType::float64});
  return out;
}

// The pruning rule's count of blocks per SM against the driver's occupancy calculator, for a
// kernel of few registers (so threads, blocks and shared memory are what limit it).
TEST(CudaOccupancy, BlocksPerMultiprocessorMatchesTheDriver) {
  if (!rtcg::cuda_available()) GTEST_SKIP() << rtcg::cuda_unavailable_reason();
  rtcg::Backend& cuda = rtcg::backend("cuda");
  const rtcg::DeviceInfo device = cuda.device_info();
  ASSERT_GT(device.max_shared_memory_per_multiprocessor, 0);
  ASSERT_GT(device.max_blocks_per_multiprocessor, 0);
  ASSERT_GE(device.max_shared_memory_per_multiprocessor, device.max_shared_memory_per_block_optin);
  rtcg::Program program;
  program.name = "occupancy_probe";
  program.source = "RTCG_KERNEL(probe)(double* RTCG_RESTRICT y, long long n) {\n"
                   "  RTCG_GLOBAL_LOOP(i, n) { y[i] = 2.0 * y[i]; }\n"
                   "}\n";
  const auto kernel = cuda.compile(program)->kernel("probe");
  for (const int threads : {64, 160, 480})
    for (const std::size_t shared : {std::size_t{0}, std::size_t{9984}, std::size_t{26880}, std::size_t{49920},
                                     std::size_t{76032}, std::size_t{148224}, std::size_t{200448}}) {
      const std::optional<double> occupancy = kernel->occupancy(threads, shared);
      ASSERT_TRUE(occupancy.has_value());
      const int driver_blocks =
          static_cast<int>(std::lround(*occupancy * device.max_threads_per_multiprocessor / threads));
      EXPECT_EQ(blocks_per_multiprocessor(device, threads, shared), driver_blocks)
          << threads << " threads, " << shared << " bytes of shared memory";
    }
}

// Plan::graph: steps launched as one CUDA graph give bit for bit the steps launched kernel by
// kernel (the same kernels on the same data), for fused and unfused plans of LSERK4 and SSP-RK3, over steps whose stage times and ping-pong buffers differ (each graph updated in
// place), and after a change of plan. 3D Maxwell at order 3, double and float.
TEST(CudaGraph, StepsAsOneGraphMatchStepsLaunchedOneByOne) {
  if (!rtcg::cuda_available()) GTEST_SKIP() << rtcg::cuda_unavailable_reason();
  rtcg::Backend& cuda = rtcg::backend("cuda");
  const Plan fused = plan_from_text("fusion=stage layout=element_major elements=4 nodes_per_thread=1 operators=global "
                                    "derivative=state products=tensor prefetch=async");
  for (const auto scalar : {fluxes::ScalarType::float64, fluxes::ScalarType::float32})
    for (const Integrator integrator : {Integrator::lserk4, Integrator::ssprk3})
      for (const Plan& base : {fused, Plan{}}) {
        Cavity c("maxwell3d", 2, 3, cuda, 1.0, scalar, integrator);
        Solver& solver = *c.solver;
        const std::vector<double> start = random_state(solver.state().size());
        const double dt = solver.stable_dt(0.5);
        auto run = [&](bool graph) {
          Plan plan = base;
          plan.graph = graph;
          solver.set_plan(plan);
          solver.set_state(start);
          for (int s = 0; s < 3; ++s) solver.step(0.1 + s * dt, dt);  // an odd count: both buffer parities
          return solver.state();
        };
        const std::string what = base.describe() + (integrator == Integrator::ssprk3 ? ", SSP-RK3" : ", LSERK4") +
                                 (scalar == fluxes::ScalarType::float32 ? ", float" : ", double");
        const std::vector<double> direct = run(false);
        EXPECT_EQ(run(true), direct) << what;
        EXPECT_EQ(run(true), direct) << "the same graph, updated for the next steps: " << what;
        (void)run(false);
        EXPECT_EQ(run(true), direct) << "a new graph after a change of plan: " << what;
      }
}

// PlanSpace::graph with prune on (the default): the sweep times every plan launched kernel by
// kernel, then the winner once more as one CUDA graph (Job::refine); the tuning's winner is the
// faster of those, and the table says so. With prune off every plan is timed both ways.
TEST(CudaGraph, TheTunerTriesStepsAsOneGraphOnTheWinnerOnly) {
  if (!rtcg::cuda_available()) GTEST_SKIP() << rtcg::cuda_unavailable_reason();
  rtcg::Backend& cuda = rtcg::backend("cuda");
  Cavity c("maxwell3d", 2, 2, cuda);
  PlanSpace space = PlanSpace::for_backend(rtcg::BackendKind::cuda);
  space.layouts = {Layout::element_major};
  space.elements_per_block = {8, 16};  // 80 and 160 threads at order 2
  space.nodes_per_thread = {1};
  space.operators = {Operators::global};
  space.derivatives = {Derivative::state};
  space.products = {Products::scalar};
  space.prefetch = {Prefetch::async};
  space.geometry = {GeometryPlace::global};
  ASSERT_EQ(space.graph, (std::vector<bool>{false, true}));
  ASSERT_TRUE(space.prune);
  const PlanJob job = make_plan_job(*c.solver, space);
  EXPECT_TRUE(job.graph_on_winner);
  const rtcg::tune::TuningResult result = rtcg::tune::Tuner(cuda, plan_timing_options()).tune(job.job);
  std::optional<std::size_t> fastest_direct;
  std::vector<std::size_t> graphs;
  for (std::size_t k = 0; k < result.variants.size(); ++k) {
    const rtcg::tune::Timing& t = result.variants[k];
    if (t.point.at("graph") == 1) graphs.push_back(k);
    else if (t.ok() && (!fastest_direct || t.median_ms < result.variants[*fastest_direct].median_ms)) fastest_direct = k;
  }
  ASSERT_TRUE(fastest_direct);
  ASSERT_EQ(graphs.size(), 1u);
  EXPECT_EQ(graphs[0], result.variants.size() - 1);  // timed last
  const rtcg::tune::Timing& graph = result.variants[graphs[0]];
  EXPECT_TRUE(graph.ok()) << graph.status << ": " << graph.reason;  // and so it passed the check
  rtcg::tune::Point as_direct = graph.point;
  as_direct["graph"] = 0;
  EXPECT_EQ(as_direct, result.variants[*fastest_direct].point);
  EXPECT_EQ(*result.winner,
            graph.ok() && graph.median_ms < result.variants[*fastest_direct].median_ms ? graphs[0] : *fastest_direct);
  EXPECT_NE(format_plan_table(result, job).find("steps as CUDA graphs tried on the winner only"), std::string::npos);

  space.prune = false;
  const PlanJob every = make_plan_job(*c.solver, space);
  EXPECT_FALSE(every.graph_on_winner);
  EXPECT_FALSE(every.job.refine);
  // Every plan both ways but the default one (the space holds it as it is: rtdg's reference).
  const std::vector<rtcg::tune::Point> points = every.job.space.points();
  EXPECT_GE(points.size(), 5u);
  EXPECT_EQ(std::count_if(points.begin(), points.end(), [](const auto& p) { return p.at("graph") == 1; }) * 2 + 1,
            static_cast<std::ptrdiff_t>(points.size()));
}

std::string case_name(const ::testing::TestParamInfo<CudaCase>& p) {
  return std::string(p.param.law) + "_N" + std::to_string(p.param.N) +
         (p.param.scalar == fluxes::ScalarType::float32 ? "_f32" : "_f64");
}

INSTANTIATE_TEST_SUITE_P(Orders, CudaPlans, ::testing::ValuesIn(cases()), case_name);
INSTANTIATE_TEST_SUITE_P(Orders, CudaKUnroll, ::testing::ValuesIn(k_unroll_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(Orders, CudaTeams, ::testing::ValuesIn(teams_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(Orders, CudaAsync, ::testing::ValuesIn(async_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(Orders, CudaFaceConnectivity, ::testing::ValuesIn(async_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(Orders, CudaAlign, ::testing::ValuesIn(async_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(Orders, CudaColumns, ::testing::ValuesIn(async_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(Orders, CudaByColumn, ::testing::ValuesIn(async_cases()), case_name);
INSTANTIATE_TEST_SUITE_P(Orders, CudaBernstein, ::testing::ValuesIn(k_unroll_cases()), case_name);

}  // namespace
}  // namespace rtdg::dg
