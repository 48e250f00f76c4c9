// FarFieldRun (runner/farfield_run.hpp).
#include "runner/farfield_run.hpp"

#include <dg/error.hpp>
#include <dg/incident.hpp>
#include <fluxes/evaluate.hpp>
#include <output/hdf5_arrays.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <numbers>

namespace rtdg::runner {
namespace fs = std::filesystem;
namespace {

constexpr double pi = std::numbers::pi;

double parameter(const Problem& p, const char* name, double fallback) {
  for (std::size_t i = 0; i < p.law.parameters.size(); ++i)
    if (p.law.parameters[i].name == name) return i < p.parameters.size() ? p.parameters[i] : p.law.parameters[i].value;
  return fallback;
}

// E.x ... H.z -> the state component (-1: none), from the law's names ("E.x" or "Ex").
std::array<int, 6> field_slots(const std::vector<std::string>& names) {
  std::array<int, 6> slots{-1, -1, -1, -1, -1, -1};
  for (std::size_t c = 0; c < names.size(); ++c) {
    std::string n = names[c];
    n.erase(std::remove(n.begin(), n.end(), '.'), n.end());
    if (n.size() != 2 || (n[0] != 'E' && n[0] != 'H') || n[1] < 'x' || n[1] > 'z') continue;
    slots[static_cast<std::size_t>((n[0] == 'E' ? 0 : 3) + (n[1] - 'x'))] = static_cast<int>(c);
  }
  return slots;
}

std::string number(double v) {
  char text[32];
  const auto end = std::to_chars(text, text + sizeof text, v).ptr;
  return std::string(text, end);
}

dg::Point cross(const dg::Point& a, const dg::Point& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}

double db(double v) { return 10 * std::log10(std::max(v, 1e-300)); }

void write_csv(const fs::path& file, const std::string& header, const std::vector<std::vector<double>>& rows) {
  std::string text = header + "\n";
  for (const auto& row : rows) {
    for (std::size_t i = 0; i < row.size(); ++i) text += (i ? "," : "") + number(row[i]);
    text += "\n";
  }
  const fs::path temporary = fs::path(file).concat(".tmp");
  {
    std::ofstream out(temporary, std::ios::binary);
    out << text;
    if (!out) throw std::runtime_error("cannot write " + temporary.string());
  }
  fs::rename(temporary, file);
}

}  // namespace

FarFieldRun::FarFieldRun(const Problem& p, const dg::Solver& solver, double dt, std::ostream& log) : problem_(p), log_(log) {
  const config::RunConfig& cfg = p.cfg;
  const config::FarField& ff = cfg.farfield;
  auto fail = [&](const std::string& key, const std::string& message) -> void {
    throw config::Error(key.empty() ? ff.where : cfg.where("farfield." + key), message);
  };
  if (cfg.incident.kind != "plane_wave")
    fail("", "[farfield] needs an incident plane wave ([incident] kind = \"plane_wave\"): far fields are normalised by it");
  const std::array<int, 6> slots = field_slots(solver.component_names());
  const bool has_e = slots[0] >= 0 || slots[1] >= 0 || slots[2] >= 0;
  if (!has_e) fail("", "[farfield] needs a law with electromagnetic fields E and H (components named E.x or Ez, H.x or Hx, ...)");
  if (p.disc.dim == 2 && (slots[2] < 0 || slots[3] < 0 || slots[4] < 0))
    fail("", "[farfield] in 2D supports the TM polarisation (Ez, Hx, Hy); the law has other components");
  try {
    if (ff.surface == "box") surface_ = dg::huygens_surface_box(p.disc, p.mesh, ff.box_min, ff.box_max);
    else if (ff.surface == "boundary") surface_ = dg::huygens_surface_boundary(p.disc, ff.group);
    else surface_ = dg::huygens_surface_region(p.disc, p.mesh, ff.group);
  } catch (const dg::Error& e) {
    fail(ff.surface == "box" ? "box_min" : "group", e.what());
  }
  // The transform needs the scattered field on both sides of every surface face.
  if (const std::vector<char>& total = p.setup.total_field; !total.empty()) {
    const int Np = p.disc.element.Np;
    for (std::size_t j = 0; j < surface_.size(); ++j)
      if (total[static_cast<std::size_t>(surface_.inner[j] / Np)] || total[static_cast<std::size_t>(surface_.outer[j] / Np)])
        fail(ff.surface == "box" ? "box_min" : "group",
             "the far-field surface touches the total-field region ([incident] total_field): it must lie in the scattered "
             "field, outside the total-field region with at least one element between them");
  }
  wave_speed_ = solver.max_wave_speed();
  const double eps = parameter(p, "eps", 1.0);
  mu_ = parameter(p, "mu", 1.0);
  impedance_ = std::sqrt(mu_ / eps);
  std::vector<double> omegas;
  for (double f : ff.frequencies) omegas.push_back(2 * pi * f);
  if (omegas.empty()) omegas.push_back(cfg.incident.wavenumber * wave_speed_);
  const double omega_max = *std::max_element(omegas.begin(), omegas.end());
  if (!(omega_max * ff.every * dt < pi))
    fail("every", "farfield.every = " + std::to_string(ff.every) + " samples every " + number(ff.every * dt) +
                      " time units, beyond the Nyquist limit of the highest frequency " + number(omega_max / (2 * pi)) +
                      " (at most " + number(pi / omega_max) + "); sample more often");

  const dg::PlaneWave wave = plane_wave(cfg.incident);
  const double front = dg::plane_wave_front(p.disc, wave.direction);
  signal_ = dg::lower_plane_wave_signal(wave, p.disc.dim, wave_speed_, front);
  if (wave.envelope == dg::Envelope::ramp) {
    mode_ = dg::SurfaceDft::Mode::time_harmonic;
    if (ff.start) {
      start_ = *ff.start;
    } else {
      // The ramp is over everywhere once it has crossed the mesh; then the scattered wave needs
      // to cross the mesh too (to the surface and back from the outer boundary).
      double lo = 1e300, hi = -1e300, diameter = 0;
      const Eigen::MatrixXd* xyz[3] = {&p.disc.x, &p.disc.y, &p.disc.z};
      for (int d = 0; d < p.disc.dim; ++d) {
        diameter += std::pow(xyz[d]->maxCoeff() - xyz[d]->minCoeff(), 2);
      }
      for (int k = 0; k < p.disc.K; ++k)
        for (int i = 0; i < p.disc.element.Np; ++i) {
          double along = 0;
          for (int d = 0; d < p.disc.dim; ++d) along += wave.direction[static_cast<std::size_t>(d)] * (*xyz[d])(i, k);
          lo = std::min(lo, along);
          hi = std::max(hi, along);
        }
      const double omega = wave.wavenumber * wave_speed_;
      start_ = wave.ramp_periods * 2 * pi / omega + (hi - lo + std::sqrt(diameter)) / wave_speed_;
    }
  } else {
    mode_ = dg::SurfaceDft::Mode::transform;
    start_ = 0;
  }
  last_sample_ = start_;
  dft_ = std::make_unique<dg::SurfaceDft>(solver, surface_, slots, omegas);
  log << "[rtdg] far field: Huygens surface of " << surface_.faces << " faces (" << surface_.size() << " points), "
      << omegas.size() << " frequenc" << (omegas.size() == 1 ? "y" : "ies") << ", "
      << (mode_ == dg::SurfaceDft::Mode::time_harmonic ? "time-harmonic from t = " + number(start_) : std::string("pulse transform"))
      << ", a sample every " << ff.every << " step" << (ff.every == 1 ? "" : "s") << "\n";
}

FarFieldRun::~FarFieldRun() = default;

void FarFieldRun::sample(double t, long long step) {
  if (step % problem_.cfg.farfield.every != 0 || t < start_) return;
  const double w = t - last_sample_;
  if (!(w > 0)) return;
  const dg::Point& x0 = problem_.cfg.incident.phase_origin;
  const std::vector<double> g = fluxes::evaluate(signal_.dag, signal_.outputs, [&](const fluxes::InputRef& ref) -> double {
    if (ref.kind == fluxes::InputKind::time) return t;
    if (ref.kind == fluxes::InputKind::coordinate) return x0.at(ref.index);
    throw dg::Error("internal: the incident signal reads an input other than x and t");
  });
  dft_->accumulate(t, w, g.at(0));
  last_sample_ = t;
}

void FarFieldRun::store(output::Solution& checkpoint) const {
  checkpoint.extras["farfield_device"] = dft_->device_sums();
  checkpoint.extras["farfield_host"] = dft_->host_sums();
  checkpoint.extras["farfield_clock"] = {last_sample_, start_};
}

void FarFieldRun::restore(const output::Solution& checkpoint) {
  const auto device = checkpoint.extras.find("farfield_device");
  const auto host = checkpoint.extras.find("farfield_host");
  const auto clock = checkpoint.extras.find("farfield_clock");
  if (device == checkpoint.extras.end() || host == checkpoint.extras.end() || clock == checkpoint.extras.end() ||
      clock->second.size() != 2)
    throw std::runtime_error("the checkpoint holds no far-field sums (/extras/farfield_*), so the far-field transform "
                             "cannot continue; restart without [farfield] or start the run again");
  dft_->set_state(device->second, host->second);
  last_sample_ = clock->second[0];
  start_ = clock->second[1];
}

void FarFieldRun::write(const fs::path& dir, double t, long long step,
                        const std::function<void(const std::string&)>& claim_path) const {
  if (dft_->samples() == 0) return;
  const config::RunConfig& cfg = problem_.cfg;
  const fs::path out = dir / "farfield";
  auto claim = [&](const std::string& relative) {
    if (claim_path) claim_path(relative);
  };
  claim("farfield/");
  fs::create_directories(out);
  // Every file, claimed before the first is written.
  for (std::size_t f = 0; f < dft_->omegas().size(); ++f) {
    const std::string stem = "farfield/f" + std::to_string(f);
    if (surface_.dim == 2) {
      claim(stem + "_width.csv");
      continue;
    }
    claim(stem + "_eplane.csv");
    claim(stem + "_hplane.csv");
    if (cfg.farfield.grid.size() == 2) claim(stem + "_grid.csv");
  }
  claim("farfield/frequencies.csv");
  claim("farfield/farfield.h5");
  const int dim = surface_.dim;
  const dg::Point d = cfg.incident.direction, p = cfg.incident.polarization;
  const dg::Point h = cross(d, p);
  const dg::Point& x0 = cfg.incident.phase_origin;
  const double A = cfg.incident.amplitude;
  std::vector<output::NamedArray> arrays;
  std::vector<std::vector<double>> frequency_rows;
  for (std::size_t f = 0; f < dft_->omegas().size(); ++f) {
    const double omega = dft_->omegas()[f], k = omega / wave_speed_;
    const std::string stem = "f" + std::to_string(f);
    const dg::SurfaceFields fields = dft_->fields(f, mode_, A);
    frequency_rows.push_back({static_cast<double>(f), omega / (2 * pi), omega, k, static_cast<double>(dft_->samples()),
                              dft_->window(), std::abs(dft_->incident_spectrum(f))});
    const std::vector<std::pair<std::string, double>> attrs = {{"frequency", omega / (2 * pi)}, {"omega", omega}, {"wavenumber", k}};
    auto cut = [&](const dg::Point& u, const dg::Point& v, int count, double span_deg) {
      std::vector<double> angles;
      std::vector<dg::Point> dirs;
      for (int i = 0; i < count; ++i) {
        const double a = span_deg * i / (count - 1);
        angles.push_back(a);
        dirs.push_back(dg::direction_in_plane(u, v, a * pi / 180));
      }
      return std::pair(angles, dirs);
    };
    if (dim == 2) {
      const int n = cfg.farfield.angles > 1 ? cfg.farfield.angles : 361;
      const auto [angles, dirs] = cut(d, dg::Point{-d[1], d[0], 0}, n, 360.0);
      const std::vector<dg::Complex> u = dg::far_field_2d_tm(surface_, fields, k, omega * mu_, x0, dirs);
      std::vector<std::vector<double>> rows;
      std::vector<double> width, re, im;
      for (std::size_t i = 0; i < dirs.size(); ++i) {
        const double sigma = 2 * pi * std::norm(u[i]);
        rows.push_back({angles[i], dirs[i][0], dirs[i][1], sigma, db(sigma), u[i].real(), u[i].imag()});
        width.push_back(sigma);
        re.push_back(u[i].real());
        im.push_back(u[i].imag());
      }
      write_csv(out / (stem + "_width.csv"), "angle_deg,x,y,width,width_db,re,im", rows);
      arrays.push_back({stem, "angle_deg", {angles.size()}, angles, attrs});
      arrays.push_back({stem, "width", {width.size()}, width, attrs});
      arrays.push_back({stem, "far_field_re", {re.size()}, re, attrs});
      arrays.push_back({stem, "far_field_im", {im.size()}, im, attrs});
      continue;
    }
    const int n = cfg.farfield.angles > 1 ? cfg.farfield.angles : 181;
    for (const auto& [plane, v] : {std::pair<std::string, dg::Point>{"eplane", p}, {"hplane", h}}) {
      const auto [angles, dirs] = cut(d, v, n, 180.0);
      const auto far = dg::far_field_3d(surface_, fields, k, impedance_, x0, dirs);
      std::vector<std::vector<double>> rows;
      std::vector<double> rcs;
      for (std::size_t i = 0; i < dirs.size(); ++i) {
        const double sigma = 4 * pi * (std::norm(far[i][0]) + std::norm(far[i][1]) + std::norm(far[i][2]));
        rows.push_back({angles[i], dirs[i][0], dirs[i][1], dirs[i][2], sigma, db(sigma)});
        rcs.push_back(sigma);
      }
      write_csv(out / (stem + "_" + plane + ".csv"), "angle_deg,x,y,z,rcs,rcs_dbsm", rows);
      arrays.push_back({stem, plane + "_angle_deg", {angles.size()}, angles, attrs});
      arrays.push_back({stem, plane + "_rcs", {rcs.size()}, rcs, attrs});
    }
    if (cfg.farfield.grid.size() == 2) {
      const int nt = cfg.farfield.grid[0], np = cfg.farfield.grid[1];
      std::vector<dg::Point> dirs;
      std::vector<std::vector<double>> rows;
      for (int i = 0; i < nt; ++i)
        for (int j = 0; j < np; ++j) {
          const double th = pi * i / (nt - 1), ph = 2 * pi * j / np;
          dirs.push_back({std::sin(th) * std::cos(ph), std::sin(th) * std::sin(ph), std::cos(th)});
        }
      const auto far = dg::far_field_3d(surface_, fields, k, impedance_, x0, dirs);
      std::vector<double> rcs;
      for (std::size_t m = 0; m < dirs.size(); ++m) {
        const double sigma = 4 * pi * (std::norm(far[m][0]) + std::norm(far[m][1]) + std::norm(far[m][2]));
        const auto i = static_cast<int>(m) / np, j = static_cast<int>(m) % np;
        rows.push_back({180.0 * i / (nt - 1), 360.0 * j / np, sigma, db(sigma)});
        rcs.push_back(sigma);
      }
      write_csv(out / (stem + "_grid.csv"), "theta_deg,phi_deg,rcs,rcs_dbsm", rows);
      arrays.push_back({stem, "grid_rcs", {static_cast<std::size_t>(nt), static_cast<std::size_t>(np)}, rcs, attrs});
    }
  }
  write_csv(out / "frequencies.csv", "index,frequency,omega,wavenumber,samples,window,incident_spectrum", frequency_rows);
  output::write_arrays(out / "farfield.h5", "rtdg-farfield",
                       {{"time", number(t)},
                        {"step", std::to_string(step)},
                        {"mode", mode_ == dg::SurfaceDft::Mode::time_harmonic ? "time_harmonic" : "transform"},
                        {"convention", "exp(-i omega t); phase origin " + number(x0[0]) + " " + number(x0[1]) + " " + number(x0[2])},
                        {"quantity", dim == 2 ? "2D TM scattering width (length)" : "bistatic RCS (area)"}},
                       arrays);
}

}  // namespace rtdg::runner
