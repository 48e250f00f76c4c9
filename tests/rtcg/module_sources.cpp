#include "module_sources.hpp"

namespace rtcg_test {

rtcg::Program axpy_program(const std::string& name) {
  rtcg::Program program;
  program.name = name;
  program.source =
      "RTCG_KERNEL(axpy)(double* RTCG_RESTRICT y, const double* RTCG_RESTRICT x, double a, long long n) {\n"
      "  RTCG_GLOBAL_LOOP(i, n) { y[i] = a * x[i] + y[i]; }\n"
      "}\n";
  return program;
}

rtcg::Program broken_program() {
  rtcg::Program program;
  program.name = "broken";
  program.source =
      "RTCG_KERNEL(broken)(float* y, int n) {\n"
      "  RTCG_GLOBAL_LOOP(i, n) {\n"
      "    y[i] = undefined_variable * 2.0f;\n"
      "  }\n"
      "}\n";
  return program;
}

rtcg::Program template_program() {
  rtcg::Program program;
  program.name = "scale_template";
  program.extern_c = false;
  program.source =
      "template <class T, int Factor>\n"
      "RTCG_KERNEL(scale)(T* y, long long n) {\n"
      "  RTCG_GLOBAL_LOOP(i, n) { y[i] = y[i] * T(Factor); }\n"
      "}\n";
  program.name_expressions = {"scale<float, 3>"};
  return program;
}

}  // namespace rtcg_test
