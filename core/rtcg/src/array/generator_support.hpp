// Pieces the elementwise and reduction generators share. Private to src/array.
#pragma once

#include <rtcg/kernel_arguments.hpp>
#include <rtcg/source_writer.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace rtcg::detail {

// "// <label>: <first line>" then "//   <next line>" for each further line of `text`, so user
// text in a header comment can never end the comment.
void write_comment(SourceWriter& writer, std::string_view label, std::string_view text);

// Math functions (sqrt, fabs, fma, ...) for user snippets: built in on NVRTC, <math.h> on host.
void write_math_include(SourceWriter& writer);

// The user's preamble, line by line, between marker comments.
void write_preamble(SourceWriter& writer, std::string_view preamble);

// "RTCG_KERNEL(name)(const double* RTCG_RESTRICT x, double a, long long n)": the declared
// arguments (pointers marked restrict when asked) followed by the generator's own.
std::string kernel_header(std::string_view name, const std::vector<ArgumentDecl>& arguments, bool restrict_pointers,
                          const std::vector<std::string>& extra_parameters);

// A C++ literal for an unsigned count, e.g. "1024".
std::string literal(unsigned long long value);

}  // namespace rtcg::detail
