// The flux language's functions: names, argument counts and signatures for messages.
#pragma once

#include <cstdint>
#include <string_view>

namespace fluxes::detail {

enum class Function : std::uint8_t {
  dot, cross, norm, abs, min, max, sqrt, exp, log, sin, cos, tan, atan2, pow, sign,
  if_, avg, jump, vec,
};

struct FunctionInfo {
  std::string_view name;
  Function id;
  int min_args;
  int max_args;              // -1: any number from min_args on
  std::string_view usage;    // for messages: "cross(a, b)"
};

// nullptr when `name` is not a function.
const FunctionInfo* find_function(std::string_view name);

// "dot, cross, norm, ..." for messages that list what is available.
std::string_view function_list();

}  // namespace fluxes::detail
