// rtdg-rcs-compare: a PEC sphere's bistatic RCS from a scattering run (the E- and H-plane cuts
// that `rtdg run` writes under <output>/farfield/, docs/scattering.md) against the Mie series
// (dg/mie.hpp). Prints per cut the max and RMS error in dB over all angles, the worst angle and
// the monostatic RCS / (pi a^2); exits 1 when a cut's max error exceeds --tolerance-db, 2 on a
// usage or input error.
//
//   rtdg-rcs-compare <farfield dir> --radius A [--frequency-index I] [--wavenumber K]
//                    [--tolerance-db 0.5] [--table]
//   rtdg-rcs-compare --eplane FILE --hplane FILE --radius A [--wavenumber K] ...
//
// The wavenumber comes from frequencies.csv (column `wavenumber`, row `index` = I) in the
// folder of the cuts unless --wavenumber is given; the radius is not in the run's output.
// angle_deg of the cuts is the scattering angle (0 forward along the incident direction, 180
// back); when the x, y, z columns are there it is checked against them.
#include "dg/mie.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <numbers>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace {

namespace fs = std::filesystem;
using rtdg::dg::mie::PecCoefficients;
constexpr double kInf = std::numeric_limits<double>::infinity();

struct Table {
  std::vector<std::string> columns;
  std::vector<std::vector<double>> rows;
  int column(const std::string& name, const fs::path& file) const {
    for (std::size_t i = 0; i < columns.size(); ++i)
      if (columns[i] == name) return static_cast<int>(i);
    throw std::runtime_error(file.string() + ": no column '" + name + "'");
  }
  bool has(const std::string& name) const { return std::find(columns.begin(), columns.end(), name) != columns.end(); }
};

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream s(line);
  std::string cell;
  while (std::getline(s, cell, ',')) {
    while (!cell.empty() && (cell.back() == '\r' || cell.back() == ' ')) cell.pop_back();
    while (!cell.empty() && cell.front() == ' ') cell.erase(cell.begin());
    out.push_back(cell);
  }
  return out;
}

Table read_csv(const fs::path& file) {
  std::ifstream in(file);
  if (!in) throw std::runtime_error("cannot read " + file.string());
  Table t;
  std::string line;
  if (!std::getline(in, line)) throw std::runtime_error(file.string() + ": empty");
  t.columns = split(line);
  int number = 1;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty() || line == "\r") continue;
    const auto cells = split(line);
    if (cells.size() != t.columns.size())
      throw std::runtime_error(file.string() + ":" + std::to_string(number) + ": " + std::to_string(cells.size()) +
                               " values, the header has " + std::to_string(t.columns.size()));
    std::vector<double> row;
    for (const auto& c : cells) {
      char* end = nullptr;
      const double v = std::strtod(c.c_str(), &end);
      if (c.empty() || *end != '\0') throw std::runtime_error(file.string() + ":" + std::to_string(number) + ": not a number: '" + c + "'");
      row.push_back(v);
    }
    t.rows.push_back(std::move(row));
  }
  if (t.rows.empty()) throw std::runtime_error(file.string() + ": no rows");
  return t;
}

double wavenumber_from(const fs::path& frequencies, int index) {
  const Table t = read_csv(frequencies);
  const int ci = t.column("index", frequencies), ck = t.column("wavenumber", frequencies);
  for (const auto& row : t.rows)
    if (static_cast<int>(std::lround(row[static_cast<std::size_t>(ci)])) == index) return row[static_cast<std::size_t>(ck)];
  throw std::runtime_error(frequencies.string() + ": no frequency index " + std::to_string(index));
}

struct CutResult {
  double max_db = 0, rms_db = 0, worst_angle = 0, worst_run = 0, worst_mie = 0;
  double mono_run = -1, mono_mie = 0;  // at the angle closest to 180 deg
  double mono_angle = 0;
  std::size_t angles = 0;
};

