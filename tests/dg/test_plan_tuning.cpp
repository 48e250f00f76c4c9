// The DG tuning job on the host backend: a small plan space on a tiny cavity is tuned, every
// variant passes the check against the default plan, the winner is stored and found again
// (exact, then nearest size class), RTDG_TUNE=off keeps the default, and a time budget stops
// the timing with the default plan still measured.
#include "solver_support.hpp"

#include <dg/error.hpp>
#include <dg/tuning.hpp>
#include <rtcg/backend.hpp>
#include <rtcg/tuner.hpp>
#include <rtcg/tuning_db.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>

namespace rtdg::dg {
namespace {

using test::Cavity;
namespace fs = std::filesystem;

rtcg::Backend& host() { return rtcg::backend("host"); }

// Unfused in one layout and the fused kernel with either derivative, either kind of products
// (the host runs tensor products as loops) and prefetching or not, and the tensor products of
// the flux derivative with split directions: eleven variants.
PlanSpace tiny_space() {
  PlanSpace space;
  space.layouts = {Layout::field_major};
  space.elements_per_block = {2};
  space.nodes_per_thread = {1};
  space.operators = {Operators::global};
  space.derivatives = {Derivative::flux, Derivative::state};
  space.products = {Products::scalar, Products::tensor};
  space.prefetch = {Prefetch::off, Prefetch::on};
  space.directions = {Directions::joint, Directions::split};
  space.k_unroll = {0};
  space.k_ahead = {0};
  space.groups_per_block = {1};
  space.min_threads = 1;
  return space;
}

fs::path scratch_db(const std::string& name) {
  const fs::path file = fs::path(::testing::TempDir()) / ("rtdg-plan-tuning-" + name + ".json");
  fs::remove(file);
  return file;
}

TEST(PlanTuning, EveryVariantPassesTheCheckAndTheWinnerIsStoredAndReused) {
  Cavity cavity("maxwell2d_tm", 2, 2, host());
  rtcg::tune::TuningDb db(scratch_db("store"));
  const PlanChoice tuned = choose_plan(*cavity.solver, rtcg::tune::TuneMode::force, db, 0, tiny_space());
  ASSERT_TRUE(tuned.tuned.has_value());
  EXPECT_EQ(tuned.tuned->variants.size(), 11u);  // unfused; fused d(flux), d(state), scalar or tensor, prefetch; split
  for (const rtcg::tune::Timing& t : tuned.tuned->variants) EXPECT_TRUE(t.ok()) << t.status << ": " << t.reason;
  EXPECT_EQ(cavity.solver->setup().plan, tuned.plan);  // the solver is left on the winner
  EXPECT_EQ(tuned.source.rfind("tuned now: 11 variants", 0), 0u) << tuned.source;

  // Another process (a new database object on the same file) finds it.
  rtcg::tune::TuningDb again(db.path());
  Cavity same("maxwell2d_tm", 2, 2, host());
  const PlanChoice reused = choose_plan(*same.solver, rtcg::tune::TuneMode::automatic, again, 0, tiny_space());
  EXPECT_FALSE(reused.tuned.has_value());
  EXPECT_EQ(reused.plan, tuned.plan);
  EXPECT_EQ(reused.source.rfind("tuning database (exact", 0), 0u) << reused.source;

  // A bigger mesh of the same law and order falls back to the nearest size class.
  Cavity bigger("maxwell2d_tm", 6, 2, host());
  const PlanChoice nearest = choose_plan(*bigger.solver, rtcg::tune::TuneMode::automatic, again, 0, tiny_space());
  EXPECT_EQ(nearest.plan, tuned.plan);
  EXPECT_EQ(nearest.source.rfind("tuning database (nearest problem class", 0), 0u) << nearest.source;

  // Another order has nothing stored: auto tunes it.
  Cavity other_order("maxwell2d_tm", 2, 3, host());
  const PlanChoice fresh = choose_plan(*other_order.solver, rtcg::tune::TuneMode::automatic, again, 0, tiny_space());
  EXPECT_TRUE(fresh.tuned.has_value());
}

TEST(PlanTuning, OffKeepsTheDefaultPlan) {
  Cavity cavity("maxwell2d_tm", 2, 2, host());
  rtcg::tune::TuningDb db(scratch_db("off"));
  const PlanChoice choice = choose_plan(*cavity.solver, rtcg::tune::TuneMode::off, db, 0, tiny_space());
  EXPECT_EQ(choice.plan, Plan{});
  EXPECT_EQ(choice.source, "default (RTDG_TUNE=off)");
  EXPECT_TRUE(db.records().empty());
}

TEST(PlanTuning, ASpentBudgetStillTimesTheDefaultPlan) {
  Cavity cavity("maxwell2d_tm", 2, 2, host());
  rtcg::tune::TuningDb db(scratch_db("budget"));
  const PlanChoice choice = choose_plan(*cavity.solver, rtcg::tune::TuneMode::force, db, 1e-9, tiny_space());
  ASSERT_TRUE(choice.tuned.has_value());
  EXPECT_TRUE(choice.tuned->budget_exhausted);
  EXPECT_EQ(choice.plan, Plan{});
  int budget = 0;
  for (const rtcg::tune::Timing& t : choice.tuned->variants) budget += t.status == "budget";
  EXPECT_EQ(budget, 10);  // every variant but the default plan
  EXPECT_NE(choice.source.find("time budget spent"), std::string::npos) << choice.source;
}

TEST(PlanTuning, PointsAndTextRoundTrip) {
  Plan plan;
  plan.fusion = Fusion::stage;
  plan.layout = Layout::element_major;
  plan.stage_elements_per_block = 4;
  plan.nodes_per_thread = 2;
  plan.operators = Operators::shared;
  plan.derivative = Derivative::state;
  EXPECT_EQ(plan_of(point_of(plan)), plan);
  EXPECT_EQ(plan_from_text(to_text(plan)), plan);
  EXPECT_EQ(to_text(plan),
            "fusion=stage layout=element_major elements=4 nodes_per_thread=2 operators=shared derivative=state "
            "products=scalar prefetch=off tile_rows=8 directions=joint row_tiles=1 k_unroll=all k_ahead=0 groups=1 "
            "teams=1 geometry=global connectivity=nodes align=0 tiles=rows");
  EXPECT_EQ(plan_from_text(to_text(Plan{})), Plan{});
  // Written before tensor products existed (checkpoints, tuning databases): scalar.
  EXPECT_EQ(plan_from_text("fusion=stage layout=element_major elements=4 nodes_per_thread=2 operators=shared "
                           "derivative=state"),
            plan);
  rtcg::tune::Point old_point = point_of(plan);
  old_point.erase("products");
  old_point.erase("prefetch");
  old_point.erase("tile_rows");
  old_point.erase("directions");
  old_point.erase("row_tiles");
  old_point.erase("k_unroll");
  old_point.erase("k_ahead");
  old_point.erase("groups");
  old_point.erase("teams");
  old_point.erase("geometry");
  old_point.erase("connectivity");
  old_point.erase("align");
  old_point.erase("tiles");
  EXPECT_EQ(plan_of(old_point), plan);
  plan.prefetch = Prefetch::on;
  EXPECT_EQ(plan_of(point_of(plan)), plan);
  plan.groups_per_block = 5;
  EXPECT_EQ(point_of(plan).at("groups"), 5);
  EXPECT_EQ(plan_of(point_of(plan)), plan);
  EXPECT_EQ(plan_from_text(to_text(plan)), plan);
  plan.teams = 3;
  EXPECT_EQ(point_of(plan).at("teams"), 3);
  EXPECT_EQ(plan_of(point_of(plan)), plan);
  EXPECT_EQ(plan_from_text(to_text(plan)), plan);
  plan.prefetch = Prefetch::async;
  plan.groups_per_block = 1;
  plan.geometry = GeometryPlace::shared;
  EXPECT_EQ(point_of(plan).at("prefetch"), 2);
  EXPECT_EQ(point_of(plan).at("geometry"), 1);
  EXPECT_EQ(plan_of(point_of(plan)), plan);
  EXPECT_EQ(plan_from_text(to_text(plan)), plan);
  rtcg::tune::Point bad_prefetch = point_of(plan);
  bad_prefetch["prefetch"] = 3;
  EXPECT_THROW((void)plan_of(bad_prefetch), Error);
  rtcg::tune::Point bad_geometry = point_of(plan);
  bad_geometry["geometry"] = 2;
  EXPECT_THROW((void)plan_of(bad_geometry), Error);
  plan.connectivity = Connectivity::faces;
  EXPECT_EQ(point_of(plan).at("connectivity"), 1);
  EXPECT_EQ(plan_of(point_of(plan)), plan);
  rtcg::tune::Point bad_connectivity = point_of(plan);
  bad_connectivity["connectivity"] = 2;
  EXPECT_THROW((void)plan_of(bad_connectivity), Error);
  plan.connectivity = Connectivity::nodes;
  plan.align = 16;
  EXPECT_EQ(point_of(plan).at("align"), 16);
  EXPECT_EQ(plan_of(point_of(plan)), plan);
  EXPECT_EQ(plan_from_text(to_text(plan)), plan);
  for (const std::int64_t bad : {-16, 4, 24, 256}) {
    rtcg::tune::Point bad_align = point_of(plan);
    bad_align["align"] = bad;
    EXPECT_THROW((void)plan_of(bad_align), Error) << bad;
  }
  plan.align = 0;
  plan.tiles = Tiles::columns;
  EXPECT_EQ(point_of(plan).at("tiles"), 1);
  EXPECT_EQ(plan_of(point_of(plan)), plan);
  EXPECT_EQ(plan_from_text(to_text(plan)), plan);
  EXPECT_NE(to_text(plan).find(" tiles=columns"), std::string::npos);
  EXPECT_NE(plan.describe().find(", column tiles"), std::string::npos) << plan.describe();
  rtcg::tune::Point bad_tiles = point_of(plan);
  bad_tiles["tiles"] = 2;
  EXPECT_THROW((void)plan_of(bad_tiles), Error);
  EXPECT_THROW((void)plan_from_text(to_text(plan) + "x"), Error);  // tiles=columnsx
  plan.tiles = Tiles::rows;
  plan.geometry = GeometryPlace::global;
  plan.prefetch = Prefetch::on;
  plan.groups_per_block = 5;
  rtcg::tune::Point bad_teams = point_of(plan);
  bad_teams["teams"] = max_teams + 1;
  EXPECT_THROW((void)plan_of(bad_teams), Error);
  plan.teams = 1;
  // The register cap: a point value, absent from points stored before it existed (0).
  plan.max_registers = 72;
  EXPECT_EQ(point_of(plan).at("max_registers"), 72);
  EXPECT_EQ(plan_of(point_of(plan)), plan);
  rtcg::tune::Point uncapped_point = point_of(plan);
  uncapped_point.erase("max_registers");
  EXPECT_EQ(plan_of(uncapped_point).max_registers, 0);
  for (const std::int64_t bad : {-8, 16, 256}) {
    rtcg::tune::Point bad_cap = point_of(plan);
    bad_cap["max_registers"] = bad;
    EXPECT_THROW((void)plan_of(bad_cap), Error) << bad;
  }
  plan.max_registers = 0;
  plan.groups_per_block = 1;
  plan.prefetch = Prefetch::off;
  plan.nodes_per_thread = 1;
  plan.products = Products::tensor;
  plan.operators = Operators::global;
  plan.tile_rows = 16;
  EXPECT_EQ(plan_of(point_of(plan)), plan);
  EXPECT_EQ(plan_from_text(to_text(plan)), plan);
  plan.derivative = Derivative::flux;
  plan.directions = Directions::split;
  EXPECT_EQ(plan_of(point_of(plan)), plan);
  EXPECT_EQ(plan_from_text(to_text(plan)), plan);
  plan.row_tiles = 3;
  EXPECT_EQ(point_of(plan).at("row_tiles"), 3);
  EXPECT_EQ(plan_of(point_of(plan)), plan);
  EXPECT_EQ(plan_from_text(to_text(plan)), plan);
  rtcg::tune::Point too_many = point_of(plan);
  too_many["row_tiles"] = max_row_tiles + 1;
  EXPECT_THROW((void)plan_of(too_many), Error);
  plan.k_unroll = 4;
  EXPECT_EQ(point_of(plan).at("k_unroll"), 4);
  EXPECT_EQ(plan_of(point_of(plan)), plan);
  EXPECT_EQ(plan_from_text(to_text(plan)), plan);
  rtcg::tune::Point unrolled_too_far = point_of(plan);
  unrolled_too_far["k_unroll"] = max_k_unroll + 1;
  EXPECT_THROW((void)plan_of(unrolled_too_far), Error);
  plan.k_ahead = 1;
  EXPECT_EQ(point_of(plan).at("k_ahead"), 1);
  EXPECT_EQ(plan_of(point_of(plan)), plan);
  EXPECT_EQ(plan_from_text(to_text(plan)), plan);
  rtcg::tune::Point too_far_ahead = point_of(plan);
  too_far_ahead["k_ahead"] = max_k_ahead + 1;
  EXPECT_THROW((void)plan_of(too_far_ahead), Error);
  too_far_ahead["k_ahead"] = -1;
  EXPECT_THROW((void)plan_of(too_far_ahead), Error);
  plan.k_ahead = 0;
  plan.k_unroll = 0;
  plan.row_tiles = 1;
  plan.derivative = Derivative::state;
  plan.directions = Directions::joint;
  plan.tile_rows = 8;
  plan.operators = Operators::global;
  plan.products = Products::tensor;
  EXPECT_EQ(plan_of(point_of(plan)), plan);
  EXPECT_EQ(plan_from_text(to_text(plan)), plan);
  EXPECT_EQ(plan.describe(),
            "fused stage, element_major, 4 elements/block, 1 nodes/thread, operators global, derivative of the state, "
            "tensor cores");
  plan.products = Products::tf32x3;
  plan.tile_rows = 16;
  EXPECT_EQ(point_of(plan).at("products"), 2);
  EXPECT_EQ(plan_of(point_of(plan)), plan);
  EXPECT_EQ(plan_from_text(to_text(plan)), plan);
  rtcg::tune::Point unknown = point_of(plan);
  unknown["products"] = 3;
  EXPECT_THROW((void)plan_of(unknown), Error);
  try {
    plan_from_text("fusion=stage layout=field_major elements=4 nodes_per_thread=9 operators=global derivative=flux");
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("nodes_per_thread=9 is not a whole number in 1..8"), std::string::npos)
        << error.what();
  }
}

// TF32 products are tried only for float on CUDA (sm_80 and newer): a host solver's search
// space leaves them out whatever the precision, and the tile rows stay 8.
TEST(PlanTuning, Tf32ProductsStayOutOfHostSpaces) {
  PlanSpace space = tiny_space();
  space.products.push_back(Products::tf32x3);
  for (const auto scalar : {fluxes::ScalarType::float32, fluxes::ScalarType::float64}) {
    Cavity cavity("maxwell2d_tm", 2, 2, host(), 1.0, scalar);
    const std::vector<rtcg::tune::Point> points = plan_search_space(*cavity.solver, space).points();
    EXPECT_EQ(points.size(), 11u);
    for (const rtcg::tune::Point& p : points) {
      EXPECT_NE(p.at("products"), 2) << rtcg::tune::to_string(p);
      EXPECT_EQ(p.at("tile_rows"), 8) << rtcg::tune::to_string(p);
    }
  }
}

// Pipelined element groups join only fused plans that prefetch; groups = 1 stays for all.
TEST(PlanTuning, PipelinedGroupsOnlyWithPrefetch) {
  PlanSpace space = tiny_space();
  space.groups_per_block = {1, 3};
  Cavity cavity("maxwell2d_tm", 2, 2, host());
  const std::vector<rtcg::tune::Point> points = plan_search_space(*cavity.solver, space).points();
  int pipelined = 0, single = 0;
  for (const rtcg::tune::Point& p : points) {
    if (p.at("groups") == 1) {
      ++single;
      continue;
    }
    ++pipelined;
    EXPECT_EQ(p.at("groups"), 3) << rtcg::tune::to_string(p);
    EXPECT_EQ(p.at("fusion"), 1) << rtcg::tune::to_string(p);
    EXPECT_EQ(p.at("prefetch"), 1) << rtcg::tune::to_string(p);
  }
  EXPECT_EQ(single, 11);  // the space without groups (Tf32ProductsStayOutOfHostSpaces)
  EXPECT_GT(pipelined, 0);
  EXPECT_EQ(plan_search_space(*cavity.solver, tiny_space()).points().size(), 11u);
}

// Prefetch async only with one group and one team; geometry in shared memory only with it.
TEST(PlanTuning, SharedGeometryOnlyWithAsyncPrefetch) {
  PlanSpace space = tiny_space();
  space.prefetch = {Prefetch::off, Prefetch::on, Prefetch::async};
  space.geometry = {GeometryPlace::global, GeometryPlace::shared};
  space.groups_per_block = {1, 2};
  Cavity cavity("maxwell2d_tm", 2, 2, host());
  int async = 0, shared = 0;
  for (const rtcg::tune::Point& p : plan_search_space(*cavity.solver, space).points()) {
    if (p.at("prefetch") == 2) {
      ++async;
      EXPECT_EQ(p.at("groups"), 1) << rtcg::tune::to_string(p);
      EXPECT_EQ(p.at("teams"), 1) << rtcg::tune::to_string(p);
    }
    if (p.at("geometry") == 1) {
      ++shared;
      EXPECT_EQ(p.at("prefetch"), 2) << rtcg::tune::to_string(p);
    }
  }
  // Each fused plan of tiny_space (2 derivatives x 2 products, split only for tensor flux: 5)
  // with async, geometry global and shared.
  EXPECT_EQ(async, 10);
  EXPECT_EQ(shared, 5);
  space.geometry = {GeometryPlace::global};
  for (const rtcg::tune::Point& p : plan_search_space(*cavity.solver, space).points()) EXPECT_EQ(p.at("geometry"), 0);
}

// Face connectivity joins fused plans only (the unfused kernels read vmapP), and each fused plan
// keeps vmapP too; the default space has vmapP only.
TEST(PlanTuning, FaceConnectivityOnlyForFusedPlans) {
  PlanSpace space = tiny_space();
  Cavity cavity("maxwell2d_tm", 2, 2, host());
  for (const rtcg::tune::Point& p : plan_search_space(*cavity.solver, space).points())
    EXPECT_EQ(p.at("connectivity"), 0) << rtcg::tune::to_string(p);
  space.connectivity = {Connectivity::faces};
  int nodes = 0, faces = 0;
  for (const rtcg::tune::Point& p : plan_search_space(*cavity.solver, space).points()) {
    if (p.at("connectivity") == 1) {
      ++faces;
      EXPECT_EQ(p.at("fusion"), 1) << rtcg::tune::to_string(p);
    } else if (p.at("fusion") == 1) {
      ++nodes;
    }
  }
  EXPECT_GT(faces, 0);
  EXPECT_EQ(faces, nodes);
}

// Register caps join fused plans of one team only, each beside its uncapped twin; the default
// space has none. A capped variant is timed with the spills it asks for (capped_local_bytes).
TEST(PlanTuning, RegisterCapsOnlyForFusedOneTeamPlans) {
  PlanSpace space = tiny_space();
  Cavity cavity("maxwell2d_tm", 2, 2, host());
  for (const rtcg::tune::Point& p : plan_search_space(*cavity.solver, space).points())
    EXPECT_EQ(p.at("max_registers"), 0) << rtcg::tune::to_string(p);
  space.max_registers = {80};  // 0 joins: the default plan has no cap
  int capped = 0, uncapped_fused = 0;
  for (const rtcg::tune::Point& p : plan_search_space(*cavity.solver, space).points()) {
    if (p.at("max_registers") == 80) {
      ++capped;
      EXPECT_EQ(p.at("fusion"), 1) << rtcg::tune::to_string(p);
      EXPECT_EQ(p.at("teams"), 1) << rtcg::tune::to_string(p);
    } else if (p.at("fusion") == 1 && p.at("teams") == 1) {
      ++uncapped_fused;
    }
  }
  EXPECT_GT(capped, 0);
  EXPECT_EQ(capped, uncapped_fused);
  const PlanJob job = make_plan_job(*cavity.solver, space);
  for (const rtcg::tune::Point& p : job.job.space.points()) {
    if (p.at("fusion") != 1) continue;
    const rtcg::tune::Variant variant = job.job.generate(p);
    if (p.at("max_registers") != 0) {
      ASSERT_TRUE(variant.max_local_bytes.has_value());
      EXPECT_EQ(*variant.max_local_bytes, capped_local_bytes);
    } else {
      EXPECT_FALSE(variant.max_local_bytes.has_value());
    }
  }
}

// Padding joins fused plans only, and only where it changes the node stride, once per stride:
// in double, order 4 on triangles (Np = 15) pads to 16 with 16 bytes, and 32, 64 and 128 bytes
// give 16 again; order 2 (Np = 6) is a multiple of 2 already, pads to 8 with 32 bytes (64: 8
// again) and to 16 with 128. Each padded plan keeps its unpadded twin; the default space has
// no padding.
TEST(PlanTuning, AlignOnlyWhereItChangesTheNodeStride) {
  PlanSpace space = tiny_space();
  Cavity order4("maxwell2d_tm", 2, 4, host());
  for (const rtcg::tune::Point& p : plan_search_space(*order4.solver, space).points())
    EXPECT_EQ(p.at("align"), 0) << rtcg::tune::to_string(p);
  EXPECT_EQ(PlanSpace::for_backend(rtcg::BackendKind::cuda).align, std::vector<int>{0});
  space.align = {16, 32, 64, 128};
  std::map<std::int64_t, int> by_align;
  int fused = 0;
  for (const rtcg::tune::Point& p : plan_search_space(*order4.solver, space).points()) {
    ++by_align[p.at("align")];
    if (p.at("align") != 0) EXPECT_EQ(p.at("fusion"), 1) << rtcg::tune::to_string(p);
    else if (p.at("fusion") == 1) ++fused;
  }
  EXPECT_GT(fused, 0);
  EXPECT_EQ(by_align[16], fused);
  EXPECT_EQ(by_align[32] + by_align[64] + by_align[128], 0);
  Cavity order2("maxwell2d_tm", 2, 2, host());
  by_align.clear();
  for (const rtcg::tune::Point& p : plan_search_space(*order2.solver, space).points()) ++by_align[p.at("align")];
  EXPECT_EQ(by_align[16], 0);
  EXPECT_EQ(by_align[32], fused);
  EXPECT_EQ(by_align[64], 0);
  EXPECT_EQ(by_align[128], fused);
  // In float a value's stride is compared with the list's smaller values, not with half of it:
  // 16 bytes (Np = 15 -> 16) is tried though 8 bytes would give 16 too, when 8 is not listed.
  Cavity single("maxwell2d_tm", 2, 4, host(), 1.0, fluxes::ScalarType::float32);
  space.align = {16};
  by_align.clear();
  for (const rtcg::tune::Point& p : plan_search_space(*single.solver, space).points()) ++by_align[p.at("align")];
  EXPECT_EQ(by_align[16], fused);
  space.align = {8, 16};
  by_align.clear();
  for (const rtcg::tune::Point& p : plan_search_space(*single.solver, space).points()) ++by_align[p.at("align")];
  EXPECT_EQ(by_align[8], fused);
  EXPECT_EQ(by_align[16], 0);
}

// A set k-loop unrolling joins only tensor-product plans; every plan keeps k_unroll = all too.
TEST(PlanTuning, KUnrollOnlyWithTensorProducts) {
  PlanSpace space = tiny_space();
  space.products = {Products::scalar, Products::tensor};
  space.k_unroll = {2};
  Cavity cavity("maxwell2d_tm", 2, 2, host());
  const std::vector<rtcg::tune::Point> points = plan_search_space(*cavity.solver, space).points();
  int unrolled = 0, tensor = 0;
  for (const rtcg::tune::Point& p : points) {
    if (p.at("products") != 0 && p.at("k_unroll") == 0) ++tensor;
    if (p.at("k_unroll") == 0) continue;
    ++unrolled;
    EXPECT_EQ(p.at("k_unroll"), 2) << rtcg::tune::to_string(p);
    EXPECT_NE(p.at("products"), 0) << rtcg::tune::to_string(p);
  }
  EXPECT_GT(tensor, 0);
  EXPECT_EQ(unrolled, tensor);  // each tensor plan once more, unrolled 2 steps at a time
  // A k step loaded ahead: FP64 tensor plans unrolled a set count only, each once more.
  space.k_ahead = {0, 1};
  int ahead = 0;
  for (const rtcg::tune::Point& p : plan_search_space(*cavity.solver, space).points()) {
    if (p.at("k_ahead") == 0) continue;
    ++ahead;
    EXPECT_EQ(p.at("products"), 1) << rtcg::tune::to_string(p);
    EXPECT_EQ(p.at("k_unroll"), 2) << rtcg::tune::to_string(p);
  }
  EXPECT_EQ(ahead, unrolled);
}

// The H100's occupancy limits (cuDeviceGetAttribute on an H100 80GB HBM3).
rtcg::DeviceInfo h100_limits() {
  rtcg::DeviceInfo device;
  device.max_threads_per_multiprocessor = 2048;
  device.max_blocks_per_multiprocessor = 32;
  device.max_shared_memory_per_multiprocessor = 233472;
  device.reserved_shared_memory_per_block = 1024;
  device.arch = "sm_90";
  device.compute_capability_major = 9;
  return device;
}

// The caps `--space max_registers=auto` derives from a compiled stage kernel: those that fit 1
// and 2 more blocks per SM where the registers are what limits them (H100 register file).
TEST(PlanTuning, DerivedRegisterCaps) {
  rtcg::DeviceInfo device = h100_limits();
  device.registers_per_multiprocessor = 65536;
  device.warp_size = 32;
  auto use = [](int registers, int threads, std::size_t shared, int blocks) {
    rtcg::tune::KernelUse u;
    u.kernel = "rtdg_stage_lserk";
    u.registers = registers;
    u.threads = threads;
    u.shared_bytes = shared;
    u.blocks_per_multiprocessor = blocks;
    return u;
  };
  // Order 6 stencil, 4 elements (336 threads, 11 warps, 96 registers: 1 block); its shared
  // memory allows 2: 2 blocks take at most 93 registers, so 88.
  EXPECT_EQ(register_caps(device, use(96, 336, 104000, 1)), std::vector<int>{88});
  // Order 5 16-row tensor plan, 4 elements (224 threads, 106 registers: 2 blocks): 3 blocks at
  // 96, 4 at 72 (measured on an H100: 1.981 ms per stage uncapped, 1.535 at 72).
  EXPECT_EQ(register_caps(device, use(106, 224, 40000, 2)), (std::vector<int>{96, 72}));
  // Order 4 stencil, 4 elements (140 threads in 5 warps, 96 registers: 4 blocks): 5 at 80, 6 at 64.
  EXPECT_EQ(register_caps(device, use(96, 140, 20000, 4)), (std::vector<int>{80, 64}));
  // Shared memory already sets the blocks (2 blocks of 110 KB): no cap gains one.
  EXPECT_TRUE(register_caps(device, use(96, 336, 110000, 2)).empty());
  // Few registers (56 at 7 blocks of 160 threads): 8 blocks would need 48, below min_derived_cap.
  EXPECT_TRUE(register_caps(device, use(56, 160, 10000, 7)).empty());
  // The host gives no register file.
  EXPECT_TRUE(register_caps(rtcg::DeviceInfo{}, use(96, 336, 104000, 1)).empty());
  // The space's text and the job: derived caps are on CUDA only.
  PlanSpace space = tiny_space();
  set_space_values(space, "max_registers=auto");
  EXPECT_TRUE(space.derived_register_caps);
  EXPECT_EQ(space.max_registers, std::vector<int>{0});
  set_space_values(space, "max_registers=0,80,auto");
  EXPECT_TRUE(space.derived_register_caps);
  EXPECT_EQ(space.max_registers, (std::vector<int>{0, 80}));
  set_space_values(space, "max_registers=0,80");
  EXPECT_FALSE(space.derived_register_caps);
  space.derived_register_caps = true;
  Cavity cavity("maxwell2d_tm", 2, 2, host());
  EXPECT_FALSE(make_plan_job(*cavity.solver, space).job.derive);
}

TEST(PlanTuning, BlocksPerMultiprocessor) {
  const rtcg::DeviceInfo device = h100_limits();
  EXPECT_EQ(blocks_per_multiprocessor(device, 480, 148224), 1);  // shared memory: 233472 / 149248
  EXPECT_EQ(blocks_per_multiprocessor(device, 160, 26880), 8);   // shared memory: 233472 / 27904
  EXPECT_EQ(blocks_per_multiprocessor(device, 160, 0), 12);      // threads: 2048 / 160
  EXPECT_EQ(blocks_per_multiprocessor(device, 32, 1024), 32);    // the block limit
  EXPECT_EQ(blocks_per_multiprocessor(rtcg::DeviceInfo{}, 160, 26880), 0);  // limits unknown (host)
}

// Pipelined groups are compiled only where they cost no blocks per SM: at order 7 (double,
// 4 elements, 16-row tiles of the state derivative) the plan runs one block per SM either way;
// at order 4 (the split flux derivative) pipelining would take 8 blocks per SM down to 5.
TEST(PlanTuning, PipelinedGroupsArePrunedWhereTheyCostBlocksPerSM) {
  auto spec_for = [](const test::Cavity& cavity, const std::string& plan) {
    KernelSpec spec = cavity.solver->kernel_spec();
    spec.plan = plan_from_text(plan);
    return spec;
  };
  const std::string common = "fusion=stage layout=element_major elements=4 nodes_per_thread=1 operators=global "
                             "products=tensor prefetch=on ";
  Cavity order7("maxwell3d", 1, 7, host());
  const std::string state16 = common + "derivative=state tile_rows=16 directions=joint";
  EXPECT_EQ(pipelining_pruned(spec_for(order7, state16 + " groups=2"), h100_limits()), "");
  EXPECT_EQ(pipelining_pruned(spec_for(order7, state16 + " groups=4"), h100_limits()), "");
  Cavity order4("maxwell3d", 1, 4, host());
  const std::string split = common + "derivative=flux tile_rows=8 directions=split";
  const std::string why = pipelining_pruned(spec_for(order4, split + " groups=2"), h100_limits());
  EXPECT_EQ(why.rfind("pipelined groups would cost blocks per SM: 5 instead of 8 (", 0), 0u) << why;
  EXPECT_EQ(pipelining_pruned(spec_for(order4, split + " groups=1"), h100_limits()), "");  // nothing to prune
  EXPECT_EQ(pipelining_pruned(spec_for(order4, split + " groups=2"), rtcg::DeviceInfo{}), "");  // the host

  // In a tuning job: pruned before compiling, with the rule as the reason; the host (no
  // limits) compiles every pipelined plan.
  PlanSpace space = tiny_space();
  space.groups_per_block = {1, 2};
  Cavity small("maxwell2d_tm", 2, 2, host());
  rtcg::tune::TuningDb db(scratch_db("pruned"));
  const PlanChoice tuned = choose_plan(*small.solver, rtcg::tune::TuneMode::force, db, 0, space);
  ASSERT_TRUE(tuned.tuned.has_value());
  for (const rtcg::tune::Timing& t : tuned.tuned->variants) EXPECT_NE(t.status, "pruned") << t.reason;
}

// Where prefetch async exists (sm_80 and newer) and the space tries it, plans without prefetch
// and scalar plans with prefetch on (one group) are pruned; never on the host or an older device.
TEST(PlanTuning, PrefetchPrunedWhereAsyncExists) {
  auto plan = [](const std::string& text) { return plan_from_text(text); };
  const std::string tensor = "fusion=stage layout=element_major elements=4 nodes_per_thread=1 operators=global "
                             "derivative=flux products=tensor";
  const std::string scalar = "fusion=stage layout=element_major elements=4 nodes_per_thread=1 operators=global "
                             "derivative=flux products=scalar";
  const rtcg::DeviceInfo h100 = h100_limits();
  ASSERT_EQ(h100.compute_capability_major, 9);
  EXPECT_NE(prefetch_pruned(plan(tensor + " prefetch=off"), h100, true).find("prefetch = async (tried too)"),
            std::string::npos);
  EXPECT_EQ(prefetch_pruned(plan(tensor + " prefetch=on"), h100, true), "");
  EXPECT_EQ(prefetch_pruned(plan(tensor + " prefetch=async"), h100, true), "");
  EXPECT_NE(prefetch_pruned(plan(scalar + " prefetch=on"), h100, true).find("scalar products"), std::string::npos);
  EXPECT_EQ(prefetch_pruned(plan(scalar + " prefetch=on groups=2"), h100, true), "");  // pipelined needs on
  EXPECT_EQ(prefetch_pruned(plan(scalar + " prefetch=async"), h100, true), "");
  EXPECT_EQ(prefetch_pruned(Plan{}, h100, true), "");  // unfused: the reference
  // A space without async (--space prefetch=off,on) keeps them all.
  EXPECT_EQ(prefetch_pruned(plan(tensor + " prefetch=off"), h100, false), "");
  EXPECT_EQ(prefetch_pruned(plan(scalar + " prefetch=on"), h100, false), "");
  rtcg::DeviceInfo older = h100;
  older.compute_capability_major = 7;
  older.arch = "sm_75";
  EXPECT_EQ(prefetch_pruned(plan(tensor + " prefetch=off"), older, true), "");
  rtcg::DeviceInfo host;
  host.arch = "host";
  EXPECT_EQ(prefetch_pruned(plan(scalar + " prefetch=off"), host, true), "");
}

// Bernstein plans (Plan::basis) enter the space as fused plans by column, where the law takes
// them and the space lists them; the tuning job checks them against the nodal default plan
// (the state converted between the bases); on CUDA basis_pruned keeps them to what won.
TEST(PlanTuning, BernsteinPlansByColumnWhereTheLawTakesThem) {
  PlanSpace space = tiny_space();
  space.operators = {Operators::global, Operators::literals};
  auto bernstein_points = [](const Solver& solver, const PlanSpace& s) {
    int count = 0;
    for (const rtcg::tune::Point& p : plan_search_space(solver, s).points()) {
      if (p.at("basis") == 0) continue;
      ++count;
      EXPECT_EQ(p.at("fusion"), 1) << rtcg::tune::to_string(p);
      EXPECT_EQ(p.at("operators"), static_cast<std::int64_t>(Operators::literals)) << rtcg::tune::to_string(p);
    }
    return count;
  };
  Cavity maxwell("maxwell2d_tm", 2, 2, host());
  EXPECT_GT(bernstein_points(*maxwell.solver, space), 0);
  PlanSpace nodal_only = space;
  set_space_values(nodal_only, "bases=nodal");
  EXPECT_EQ(bernstein_points(*maxwell.solver, nodal_only), 0);
  EXPECT_THROW(set_space_values(nodal_only, "bases=modal"), Error);
  EXPECT_EQ(bernstein_points(*maxwell.solver, PlanSpace::for_backend(rtcg::BackendKind::host)), 0);
  Cavity pml("maxwell2d_tm_pml", 2, 2, host());  // its damping depends on the position
  EXPECT_EQ(bernstein_points(*pml.solver, space), 0);

  // A job over the unfused default and the nodal and Bernstein literal plans: every variant
  // passes the check against the nodal default plan.
  PlanSpace job_space = space;
  job_space.derivatives = {Derivative::state};
  job_space.products = {Products::scalar};
  job_space.prefetch = {Prefetch::off};
  rtcg::tune::TuningDb db(scratch_db("bernstein"));
  const PlanChoice tuned = choose_plan(*maxwell.solver, rtcg::tune::TuneMode::force, db, 0, job_space);
  ASSERT_TRUE(tuned.tuned.has_value());
  int bernstein_timed = 0;
  for (const rtcg::tune::Timing& t : tuned.tuned->variants) {
    EXPECT_TRUE(t.ok()) << t.status << ": " << t.reason;
    bernstein_timed += t.point.count("basis") && t.point.at("basis") == 1;
  }
  // Either derivative (the space always holds the flux derivative), and the state derivative with
  // the faces on 2 threads per column (4 is more than a triangle's faces).
  EXPECT_EQ(bernstein_timed, 3);

  // Points and texts round-trip; a point stored before the basis existed is nodal.
  Plan plan = plan_from_text("fusion=stage layout=element_major elements=4 nodes_per_thread=1 operators=literals "
                             "derivative=state prefetch=async basis=bernstein");
  EXPECT_EQ(plan.basis, Basis::bernstein);
  EXPECT_EQ(plan_of(point_of(plan)), plan);
  rtcg::tune::Point old_point = point_of(plan);
  old_point.erase("basis");
  EXPECT_EQ(plan_of(old_point).basis, Basis::nodal);
  old_point["basis"] = 2;
  EXPECT_THROW((void)plan_of(old_point), Error);

  const rtcg::DeviceInfo h100 = h100_limits();
  // Only the lattice stencil, element-major with prefetch async and the geometry in global
  // memory, the faces on 4 threads per column (2 on triangles), from order 4 on.
  Plan stencil = plan_from_text(to_text(plan) + " operators=stencil elements=8 face_threads=4");
  EXPECT_EQ(plan_of(point_of(stencil)), stencil);
  for (int order : {4, 7}) EXPECT_EQ(basis_pruned(stencil, order, 4, h100), "");
  EXPECT_EQ(basis_pruned(stencil, 3, 4, h100).rfind("the Bernstein stencil below order 4", 0), 0u);
  for (int order : {4, 6}) EXPECT_EQ(basis_pruned(plan, order, 4, h100).rfind("Bernstein plans other than the lattice stencil", 0), 0u);
  for (const char* other : {"face_threads=2", "face_threads=1"})
    EXPECT_EQ(basis_pruned(plan_from_text(to_text(stencil) + " " + other), 5, 4, h100).rfind("the layered LIFT's faces on fewer", 0), 0u)
        << other;
  Plan on_triangles = plan_from_text(to_text(stencil) + " face_threads=2");
  EXPECT_EQ(basis_pruned(on_triangles, 5, 3, h100), "");
  for (const char* other : {"layout=field_major", "geometry=shared", "prefetch=on"})
    EXPECT_EQ(basis_pruned(plan_from_text(to_text(stencil) + " " + other), 5, 4, h100).rfind("stencil plans other than", 0), 0u)
        << other;
  EXPECT_EQ(operators_pruned(plan, 20000, h100, false), "");  // the nodal literal limit is not theirs
  Plan nodal = plan;
  nodal.basis = Basis::nodal;
  EXPECT_EQ(basis_pruned(nodal, 2, 4, h100), "");
  rtcg::DeviceInfo host_device;
  host_device.arch = "host";
  EXPECT_EQ(basis_pruned(plan, 2, 4, host_device), "");
}

// Plan::prefetch_update: a point value (absent from older points: on), a space list of on and
// off, tried only where CUDA code differs (never on the host, whatever the list says), and with
// `prune` on CUDA only for the stencil plans (update_pruned). Plan::graph the same way (CUDA only,
// off in the default space).
TEST(PlanTuning, LateUpdateInputInPointsSpacesAndPruning) {
  Plan stencil = plan_from_text("fusion=stage layout=element_major elements=4 nodes_per_thread=1 operators=stencil "
                                "derivative=state prefetch=async basis=bernstein face_threads=4");
  EXPECT_EQ(point_of(stencil).at("prefetch_update"), 1);
  stencil.prefetch_update = false;
  EXPECT_EQ(point_of(stencil).at("prefetch_update"), 0);
  EXPECT_EQ(plan_of(point_of(stencil)), stencil);
  rtcg::tune::Point old_point = point_of(stencil);
  old_point.erase("prefetch_update");
  EXPECT_TRUE(plan_of(old_point).prefetch_update);
  old_point["prefetch_update"] = 2;
  EXPECT_THROW((void)plan_of(old_point), Error);
  EXPECT_EQ(point_of(Plan{}).at("prefetch_update"), 1);

  PlanSpace space = tiny_space();
  EXPECT_EQ(space.prefetch_update, (std::vector<bool>{true, false}));
  set_space_values(space, "prefetch_update=on");
  EXPECT_EQ(space.prefetch_update, std::vector<bool>{true});
  set_space_values(space, "prefetch_update=off,on");
  EXPECT_EQ(space.prefetch_update, (std::vector<bool>{false, true}));
  try {
    set_space_values(space, "prefetch_update=late");
    ADD_FAILURE() << "no error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("prefetch_update value 'late' is not on or off"), std::string::npos)
        << error.what();
  }
  // Plan::graph: off and on by default (on CUDA, on the winner only: gpu test
  // CudaGraph.TheTunerTriesStepsAsOneGraphOnTheWinnerOnly), off only with graph=off; only CUDA
  // points take it; points stored before it was a plan value read as off.
  EXPECT_EQ(space.graph, (std::vector<bool>{false, true}));
  set_space_values(space, "graph=off");
  EXPECT_EQ(space.graph, std::vector<bool>{false});
  set_space_values(space, "graph=off,on");
  EXPECT_EQ(space.graph, (std::vector<bool>{false, true}));
  EXPECT_THROW(set_space_values(space, "graph=maybe"), Error);
  Plan graphed = stencil;
  graphed.graph = true;
  EXPECT_EQ(point_of(graphed).at("graph"), 1);
  EXPECT_EQ(plan_of(point_of(graphed)), graphed);
  rtcg::tune::Point before_graph = point_of(stencil);
  before_graph.erase("graph");
  EXPECT_FALSE(plan_of(before_graph).graph);
  before_graph["graph"] = 2;
  EXPECT_THROW((void)plan_of(before_graph), Error);
  // The host reads the update input where it is needed either way: no point is off there.
  Cavity cavity("maxwell2d_tm", 2, 2, host());
  for (const rtcg::tune::Point& p : plan_search_space(*cavity.solver, space).points()) {
    EXPECT_EQ(p.at("prefetch_update"), 1) << rtcg::tune::to_string(p);
    EXPECT_EQ(p.at("graph"), 0) << rtcg::tune::to_string(p);  // the host launches no graphs
  }
  const PlanJob host_job = make_plan_job(*cavity.solver, space);
  EXPECT_FALSE(host_job.graph_on_winner);
  EXPECT_FALSE(host_job.job.refine);  // nor tries one on the winner

  const rtcg::DeviceInfo h100 = h100_limits();
  EXPECT_EQ(update_pruned(stencil, h100), "");
  Plan tensor = plan_from_text("fusion=stage layout=element_major elements=4 nodes_per_thread=1 operators=global "
                               "derivative=state products=tensor prefetch=async");
  EXPECT_EQ(update_pruned(tensor, h100), "");  // on: nothing to prune
  tensor.prefetch_update = false;
  EXPECT_EQ(update_pruned(tensor, h100).rfind("the update input read late (prefetch_update = off) outside the stencil", 0),
            0u)
      << update_pruned(tensor, h100);
  rtcg::DeviceInfo host_device;
  host_device.arch = "host";
  EXPECT_EQ(update_pruned(tensor, host_device), "");
}

// Operators in constant memory are pruned on CUDA, literals where D and LIFT have more than
// 1,024 non-zero entries in double, 2,048 in float; nothing on the host. Their plans round-trip through points and text.
TEST(PlanTuning, OperatorsPrunedOnCuda) {
  const std::string scalar = "fusion=stage layout=element_major elements=8 nodes_per_thread=1 derivative=flux "
                             "products=scalar prefetch=async operators=";
  const Plan literals = plan_from_text(scalar + "literals"), constant = plan_from_text(scalar + "constant");
  EXPECT_EQ(literals.operators, Operators::literals);
  EXPECT_EQ(constant.operators, Operators::constant);
  for (const Plan& plan : {literals, constant}) {
    EXPECT_EQ(plan_of(point_of(plan)), plan);
    EXPECT_EQ(plan_from_text(to_text(plan)), plan);
  }
  EXPECT_EQ(literals.describe(), "fused stage, element_major, 8 elements/block, 1 nodes/thread, operators literals, "
                                 "derivative of the flux, prefetch async");
  rtcg::tune::Point unknown = point_of(literals);
  unknown["operators"] = 5;
  EXPECT_THROW((void)plan_of(unknown), Error);
  const rtcg::DeviceInfo h100 = h100_limits();
  // Non-zero entries of D and LIFT on tetrahedra: 342 at order 2, 1,286 at 3, 3,810 at 4.
  const long long order2 = operator_nonzeros(make_element(Shape::tetrahedron, 2));
  const long long order3 = operator_nonzeros(make_element(Shape::tetrahedron, 3));
  EXPECT_EQ(order2, 342);
  EXPECT_EQ(order3, 1286);
  EXPECT_LT(order3, operator_entries(make_element(Shape::tetrahedron, 3)));
  for (bool single : {false, true}) {
    EXPECT_EQ(operators_pruned(literals, order2, h100, single), "");
    EXPECT_EQ(operators_pruned(literals, 1024, h100, single), "");
    EXPECT_EQ(operators_pruned(constant, order2, h100, single).rfind("operators in constant memory", 0), 0u);
    EXPECT_EQ(operators_pruned(plan_from_text(scalar + "global"), 5775, h100, single), "");
  }
  // Order 3: pruned in double, tried in float; order 4 pruned in both.
  EXPECT_EQ(operators_pruned(literals, order3, h100, false).rfind("operators as literals with 1286 non-zero entries", 0), 0u);
  EXPECT_EQ(operators_pruned(literals, order3, h100, true), "");
  EXPECT_EQ(operators_pruned(literals, 3810, h100, true).rfind("operators as literals with 3810 non-zero entries", 0), 0u);
  rtcg::DeviceInfo host;
  host.arch = "host";
  EXPECT_EQ(operators_pruned(literals, 5775, host, false), "");
  EXPECT_EQ(operators_pruned(constant, 540, host, true), "");
}

// On sm_90 and newer, FP64-tensor plans with 16-row tiles outside 2-8 elements per block, and a
// set k unrolling other than with 16-row tiles and prefetch async, are pruned; nothing on the
// host, below sm_90 or for other products.
TEST(PlanTuning, TilingPrunedOnSm90) {
  auto plan = [](const std::string& text) { return plan_from_text(text); };
  auto tensor = [](int elements, int rows, const std::string& prefetch, const std::string& k_unroll) {
    return "fusion=stage layout=element_major elements=" + std::to_string(elements) +
           " nodes_per_thread=1 operators=global derivative=state products=tensor prefetch=" + prefetch +
           " tile_rows=" + std::to_string(rows) + " k_unroll=" + k_unroll;
  };
  const rtcg::DeviceInfo h100 = h100_limits();
  ASSERT_EQ(h100.compute_capability_major, 9);
  for (const int elements : {2, 4, 8}) {
    EXPECT_EQ(tiling_pruned(plan(tensor(elements, 16, "async", "all")), h100, false), "");
    EXPECT_EQ(tiling_pruned(plan(tensor(elements, 16, "on", "all")), h100, false), "");
    EXPECT_EQ(tiling_pruned(plan(tensor(elements, 16, "async", "2")), h100, false), "");
  }
  for (const int elements : {1, 16, 32}) {
    const std::string why = tiling_pruned(plan(tensor(elements, 16, "async", "all")), h100, false);
    EXPECT_EQ(why.rfind("16-row tiles with " + std::to_string(elements) + " elements per block (rule tiling.rows16_elements: no such plan came within 10 %", 0), 0u)
        << why;
    EXPECT_EQ(tiling_pruned(plan(tensor(elements, 8, "async", "all")), h100, false), "");  // 8-row tiles: any count
  }
  const std::string unrolled = "k steps unrolled a set count (k_unroll) other than with 16-row tiles and prefetch = async (rule tiling.k_unroll";
  // A k step loaded ahead: the state derivative only (with 16-row tiles and async, as k_unroll).
  EXPECT_EQ(tiling_pruned(plan(tensor(4, 16, "async", "2") + " k_ahead=1"), h100, false), "");
  const std::string flux_ahead = tiling_pruned(
      plan("fusion=stage layout=element_major elements=4 nodes_per_thread=1 operators=global derivative=flux "
           "products=tensor prefetch=async tile_rows=16 k_unroll=2 k_ahead=1"),
      h100, false);
  EXPECT_EQ(flux_ahead.rfind("a k step loaded ahead (k_ahead) with the flux derivative", 0), 0u) << flux_ahead;
  EXPECT_EQ(tiling_pruned(plan(tensor(4, 8, "async", "2")), h100, false).rfind(unrolled, 0), 0u);
  EXPECT_EQ(tiling_pruned(plan(tensor(4, 16, "on", "2")), h100, false).rfind(unrolled, 0), 0u);
  EXPECT_EQ(tiling_pruned(plan(tensor(4, 16, "off", "1")), h100, false).rfind(unrolled, 0), 0u);
  // Other products, the unfused default, older devices and the host: never.
  EXPECT_EQ(tiling_pruned(plan("fusion=stage layout=element_major elements=1 nodes_per_thread=1 operators=global "
                               "derivative=flux products=tf32x3 prefetch=on tile_rows=16 k_unroll=2"),
                          h100, true),
            "");
  EXPECT_EQ(tiling_pruned(Plan{}, h100, false), "");
  rtcg::DeviceInfo a100 = h100;
  a100.compute_capability_major = 8;
  a100.arch = "sm_80";
  EXPECT_EQ(tiling_pruned(plan(tensor(1, 16, "async", "2")), a100, false), "");
  rtcg::DeviceInfo host;
  host.arch = "host";
  EXPECT_EQ(tiling_pruned(plan(tensor(1, 8, "off", "2")), host, false), "");
  // Column tiles: float with 2-8 elements, more than one row tile per item and k loops unrolled
  // fully.
  auto columns = [&](int elements, int row_tiles, const std::string& prefetch, const std::string& k_unroll) {
    return plan(tensor(elements, 8, prefetch, k_unroll) + " tiles=columns row_tiles=" + std::to_string(row_tiles));
  };
  for (const int elements : {2, 4, 8}) {
    EXPECT_EQ(tiling_pruned(columns(elements, 2, "async", "all"), h100, true), "");
    EXPECT_EQ(tiling_pruned(columns(elements, 3, "on", "all"), h100, true), "");
  }
  const std::string in_double = tiling_pruned(columns(8, 2, "async", "all"), h100, false);
  EXPECT_EQ(in_double.rfind("column tiles in double", 0), 0u) << in_double;
  const std::string one_row_tile = tiling_pruned(columns(8, 1, "async", "all"), h100, true);
  EXPECT_EQ(one_row_tile.rfind("column tiles with one operator row tile per warp item", 0), 0u) << one_row_tile;
  const std::string sixteen_elements = tiling_pruned(columns(16, 2, "async", "all"), h100, true);
  EXPECT_EQ(sixteen_elements.rfind("column tiles with 16 elements per block", 0), 0u) << sixteen_elements;
  const std::string columns_unrolled = tiling_pruned(columns(8, 2, "async", "2"), h100, true);
  EXPECT_EQ(columns_unrolled.rfind("column tiles with k steps unrolled a set count", 0), 0u) << columns_unrolled;
  EXPECT_EQ(tiling_pruned(columns(1, 1, "off", "2"), a100, false), "");
  EXPECT_EQ(tiling_pruned(columns(1, 1, "off", "2"), host, false), "");
  // TF32 column tiles: the column-tile rules, nothing else.
  auto tf32_columns = [&](int elements, int row_tiles, const std::string& k_unroll) {
    Plan p = columns(elements, row_tiles, "async", k_unroll);
    p.products = Products::tf32x3;
    return p;
  };
  EXPECT_EQ(tiling_pruned(tf32_columns(8, 2, "all"), h100, true), "");
  EXPECT_EQ(tiling_pruned(tf32_columns(8, 1, "all"), h100, true).rfind("column tiles with one operator row tile", 0),
            0u);
  EXPECT_EQ(tiling_pruned(tf32_columns(16, 2, "all"), h100, true).rfind("column tiles with 16 elements per block", 0),
            0u);
  EXPECT_EQ(tiling_pruned(tf32_columns(4, 2, "2"), h100, true).rfind("column tiles with k steps unrolled", 0), 0u);
}

// A space without the default plan's layout (rtdg tune dg --space layouts=element_major) or
// without unfused plans still holds the default plan, the reference every variant is checked
// and timed against, and no other plan of what was left out.
TEST(PlanTuning, TheDefaultPlanStaysInEverySpace) {
  Cavity cavity("maxwell2d_tm", 2, 2, host());
  const rtcg::tune::Point reference = point_of(Plan{});
  ASSERT_EQ(reference.at("layout"), static_cast<std::int64_t>(Layout::field_major));
  for (const bool unfused : {true, false}) {
    PlanSpace space = tiny_space();
    space.layouts = {Layout::element_major};
    space.unfused = unfused;
    const std::vector<rtcg::tune::Point> points = plan_search_space(*cavity.solver, space).points();
    int references = 0, element_major_unfused = 0;
    for (const rtcg::tune::Point& p : points) {
      if (p == reference) {
        ++references;
        continue;
      }
      EXPECT_EQ(p.at("layout"), static_cast<std::int64_t>(Layout::element_major)) << rtcg::tune::to_string(p);
      if (p.at("fusion") == 0) ++element_major_unfused;
    }
    EXPECT_EQ(references, 1);
    EXPECT_EQ(element_major_unfused, unfused ? 1 : 0);
    EXPECT_EQ(points.size(), unfused ? 12u : 11u);  // the 10 fused plans, the default, unfused element-major
  }
  // And the tuner accepts it (it refuses a space without its default point).
  PlanSpace space = tiny_space();
  space.layouts = {Layout::element_major};
  space.derivatives = {Derivative::flux};
  space.products = {Products::scalar};
  space.prefetch = {Prefetch::off};
  space.directions = {Directions::joint};
  rtcg::tune::TuningDb db(scratch_db("layouts"));
  const PlanChoice tuned = choose_plan(*cavity.solver, rtcg::tune::TuneMode::force, db, 0, space);
  ASSERT_TRUE(tuned.tuned.has_value());
  for (const rtcg::tune::Timing& t : tuned.tuned->variants) EXPECT_TRUE(t.ok()) << t.status << ": " << t.reason;
}

// rtdg tune dg --space: a list replaced by name, bad input named.
TEST(PlanTuning, SpaceValuesFromText) {
  PlanSpace space;
  set_space_values(space, "groups=1,2,4");
  EXPECT_EQ(space.groups_per_block, (std::vector<int>{1, 2, 4}));
  set_space_values(space, "products=scalar,tensor,tf32x3");
  EXPECT_EQ(space.products, (std::vector<Products>{Products::scalar, Products::tensor, Products::tf32x3}));
  set_space_values(space, "layouts=element_major");
  EXPECT_EQ(space.layouts, (std::vector<Layout>{Layout::element_major}));
  set_space_values(space, "tile_rows=16");
  EXPECT_EQ(space.tile_rows, (std::vector<int>{16}));
  set_space_values(space, "row_tiles=1,2,3");
  EXPECT_EQ(space.row_tiles, (std::vector<int>{1, 2, 3}));
  set_space_values(space, "k_unroll=all,1,2");
  EXPECT_EQ(space.k_unroll, (std::vector<int>{0, 1, 2}));
  set_space_values(space, "k_ahead=1");
  EXPECT_EQ(space.k_ahead, (std::vector<int>{1}));
  set_space_values(space, "connectivity=nodes,faces");
  EXPECT_EQ(space.connectivity, (std::vector<Connectivity>{Connectivity::nodes, Connectivity::faces}));
  set_space_values(space, "align=0,16,128");
  EXPECT_EQ(space.align, (std::vector<int>{0, 16, 128}));
  set_space_values(space, "tiles=columns,rows");
  EXPECT_EQ(space.tiles, (std::vector<Tiles>{Tiles::columns, Tiles::rows}));
  set_space_values(space, "elements=3,5");
  EXPECT_EQ(space.elements_per_block, (std::vector<int>{3, 5}));
  EXPECT_TRUE(space.prune);
  set_space_values(space, "prune=off");
  EXPECT_FALSE(space.prune);
  set_space_values(space, "prune=on");
  EXPECT_TRUE(space.prune);
  auto error_of = [&](const std::string& text) {
    try {
      set_space_values(space, text);
    } catch (const Error& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_of("groups"), "plan space 'groups': expected name=value,value,... (e.g. groups=1,2,4)");
  EXPECT_EQ(error_of("groups=1,,2"), "plan space 'groups=1,,2': an empty value");
  EXPECT_EQ(error_of("groups=1,2,"), "plan space 'groups=1,2,': an empty value");
  EXPECT_EQ(error_of("groups=0"), "plan space 'groups=0': groups value '0' is not a whole number in 1..64");
  EXPECT_EQ(error_of("tile_rows=12"), "plan space 'tile_rows=12': tile_rows value '12' is not 8 or 16");
  EXPECT_EQ(error_of("row_tiles=9"), "plan space 'row_tiles=9': row_tiles value '9' is not a whole number in 1..8");
  EXPECT_EQ(error_of("k_unroll=all,0"),
            "plan space 'k_unroll=all,0': k_unroll value '0' is not 'all' or a whole number in 1..16");
  EXPECT_EQ(error_of("products=tf32"),
            "plan space 'products=tf32': unknown products 'tf32'; valid values: scalar, tensor, tf32x3");
  EXPECT_EQ(error_of("k_ahead=2"), "plan space 'k_ahead=2': k_ahead value '2' is not a whole number in 0..1");
  EXPECT_EQ(error_of("prune=no"), "plan space 'prune=no': prune is on or off (one value)");
  EXPECT_EQ(error_of("prune=on,off"), "plan space 'prune=on,off': prune is on or off (one value)");
  EXPECT_NE(error_of("group=2").find("unknown name 'group'; valid names: layouts, elements,"), std::string::npos);
  EXPECT_NE(error_of("group=2").find("geometry, connectivity, align, tiles, bases, face_threads, max_registers, prefetch_update, graph, prune"),
            std::string::npos);
  EXPECT_EQ(error_of("max_registers=0,24"),
            "plan space 'max_registers=0,24': max_registers value '24' is not 0 or 32 to 255");
  EXPECT_EQ(error_of("max_registers=300"),
            "plan space 'max_registers=300': max_registers value '300' is not 0 or 32 to 255");
  EXPECT_EQ(error_of("face_threads=1,3"), "plan space 'face_threads=1,3': face_threads value '3' is not 1, 2 or 4");
  EXPECT_EQ(error_of("tiles=cols"), "plan space 'tiles=cols': unknown tiles 'cols'; valid values: rows, columns");
  EXPECT_EQ(error_of("align=24"),
            "plan space 'align=24': align value '24' is not 0 or a power of two from 8 to 128 (bytes)");
  EXPECT_EQ(error_of("align=256"), "plan space 'align=256': align value '256' is not 0 or a power of two from 8 to 128 (bytes)");
  EXPECT_EQ(space.groups_per_block, (std::vector<int>{1, 2, 4}));  // a refused change leaves the list
}

TEST(PlanTuning, BudgetFromTheEnvironment) {
  ::setenv("RTDG_TUNE_BUDGET", "12.5", 1);
  EXPECT_EQ(tune_budget_seconds(), 12.5);
  ::setenv("RTDG_TUNE_BUDGET", "soon", 1);
  EXPECT_THROW(tune_budget_seconds(), Error);
  ::unsetenv("RTDG_TUNE_BUDGET");
  EXPECT_EQ(tune_budget_seconds(), 60.0);
}

// The tune dg table: the most registers and fewest blocks per SM over a plan's kernels, "-"
// where unknown; a dropped plan's whole reason (compiler messages can be long) on its own row;
// the pruned ones counted, not listed.
TEST(PlanTuning, TableRowsKeepLongReasonsWhole) {
  PlanJob job;
  job.stages_per_step = 5;
  job.minimal_bytes_per_stage = 1e9;
  job.useful_flops_per_stage = 2e9;
  rtcg::tune::TuningResult result;
  Plan fast;
  fast.fusion = Fusion::stage;
  fast.layout = Layout::element_major;
  fast.stage_elements_per_block = 4;
  fast.products = Products::tensor;
  fast.prefetch = Prefetch::on;
  Plan long_reason = fast;
  long_reason.row_tiles = 3;
  Plan pruned = fast;
  pruned.groups_per_block = 2;
  rtcg::tune::Timing ok;
  ok.point = point_of(fast);
  ok.status = "ok";
  ok.median_ms = 5.0;
  ok.kernels = {{"rtdg_volume", 40, 128, 0, 12}, {"rtdg_surface", 56, 128, 0, 7}, {"rtdg_update", 16, 256, 0, 8}};
  rtcg::tune::Timing dropped;
  dropped.point = point_of(long_reason);
  dropped.status = "generate";
  dropped.reason = "the plan does not fit: " + std::string(600, 'x') + " END";
  rtcg::tune::Timing rule;
  rule.point = point_of(pruned);
  rule.status = "pruned";
  rule.reason = "costs blocks (rule pipelining.blocks: fewer blocks per SM; H200, 2026-11-29)";
  rtcg::tune::Timing unnamed = rule;
  unnamed.reason = "a reason without a rule";
  result.variants = {ok, dropped, rule, rule, unnamed};
  result.winner = 0;
  const std::string table = format_plan_table(result, job);
  std::vector<std::string> lines;
  std::istringstream in(table);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 5u) << table;
  EXPECT_EQ(lines[0].rfind("plan ", 0), 0u) << lines[0];
  EXPECT_EQ(lines[1].rfind(fast.describe(), 0), 0u) << lines[1];
  EXPECT_NE(lines[1].find("    5.0000     1.0000    1000.0    2000.0    56         7  winner"), std::string::npos)
      << lines[1];
  EXPECT_NE(lines[0].find("GFLOP/s  regs blocks/SM  status"), std::string::npos) << lines[0];
  EXPECT_EQ(lines[2].rfind(long_reason.describe(), 0), 0u) << lines[2];
  EXPECT_NE(lines[2].find("-     -         -  generate: the plan does not fit: " + std::string(600, 'x') + " END"),
            std::string::npos)
      << lines[2];
  EXPECT_EQ(lines[3], "2 variants, compile 0.0 s, timing 0.0 s");
  EXPECT_EQ(lines[4], "3 more pruned before compiling by the rules of " + pruning_rules().source +
                          ": pipelining.blocks 2, unnamed 1 (`rtdg tune dg --explain` says what each rule drops and "
                          "why; --space prune=off keeps them)");
}

}  // namespace
}  // namespace rtdg::dg
