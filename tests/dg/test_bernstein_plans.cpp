// Plans in the Bernstein basis (Plan::basis = bernstein, host backend): the solver keeps the
// Bernstein coefficients and converts at its edges, so every reader sees the nodal run's values.
// For Maxwell's equations (linear, constant coefficients per element, PEC walls) the
// semi-discrete systems of the two bases are similar, so each plan must give the nodal default
// plan's right-hand side and steps to rounding (the transforms V_B and V_B^-1 add a few digits:
// 1e-11 relative), on triangles and tetrahedra; by-column plans that differentiate the state
// apply LIFT in layers, the others as a product; faces that read the incident field (boundary
// conditions, TF/SF) take its face coefficients. Laws and runs whose pieces do not carry over
// (position-dependent sources, nonlinear fluxes, shock capturing) are refused with the reason.
#include "solver_support.hpp"

#include <dg/error.hpp>
#include <dg/farfield.hpp>
#include <dg/incident.hpp>
#include <dg/plan.hpp>
#include <dg/total_field.hpp>
#include <rtcg/backend.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace rtdg::dg {
namespace {

using test::Cavity;

rtcg::Backend& host() { return rtcg::backend("host"); }

using test::max_abs;
using test::max_difference;

std::vector<double> random_state(std::size_t n) { return test::random_state(n, 11); }

Plan bernstein(Plan plan) {
  plan.basis = Basis::bernstein;
  return plan;
}

using test::fused_plan;

// Bernstein plans of every family: unfused, fused with the operators in global and shared
// memory, by column (literals and constant memory; the state derivative in layers, the flux
// derivative as a product), the lattice stencil (with the geometry in shared memory, and
// field-major without prefetch), tensor products, and a padded node stride; three of them with
// the faces of the layered LIFT on two threads per column (face_threads), one of those a stencil
// plan that reads its update input late (prefetch_update = off).
std::vector<Plan> bernstein_plans() {
  Plan padded = fused_plan(Layout::element_major, 2, 1, Operators::literals, Derivative::state, Products::scalar, Prefetch::async);
  padded.align = 32;
  padded.face_threads = 2;
  Plan stencil_shared = fused_plan(Layout::element_major, 3, 1, Operators::stencil, Derivative::state, Products::scalar,
                                   Prefetch::async);
  stencil_shared.geometry = GeometryPlace::shared;
  stencil_shared.face_threads = 2;
  Plan stencil_late = fused_plan(Layout::element_major, 2, 1, Operators::stencil, Derivative::state, Products::scalar,
                                 Prefetch::async);
  stencil_late.face_threads = 2;
  stencil_late.prefetch_update = false;
  return {bernstein(Plan{}),
          bernstein(fused_plan(Layout::field_major, 3, 1, Operators::global, Derivative::flux)),
          bernstein(fused_plan(Layout::element_major, 2, 1, Operators::shared, Derivative::state, Products::scalar, Prefetch::on)),
          bernstein(fused_plan(Layout::element_major, 3, 1, Operators::literals, Derivative::state, Products::scalar,
                          Prefetch::async)),
          bernstein(fused_plan(Layout::field_major, 2, 1, Operators::constant, Derivative::state)),
          bernstein(fused_plan(Layout::field_major, 3, 1, Operators::literals, Derivative::flux)),
          bernstein(fused_plan(Layout::element_major, 4, 1, Operators::global, Derivative::state, Products::tensor, Prefetch::async)),
          bernstein(stencil_shared),
          bernstein(fused_plan(Layout::field_major, 2, 1, Operators::stencil, Derivative::state)),
          bernstein(padded),
          bernstein(stencil_late)};
}

bool lifts_in_layers(const Plan& plan) {
  return plan.fusion == Fusion::stage && plan.derivative == Derivative::state && plan.products == Products::scalar &&
         (plan.operators == Operators::literals || plan.operators == Operators::constant ||
          plan.operators == Operators::stencil);
}

struct Case {
  const char* law;
  int n;
  int N;
};

TEST(BernsteinPlans, MatchTheNodalDefaultPlan) {
  const std::string layers = "LIFT in the Bernstein layers";
  for (const Case c : {Case{"maxwell2d_tm", 3, 4}, Case{"maxwell3d", 2, 3}}) {
    for (const Integrator integrator : {Integrator::lserk4, Integrator::ssprk3}) {
      SCOPED_TRACE(std::string(c.law) + ", " + to_string(integrator));
      Cavity reference(c.law, c.n, c.N, host(), 1.0, fluxes::ScalarType::float64, integrator);
      const std::vector<double> start = random_state(reference.solver->size());
      reference.solver->set_state(start);
      const std::vector<double> rhs = reference.solver->rhs(0.25);
      const double dt = reference.solver->stable_dt(0.5);
      reference.solver->step(0.25, dt);
      reference.solver->step(0.25 + dt, dt);
      std::vector<double> change = reference.solver->state();
      for (std::size_t i = 0; i < change.size(); ++i) change[i] -= start[i];
      for (const Plan& plan : bernstein_plans()) {
        SCOPED_TRACE(plan.describe());
        Cavity other(c.law, c.n, c.N, host(), 1.0, fluxes::ScalarType::float64, integrator, plan);
        EXPECT_EQ(other.solver->kernels().source.find(layers) != std::string::npos, lifts_in_layers(plan));
        other.solver->set_state(start);
        // set_state and state() go through V_B^-1 and V_B.
        EXPECT_LE(max_difference(other.solver->state(), start), 1e-13);
        EXPECT_LE(max_difference(other.solver->rhs(0.25), rhs), 1e-11 * max_abs(rhs));
        other.solver->set_state(start);
        other.solver->step(0.25, dt);
        other.solver->step(0.25 + dt, dt);
        std::vector<double> other_change = other.solver->state();
        for (std::size_t i = 0; i < other_change.size(); ++i) other_change[i] -= start[i];
        EXPECT_LE(max_difference(other_change, change), 1e-11 * max_abs(change));
      }
    }
  }
}

// From order 6 on tetrahedra (28 nodes per face) the layers of each face are a function of their
// own (kernels/fused/lift.cpp, lift_faces_outlined): the same answer.
TEST(BernsteinPlans, OutlinedFaceLayersAtOrder6) {
  Cavity reference("maxwell3d", 1, 6, host());
  const std::vector<double> start = random_state(reference.solver->size());
  reference.solver->set_state(start);
  const std::vector<double> rhs = reference.solver->rhs(0.25);
  for (const int face_threads : {1, 4})
  for (const Operators operators : {Operators::literals, Operators::stencil}) {
    Plan plan = bernstein(fused_plan(Layout::element_major, 2, 1, operators, Derivative::state));
    plan.face_threads = face_threads;
    SCOPED_TRACE(plan.describe());
    Cavity other("maxwell3d", 1, 6, host(), 1.0, fluxes::ScalarType::float64, Integrator::lserk4, plan);
    EXPECT_NE(other.solver->kernels().source.find("rtdg_lift_face_3(x, y);"), std::string::npos);
    other.solver->set_state(start);
    EXPECT_LE(max_difference(other.solver->rhs(0.25), rhs), 1e-11 * max_abs(rhs));
  }
}

// The kernels really run on coefficients: the Bernstein plan's device state is not the nodal
// one, while every reader (state, copy_elements, device_state, max_abs, the wave speed) gets the
// nodal values.
TEST(BernsteinPlans, ReadersSeeNodalValues) {
  Cavity nodal("maxwell3d", 2, 3, host());
  const Plan plan = bernstein(fused_plan(Layout::element_major, 3, 1, Operators::literals, Derivative::state));
  Cavity other("maxwell3d", 2, 3, host(), 1.0, fluxes::ScalarType::float64, Integrator::lserk4, plan);
  const std::vector<double> start = random_state(nodal.solver->size());
  nodal.solver->set_state(start);
  other.solver->set_state(start);
  const double dt = nodal.solver->stable_dt(0.5);
  nodal.solver->step(0.0, dt);
  other.solver->step(0.0, dt);
  const std::vector<double> expected = nodal.solver->state();
  const double scale = max_abs(expected);
  EXPECT_LE(max_difference(other.solver->state(), expected), 1e-12 * scale);

  const int K = nodal.disc.K;
  std::vector<double> picked(other.solver->size(), 0.0), picked_nodal(other.solver->size(), 0.0);
  const std::vector<int> elements = {K - 1, 0, 3};
  other.solver->copy_elements(elements, picked);
  nodal.solver->copy_elements(elements, picked_nodal);
  EXPECT_LE(max_difference(picked, picked_nodal), 1e-12 * scale);

  // The host backend's device memory is host memory: device_state can be read here.
  const Solver::DeviceState device = other.solver->device_state();
  const auto* values = static_cast<const double*>(device.data);
  double worst = 0;
  const int Np = nodal.disc.element.Np;
  for (int c = 0; c < other.solver->components(); ++c)
    for (int k = 0; k < K; ++k)
      for (int i = 0; i < Np; ++i)
        worst = std::max(worst, std::abs(values[other.solver->device_index(c, k, i)] -
                                         expected[(static_cast<std::size_t>(c) * static_cast<std::size_t>(K) + static_cast<std::size_t>(k)) *
                                                  static_cast<std::size_t>(Np) + static_cast<std::size_t>(i)]));
  EXPECT_LE(worst, 1e-12 * scale);
  EXPECT_NEAR(other.solver->max_abs(), nodal.solver->max_abs(), 1e-12 * scale);
  EXPECT_NEAR(other.solver->max_wave_speed(), nodal.solver->max_wave_speed(), 1e-14);
  EXPECT_TRUE(other.solver->state_is_finite());
  EXPECT_FALSE(other.solver->find_bad_value().has_value());
}

// The far-field transform reads a Bernstein plan's coefficients as the kernels keep them
// (Solver::stored_state: V_B's row of each trace's node times its element's column) rather than a
// transformed copy of the whole state. Its sums must be those of the nodal traces: checked against
// sums made here from state() (the surface's flat indices, independent of the kernel layout), for
// an element-major plan and a field-major one with a padded node stride, and for the nodal plan.
TEST(BernsteinPlans, FarFieldTransformSumsTheNodalTraces) {
  Plan padded = bernstein(fused_plan(Layout::field_major, 2, 1, Operators::literals, Derivative::state));
  padded.align = 32;
  const std::vector<Plan> plans = {Plan{}, bernstein(fused_plan(Layout::element_major, 3, 1, Operators::literals,
                                                                 Derivative::state)),
                                   padded};
  for (const Plan& plan : plans) {
    SCOPED_TRACE(to_text(plan));
    Cavity c("maxwell3d", 2, 3, host(), 1.0, fluxes::ScalarType::float64, Integrator::lserk4, plan);
    const int K = c.disc.K, Np = c.disc.element.Np;
    // Interior and boundary faces (a boundary point's outer node is its inner one).
    const std::vector<std::pair<int, int>> faces = {{0, 0}, {1, 1}, {2, 2}, {K - 1, 3}, {K / 2, 0}};
    const HuygensSurface surface = huygens_surface(c.disc, faces);
    const std::array<int, 6> slots = {0, 1, 2, 3, 4, 5};
    const std::vector<double> omegas = {2.0, 3.5};
    SurfaceDft dft(*c.solver, surface, slots, omegas);
    const std::size_t P = surface.size(), C = 6;
    std::vector<double> expected(omegas.size() * C * P * 2, 0.0);
    c.solver->set_state(random_state(c.solver->size()));
    const double dt = c.solver->stable_dt(0.5);
    double t = 0;
    for (int n = 0; n < 3; ++n) {
      c.solver->step(t, dt);
      t += dt;
      dft.accumulate(t, dt, 0.0);
      const std::vector<double> u = c.solver->state();
      for (std::size_t f = 0; f < omegas.size(); ++f)
        for (std::size_t m = 0; m < C; ++m)
          for (std::size_t p = 0; p < P; ++p) {
            const std::size_t column = m * static_cast<std::size_t>(K) * static_cast<std::size_t>(Np);
            const double v = 0.5 * (u[column + static_cast<std::size_t>(surface.inner[p])] +
                                    u[column + static_cast<std::size_t>(surface.outer[p])]);
            expected[2 * ((f * C + m) * P + p)] += v * dt * std::cos(omegas[f] * t);
            expected[2 * ((f * C + m) * P + p) + 1] += v * dt * std::sin(omegas[f] * t);
          }
    }
    const std::vector<double> sums = dft.device_sums();
    ASSERT_EQ(sums.size(), expected.size());
    EXPECT_LE(max_difference(sums, expected), 1e-12 * max_abs(expected));
    EXPECT_GT(max_abs(expected), 0.0);
  }
}

// set_plan between the bases converts the state (through the host), and the tuner's kept state
// and reference change, kept with a nodal plan, are compared with a Bernstein plan's step.
TEST(BernsteinPlans, SetPlanBetweenBasesKeepsTheStateAndTheTunersReference) {
  Cavity a("maxwell2d_tm", 3, 4, host());
  const std::vector<double> start = random_state(a.solver->size());
  a.solver->set_state(start);
  const std::vector<double> rhs = a.solver->rhs(0.0);
  const Plan plan = bernstein(fused_plan(Layout::element_major, 2, 1, Operators::literals, Derivative::state));
  a.solver->set_plan(plan);
  EXPECT_LE(max_difference(a.solver->state(), start), 1e-13);
  EXPECT_LE(max_difference(a.solver->rhs(0.0), rhs), 1e-11 * max_abs(rhs));
  a.solver->set_plan(Plan{});
  EXPECT_LE(max_difference(a.solver->state(), start), 1e-13);
  EXPECT_LE(max_difference(a.solver->rhs(0.0), rhs), 1e-12 * max_abs(rhs));

  // As the DG tuning job does it: reference from the nodal default plan, then a Bernstein plan.
  const double dt = a.solver->stable_dt(0.5);
  a.solver->keep_state();
  a.solver->step(0.5, dt);
  a.solver->keep_change();
  a.solver->set_plan(plan, Solver::StateOnReplan::discard);
  a.solver->restore_kept_state();
  EXPECT_LE(max_difference(a.solver->state(), start), 1e-13);
  a.solver->step(0.5, dt);
  const Solver::ChangeDifference d = a.solver->compare_change();
  EXPECT_GT(d.scale, 0.0);
  EXPECT_LE(d.worst, 1e-11 * d.scale);
  // A wrong step does not pass: a second step from there is far from the reference change.
  a.solver->step(0.5 + dt, dt);
  EXPECT_GT(a.solver->compare_change().worst, 1e-3 * d.scale);
  // A Bernstein plan in the reference's own layout: the kept copies converted on the device.
  for (const Plan& same_layout : {bernstein(Plan{}), Plan{}, bernstein(Plan{})}) {
    SCOPED_TRACE(same_layout.describe());
    a.solver->set_plan(same_layout, Solver::StateOnReplan::discard);
    a.solver->restore_kept_state();
    EXPECT_LE(max_difference(a.solver->state(), start), 1e-13);
    a.solver->step(0.5, dt);
    const Solver::ChangeDifference e = a.solver->compare_change();
    EXPECT_LE(e.worst, 1e-11 * e.scale);
    // The scale is the reference change's largest value in the plan's basis.
    if (same_layout.basis == Basis::bernstein) {
      EXPECT_NEAR(e.scale, d.scale, 1e-9 * d.scale);
    }
  }
  a.solver->release_kept_state();
}

// The Bernstein basis is refused where it would change the answer, naming the reason.
void expect_refused(const std::function<void()>& make, const std::string& reason) {
  try {
    make();
    ADD_FAILURE() << "no error; expected one saying: " << reason;
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find(reason), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("use basis = nodal"), std::string::npos) << error.what();
  }
}

