#include "functions.hpp"

#include <array>

namespace fluxes::detail {

namespace {
constexpr std::array<FunctionInfo, 19> functions = {{
    {"dot", Function::dot, 2, 2, "dot(a, b) of two vectors"},
    {"cross", Function::cross, 2, 2, "cross(a, b) of two 3D vectors"},
    {"norm", Function::norm, 1, 1, "norm(v) of a vector"},
    {"abs", Function::abs, 1, 1, "abs(s) of a scalar"},
    {"min", Function::min, 2, -1, "min(a, b, ...) of scalars"},
    {"max", Function::max, 2, -1, "max(a, b, ...) of scalars"},
    {"sqrt", Function::sqrt, 1, 1, "sqrt(s) of a scalar"},
    {"exp", Function::exp, 1, 1, "exp(s) of a scalar"},
    {"log", Function::log, 1, 1, "log(s) of a scalar"},
    {"sin", Function::sin, 1, 1, "sin(s) of a scalar"},
    {"cos", Function::cos, 1, 1, "cos(s) of a scalar"},
    {"tan", Function::tan, 1, 1, "tan(s) of a scalar"},
    {"atan2", Function::atan2, 2, 2, "atan2(y, x) of scalars"},
    {"pow", Function::pow, 2, 2, "pow(a, b) of scalars"},
    {"sign", Function::sign, 1, 1, "sign(s) of a scalar"},
    {"if", Function::if_, 3, 3, "if(condition, a, b)"},
    {"avg", Function::avg, 1, 1, "avg(u) on a face"},
    {"jump", Function::jump, 1, 1, "jump(u) on a face"},
    {"vec", Function::vec, 1, 3, "vec(a, b[, c]) with one scalar per dimension"},
}};
}  // namespace

const FunctionInfo* find_function(std::string_view name) {
  for (const auto& f : functions) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

std::string_view function_list() {
  return "dot, cross, norm, abs, min, max, sqrt, exp, log, sin, cos, tan, atan2, pow, sign, if, "
         "avg, jump, vec";
}

}  // namespace fluxes::detail
