// Plane-wave incident fields as DAGs (dg/incident.hpp).
#include "dg/incident.hpp"

#include "dg/discretization.hpp"
#include "dg/error.hpp"

#include <algorithm>
#include <limits>

#include <cmath>
#include <numbers>
#include <string>

namespace rtdg::dg {
namespace {

using fluxes::Dag;
using fluxes::NodeId;
using fluxes::Op;

double dot(const std::array<double, 3>& a, const std::array<double, 3>& b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

std::array<double, 3> cross(const std::array<double, 3>& a, const std::array<double, 3>& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}

// Which field and component an incident name stands for: "E_inc" -> ('E', -1) (the vector),
// "Hz_inc" -> ('H', 2).
struct Target {
  char field = 'E';
  int component = -1;
};

Target parse_target(const fluxes::IncidentDecl& decl) {
  const std::string& name = decl.name;
  const std::string suffix = "_inc";
  const bool has_suffix = name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
  const std::string stem = has_suffix ? name.substr(0, name.size() - suffix.size()) : "";
  Target target;
  bool ok = !stem.empty() && (stem[0] == 'E' || stem[0] == 'H') && stem.size() <= 2;
  if (ok) {
    target.field = stem[0];
    if (stem.size() == 2) {
      ok = stem[1] == 'x' || stem[1] == 'y' || stem[1] == 'z';
      target.component = stem[1] - 'x';
      ok = ok && decl.shape == fluxes::Shape::scalar;
    } else {
      ok = decl.shape == fluxes::Shape::vector;
    }
  }
  if (!ok)
    throw Error(to_string(decl.where) + ": a plane wave cannot supply the incident field '" + name +
                "': it sets electromagnetic fields named E_inc, H_inc (vectors) or Ex_inc ... Hz_inc (scalars)");
  return target;
}

// g(tau) of the header at the coordinate inputs and time into `g`; d is the unit direction.
NodeId build_signal(Dag& g, const PlaneWave& wave, int dim, const std::array<double, 3>& d, double wave_speed,
                    double front_offset) {
  const double omega = wave.wavenumber * wave_speed;
  const double pi = std::numbers::pi;
  auto constant = [&](double v) { return g.constant(v); };
  auto mul = [&](NodeId a, NodeId b) { return g.binary(Op::multiply, a, b); };
  auto add = [&](NodeId a, NodeId b) { return g.binary(Op::add, a, b); };
  auto sub = [&](NodeId a, NodeId b) { return g.binary(Op::subtract, a, b); };
  // Retarded time tau = t - (d.x - s0) / c (the envelope's clock, zero where the front
  // enters the mesh), and the carrier's tau0 = t - d.(x - x0) / c = tau + (d.x0 - s0) / c.
  NodeId along = constant(-front_offset);
  for (std::size_t i = 0; i < static_cast<std::size_t>(dim); ++i)
    along = add(along, mul(constant(d[i]), g.input({fluxes::InputKind::coordinate, static_cast<std::uint32_t>(i)})));
  const NodeId time = g.input({fluxes::InputKind::time, 0});
  const NodeId tau = sub(time, mul(constant(1.0 / wave_speed), along));
  const double origin_delay = (dot(d, wave.phase_origin) - front_offset) / wave_speed;
  const NodeId tau0 = add(tau, constant(origin_delay));

  NodeId signal = 0;
  if (wave.envelope == Envelope::ramp) {
    if (!(wave.ramp_periods > 0)) throw Error("the plane wave's ramp must last a positive number of periods");
    const double ramp_time = wave.ramp_periods * 2 * pi / omega;
    const NodeId phase = g.unary(Op::cos, mul(constant(omega), tau0));
    const NodeId rising = sub(constant(0.5), mul(constant(0.5), g.unary(Op::cos, mul(constant(pi / ramp_time), tau))));
    const NodeId ramp = g.select(g.binary(Op::less_equal, tau, constant(0.0)), constant(0.0),
                                 g.select(g.binary(Op::less, tau, constant(ramp_time)), rising, constant(1.0)));
    signal = mul(phase, ramp);
  } else {
    if (!(wave.pulse_width > 0)) throw Error("the Gaussian pulse needs a positive width (pulse_width)");
    const NodeId shifted = sub(tau, constant(wave.pulse_delay));
    const NodeId scaled = mul(constant(1.0 / wave.pulse_width), shifted);
    signal = mul(g.unary(Op::sin, mul(constant(omega), shifted)),
                 g.unary(Op::exp, g.unary(Op::negate, mul(scaled, scaled))));
  }
  return signal;
}

}  // namespace

fluxes::Lowered lower_plane_wave(const fluxes::Law& law, const PlaneWave& wave, double wave_speed, double impedance,
                                 double front_offset) {
  const int dim = law.dimension;
  const double dir_norm = std::sqrt(dot(wave.direction, wave.direction));
  const double pol_norm = std::sqrt(dot(wave.polarization, wave.polarization));
  if (!(dir_norm > 0) || !(pol_norm > 0)) throw Error("the plane wave's direction and polarization must be non-zero vectors");
  std::array<double, 3> d = wave.direction, p = wave.polarization;
  for (std::size_t i = 0; i < 3; ++i) {
    d[i] /= dir_norm;
    p[i] /= pol_norm;
  }
  if (std::abs(dot(d, p)) > 1e-9)
    throw Error("the plane wave's polarization must be perpendicular to its direction (their cosine is " +
                std::to_string(dot(d, p)) + ")");
  if (dim == 2 && std::abs(d[2]) > 1e-12)
    throw Error("a plane wave in a 2D run must travel in the x-y plane; its direction has z component " + std::to_string(d[2]));
  if (!(wave_speed > 0) || !std::isfinite(wave_speed)) throw Error("the plane wave needs a positive, finite wave speed");
  if (!(impedance > 0) || !std::isfinite(impedance)) throw Error("the plane wave needs a positive, finite impedance");
  if (!(wave.wavenumber > 0)) throw Error("the plane wave's wavenumber must be positive");

  fluxes::Lowered out;
  Dag& g = out.dag;
  auto constant = [&](double v) { return g.constant(v); };
  auto mul = [&](NodeId a, NodeId b) { return g.binary(Op::multiply, a, b); };

  const NodeId signal = build_signal(g, wave, dim, d, wave_speed, front_offset);
  const std::array<double, 3> h_dir = cross(d, p);
  const NodeId e_amp = mul(constant(wave.amplitude), signal);
  const NodeId h_amp = mul(constant(wave.amplitude / impedance), signal);
  auto value = [&](char field, int component) {
    const auto c = static_cast<std::size_t>(component);
    const double factor = field == 'E' ? p[c] : h_dir[c];
    return mul(constant(factor), field == 'E' ? e_amp : h_amp);
  };
  for (const fluxes::IncidentDecl& decl : law.incident) {
    const Target target = parse_target(decl);
    if (target.component >= 0) {
      out.outputs.push_back(value(target.field, target.component));
    } else {
      for (int i = 0; i < dim; ++i) out.outputs.push_back(value(target.field, i));
    }
  }
  return out;
}

fluxes::Lowered lower_plane_wave_signal(const PlaneWave& wave, int dim, double wave_speed, double front_offset) {
  const double norm = std::sqrt(dot(wave.direction, wave.direction));
  if (!(norm > 0)) throw Error("the plane wave's direction must be a non-zero vector");
  if (!(wave_speed > 0) || !std::isfinite(wave_speed)) throw Error("the plane wave needs a positive, finite wave speed");
  std::array<double, 3> d = wave.direction;
  for (double& v : d) v /= norm;
  fluxes::Lowered out;
  out.outputs.push_back(build_signal(out.dag, wave, dim, d, wave_speed, front_offset));
  return out;
}

double plane_wave_front(const Discretization& disc, const std::array<double, 3>& direction) {
  const double norm = std::sqrt(dot(direction, direction));
  double front = std::numeric_limits<double>::infinity();
  for (int k = 0; k < disc.K; ++k)
    for (int i = 0; i < disc.element.Np; ++i) {
      double along = direction[0] * disc.x(i, k) + direction[1] * disc.y(i, k);
      if (disc.dim == 3) along += direction[2] * disc.z(i, k);
      front = std::min(front, norm > 0 ? along / norm : 0.0);
    }
  return front;
}

}  // namespace rtdg::dg
