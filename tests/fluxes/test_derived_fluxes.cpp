// The numerical fluxes derived from the volume flux (form = "rusanov", "central") against
// hand-written ones at random states and normals: the law files' own fluxes where they are the
// same flux (upwind advection, central acoustics), and fluxes coded here from the formulas
// (advection and acoustics with the global speed, 2D Euler), on interior and boundary faces.
#include "helpers.hpp"

#include <array>
#include <fstream>
#include <sstream>

namespace fluxes::test {
namespace {

std::string file_text(const std::string& name) {
  std::ifstream in(law_path(name), std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string replace(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// The law file with its [numerical_flux] table (up to the next blank line) replaced.
std::string with_flux(const std::string& file, const std::string& table) {
  std::string text = file_text(file);
  const auto begin = text.find("[numerical_flux]");
  const auto end = text.find("\n\n", begin);
  EXPECT_NE(begin, std::string::npos);
  return text.replace(begin, end - begin, table);
}

std::string law_error(const std::string& text) {
  try {
    parse_law(text, "law.toml");
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

// n.(F - F*) with n.F* = avg(n.F) + lambda/2 (u.int - u.ext): the flux difference DG lifts.
template <std::size_t N>
std::array<double, N> difference(const std::array<double, N>& fM, const std::array<double, N>& fP, double lambda,
                                 const std::vector<double>& qM, const std::vector<double>& qP) {
  std::array<double, N> out{};
  for (std::size_t k = 0; k < N; ++k) out[k] = fM[k] - (0.5 * (fM[k] + fP[k]) + 0.5 * lambda * (qM[k] - qP[k]));
  return out;
}

std::vector<double> values(const Lowered& l, const Inputs& in) { return evaluate(l.dag, l.outputs, in.function()); }

TEST(DerivedFluxes, RusanovOnAdvectionIsTheUpwindFluxOfTheLawFile) {
  // With the face's own speed |a.n| as lambda, Rusanov is the law file's upwind flux.
  const Law hand = read_law(law_path("advection.toml"));
  const Law derived = parse_law(
      with_flux("advection.toml", "[numerical_flux]\nform = \"rusanov\"\nwave_speed = \"abs(dot(vec(ax, ay), normal))\""),
      "derived.toml");
  EXPECT_EQ(derived.flux_form, FluxForm::rusanov);
  ASSERT_TRUE(derived.wave_speed.has_value());
  EXPECT_TRUE(derived.numerical_flux.empty());
  // With the default lambda = max(s(u.int), s(u.ext)) = |a|, the Lax-Friedrichs flux.
  const Law global = parse_law(with_flux("advection.toml", "[numerical_flux]\nform = \"rusanov\""), "global.toml");
  Random random;
  for (const double ax : {1.0, -0.4}) {
    const std::vector<double> params = resolve_parameters(hand, {{"ax", ax, {}}, {"ay", 0.3, {}}});
    std::vector<std::pair<Lowered, Lowered>> pieces;
    pieces.emplace_back(lower_flux_difference(hand, params), lower_flux_difference(derived, params));
    for (const auto& bc : hand.boundaries) {
      pieces.emplace_back(lower_boundary_flux(hand, bc, params),
                          lower_boundary_flux(derived, *derived.find_boundary(bc.name), params));
    }
    const Lowered lf = lower_flux_difference(global, params);
    for (int i = 0; i < 200; ++i) {
      Inputs in;
      const std::vector<double> qM = {random.uniform()}, qP = {random.uniform()}, n = random.unit(2);
      in(InputKind::state, 0) = qM[0];
      in(InputKind::exterior, 0) = qP[0];
      in(InputKind::normal, 0) = n[0];
      in(InputKind::normal, 1) = n[1];
      in(InputKind::parameter, 0) = ax;
      in(InputKind::parameter, 1) = 0.3;
      in(InputKind::incident, 0) = random.uniform();
      in(InputKind::coordinate, 0) = random.uniform();
      in(InputKind::coordinate, 1) = random.uniform();
      in(InputKind::time, 0) = random.uniform();
      for (const auto& [a, b] : pieces) expect_close(values(b, in)[0], values(a, in)[0], 1e-15, "upwind");
      const double an = ax * n[0] + 0.3 * n[1];
      const auto expected = difference<1>({an * qM[0]}, {an * qP[0]}, std::hypot(ax, 0.3), qM, qP);
      expect_close(values(lf, in)[0], expected[0], 1e-15, "Lax-Friedrichs");
    }
  }
}

// Acoustics: F_p = K v, F_v = p I/rho (K = rho c^2), wave speed c.
std::array<double, 3> acoustic_normal_flux(const std::vector<double>& q, const std::vector<double>& n, double rho,
                                           double c) {
  const double vn = q[1] * n[0] + q[2] * n[1];
  return {rho * c * c * vn, q[0] / rho * n[0], q[0] / rho * n[1]};
}

TEST(DerivedFluxes, CentralAndRusanovOnAcoustics) {
  const double rho = 1.3, c = 0.6;
  const std::vector<ParameterOverride> material = {{"rho", rho, {}}, {"c", c, {}}};
  // The law file with alpha = 0 is the central flux.
  const Law hand = read_law(law_path("acoustics.toml"));
  const Law central = parse_law(with_flux("acoustics.toml", "[numerical_flux]\nform = \"central\""), "central.toml");
  const Law rusanov = parse_law(with_flux("acoustics.toml", "[numerical_flux]\nform = \"rusanov\""), "rusanov.toml");
  std::vector<ParameterOverride> central_material = material;
  central_material.push_back({"alpha", 0.0, {}});
  const Lowered hand_central = lower_flux_difference(hand, resolve_parameters(hand, central_material));
  const Lowered derived_central = lower_flux_difference(central, resolve_parameters(central, material));
  const Lowered derived_rusanov = lower_flux_difference(rusanov, resolve_parameters(rusanov, material));
  const BoundaryCondition& wall = *rusanov.find_boundary("wall");
  const Lowered rusanov_wall = lower_boundary_flux(rusanov, wall, resolve_parameters(rusanov, material));
  Random random;
  for (int i = 0; i < 200; ++i) {
    Inputs in;
    std::vector<double> qM(3), qP(3);
    for (std::size_t k = 0; k < 3; ++k) {
      in(InputKind::state, static_cast<std::uint32_t>(k)) = qM[k] = random.uniform();
      in(InputKind::exterior, static_cast<std::uint32_t>(k)) = qP[k] = random.uniform();
    }
    const std::vector<double> n = random.unit(2);
    in(InputKind::normal, 0) = n[0];
    in(InputKind::normal, 1) = n[1];
    const auto fM = acoustic_normal_flux(qM, n, rho, c), fP = acoustic_normal_flux(qP, n, rho, c);
    const std::vector<double> by_hand = values(hand_central, in), from_central = values(derived_central, in),
                              from_rusanov = values(derived_rusanov, in);
    const auto expected_central = difference<3>(fM, fP, 0.0, qM, qP);
    const auto expected_rusanov = difference<3>(fM, fP, c, qM, qP);
    for (std::size_t k = 0; k < 3; ++k) {
      expect_close(from_central[k], by_hand[k], 1e-14, "central vs the law file");
      expect_close(from_central[k], expected_central[k], 1e-14, "central");
      expect_close(from_rusanov[k], expected_rusanov[k], 1e-14, "rusanov");
    }
    // On the wall the exterior state is the mirrored interior.
    const double vn = qM[1] * n[0] + qM[2] * n[1];
    const std::vector<double> mirror = {qM[0], qM[1] - 2 * vn * n[0], qM[2] - 2 * vn * n[1]};
    const auto wall_expected = difference<3>(fM, acoustic_normal_flux(mirror, n, rho, c), c, qM, mirror);
    const std::vector<double> wall_values = values(rusanov_wall, in);
    for (std::size_t k = 0; k < 3; ++k) expect_close(wall_values[k], wall_expected[k], 1e-14, "rusanov on the wall");
  }
}

// 2D Euler, ideal gas, state (rho, m.x, m.y, E).
struct EulerReference {
  double gamma = 1.4;
  double pressure(const std::vector<double>& q) const {
    return (gamma - 1) * (q[3] - 0.5 * (q[1] * q[1] + q[2] * q[2]) / q[0]);
  }
  std::array<double, 4> normal_flux(const std::vector<double>& q, const std::vector<double>& n) const {
    const double p = pressure(q);
    const double un = (q[1] * n[0] + q[2] * n[1]) / q[0];
    return {q[0] * un, q[1] * un + p * n[0], q[2] * un + p * n[1], (q[3] + p) * un};
  }
  double speed(const std::vector<double>& q) const {
    return std::hypot(q[1] / q[0], q[2] / q[0]) + std::sqrt(gamma * pressure(q) / q[0]);
  }
  std::vector<double> state(Random& random) const {
    const double rho = 1.0 + 0.5 * random.uniform(), u = random.uniform(), v = random.uniform();
    const double p = 1.0 + 0.5 * random.uniform();
    return {rho, rho * u, rho * v, p / (gamma - 1) + 0.5 * rho * (u * u + v * v)};
  }
};

TEST(DerivedFluxes, EulerRusanovAndCentralAgainstTheFormulas) {
  const Law law = read_law(law_path("euler2d.toml"));
  ASSERT_EQ(law.flux_form, FluxForm::rusanov);
  const Law central = parse_law(replace(file_text("euler2d.toml"), "form = \"rusanov\"", "form = \"central\""),
                                "central.toml");
  for (const double gamma : {1.4, 5.0 / 3.0}) {
    const EulerReference euler{gamma};
    const std::vector<double> params = resolve_parameters(law, {{"gamma", gamma, {}}});
    const Lowered rusanov = lower_flux_difference(law, params);
    const Lowered centred = lower_flux_difference(central, params);
    const Lowered wall = lower_boundary_flux(law, *law.find_boundary("wall"), params);
    const Lowered speed = lower_max_wave_speed(law, params);
    Random random;
    for (int i = 0; i < 200; ++i) {
      const std::vector<double> qM = euler.state(random), qP = euler.state(random), n = random.unit(2);
      Inputs in;
      for (std::uint32_t k = 0; k < 4; ++k) {
        in(InputKind::state, k) = qM[k];
        in(InputKind::exterior, k) = qP[k];
      }
      in(InputKind::normal, 0) = n[0];
      in(InputKind::normal, 1) = n[1];
      const auto fM = euler.normal_flux(qM, n), fP = euler.normal_flux(qP, n);
      const auto expected = difference<4>(fM, fP, std::max(euler.speed(qM), euler.speed(qP)), qM, qP);
      const auto expected_central = difference<4>(fM, fP, 0.0, qM, qP);
      const std::vector<double> got = values(rusanov, in), got_central = values(centred, in);
      for (std::size_t k = 0; k < 4; ++k) {
        expect_close(got[k], expected[k], 1e-13, "rusanov component " + std::to_string(k));
        expect_close(got_central[k], expected_central[k], 1e-13, "central component " + std::to_string(k));
      }
      expect_close(values(speed, in)[0], euler.speed(qM), 1e-14, "max wave speed");
      // Slip wall: no mass or energy crosses it (n.F* = 0), so n.(F - F*) is n.F(u.int) there;
      // the momentum flux through it is normal to it.
      const std::vector<double> w = values(wall, in);
      expect_close(w[0], fM[0], 1e-13, "wall mass flux");
      expect_close(w[3], fM[3], 1e-13, "wall energy flux");
      const double tangential = (fM[1] - w[1]) * -n[1] + (fM[2] - w[2]) * n[0];
      expect_close(tangential, 0.0, 1e-13, "wall tangential momentum flux");
    }
  }
}

TEST(DerivedFluxes, NothingToCorrectWhereTheExteriorCopiesTheInterior) {
  // An outflow condition: the flux difference folds to constant zeros.
  const Law law = parse_law(file_text("euler2d.toml") +
                                "outflow = { rho = \"rho.int\", m = \"m.int\", E = \"E.int\" }\n",
                            "outflow.toml");
  const Lowered flux = lower_boundary_flux(law, *law.find_boundary("outflow"), resolve_parameters(law));
  for (NodeId out : flux.outputs) EXPECT_TRUE(flux.dag.is_constant(out, 0.0));
}

TEST(DerivedFluxes, ShownByTheReport) {
  const std::string report = check_law_report(law_path("euler2d.toml"));
  for (const char* expected : {
           "definitions:\n  u           vector  = m/rho\n  p           scalar  = (gamma - 1)*(E - dot(m, u)/2)\n"
           "  c           scalar  = sqrt(gamma*p/rho)\n",
           "numerical flux (rusanov, from the volume flux): n.F* = avg(n.F(u)) + lambda/2*jump(u)\n"
           "  lambda = max(s(u.int), s(u.ext)), s = max wave speed = norm(u) + c\n",
           "// flux difference n.(F - F*) on boundary 'wall'",
           "fmax(",
       }) {
    EXPECT_NE(report.find(expected), std::string::npos) << "missing: " << expected << "\n" << report;
  }
  const std::string central = law_report(parse_law(
      with_flux("acoustics.toml", "[numerical_flux]\nform = \"central\""), "central.toml"));
  EXPECT_NE(central.find("numerical flux (central, from the volume flux): n.F* = avg(n.F(u))\n"), std::string::npos);
  const std::string own_speed = law_report(parse_law(
      with_flux("advection.toml", "[numerical_flux]\nform = \"rusanov\"\nwave_speed = \"abs(dot(vec(ax, ay), normal))\""),
      "derived.toml"));
  EXPECT_NE(own_speed.find("  lambda = abs(dot(vec(ax, ay), normal))\n"), std::string::npos) << own_speed;
}

TEST(DerivedFluxes, Errors) {
  const std::string rusanov = with_flux("advection.toml", "[numerical_flux]\nform = \"rusanov\"");
  EXPECT_EQ(law_error(rusanov), "(no error)");
  const int line = 25;  // [numerical_flux]
  auto at = [&](int offset, int column) {
    return "law.toml:" + std::to_string(line + offset) + ":" + std::to_string(column) + ": error: ";
  };
  EXPECT_EQ(law_error(replace(rusanov, "form = \"rusanov\"", "form = \"rusanov\"\nu = \"avg(u)\"")),
            at(2, 1) + "form = \"rusanov\" derives the numerical flux of every field from [volume_flux]; remove 'u' here, "
                       "or give the flux yourself with form = \"full\"");
  EXPECT_EQ(law_error(replace(rusanov, "form = \"rusanov\"", "form = \"central\"\nwave_speed = \"1\"")),
            at(2, 1) + "'wave_speed' is the lambda of form = \"rusanov\"; form = \"central\" has none");
  EXPECT_EQ(law_error(replace(rusanov, "form = \"rusanov\"", "form = \"rusanov\"\nspeed = \"1\"")),
            at(2, 1) + "unknown key 'speed' in [numerical_flux]; expected 'form' or 'wave_speed'");
  EXPECT_EQ(law_error(replace(rusanov, "form = \"rusanov\"", "form = \"rusanov\"\nwave_speed = \"normal\"")),
            at(2, 15) + "'wave_speed' must be a scalar; got a vector (2 components)");
  EXPECT_EQ(law_error(replace(rusanov, "form = \"rusanov\"", "form = \"rusanov\"\nwave_speed = \"abs(u)\"")),
            at(2, 19) + "field 'u' on a face needs a trace: write u.int (this element) or u.ext (the neighbour), or use "
                        "it inside avg() or jump()");
  EXPECT_EQ(law_error(replace(rusanov, "form = \"rusanov\"", "form = \"roe\"")),
            at(1, 8) + "'form' must be \"difference\" (n.(F - F*), as hedge writes it), \"full\" (n.F*), or \"rusanov\" "
                       "or \"central\" (n.F* derived from the volume flux)\n" +
                at(0, 1) + "[numerical_flux] does not give the flux difference n.(F - F*) of field 'u'");
  // The hand-written forms still need their expressions, and take no wave_speed.
  EXPECT_EQ(law_error(replace(file_text("advection.toml"), "form = \"full\"", "form = \"full\"\nwave_speed = \"1\"")),
            at(2, 1) + "'wave_speed' is the lambda of form = \"rusanov\"; form = \"full\" has none");
}

}  // namespace
}  // namespace fluxes::test