// `eplane`: the E-plane (S2) or H-plane (S1) Mie function.
CutResult compare_cut(const fs::path& file, const PecCoefficients& mie, bool eplane, double radius, bool table) {
  const Table t = read_csv(file);
  const auto ca = static_cast<std::size_t>(t.column("angle_deg", file)), cr = static_cast<std::size_t>(t.column("rcs", file));
  const bool xyz = t.has("x") && t.has("y") && t.has("z");
  const double area = std::numbers::pi * radius * radius;
  CutResult r;
  r.angles = t.rows.size();
  double sum2 = 0, best_back = 1e300;
  std::array<double, 3> d0{};
  if (xyz) {
    for (std::size_t i = 0; i < 3; ++i) d0[i] = t.rows[0][static_cast<std::size_t>(t.column(std::string(1, "xyz"[i]), file))];
    if (std::abs(t.rows[0][ca]) > 1e-9) throw std::runtime_error(file.string() + ": the first angle is not 0 (forward)");
  }
  if (table) std::printf("  %8s %12s %12s %9s\n", "angle", "run/pi a^2", "Mie/pi a^2", "error dB");
  for (const auto& row : t.rows) {
    const double angle = row[ca];
    if (angle < -1e-9 || angle > 180 + 1e-9) throw std::runtime_error(file.string() + ": angle " + std::to_string(angle) + " outside [0, 180]");
    const double theta = angle * std::numbers::pi / 180;
    if (xyz) {
      double dot = 0, norm = 0;
      for (std::size_t i = 0; i < 3; ++i) {
        const double v = row[static_cast<std::size_t>(t.column(std::string(1, "xyz"[i]), file))];
        dot += v * d0[i];
        norm += v * v;
      }
      const double from_xyz = std::acos(std::clamp(dot / std::sqrt(norm), -1.0, 1.0)) * 180 / std::numbers::pi;
      if (std::abs(from_xyz - angle) > 1e-3)
        throw std::runtime_error(file.string() + ": angle_deg " + std::to_string(angle) + " is not the angle from the first direction (" +
                                 std::to_string(from_xyz) + ")");
    }
    const auto m = rtdg::dg::mie::pec_bistatic(mie, theta);
    const double ref = eplane ? m.eplane : m.hplane;
    const double run = row[cr] / area;
    const double err = run > 0 && std::isfinite(run) ? 10 * std::log10(run / ref) : kInf;
    if (table) std::printf("  %8.3f %12.6g %12.6g %9.4f\n", angle, run, ref, err);
    sum2 += err * err;
    if (!(std::abs(err) <= r.max_db)) {  // NaN or larger
      r.max_db = std::abs(err);
      r.worst_angle = angle;
      r.worst_run = run;
      r.worst_mie = ref;
    }
    if (std::abs(180 - angle) < best_back) {
      best_back = std::abs(180 - angle);
      r.mono_run = run;
      r.mono_mie = ref;
      r.mono_angle = angle;
    }
  }
  r.rms_db = std::sqrt(sum2 / static_cast<double>(t.rows.size()));
  return r;
}

void usage(std::ostream& out) {
  out << "usage: rtdg-rcs-compare <farfield dir> --radius A [--frequency-index I] [--wavenumber K]\n"
         "                        [--tolerance-db DB] [--table]\n"
         "       rtdg-rcs-compare --eplane FILE --hplane FILE --radius A [--wavenumber K] ...\n"
         "Compares a PEC sphere's bistatic RCS cuts (f<I>_eplane.csv, f<I>_hplane.csv of rtdg run's\n"
         "farfield/ folder) with the Mie series; exit 1 when a cut's max error exceeds DB (default 0.5).\n";
}

}  // namespace