TEST(BernsteinPlans, RefusedWhereTheBasisDoesNotCarryOver) {
  const Plan plan = bernstein(fused_plan(Layout::field_major, 2, 1, Operators::global, Derivative::flux));
  // The PML's damping varies over the element (sigma(x)).
  expect_refused([&] { Cavity pml("maxwell2d_tm_pml", 2, 2, host(), 1.0, fluxes::ScalarType::float64, Integrator::lserk4, plan); },
                 "the source of the law 'maxwell2d_tm_pml'");
  // ... also when switched to by set_plan, and the solver keeps its nodal plan.
  {
    Cavity pml("maxwell2d_tm_pml", 2, 2, host());
    expect_refused([&] { pml.solver->set_plan(plan); }, "depends on the position");
    EXPECT_EQ(pml.solver->setup().plan, Plan{});
  }

  // The lattice stencil: Bernstein plans of the fused stage that differentiate the state.
  {
    Cavity cavity("maxwell2d_tm", 2, 2, host());
    auto refused = [&](const Plan& refused_plan) {
      try {
        cavity.solver->set_plan(refused_plan);
        ADD_FAILURE() << "not refused: " << refused_plan.describe();
      } catch (const Error& error) {
        EXPECT_NE(std::string(error.what()).find("the plan does not fit: operators = stencil"), std::string::npos)
            << error.what();
      }
    };
    const Plan stencil = bernstein(fused_plan(Layout::field_major, 2, 1, Operators::stencil, Derivative::state));
    Plan nodal = stencil;
    nodal.basis = Basis::nodal;
    refused(nodal);
    Plan flux = stencil;
    flux.derivative = Derivative::flux;
    refused(flux);
    Plan unfused = bernstein(Plan{});
    unfused.operators = Operators::stencil;
    refused(unfused);
    Plan tensor = stencil;
    tensor.products = Products::tensor;
    refused(tensor);
    // Faces shared by threads: the layered LIFT's, at most the element's faces.
    const Plan literals = bernstein(fused_plan(Layout::field_major, 2, 1, Operators::literals, Derivative::state));
    Plan literals_nodal = literals, literals_flux = literals;
    literals_nodal.basis = Basis::nodal;
    literals_flux.derivative = Derivative::flux;
    for (Plan shared_faces : {stencil, literals_nodal, literals_flux}) {
      shared_faces.face_threads = shared_faces.operators == Operators::stencil ? 4 : 2;  // triangles: 3 faces
      SCOPED_TRACE(shared_faces.describe());
      try {
        cavity.solver->set_plan(shared_faces);
        ADD_FAILURE() << "not refused";
      } catch (const Error& error) {
        EXPECT_NE(std::string(error.what()).find("face_threads"), std::string::npos) << error.what();
      }
    }
    EXPECT_EQ(cavity.solver->setup().plan, Plan{});
  }

  // Shock capturing (the filter works on nodal values).
  {
    const fluxes::Law law = test::law_file("maxwell2d_tm");
    const mesh::Mesh m = mesh::build_mesh(test::box_mesh(2, 2));
    const Discretization disc = discretize(m, 2);
    SolverSetup setup;
    setup.law = &law;
    setup.parameters = fluxes::resolve_parameters(law);
    for (const char* wall : {"xmin", "xmax", "ymin", "ymax"}) setup.boundaries.push_back({wall, "pec", ""});
    setup.plan = plan;
    setup.stabilization.filter_strength = 36;
    expect_refused([&] { Solver solver(host(), disc, setup); }, "shock capturing");
  }

  // A nonlinear flux (Euler).
  {
    const fluxes::Law law = test::law_file("euler2d");
    const mesh::Mesh m = mesh::build_mesh(test::box_mesh(2, 2));
    const Discretization disc = discretize(m, 2);
    SolverSetup setup;
    setup.law = &law;
    setup.parameters = fluxes::resolve_parameters(law);
    for (const char* wall : {"xmin", "xmax", "ymin", "ymax"}) setup.boundaries.push_back({wall, law.boundaries.front().name, ""});
    Solver solver(host(), disc, setup);
    expect_refused([&] { solver.set_plan(plan); }, "is not affine in the state");
  }
}

