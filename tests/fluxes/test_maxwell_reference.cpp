// The Maxwell law files against the hand-written formulas (reference.hpp) on random states,
// to 1e-14 in double, and the physics of their boundary conditions.
#include "helpers.hpp"
#include "reference.hpp"

namespace fluxes::test {
namespace {

struct FaceState {
  std::vector<double> qM, qP, n, inc;
};

std::vector<double> run(const Lowered& l, const FaceState& s) {
  return evaluate(l.dag, l.outputs, [&s](const InputRef& r) {
    switch (r.kind) {
      case InputKind::state: return s.qM.at(r.index);
      case InputKind::exterior: return s.qP.at(r.index);
      case InputKind::normal: return s.n.at(r.index);
      case InputKind::incident: return s.inc.at(r.index);
      default: ADD_FAILURE() << "unexpected input " << to_string(r.kind); return 0.0;
    }
  });
}

FaceState random_face(Random& random, std::size_t components, int dimension) {
  FaceState s;
  for (std::size_t k = 0; k < components; ++k) {
    s.qM.push_back(random.uniform());
    s.qP.push_back(random.uniform());
    s.inc.push_back(random.uniform());
  }
  s.n = random.unit(dimension);
  return s;
}

struct Material {
  double eps, mu, alpha;
};
const Material materials[] = {{1.0, 1.0, 1.0}, {1.0, 1.0, 0.0}, {2.25, 0.8, 0.7}, {0.5, 3.0, 1.0}};

std::vector<double> params_for(const Law& law, const Material& m) {
  return resolve_parameters(law, {{"eps", m.eps, {}}, {"mu", m.mu, {}}, {"alpha", m.alpha, {}}});
}

TEST(MaxwellReference, ThreeD) {
  const Law law = read_law(law_path("maxwell3d.toml"));
  Random random;
  for (const Material& m : materials) {
    const Lowered flux = lower_flux_difference(law, params_for(law, m));
    for (int i = 0; i < 500; ++i) {
      const FaceState s = random_face(random, 6, 3);
      const std::vector<double> got = run(flux, s);
      const std::array<double, 6> want = reference::maxwell3d(s.qM.data(), s.qP.data(), s.n.data(), m.eps, m.mu, m.alpha);
      for (std::size_t k = 0; k < 6; ++k) expect_close(got[k], want[k], 1e-14, "component " + std::to_string(k));
    }
  }
}

TEST(MaxwellReference, TwoDTransverseMagnetic) {
  const Law law = read_law(law_path("maxwell2d_tm.toml"));
  Random random;
  for (const Material& m : materials) {
    const Lowered flux = lower_flux_difference(law, params_for(law, m));
    for (int i = 0; i < 500; ++i) {
      const FaceState s = random_face(random, 3, 2);
      const std::vector<double> got = run(flux, s);
      const std::array<double, 3> want = reference::maxwell2d_tm(s.qM.data(), s.qP.data(), s.n.data(), m.eps, m.mu, m.alpha);
      for (std::size_t k = 0; k < 3; ++k) expect_close(got[k], want[k], 1e-14, "component " + std::to_string(k));
      if (m.eps == 1.0 && m.mu == 1.0) {
        const std::array<double, 3> hw = reference::maxwell2d_tm_hw(s.qM.data(), s.qP.data(), s.n.data(), m.alpha);
        for (std::size_t k = 0; k < 3; ++k) expect_close(got[k], hw[k], 1e-14, "H&W component " + std::to_string(k));
      }
    }
  }
}

TEST(MaxwellReference, TwoDTransverseElectric) {
  const Law law = read_law(law_path("maxwell2d_te.toml"));
  Random random;
  for (const Material& m : materials) {
    const Lowered flux = lower_flux_difference(law, params_for(law, m));
    for (int i = 0; i < 500; ++i) {
      const FaceState s = random_face(random, 3, 2);
      const std::vector<double> got = run(flux, s);
      const std::array<double, 3> want = reference::maxwell2d_te(s.qM.data(), s.qP.data(), s.n.data(), m.eps, m.mu, m.alpha);
      for (std::size_t k = 0; k < 3; ++k) expect_close(got[k], want[k], 1e-14, "component " + std::to_string(k));
    }
  }
}

// Materials per region: with eps and mu given per element, the upwind (alpha = 1) flux across a
// face between media (eps1, mu1) | (eps2, mu2) must be the flux of the exact Riemann solution
// of Maxwell's equations there. Built independently of the law files: in the frame (n, t1, t2)
// the tangential fields split into two 1D pairs (E.t1, H.t2) and (E.t2, -H.t1), each a wave
// system with impedance Z = sqrt(mu/eps) on either side; the interface state (e*, h*) follows
// from the jumps carried by the left- and right-going waves, (e* - e-) = -Z1 (h* - h-) and
// (e* - e+) = Z2 (h* - h+). Then n.(F(u-) - F*) = (-(n x (H- - H*)) / eps1, n x (E- - E*) / mu1).
std::array<double, 3> cross3(const std::array<double, 3>& a, const std::array<double, 3>& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
double dot3(const std::array<double, 3>& a, const std::array<double, 3>& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

// [E flux difference, H flux difference] for E, H on both sides and the unit normal n.
std::array<std::array<double, 3>, 2> interface_riemann(const std::array<double, 3>& Em, const std::array<double, 3>& Hm,
                                                       const std::array<double, 3>& Ep, const std::array<double, 3>& Hp,
                                                       const std::array<double, 3>& n, double eps1, double mu1,
                                                       double eps2, double mu2) {
  // t1: a unit vector normal to n; t2 = n x t1.
  std::array<double, 3> a = std::abs(n[0]) < 0.9 ? std::array<double, 3>{1, 0, 0} : std::array<double, 3>{0, 1, 0};
  std::array<double, 3> t1 = cross3(n, a);
  const double norm = std::sqrt(dot3(t1, t1));
  for (double& v : t1) v /= norm;
  const std::array<double, 3> t2 = cross3(n, t1);
  const double Z1 = std::sqrt(mu1 / eps1), Z2 = std::sqrt(mu2 / eps2);
  auto star = [&](double em, double hm, double ep, double hp) {
    const double h = (em - ep + Z1 * hm + Z2 * hp) / (Z1 + Z2);
    return std::pair<double, double>{em - Z1 * (h - hm), h};
  };
  const auto [e1, h1] = star(dot3(Em, t1), dot3(Hm, t2), dot3(Ep, t1), dot3(Hp, t2));
  const auto [e2, h2] = star(dot3(Em, t2), -dot3(Hm, t1), dot3(Ep, t2), -dot3(Hp, t1));
  std::array<double, 3> dE{}, dH{};
  for (std::size_t d = 0; d < 3; ++d) {
    dE[d] = Em[d] - (e1 * t1[d] + e2 * t2[d]);  // E- - E*, up to a normal part n x removes
    dH[d] = Hm[d] - (h1 * t2[d] - h2 * t1[d]);
  }
  std::array<std::array<double, 3>, 2> out{cross3(n, dH), cross3(n, dE)};
  for (std::size_t d = 0; d < 3; ++d) {
    out[0][d] *= -1.0 / eps1;
    out[1][d] *= 1.0 / mu1;
  }
  return out;
}

struct Interface {
  double eps1, mu1, eps2, mu2;
};
const Interface interfaces[] = {{1.0, 1.0, 4.0, 1.0}, {2.25, 0.8, 1.0, 1.0}, {1.0, 1.0, 1.0, 1.0}, {0.5, 3.0, 6.0, 0.25}};

// The law's flux difference with eps and mu per element: element_parameter = this side,
// neighbour_parameter = the other.
std::vector<double> run_interface(const Lowered& l, const FaceState& s, const Interface& m) {
  return evaluate(l.dag, l.outputs, [&](const InputRef& r) {
    switch (r.kind) {
      case InputKind::state: return s.qM.at(r.index);
      case InputKind::exterior: return s.qP.at(r.index);
      case InputKind::normal: return s.n.at(r.index);
      case InputKind::element_parameter: return r.index == 0 ? m.eps1 : m.mu1;
      case InputKind::neighbour_parameter: return r.index == 0 ? m.eps2 : m.mu2;
      default: ADD_FAILURE() << "unexpected input " << to_string(r.kind); return 0.0;
    }
  });
}

// The law's flux difference with eps and mu (its first two parameters) given per element.
Lowered interface_flux(const Law& law) {
  EXPECT_EQ(law.parameters.at(0).name, "eps");
  EXPECT_EQ(law.parameters.at(1).name, "mu");
  std::vector<bool> per_element(law.parameters.size(), false);
  per_element[0] = per_element[1] = true;
  return lower_flux_difference(law, resolve_parameters(law), per_element);
}

TEST(MaxwellInterface, ThreeDUpwindIsTheExactRiemannSolution) {
  const Law law = read_law(law_path("maxwell3d.toml"));
  const Lowered flux = interface_flux(law);
  Random random;
  for (const Interface& m : interfaces)
    for (int i = 0; i < 200; ++i) {
      const FaceState s = random_face(random, 6, 3);
      const std::vector<double> got = run_interface(flux, s, m);
      const std::array<double, 3> n{s.n[0], s.n[1], s.n[2]};
      const auto want = interface_riemann({s.qM[0], s.qM[1], s.qM[2]}, {s.qM[3], s.qM[4], s.qM[5]},
                                          {s.qP[0], s.qP[1], s.qP[2]}, {s.qP[3], s.qP[4], s.qP[5]}, n, m.eps1, m.mu1,
                                          m.eps2, m.mu2);
      for (std::size_t k = 0; k < 6; ++k)
        expect_close(got[k], want[k / 3][k % 3], 1e-13, "component " + std::to_string(k));
    }
}

TEST(MaxwellInterface, TwoDTransverseMagneticUpwindIsTheExactRiemannSolution) {
  // (Hx, Hy, Ez): E = (0, 0, Ez), H = (Hx, Hy, 0), n in the plane.
  const Law law = read_law(law_path("maxwell2d_tm.toml"));
  const Lowered flux = interface_flux(law);
  Random random;
  for (const Interface& m : interfaces)
    for (int i = 0; i < 200; ++i) {
      const FaceState s = random_face(random, 3, 2);
      const std::vector<double> got = run_interface(flux, s, m);
      const auto want = interface_riemann({0, 0, s.qM[2]}, {s.qM[0], s.qM[1], 0}, {0, 0, s.qP[2]}, {s.qP[0], s.qP[1], 0},
                                          {s.n[0], s.n[1], 0}, m.eps1, m.mu1, m.eps2, m.mu2);
      expect_close(got[0], want[1][0], 1e-13, "Hx");
      expect_close(got[1], want[1][1], 1e-13, "Hy");
      expect_close(got[2], want[0][2], 1e-13, "Ez");
    }
}

TEST(MaxwellBoundaries, PecAndPmcMirror) {
  const Law law = read_law(law_path("maxwell3d.toml"));
  const std::vector<double> params = resolve_parameters(law);
  Random random;
  const FaceState s = random_face(random, 6, 3);
  const std::vector<double> pec = run(lower_boundary_state(law, *law.find_boundary("pec"), params), s);
  const std::vector<double> pmc = run(lower_boundary_state(law, *law.find_boundary("pmc"), params), s);
  for (std::size_t k = 0; k < 3; ++k) {
    EXPECT_EQ(pec[k], -s.qM[k]);
    EXPECT_EQ(pec[k + 3], s.qM[k + 3]);
    EXPECT_EQ(pmc[k], s.qM[k]);
    EXPECT_EQ(pmc[k + 3], -s.qM[k + 3]);
  }
  // pec_scattered: the total field E + E_inc mirrors.
  const std::vector<double> scattered = run(lower_boundary_state(law, *law.find_boundary("pec_scattered"), params), s);
  for (std::size_t k = 0; k < 3; ++k) expect_close(scattered[k] + s.inc[k], -(s.qM[k] + s.inc[k]), 1e-15, "total E");
}

// A plane wave with E tangential to the face and H = s Y n x E travels along s n.
FaceState plane_wave(Random& random, double eps, double mu, double direction) {
  FaceState s;
  s.n = random.unit(3);
  const std::vector<double> a = random.unit(3);
  const double na = s.n[0] * a[0] + s.n[1] * a[1] + s.n[2] * a[2];
  const double E[3] = {a[0] - na * s.n[0], a[1] - na * s.n[1], a[2] - na * s.n[2]};  // tangential
  const double Y = std::sqrt(eps / mu);
  const double H[3] = {direction * Y * (s.n[1] * E[2] - s.n[2] * E[1]), direction * Y * (s.n[2] * E[0] - s.n[0] * E[2]),
                       direction * Y * (s.n[0] * E[1] - s.n[1] * E[0])};
  s.qM = {E[0], E[1], E[2], H[0], H[1], H[2]};
  s.qP.assign(6, 0.0);
  s.inc.assign(6, 0.0);
  return s;
}

TEST(MaxwellBoundaries, SilverMuellerLetsOutgoingWavesLeaveAndAdmitsNothing) {
  const Law law = read_law(law_path("maxwell3d.toml"));
  const BoundaryCondition& absorbing = *law.find_boundary("absorbing");
  Random random;
  for (const Material& m : materials) {
    const std::vector<double> params = params_for(law, m);
    const Lowered state = lower_boundary_state(law, absorbing, params);
    const Lowered flux = lower_boundary_flux(law, absorbing, params);
    for (int i = 0; i < 100; ++i) {
      // Outgoing: the exterior equals the interior, so the flux difference vanishes.
      const FaceState out = plane_wave(random, m.eps, m.mu, +1.0);
      const std::vector<double> ext = run(state, out);
      const std::vector<double> f = run(flux, out);
      for (std::size_t k = 0; k < 6; ++k) {
        expect_close(ext[k], out.qM[k], 1e-14, "outgoing exterior");
        expect_close(f[k], 0.0, 1e-14, "outgoing flux difference");
      }
      // Incoming: the exterior state is zero (nothing enters).
      const FaceState in = plane_wave(random, m.eps, m.mu, -1.0);
      for (double v : run(state, in)) expect_close(v, 0.0, 1e-14, "incoming exterior");
    }
  }
}

TEST(MaxwellBoundaries, SilverMuellerWithUpwindFluxEqualsZeroExteriorState) {
  const Law law = read_law(law_path("maxwell3d.toml"));
  const std::vector<double> params = params_for(law, {2.0, 0.5, 1.0});
  const Lowered absorbing = lower_boundary_flux(law, *law.find_boundary("absorbing"), params);
  const Lowered interior = lower_flux_difference(law, params);
  Random random;
  for (int i = 0; i < 200; ++i) {
    FaceState s = random_face(random, 6, 3);
    const std::vector<double> a = run(absorbing, s);
    s.qP.assign(6, 0.0);
    const std::vector<double> zero = run(interior, s);
    for (std::size_t k = 0; k < 6; ++k) expect_close(a[k], zero[k], 1e-14, "component " + std::to_string(k));
  }
}

TEST(MaxwellBoundaries, IncidentFieldEntersAndTheRestLeaves) {
  const Law law = read_law(law_path("maxwell3d.toml"));
  const std::vector<double> params = params_for(law, {1.5, 1.2, 1.0});
  const BoundaryCondition& incident = *law.find_boundary("incident");
  Random random;
  for (int i = 0; i < 100; ++i) {
    // Interior equal to the incident field: no jump, no flux difference.
    FaceState s = random_face(random, 6, 3);
    s.inc = s.qM;
    for (double v : run(lower_boundary_flux(law, incident, params), s)) expect_close(v, 0.0, 1e-14, "no jump");
    // Empty interior, incoming incident wave: the exterior state is the incident wave.
    FaceState wave = plane_wave(random, 1.5, 1.2, -1.0);
    wave.inc = wave.qM;
    wave.qM.assign(6, 0.0);
    const std::vector<double> ext = run(lower_boundary_state(law, incident, params), wave);
    for (std::size_t k = 0; k < 6; ++k) expect_close(ext[k], wave.inc[k], 1e-14, "incident enters");
  }
}

// The 2D laws' boundary states are the 3D ones restricted to their components.
TEST(MaxwellBoundaries, TwoDBoundaryStatesMatchThreeD) {
  const Law law3 = read_law(law_path("maxwell3d.toml"));
  const Law tm = read_law(law_path("maxwell2d_tm.toml"));
  const Law te = read_law(law_path("maxwell2d_te.toml"));
  const Material m{1.7, 0.6, 1.0};
  Random random;
  for (const char* name : {"pec", "pmc", "absorbing", "incident", "pec_scattered"}) {
    const Lowered s3 = lower_boundary_state(law3, *law3.find_boundary(name), params_for(law3, m));
    const Lowered stm = lower_boundary_state(tm, *tm.find_boundary(name), params_for(tm, m));
    const Lowered ste = lower_boundary_state(te, *te.find_boundary(name), params_for(te, m));
    for (int i = 0; i < 50; ++i) {
      FaceState s2 = random_face(random, 3, 2);
      FaceState s3s;
      s3s.n = {s2.n[0], s2.n[1], 0.0};
      // TM: E = (0, 0, Ez), H = (Hx, Hy, 0)
      s3s.qM = {0, 0, s2.qM[2], s2.qM[0], s2.qM[1], 0};
      s3s.inc = {0, 0, s2.inc[2], s2.inc[0], s2.inc[1], 0};
      std::vector<double> full = run(s3, s3s);
      std::vector<double> got = run(stm, s2);
      expect_close(got[0], full[3], 1e-14, std::string(name) + " TM Hx");
      expect_close(got[1], full[4], 1e-14, std::string(name) + " TM Hy");
      expect_close(got[2], full[2], 1e-14, std::string(name) + " TM Ez");
      // TE: E = (Ex, Ey, 0), H = (0, 0, Hz)
      s3s.qM = {s2.qM[0], s2.qM[1], 0, 0, 0, s2.qM[2]};
      s3s.inc = {s2.inc[0], s2.inc[1], 0, 0, 0, s2.inc[2]};
      full = run(s3, s3s);
      got = run(ste, s2);
      expect_close(got[0], full[0], 1e-14, std::string(name) + " TE Ex");
      expect_close(got[1], full[1], 1e-14, std::string(name) + " TE Ey");
      expect_close(got[2], full[5], 1e-14, std::string(name) + " TE Hz");
    }
  }
}

}  // namespace
}  // namespace fluxes::test
