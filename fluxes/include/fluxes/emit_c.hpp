// Emitting a DAG as C statements, one `const T tN = ...;` per temporary, then one assignment
// per output. The caller decides how inputs and outputs are named (the DG kernel generator
// makes those names); the emitter makes the temporaries' names and formats the numbers. No
// text from a law file ever reaches the output: caller names are checked to be C access paths
// (identifiers, .member, ->member, [index] with an index of identifiers, integers and + - *),
// and numbers are formatted so they read back as exactly the folded double (or float).
//
// The code compiles as C99, C++ and CUDA C++ (NVRTC), in float or double: float literals
// carry an f suffix and math functions use their float spellings (sqrtf, fabsf, powf, ...),
// so float code never promotes to double. On the host it needs <math.h>.
#pragma once

#include "fluxes/dag.hpp"

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace fluxes {

enum class ScalarType : unsigned char { float32, float64 };

const char* c_type(ScalarType scalar);  // "float" or "double"

enum class Assign : unsigned char { set, add, subtract };  // =, +=, -=

struct CNaming {
  // The C lvalue or rvalue naming each input, e.g. state component 3 -> "qM[3]".
  std::function<std::string(const InputRef&)> input;
  // The C lvalue receiving output i, e.g. "flux[i]".
  std::function<std::string(std::size_t output)> output;
};

struct EmitOptions {
  ScalarType scalar = ScalarType::float64;
  std::string temporary_prefix = "t";  // temporaries are <prefix>0, <prefix>1, ...
  Assign assign = Assign::set;
  std::string indent;                  // put before every line (spaces or tabs only)
};

struct EmittedC {
  std::string code;            // the statements, one per line
  std::size_t temporaries = 0; // `const T tN = ...;` lines
};

// Throws std::invalid_argument when a caller name is not a C access path or clashes with the
// temporaries' names (a bug in the caller), and Error when a constant does not fit the scalar
// type (e.g. 1e300 in float).
EmittedC emit_c(const Dag& dag, const std::vector<NodeId>& outputs, const CNaming& naming,
                const EmitOptions& options = {});

// `value` as a C literal of the scalar type that reads back exactly: shortest round-trip
// digits (std::to_chars), ".0" added where needed, 'f' for float, parenthesised when negative.
std::string format_c_number(double value, ScalarType scalar);

bool is_c_identifier(std::string_view text);
// identifier { '.' identifier | '->' identifier | '[' index ']' }, where index is
// term { ('+' | '-' | '*') term } and term is an identifier or decimal digits; spaces are
// allowed inside brackets only.
bool is_c_access_path(std::string_view text);

}  // namespace fluxes