// The incident field where faces read it: a boundary condition (pec_scattered: the exterior
// state from the interior one and the incident field) and TF/SF faces (the neighbour's trace plus
// or minus the incident field). The kernels turn its values at a face's nodes into the face's
// Bernstein coefficients; a Bernstein plan then runs the nodal plan's steps to rounding.
struct IncidentRun {
  fluxes::Law law;
  mesh::Mesh mesh;
  Discretization disc;
  SolverSetup setup;
  IncidentRun(const char* law_name, int dim, int n, int N, bool tfsf) : law(test::law_file(law_name)) {
    mesh = mesh::build_mesh(tfsf ? test::box_mesh(dim, n, {-2, -2, -2}, {4, 4, 4}) : test::box_mesh(dim, n));
    disc = discretize(mesh, N);
    setup.law = &law;
    setup.parameters = fluxes::resolve_parameters(law);
    for (const char* wall : {"xmin", "xmax", "ymin", "ymax", "zmin", "zmax"})
      if (dim == 3 || wall[0] != 'z') setup.boundaries.push_back({wall, tfsf ? "absorbing" : "pec_scattered", ""});
    PlaneWave wave;
    wave.direction = {1, 0, 0};
    wave.polarization = {0, 0, 1};
    wave.wavenumber = 2.0;
    wave.envelope = Envelope::ramp;
    wave.ramp_periods = 0.5;
    setup.incident = wave;
    if (tfsf) setup.total_field = total_field_box(mesh, {-1.5, -1.5, -1.5}, {1.5, 1.5, 1.5});
  }
  // The state after `steps` steps from zero at t = 0.
  std::vector<double> run(const Plan& plan, int steps) {
    setup.plan = plan;
    Solver solver(host(), disc, setup);
    const double dt = solver.stable_dt(0.5);
    for (int s = 0; s < steps; ++s) solver.step(s * dt, dt);
    return solver.state();
  }
};

