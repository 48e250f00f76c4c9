// The law files in data/laws: they read, their exact solutions solve their equations (checked
// by finite differences through the interpreter), and their boundary conditions do what
// their descriptions say.
#include "helpers.hpp"

namespace fluxes::test {
namespace {

const char* const law_files[] = {"maxwell3d.toml", "maxwell2d_tm.toml", "maxwell2d_te.toml", "advection.toml",
                                 "acoustics.toml",  "euler2d.toml",      "euler2d_riemann.toml", "shallow_water.toml",
                                 "elastic2d.toml", "euler3d.toml", "euler2d_quadrants.toml"};

TEST(LawFiles, AllReadAndLower) {
  for (const char* file : law_files) {
    SCOPED_TRACE(file);
    const Law law = read_law(law_path(file));
    const std::vector<double> params = resolve_parameters(law);
    const std::size_t n = law.state_components();
    const auto dim = static_cast<std::size_t>(law.dimension);
    EXPECT_EQ(lower_volume_flux(law, params).outputs.size(), n * dim);
    EXPECT_EQ(lower_flux_difference(law, params).outputs.size(), n);
    EXPECT_EQ(lower_source(law, params).outputs.size(), n);
    EXPECT_EQ(lower_max_wave_speed(law, params).outputs.size(), 1U);
    EXPECT_EQ(lower_initial(law, params).outputs.size(), n);
    EXPECT_FALSE(law.boundaries.empty());
    for (const auto& bc : law.boundaries) {
      EXPECT_EQ(lower_boundary_state(law, bc, params).outputs.size(), n) << bc.name;
      EXPECT_EQ(lower_boundary_flux(law, bc, params).outputs.size(), n) << bc.name;
    }
  }
}

// u_t + div F(u) - S(u) at (x, t) with u the exact solution, by central differences.
double max_residual(const Law& law, const std::vector<double>& params, Random& random) {
  const Lowered exact = lower_exact(law, params);
  const Lowered flux = lower_volume_flux(law, params);
  const Lowered source = lower_source(law, params);
  const std::size_t n = law.state_components();
  const auto dim = static_cast<std::size_t>(law.dimension);
  // Truncation ~ h^2 u'''/6 (elastic2d's waves: u''' ~ (2 pi |k| cp)^3 ~ 6e3), rounding ~ 1e-16 |u|/h.
  const double h = 1e-5;
  double worst = 0.0;
  for (int i = 0; i < 50; ++i) {
    std::vector<double> x(dim);
    for (auto& c : x) c = random.uniform();
    const double t = 0.5 * (random.uniform() + 1.0);
    auto u_at = [&](const std::vector<double>& p, double time) {
      return evaluate(exact.dag, exact.outputs, [&](const InputRef& r) {
        if (r.kind == InputKind::coordinate) return p.at(r.index);
        if (r.kind == InputKind::time) return time;
        return params.at(r.index);  // parameters read at run time
      });
    };
    auto with_state = [&](const Lowered& l, const std::vector<double>& p, double time) {
      const std::vector<double> u = u_at(p, time);
      return evaluate(l.dag, l.outputs, [&](const InputRef& r) {
        if (r.kind == InputKind::state) return u.at(r.index);
        if (r.kind == InputKind::coordinate) return p.at(r.index);
        if (r.kind == InputKind::time) return time;
        return params.at(r.index);
      });
    };
    const std::vector<double> later = u_at(x, t + h), earlier = u_at(x, t - h);
    std::vector<double> residual(n);
    for (std::size_t k = 0; k < n; ++k) residual[k] = (later[k] - earlier[k]) / (2 * h);
    for (std::size_t d = 0; d < dim; ++d) {
      std::vector<double> xp = x, xm = x;
      xp[d] += h;
      xm[d] -= h;
      const std::vector<double> fp = with_state(flux, xp, t), fm = with_state(flux, xm, t);
      for (std::size_t k = 0; k < n; ++k) residual[k] += (fp[k * dim + d] - fm[k * dim + d]) / (2 * h);
    }
    const std::vector<double> s = with_state(source, x, t);
    for (std::size_t k = 0; k < n; ++k) worst = std::fmax(worst, std::fabs(residual[k] - s[k]));
  }
  return worst;
}

TEST(LawFiles, ExactSolutionsSolveTheirEquations) {
  Random random;
  for (const char* file : law_files) {
    SCOPED_TRACE(file);
    const Law law = read_law(law_path(file));
    // Riemann-problem data have no exact solution in the file (the tests compare with the
    // exact Riemann solver instead).
    if (std::string(file) == "euler2d_riemann.toml" || std::string(file) == "euler2d_quadrants.toml") {
      EXPECT_TRUE(law.exact.empty());
      continue;
    }
    ASSERT_FALSE(law.exact.empty());
    EXPECT_LT(max_residual(law, resolve_parameters(law), random), 1e-6);
    // Other materials too, where the law has them.
    if (law.env.lookup("eps").kind == SymbolKind::parameter && law.env.lookup("mu").kind == SymbolKind::parameter) {
      EXPECT_LT(max_residual(law, resolve_parameters(law, {{"eps", 2.0, {}}, {"mu", 0.7, {}}}), random), 1e-6);
    }
    if (law.env.lookup("rho").kind == SymbolKind::parameter && law.env.lookup("c").kind == SymbolKind::parameter) {
      EXPECT_LT(max_residual(law, resolve_parameters(law, {{"rho", 1.3, {}}, {"c", 0.6, {}}}), random), 1e-6);
    }
    if (law.env.lookup("beta").kind == SymbolKind::parameter) {  // the isentropic vortex, elsewhere
      EXPECT_LT(max_residual(law, resolve_parameters(law, {{"gamma", 5.0 / 3.0, {}}, {"beta", 3.0, {}}, {"x0", 0.3, {}},
                                                             {"y0", -0.2, {}}, {"u0", 0.5, {}}, {"v0", -0.7, {}}}),
                             random),
                1e-6);
    }
    if (law.env.lookup("az").kind == SymbolKind::parameter) {  // euler3d: a tilted vortex tube, moving in 3D
      EXPECT_LT(max_residual(law, resolve_parameters(law, {{"ax", 1.0, {}}, {"ay", -2.0, {}}, {"az", 0.5, {}}, {"z0", 0.4, {}},
                                                             {"w0", 0.6, {}}, {"beta", 3.0, {}}}),
                             random),
                1e-6);
    }
    if (law.env.lookup("lambda").kind == SymbolKind::parameter) {  // elastic waves: P and S, another direction
      EXPECT_LT(max_residual(law, resolve_parameters(law, {{"rho", 1.7, {}}, {"lambda", 0.6, {}}, {"mu", 1.3, {}},
                                                             {"aS", 0.8, {}}, {"kx", 2.0, {}}, {"ky", -1.0, {}}}),
                             random),
                1e-6);
    }
    if (law.env.lookup("wb").kind == SymbolKind::parameter) {  // shallow water
      // The travelling vortex over a flat bottom, and the lake at rest over the bump (the
      // defaults make both trivial: eps = 0, b0 = 0).
      EXPECT_LT(max_residual(law, resolve_parameters(law, {{"g", 2.0, {}}, {"H", 1.5, {}}, {"eps", 0.4, {}}, {"x0", 0.3, {}},
                                                             {"y0", -0.2, {}}, {"u0", 0.5, {}}, {"v0", -0.7, {}}}),
                             random),
                1e-6);
      EXPECT_LT(max_residual(law, resolve_parameters(law, {{"b0", 0.4, {}}, {"xb", 0.5, {}}, {"yb", 0.4, {}}}), random),
                1e-6);
    }
  }
  // The check can fail: a wrong sign in a flux shows up.
  const Law law = read_law(law_path("advection.toml"));
  Law broken = parse_law(R"law(dimension = 2
max_wave_speed = "1"
[fields]
u = "scalar"
[parameters]
ax = 1.0
ay = 0.5
[volume_flux]
u = "-vec(ax, ay)*u"
[numerical_flux]
u = "0"
[boundary.b]
u = "u.int"
[exact]
u = "sin(2*pi*(x - ax*t))*sin(2*pi*(y - ay*t))"
)law",
                         "broken.toml");
  EXPECT_GT(max_residual(broken, resolve_parameters(broken), random), 1.0);
}

TEST(LawFiles, AcousticBoundaries) {
  const Law law = read_law(law_path("acoustics.toml"));
  const std::vector<double> params = resolve_parameters(law, {{"rho", 1.3, {}}, {"c", 0.6, {}}});
  const double Z = 1.3 * 0.6;
  Random random;
  for (int i = 0; i < 100; ++i) {
    const std::vector<double> n = random.unit(2);
    const double vt = random.uniform(), vn = random.uniform();
    const double p_out = Z * vn;  // outgoing wave: p = Z v.n
    Inputs in;
    in(InputKind::state, 0) = p_out;
    in(InputKind::state, 1) = vn * n[0] - vt * n[1];
    in(InputKind::state, 2) = vn * n[1] + vt * n[0];
    in(InputKind::normal, 0) = n[0];
    in(InputKind::normal, 1) = n[1];
    // Absorbing: an outgoing wave leaves with no flux correction.
    const Lowered absorbing = lower_boundary_flux(law, *law.find_boundary("absorbing"), params);
    for (double v : evaluate(absorbing.dag, absorbing.outputs, in.function())) expect_close(v, 0.0, 1e-14, "absorbing");
    // Wall: the exterior normal velocity is mirrored, the tangential one kept.
    const Lowered wall = lower_boundary_state(law, *law.find_boundary("wall"), params);
    const std::vector<double> ext = evaluate(wall.dag, wall.outputs, in.function());
    expect_close(ext[1] * n[0] + ext[2] * n[1], -vn, 1e-14, "wall normal velocity");
    expect_close(-ext[1] * n[1] + ext[2] * n[0], vt, 1e-14, "wall tangential velocity");
    expect_close(ext[0], p_out, 0.0, "wall pressure");
  }
}

// Elastic waves: the free surface mirrors the traction sigma.n and keeps t.sigma.t; the rigid
// wall mirrors the velocity.
TEST(LawFiles, ElasticBoundaries) {
  const Law law = read_law(law_path("elastic2d.toml"));
  const std::vector<double> params = resolve_parameters(law);
  const Lowered free_surface = lower_boundary_state(law, *law.find_boundary("free_surface"), params);
  const Lowered rigid = lower_boundary_state(law, *law.find_boundary("rigid"), params);
  Random random;
  for (int i = 0; i < 100; ++i) {
    const std::vector<double> n = random.unit(2), t = {-n[1], n[0]};
    Inputs in;
    std::vector<double> u(5);
    for (std::uint32_t c = 0; c < 5; ++c) in(InputKind::state, c) = u[c] = random.uniform();
    in(InputKind::normal, 0) = n[0];
    in(InputKind::normal, 1) = n[1];
    // sigma a . b for the state components [2] sxx [3] syy [4] sxy.
    auto stress = [](const std::vector<double>& s, const std::vector<double>& a, const std::vector<double>& b) {
      return a[0] * (s[2] * b[0] + s[4] * b[1]) + a[1] * (s[4] * b[0] + s[3] * b[1]);
    };
    const std::vector<double> ext = evaluate(free_surface.dag, free_surface.outputs, in.function());
    expect_close(stress(ext, n, n), -stress(u, n, n), 1e-14, "free surface n.sigma.n");
    expect_close(stress(ext, t, n), -stress(u, t, n), 1e-14, "free surface t.sigma.n");
    expect_close(stress(ext, t, t), stress(u, t, t), 1e-14, "free surface t.sigma.t");
    expect_close(ext[0], u[0], 0.0, "free surface v.x");
    expect_close(ext[1], u[1], 0.0, "free surface v.y");
    const std::vector<double> wall = evaluate(rigid.dag, rigid.outputs, in.function());
    for (std::size_t c = 0; c < 5; ++c) expect_close(wall[c], c < 2 ? -u[c] : u[c], 0.0, "rigid");
  }
}

TEST(LawFiles, AdvectionBoundariesAndRunTimeVelocity) {
  const Law law = read_law(law_path("advection.toml"));
  EXPECT_FALSE(law.parameters[0].constant);  // ax is read at run time
  const std::vector<double> params = resolve_parameters(law);
  const Lowered inflow = lower_boundary_flux(law, *law.find_boundary("inflow"), params);
  Inputs in;
  in(InputKind::state, 0) = 0.7;
  in(InputKind::incident, 0) = -0.2;
  in(InputKind::parameter, 0) = 1.0;
  in(InputKind::parameter, 1) = 0.5;
  in(InputKind::normal, 0) = -1.0;  // a.n = -1: the flow enters
  in(InputKind::normal, 1) = 0.0;
  // n.(F - F*) = (a.n) (u.int - u_in)
  EXPECT_DOUBLE_EQ(evaluate(inflow.dag, inflow.outputs, in.function())[0], -1.0 * (0.7 - -0.2));
  in(InputKind::normal, 0) = 1.0;  // the flow leaves: u_in is ignored
  EXPECT_DOUBLE_EQ(evaluate(inflow.dag, inflow.outputs, in.function())[0], 0.0);
  const Lowered speed = lower_max_wave_speed(law, params);
  EXPECT_DOUBLE_EQ(evaluate(speed.dag, speed.outputs, in.function())[0], std::sqrt(1.25));
}

}  // namespace
}  // namespace fluxes::test
