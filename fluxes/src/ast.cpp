#include "fluxes/ast.hpp"

#include <bit>
#include <cstdint>

namespace fluxes {

bool same_structure(const Expr& a, const Expr& b) {
  if (a.kind != b.kind || a.args.size() != b.args.size()) return false;
  switch (a.kind) {
    case ExprKind::number:
      // Bitwise, so 0.0 and -0.0 differ, as they would in generated code.
      if (std::bit_cast<std::uint64_t>(a.number) != std::bit_cast<std::uint64_t>(b.number)) return false;
      break;
    case ExprKind::name:
    case ExprKind::call:
      if (a.name != b.name) return false;
      break;
    case ExprKind::trace:
      if (a.name != b.name || a.side != b.side) return false;
      break;
    case ExprKind::component:
      if (a.component != b.component) return false;
      break;
    case ExprKind::binary:
      if (a.binary != b.binary) return false;
      break;
    case ExprKind::compare:
      if (a.compare != b.compare) return false;
      break;
    case ExprKind::negate:
      break;
  }
  for (std::size_t i = 0; i < a.args.size(); ++i) {
    if (!same_structure(*a.args[i], *b.args[i])) return false;
  }
  return true;
}

}  // namespace fluxes