TEST(BernsteinPlans, IncidentFieldsOnBoundaryAndTotalFieldFaces) {
  const Plan by_column = bernstein(fused_plan(Layout::element_major, 3, 1, Operators::literals, Derivative::state,
                                         Products::scalar, Prefetch::async));
  const Plan unfused = bernstein(Plan{});
  const Plan stencil = bernstein(fused_plan(Layout::field_major, 2, 1, Operators::stencil, Derivative::state,
                                       Products::scalar, Prefetch::async));
  struct Incident {
    const char* law;
    int dim, n, N;
    bool tfsf;
    int steps;  // the wave enters the total-field box (from x = -1.5) after t = 0.5
  };
  for (const Incident c : {Incident{"maxwell2d_tm", 2, 3, 4, false, 40}, Incident{"maxwell3d", 3, 2, 3, false, 40},
                           Incident{"maxwell2d_tm", 2, 8, 3, true, 120}}) {
    SCOPED_TRACE(std::string(c.law) + (c.tfsf ? ", TF/SF" : ", pec_scattered"));
    IncidentRun run(c.law, c.dim, c.n, c.N, c.tfsf);
    const std::vector<double> expected = run.run(Plan{}, c.steps);
    ASSERT_GT(max_abs(expected), 1e-4);  // the wave has come in
    for (const Plan& plan : {by_column, unfused, stencil}) {
      SCOPED_TRACE(plan.describe());
      EXPECT_LE(max_difference(run.run(plan, c.steps), expected), 1e-11 * max_abs(expected));
    }
  }
}

