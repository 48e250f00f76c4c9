// The arithmetic of each DAG operation on doubles: one definition shared by constant folding
// and the interpreter, so both compute what the C emitter's code computes in double.
#pragma once

#include "fluxes/dag.hpp"

#include <cmath>

namespace fluxes::detail {

inline double apply_op(Op op, double a, double b, double c) {
  switch (op) {
    case Op::negate: return -a;
    case Op::abs: return std::fabs(a);
    case Op::sqrt: return std::sqrt(a);
    case Op::exp: return std::exp(a);
    case Op::log: return std::log(a);
    case Op::sin: return std::sin(a);
    case Op::cos: return std::cos(a);
    case Op::tan: return std::tan(a);
    case Op::add: return a + b;
    case Op::subtract: return a - b;
    case Op::multiply: return a * b;
    case Op::divide: return a / b;
    case Op::pow: return std::pow(a, b);
    case Op::atan2: return std::atan2(a, b);
    case Op::min: return std::fmin(a, b);
    case Op::max: return std::fmax(a, b);
    case Op::less: return a < b ? 1.0 : 0.0;
    case Op::less_equal: return a <= b ? 1.0 : 0.0;
    case Op::equal: return a == b ? 1.0 : 0.0;
    case Op::not_equal: return a != b ? 1.0 : 0.0;
    case Op::select: return a != 0.0 ? b : c;
    case Op::constant:
    case Op::input: break;
  }
  return 0.0;
}

}  // namespace fluxes::detail
