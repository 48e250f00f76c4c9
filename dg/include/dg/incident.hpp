// Incident fields for scattering runs: the values a law's [incident] names take at a point
// and time, built as a scalar DAG (fluxes/dag.hpp) over the coordinate and time inputs, so
// the kernel generator emits them with the law's own expressions and nothing from a config
// file is ever pasted into generated code.
//
// A plane wave travelling along the unit vector d with electric polarisation p (p . d = 0)
// in a medium with wave speed c and impedance Z = sqrt(mu/eps), phase origin x0:
//
//   tau  = t - (d . x - s0) / c         the envelope's clock; s0 = min of d . x over the mesh,
//                                       so the wave front enters the domain at t = 0
//   tau0 = t - d . (x - x0) / c         the carrier's clock: phase zero at x0 at t = 0
//   E    = A g p,    H = (A g / Z) d x p
//
//   ramp      g = cos(omega tau0) r(tau),  r = 0 (tau <= 0), (1 - cos(pi tau / T)) / 2 (tau < T),
//             1 after; T = ramp_periods * 2 pi / omega. C1 switch-on of the time-harmonic
//             wave Re[A p exp(i k d.(x - x0)) exp(-i omega t)]: in the exp(-i omega t)
//             convention its complex amplitude at x0 is A, whatever the mesh.
//   gaussian  g = sin(omega (tau - t0)) exp(-((tau - t0) / sigma)^2), a modulated pulse timed
//             from the front (sine: no zero-frequency content); far fields of pulse runs are
//             normalised by its spectrum at x0 (dg/farfield.hpp), so x0 needs no role here.
//
// omega = k c for the angular wavenumber k. The law's incident components are matched by
// name: a vector `E_inc` takes E (its first `dimension` components), a scalar `Ez_inc` takes
// E's z component; likewise H.
#pragma once

#include <fluxes/law.hpp>
#include <fluxes/law_lowering.hpp>

#include <array>

namespace rtdg::dg {

struct Discretization;

enum class Envelope : unsigned char { ramp, gaussian };

struct PlaneWave {
  std::array<double, 3> direction{1, 0, 0};     // unit vector
  std::array<double, 3> polarization{0, 0, 1};  // unit vector, perpendicular to direction
  double wavenumber = 6.283185307179586;        // angular wavenumber k > 0
  double amplitude = 1.0;
  Envelope envelope = Envelope::ramp;
  double ramp_periods = 2.0;  // ramp: switch-on time in periods
  double pulse_width = 0.0;   // gaussian: sigma (time)
  double pulse_delay = 0.0;   // gaussian: t0 (time)
  std::array<double, 3> phase_origin{0, 0, 0};  // x0: the ramp's carrier has phase 0 there at t = 0
};

// The plane wave's value for each flat incident component of the law (outputs in the law's
// incident order), reading InputKind::coordinate and InputKind::time. wave_speed and
// impedance are the medium's; front_offset is s0 above. Throws dg::Error when a law incident
// name is neither E.../H... (e.g. "E_inc", "Hz_inc") or the wave is ill-defined.
fluxes::Lowered lower_plane_wave(const fluxes::Law& law, const PlaneWave& wave, double wave_speed,
                                 double impedance, double front_offset);

// g(tau) alone (one output, reading coordinates and time): the far-field transform evaluates
// it at the phase origin on the host to normalise pulse runs by the incident spectrum.
fluxes::Lowered lower_plane_wave_signal(const PlaneWave& wave, int dim, double wave_speed, double front_offset);

// s0: the smallest d . x over the discretization's nodes (d normalised here), where the front
// of a plane wave along `direction` enters the mesh.
double plane_wave_front(const Discretization& discretization, const std::array<double, 3>& direction);

}  // namespace rtdg::dg
