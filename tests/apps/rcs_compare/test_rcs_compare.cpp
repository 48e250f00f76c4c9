// rtdg-rcs-compare on cuts in the format `rtdg run` writes (farfield/f0_eplane.csv,
// f0_hplane.csv, frequencies.csv; incident along +x, E along +z as in sphere_rcs.toml), made
// from the Mie series itself: 0 dB error passes, 1 dB at one angle fails and is located.
#include "dg/mie.hpp"

#include <gtest/gtest.h>

#include <sys/wait.h>

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <numbers>
#include <sstream>
#include <string>

namespace {

namespace fs = std::filesystem;
constexpr double pi = std::numbers::pi;

std::string number(double v) {
  char text[32];
  const auto end = std::to_chars(text, text + sizeof text, v).ptr;
  return std::string(text, end);
}

// Writes f0_eplane.csv, f0_hplane.csv and frequencies.csv for a sphere of radius a at
// wavenumber k; the RCS at angle `bump_deg` of the `bump_plane` cut is raised by `bump_db`.
fs::path write_cuts(const std::string& name, double a, double k, const std::string& bump_plane = "", int bump_deg = -1,
                    double bump_db = 0) {
  const fs::path dir = fs::path(::testing::TempDir()) / ("rtdg_rcs_compare_" + name) / "farfield";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const auto mie = rtdg::dg::mie::pec_coefficients(k * a);
  for (const std::string plane : {"eplane", "hplane"}) {
    std::ofstream out(dir / ("f0_" + plane + ".csv"));
    out << "angle_deg,x,y,z,rcs,rcs_dbsm\n";
    for (int i = 0; i <= 180; ++i) {
      const double t = i * pi / 180;
      // d = +x, p = +z: the E-plane is x-z, the H-plane x-y (d x p = -y).
      const double x = std::cos(t), y = plane == "eplane" ? 0.0 : -std::sin(t), z = plane == "eplane" ? std::sin(t) : 0.0;
      const auto r = rtdg::dg::mie::pec_bistatic(mie, t);
      double sigma = (plane == "eplane" ? r.eplane : r.hplane) * pi * a * a;
      if (plane == bump_plane && i == bump_deg) sigma *= std::pow(10.0, bump_db / 10);
      out << number(i) << "," << number(x) << "," << number(y) << "," << number(z) << "," << number(sigma) << ","
          << number(10 * std::log10(sigma)) << "\n";
    }
  }
  std::ofstream f(dir / "frequencies.csv");
  f << "index,frequency,omega,wavenumber,samples,window,incident_spectrum\n";
  f << "0," << number(k / (2 * pi)) << "," << number(k) << "," << number(k) << ",1000,5,0\n";
  return dir;
}

struct Result {
  int code = -1;
  std::string output;
};

Result run(const std::string& arguments) {
  // One log per test and call: ctest runs the tests of this file in parallel processes.
  static int calls = 0;
  const fs::path log = fs::path(::testing::TempDir()) /
                       ("rtdg_rcs_compare_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) +
                        "_" + std::to_string(++calls) + ".log");
  const std::string command = std::string(RTDG_RCS_COMPARE) + " " + arguments + " > " + log.string() + " 2>&1";
  const int status = std::system(command.c_str());
  Result r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream in(log);
  std::stringstream s;
  s << in.rdbuf();
  r.output = s.str();
  return r;
}

TEST(RcsCompare, TheMieSeriesItselfPasses) {
  const fs::path dir = write_cuts("exact", 0.5, 2.0);
  const Result r = run(dir.string() + " --radius 0.5");
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("ka = 1;"), std::string::npos) << r.output;  // the wavenumber from frequencies.csv
  EXPECT_NE(r.output.find("max error 0.0000 dB"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("monostatic (180 deg): run 3.63757, Mie 3.63757"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("PASS"), std::string::npos) << r.output;
}

TEST(RcsCompare, OneDecibelAtOneAngleIsFound) {
  const fs::path dir = write_cuts("bumped", 0.5, 2.0, "hplane", 73, 1.0);
  const Result r = run(dir.string() + " --radius 0.5");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(r.output.find("max error 1.0000 dB at 73 deg"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("FAIL"), std::string::npos) << r.output;
  // The E-plane is untouched and passes; the files can be named one by one, with a looser bound.
  const Result e = run("--eplane " + (dir / "f0_eplane.csv").string() + " --radius 0.5 --wavenumber 2");
  EXPECT_EQ(e.code, 0) << e.output;
  const Result loose = run(dir.string() + " --radius 0.5 --tolerance-db 1.01");
  EXPECT_EQ(loose.code, 0) << loose.output;
}

TEST(RcsCompare, AWrongRadiusOrMissingInputIsAnError) {
  const fs::path dir = write_cuts("radius", 0.5, 2.0);
  EXPECT_EQ(run(dir.string() + " --radius 0.6").code, 1);  // ka = 1.2: not the same curve
  EXPECT_EQ(run(dir.string()).code, 2);                     // no radius
  EXPECT_EQ(run((dir / "missing").string() + " --radius 0.5").code, 2);
}

}  // namespace
