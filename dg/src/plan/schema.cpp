// The plan schema (dg/plan_schema.hpp): the one table of plan values.
#include "dg/plan_schema.hpp"

#include <array>
#include <charconv>

namespace rtdg::dg {
namespace {

constexpr std::array<const char*, 2> fusion_names{"none", "stage"};
constexpr std::array<const char*, 2> layout_names{"field_major", "element_major"};
constexpr std::array<const char*, 5> operator_names{"global", "shared", "constant", "literals", "stencil"};
constexpr std::array<const char*, 2> derivative_names{"flux", "state"};
constexpr std::array<const char*, 3> product_names{"scalar", "tensor", "tf32x3"};
constexpr std::array<const char*, 3> prefetch_names{"off", "on", "async"};
constexpr std::array<const char*, 2> direction_names{"joint", "split"};
constexpr std::array<const char*, 2> geometry_names{"global", "shared"};
constexpr std::array<const char*, 2> connectivity_names{"nodes", "faces"};
constexpr std::array<const char*, 2> tile_names{"rows", "columns"};
constexpr std::array<const char*, 2> basis_names{"nodal", "bernstein"};

template <class E>
int as_int(E value) {
  return static_cast<int>(value);
}

template <std::size_t N, class E>
std::string name_in(const std::array<const char*, N>& names, E value) {
  return names[static_cast<std::size_t>(value)];
}

std::string count_or_auto(int n) { return n > 0 ? std::to_string(n) : std::string("auto"); }

bool eight_or_sixteen(int rows) { return rows == 8 || rows == 16; }
bool one_two_or_four(int threads) { return threads == 1 || threads == 2 || threads == 4; }
bool alignment(int bytes) { return valid_align(bytes); }
bool register_cap(int registers) { return valid_register_cap(registers); }

// Accessors as captureless lambdas: each entry reads and writes its own member.
#define RTDG_PLAN_ENUM(member, Type)                     \
  .get = [](const Plan& p) { return as_int(p.member); }, \
  .set = [](Plan& p, int v) { p.member = static_cast<Type>(v); }
#define RTDG_PLAN_INT(member) \
  .get = [](const Plan& p) { return p.member; }, .set = [](Plan& p, int v) { p.member = v; }
#define RTDG_PLAN_BOOL(member) \
  .get = [](const Plan& p) { return p.member ? 1 : 0; }, .set = [](Plan& p, int v) { p.member = v != 0; }

const std::array fields{
    PlanField{.key = "fusion", .kind = ValueKind::choice, .names = fusion_names, .default_value = 0, .required = true,
              .doc = "which kernels a Runge-Kutta stage launches: volume, surface and update kernels (none), or one "
                     "fused kernel per stage (stage)",
              RTDG_PLAN_ENUM(fusion, Fusion), .describe = [](const Plan&) { return std::string(); }},
    PlanField{.key = "layout", .kind = ValueKind::choice, .names = layout_names, .required = true,
              .space_alias = "layouts",
              .doc = "the state's order in memory: each component a K x Np block (field_major), or an element's "
                     "components together (element_major)",
              RTDG_PLAN_ENUM(layout, Layout),
              .describe = [](const Plan& p) { return name_in(layout_names, p.layout); }},
    PlanField{.key = "volume_elements", .kind = ValueKind::number, .low = 0, .high = 1024,
              .applies = Applies::unfused_plans, .required = true, .tuned = false,
              .doc = "elements per thread block of the volume kernel (0: about 128 threads)",
              RTDG_PLAN_INT(volume_elements_per_block),
              .describe = [](const Plan& p) { return "volume " + count_or_auto(p.volume_elements_per_block) + " elements/block"; }},
    PlanField{.key = "surface_elements", .kind = ValueKind::number, .low = 0, .high = 1024,
              .applies = Applies::unfused_plans, .required = true, .tuned = false,
              .doc = "elements per thread block of the surface kernel (0: about 128 threads)",
              RTDG_PLAN_INT(surface_elements_per_block),
              .describe = [](const Plan& p) { return "surface " + count_or_auto(p.surface_elements_per_block) + " elements/block"; }},
    PlanField{.key = "update_block", .kind = ValueKind::number, .low = 32, .high = 1024, .default_value = 256,
              .applies = Applies::unfused_plans, .required = true, .tuned = false,
              .doc = "threads per block of the Runge-Kutta update kernel",
              RTDG_PLAN_INT(update_block_size),
              .describe = [](const Plan& p) { return "update " + std::to_string(p.update_block_size) + " threads/block"; }},
    PlanField{.key = "elements", .kind = ValueKind::number, .low = 0, .high = 1024, .applies = Applies::fused_plans,
              .required = true,
              .doc = "elements per thread block of the stage kernel (per team; 0: about 128 threads)",
              RTDG_PLAN_INT(stage_elements_per_block),
              .describe = [](const Plan& p) { return count_or_auto(p.stage_elements_per_block) + " elements/block"; }},
    PlanField{.key = "nodes_per_thread", .kind = ValueKind::number, .low = 1, .high = 8, .default_value = 1,
              .applies = Applies::fused_plans, .required = true,
              .doc = "output nodes per thread: a thread computes nodes i, i + T, ... of its element (T = ceil(Np / n))",
              RTDG_PLAN_INT(nodes_per_thread),
              .describe = [](const Plan& p) { return std::to_string(p.nodes_per_thread) + " nodes/thread"; }},
    PlanField{.key = "operators", .kind = ValueKind::choice, .names = operator_names, .applies = Applies::fused_plans,
              .required = true,
              .doc = "where D and LIFT are read from: global memory, shared memory, constant memory by column, "
                     "literals in the code by column, or the Bernstein lattice stencil (no derivative product)",
              RTDG_PLAN_ENUM(operators, Operators),
              .describe = [](const Plan& p) { return "operators " + name_in(operator_names, p.operators); }},
    PlanField{.key = "derivative", .kind = ValueKind::choice, .names = derivative_names,
              .applies = Applies::fused_plans, .required = true, .space_alias = "derivatives",
              .doc = "what is differentiated: the metric-folded fluxes (every law), or the state (laws whose flux is "
                     "linear with constant coefficients)",
              RTDG_PLAN_ENUM(derivative, Derivative),
              .describe = [](const Plan& p) { return "derivative of the " + name_in(derivative_names, p.derivative); }},
    PlanField{.key = "products", .kind = ValueKind::choice, .names = product_names, .applies = Applies::fused_plans,
              .doc = "how operator products are computed: FMAs per thread, FP64 tensor cores (mma m8n8k4, "
                     "m16n8k4/k16 on sm_90), or TF32 tensor cores with split operands (float)",
              RTDG_PLAN_ENUM(products, Products), .describe = [](const Plan& p) {
                return std::string(p.products == Products::tensor   ? "tensor cores"
                                   : p.products == Products::tf32x3 ? "TF32 tensor cores (3 products)"
                                                                    : "");
              }},
    PlanField{.key = "prefetch", .kind = ValueKind::choice, .names = prefetch_names, .applies = Applies::fused_plans,
              .doc = "when global loads are issued: phase by phase (off), all at the start (on), or by cp.async into "
                     "shared memory (async, sm_80 and newer)",
              RTDG_PLAN_ENUM(prefetch, Prefetch), .describe = [](const Plan& p) {
                return std::string(p.prefetch == Prefetch::on ? "prefetch" : p.prefetch == Prefetch::async ? "prefetch async" : "");
              }},
    PlanField{.key = "tile_rows", .kind = ValueKind::number, .low = 8, .high = 16, .allowed = eight_or_sixteen,
              .allowed_text = "8 or 16", .default_value = 8, .applies = Applies::fused_plans,
              .doc = "tensor products: operator rows of a tile, 8 or 16 (16: m16n8k* on sm_90 and newer)",
              RTDG_PLAN_INT(tile_rows), .describe = [](const Plan& p) {
                return p.tile_rows != 8 ? std::to_string(p.tile_rows) + "-row tiles" : std::string();
              }},
    PlanField{.key = "directions", .kind = ValueKind::choice, .names = direction_names, .applies = Applies::fused_plans,
              .doc = "tensor products of the flux derivative: all directions in one product (joint), or one at a "
                     "time with a third of the shared memory (split)",
              RTDG_PLAN_ENUM(directions, Directions), .describe = [](const Plan& p) {
                return std::string(p.directions == Directions::split ? "directions split" : "");
              }},
    PlanField{.key = "row_tiles", .kind = ValueKind::number, .low = 1, .high = max_row_tiles, .default_value = 1,
              .applies = Applies::fused_plans,
              .doc = "tensor products: operator row tiles per warp item, each column fragment serving that many tiles",
              RTDG_PLAN_INT(row_tiles), .describe = [](const Plan& p) {
                return p.row_tiles != 1 ? std::to_string(p.row_tiles) + " row tiles/warp" : std::string();
              }},
    PlanField{.key = "k_unroll", .kind = ValueKind::number, .low = 1, .high = max_k_unroll, .zero_name = "all",
              .applies = Applies::fused_plans,
              .doc = "tensor products: k steps of a product's loop unrolled (all, or a count, which takes 16-row "
                     "tiles in k steps of 4 and fewer registers)",
              RTDG_PLAN_INT(k_unroll), .describe = [](const Plan& p) {
                return p.k_unroll != 0 ? "k unrolled " + std::to_string(p.k_unroll) + "x" : std::string();
              }},
    PlanField{.key = "k_ahead", .kind = ValueKind::number, .low = 0, .high = max_k_ahead,
              .applies = Applies::fused_plans,
              .doc = "tensor products with k_unroll > 0: k steps whose fragments are loaded ahead of their mma",
              RTDG_PLAN_INT(k_ahead), .describe = [](const Plan& p) {
                return p.k_ahead != 0 ? std::to_string(p.k_ahead) + " k step loaded ahead" : std::string();
              }},
    PlanField{.key = "groups", .kind = ValueKind::number, .low = 1, .high = max_groups_per_block, .default_value = 1,
              .applies = Applies::fused_plans,
              .doc = "element groups per block (per team), pipelined with prefetch, else in turn",
              RTDG_PLAN_INT(groups_per_block), .describe = [](const Plan& p) {
                if (p.groups_per_block == 1) return std::string();
                return std::to_string(p.groups_per_block) +
                       (p.prefetch != Prefetch::off ? " groups/block pipelined" : " groups/block in turn");
              }},
    PlanField{.key = "teams", .kind = ValueKind::number, .low = 1, .high = max_teams, .default_value = 1,
              .applies = Applies::fused_plans,
              .doc = "element groups a block computes side by side, each with its own scratch and named barrier",
              RTDG_PLAN_INT(teams), .describe = [](const Plan& p) {
                return p.teams != 1 ? std::to_string(p.teams) + " teams/block" : std::string();
              }},
    PlanField{.key = "geometry", .kind = ValueKind::choice, .names = geometry_names, .applies = Applies::fused_plans,
              .doc = "where the per-element geometry is read: global memory, or copied into shared memory by the "
                     "load phase (prefetch = async)",
              RTDG_PLAN_ENUM(geometry, GeometryPlace), .describe = [](const Plan& p) {
                return std::string(p.geometry == GeometryPlace::shared ? "geometry shared" : "");
              }},
    PlanField{.key = "connectivity", .kind = ValueKind::choice, .names = connectivity_names,
              .applies = Applies::fused_plans,
              .doc = "how the exterior trace is found: one index per face node (vmapP), or one word per face and a "
                     "table of face-node orders",
              RTDG_PLAN_ENUM(connectivity, Connectivity), .describe = [](const Plan& p) {
                return std::string(p.connectivity == Connectivity::faces ? "face connectivity" : "");
              }},
    PlanField{.key = "align", .kind = ValueKind::number, .low = 0, .high = max_align_bytes, .allowed = alignment,
              .allowed_text = "0 or a power of two from 8 to 128 (bytes)", .applies = Applies::fused_plans,
              .doc = "alignment in bytes of each (element, component) column of the state (0: Np reals apart)",
              RTDG_PLAN_INT(align), .describe = [](const Plan& p) {
                return p.align != 0 ? "columns aligned to " + std::to_string(p.align) + " bytes" : std::string();
              }},
    PlanField{.key = "tiles", .kind = ValueKind::choice, .names = tile_names, .applies = Applies::fused_plans,
              .doc = "tensor products: the mma's 16-row side takes operator rows (rows) or 16 of the block's columns "
                     "(columns, sm_90 and newer)",
              RTDG_PLAN_ENUM(tiles, Tiles), .describe = [](const Plan& p) {
                return std::string(p.tiles == Tiles::columns ? "column tiles" : "");
              }},
    PlanField{.key = "basis", .kind = ValueKind::choice, .names = basis_names, .written_when_set = true,
              .space_alias = "bases",
              .doc = "the basis the state is stored in: nodal values, or Bernstein-Bezier coefficients (sparse "
                     "operators; laws affine in the state, triangles and tetrahedra)",
              RTDG_PLAN_ENUM(basis, Basis), .describe = [](const Plan& p) {
                return std::string(p.basis == Basis::bernstein ? "Bernstein basis" : "");
              }},
    PlanField{.key = "face_threads", .kind = ValueKind::number, .low = 1, .high = 4, .allowed = one_two_or_four,
              .allowed_text = "1, 2 or 4", .default_value = 1, .written_when_set = true,
              .doc = "Bernstein plans with a layered LIFT: threads sharing a column's faces",
              RTDG_PLAN_INT(face_threads), .describe = [](const Plan& p) {
                return p.face_threads != 1 ? "faces on " + std::to_string(p.face_threads) + " threads/column" : std::string();
              }},
    PlanField{.key = "max_registers", .kind = ValueKind::number, .low = 0, .high = max_register_cap,
              .allowed = register_cap, .allowed_text = "0 or 32 to 255", .written_when_set = true,
              .doc = "fused one-team plans: a cap on the stage kernel's registers per thread (0: the compiler's choice)",
              RTDG_PLAN_INT(max_registers), .describe = [](const Plan& p) {
                return p.max_registers != 0 ? "at most " + std::to_string(p.max_registers) + " registers" : std::string();
              }},
    PlanField{.key = "prefetch_update", .kind = ValueKind::toggle, .default_value = 1, .written_when_set = true,
              .doc = "prefetching plans with staged products: load each thread's update input with the prefetch (on) "
                     "or as the update starts (off, fewer registers)",
              RTDG_PLAN_BOOL(prefetch_update), .describe = [](const Plan& p) {
                return std::string(!p.prefetch_update ? "update input read late" : "");
              }},
    PlanField{.key = "graph", .kind = ValueKind::toggle, .written_when_set = true,
              .doc = "launch a time step's kernels as one CUDA graph (serial runs on CUDA)",
              RTDG_PLAN_BOOL(graph), .describe = [](const Plan& p) {
                return std::string(p.graph ? "steps as CUDA graphs" : "");
              }},
};

#undef RTDG_PLAN_ENUM
#undef RTDG_PLAN_INT
#undef RTDG_PLAN_BOOL

std::string applies_text(Applies applies) {
  switch (applies) {
    case Applies::fused_plans: return "fused";
    case Applies::unfused_plans: return "unfused";
    default: return "every";
  }
}

}  // namespace

std::span<const PlanField> plan_fields() { return fields; }

const PlanField* find_plan_field(std::string_view key, bool space_names) {
  for (const PlanField& field : fields) {
    if (key == field.key) return &field;
    if (space_names && field.space_alias && key == field.space_alias) return &field;
  }
  return nullptr;
}

bool applies_to(const PlanField& field, const Plan& plan) {
  switch (field.applies) {
    case Applies::fused_plans: return plan.fusion == Fusion::stage;
    case Applies::unfused_plans: return plan.fusion != Fusion::stage;
    default: return true;
  }
}

std::string format_value(const PlanField& field, int value) {
  switch (field.kind) {
    case ValueKind::choice:
      return value >= 0 && static_cast<std::size_t>(value) < field.names.size() ? field.names[static_cast<std::size_t>(value)]
                                                                               : "?" + std::to_string(value);
    case ValueKind::toggle: return value ? "on" : "off";
    default: return value == 0 && field.zero_name ? std::string(field.zero_name) : std::to_string(value);
  }
}

std::optional<int> parse_value(const PlanField& field, std::string_view text) {
  switch (field.kind) {
    case ValueKind::choice:
      for (std::size_t i = 0; i < field.names.size(); ++i)
        if (text == field.names[i]) return static_cast<int>(i);
      return std::nullopt;
    case ValueKind::toggle:
      if (text == "on") return 1;
      if (text == "off") return 0;
      return std::nullopt;
    default: {
      if (field.zero_name && text == field.zero_name) return 0;
      int n = 0;
      const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), n);
      if (error != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
      if (n == 0 && field.zero_name) return std::nullopt;  // 0 is written by its name
      if (!value_refusal(field, n).empty()) return std::nullopt;
      return n;
    }
  }
}