TEST(BernsteinPlans, TextAndDescription) {
  const Plan plan = bernstein(fused_plan(Layout::element_major, 4, 1, Operators::literals, Derivative::state));
  const std::string text = to_text(plan);
  EXPECT_NE(text.find(" basis=bernstein"), std::string::npos) << text;
  EXPECT_EQ(plan_from_text(text), plan);
  EXPECT_EQ(plan_from_text(to_text(bernstein(Plan{}))), bernstein(Plan{}));
  const Plan stencil = bernstein(fused_plan(Layout::element_major, 4, 1, Operators::stencil, Derivative::state));
  EXPECT_NE(to_text(stencil).find(" operators=stencil "), std::string::npos) << to_text(stencil);
  EXPECT_EQ(plan_from_text(to_text(stencil)), stencil);
  EXPECT_NE(stencil.describe().find("operators stencil"), std::string::npos) << stencil.describe();
  Plan shared_faces = stencil;
  shared_faces.face_threads = 4;
  EXPECT_NE(to_text(shared_faces).find(" face_threads=4"), std::string::npos);
  EXPECT_EQ(to_text(stencil).find("face_threads"), std::string::npos);
  EXPECT_EQ(plan_from_text(to_text(shared_faces)), shared_faces);
  EXPECT_NE(shared_faces.describe().find("faces on 4 threads/column"), std::string::npos) << shared_faces.describe();
  EXPECT_THROW((void)plan_from_text(to_text(stencil) + " face_threads=3"), Error);
  try {
    (void)plan_from_text(to_text(stencil) + " face_threads=3");
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("face_threads=3 is not 1, 2 or 4"), std::string::npos) << error.what();
  }
  // Nodal plans keep the text they had before the basis was a plan value.
  EXPECT_EQ(to_text(Plan{}).find("basis"), std::string::npos);
  EXPECT_EQ(plan_from_text(to_text(Plan{}) + " basis=nodal"), Plan{});
  EXPECT_NE(plan.describe().find("Bernstein basis"), std::string::npos);
  EXPECT_EQ(Plan{}.describe().find("Bernstein"), std::string::npos);
  EXPECT_EQ(parse_basis("bernstein"), Basis::bernstein);
  try {
    plan_from_text(to_text(Plan{}) + " basis=modal");
    ADD_FAILURE() << "no error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("unknown basis 'modal'; valid values: nodal, bernstein"), std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace rtdg::dg
