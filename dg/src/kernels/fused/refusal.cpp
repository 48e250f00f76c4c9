// The plans the fused stage kernel does not take (fused_plan_refusal, kernels/families.hpp):
// every refusal of the family in one place, in the order the generator met them, so that a
// plan that breaks several rules is told the first.
#include "kernels/fused/fused.hpp"

namespace rtdg::dg::kernels {

namespace {

// The rules on plan values alone (ranges, and values that do not go together), before any
// layout is computed.
std::string value_refusal(const KernelSpec& spec) {
  const Element& element = *spec.element;
  const Plan& plan = spec.plan;
  const bool tensor = plan.products != Products::scalar;
  const bool by_state = plan.derivative == Derivative::state;
  if (plan.nodes_per_thread < 1 || plan.nodes_per_thread > 8)
    return "the plan's nodes_per_thread must be 1 to 8, got " + std::to_string(plan.nodes_per_thread);
  if (plan.tile_rows != 8 && plan.tile_rows != 16)
    return "the plan's tile_rows must be 8 or 16, got " + std::to_string(plan.tile_rows);
  if (plan.groups_per_block < 1 || plan.groups_per_block > max_groups_per_block)
    return "the plan's groups_per_block must be 1 to " + std::to_string(max_groups_per_block) + ", got " +
           std::to_string(plan.groups_per_block);
  if (plan.teams < 1 || plan.teams > max_teams)
    return "the plan's teams must be 1 to " + std::to_string(max_teams) + ", got " + std::to_string(plan.teams);
  if (!valid_register_cap(plan.max_registers))
    return "the plan's max_registers must be 0 or " + std::to_string(min_register_cap) + " to " +
           std::to_string(max_register_cap) + ", got " + std::to_string(plan.max_registers);
  // CUDA does not take __maxnreg__ together with the launch bounds that teams need.
  if (plan.max_registers != 0 && plan.teams != 1)
    return "the plan does not fit: max_registers caps the registers of a one-team kernel (teams = 1); with " +
           std::to_string(plan.teams) + " teams the kernel has launch bounds, which CUDA does not combine with "
           "a register cap";
  if (plan.prefetch == Prefetch::async && (plan.groups_per_block != 1 || plan.teams != 1))
    return "the plan does not fit: prefetch = async is for one element group per block and one team (got " +
           std::to_string(plan.groups_per_block) + " groups and " + std::to_string(plan.teams) +
           " teams); use prefetch = on";
  if (plan.geometry == GeometryPlace::shared && plan.prefetch != Prefetch::async)
    return "the plan does not fit: geometry = shared is copied in the load phase of prefetch = async; use "
           "prefetch = async or geometry = global";
  if (plan.tile_rows != 8 && !tensor)
    return "the plan does not fit: 16-row tiles are for tensor-core products (products = tensor)";
  const bool single = spec.scalar == fluxes::ScalarType::float32;
  const bool tf32 = plan.products == Products::tf32x3;
  if (tf32 && !single)
    return "the plan does not fit: TF32 tensor products (products = tf32x3) are for float; double plans use "
           "products = tensor";
  if (tf32 && plan.tile_rows != 16 && plan.tiles != Tiles::columns)
    return "the plan does not fit: TF32 tensor products (products = tf32x3) take 16-row tiles (tile_rows = 16) "
           "or column tiles (tiles = columns)";
  if (plan.row_tiles < 1 || plan.row_tiles > max_row_tiles)
    return "the plan's row_tiles must be 1 to " + std::to_string(max_row_tiles) + ", got " +
           std::to_string(plan.row_tiles);
  if (plan.row_tiles != 1 && !tensor)
    return "the plan does not fit: row tiles per warp item (row_tiles > 1) are for tensor-core products "
           "(products = tensor or tf32x3)";
  if (plan.k_unroll < 0 || plan.k_unroll > max_k_unroll)
    return "the plan's k_unroll must be 0 (all) to " + std::to_string(max_k_unroll) + ", got " +
           std::to_string(plan.k_unroll);
  if (plan.k_unroll != 0 && !tensor)
    return "the plan does not fit: unrolling the k loop by a set count (k_unroll) is for tensor-core products "
           "(products = tensor or tf32x3)";
  if (plan.k_ahead < 0 || plan.k_ahead > max_k_ahead)
    return "the plan's k_ahead must be 0 to " + std::to_string(max_k_ahead) + ", got " + std::to_string(plan.k_ahead);
  if (plan.k_ahead != 0 && plan.products != Products::tensor)
    return "the plan does not fit: loading k steps ahead (k_ahead) is for FP64 tensor-core products "
           "(products = tensor)";
  if (plan.k_ahead != 0 && plan.k_unroll == 0)
    return "the plan does not fit: loading k steps ahead (k_ahead) is for k loops unrolled a set count (k_unroll > 0); "
           "a fully unrolled loop's loads are placed by the compiler";
  if (tensor && plan.nodes_per_thread != 1)
    return "the plan does not fit: tensor-core products compute one node per thread (nodes_per_thread = 1)";
  const bool columns = plan.tiles == Tiles::columns;
  if (columns && !tensor)
    return "the plan does not fit: column tiles (tiles = columns) are for tensor-core products (products = "
           "tensor or tf32x3)";
  if (columns && plan.tile_rows != 8)
    return "the plan does not fit: column tiles (tiles = columns) take 8 operator rows per tile (tile_rows = 8); "
           "the 16 rows of their mma are the block's columns";
  if (columns && plan.k_ahead != 0)
    return "the plan does not fit: column tiles (tiles = columns) load no k step ahead (k_ahead = 0)";
  const bool stencil = plan.operators == Operators::stencil;
  if (stencil && (plan.basis != Basis::bernstein || !by_state))
    return "the plan does not fit: operators = stencil differentiates the state in the Bernstein basis "
           "(basis = bernstein, derivative = state)";
  if (stencil && element.Np > fused::max_stencil_nodes)
    return "the plan does not fit: operators = stencil indexes the lattice in bytes, at most " +
           std::to_string(fused::max_stencil_nodes) + " nodes per element (order 9 on tetrahedra, 21 on triangles), not " +
           std::to_string(element.Np);
  return {};
}

// The rules of the by-column products, the face shares and the late update input.
std::string by_column_refusal(const KernelSpec& spec) {
  const Element& element = *spec.element;
  const Plan& plan = spec.plan;
  const bool tensor = plan.products != Products::scalar;
  const bool by_state = plan.derivative == Derivative::state;
  const bool stencil = plan.operators == Operators::stencil;
  const bool by_column = plan.operators == Operators::constant || plan.operators == Operators::literals || stencil;
  if (plan.face_threads != 1 && plan.face_threads != 2 && plan.face_threads != 4)
    return "the plan's face_threads must be 1, 2 or 4, got " + std::to_string(plan.face_threads);
  if (plan.face_threads > 1 && !(by_column && by_state && plan.basis == Basis::bernstein && !tensor))
    return "the plan does not fit: face_threads > 1 shares the faces of the layered LIFT, which Bernstein plans by "
           "column of the state derivative have (basis = bernstein, operators = constant, literals or stencil, "
           "derivative = state)";
  if (plan.face_threads > element.Nfaces)
    return "the plan does not fit: face_threads = " + std::to_string(plan.face_threads) + " is more than the " +
           std::to_string(element.Nfaces) + " faces of the element";
  if (!plan.prefetch_update && !(plan.prefetch != Prefetch::off && (tensor || by_column)))
    return "the plan does not fit: prefetch_update = off reads the update input late instead of prefetching it, "
           "which only plans that prefetch (prefetch = on or async) and stage their products do (tensor products, "
           "or operators = constant, literals or stencil)";
  if (!by_column) return {};
  const std::string which = plan.operators == Operators::constant ? "constant" : stencil ? "stencil" : "literals";
  if (tensor)
    return "the plan does not fit: operators = " + which + " computes the products by column with FMAs "
           "(products = scalar); tensor-core products read their operators' fragments from global or shared memory";
  if (plan.nodes_per_thread != 1)
    return "the plan does not fit: operators = " + which + " computes the products by column, and the update "
           "one node per thread (nodes_per_thread = 1)";
  const long long bytes = operator_entries(element) * (spec.scalar == fluxes::ScalarType::float32 ? 4 : 8);
  if (plan.operators == Operators::constant && bytes > fused::max_constant_bytes)
    return "the plan does not fit: operators = constant needs " + std::to_string(bytes) +
           " bytes of constant memory for D and LIFT at order " + std::to_string(element.N) + ", more than " +
           std::to_string(fused::max_constant_bytes) + "; use operators = global or shared";
  const long long nonzeros = operator_nonzeros(element);
  if (plan.operators == Operators::literals && nonzeros > fused::max_literal_entries)
    return "the plan does not fit: operators = literals would write the " + std::to_string(nonzeros) +
           " non-zero entries of D and LIFT at order " + std::to_string(element.N) + " into the kernel, more than " +
           std::to_string(fused::max_literal_entries) + "; use operators = global, shared or constant";
  return {};
}

// The rules on the layout of a plan whose values passed: threads per block, held tiles, shared
// memory.
std::string layout_refusal(const KernelSpec& spec) {
  const Plan& plan = spec.plan;
  const fused::Scratch sc = fused::scratch_of(spec);
  if (sc.threads * sc.teams > 1024)
    return "the plan does not fit: " + std::to_string(sc.teams) + (sc.teams > 1 ? " teams of " : " team of ") +
           std::to_string(sc.ne) + " elements per block of " + std::to_string(sc.tpe) + " threads each (" +
           std::to_string(sc.threads) + " threads per team" + (sc.threads != sc.ne * sc.tpe ? ", whole warps" : "") +
           ") is more than 1024 threads per block";
  if (sc.split && (plan.products == Products::scalar || plan.derivative == Derivative::state))
    return "the plan does not fit: directions = split is for tensor-core products of the flux derivative "
           "(products = tensor, derivative = flux)";
  // Split directions hold each warp's output tiles in registers, at most 48 per thread.
  if (sc.split && !sc.held)
    return "the plan does not fit: directions = split holds each warp's output tiles in registers, and " +
           std::to_string(sc.ne) + " elements per block of " + std::to_string(sc.threads / 32) +
           " warps would need more than 48 accumulator registers per thread; use fewer elements per block";
  const std::size_t bytes = static_cast<std::size_t>(sc.block_total()) * static_cast<std::size_t>(real_bytes(spec.scalar));
  if (bytes > max_dynamic_shared_bytes)
    return "the plan does not fit: the fused stage kernel needs " + std::to_string(bytes) +
           " bytes of shared memory per block (" + (sc.teams > 1 ? std::to_string(sc.teams) + " teams of " : "") +
           std::to_string(sc.ne) + " elements of order " + std::to_string(spec.element->N) +
           (plan.operators == Operators::shared ? ", operators in shared memory" : "") +
           (plan.products != Products::scalar ? ", tensor products" : "") + "), more than " +
           std::to_string(max_dynamic_shared_bytes) +
           (sc.teams > 1 ? "; use fewer teams, fewer elements per block or operators in global memory"
                         : "; use fewer elements per block or operators in global memory");
  return {};
}

}  // namespace

std::string fused_plan_refusal(const KernelSpec& spec, const Pieces& pieces) {
  if (spec.plan.derivative == Derivative::state && !flux_is_linear(pieces.flux))
    return "the plan differentiates the state (derivative = state), which needs a volume flux linear in the "
           "state with constant coefficients; the law '" + spec.law->name + "' has a nonlinear or "
           "position-dependent flux: use derivative = flux";
  for (auto rule : {value_refusal, by_column_refusal, layout_refusal})
    if (std::string reason = rule(spec); !reason.empty()) return reason;
  return {};
}

}  // namespace rtdg::dg::kernels
