// Every DG kernel source the generator makes compiles with NVRTC for sm_90 (no GPU needed):
// each law in data/laws with all of its boundary conditions (and a plane wave where one reads
// an incident field), at low and high orders, in float and double, for the unfused plan in
// both layouts and the fused stage kernel with its choices; and the shock-capturing kernel
// (filter and positivity limiter) of dg/stabilization.hpp; the max-wave-speed reduction of
// dg/wave_speed.hpp.
#include "solver_support.hpp"

#include <dg/bernstein.hpp>
#include <dg/cubature.hpp>
#include <dg/element.hpp>
#include <dg/error.hpp>
#include <dg/incident.hpp>
#include <dg/kernels.hpp>
#include <dg/total_field.hpp>
#include <dg/stabilization.hpp>
#include <dg/wave_speed.hpp>
#include <rtcg/compiler.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include <map>
#include <set>
#include <string>
#include <vector>

namespace rtdg::dg {
namespace {

const Element& element(Shape shape, int N) {
  static std::map<std::pair<Shape, int>, Element> cache;
  auto it = cache.find({shape, N});
  if (it == cache.end()) it = cache.emplace(std::pair{shape, N}, make_element(shape, N)).first;
  return it->second;
}

TEST(GeneratedDgKernels, CompileWithNvrtcForSm90) {
  const auto nvrtc = rtcg::make_nvrtc_compiler("sm_90");
  std::size_t programs = 0;  // generated so far (test::nvrtc_compiles)
  // The laws added later compile at one order: what they add (a source reading the position,
  // other boundary conditions) does not depend on it, and each order costs seconds of NVRTC.
  // euler2d_riemann is euler2d's kernel with other conditions: the two basic plans suffice.
  const std::set<std::string> one_order = {"shallow_water", "euler2d_riemann", "elastic2d", "euler3d", "maxwell2d_tm_pml",
                                           "maxwell3d_pml"};
  const std::set<std::string> nonlinear = {"euler2d", "euler2d_riemann", "shallow_water", "euler3d"};
  for (const char* name : {"advection", "acoustics", "maxwell2d_tm", "maxwell2d_te", "maxwell3d", "euler2d",
                           "euler2d_riemann", "shallow_water", "elastic2d", "euler3d", "maxwell2d_tm_pml", "maxwell3d_pml"}) {
    const fluxes::Law law = test::law_file(name);
    const bool few_plans = std::string(name) == "euler2d_riemann";
    const Shape shape = law.dimension == 2 ? Shape::triangle : Shape::tetrahedron;
    KernelSpec spec;
    spec.law = &law;
    spec.parameters = fluxes::resolve_parameters(law);
    for (const fluxes::BoundaryCondition& bc : law.boundaries) spec.conditions.push_back(&bc);
    if (std::string(name).rfind("maxwell", 0) == 0) {
      const bool te = std::string(name) == "maxwell2d_te";  // E in the plane
      spec.incident = lower_plane_wave(law, PlaneWave{{1, 0, 0}, {0, te ? 1.0 : 0.0, te ? 0.0 : 1.0}}, 1.0, 1.0, 0.0);
      // Total-field/scattered-field faces too (their branch reads the incident field).
      spec.tfsf = incident_components(law);
    } else if (law.env.incident_components() > 0) {
      // Other laws' incident fields: any DAG over x and t will do for compiling, sin(t) here.
      fluxes::Lowered incident;
      const fluxes::NodeId t = incident.dag.input({fluxes::InputKind::time, 0});
      for (std::size_t c = 0; c < law.env.incident_components(); ++c)
        incident.outputs.push_back(incident.dag.unary(fluxes::Op::sin, t));
      spec.incident = incident;
    }
    for (int N : {1, 4, 10}) {
      if (one_order.count(name) && N != 4) continue;
      spec.element = &element(shape, N);
      for (const auto scalar : {fluxes::ScalarType::float32, fluxes::ScalarType::float64})
        for (const int variant : {0, 1, 2, 3, 4, 5, 6, 7, 8}) {
          // The unfused plan in both layouts, the fused stage kernel with its choices, and
          // its tensor-core products for both derivatives (float: two of them).
          if (variant == 4 && scalar != fluxes::ScalarType::float64) continue;
          if (variant == 7 && scalar != fluxes::ScalarType::float32) continue;
          if (variant == 8 && N != 4) continue;
          if (few_plans && (variant % 2 || scalar != fluxes::ScalarType::float64)) continue;
          spec.scalar = scalar;
          spec.plan = Plan{};
          spec.plan.layout = variant % 2 ? Layout::element_major : Layout::field_major;
          if (variant >= 2) {
            spec.plan.fusion = Fusion::stage;
            spec.plan.nodes_per_thread = variant == 2 ? 1 : 3;
            spec.plan.operators = variant == 2 || N >= 8 ? Operators::global : Operators::shared;
            // Only a linear flux may be differentiated as the state.
            spec.plan.derivative =
                (variant == 3 || variant == 5) && !nonlinear.count(name) ? Derivative::state : Derivative::flux;
          }
          if (variant >= 4) {
            spec.plan.nodes_per_thread = 1;
            spec.plan.operators = Operators::global;
            spec.plan.products = Products::tensor;
          }
          // Prefetching in a scalar and a tensor-product plan.
          if (variant == 2 || variant == 5) spec.plan.prefetch = Prefetch::on;
          // 16-row tiles (m16n8k16 and m16n8k4 on sm_90) in one tensor-product plan.
          if (variant == 4) spec.plan.tile_rows = 16;
          // Directions split (flux derivative), with 16-row tiles at order 4.
          if (variant == 6) {
            spec.plan.derivative = Derivative::flux;
            spec.plan.directions = Directions::split;
            spec.plan.tile_rows = N == 4 ? 16 : 8;
          }
          // TF32 products (float only, 16-row tiles): split directions at order 4, else the
          // state derivative where the flux is linear.
          if (variant == 7) {
            spec.plan.products = Products::tf32x3;
            spec.plan.tile_rows = 16;
            spec.plan.directions = N == 4 ? Directions::split : Directions::joint;
            spec.plan.derivative = N != 4 && !nonlinear.count(name) ? Derivative::state : Derivative::flux;
          }
          // Pipelined element groups (cp.async): tensor products with split directions, and
          // (variant 2 at order 4) scalar products.
          if (variant == 8) {
            spec.plan.products = Products::tensor;
            spec.plan.prefetch = Prefetch::on;
            spec.plan.derivative = Derivative::flux;
            spec.plan.directions = Directions::split;
            spec.plan.groups_per_block = 3;
          }
          if (variant == 2 && N == 4) spec.plan.groups_per_block = 2;
          // Several row tiles per warp item: 16-row tiles, the state derivative, TF32, and at
          // order 7 (few elements per block, so the held tiles fit) split directions and
          // pipelined groups.
          if (variant == 4 || ((variant == 6 || variant == 8) && N == 7)) spec.plan.row_tiles = 2;
          if (variant == 5 || variant == 7) spec.plan.row_tiles = 3;
          // The products' k loops unrolled a set number of steps: 16-row tiles (m16n8k4 only),
          // 8-row split directions and TF32.
          if (variant == 4 || variant == 6 || variant == 7) spec.plan.k_unroll = N == 4 ? 2 : 0;
          // And with the next k step's fragments loaded ahead: 16-row split tiles, and 8-row
          // tiles in the pipelined split plan.
          if (variant == 6 && N == 4) spec.plan.k_ahead = 1;
          if (variant == 8) {
            spec.plan.k_unroll = 2;
            spec.plan.k_ahead = 1;
          }
          // Face connectivity (one word per face for vmapP): the face fluxes' reads (variant 3,
          // with the halo and TF/SF branches) and the prefetch gather (variant 5).
          if (variant == 3 || variant == 5) spec.plan.connectivity = Connectivity::faces;
          // Padded state columns (Plan::align): whole padded columns copied 16 bytes at a time
          // (variant 5 at order 4: element-major, prefetch async; Np = 15 or 35 -> 16 or 36),
          // and a scalar plan indexing them one real at a time (variant 3).
          if (variant == 5 && N == 4) {
            spec.plan.prefetch = Prefetch::async;
            spec.plan.align = 16;
          }
          if (variant == 3) spec.plan.align = 32;
          // Column tiles (the block's columns as the mma's rows, m16n8k4 on sm_90): the state
          // derivative with 3 row tiles per item (variant 5), split directions at order 10.
          if ((variant == 5 && N != 4) || (variant == 6 && N == 10)) spec.plan.tiles = Tiles::columns;
          GeneratedKernels kernels;
          try {
            kernels = generate_kernels(spec);
          } catch (const std::exception& e) {
            ADD_FAILURE() << name << " N=" << N << ": " << e.what();
            continue;
          }
          if (!test::nvrtc_compiles(programs++)) continue;
          rtcg::Program program;
          program.name = kernels.name;
          program.source = kernels.source;
          EXPECT_NO_THROW((void)nvrtc->compile(program)) << kernels.name << "\n" << kernels.source;
        }
    }
  }
}

// A kernel spec of the 3D Maxwell law with every boundary condition and a plane wave for the
// incident ones; the caller sets the element and the plan.
KernelSpec maxwell3d_spec(const fluxes::Law& law) {
  KernelSpec spec;
  spec.law = &law;
  spec.parameters = fluxes::resolve_parameters(law);
  for (const fluxes::BoundaryCondition& bc : law.boundaries) spec.conditions.push_back(&bc);
  spec.incident = lower_plane_wave(law, PlaneWave{{1, 0, 0}, {0, 0, 1}}, 1.0, 1.0, 0.0);
  return spec;
}

// An element-major async plan of column tiles (8 elements per block, 2 row tiles per item).
Plan column_tile_plan(Products products, Derivative derivative) {
  Plan plan;
  plan.fusion = Fusion::stage;
  plan.layout = Layout::element_major;
  plan.stage_elements_per_block = 8;
  plan.products = products;
  plan.prefetch = Prefetch::async;
  plan.derivative = derivative;
  plan.tiles = Tiles::columns;
  plan.row_tiles = 2;
  return plan;
}

// The kernels compile (the source and its name in the failure message).
void expect_compiles(rtcg::Compiler& compiler, const GeneratedKernels& kernels) {
  rtcg::Program program;
  program.name = kernels.name;
  program.source = kernels.source;
  EXPECT_NO_THROW((void)compiler.compile(program)) << kernels.name << "\n" << kernels.source;
}

// As expect_compiles; `verbose` (RTDG_PTXAS_VERBOSE, for tuning work) also prints ptxas' report
// of registers and spills under `label`, with the CUBIN's size.
void expect_compiles_verbose(rtcg::Compiler& compiler, const GeneratedKernels& kernels, bool verbose,
                             const std::string& label) {
  rtcg::Program program;
  program.name = kernels.name;
  program.source = kernels.source;
  if (verbose) program.options.push_back("--ptxas-options=-v");
  // RTDG_PTXAS_DUMP=<folder> (tuning work): the source under <folder>/<label>.cu, for nvcc.
  if (const char* folder = std::getenv("RTDG_PTXAS_DUMP")) {
    std::string name = label;
    std::replace(name.begin(), name.end(), ' ', '_');
    std::ofstream(std::string(folder) + "/" + name + ".cu") << program.source;
  }
  try {
    const auto binary = compiler.compile(program);
    if (verbose) std::printf("%s: %zu bytes of CUBIN\n%s\n", label.c_str(), binary.image.size(), binary.log.c_str());
  } catch (const std::exception& error) {
    ADD_FAILURE() << kernels.name << ": " << error.what();
  }
}

// The curved element group's kernels (KernelSpec::curved: rtdg_volume_curved,
// rtdg_surface_curved, rtdg_wadg) compile with NVRTC for sm_90: laws with every boundary
// condition and an incident field, a source reading the coordinates (the PML), both layouts and
// precisions, low and high orders, unfused, fused and Bernstein plans; and their shared memory
// fits where the order grows.
TEST(GeneratedDgKernels, CurvedGroupCompilesWithNvrtcForSm90) {
  const auto nvrtc = rtcg::make_nvrtc_compiler("sm_90");
  struct Case {
    const char* law;
    Shape shape;
    int N;
  };
  for (const Case c : {Case{"maxwell2d_tm", Shape::triangle, 2}, Case{"maxwell2d_tm_pml", Shape::triangle, 5},
                       Case{"maxwell3d", Shape::tetrahedron, 3}, Case{"euler2d", Shape::triangle, 4}}) {
    const fluxes::Law law = test::law_file(c.law);
    KernelSpec spec;
    spec.law = &law;
    spec.parameters = fluxes::resolve_parameters(law);
    for (const fluxes::BoundaryCondition& bc : law.boundaries) spec.conditions.push_back(&bc);
    if (law.env.incident_components() > 0) {
      const std::array<double, 3> direction{1, 0, 0}, polarization{0, 0, 1};
      spec.incident = lower_plane_wave(law, PlaneWave{direction, polarization}, 1.0, 1.0, 0.0);
    }
    spec.element = &element(c.shape, c.N);
    spec.curved = true;
    // Both layouts and both precisions, in two programs per case.
    for (const auto& [layout, scalar] : {std::pair{Layout::field_major, fluxes::ScalarType::float64},
                                         std::pair{Layout::element_major, fluxes::ScalarType::float32}}) {
      spec.plan = Plan{};
      spec.plan.layout = layout;
      spec.scalar = scalar;
      const GeneratedKernels kernels = generate_kernels(spec);
      EXPECT_TRUE(kernels.curved);
      EXPECT_EQ(kernels.cubature_points, cubature_points(c.shape, c.N + 1));
      for (const char* name : {"rtdg_volume_curved", "rtdg_surface_curved", "rtdg_wadg"})
        EXPECT_NE(kernels.source.find(name), std::string::npos) << name;
      expect_compiles(*nvrtc, kernels);
    }
    // One more program per case (NVRTC takes seconds each): a fused plan (the curved elements'
    // updates), in the Bernstein basis where the law carries over to it (the curved group on
    // nodal values of the coefficients, halo traces too), unfused Bernstein for maxwell3d.
    Plan plan = test::fused_plan(Layout::element_major, 2, 1, Operators::literals, Derivative::flux,
                                 Products::scalar, Prefetch::async);
    if (c.law == std::string("maxwell3d")) plan = Plan{};
    plan.basis = Basis::bernstein;
    spec.plan = plan;
    spec.scalar = fluxes::ScalarType::float32;
    if (!check(spec).empty()) {  // maxwell2d_tm_pml, euler2d: the nodal basis
      plan.basis = Basis::nodal;
      spec.plan = plan;
      spec.scalar = fluxes::ScalarType::float64;
    }
    {
      const GeneratedKernels kernels = generate_kernels(spec);
      for (const char* name : {"rtdg_volume_curved", "rtdg_surface_curved", "rtdg_wadg"})
        EXPECT_NE(kernels.source.find(name), std::string::npos) << name;
      EXPECT_EQ(kernels.source.find("rtdg_curved_lserk") != std::string::npos, plan.fusion == Fusion::stage);
      EXPECT_EQ(kernels.source.find("rtdg_curved_coefficients") != std::string::npos, plan.basis == Basis::bernstein);
      expect_compiles(*nvrtc, kernels);
    }
  }
}

// Teams (Plan::teams): each team whole warps (a named barrier counts threads in warps, and a
// team's warps must be its own; scalar products too, whose blocks are otherwise NE x Np threads)
// and the per-thread barrier.sync (a team's threads may reach its barrier diverged: with bar.sync,
// the aligned form, a pipelined order-2 plan of two one-warp teams got wrong products on the
// H200), pipelined or not, compiled by NVRTC for sm_90.
TEST(GeneratedDgKernels, TeamsTakeWholeWarpsAndAPerThreadBarrier) {
  const auto nvrtc = rtcg::make_nvrtc_compiler("sm_90");
  const fluxes::Law law = test::law_file("maxwell3d");
  KernelSpec spec = maxwell3d_spec(law);
  spec.element = &element(Shape::tetrahedron, 2);
  for (const Products products : {Products::scalar, Products::tensor})
    for (const int groups : {1, 3}) {
      spec.plan = test::fused_plan(Layout::element_major, 2, 1, Operators::shared, Derivative::flux, products,
                                   Prefetch::on);
      spec.plan.groups_per_block = groups;
      spec.plan.teams = 2;
      const GeneratedKernels kernels = generate_kernels(spec);
      const std::string& source = kernels.source;
      const std::size_t at = source.find("#define NTHREADS ");
      ASSERT_NE(at, std::string::npos);
      const int threads = std::stoi(source.substr(at + 17));
      EXPECT_EQ(threads, 32) << to_text(spec.plan);  // 2 elements of 10 nodes, one warp
      EXPECT_EQ(kernels.stage_threads, 2 * threads) << to_text(spec.plan);
      EXPECT_NE(source.find("asm volatile(\"barrier.sync %0, %1;\""), std::string::npos) << to_text(spec.plan);
      EXPECT_EQ(source.find("asm volatile(\"bar.sync"), std::string::npos) << to_text(spec.plan);
      expect_compiles(*nvrtc, kernels);
    }
}

// Column tiles below sm_90 (no m16n8k4 there: each 16 x 8 tile is two m8n8k4), both derivatives
// and both precisions, for sm_80.
TEST(GeneratedDgKernels, ColumnTilesCompileWithNvrtcForSm80) {
  const auto nvrtc = rtcg::make_nvrtc_compiler("sm_80");
  const fluxes::Law law = test::law_file("maxwell3d");
  KernelSpec spec = maxwell3d_spec(law);
  spec.element = &element(Shape::tetrahedron, 3);
  for (const auto scalar : {fluxes::ScalarType::float32, fluxes::ScalarType::float64})
    for (const Derivative derivative : {Derivative::flux, Derivative::state}) {
      spec.scalar = scalar;
      spec.plan = column_tile_plan(Products::tensor, derivative);
      const GeneratedKernels kernels = generate_kernels(spec);
      // The tiles' mma (m16n8k4 on sm_90, two m8n8k4 below: dg/tensor_core.h).
      EXPECT_NE(kernels.source.find("rtdg_dmma_columns(acc[m][nb]"), std::string::npos);
      expect_compiles(*nvrtc, kernels);
    }
}

// TF32 column tiles (float: the block's columns as the rows of mma.m16n8k8.tf32, three products
// per tile) for sm_90, at order 4 (Np = 35: an odd count of 4-k fragments, so the last k step
// has no second half) and order 2: the state derivative, and the flux derivative joint and split.
TEST(GeneratedDgKernels, Tf32ColumnTilesCompileWithNvrtcForSm90) {
  const auto nvrtc = rtcg::make_nvrtc_compiler("sm_90");
  const fluxes::Law law = test::law_file("maxwell3d");
  KernelSpec spec = maxwell3d_spec(law);
  spec.scalar = fluxes::ScalarType::float32;
  for (const int N : {2, 4})
    for (const int variant : {0, 1, 2}) {
      spec.element = &element(Shape::tetrahedron, N);
      spec.plan = column_tile_plan(Products::tf32x3, variant == 0 ? Derivative::state : Derivative::flux);
      spec.plan.directions = variant == 2 ? Directions::split : Directions::joint;
      const GeneratedKernels kernels = generate_kernels(spec);
      // mma.m16n8k8.tf32 (dg/tensor_core.h) on the column tiles.
      EXPECT_NE(kernels.source.find("rtdg_mma_tf32(acc[m][nb]"), std::string::npos);
      expect_compiles(*nvrtc, kernels);
    }
}

// Literal operators: one FMA per nonzero entry of D_r, D_s, D_t and LIFT per kernel, zero
// entries dropped (order 1 on tetrahedra: D_a has zero entries), and the constant table holds
// every entry.
TEST(GeneratedDgKernels, LiteralOperatorsDropZeroEntries) {
  const fluxes::Law law = test::law_file("maxwell3d");
  KernelSpec spec = maxwell3d_spec(law);
  const Element& e = element(Shape::tetrahedron, 1);
  spec.element = &e;
  spec.plan.fusion = Fusion::stage;
  spec.plan.stage_elements_per_block = 4;
  spec.plan.operators = Operators::literals;
  int nonzero = 0, entries = 0;
  for (const Eigen::MatrixXd* m : {&e.Dr, &e.Ds, &e.Dt, &e.LIFT})
    for (Eigen::Index i = 0; i < m->rows(); ++i)
      for (Eigen::Index j = 0; j < m->cols(); ++j) {
        ++entries;
        nonzero += (*m)(i, j) != 0.0 ? 1 : 0;
      }
  ASSERT_LT(nonzero, entries);
  auto count = [](const std::string& text, const std::string& what) {
    int n = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  };
  for (const Derivative derivative : {Derivative::flux, Derivative::state}) {
    spec.plan.derivative = derivative;
    const GeneratedKernels kernels = generate_kernels(spec);
    // Two kernels (LSERK4 and SSP-RK3 stages), each with the products once.
    EXPECT_EQ(count(kernels.source, "] += ("), 2 * nonzero) << to_string(derivative);
  }
  spec.plan.operators = Operators::constant;
  const GeneratedKernels kernels = generate_kernels(spec);
  EXPECT_NE(kernels.source.find("rtdg_cops[" + std::to_string(entries) + "] = {"), std::string::npos);
  EXPECT_EQ(count(kernels.source, "] += ("), 0);
}

// The by-column tasks' stride keeps a warp's lanes on one case where the threads allow it. The
// cases a warp runs, counted by hand for thread t taking s = t, t + threads, ..:
TEST(GeneratedDgKernels, ColumnTaskStrideKeepsAWarpOnOneCase) {
  // Order-5 stencil plan, 2 elements x 6 components, 4 face shares, 112 threads (3.5 warps).
  // Stride 12: warp 0 has s = 0..31, faces 0, 1 and 2. Stride 32: warp w has face w only (warp 3's
  // 16 lanes hold face 3's 12 columns), and threads 0..15 pass again over s = 112..127, columns
  // 16..31 of face 3: none.
  EXPECT_EQ(column_task_stride(4, 12, 112), 32);
  // Order 4 (4 elements, 140 threads) and order 6 (4 elements, 336): 24 columns, faces 2 to a
  // warp at stride 24, one at 32.
  EXPECT_EQ(column_task_stride(4, 24, 140), 32);
  EXPECT_EQ(column_task_stride(4, 24, 336), 32);
  // 12 columns, 4 cases, 64 threads: stride 12 gives warp 0 cases 0, 1 and 2; stride 16 two cases
  // per warp, a half-warp each (32 as well, in two passes; the smaller is kept).
  EXPECT_EQ(column_task_stride(4, 12, 64), 16);
  // One case: every stride runs it once per warp; the smallest is kept.
  EXPECT_EQ(column_task_stride(1, 12, 112), 12);
  // Order-2 literal plan, 8 elements (48 columns, 80 threads), two cases: the busiest warp runs
  // two either way (stride 48: warp 1 has s = 32..63, both cases; stride 64: warp 0 runs case 0,
  // then case 1 on its second pass), but 64 runs 4 in all against 5.
  EXPECT_EQ(column_task_stride(2, 48, 80), 64);
}

// Products by column (operators in constant memory or as literals) for sm_90, both derivatives and
// both precisions, at orders 2 and 4 (the literal code of order 4 is about 35,000 lines).
TEST(GeneratedDgKernels, ByColumnProductsCompileWithNvrtcForSm90) {
  const auto nvrtc = rtcg::make_nvrtc_compiler("sm_90");
  std::size_t programs = 0;  // generated so far (test::nvrtc_compiles)
  const fluxes::Law law = test::law_file("maxwell3d");
  KernelSpec spec = maxwell3d_spec(law);
  const bool verbose = std::getenv("RTDG_PTXAS_VERBOSE") != nullptr;  // registers, for tuning work
  const char* orders = std::getenv("RTDG_PTXAS_ORDERS");  // e.g. "3": one order, for tuning work
  for (const int N : {2, 4, 3}) {
    if (orders ? std::atoi(orders) != N : N == 3) continue;
    spec.element = &element(Shape::tetrahedron, N);
    for (const Operators operators : {Operators::constant, Operators::literals})
      for (const auto scalar : {fluxes::ScalarType::float32, fluxes::ScalarType::float64})
        for (const Derivative derivative : {Derivative::flux, Derivative::state}) {
          spec.scalar = scalar;
          spec.plan = Plan{};
          spec.plan.fusion = Fusion::stage;
          spec.plan.layout = Layout::element_major;
          spec.plan.stage_elements_per_block = 4;
          spec.plan.prefetch = Prefetch::async;
          spec.plan.operators = operators;
          spec.plan.derivative = derivative;
          const GeneratedKernels kernels = generate_kernels(spec);
          EXPECT_NE(kernels.source.find("By-column products"), std::string::npos);
          EXPECT_EQ(kernels.source.find("rtdg_cops") != std::string::npos, operators == Operators::constant);
          if (!test::nvrtc_compiles(programs++)) continue;
          expect_compiles_verbose(*nvrtc, kernels, verbose,
                                  "N" + std::to_string(N) + " " + to_string(operators) + " " +
                                      (scalar == fluxes::ScalarType::float32 ? "f32 " : "f64 ") + to_string(derivative));
        }
  }
}

// Bernstein plans (Plan::basis) for sm_90: the layered LIFT of by-column plans, and the face
// transform of the incident field (a table in global memory) on the conditions that read it, in
// both precisions, by column at orders 2, 4 and 6 (the faces' layers as functions) and unfused at
// order 4. RTDG_PTXAS_ORDERS=N runs
// order N only (by column and unfused), RTDG_PTXAS_FACE_THREADS=F gives the by-column plans F
// threads per column for the layers, RTDG_PTXAS_VERBOSE prints ptxas' registers (tuning work).
TEST(GeneratedDgKernels, BernsteinPlansCompileWithNvrtcForSm90) {
  const auto nvrtc = rtcg::make_nvrtc_compiler("sm_90");
  std::size_t programs = 0;  // generated so far (test::nvrtc_compiles)
  const fluxes::Law law = test::law_file("maxwell3d");
  KernelSpec spec = maxwell3d_spec(law);
  const bool verbose = std::getenv("RTDG_PTXAS_VERBOSE") != nullptr;
  const char* orders = std::getenv("RTDG_PTXAS_ORDERS");
  for (const int N : {2, 4, 5, 6, 7})
    for (const auto scalar : {fluxes::ScalarType::float32, fluxes::ScalarType::float64})
      // By column: literal operators or the lattice stencil; else the unfused kernels.
      for (const char* variant : {"literals", "stencil", "unfused"}) {
        const bool by_column = variant != std::string("unfused");
        const bool stencil = variant == std::string("stencil");
        if (orders ? std::atoi(orders) != N : (N == 5 || N == 7 || (!by_column && N != 4) || (stencil && N == 2))) continue;
        spec.element = &element(Shape::tetrahedron, N);
        spec.scalar = scalar;
        spec.plan = Plan{};
        if (by_column) {
          spec.plan.fusion = Fusion::stage;
          spec.plan.layout = Layout::element_major;
          spec.plan.stage_elements_per_block = 2;
          spec.plan.prefetch = Prefetch::async;
          spec.plan.operators = stencil ? Operators::stencil : Operators::literals;
          spec.plan.derivative = Derivative::state;
          if (std::getenv("RTDG_PTXAS_FACE_THREADS")) spec.plan.face_threads = std::atoi(std::getenv("RTDG_PTXAS_FACE_THREADS"));
        }
        spec.plan.basis = Basis::bernstein;
        const GeneratedKernels kernels = generate_kernels(spec);
        EXPECT_NE(kernels.source.find("rtdg_face_coefficients[m * NFP + jj]"), std::string::npos);
        EXPECT_EQ(kernels.source.find("LIFT in the Bernstein layers") != std::string::npos, by_column);
        EXPECT_EQ(kernels.source.find("D_a u by the Bernstein lattice stencil") != std::string::npos, stencil);
        // From order 6 (28 nodes per face) each face's layers are a function of their own.
        EXPECT_EQ(kernels.source.find("__device__ __noinline__ void rtdg_lift_face_3") != std::string::npos,
                  by_column && N >= 6);
        if (!orders && !test::nvrtc_compiles(programs++)) continue;  // all of one order when asked
        expect_compiles_verbose(*nvrtc, kernels, verbose,
                                "N" + std::to_string(N) + " " + variant + " " +
                                    (scalar == fluxes::ScalarType::float32 ? "f32" : "f64"));
      }
}

// The order-4 stencil plan in double of the register tests below: 4 elements per block, faces
// on 4 threads, prefetch async (96 registers with nvcc 13).
KernelSpec stencil_order4_spec(const fluxes::Law& law) {
  KernelSpec spec = maxwell3d_spec(law);
  spec.element = &element(Shape::tetrahedron, 4);
  spec.scalar = fluxes::ScalarType::float64;
  spec.plan.fusion = Fusion::stage;
  spec.plan.layout = Layout::element_major;
  spec.plan.stage_elements_per_block = 4;
  spec.plan.prefetch = Prefetch::async;
  spec.plan.operators = Operators::stencil;
  spec.plan.derivative = Derivative::state;
  spec.plan.basis = Basis::bernstein;
  spec.plan.face_threads = 4;
  return spec;
}

// ptxas' "Used N registers" for rtdg_stage_lserk of `kernels` (-1 when the log has none).
int stage_registers(rtcg::Compiler& nvrtc, const GeneratedKernels& kernels) {
  rtcg::Program program;
  program.name = kernels.name;
  program.source = kernels.source;
  program.options.push_back("--ptxas-options=-v");
  const std::string log = nvrtc.compile(program).log;
  const std::size_t at = log.find("Function properties for rtdg_stage_lserk");
  const std::size_t used = log.find("Used ", at);
  if (at == std::string::npos || used == std::string::npos) return -1;
  return std::atoi(log.c_str() + used + 5);
}

// Plan::max_registers reaches ptxas: the stage kernels carry __maxnreg__, and the register count
// ptxas reports for rtdg_stage_lserk stays within the cap, for an order-4 stencil plan in double
// that takes more without it (96 with nvcc 13).
TEST(GeneratedDgKernels, RegisterCapReachesPtxas) {
  const auto nvrtc = rtcg::make_nvrtc_compiler("sm_90");
  const fluxes::Law law = test::law_file("maxwell3d");
  KernelSpec spec = stencil_order4_spec(law);
  auto registers_at = [&](int cap) {
    spec.plan.max_registers = cap;
    const GeneratedKernels kernels = generate_kernels(spec);
    EXPECT_EQ(kernels.source.find("__maxnreg__(" + std::to_string(cap) + ")") != std::string::npos, cap != 0);
    return stage_registers(*nvrtc, kernels);
  };
  const int uncapped = registers_at(0);
  const int capped = registers_at(64);
  ASSERT_GT(uncapped, 64) << "the uncapped kernel fits the cap already: pick a lower one";
  EXPECT_GT(capped, 0);
  EXPECT_LE(capped, 64);
}

// Plan::prefetch_update = off: the stage kernel keeps no register copy of the update input, and
// ptxas gives the same plan fewer registers than with the copy (72 against 96 with nvcc 13):
// what fits another block per SM.
TEST(GeneratedDgKernels, LateUpdateInputTakesFewerRegisters) {
  const auto nvrtc = rtcg::make_nvrtc_compiler("sm_90");
  const fluxes::Law law = test::law_file("maxwell3d");
  KernelSpec spec = stencil_order4_spec(law);
  auto registers_with = [&](bool early) {
    spec.plan.prefetch_update = early;
    const GeneratedKernels kernels = generate_kernels(spec);
    EXPECT_EQ(kernels.source.find("real pre[NCOMP]") != std::string::npos, early);
    EXPECT_EQ(kernels.source.find("upd[c] = RTDG_PRE_SOURCE[QIDX(c, k, i)]") != std::string::npos, !early);
    return stage_registers(*nvrtc, kernels);
  };
  const int early = registers_with(true);
  const int late = registers_with(false);
  EXPECT_GT(late, 0);
  EXPECT_LT(late, early);
}

// The stencil's table (Operators::stencil), read back from the host branch of the source: node
// n's 4 words hold its lattice neighbours alpha - e_k + e_j in bytes (slot j DIM + (k < j ? k :
// k - 1)) and its packed multi-index. Where alpha_k = 0 there is no neighbour (weight zero) and
// the entry is the node that the nearest node with alpha_k > 0 reads in that slot, the lower one
// at equal distance: consecutive lanes then read one address, not a second one in the bank of
// their own column. Tetrahedra at orders 1, 5 and 9 (220 nodes), triangles at order 4; above 256
// nodes (tetrahedra of order 10) the plan does not fit.
TEST(GeneratedDgKernels, StencilTablePacksTheLatticeNeighbours) {
  const fluxes::Law law3 = test::law_file("maxwell3d");
  const fluxes::Law law2 = test::law_file("maxwell2d_tm");
  KernelSpec spec3 = stencil_order4_spec(law3);
  KernelSpec spec2 = spec3;
  spec2.law = &law2;
  spec2.parameters = fluxes::resolve_parameters(law2);
  spec2.conditions.clear();
  for (const fluxes::BoundaryCondition& bc : law2.boundaries) spec2.conditions.push_back(&bc);
  spec2.incident = lower_plane_wave(law2, PlaneWave{{1, 0, 0}, {0, 0, 1}}, 1.0, 1.0, 0.0);
  spec2.plan.face_threads = 1;  // 3 faces
  const std::pair<Shape, int> cases[] = {
      {Shape::tetrahedron, 1}, {Shape::tetrahedron, 5}, {Shape::tetrahedron, 9}, {Shape::triangle, 4}};
  for (const auto& [shape, N] : cases) {
    SCOPED_TRACE(std::string(shape_name(shape)) + " order " + std::to_string(N));
    KernelSpec spec = shape == Shape::triangle ? spec2 : spec3;
    spec.element = &element(shape, N);
    spec.plan.stage_elements_per_block = 1;  // order 9's shared memory
    const int dim = spec.element->dim, Np = spec.element->Np;
    const std::string source = generate_kernels(spec).source;
    const std::string head = "static const int rtdg_stencil[" + std::to_string(4 * Np) + "] = {";
    const std::size_t at = source.find(head);
    ASSERT_NE(at, std::string::npos);
    std::vector<int> words;
    for (std::size_t p = at + head.size(); source[p - 1] != '}'; ++p) {
      words.push_back(std::atoi(source.c_str() + p));
      p = source.find_first_of(",}", p);
    }
    ASSERT_EQ(words.size(), static_cast<std::size_t>(4 * Np));
    // The multi-indices in the element's lattice order (i, then j, then k fastest first).
    const BernsteinOperators b = make_bernstein(*spec.element);
    std::map<std::array<int, 4>, int> index;
    for (int n = 0; n < Np; ++n) index[b.alpha[static_cast<std::size_t>(n)]] = n;
    auto packed = [&](int n) {
      int value = 0;
      for (int k = 0; k <= dim; ++k) value |= b.alpha[static_cast<std::size_t>(n)][static_cast<std::size_t>(k)] << (8 * k);
      return value;
    };
    // alpha(m) - e_k + e_j, or -1.
    auto neighbour = [&](int m, int j, int k) {
      std::array<int, 4> a = b.alpha[static_cast<std::size_t>(m)];
      if (a[static_cast<std::size_t>(k)] == 0) return -1;
      --a[static_cast<std::size_t>(k)];
      ++a[static_cast<std::size_t>(j)];
      return index.at(a);
    };
    int absent = 0;
    for (int n = 0; n < Np; ++n) {
      EXPECT_EQ(words[static_cast<std::size_t>(4 * n + 3)], packed(n)) << "node " << n;
      for (int j = 0; j <= dim; ++j)
        for (int k = 0; k <= dim; ++k) {
          if (k == j) continue;
          const int slot = j * dim + (k < j ? k : k - 1);
          const int entry = (words[static_cast<std::size_t>(4 * n + slot / 4)] >> (8 * (slot % 4))) & 255;
          int expected = neighbour(n, j, k);
          if (expected < 0) {
            ++absent;
            for (int d = 1; expected < 0; ++d) {
              if (n - d >= 0) expected = neighbour(n - d, j, k);
              if (expected < 0 && n + d < Np) expected = neighbour(n + d, j, k);
            }
          }
          EXPECT_EQ(entry, expected) << "node " << n << ", j " << j << ", k " << k;
        }
      for (int slot = dim * (dim + 1); slot < 12; ++slot)
        EXPECT_EQ((words[static_cast<std::size_t>(4 * n + slot / 4)] >> (8 * (slot % 4))) & 255, 0);
    }
    EXPECT_GT(absent, 0);
  }
  spec3.element = &element(Shape::tetrahedron, 10);
  spec3.plan.stage_elements_per_block = 1;
  try {
    (void)generate_kernels(spec3);
    ADD_FAILURE() << "a stencil plan at order 10 (286 nodes) was not refused";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("the plan does not fit: operators = stencil indexes the lattice in bytes, "
                                             "at most 256 nodes"),
              std::string::npos)
        << error.what();
  }
}

// The max-wave-speed reduction (dg/wave_speed.hpp) of the laws whose speed depends on the
// state, in both precisions and layouts between them.
TEST(GeneratedDgKernels, WaveSpeedReductionCompilesWithNvrtcForSm90) {
  const auto nvrtc = rtcg::make_nvrtc_compiler("sm_90");
  struct Case {
    const char* law;
    fluxes::ScalarType scalar;
    Layout layout;
  };
  for (const Case c : {Case{"euler2d", fluxes::ScalarType::float64, Layout::field_major},
                       Case{"euler2d", fluxes::ScalarType::float32, Layout::element_major},
                       Case{"shallow_water", fluxes::ScalarType::float64, Layout::element_major}}) {
    const fluxes::Law law = test::law_file(c.law);
    const rtcg::ReductionSpec spec =
        wave_speed_reduction(law, fluxes::resolve_parameters(law), element(Shape::triangle, 4).Np, c.scalar, c.layout);
    const rtcg::Program program = rtcg::reduction_program(spec, rtcg::ReductionParams{});
    EXPECT_NO_THROW((void)nvrtc->compile(program)) << program.source;
  }
}

TEST(GeneratedDgKernels, StabilizationCompilesWithNvrtcForSm90) {
  const auto nvrtc = rtcg::make_nvrtc_compiler("sm_90");
  const fluxes::Law law = test::law_file("euler2d");
  const std::vector<double> parameters = fluxes::resolve_parameters(law);
  Stabilization stabilization;
  stabilization.filter_strength = 36;
  stabilization.filter_order = 8;
  stabilization.positive = {"rho", "p"};
  for (int N : {1, 5})
    for (const auto scalar : {fluxes::ScalarType::float32, fluxes::ScalarType::float64})
      for (const Layout layout : {Layout::field_major, Layout::element_major}) {
        rtcg::Program program;
        program.name = "rtdg_stabilize_test_N" + std::to_string(N);
        program.source = stabilization_source(law, parameters, element(Shape::triangle, N), stabilization, scalar, layout);
        EXPECT_NO_THROW((void)nvrtc->compile(program)) << program.source;
      }
}

}  // namespace
}  // namespace rtdg::dg
