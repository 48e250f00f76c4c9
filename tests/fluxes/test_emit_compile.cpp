// The emitted C compiled for real: one compile of a small program (the kernels as C99 and,
// included again, as C++), run on random states and compared with the hand-written Maxwell
// formulas: 1e-14 in double, 1e-5 in float. -Wdouble-promotion -Wconversion -Werror prove the
// float code never computes in double.
#include "helpers.hpp"
#include "reference.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace fluxes::test {
namespace {

namespace fs = std::filesystem;

std::string kernel(const std::string& name, const Lowered& lowered, ScalarType scalar, bool with_params) {
  const std::string T = c_type(scalar);
  EmitOptions options;
  options.scalar = scalar;
  options.indent = "  ";
  std::string text = "void " + name + "(const " + T + "* qM, const " + T + "* qP, const " + T + "* n, " +
                     (with_params ? "const " + T + "* param, " : std::string()) + T + "* out) {\n";
  text += emit_c(lowered.dag, lowered.outputs, report_naming(), options).code;
  return text + "}\n";
}

std::string slurp(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

constexpr int cases = 200;

TEST(EmitCompile, MaxwellFluxCompiledAsCAndCxxMatchesTheHandWrittenFormula) {
  const fs::path dir = fs::temp_directory_path() / ("rtdg-fluxes-test-" + std::to_string(::getpid()));
  fs::create_directories(dir);

  // The law file's flux with eps and mu overridden, alpha = 0.7 (all constant: baked).
  const Law law = read_law(law_path("maxwell3d.toml"));
  const double eps = 2.25, mu = 0.8, alpha = 0.7;
  const std::vector<double> params = resolve_parameters(law, {{"eps", eps, {}}, {"mu", mu, {}}, {"alpha", alpha, {}}});
  const Lowered flux = lower_flux_difference(law, params);
  // hedge's slide expression as written, with alpha read at run time.
  const Environment env = maxwell_env(3);
  LoweredExpr slide = lower_text("1/2*cross(normal, h.int-h.ext - alpha*cross(normal, e.int-e.ext))", env, Where::face,
                                 {std::nullopt});
  const Lowered slide_lowered{std::move(slide.dag), slide.outputs};

  std::ofstream(dir / "kernels.h") << kernel("maxwell_double", flux, ScalarType::float64, false)
                                   << kernel("maxwell_float", flux, ScalarType::float32, false)
                                   << kernel("slide_double", slide_lowered, ScalarType::float64, true);
  std::ofstream(dir / "kernels.c") << "#include <math.h>\n#include \"kernels.h\"\n";
  std::ofstream(dir / "main.cpp") << R"law(#include <math.h>
#include <cstdio>
namespace as_cxx {
#include "kernels.h"
}
extern "C" {
void maxwell_double(const double*, const double*, const double*, double*);
void maxwell_float(const float*, const float*, const float*, float*);
void slide_double(const double*, const double*, const double*, const double*, double*);
}
int main() {
  int cases = 0;
  if (std::scanf("%d", &cases) != 1) return 2;
  for (int c = 0; c < cases; ++c) {
    double in[16];
    for (double& v : in) if (std::scanf("%lf", &v) != 1) return 3;
    float fin[16];
    for (int i = 0; i < 16; ++i) fin[i] = static_cast<float>(in[i]);
    double a[6], b[6], s[3];
    float f[6];
    maxwell_double(in, in + 6, in + 12, a);
    as_cxx::maxwell_double(in, in + 6, in + 12, b);
    maxwell_float(fin, fin + 6, fin + 12, f);
    slide_double(in, in + 6, in + 12, in + 15, s);
    for (int i = 0; i < 6; ++i) std::printf("%.17g %.17g %.9g\n", a[i], b[i], static_cast<double>(f[i]));
    for (int i = 0; i < 3; ++i) std::printf("%.17g\n", s[i]);
  }
  return 0;
}
)law";
  Random random;
  std::vector<std::array<double, 16>> inputs(cases);
  std::ofstream input(dir / "input.txt");
  input << cases << "\n";
  for (auto& in : inputs) {
    for (int i = 0; i < 12; ++i) in[static_cast<std::size_t>(i)] = random.uniform();
    const std::vector<double> n = random.unit(3);
    in[12] = n[0];
    in[13] = n[1];
    in[14] = n[2];
    in[15] = 0.5 * (random.uniform() + 1.0);  // the slide's alpha
    input.precision(17);
    for (double v : in) input << v << " ";
    input << "\n";
  }
  input.close();

  // The kernels as C99 (an object), then again as C++ inside main.cpp; one shell command.
  const std::string flags = " -O1 -Wall -Wextra -Wshadow -Wconversion -Wdouble-promotion -Werror -I" + dir.string();
  const std::string cxx = RTDG_TEST_CXX;
  const std::string compile = "(" + cxx + flags + " -x c -std=c99 -c " + (dir / "kernels.c").string() + " -o " +
                              (dir / "kernels.o").string() + " && " + cxx + flags + " -std=c++17 " +
                              (dir / "main.cpp").string() + " " + (dir / "kernels.o").string() + " -o " +
                              (dir / "prog").string() + " -lm) > " + (dir / "compile.log").string() + " 2>&1";
  ASSERT_EQ(std::system(compile.c_str()), 0) << compile << "\n" << slurp(dir / "compile.log") << "\n"
                                             << slurp(dir / "kernels.h");
  const std::string run = (dir / "prog").string() + " < " + (dir / "input.txt").string() + " > " + (dir / "output.txt").string();
  ASSERT_EQ(std::system(run.c_str()), 0) << run;

  std::ifstream output(dir / "output.txt");
  // The same flux through the interpreter, as a third opinion.
  for (const auto& in : inputs) {
    const std::array<double, 6> expected = reference::maxwell3d(in.data(), in.data() + 6, in.data() + 12, eps, mu, alpha);
    Inputs values;
    for (std::uint32_t k = 0; k < 6; ++k) {
      values(InputKind::state, k) = in[k];
      values(InputKind::exterior, k) = in[k + 6];
    }
    for (std::uint32_t d = 0; d < 3; ++d) values(InputKind::normal, d) = in[12 + d];
    values(InputKind::parameter, 0) = in[15];
    const std::vector<double> interpreted = evaluate(flux.dag, flux.outputs, values.function());
    for (std::size_t i = 0; i < 6; ++i) {
      double c_value = 0.0, cxx_value = 0.0, float_value = 0.0;
      ASSERT_TRUE(output >> c_value >> cxx_value >> float_value);
      expect_close(c_value, expected[i], 1e-14, "C double, component " + std::to_string(i));
      expect_close(cxx_value, expected[i], 1e-14, "C++ double, component " + std::to_string(i));
      expect_close(interpreted[i], expected[i], 1e-14, "interpreter, component " + std::to_string(i));
      expect_close(float_value, expected[i], 1e-5, "C float, component " + std::to_string(i));
    }
    // The slide's expression is the negative of the E flux (eps = mu = 1) with its alpha.
    const std::array<double, 6> unit = reference::maxwell3d(in.data(), in.data() + 6, in.data() + 12, 1.0, 1.0, in[15]);
    for (std::size_t i = 0; i < 3; ++i) {
      double s = 0.0;
      ASSERT_TRUE(output >> s);
      expect_close(s, -unit[i], 1e-14, "slide expression, component " + std::to_string(i));
    }
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace fluxes::test
