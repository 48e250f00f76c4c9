// compare_solutions a.h5 b.h5 tolerance: exits 0 when the two rtdg solution files hold the same
// fields, elements and order, and their values differ by at most tolerance x max |a| (0: bit
// for bit); prints the largest difference. For the MPI tests (tests/apps/run/mpi_run.sh).
#include <output/hdf5_solution.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: compare_solutions a.h5 b.h5 tolerance\n");
    return 2;
  }
  try {
    const rtdg::output::Solution a = rtdg::output::read_solution(argv[1]);
    const rtdg::output::Solution b = rtdg::output::read_solution(argv[2]);
    const double tolerance = std::stod(argv[3]);
    if (a.names != b.names || a.K != b.K || a.N != b.N || a.values.size() != b.values.size()) {
      std::fprintf(stderr, "%s and %s hold different fields, elements or orders\n", argv[1], argv[2]);
      return 1;
    }
    double scale = 0, worst = 0;
    for (std::size_t i = 0; i < a.values.size(); ++i) {
      scale = std::max(scale, std::abs(a.values[i]));
      const double d = std::abs(a.values[i] - b.values[i]);
      if (!(d <= worst)) worst = d;  // NaN sticks
    }
    std::printf("%s vs %s: max |difference| %.3e (max |value| %.3e, t = %.17g and %.17g)\n", argv[1], argv[2], worst, scale,
                a.time, b.time);
    return worst <= tolerance * scale && a.time == b.time ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "compare_solutions: %s\n", e.what());
    return 2;
  }
}
