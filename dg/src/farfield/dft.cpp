// Running DFTs of the Huygens surface traces (dg/farfield.hpp): a generated elementwise
// kernel (rtcg, both backends) adds one sample of the state to the sums on the device.
#include "dg/error.hpp"
#include "dg/farfield.hpp"

#include <rtcg/array.hpp>
#include <rtcg/elementwise.hpp>

#include <algorithm>
#include <cmath>

namespace rtdg::dg {

struct SurfaceDft::Impl {
  rtcg::Backend& backend;
  std::size_t P = 0, C = 0, F = 0;
  std::array<int, 6> slot_of{};  // E.x ... H.z -> index into the C components, -1: absent
  rtcg::Array<std::int32_t> inner, outer;  // [C][P] device indices of the state
  // [P] the node (0..Np-1) of each point on its inner and outer element: a Bernstein plan's
  // value there is V_B's row `node` times the element's column of coefficients.
  rtcg::Array<std::int32_t> inner_node, outer_node;
  rtcg::Array<double> omega;               // [F]
  rtcg::Array<double> sums;                // [F][C][P][2] (re, im)
  // Parallel runs: R outer twins on other ranks (surface.outer[p] = -1 - r), their values
  // [C][R] per sample; and the S nodes whose values other ranks' points need (set_exports).
  std::size_t R = 0, S = 0;
  rtcg::Array<double> remote, exported;       // [C][R], [C][S]
  rtcg::Array<std::int32_t> export_index;     // [C][S] device indices of the state
  rtcg::Array<std::int32_t> export_node;      // [S] the node (0..Np-1) on its element
  std::vector<int> components;                // the state component of each of the C
  std::unique_ptr<rtcg::ElementwiseKernel> kernel, export_kernel;
  const Solver& solver;
  Impl(rtcg::Backend& b, const Solver& s)
      : backend(b), inner(b, 1), outer(b, 1), inner_node(b, 1), outer_node(b, 1), omega(b, 1), sums(b, 1),
        remote(b, 1), exported(b, 1), export_index(b, 1), export_node(b, 1), solver(s) {}
};

namespace {

// The nodal value of the stored state at device index `a` (node `na` of its element) in
// double, as the DFT kernel reads a trace: q[a] in a nodal plan, V_B's row na times the
// element's coefficients in a Bernstein plan (m not null). `out`: the variable it sets.
std::string trace_value(const std::string& type, const std::string& Np, const std::string& a, const std::string& na,
                        const std::string& out) {
  return "if (!m) {\n"
         "  " + out + " = (double)q[" + a + "];\n"
         "} else {\n"
         "  const " + type + "* c_ = q + (" + a + " - " + na + ");\n"
         "  double s_ = 0;\n"
         "  for (int j = 0; j < " + Np + "; ++j) s_ += (double)m[" + na + " * " + Np + " + j] * (double)c_[j];\n"
         "  " + out + " = s_;\n"
         "}\n";
}

}  // namespace

SurfaceDft::SurfaceDft(const Solver& solver, const HuygensSurface& surface, std::array<int, 6> slots,
                       std::vector<double> omegas)
    : impl_(std::make_unique<Impl>(solver.backend(), solver)), omegas_(std::move(omegas)) {
  Impl& s = *impl_;
  const Discretization& disc = solver.discretization();
  const int Np = disc.element.Np;
  s.P = surface.size();
  s.F = omegas_.size();
  if (s.F == 0) throw Error("the far-field transform needs at least one frequency");
  std::vector<int> components;
  for (std::size_t c = 0; c < 6; ++c) {
    s.slot_of[c] = -1;
    if (slots[c] < 0) continue;
    if (slots[c] >= solver.components()) throw Error("SurfaceDft: state component " + std::to_string(slots[c]) + " out of range");
    s.slot_of[c] = static_cast<int>(components.size());
    components.push_back(slots[c]);
  }
  s.C = components.size();
  s.components = components;
  if (s.C == 0) throw Error("the far-field transform found no E or H components in the law");
  for (std::size_t p = 0; p < s.P; ++p)
    if (surface.outer[p] < 0) s.R = std::max(s.R, static_cast<std::size_t>(-1 - surface.outer[p]) + 1);
  std::vector<std::int32_t> inner(s.C * s.P), outer(s.C * s.P);
  for (std::size_t m = 0; m < s.C; ++m)
    for (std::size_t p = 0; p < s.P; ++p) {
      inner[m * s.P + p] = static_cast<std::int32_t>(solver.device_index(components[m], surface.inner[p] / Np, surface.inner[p] % Np));
      // An outer twin on another rank: -1 - its slot in `remote` [C][R].
      const int o = surface.outer[p];
      outer[m * s.P + p] = o < 0 ? static_cast<std::int32_t>(-1 - static_cast<long long>(m * s.R) + (o + 1))
                                 : static_cast<std::int32_t>(solver.device_index(components[m], o / Np, o % Np));
    }
  std::vector<std::int32_t> inner_node(s.P), outer_node(s.P);
  for (std::size_t p = 0; p < s.P; ++p) {
    inner_node[p] = surface.inner[p] % Np;
    outer_node[p] = surface.outer[p] < 0 ? 0 : surface.outer[p] % Np;
  }
  s.inner = rtcg::Array<std::int32_t>::from_host(s.backend, inner);
  s.outer = rtcg::Array<std::int32_t>::from_host(s.backend, outer);
  s.inner_node = rtcg::Array<std::int32_t>::from_host(s.backend, inner_node);
  s.outer_node = rtcg::Array<std::int32_t>::from_host(s.backend, outer_node);
  s.omega = rtcg::Array<double>::from_host(s.backend, omegas_);
  s.sums = rtcg::Array<double>(s.backend, std::max<std::size_t>(1, s.F * s.C * s.P * 2));
  s.sums.fill(0.0);
  if (s.R > 0) s.remote = rtcg::Array<double>(s.backend, s.C * s.R);
  leak_.assign(s.F, 0.0);
  incident_.assign(s.F, 0.0);

  // One thread per point: the average of the two traces of each component, then for each
  // frequency that times w exp(i omega t), added to its sums. P, C, F and Np are literals of the
  // source. The traces are read from the state as the kernels keep it (Solver::stored_state):
  // in a Bernstein plan (m not null) a trace is V_B's row of its node times the element's column
  // of coefficients, Np products summed in double. Transforming the whole state to nodal values
  // instead (device_state) would transform all K x Np values at every sample to read the
  // surface's few (benchmarks/results/farfield-bernstein-h200-2026-11-29.log).
  const std::string type = solver.stored_state().scalar == fluxes::ScalarType::float32 ? "float" : "double";
  const std::string Ptext = std::to_string(s.P) + "LL", Ctext = std::to_string(s.C), Ftext = std::to_string(s.F),
                    Nptext = std::to_string(Np);
  rtcg::ElementwiseSpec spec;
  spec.name = "rtdg_farfield_dft";
  spec.arguments = "const " + type + "* q, const " + type + "* m, const int* inner, const int* outer, "
                   "const int* inner_node, const int* outer_node, const double* omega, double* sums, double t, double w";
  if (s.R == 0) {
    spec.operation =
        "const long long p = i;\n"
        "double v[" + Ctext + "];\n"
        "for (int comp = 0; comp < " + Ctext + "; ++comp) {\n"
        "  const long long a = inner[comp * " + Ptext + " + p], b = outer[comp * " + Ptext + " + p];\n"
        "  if (!m) {\n"
        "    v[comp] = 0.5 * ((double)q[a] + (double)q[b]);\n"
        "    continue;\n"
        "  }\n"
        "  const int na = inner_node[p], nb = outer_node[p];\n"
        "  const " + type + "* ca = q + (a - na);\n"
        "  const " + type + "* cb = q + (b - nb);\n"
        "  double sa = 0, sb = 0;\n"
        "  for (int j = 0; j < " + Nptext + "; ++j) {\n"
        "    sa += (double)m[na * " + Nptext + " + j] * (double)ca[j];\n"
        "    sb += (double)m[nb * " + Nptext + " + j] * (double)cb[j];\n"
        "  }\n"
        "  v[comp] = 0.5 * (sa + sb);\n"
        "}\n";
  } else {
    // Some outer twins live on other ranks: their values come in `remote` (outer = -1 - slot),
    // computed there as trace_value computes them, so each sum is the serial run's.
    spec.arguments += ", const double* remote";
    spec.operation =
        "const long long p = i;\n"
        "double v[" + Ctext + "];\n"
        "for (int comp = 0; comp < " + Ctext + "; ++comp) {\n"
        "  const long long a = inner[comp * " + Ptext + " + p], b = outer[comp * " + Ptext + " + p];\n"
        "  const int na = inner_node[p], nb = outer_node[p];\n"
        "  double sa = 0, sb = 0;\n" +
        trace_value(type, Nptext, "a", "na", "sa") +
        "if (b < 0) {\n"
        "  sb = remote[-1 - b];\n"
        "} else {\n" +
        trace_value(type, Nptext, "b", "nb", "sb") +
        "}\n"
        "  v[comp] = 0.5 * (sa + sb);\n"
        "}\n";
  }
  spec.operation +=
      "for (int f = 0; f < " + Ftext + "; ++f) {\n"
      "  const double phase = omega[f] * t, c = cos(phase) * w, s = sin(phase) * w;\n"
      "  for (int comp = 0; comp < " + Ctext + "; ++comp) {\n"
      "    double* out = sums + 2 * ((f * " + Ctext + " + comp) * " + Ptext + " + p);\n"
      "    out[0] += v[comp] * c;\n"
      "    out[1] += v[comp] * s;\n"
      "  }\n"
      "}";
  s.kernel = std::make_unique<rtcg::ElementwiseKernel>(s.backend, spec);
}

SurfaceDft::~SurfaceDft() = default;

void SurfaceDft::accumulate(double t, double w, double incident, std::span<const double> remote) {
  Impl& s = *impl_;
  if (remote.size() != s.C * s.R)
    throw Error("SurfaceDft::accumulate: " + std::to_string(remote.size()) + " remote values for " +
                std::to_string(s.C * s.R));
  if (s.R > 0) s.remote.copy_from_host(remote);
  const Solver::StoredState q = s.solver.stored_state();
  if (s.P > 0 && s.R > 0) {
    if (q.scalar == fluxes::ScalarType::float32)
      s.kernel->launch(s.P, static_cast<const float*>(q.data), static_cast<const float*>(q.to_nodal), s.inner.data(),
                       s.outer.data(), s.inner_node.data(), s.outer_node.data(), s.omega.data(), s.sums.data(), t, w,
                       s.remote.data());
    else
      s.kernel->launch(s.P, static_cast<const double*>(q.data), static_cast<const double*>(q.to_nodal), s.inner.data(),
                       s.outer.data(), s.inner_node.data(), s.outer_node.data(), s.omega.data(), s.sums.data(), t, w,
                       s.remote.data());
  } else if (s.P > 0) {
    if (q.scalar == fluxes::ScalarType::float32)
      s.kernel->launch(s.P, static_cast<const float*>(q.data), static_cast<const float*>(q.to_nodal), s.inner.data(),
                       s.outer.data(), s.inner_node.data(), s.outer_node.data(), s.omega.data(), s.sums.data(), t, w);
    else
      s.kernel->launch(s.P, static_cast<const double*>(q.data), static_cast<const double*>(q.to_nodal), s.inner.data(),
                       s.outer.data(), s.inner_node.data(), s.outer_node.data(), s.omega.data(), s.sums.data(), t, w);
  }
  for (std::size_t f = 0; f < s.F; ++f) {
    const double phase = omegas_[f] * t;
    leak_[f] += w * Complex(std::cos(2 * phase), std::sin(2 * phase));
    incident_[f] += w * incident * Complex(std::cos(phase), std::sin(phase));
  }
  window_ += w;
  ++samples_;
}

std::size_t SurfaceDft::components() const { return impl_->C; }
std::size_t SurfaceDft::remote_points() const { return impl_->R; }

void SurfaceDft::set_exports(std::span<const int> nodes) {
  Impl& s = *impl_;
  const Discretization& disc = s.solver.discretization();
  const int Np = disc.element.Np;
  s.S = nodes.size();
  s.export_kernel.reset();
  if (s.S == 0) return;
  std::vector<std::int32_t> index(s.C * s.S), node(s.S);
  for (std::size_t j = 0; j < s.S; ++j) {
    if (nodes[j] < 0 || nodes[j] >= disc.K * Np) throw Error("SurfaceDft::set_exports: no node " + std::to_string(nodes[j]));
    node[j] = nodes[j] % Np;
    for (std::size_t m = 0; m < s.C; ++m)
      index[m * s.S + j] = static_cast<std::int32_t>(s.solver.device_index(s.components[m], nodes[j] / Np, nodes[j] % Np));
  }
  s.export_index = rtcg::Array<std::int32_t>::from_host(s.backend, index);
  s.export_node = rtcg::Array<std::int32_t>::from_host(s.backend, node);
  s.exported = rtcg::Array<double>(s.backend, s.C * s.S);
  const std::string type = s.solver.stored_state().scalar == fluxes::ScalarType::float32 ? "float" : "double";
  rtcg::ElementwiseSpec spec;
  spec.name = "rtdg_farfield_export";
  spec.arguments = "const " + type + "* q, const " + type + "* m, const int* index, const int* node, double* out";
  spec.operation = "const long long a = index[i];\n"
                   "const int na = node[i % " + std::to_string(s.S) + "LL];\n"
                   "double v = 0;\n" +
                   trace_value(type, std::to_string(Np), "a", "na", "v") + "out[i] = v;";
  s.export_kernel = std::make_unique<rtcg::ElementwiseKernel>(s.backend, spec);
}

std::vector<double> SurfaceDft::exports() const {
  Impl& s = *impl_;  // the export buffer is scratch
  if (s.S == 0) return {};
  const Solver::StoredState q = s.solver.stored_state();
  if (q.scalar == fluxes::ScalarType::float32)
    s.export_kernel->launch(s.C * s.S, static_cast<const float*>(q.data), static_cast<const float*>(q.to_nodal),
                            s.export_index.data(), s.export_node.data(), s.exported.data());
  else
    s.export_kernel->launch(s.C * s.S, static_cast<const double*>(q.data), static_cast<const double*>(q.to_nodal),
                            s.export_index.data(), s.export_node.data(), s.exported.data());
  return s.exported.to_host();
}

double SurfaceDft::window() const { return window_; }
Complex SurfaceDft::incident_spectrum(std::size_t f) const { return incident_.at(f); }
Complex SurfaceDft::leakage(std::size_t f) const { return window_ > 0 ? leak_.at(f) / window_ : Complex(0); }

std::vector<double> SurfaceDft::frequency_sums(std::size_t f) const {
  const Impl& s = *impl_;
  if (f >= s.F) throw Error("SurfaceDft::frequency_sums: no frequency " + std::to_string(f));
  if (s.P == 0) return {};
  return s.sums.view().view(f * s.C * s.P * 2, s.C * s.P * 2).to_host();
}

SurfaceFields SurfaceDft::fields(std::size_t f, Mode mode, Complex scale) const {
  return fields(f, mode, scale, frequency_sums(f));
}

SurfaceFields SurfaceDft::fields(std::size_t f, Mode mode, Complex scale, std::span<const double> all) const {
  const Impl& s = *impl_;
  if (f >= s.F) throw Error("SurfaceDft::fields: no frequency " + std::to_string(f));
  if (all.size() % (2 * s.C) != 0) throw Error("SurfaceDft::fields: the sums are not [components][points][2]");
  const std::size_t P = all.size() / (2 * s.C);
  const bool harmonic = mode == Mode::time_harmonic;
  if (harmonic && !(window_ > 0)) throw Error("the far-field transform has no samples yet");
  if (!harmonic && std::abs(incident_[f]) == 0) throw Error("the incident spectrum is zero at this frequency");
  const Complex L = harmonic ? leakage(f) : Complex(0);
  SurfaceFields out;
  for (std::size_t c = 0; c < 6; ++c) {
    const int m = s.slot_of[c];
    if (m < 0) continue;
    std::vector<Complex>& v = c < 3 ? out.E[c] : out.H[c - 3];
    v.resize(P);
    for (std::size_t p = 0; p < P; ++p) {
      const std::size_t at = 2 * (static_cast<std::size_t>(m) * P + p);
      const Complex sum(all[at], all[at + 1]);
      if (harmonic) {
        // a = F + conj(F) L: removes the leakage of a window that is not whole half periods.
        const Complex a = 2.0 / window_ * sum;
        v[p] = (a - L * std::conj(a)) / (1.0 - std::norm(L)) / scale;
      } else {
        v[p] = sum / incident_[f] / scale;
      }
    }
  }
  return out;
}

std::vector<double> SurfaceDft::device_sums() const {
  if (impl_->P == 0) return {};
  return impl_->sums.to_host();
}

std::vector<double> SurfaceDft::host_sums() const {
  std::vector<double> h{static_cast<double>(samples_), window_};
  for (std::size_t f = 0; f < omegas_.size(); ++f) {
    h.push_back(leak_[f].real());
    h.push_back(leak_[f].imag());
    h.push_back(incident_[f].real());
    h.push_back(incident_[f].imag());
  }
  return h;
}

void SurfaceDft::set_state(std::span<const double> device_sums, std::span<const double> host_sums) {
  Impl& s = *impl_;
  const std::size_t size = s.F * s.C * s.P * 2;
  if (device_sums.size() != size || host_sums.size() != 2 + 4 * s.F)
    throw Error("the far-field DFT state holds " + std::to_string(device_sums.size()) + " + " +
                std::to_string(host_sums.size()) + " values, this run's transform " + std::to_string(size) +
                " + " + std::to_string(2 + 4 * s.F) + " (another surface or other frequencies)");
  if (size > 0) s.sums.copy_from_host(device_sums);
  samples_ = static_cast<long long>(host_sums[0]);
  window_ = host_sums[1];
  for (std::size_t f = 0; f < s.F; ++f) {
    leak_[f] = Complex(host_sums[2 + 4 * f], host_sums[3 + 4 * f]);
    incident_[f] = Complex(host_sums[4 + 4 * f], host_sums[5 + 4 * f]);
  }
}

}  // namespace rtdg::dg