std::string valid_values(const PlanField& field) {
  switch (field.kind) {
    case ValueKind::choice: {
      std::string out = "one of ";
      for (std::size_t i = 0; i < field.names.size(); ++i) out += (i ? ", " : "") + std::string(field.names[i]);
      return out;
    }
    case ValueKind::toggle: return "on or off";
    default: {
      if (field.allowed_text) return field.allowed_text;
      const std::string range = "a whole number in " + std::to_string(field.low) + ".." + std::to_string(field.high);
      return field.zero_name ? "'" + std::string(field.zero_name) + "' or " + range : range;
    }
  }
}

std::string value_refusal(const PlanField& field, int value) {
  bool ok = false;
  switch (field.kind) {
    case ValueKind::choice: ok = value >= 0 && static_cast<std::size_t>(value) < field.names.size(); break;
    case ValueKind::toggle: ok = value == 0 || value == 1; break;
    default:
      ok = (value == 0 && field.zero_name) ||
           (value >= field.low && value <= field.high && (!field.allowed || field.allowed(value)));
  }
  if (ok) return {};
  std::string valid = valid_values(field);
  if (field.kind == ValueKind::number && !field.allowed_text)
    valid = (field.zero_name ? "0 (" + std::string(field.zero_name) + ")" : std::to_string(field.low)) + " to " +
            std::to_string(field.high);
  return "the plan's " + std::string(field.key) + " must be " + valid + ", got " + std::to_string(value);
}

std::string plan_fields_markdown() {
  std::string out = "| value | values | default | plans | what it does |\n|---|---|---|---|---|\n";
  for (const PlanField& field : fields) {
    out += "| `" + std::string(field.key) + "` | " + valid_values(field) + " | `" + format_value(field, field.default_value) +
           "` | " + applies_text(field.applies) + " | " + field.doc + (field.tuned ? "" : " (not tuned)") + " |\n";
  }
  return out;
}

}  // namespace rtdg::dg
