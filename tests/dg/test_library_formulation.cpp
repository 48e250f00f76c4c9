// The library formulation (dg/library_formulation.hpp) computes the solver's right-hand side
// and LSERK stages: on small 2D and 3D meshes, with boundary conditions (PEC, PMC,
// Silver-Mueller, a scattered-field wall reading a plane wave, an exact-solution inflow) and a
// source term, for a random state. Its pointwise kernels compile with NVRTC (no GPU needed) and
// libcublas loads here.
//
// Built twice: test_library_formulation (host backend, CI) and, with
// RTDG_LIBRARY_TEST_CUDA, test_library_formulation_cuda (label gpu: the same checks on the
// CUDA backend with cuBLAS, double and float; skipped without a device).
#include "solver_support.hpp"

#include <dg/error.hpp>
#include <dg/incident.hpp>
#include <dg/integrator.hpp>
#include <dg/library_formulation.hpp>
#include <rtcg/backend.hpp>
#include <fluxes/dag.hpp>
#include <rtcg/compiler.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

namespace rtdg::dg {
namespace {

// A law with a source term: advection with S = -u/2 + sin(x) t, so the source reads the
// state, a coordinate and the time.
fluxes::Law advection_with_source() {
  const std::string file = std::string(RTDG_SOURCE_DIR) + "/data/laws/advection.toml";
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf() << "\n[source]\nu = \"-u/2 + sin(x)*t\"\n";
  return fluxes::parse_law(text.str(), file);
}

struct Case {
  const char* name;
  const char* law;  // a file in data/laws, or "advection+source"
  int n;            // box mesh: n per side
  int N;            // order
  std::vector<std::pair<const char*, const char*>> walls;  // mesh boundary -> condition
  bool incident = false;  // a plane wave for conditions that read one
  double t = 0.0;         // time of the right-hand side
};

std::vector<Case> cases() {
  return {
      {"maxwell2d_tm_pec", "maxwell2d_tm", 3, 3, {{"xmin", "pec"}, {"xmax", "pec"}, {"ymin", "pec"}, {"ymax", "pec"}}},
      {"maxwell2d_te_scattering",
       "maxwell2d_te",
       3,
       2,
       {{"xmin", "pec_scattered"}, {"xmax", "absorbing"}, {"ymin", "pmc"}, {"ymax", "absorbing"}},
       true,
       1.3},
      {"acoustics", "acoustics", 2, 4, {{"xmin", "wall"}, {"xmax", "absorbing"}, {"ymin", "pressure_release"}, {"ymax", "wall"}}},
      {"advection_source",
       "advection+source",
       3,
       3,
       {{"xmin", "exact"}, {"xmax", "outflow"}, {"ymin", "exact"}, {"ymax", "outflow"}},
       false,
       0.4},
      {"maxwell3d_pec_silver_mueller",
       "maxwell3d",
       2,
       3,
       {{"xmin", "pec"}, {"xmax", "absorbing"}, {"ymin", "pec"}, {"ymax", "absorbing"}, {"zmin", "pmc"}, {"zmax", "absorbing"}}},
      {"maxwell3d_scattering",
       "maxwell3d",
       2,
       2,
       {{"xmin", "pec_scattered"}, {"xmax", "absorbing"}, {"ymin", "absorbing"}, {"ymax", "absorbing"},
        {"zmin", "absorbing"}, {"zmax", "absorbing"}},
       true,
       1.3},
  };
}

// For gtest's messages (a case's bytes otherwise).
void PrintTo(const Case& c, std::ostream* out) { *out << c.name; }

// A solver for a case, with what it refers to kept alive.
struct Problem {
  fluxes::Law law;
  mesh::Mesh mesh;
  Discretization disc;
  std::unique_ptr<Solver> solver;