int main(int argc, char** argv) {
  fs::path dir, eplane_file, hplane_file;
  double radius = 0, wavenumber = 0, tolerance = 0.5;
  int index = 0;
  bool table = false;
  try {
    std::vector<std::string> args(argv + 1, argv + argc);
    for (std::size_t i = 0; i < args.size(); ++i) {
      const std::string& a = args[i];
      auto value = [&]() -> std::string {
        if (i + 1 >= args.size()) throw std::invalid_argument(a + " needs a value");
        return args[++i];
      };
      auto number = [&]() {
        const std::string v = value();
        char* end = nullptr;
        const double x = std::strtod(v.c_str(), &end);
        if (v.empty() || *end != '\0' || !std::isfinite(x)) throw std::invalid_argument(a + ": not a number: '" + v + "'");
        return x;
      };
      if (a == "-h" || a == "--help") {
        usage(std::cout);
        return 0;
      } else if (a == "--radius") {
        radius = number();
      } else if (a == "--wavenumber") {
        wavenumber = number();
      } else if (a == "--tolerance-db") {
        tolerance = number();
      } else if (a == "--frequency-index") {
        index = static_cast<int>(number());
      } else if (a == "--eplane") {
        eplane_file = value();
      } else if (a == "--hplane") {
        hplane_file = value();
      } else if (a == "--table") {
        table = true;
      } else if (!a.empty() && a[0] == '-') {
        throw std::invalid_argument("unknown option " + a);
      } else if (dir.empty()) {
        dir = a;
      } else {
        throw std::invalid_argument("more than one folder given");
      }
    }
    if (!(radius > 0)) throw std::invalid_argument("--radius (the sphere's radius, > 0) is required");
    if (!(tolerance > 0)) throw std::invalid_argument("--tolerance-db must be positive");
    const std::string stem = "f" + std::to_string(index);
    if (eplane_file.empty() && hplane_file.empty()) {
      if (dir.empty()) throw std::invalid_argument("give the farfield folder or --eplane/--hplane files");
      eplane_file = dir / (stem + "_eplane.csv");
      hplane_file = dir / (stem + "_hplane.csv");
    } else if (!dir.empty()) {
      throw std::invalid_argument("give either the farfield folder or --eplane/--hplane files");
    }
    if (wavenumber <= 0) {
      const fs::path frequencies = (eplane_file.empty() ? hplane_file : eplane_file).parent_path() / "frequencies.csv";
      if (!fs::exists(frequencies)) throw std::invalid_argument("no " + frequencies.string() + ": give --wavenumber");
      wavenumber = wavenumber_from(frequencies, index);
    }
    const double ka = wavenumber * radius;
    const PecCoefficients mie = rtdg::dg::mie::pec_coefficients(ka);
    std::printf("PEC sphere: radius %g, wavenumber %g, ka = %.6g; tolerance %g dB\n", radius, wavenumber, ka, tolerance);
    bool pass = true;
    for (const auto& [name, file, is_e] : {std::tuple<const char*, fs::path, bool>{"E-plane", eplane_file, true},
                                           {"H-plane", hplane_file, false}}) {
      if (file.empty()) continue;
      std::printf("%s (%s):\n", name, file.string().c_str());
      const CutResult r = compare_cut(file, mie, is_e, radius, table);
      const bool ok = r.max_db <= tolerance;
      pass = pass && ok;
      std::printf("  angles %zu; max error %.4f dB at %.3g deg (run %.6g, Mie %.6g pi a^2); rms %.4f dB: %s\n", r.angles, r.max_db,
                  r.worst_angle, r.worst_run, r.worst_mie, r.rms_db, ok ? "ok" : "FAIL");
      std::printf("  monostatic (%.4g deg): run %.6g, Mie %.6g pi a^2 (%+.4f dB)\n", r.mono_angle, r.mono_run, r.mono_mie,
                  r.mono_run > 0 ? 10 * std::log10(r.mono_run / r.mono_mie) : -kInf);
    }
    std::printf("%s\n", pass ? "PASS" : "FAIL");
    return pass ? 0 : 1;
  } catch (const std::invalid_argument& e) {
    std::cerr << "rtdg-rcs-compare: " << e.what() << "\n";
    usage(std::cerr);
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "rtdg-rcs-compare: " << e.what() << "\n";
    return 2;
  }
}
