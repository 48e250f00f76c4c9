// Solver::max_wave_speed: the law's max_wave_speed reduced over the nodes by a generated kernel
// (dg/wave_speed.hpp). On the host backend it equals the expression evaluated node by node by
// the interpreter, in both layouts, for Euler and shallow water on random valid states; a NaN
// speed anywhere (a NaN state value, or a negative pressure under a square root) comes back as
// NaN, which the runner turns into its "left the law's valid range" error.
#include "euler_support.hpp"

#include <dg/error.hpp>
#include <dg/wave_speed.hpp>
#include <fluxes/evaluate.hpp>
#include <rtcg/backend.hpp>

#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>

namespace rtdg::dg {
namespace {

rtcg::Backend& host() { return rtcg::backend("host"); }
std::string law_path(const std::string& name) { return std::string(RTDG_SOURCE_DIR) + "/data/laws/" + name + ".toml"; }

struct Case {
  fluxes::Law law;
  mesh::Mesh mesh = test::periodic_square(3, {0, 0, 0}, {1, 1, 0});
  Discretization disc;
  std::vector<double> parameters;
  explicit Case(const std::string& name) : law(fluxes::read_law(law_path(name))) {
    disc = discretize(mesh, 3);
    parameters = fluxes::resolve_parameters(law);
  }
  std::vector<std::vector<double>> element_parameters;  // per region materials, when set
  // align > 0: a fused plan with the state's columns padded (Plan::align; Np = 10 at order 3).
  std::unique_ptr<Solver> solver(Layout layout, fluxes::ScalarType scalar = fluxes::ScalarType::float64,
                                 int align = 0) const {
    SolverSetup setup;
    if (align > 0) {
      setup.plan.fusion = Fusion::stage;
      setup.plan.stage_elements_per_block = 2;
      setup.plan.align = align;
    }
    setup.law = &law;
    setup.parameters = parameters;
    setup.element_parameters = element_parameters;
    setup.scalar = scalar;
    setup.plan.layout = layout;
    return std::make_unique<Solver>(host(), disc, setup);
  }
};

// A random valid state ([c][K][Np]): density or depth in [0.5, 2], momenta in [-1, 1], and
// for Euler an energy with pressure in [0.5, 2].
std::vector<double> random_state(const Case& c, std::mt19937& random) {
  std::uniform_real_distribution<double> unit(-1.0, 1.0), positive(0.5, 2.0);
  const std::size_t nodes = static_cast<std::size_t>(c.disc.K) * static_cast<std::size_t>(c.disc.element.Np);
  const std::size_t components = c.law.state_components();
  std::vector<double> q(components * nodes);
  for (std::size_t i = 0; i < nodes; ++i) {
    q[i] = positive(random);
    for (std::size_t d = 1; d <= 2; ++d) q[d * nodes + i] = unit(random);
    if (components == 4) {  // E = p/(gamma - 1) + |m|^2/(2 rho), gamma = 1.4
      const double m2 = q[nodes + i] * q[nodes + i] + q[2 * nodes + i] * q[2 * nodes + i];
      q[3 * nodes + i] = positive(random) / 0.4 + m2 / (2 * q[i]);
    }
  }
  return q;
}

// max |speed| over the nodes by the interpreter, in double, NaN when any node's is.
double reference_speed(const Case& c, const std::vector<double>& q) {
  std::vector<bool> per_element;
  for (const auto& values : c.element_parameters) per_element.push_back(!values.empty());
  const fluxes::Lowered piece = fluxes::lower_max_wave_speed(c.law, c.parameters, per_element);
  const std::size_t Np = static_cast<std::size_t>(c.disc.element.Np);
  const std::size_t nodes = static_cast<std::size_t>(c.disc.K) * Np;
  double worst = 0;
  for (std::size_t i = 0; i < nodes; ++i) {
    const double s = fluxes::evaluate(piece.dag, piece.outputs, [&](const fluxes::InputRef& r) {
      if (r.kind == fluxes::InputKind::state) return q.at(r.index * nodes + i);
      if (r.kind == fluxes::InputKind::parameter) return c.parameters.at(r.index);
      if (r.kind == fluxes::InputKind::element_parameter) return c.element_parameters.at(r.index).at(i / Np);
      ADD_FAILURE() << "the wave speed reads " << fluxes::to_string(r.kind);
      return 0.0;
    })[0];
    worst = std::isnan(s) || std::isnan(worst) ? std::numeric_limits<double>::quiet_NaN() : std::fmax(worst, std::fabs(s));
  }
  return worst;
}

class WaveSpeed : public ::testing::TestWithParam<const char*> {};

TEST_P(WaveSpeed, DeviceReductionEqualsTheHostEvaluation) {
  const Case c(GetParam());
  std::mt19937 random(13);
  for (const auto& [layout, align] : {std::pair{Layout::field_major, 0}, std::pair{Layout::element_major, 0},
                                      std::pair{Layout::element_major, 32}}) {
    SCOPED_TRACE(std::string(layout == Layout::field_major ? "field-major" : "element-major") + ", align " +
                 std::to_string(align));
    const auto solver = c.solver(layout, fluxes::ScalarType::float64, align);
    for (int trial = 0; trial < 3; ++trial) {
      const std::vector<double> q = random_state(c, random);
      solver->set_state(q);
      const double expected = reference_speed(c, q);
      ASSERT_TRUE(std::isfinite(expected) && expected > 0.5);
      // The same DAG emitted as C and interpreted: equal up to the compiler's rounding.
      EXPECT_NEAR(solver->max_wave_speed(), expected, 1e-14 * expected);
    }
  }
  // In float the kernel rounds the state and the arithmetic.
  const auto single = c.solver(Layout::field_major, fluxes::ScalarType::float32);
  const std::vector<double> q = random_state(c, random);
  single->set_state(q);
  const double expected = reference_speed(c, q);
  EXPECT_NEAR(single->max_wave_speed(), expected, 1e-5 * expected);
}

TEST_P(WaveSpeed, NanAnywhereGivesNan) {
  const Case c(GetParam());
  std::mt19937 random(7);
  const auto solver = c.solver(Layout::element_major);
  std::vector<double> q = random_state(c, random);
  const std::size_t nodes = q.size() / c.law.state_components();
  // The first node, one in the middle and the last, in the first and last component: the
  // reduction must carry a NaN whatever its position in the combine order.
  for (const std::size_t at : {std::size_t{0}, nodes / 2 + 1, q.size() - 1}) {
    std::vector<double> bad = q;
    bad[at] = std::numeric_limits<double>::quiet_NaN();
    solver->set_state(bad);
    EXPECT_TRUE(std::isnan(solver->max_wave_speed())) << "NaN at " << at;
  }
  // A state outside the law's range: sqrt of a negative pressure or depth is NaN.
  std::vector<double> negative = q;
  negative[nodes / 3] = -0.5;  // density or depth
  solver->set_state(negative);
  EXPECT_TRUE(std::isnan(reference_speed(c, negative)));
  EXPECT_TRUE(std::isnan(solver->max_wave_speed()));
  // The culprit is named: the first node whose speed is NaN, with its element and state.
  const std::size_t Np = static_cast<std::size_t>(c.disc.element.Np);
  const std::size_t node = nodes / 3;
  const std::string culprit = wave_speed_culprit(*solver);
  EXPECT_EQ(culprit.rfind("nan at node " + std::to_string(node % Np) + " of element " + std::to_string(node / Np) + " (x = ",
                          0),
            0u)
      << culprit;
  EXPECT_NE(culprit.find("), where " + c.law.component_names()[0] + " = -0.5, "), std::string::npos) << culprit;
  // And the valid state again: no NaN left behind.
  solver->set_state(q);
  EXPECT_EQ(wave_speed_culprit(*solver), "");
  EXPECT_NEAR(solver->max_wave_speed(), reference_speed(c, q), 1e-14 * reference_speed(c, q));
}

// Materials per element (SolverSetup::element_parameters): gravity g varies from 1 to 40 over
// the elements of a shallow water run; the speed follows the element's g, not the uniform one.
TEST(WaveSpeedPerElement, ReadsEachElementsParameters) {
  Case c("shallow_water");
  c.element_parameters.resize(c.law.parameters.size());
  std::vector<double>& g = c.element_parameters.at(0);
  ASSERT_EQ(c.law.parameters.at(0).name, "g");
  for (int k = 0; k < c.disc.K; ++k) g.push_back(1.0 + 39.0 * k / (c.disc.K - 1));
  std::mt19937 random(3);
  const std::vector<double> q = random_state(c, random);
  for (const Layout layout : {Layout::field_major, Layout::element_major}) {
    const auto solver = c.solver(layout);
    solver->set_state(q);
    const double expected = reference_speed(c, q);
    EXPECT_GT(expected, std::sqrt(20.0));  // above what the uniform g = 9.81 allows
    EXPECT_NEAR(solver->max_wave_speed(), expected, 1e-14 * expected);
  }
}

// A law whose max_wave_speed is negative somewhere: the law's error, refused with the expression's
// location and the node (it was taken as |speed| and run). Advection with the speed written as
// `speed`, on the state u = x + y - 1 of the unit square (negative where x + y < 1).
struct NegativeSpeed {
  std::filesystem::path file;
  fluxes::Law law;
  explicit NegativeSpeed(const std::string& speed) {
    file = std::filesystem::temp_directory_path() / ("rtdg-negative-speed-" + std::to_string(::getpid()) + ".toml");
    std::ifstream in(law_path("advection"));
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string line = "max_wave_speed = \"norm(vec(ax, ay))\"";
    text.replace(text.find(line), line.size(), "max_wave_speed = \"" + speed + "\"");
    std::ofstream(file) << text;
    law = fluxes::read_law(file);
  }
  ~NegativeSpeed() { std::filesystem::remove(file); }
  NegativeSpeed(const NegativeSpeed&) = delete;
  NegativeSpeed& operator=(const NegativeSpeed&) = delete;
};

std::string speed_error(const NegativeSpeed& law, const std::vector<double>& parameters, bool set_state) {
  const mesh::Mesh mesh = test::periodic_square(2, {0, 0, 0}, {1, 1, 0});
  const Discretization disc = discretize(mesh, 2);
  SolverSetup setup;
  setup.law = &law.law;
  setup.parameters = parameters;
  Solver solver(host(), disc, setup);
  if (set_state) {
    std::vector<double> u(static_cast<std::size_t>(disc.K * disc.element.Np));
    for (int k = 0; k < disc.K; ++k)
      for (int i = 0; i < disc.element.Np; ++i)
        u[static_cast<std::size_t>(k * disc.element.Np + i)] = disc.x(i, k) + disc.y(i, k) - 1;
    solver.set_state(u);
  }
  try {
    const double speed = solver.max_wave_speed();
    return "accepted: " + std::to_string(speed);
  } catch (const Error& e) {
    return e.what();
  }
}

TEST(WaveSpeedSign, NegativeSpeedOfTheStateIsRefusedWithTheNode) {
  const NegativeSpeed law("u");
  const std::string error = speed_error(law, fluxes::resolve_parameters(law.law), true);
  EXPECT_EQ(error.rfind("the law's max_wave_speed (" + law.file.string() + ":9:19) is -", 0), 0u) << error;
  EXPECT_NE(error.find(" at node "), std::string::npos) << error;
  EXPECT_NE(error.find("), where u = -"), std::string::npos) << error;
  EXPECT_NE(error.find("a wave speed is >= 0"), std::string::npos) << error;
  // A speed >= 0 everywhere passes (abs(u) of the same state).
  const NegativeSpeed fixed("abs(u)");
  EXPECT_EQ(speed_error(fixed, fluxes::resolve_parameters(fixed.law), true).rfind("accepted: ", 0), 0u);
}

TEST(WaveSpeedSign, NegativeSpeedFromAParameterIsRefused) {
  // ax is read at run time: the reduction sees the sign.
  const NegativeSpeed law("ax");
  const std::string error = speed_error(law, fluxes::resolve_parameters(law.law, {{"ax", -2.0, {}}}), false);
  EXPECT_EQ(error.rfind("the law's max_wave_speed (" + law.file.string() + ":9:19) is -2 at node 0 of element 0 (x = ",
                        0),
            0u)
      << error;
  // A constant: refused without a node.
  const NegativeSpeed constant("-1");
  EXPECT_EQ(speed_error(constant, fluxes::resolve_parameters(constant.law), false),
            "the law's max_wave_speed (" + constant.file.string() +
                ":9:19) is -1 at every node (its parameters are constants): a wave speed is >= 0, the largest "
                "|eigenvalue| of the flux Jacobian; fix the expression or the parameters");
}

INSTANTIATE_TEST_SUITE_P(Laws, WaveSpeed, ::testing::Values("euler2d", "shallow_water"),
                         [](const auto& param_info) { return std::string(param_info.param); });

// The generated source names what it reads and nothing from the file's text.
TEST(WaveSpeedSource, EmitsTheExpressionAsC) {
  const fluxes::Law law = fluxes::read_law(law_path("euler2d"));
  const rtcg::ReductionSpec spec =
      wave_speed_reduction(law, fluxes::resolve_parameters(law), 10, fluxes::ScalarType::float64, Layout::element_major);
  EXPECT_NE(spec.preamble.find("sqrt"), std::string::npos) << spec.preamble;
  EXPECT_NE(spec.preamble.find("#define QIDX(c, k, i) (((k) * NCOMP + (c)) * NP + (i))"), std::string::npos);
  EXPECT_EQ(spec.preamble.find("gamma"), std::string::npos) << "a parameter's name reached the code";
}

}  // namespace
}  // namespace rtdg::dg