  Problem(const Case& c, rtcg::Backend& backend, fluxes::ScalarType scalar, Plan plan = {})
      : law(std::string(c.law) == "advection+source" ? advection_with_source() : test::law_file(c.law)) {
    mesh = mesh::build_mesh(test::box_mesh(law.dimension, c.n));
    disc = discretize(mesh, c.N);
    SolverSetup setup;
    setup.law = &law;
    setup.parameters = fluxes::resolve_parameters(law);
    for (const auto& [wall, condition] : c.walls) setup.boundaries.push_back({wall, condition, ""});
    if (c.incident) {
      const bool te = std::string(c.law) == "maxwell2d_te";  // E in the plane
      setup.incident = PlaneWave{{1, 0, 0}, {0, te ? 1.0 : 0.0, te ? 0.0 : 1.0}};
    }
    setup.scalar = scalar;
    setup.plan = plan;
    solver = std::make_unique<Solver>(backend, disc, setup);
  }
};

std::vector<double> random_state(std::size_t size, unsigned seed) {
  std::mt19937 generator(seed);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  std::vector<double> q(size);
  for (double& v : q) v = value(generator);
  return q;
}

// max |a - b| / max |b|
double relative_difference(const std::vector<double>& a, const std::vector<double>& b) {
  EXPECT_EQ(a.size(), b.size());
  double difference = 0, scale = 0;
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    difference = std::max(difference, std::abs(a[i] - b[i]));
    scale = std::max(scale, std::abs(b[i]));
  }
  return scale > 0 ? difference / scale : difference;
}

// L(q, t) of the library formulation against the solver's.
void check_rhs(const Case& c, rtcg::Backend& backend, fluxes::ScalarType scalar, double tolerance, Plan plan = {}) {
  Problem problem(c, backend, scalar, plan);
  Solver& solver = *problem.solver;
  LibraryFormulation library(solver);
  EXPECT_EQ(library.launches_per_stage(), 5);
  const std::vector<double> q = random_state(solver.size(), 17);
  solver.set_state(q);
  library.set_state(q);
  const std::vector<double> expected = solver.rhs(c.t);
  const std::vector<double> got = library.rhs(c.t);
  const double d = relative_difference(got, expected);
  std::printf("%s (%s, %s): library vs solver rhs, relative max difference %.3e [%s]\n", c.name, backend.name().c_str(),
              scalar == fluxes::ScalarType::float32 ? "float" : "double", d, library.describe().c_str());
  EXPECT_LT(d, tolerance) << c.name;
  // The state is untouched by a right-hand side evaluation.
  EXPECT_LE(relative_difference(library.state(), q), scalar == fluxes::ScalarType::float32 ? 1e-7 : 0.0) << c.name;
}

// Two LSERK stages by hand from the solver's right-hand side, then a whole LSERK4 step (five
// stages) against Solver::step.
void check_stages(const Case& c, rtcg::Backend& backend, fluxes::ScalarType scalar, double tolerance) {
  Problem problem(c, backend, scalar);
  Solver& solver = *problem.solver;
  LibraryFormulation library(solver);
  const std::vector<double> q0 = random_state(solver.size(), 5);
  const double dt = 1e-2, t = c.t;

  // Stage 1 from a zero residual (set_state zeroes it), stage 2 with a != 0.
  const double a1 = 0.0, b1 = 0.7, a2 = -0.4, b2 = 1.2, t2 = t + 0.3 * dt;
  library.set_state(q0);
  library.stage(t, a1, b1, dt);
  library.stage(t2, a2, b2, dt);
  solver.set_state(q0);
  const std::vector<double> L0 = solver.rhs(t);
  std::vector<double> res(q0.size()), q1(q0.size()), q2(q0.size());
  for (std::size_t i = 0; i < q0.size(); ++i) {
    res[i] = dt * L0[i];
    q1[i] = q0[i] + b1 * res[i];
  }
  solver.set_state(q1);
  const std::vector<double> L1 = solver.rhs(t2);
  for (std::size_t i = 0; i < q0.size(); ++i) {
    res[i] = a2 * res[i] + dt * L1[i];
    q2[i] = q1[i] + b2 * res[i];
  }
  const double d_stages = relative_difference(library.state(), q2);

  // A whole step.
  library.set_state(q0);
  for (std::size_t s = 0; s < 5; ++s) library.stage(t + Lserk4::c[s] * dt, Lserk4::a[s], Lserk4::b[s], dt);
  solver.set_state(q0);
  solver.step(t, dt);
  const double d_step = relative_difference(library.state(), solver.state());
  std::printf("%s (%s): two stages vs by hand %.3e, LSERK4 step vs Solver::step %.3e\n", c.name, backend.name().c_str(),
              d_stages, d_step);
  EXPECT_LT(d_stages, tolerance) << c.name;
  EXPECT_LT(d_step, tolerance) << c.name;
}

#ifndef RTDG_LIBRARY_TEST_CUDA

rtcg::Backend& host() { return rtcg::backend("host"); }

class LibraryHost : public ::testing::TestWithParam<Case> {};

TEST_P(LibraryHost, RhsMatchesSolverDouble) { check_rhs(GetParam(), host(), fluxes::ScalarType::float64, 1e-12); }

TEST_P(LibraryHost, StagesMatchSolverDouble) { check_stages(GetParam(), host(), fluxes::ScalarType::float64, 1e-12); }

INSTANTIATE_TEST_SUITE_P(Cases, LibraryHost, ::testing::ValuesIn(cases()),
                         [](const auto& param_info) { return std::string(param_info.param.name); });

TEST(LibraryHostExtra, FloatMatchesSolverFloat) {
  const std::vector<Case> all = cases();
  for (const Case& c : {all[0], all[4]}) check_rhs(c, host(), fluxes::ScalarType::float32, 1e-4);
}

// The solver's plan does not matter: the library formulation keeps its own field-major arrays
// and both are compared in the host layout.
TEST(LibraryHostExtra, SolverPlanDoesNotMatter) {
  Plan plan;
  plan.layout = Layout::element_major;
  check_rhs(cases()[4], host(), fluxes::ScalarType::float64, 1e-12, plan);
}

TEST(LibraryHostExtra, DescribesItself) {
  Problem problem(cases()[0], host(), fluxes::ScalarType::float64);
  LibraryFormulation library(*problem.solver);
  const std::string text = library.describe();
  EXPECT_NE(text.find("Eigen GEMM"), std::string::npos) << text;
  EXPECT_NE(text.find("(Dr|Ds|Dt) and LIFT + 3 generated pointwise kernels"), std::string::npos) << text;
  EXPECT_THROW(library.set_state(std::vector<double>(3, 0.0)), Error);
}

// Every law with all of its conditions, low and high order, float and double: the pointwise
// kernels compile with NVRTC for sm_90 (as test_dg_kernels does for the solver's).
TEST(LibraryKernels, CompileWithNvrtcForSm90) {
  const auto nvrtc = rtcg::make_nvrtc_compiler("sm_90");
  std::map<std::pair<Shape, int>, Element> elements;
  for (const char* name : {"advection", "acoustics", "maxwell2d_tm", "maxwell2d_te", "maxwell3d", "advection+source"}) {
    const bool with_source = std::string(name) == "advection+source";
    const fluxes::Law law = with_source ? advection_with_source() : test::law_file(name);
    const Shape shape = law.dimension == 2 ? Shape::triangle : Shape::tetrahedron;
    KernelSpec spec;
    spec.law = &law;
    spec.parameters = fluxes::resolve_parameters(law);
    for (const fluxes::BoundaryCondition& bc : law.boundaries) spec.conditions.push_back(&bc);
    if (std::string(name).rfind("maxwell", 0) == 0) {
      const bool te = std::string(name) == "maxwell2d_te";
      spec.incident = lower_plane_wave(law, PlaneWave{{1, 0, 0}, {0, te ? 1.0 : 0.0, te ? 0.0 : 1.0}}, 1.0, 1.0, 0.0);
    } else if (law.env.incident_components() > 0) {
      fluxes::Lowered incident;  // any DAG over t will do for compiling
      const fluxes::NodeId t = incident.dag.input({fluxes::InputKind::time, 0});
      for (std::size_t k = 0; k < law.env.incident_components(); ++k)
        incident.outputs.push_back(incident.dag.unary(fluxes::Op::sin, t));
      spec.incident = incident;
    }
    for (int N : {1, 5}) {
      auto it = elements.find({shape, N});
      if (it == elements.end()) it = elements.emplace(std::pair{shape, N}, make_element(shape, N)).first;
      spec.element = &it->second;
      for (const auto scalar : {fluxes::ScalarType::float32, fluxes::ScalarType::float64}) {
        spec.scalar = scalar;
        spec.plan.layout = Layout::element_major;  // ignored: the library kernels are field-major
        const rtcg::Program program = library_program(spec);
        EXPECT_NE(program.source.find("#define QIDX(c, k, i) (((c) * K + (k)) * NP + (i))"), std::string::npos);
        EXPECT_EQ(program.source.find("rhs[QIDX(0, k, i)] = S[0];") != std::string::npos, with_source) << name;
        EXPECT_NO_THROW((void)nvrtc->compile(program)) << program.name << "\n" << program.source;
      }
    }
  }
}

// libcublas loads (dlopen needs no device) wherever the CUDA toolkit's copy is installed.
TEST(LibraryCublas, LoadsWhereTheToolkitHasIt) {
  bool present = false;
  for (const char* path : {"/usr/local/cuda/lib64/libcublas.so.13", "/usr/local/cuda/targets/x86_64-linux/lib/libcublas.so.13",
                           "/usr/local/cuda/lib64/libcublas.so"})
    present = present || std::filesystem::exists(path);
  if (!present && !cublas_loadable()) GTEST_SKIP() << "no libcublas here: " << cublas_load_failure();
  EXPECT_TRUE(cublas_loadable()) << cublas_load_failure();
  EXPECT_TRUE(cublas_load_failure().empty()) << cublas_load_failure();
}

#else  // RTDG_LIBRARY_TEST_CUDA

class LibraryCuda : public ::testing::TestWithParam<Case> {
protected:
  void SetUp() override {
    if (!rtcg::cuda_available()) GTEST_SKIP() << "no CUDA device: " << rtcg::cuda_unavailable_reason();
  }
};

rtcg::Backend& cuda() { return rtcg::backend("cuda"); }

TEST_P(LibraryCuda, RhsMatchesSolverDouble) { check_rhs(GetParam(), cuda(), fluxes::ScalarType::float64, 1e-12); }

TEST_P(LibraryCuda, RhsMatchesSolverFloat) { check_rhs(GetParam(), cuda(), fluxes::ScalarType::float32, 1e-4); }

TEST_P(LibraryCuda, StagesMatchSolverDouble) { check_stages(GetParam(), cuda(), fluxes::ScalarType::float64, 1e-12); }

TEST_P(LibraryCuda, StagesMatchSolverFloat) { check_stages(GetParam(), cuda(), fluxes::ScalarType::float32, 1e-4); }

INSTANTIATE_TEST_SUITE_P(Cases, LibraryCuda, ::testing::ValuesIn(cases()),
                         [](const auto& param_info) { return std::string(param_info.param.name); });

// What `rtdg bench` does with it: describe, and time stages with CUDA events on rtcg's stream
// (the GEMMs are on that stream, so a stage's time covers them).
TEST(LibraryCudaBench, DescribesAndTimesAStage) {
  if (!rtcg::cuda_available()) GTEST_SKIP() << "no CUDA device: " << rtcg::cuda_unavailable_reason();
  for (const auto scalar : {fluxes::ScalarType::float64, fluxes::ScalarType::float32}) {
    Problem problem(cases()[4], cuda(), scalar);
    LibraryFormulation library(*problem.solver);
    const std::string text = library.describe();
    EXPECT_NE(text.find(scalar == fluxes::ScalarType::float64 ? "cuBLAS DGEMM" : "cuBLAS SGEMM"), std::string::npos) << text;
    library.set_state(random_state(problem.solver->size(), 3));
    library.stage(0.0, 0.0, 0.5, 1e-3);  // warm-up
    const double ms = cuda().time_ms([&] {
      for (int s = 0; s < 10; ++s) library.stage(0.0, -0.5, 0.5, 1e-3);
    });
    std::printf("%s: 10 stages in %.3f ms\n", text.c_str(), ms);
    EXPECT_GT(ms, 0.0);
  }
}

#endif

}  // namespace
}  // namespace rtdg::dg
