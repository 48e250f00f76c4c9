// Kernel sources shared by the module tests of both backends.
#pragma once

#include <rtcg/program.hpp>

namespace rtcg_test {

// axpy in the portable dialect: y[i] = a*x[i] + y[i], i < n.
rtcg::Program axpy_program(const std::string& name = "axpy_test");
// A program with a syntax error on line 3 of its source.
rtcg::Program broken_program();
// A templated kernel looked up through a name expression (extern_c off).
rtcg::Program template_program();

}  // namespace rtcg_test
