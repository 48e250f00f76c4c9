// The DG plan tuning job (dg/tuning.hpp) on top of rtcg's tuner.
#include "dg/tuning.hpp"

#include "dg/error.hpp"
#include "dg/plan_schema.hpp"
#include "kernels/families.hpp"

#include <fluxes/law_lowering.hpp>
#include <rtcg/log.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <map>
#include <ostream>
#include <random>
#include <sstream>

namespace rtdg::dg {
namespace {

using rtcg::tune::Point;

bool is_single(const Solver& solver) { return solver.setup().scalar == fluxes::ScalarType::float32; }

std::string scalar_tag(const Solver& solver) { return is_single(solver) ? "f32" : "f64"; }

int stages_of(const Solver& solver) { return stages(solver.setup().integrator); }

// Threads per element of the fused kernel for `nodes_per_thread`.
int threads_per_element(int Np, int nodes_per_thread) { return (Np + nodes_per_thread - 1) / nodes_per_thread; }

// What the job's functions share: the solver (holding on the device the state every check
// starts from and the default plan's change of it over one step), and whether the next run
// starts from that state.
struct Context {
  Context() = default;
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;
  // The job is done when its last function goes: the device copies go with it.
  ~Context() {
    if (solver) solver->release_kept_state();
  }
  Solver* solver = nullptr;
  double t0 = 0;
  double dt = 0;
  double tolerance = 0;
  bool restore = false;
};

std::vector<double> starting_state(const Solver& solver) {
  try {
    std::vector<double> initial = solver.initial_values();
    const bool nonzero = std::any_of(initial.begin(), initial.end(), [](double v) { return v != 0.0; });
    const bool finite = std::all_of(initial.begin(), initial.end(), [](double v) { return std::isfinite(v); });
    if (nonzero && finite) return initial;
  } catch (const std::exception&) {
    // No initial condition: random values below.
  }
  std::mt19937_64 random(20261123);
  std::vector<double> values(solver.size());
  for (double& v : values) v = static_cast<double>(random() >> 11) * 0x1.0p-53 * 2.0 - 1.0;
  return values;
}

std::string plan_text(const Point& point) { return plan_of(point).describe(); }

// Whether the solver's law and run take Bernstein plans: the generator's checks (the element,
// the law's pieces) and no shock capturing (the solver's).
bool bernstein_possible(const Solver& solver) {
  if (solver.setup().stabilization.active()) return false;
  KernelSpec spec = solver.kernel_spec();
  spec.plan = Plan{};
  spec.plan.basis = Basis::bernstein;
  try {
    kernels::check_bernstein(spec, kernels::lower_pieces(spec));
  } catch (const Error&) {
    return false;
  }
  return true;
}

}  // namespace

PlanSpace PlanSpace::for_backend(rtcg::BackendKind kind) {
  PlanSpace space;
  if (kind == rtcg::BackendKind::host) {
    // On the host, elements per block and nodes per thread only reorder loops; the layout and
    // the fusion are what matter, and every variant is a C++ compile of a second or more.
    space.layouts = {Layout::field_major, Layout::element_major};
    space.elements_per_block = {1, 8};
    space.nodes_per_thread = {1};
    space.operators = {Operators::global};
    space.derivatives = {Derivative::flux, Derivative::state};
    space.products = {Products::scalar};
    space.prefetch = {Prefetch::off};
    space.geometry = {GeometryPlace::global};
    space.tile_rows = {8};
    space.directions = {Directions::joint};
    space.row_tiles = {1};
    space.k_unroll = {0};
    space.k_ahead = {0};
    space.groups_per_block = {1};
    space.tiles = {Tiles::rows};
    space.bases = {Basis::nodal};  // Bernstein plans need by-column operators, not in this space
    space.face_threads = {1};
    space.max_registers = {0};
    space.min_threads = 1;
  }
  return space;
}

namespace {

// The PlanSpace list of each tuned plan value, by its schema key: the one place that ties the
// struct's typed lists to the schema (a test checks that every tuned value has one).
struct SpaceList {
  const char* key;
  std::function<void(PlanSpace&, const std::vector<int>&)> set;
  std::function<std::vector<int>(const PlanSpace&)> get;
};

template <class T>
SpaceList bind(const char* key, std::vector<T> PlanSpace::*member) {
  return {key,
          [member](PlanSpace& space, const std::vector<int>& values) {
            std::vector<T>& list = space.*member;
            list.clear();
            for (const int v : values) list.push_back(static_cast<T>(v));
          },
          [member](const PlanSpace& space) {
            std::vector<int> out;
            for (const T& v : space.*member) out.push_back(static_cast<int>(v));
            return out;
          }};
}

const std::vector<SpaceList>& space_lists() {
  static const std::vector<SpaceList> lists{
      bind("layout", &PlanSpace::layouts),          bind("elements", &PlanSpace::elements_per_block),
      bind("nodes_per_thread", &PlanSpace::nodes_per_thread), bind("operators", &PlanSpace::operators),
      bind("derivative", &PlanSpace::derivatives),  bind("products", &PlanSpace::products),
      bind("prefetch", &PlanSpace::prefetch),       bind("tile_rows", &PlanSpace::tile_rows),
      bind("directions", &PlanSpace::directions),   bind("row_tiles", &PlanSpace::row_tiles),
      bind("k_unroll", &PlanSpace::k_unroll),       bind("k_ahead", &PlanSpace::k_ahead),
      bind("groups", &PlanSpace::groups_per_block), bind("teams", &PlanSpace::teams),
      bind("geometry", &PlanSpace::geometry),       bind("connectivity", &PlanSpace::connectivity),
      bind("align", &PlanSpace::align),             bind("tiles", &PlanSpace::tiles),
      bind("basis", &PlanSpace::bases),             bind("face_threads", &PlanSpace::face_threads),
      bind("max_registers", &PlanSpace::max_registers), bind("prefetch_update", &PlanSpace::prefetch_update),
      bind("graph", &PlanSpace::graph)};
  return lists;
}

const SpaceList* space_list(const std::string& key) {
  for (const SpaceList& list : space_lists())
    if (key == list.key) return &list;
  return nullptr;
}

}  // namespace

std::vector<std::string> space_list_keys() {
  std::vector<std::string> keys;
  for (const SpaceList& list : space_lists()) keys.emplace_back(list.key);
  return keys;
}

std::vector<int> space_values(const PlanSpace& space, const std::string& key) {
  const SpaceList* list = space_list(key);
  if (!list) throw Error("plan space: no list for '" + key + "'");
  return list->get(space);
}

void set_space_values(PlanSpace& space, const std::string& text) {
  const auto equals = text.find('=');
  if (equals == std::string::npos || equals == 0 || equals + 1 == text.size())
    throw Error("plan space '" + text + "': expected name=value,value,... (e.g. groups=1,2,4)");
  const std::string name = text.substr(0, equals);
  std::vector<std::string> values;
  std::stringstream list(text.substr(equals + 1));
  for (std::string value; std::getline(list, value, ',');) {
    if (value.empty()) throw Error("plan space '" + text + "': an empty value");
    values.push_back(value);
  }
  if (text.back() == ',') throw Error("plan space '" + text + "': an empty value");
  if (name == "prune") {
    if (values.size() != 1 || (values[0] != "on" && values[0] != "off"))
      throw Error("plan space '" + text + "': prune is on or off (one value)");
    space.prune = values[0] == "on";
    return;
  }
  const PlanField* field = find_plan_field(name, true);
  const SpaceList* target = field ? space_list(field->key) : nullptr;
  if (!target) {
    std::string valid;
    for (const SpaceList& l : space_lists()) {
      const PlanField* f = find_plan_field(l.key);
      valid += (valid.empty() ? "" : ", ") + std::string(f && f->space_alias ? f->space_alias : l.key);
    }
    throw Error("plan space '" + text + "': unknown name '" + name + "'; valid names: " + valid + ", prune");
  }
  // max_registers=auto derives caps from each compiled plan (PlanSpace::derived_register_caps);
  // numbers are caps tried on every fused plan.
  if (field->key == std::string_view("max_registers")) {
    space.derived_register_caps = std::erase(values, std::string("auto")) > 0;
    if (values.empty()) values.push_back("0");
  }
  std::vector<int> parsed;
  for (const std::string& value : values) {
    const std::optional<int> n = parse_value(*field, value);
    if (!n) {
      if (field->kind == ValueKind::choice) {
        std::string valid;
        for (const char* v : field->names) valid += (valid.empty() ? "" : ", ") + std::string(v);
        throw Error("plan space '" + text + "': unknown " + std::string(field->key) + " '" + value + "'; valid values: " + valid);
      }
      throw Error("plan space '" + text + "': " + name + " value '" + value + "' is not " + valid_values(*field));
    }
    parsed.push_back(*n);
  }
  target->set(space, parsed);
}

Point point_of(const Plan& plan) {
  Point point;
  for (const PlanField& f : plan_fields())
    if (f.tuned) point[f.key] = applies_to(f, plan) ? f.get(plan) : f.default_value;
  return point;
}

Plan plan_of(const Point& point) {
  Plan plan;
  // The schema's order puts fusion first, so whether a value applies is known when it is read.
  for (const PlanField& f : plan_fields()) {
    if (!f.tuned) continue;
    const auto it = point.find(f.key);
    if (it == point.end()) {
      // Points stored before a value existed have none: its default.
      if (f.required && applies_to(f, plan))
        throw Error(std::string("a DG plan point without '") + f.key + "': " + rtcg::tune::to_string(point));
      continue;
    }
    const bool fits_int = it->second >= std::numeric_limits<int>::min() && it->second <= std::numeric_limits<int>::max();
    const int value = fits_int ? static_cast<int>(it->second) : -1;
    const std::string refusal = value_refusal(f, value);
    if (!fits_int || !refusal.empty())
      throw Error("a DG plan point with " + std::string(f.key) + " = " + std::to_string(it->second) + " (" + f.key + " is " +
                  valid_values(f) + "): " + rtcg::tune::to_string(point));
    if (applies_to(f, plan)) f.set(plan, value);
  }
  return plan;
}

namespace {
// Whether steps as one CUDA graph can be tried at all: on CUDA, where the solver has no halo
// faces (a parallel step refuses them).
bool graph_possible(const Solver& solver) {
  return solver.backend().kind() == rtcg::BackendKind::cuda && solver.halo_transfer() == HaloTransfer::none;
}
// Whether the space's graph = on is tried on the sweep's winner only (PlanSpace::graph).
bool graph_on_winner_only(const Solver& solver, const PlanSpace& space) {
  return space.prune && pruning_rules().find("graph.winner_only", solver.backend().device_info()) && graph_possible(solver) && std::find(space.graph.begin(), space.graph.end(), true) != space.graph.end();
}
}  // namespace

rtcg::tune::SearchSpace plan_search_space(const Solver& solver, const PlanSpace& space) {
  const int Np = solver.discretization().element.Np;
  const bool linear = kernels::flux_is_linear(fluxes::lower_volume_flux(solver.law(), solver.setup().parameters));
  auto ints = [](const auto& values) {
    std::vector<std::int64_t> out;
    for (const auto& v : values) out.push_back(static_cast<std::int64_t>(v));
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  };
  // The default plan is the reference every variant is checked and timed against, so it stays
  // in the space whatever the lists say; constraints below keep the lists' meaning for the rest.
  const Point reference = point_of(Plan{});
  const std::int64_t reference_layout = reference.at("layout");
  std::vector<std::int64_t> fusion{0, 1};
  std::vector<std::int64_t> layouts = ints(space.layouts);
  const bool all_layouts_asked = std::find(layouts.begin(), layouts.end(), reference_layout) != layouts.end();
  if (!all_layouts_asked) layouts.insert(std::upper_bound(layouts.begin(), layouts.end(), reference_layout), reference_layout);
  std::vector<std::int64_t> elements = ints(space.elements_per_block);
  elements.insert(elements.begin(), 0);  // the unfused plans' placeholder
  std::vector<std::int64_t> derivative;
  for (Derivative d : space.derivatives)
    if (d == Derivative::flux || linear) derivative.push_back(static_cast<std::int64_t>(d));
  if (derivative.empty()) derivative.push_back(0);
  std::vector<std::int64_t> npt = ints(space.nodes_per_thread);
  std::vector<std::int64_t> operators = ints(space.operators);
  // TF32 products: float on CUDA devices of compute capability 8.0 and newer only.
  const rtcg::DeviceInfo device = solver.backend().device_info();
  const bool cuda = solver.backend().kind() == rtcg::BackendKind::cuda;
  const bool tf32 = cuda && is_single(solver) && device.compute_capability_major >= 8;
  std::vector<std::int64_t> products = ints(space.products);
  if (!tf32) std::erase(products, static_cast<std::int64_t>(Products::tf32x3));
  if (std::find(products.begin(), products.end(), 0) == products.end()) products.insert(products.begin(), 0);
  const bool any_tf32 = std::find(products.begin(), products.end(), 2) != products.end();
  std::vector<std::int64_t> prefetch = ints(space.prefetch);
  if (std::find(prefetch.begin(), prefetch.end(), 0) == prefetch.end()) prefetch.insert(prefetch.begin(), 0);
  // Prefetch async: cp.async on CUDA needs compute capability 8.0 (the host copies).
  if (cuda && device.compute_capability_major < 8) std::erase(prefetch, static_cast<std::int64_t>(Prefetch::async));
  // 16-row FP64 tiles differ from 8-row ones only where the generated code can use m16n8k* (sm_90+);
  // TF32 products always take 16-row tiles.
  const bool m16 = cuda && device.compute_capability_major >= 9 &&
                   std::find(space.tile_rows.begin(), space.tile_rows.end(), 16) != space.tile_rows.end();
  std::vector<std::int64_t> tile_rows{8};
  if (m16 || any_tf32) tile_rows.push_back(16);
  std::vector<std::int64_t> directions = ints(space.directions);
  if (std::find(directions.begin(), directions.end(), 0) == directions.end()) directions.insert(directions.begin(), 0);
  // Column tiles (m16n8k4 at the full rate) on sm_90 and newer only.
  std::vector<std::int64_t> tiles = ints(space.tiles);
  if (!cuda || device.compute_capability_major < 9) std::erase(tiles, static_cast<std::int64_t>(Tiles::columns));
  if (std::find(tiles.begin(), tiles.end(), 0) == tiles.end()) tiles.insert(tiles.begin(), 0);
  const bool columns = std::find(tiles.begin(), tiles.end(), 1) != tiles.end();
  std::vector<std::int64_t> row_tiles = ints(space.row_tiles);
  std::erase_if(row_tiles, [](std::int64_t r) { return r < 1 || r > max_row_tiles; });
  if (std::find(row_tiles.begin(), row_tiles.end(), 1) == row_tiles.end()) row_tiles.insert(row_tiles.begin(), 1);
  // Row tiles per item the space did not list, for column tiles only (2: see PlanSpace::tiles).
  const std::vector<std::int64_t> row_tiles_asked = row_tiles;
  if (columns && std::find(row_tiles.begin(), row_tiles.end(), 2) == row_tiles.end())
    row_tiles.insert(std::upper_bound(row_tiles.begin(), row_tiles.end(), 2), 2);
  std::vector<std::int64_t> k_unroll = ints(space.k_unroll);
  std::erase_if(k_unroll, [](std::int64_t u) { return u < 0 || u > max_k_unroll; });
  if (std::find(k_unroll.begin(), k_unroll.end(), 0) == k_unroll.end()) k_unroll.insert(k_unroll.begin(), 0);
  std::vector<std::int64_t> k_ahead = ints(space.k_ahead);
  std::erase_if(k_ahead, [](std::int64_t d) { return d < 0 || d > max_k_ahead; });
  if (std::find(k_ahead.begin(), k_ahead.end(), 0) == k_ahead.end()) k_ahead.insert(k_ahead.begin(), 0);
  // Pipelined element groups: cp.async on CUDA needs compute capability 8.0 (the host copies).
  std::vector<std::int64_t> groups = ints(space.groups_per_block);
  if (cuda && device.compute_capability_major < 8) groups = {1};
  std::erase_if(groups, [](std::int64_t g) { return g < 1 || g > max_groups_per_block; });
  if (std::find(groups.begin(), groups.end(), 1) == groups.end()) groups.insert(groups.begin(), 1);
  std::vector<std::int64_t> teams = ints(space.teams);
  std::erase_if(teams, [](std::int64_t t) { return t < 1 || t > max_teams; });
  if (std::find(teams.begin(), teams.end(), 1) == teams.end()) teams.insert(teams.begin(), 1);
  std::vector<std::int64_t> geometry = ints(space.geometry);
  if (std::find(geometry.begin(), geometry.end(), 0) == geometry.end()) geometry.insert(geometry.begin(), 0);
  std::vector<std::int64_t> connectivity = ints(space.connectivity);
  if (std::find(connectivity.begin(), connectivity.end(), 0) == connectivity.end())
    connectivity.insert(connectivity.begin(), 0);
  std::vector<std::int64_t> align = ints(space.align);
  std::erase_if(align, [](std::int64_t a) { return !valid_align(static_cast<int>(a)); });
  if (std::find(align.begin(), align.end(), 0) == align.end()) align.insert(align.begin(), 0);
  const int real_size = is_single(solver) ? 4 : 8;
  if (std::find(npt.begin(), npt.end(), 1) == npt.end()) npt.insert(npt.begin(), 1);
  if (std::find(operators.begin(), operators.end(), 0) == operators.end()) operators.insert(operators.begin(), 0);
  if (std::find(derivative.begin(), derivative.end(), 0) == derivative.end()) derivative.insert(derivative.begin(), 0);
  // Bernstein plans where the law and the run take them: the generator says (it checks the
  // element and the law's pieces; the solver refuses shock capturing).
  std::vector<std::int64_t> bases{0};
  const bool bernstein_asked = std::find(space.bases.begin(), space.bases.end(), Basis::bernstein) != space.bases.end();
  if (bernstein_asked && bernstein_possible(solver)) bases.push_back(static_cast<std::int64_t>(Basis::bernstein));
  std::vector<std::int64_t> face_threads = ints(space.face_threads);
  std::erase_if(face_threads, [](std::int64_t t) { return t != 1 && t != 2 && t != 4; });
  if (std::find(face_threads.begin(), face_threads.end(), 1) == face_threads.end()) face_threads.insert(face_threads.begin(), 1);
  // The default plan has no cap: 0 is always in the space.
  std::vector<std::int64_t> max_registers = ints(space.max_registers);
  std::erase_if(max_registers, [](std::int64_t r) { return !valid_register_cap(static_cast<int>(r)); });
  if (std::find(max_registers.begin(), max_registers.end(), 0) == max_registers.end())
    max_registers.insert(max_registers.begin(), 0);

  // The default plan reads its update input early (the value is moot there): 1 is always in the
  // space. Only CUDA code differs: the host's loop reads the update input where it is needed either way.
  std::vector<std::int64_t> prefetch_update = ints(space.prefetch_update);
  if (!cuda) prefetch_update.clear();
  if (std::find(prefetch_update.begin(), prefetch_update.end(), 1) == prefetch_update.end()) prefetch_update.push_back(1);
  // The default plan launches kernel by kernel: 0 is always in the space; graphs only where
  // possible, and with prune on the winner only (make_plan_job's refine), not in the space.
  std::vector<std::int64_t> graph = ints(space.graph);
  if (!graph_possible(solver) || graph_on_winner_only(solver, space)) graph.clear();
  if (std::find(graph.begin(), graph.end(), 0) == graph.end()) graph.insert(graph.begin(), 0);

  rtcg::tune::SearchSpace out;
  out.parameter("fusion", fusion)
      .parameter("layout", layouts)
      .parameter("elements", elements)
      .parameter("nodes_per_thread", npt)
      .parameter("operators", operators)
      .parameter("derivative", derivative)
      .parameter("products", products)
      .parameter("prefetch", prefetch)
      .parameter("tile_rows", tile_rows)
      .parameter("directions", directions)
      .parameter("row_tiles", row_tiles)
      .parameter("k_unroll", k_unroll)
      .parameter("k_ahead", k_ahead)
      .parameter("groups", groups)
      .parameter("teams", teams)
      .parameter("geometry", geometry)
      .parameter("connectivity", connectivity)
      .parameter("align", align)
      .parameter("tiles", tiles)
      .parameter("basis", bases)
      .parameter("face_threads", face_threads)
      .parameter("max_registers", max_registers)
      .parameter("prefetch_update", prefetch_update)
      .parameter("graph", graph);
  out.constraint("basis = bernstein: fused plans by column (operators constant, literals or stencil)",
                 {"basis", "fusion", "operators"},
                 [](const Point& p) { return p.at("basis") == 0 || (p.at("fusion") == 1 && p.at("operators") >= 2); });
  constexpr std::int64_t stencil = static_cast<std::int64_t>(Operators::stencil);
  const int faces = solver.discretization().element.Nfaces;
  out.constraint(
      "face_threads > 1: Bernstein plans by column of the state derivative (LIFT in layers), at most the "
      "element's faces",
      {"face_threads", "basis", "operators", "derivative"}, [faces](const Point& p) {
        return p.at("face_threads") == 1 || (p.at("basis") == 1 && p.at("operators") >= 2 && p.at("derivative") == 1 &&
                                             p.at("face_threads") <= faces);
      });
  out.constraint(
      "operators = stencil: Bernstein plans of the state derivative", {"operators", "basis", "derivative"},
      [](const Point& p) { return p.at("operators") != stencil || (p.at("basis") == 1 && p.at("derivative") == 1); });
  out.constraint("prefetch_update = off: fused plans that prefetch and stage their products (tensor products, or "
                 "operators constant, literals or stencil)",
                 {"prefetch_update", "fusion", "prefetch", "products", "operators"}, [](const Point& p) {
                   return p.at("prefetch_update") == 1 ||
                          (p.at("fusion") == 1 && p.at("prefetch") != 0 && (p.at("products") != 0 || p.at("operators") >= 2));
                 });
  out.constraint("max_registers > 0: fused plans of one team", {"max_registers", "fusion", "teams"},
                 [](const Point& p) { return p.at("max_registers") == 0 || (p.at("fusion") == 1 && p.at("teams") == 1); });
  const bool unfused = space.unfused;
  // Compares whole points (the reference): checked on whole points.
  out.constraint("the default plan's layout, or unfused plans, only where asked for (besides the default plan)",
                 [=](const Point& p) {
                   if (p == reference) return true;
                   if (p.at("fusion") == 0 && !unfused) return false;
                   return all_layouts_asked || p.at("layout") != reference_layout;
                 });
  out.constraint("unfused plans have no fused-kernel choices",
                 {"fusion", "elements", "nodes_per_thread", "operators", "derivative", "products", "prefetch",
                  "connectivity", "align"},
                 [](const Point& p) {
                   return p.at("fusion") == 1 ||
                          (p.at("elements") == 0 && p.at("nodes_per_thread") == 1 && p.at("operators") == 0 &&
                           p.at("derivative") == 0 && p.at("products") == 0 && p.at("prefetch") == 0 &&
                           p.at("connectivity") == 0 && p.at("align") == 0);
                 });
  out.constraint("operators in constant memory, as literals or by stencil: scalar products by column, one node per "
                 "thread",
                 {"operators", "products", "nodes_per_thread"}, [](const Point& p) {
                   return p.at("operators") < 2 || (p.at("products") == 0 && p.at("nodes_per_thread") == 1);
                 });
  out.constraint("tensor products: one node per thread", {"products", "nodes_per_thread"},
                 [](const Point& p) { return p.at("products") == 0 || p.at("nodes_per_thread") == 1; });
  // A block's copy of the fragments pays when several groups read it side by side (teams;
  // also in turn with groups > 1), and teams share nothing else: the two go together.
  out.constraint("tensor products: operators in shared memory with teams > 1 only, and teams > 1 with them only",
                 {"products", "operators", "teams"}, [](const Point& p) {
                   const bool shared_fragments = p.at("products") != 0 && p.at("operators") == 1;
                   return shared_fragments == (p.at("teams") > 1);
                 });
  out.constraint(
      "16-row tiles: tensor products only (FP64 on sm_90 and newer); TF32 products: 16-row tiles, or 8 "
      "with column tiles",
      {"products", "tile_rows", "tiles"}, [m16](const Point& p) {
        const std::int64_t kind = p.at("products"), rows = p.at("tile_rows");
        if (kind == 0) return rows == 8;
        if (kind == 2) return rows == 16 || p.at("tiles") == 1;
        return rows == 8 || m16;
      });
  out.constraint(
      "element groups per block > 1: fused plans that prefetch (pipelined), or teams sharing the "
      "operators (in turn)",
      {"groups", "fusion", "prefetch", "products", "operators"}, [](const Point& p) {
        return p.at("groups") == 1 ||
               (p.at("fusion") == 1 && (p.at("prefetch") == 1 || (p.at("products") != 0 && p.at("operators") == 1)));
      });
  out.constraint("prefetch async: one element group per block, one team", {"prefetch", "groups", "teams"},
                 [](const Point& p) { return p.at("prefetch") != 2 || (p.at("groups") == 1 && p.at("teams") == 1); });
  // Padding that leaves the node stride as it is (Np a multiple already) or as a smaller
  // alignment of the list has it would time the same kernels twice.
  out.constraint("align > 0: only where it changes the node stride, and differently from every smaller value",
                 {"align"}, [Np, real_size, align](const Point& p) {
                   const std::int64_t bytes = p.at("align");
                   if (bytes == 0) return true;
                   auto stride = [&](std::int64_t a) {
                     Plan fused;
                     fused.fusion = Fusion::stage;
                     fused.align = static_cast<int>(a);
                     return node_stride(fused, Np, real_size);
                   };
                   for (const std::int64_t smaller : align)
                     if (smaller < bytes && stride(smaller) == stride(bytes)) return false;
                   return true;
                 });
  out.constraint("geometry in shared memory: prefetch async only", {"geometry", "prefetch"},
                 [](const Point& p) { return p.at("geometry") == 0 || p.at("prefetch") == 2; });
  // More row tiles per item than the operator has (by tile rows) would only recompute the last.
  out.constraint("row tiles per warp item > 1: tensor products only, at most the operator's row tiles",
                 {"row_tiles", "products", "tile_rows"}, [Np](const Point& p) {
                   const std::int64_t mr = p.at("row_tiles");
                   return mr == 1 || (p.at("products") != 0 && mr <= (Np + p.at("tile_rows") - 1) / p.at("tile_rows"));
                 });
  out.constraint("column tiles: tensor products (FP64 or TF32) with tile_rows = 8 and no k step loaded ahead",
                 {"tiles", "products", "tile_rows", "k_ahead"}, [](const Point& p) {
                   return p.at("tiles") == 0 ||
                          (p.at("products") != 0 && p.at("tile_rows") == 8 && p.at("k_ahead") == 0);
                 });
  out.constraint("row tiles per warp item the space does not list: column tiles only", {"tiles", "row_tiles"},
                 [row_tiles_asked](const Point& p) {
                   return p.at("tiles") == 1 || std::find(row_tiles_asked.begin(), row_tiles_asked.end(),
                                                          p.at("row_tiles")) != row_tiles_asked.end();
                 });
  out.constraint("k steps unrolled (k_unroll > 0): tensor products only", {"k_unroll", "products"},
                 [](const Point& p) { return p.at("k_unroll") == 0 || p.at("products") != 0; });
  out.constraint("k steps loaded ahead (k_ahead > 0): FP64 tensor products with k_unroll > 0 only",
                 {"k_ahead", "products", "k_unroll"}, [](const Point& p) {
                   return p.at("k_ahead") == 0 || (p.at("products") == 1 && p.at("k_unroll") > 0);
                 });
  out.constraint(
      "directions split: tensor products of the flux derivative only", {"directions", "products", "derivative"},
      [](const Point& p) { return p.at("directions") == 0 || (p.at("products") != 0 && p.at("derivative") == 0); });
  const int min_threads = space.min_threads, max_threads = space.max_threads;
  out.constraint("fused: " + std::to_string(min_threads) + " <= threads per team <= " + std::to_string(max_threads) +
                     ", threads per block <= 1024, nodes per thread <= Np",
                 {"fusion", "nodes_per_thread", "elements", "products", "teams"}, [=](const Point& p) {
                   if (p.at("fusion") == 0) return true;
                   const int npt_value = static_cast<int>(p.at("nodes_per_thread"));
                   if (p.at("elements") == 0 || npt_value > Np) return false;
                   long long threads = p.at("elements") * threads_per_element(Np, npt_value);
                   // Whole warps: tensor products, and teams (dg::kernels' scratch layout).
                   if (p.at("products") != 0 || p.at("teams") > 1) threads = (threads + 31) / 32 * 32;
                   // A team's threads; the block's (teams of them) at most 1024.
                   return threads >= min_threads && threads <= max_threads && threads * p.at("teams") <= 1024;
                 });
  return out;
}

rtcg::tune::ProblemClass plan_problem(const Solver& solver) {
  const Discretization& disc = solver.discretization();
  rtcg::tune::ProblemClass problem;
  problem.kind = kernels::identifier_text(solver.law().name) + "/" + std::string(shape_name(disc.element.shape)) + "/N" +
                 std::to_string(disc.element.N) + "/" + scalar_tag(solver) + "/" + to_string(solver.setup().integrator);
  problem.size_class = disc.K > 1 ? static_cast<std::int64_t>(std::ceil(std::log2(static_cast<double>(disc.K)))) : 0;
  return problem;
}

double minimal_stage_bytes(const Solver& solver) {
  return 4.0 * static_cast<double>(solver.size()) * (is_single(solver) ? 4.0 : 8.0);
}

double useful_stage_flops(const Solver& solver) {
  const Element& e = solver.discretization().element;
  const double per_node = 2.0 * solver.components() * (e.dim * e.Np + e.Nfaces * e.Nfp);
  return per_node * static_cast<double>(solver.discretization().K) * e.Np;
}

int blocks_per_multiprocessor(const rtcg::DeviceInfo& device, int threads, std::size_t shared_bytes) {
  if (device.max_threads_per_multiprocessor <= 0 || device.max_blocks_per_multiprocessor <= 0 ||
      device.max_shared_memory_per_multiprocessor <= 0 || threads <= 0)
    return 0;
  int blocks = std::min(device.max_blocks_per_multiprocessor, device.max_threads_per_multiprocessor / threads);
  const std::size_t per_block = shared_bytes + static_cast<std::size_t>(std::max(0, device.reserved_shared_memory_per_block));
  if (shared_bytes > 0)
    blocks = std::min(blocks, static_cast<int>(static_cast<std::size_t>(device.max_shared_memory_per_multiprocessor) / per_block));
  return blocks;
}

std::vector<int> register_caps(const rtcg::DeviceInfo& device, const rtcg::tune::KernelUse& stage) {
  const int warp = device.warp_size > 0 ? device.warp_size : 32;
  if (device.registers_per_multiprocessor <= 0 || stage.registers <= 0 || stage.threads <= 0 ||
      stage.blocks_per_multiprocessor <= 0)
    return {};
  // What the threads, the shared memory and the block limit allow, registers aside.
  const int others = blocks_per_multiprocessor(device, stage.threads, stage.shared_bytes);
  const int warps = (stage.threads + warp - 1) / warp;
  std::vector<int> caps;
  for (int blocks = stage.blocks_per_multiprocessor + 1; blocks <= stage.blocks_per_multiprocessor + 2; ++blocks) {
    if (others > 0 && blocks > others) break;
    // Registers are allocated per warp in units of 256 (8 per thread).
    const int cap = std::min(max_register_cap, device.registers_per_multiprocessor / (blocks * warps * warp)) / 8 * 8;
    if (cap < min_derived_cap || cap >= stage.registers) break;
    caps.push_back(cap);
  }
  return caps;
}

namespace {

// "<what is dropped> (rule <name>: <finding>; <device>, <date>, <results file> at <commit>)": a
// pruned plan's status names the rule and the measurement it rests on.
std::string pruned_by(const PruningRule& rule, const std::string& what) {
  std::string evidence;
  for (const PruningRule::Evidence& e : rule.rests_on)
    evidence += (evidence.empty() ? "" : "; ") + e.device + ", " + e.date + ", " + e.results +
                (e.commit.empty() ? "" : " at " + e.commit);
  return what + " (rule " + rule.name + ": " + rule.finding + (evidence.empty() ? "" : "; " + evidence) + ")";
}

const PruningRule* rule(std::string_view name, const rtcg::DeviceInfo& device) { return pruning_rules().find(name, device); }

}  // namespace

std::string pipelining_pruned(const KernelSpec& spec, const rtcg::DeviceInfo& device) {
  if (spec.plan.fusion != Fusion::stage || spec.plan.groups_per_block <= 1) return {};
  if (!rule("pipelining.costs_blocks", device)) return {};
  return pipelining_pruned(spec, generate_kernels(spec), device);
}

std::string pipelining_pruned(const KernelSpec& spec, const GeneratedKernels& pipelined, const rtcg::DeviceInfo& device) {
  if (spec.plan.fusion != Fusion::stage || spec.plan.groups_per_block <= 1) return {};
  const PruningRule* r = rule("pipelining.costs_blocks", device);
  if (!r) return {};
  KernelSpec single = spec;
  single.plan.groups_per_block = 1;
  const GeneratedKernels one = generate_kernels(single);
  const int blocks_one = blocks_per_multiprocessor(device, one.stage_threads, one.stage_shared_bytes);
  const int blocks_pipelined = blocks_per_multiprocessor(device, pipelined.stage_threads, pipelined.stage_shared_bytes);
  if (blocks_one == 0 || blocks_pipelined >= blocks_one) return {};
  return pruned_by(*r, "pipelined groups would cost blocks per SM: " + std::to_string(blocks_pipelined) + " instead of " +
                           std::to_string(blocks_one) + " (" + std::to_string(pipelined.stage_shared_bytes) +
                           " instead of " + std::to_string(one.stage_shared_bytes) + " bytes of shared memory per block)");
}

std::string prefetch_pruned(const Plan& plan, const rtcg::DeviceInfo& device, bool async_tried) {
  if (!async_tried || plan.fusion != Fusion::stage) return {};
  if (plan.prefetch == Prefetch::off)
    if (const PruningRule* r = rule("prefetch.off_when_async", device))
      return pruned_by(*r, "prefetch = async (tried too) starts the same loads sooner");
  if (plan.prefetch == Prefetch::on && plan.products == Products::scalar && plan.groups_per_block == 1)
    if (const PruningRule* r = rule("prefetch.on_scalar_when_async", device))
      return pruned_by(*r, "scalar products: prefetch = async (tried too) starts the same loads sooner");
  return {};
}

std::string tiling_pruned(const Plan& plan, const rtcg::DeviceInfo& device, bool single) {
  if (plan.fusion != Fusion::stage || plan.products == Products::scalar) return {};
  const int elements = plan.stage_elements_per_block;  // 0: automatic
  auto outside = [&](const PruningRule& r) {
    return elements > 0 && (elements < r.parameter("min_elements") || elements > r.parameter("max_elements"));
  };
  // Column tiles, FP64 or TF32 (measured with FP64 column tiles in float).
  if (plan.tiles == Tiles::columns) {
    if (const PruningRule* r = rule("tiling.columns_double", device); r && !single)
      return pruned_by(*r, "column tiles in double");
    if (const PruningRule* r = rule("tiling.columns_one_row_tile", device); r && plan.row_tiles == 1)
      return pruned_by(*r, "column tiles with one operator row tile per warp item");
    if (const PruningRule* r = rule("tiling.columns_elements", device); r && outside(*r))
      return pruned_by(*r, "column tiles with " + std::to_string(elements) + " elements per block");
    if (const PruningRule* r = rule("tiling.columns_k_unroll", device); r && plan.k_unroll != 0)
      return pruned_by(*r, "column tiles with k steps unrolled a set count (k_unroll)");
  }
  // The rest was measured with FP64 tensor products only.
  if (plan.products != Products::tensor) return {};
  if (const PruningRule* r = rule("tiling.rows16_elements", device); r && plan.tile_rows == 16 && outside(*r))
    return pruned_by(*r, "16-row tiles with " + std::to_string(elements) + " elements per block");
  if (const PruningRule* r = rule("tiling.k_unroll", device);
      r && plan.k_unroll != 0 && (plan.tile_rows != 16 || plan.prefetch != Prefetch::async))
    return pruned_by(*r, "k steps unrolled a set count (k_unroll) other than with 16-row tiles and prefetch = async");
  if (const PruningRule* r = rule("tiling.k_ahead_flux", device);
      r && plan.k_ahead != 0 && plan.derivative != Derivative::state)
    return pruned_by(*r, "a k step loaded ahead (k_ahead) with the flux derivative");
  return {};
}

std::string basis_pruned(const Plan& plan, int order, int faces, const rtcg::DeviceInfo& device) {
  if (plan.basis != Basis::bernstein) return {};
  if (const PruningRule* r = rule("basis.not_stencil", device); r && plan.operators != Operators::stencil)
    return pruned_by(*r, "Bernstein plans other than the lattice stencil");
  if (const PruningRule* r = rule("basis.below_order", device); r && order < r->parameter("min_order"))
    return pruned_by(*r, "the Bernstein stencil below order " + std::to_string(static_cast<int>(r->parameter("min_order"))));
  const int most = faces >= 4 ? 4 : 2;  // face_threads is 1, 2 or 4, at most the element's faces
  if (const PruningRule* r = rule("basis.face_threads", device); r && plan.face_threads < most)
    return pruned_by(*r, "the layered LIFT's faces on fewer threads per column than " + std::to_string(most));
  if (const PruningRule* r = rule("basis.stencil_layout", device);
      r && (plan.layout != Layout::element_major || plan.geometry != GeometryPlace::global ||
            plan.prefetch != Prefetch::async))
    return pruned_by(*r, "stencil plans other than element-major with prefetch async and the geometry in global memory");
  return {};
}

std::string update_pruned(const Plan& plan, const rtcg::DeviceInfo& device) {
  if (plan.prefetch_update || plan.operators == Operators::stencil) return {};
  if (const PruningRule* r = rule("update.outside_stencil", device))
    return pruned_by(*r, "the update input read late (prefetch_update = off) outside the stencil plans; --space "
                         "prune=off tries it on every plan it fits");
  return {};
}

std::string operators_pruned(const Plan& plan, long long operator_nonzeros, const rtcg::DeviceInfo& device,
                             bool single) {
  if (plan.fusion != Fusion::stage) return {};
  if (plan.basis == Basis::bernstein && plan.operators == Operators::literals) return {};
  if (const PruningRule* r = rule("operators.constant", device); r && plan.operators == Operators::constant)
    return pruned_by(*r, "operators in constant memory; --space operators=constant tries them with prune=off");
  if (const PruningRule* r = rule("operators.literals_size", device); r && plan.operators == Operators::literals) {
    const double limit = r->parameter(single ? "max_nonzeros_float" : "max_nonzeros_double");
    if (static_cast<double>(operator_nonzeros) > limit)
      return pruned_by(*r, "operators as literals with " + std::to_string(operator_nonzeros) +
                               " non-zero entries of D and LIFT, more than " + std::to_string(static_cast<long long>(limit)) +
                               (single ? " in float" : " in double"));
  }
  return {};
}

PlanJob make_plan_job(Solver& solver, const PlanSpace& space) {
  auto context = std::make_shared<Context>();
  Context& ctx = *context;
  ctx.solver = &solver;
  ctx.tolerance = is_single(solver) ? 1e-4 : 1e-11;
  ctx.t0 = 0.5;
  solver.set_state(starting_state(solver));
  try {
    ctx.dt = solver.stable_dt(0.5);
  } catch (const Error&) {
    ctx.dt = 1e-3;
  }

  // The reference: the default plan's change of the state over one step, kept on the device
  // with the starting state (a variant is then reset and checked without the host).
  const Plan original = solver.setup().plan;
  solver.set_plan(Plan{});
  solver.keep_state();
  solver.step(ctx.t0, ctx.dt);
  solver.keep_change();
  solver.set_plan(original, Solver::StateOnReplan::discard);
  solver.restore_kept_state();

  PlanJob out;
  out.context = context;
  out.stages_per_step = stages_of(solver);
  out.minimal_bytes_per_stage = minimal_stage_bytes(solver);
  out.useful_flops_per_stage = useful_stage_flops(solver);

  rtcg::tune::Job& job = out.job;
  job.family = plan_family;
  job.problem = plan_problem(solver);
  job.template_hash = kernel_hash(solver.kernel_spec());
  job.space = plan_search_space(solver, space);
  job.default_point = point_of(Plan{});
  job.bytes_per_run = out.minimal_bytes_per_stage * out.stages_per_step;
  const KernelSpec base = solver.kernel_spec();
  const int K = solver.discretization().K;
  const bool ssp = solver.setup().integrator == Integrator::ssprk3;
  // Rules that drop a plan before it is compiled (PlanSpace::prune); only where the device
  // gives its occupancy limits, i.e. on CUDA.
  const rtcg::DeviceInfo device = solver.backend().device_info();
  const bool prune = space.prune;
  // The prefetch rule drops plans only in favour of async plans the sweep times too.
  const bool async_tried =
      std::find(space.prefetch.begin(), space.prefetch.end(), Prefetch::async) != space.prefetch.end();
  const bool single = is_single(solver);
  const long long nonzeros = operator_nonzeros(solver.discretization().element);
  const int order = solver.discretization().element.N;
  const int faces = solver.discretization().element.Nfaces;
  // Register caps derived from each compiled fused one-team plan without one (auto).
  if (space.derived_register_caps && device.registers_per_multiprocessor > 0)
    job.derive = [device](const Point& point, const std::vector<rtcg::tune::KernelUse>& uses) {
      std::vector<Point> capped_points;
      if (point.at("fusion") != 1 || point.at("teams") != 1 || point.at("max_registers") != 0) return capped_points;
      for (const rtcg::tune::KernelUse& use : uses) {
        if (use.kernel != "rtdg_stage_lserk" && use.kernel != "rtdg_stage_ssp") continue;
        for (const int cap : register_caps(device, use)) {
          Point capped = point;
          capped["max_registers"] = cap;
          capped_points.push_back(std::move(capped));
        }
      }
      return capped_points;
    };
  // Steps as one CUDA graph: the winner's plan, once more with graph on.
  if (graph_on_winner_only(solver, space)) {
    out.graph_on_winner = true;
    job.refine = [](const Point& winner) {
      std::vector<Point> as_graph;
      if (winner.at("graph") == 0) {
        as_graph.push_back(winner);
        as_graph.back()["graph"] = 1;
      }
      return as_graph;
    };
  }
  job.generate = [base, K, ssp, context, device, prune, async_tried, single, nonzeros, order, faces](const Point& point) {
    KernelSpec spec = base;
    spec.plan = plan_of(point);
    // Needs only the plan: before generating.
    if (prune)
      if (std::string why = prefetch_pruned(spec.plan, device, async_tried); !why.empty()) throw rtcg::tune::Pruned(why);
    if (prune)
      if (std::string why = tiling_pruned(spec.plan, device, single); !why.empty()) throw rtcg::tune::Pruned(why);
    if (prune)
      if (std::string why = operators_pruned(spec.plan, nonzeros, device, single); !why.empty()) throw rtcg::tune::Pruned(why);
    if (prune)
      if (std::string why = basis_pruned(spec.plan, order, faces, device); !why.empty()) throw rtcg::tune::Pruned(why);
    if (prune)
      if (std::string why = update_pruned(spec.plan, device); !why.empty()) throw rtcg::tune::Pruned(why);
    const GeneratedKernels kernels = generate_kernels(spec);
    if (prune)
      if (std::string why = pipelining_pruned(spec, kernels, device); !why.empty()) throw rtcg::tune::Pruned(why);
    rtcg::tune::Variant variant;
    variant.program.name = kernels.name;
    variant.program.source = kernels.source;
    if (spec.plan.max_registers != 0) variant.max_local_bytes = capped_local_bytes;
    auto grid = [K](int per_block) { return static_cast<unsigned>((K + per_block - 1) / per_block); };
    if (kernels.fusion == Fusion::stage) {
      rtcg::LaunchShape shape;
      shape.block = {static_cast<unsigned>(kernels.stage_threads), 1, 1};
      shape.grid = {static_cast<unsigned>(stage_blocks(K, kernels)), 1, 1};
      shape.shared_bytes = static_cast<unsigned>(kernels.stage_shared_bytes);
      variant.launches.emplace_back(ssp ? "rtdg_stage_ssp" : "rtdg_stage_lserk", shape);
    } else {
      rtcg::LaunchShape volume, surface;
      volume.block = {static_cast<unsigned>(kernels.volume_threads), static_cast<unsigned>(kernels.volume_elements_per_block), 1};
      volume.grid = {grid(kernels.volume_elements_per_block), 1, 1};
      surface.block = {static_cast<unsigned>(kernels.surface_threads), static_cast<unsigned>(kernels.surface_elements_per_block), 1};
      surface.grid = {grid(kernels.surface_elements_per_block), 1, 1};
      variant.launches.emplace_back("rtdg_volume", volume);
      variant.launches.emplace_back("rtdg_surface", surface);
    }
    // The variant's plan goes into the solver at its first run (the tuner's checked run,
    // before any timed one); every run is then one step. Only run() touches the solver:
    // generate() runs on several threads at once.
    const Plan plan = spec.plan;
    variant.run = [plan, context](const rtcg::Module&) {
      Solver& tried = *context->solver;
      if (context->restore) {
        tried.set_plan(plan, Solver::StateOnReplan::discard);
        tried.restore_kept_state();
        context->restore = false;
      } else {
        tried.set_plan(plan);
      }
      tried.step(context->t0, context->dt);
    };
    return variant;
  };
  // The next run starts from the kept state (restored after its plan is set, so a layout
  // change moves nothing through the host).
  job.reset = [context] { context->restore = true; };
  job.check = [context]() -> std::string {
    const Solver::ChangeDifference d = context->solver->compare_change();
    if (!std::isfinite(d.worst)) return "one step gives a non-finite value";
    if (d.worst <= context->tolerance * d.scale) return {};
    char text[200];
    std::snprintf(text, sizeof text, "one step differs from the default plan's by %.3g (relative %.3g > %.1g)", d.worst,
                  d.scale > 0 ? d.worst / d.scale : d.worst, context->tolerance);
    return text;
  };
  return out;
}

rtcg::tune::TimingOptions plan_timing_options(double budget_seconds) {
  rtcg::tune::TimingOptions options;
  options.time_budget_seconds = budget_seconds;
  options.max_local_bytes = 64;
  // A step of a large mesh is long and steady: few runs settle its median.
  options.warmup_runs = 1;
  options.min_runs = 3;
  options.max_runs = 8;
  return options;
}

double tune_budget_seconds() {
  const char* text = std::getenv("RTDG_TUNE_BUDGET");
  if (!text || !*text) return 60.0;
  char* end = nullptr;
  const double value = std::strtod(text, &end);
  if (end == text || *end != '\0' || !(value > 0) || !std::isfinite(value))
    throw Error(std::string("RTDG_TUNE_BUDGET='") + text + "' is not a positive number of seconds");
  return value;
}

PlanChoice choose_plan(Solver& solver, rtcg::tune::TuneMode mode, rtcg::tune::TuningDb& db, double budget_seconds,
                       const PlanSpace& space, std::ostream* log, const MeasuredTuning* measured) {
  PlanChoice choice;
  if (mode == rtcg::tune::TuneMode::off) {
    choice.source = "default (RTDG_TUNE=off)";
    solver.set_plan(choice.plan);
    return choice;
  }
  const auto device = rtcg::tune::DeviceFingerprint::of(solver.backend());
  const std::string hash = kernel_hash(solver.kernel_spec());
  const rtcg::tune::ProblemClass problem = plan_problem(solver);
  // A stored plan: the solver is left on it, or on the default where it does not fit here.
  auto use_stored = [&](const rtcg::tune::Lookup& found, const std::string& where) {
    choice.plan = plan_of(found.point);
    choice.source = where + " (" + rtcg::tune::to_string(found.step) +
                    (found.record ? ", " + found.record->problem.describe() + ", " + found.record->created : std::string()) +
                    ")";
    try {
      solver.set_plan(choice.plan);
    } catch (const std::exception& error) {
      choice.plan = Plan{};
      choice.source = "default (the stored plan '" + plan_of(found.point).describe() + "' from " + where +
                      " does not fit: " + error.what() + ")";
      solver.set_plan(choice.plan);
    }
    return choice;
  };
  if (mode == rtcg::tune::TuneMode::automatic) {
    const rtcg::tune::Lookup found = db.lookup(device, plan_family, hash, problem, point_of(Plan{}));
    if (found.step != rtcg::tune::LookupStep::builtin_default) return use_stored(found, "tuning database");
    const MeasuredTuning& shipped = measured ? *measured : measured_tuning();
    const rtcg::tune::Lookup from_measured = measured_lookup(shipped, device, hash, problem);
    if (from_measured.step != rtcg::tune::LookupStep::builtin_default)
      return use_stored(from_measured, "measured tuning, " + shipped.source);
  }
  if (log)
    *log << "[rtdg] tuning the DG kernels for " << problem.describe() << " on " << device.describe() << " ("
         << (mode == rtcg::tune::TuneMode::force ? "RTDG_TUNE=force" : "nothing stored for this case")
         << "; at most " << budget_seconds << " s, RTDG_TUNE_BUDGET; RTDG_TUNE=off skips it)" << std::endl;
  const PlanJob job = make_plan_job(solver, space);
  const rtcg::tune::Tuner tuner(solver.backend(), plan_timing_options(budget_seconds));
  const auto start = std::chrono::steady_clock::now();
  rtcg::tune::TuningResult result = tuner.tune(job.job);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const rtcg::tune::Timing& best = result.best();
  choice.plan = plan_of(best.point);
  std::ostringstream source;
  source.precision(3);
  source << "tuned now: " << result.variants.size() << " variants in " << seconds << " s";
  if (result.budget_exhausted) source << " (time budget spent; some variants not timed)";
  choice.source = source.str();
  db.store(result.record());
  solver.set_plan(choice.plan);
  choice.tuned = std::move(result);
  return choice;
}

std::string format_plan_table(const rtcg::tune::TuningResult& result, const PlanJob& job) {
  std::ostringstream text;
  // The fixed-width columns through a buffer, the plan and the status (a drop reason can be a
  // long compiler message) appended whole, so no row is cut or runs into the next.
  char line[160];
  auto row = [&](const std::string& plan, const std::string& numbers, const std::string& status) {
    text << plan;
    if (plan.size() < 100) text << std::string(100 - plan.size(), ' ');
    text << numbers << "  " << status << '\n';
  };
  // Registers per thread and thread blocks per SM of the plan's kernels (the most registers and
  // the fewest blocks over its launches: for a fused plan, its one stage kernel); "-" where the
  // backend does not say (the host) or the plan never compiled.
  auto resources = [](const rtcg::tune::Timing& t) {
    const auto [registers, blocks] = rtcg::tune::resource_limit(t.kernels);
    char cells[32];
    std::snprintf(cells, sizeof cells, " %5s %9s", registers > 0 ? std::to_string(registers).c_str() : "-",
                  blocks > 0 ? std::to_string(blocks).c_str() : "-");
    return std::string(cells);
  };
  std::snprintf(line, sizeof line, " %10s %10s %9s %9s %5s %9s", "ms/step", "ms/stage", "GB/s", "GFLOP/s", "regs",
                "blocks/SM");
  row("plan", line, "status");
  std::size_t pruned = 0;
  for (std::size_t k = 0; k < result.variants.size(); ++k) {
    const rtcg::tune::Timing& t = result.variants[k];
    if (t.status == "pruned") {  // counted below, not listed: rules, not measurements
      ++pruned;
      continue;
    }
    const bool winner = result.winner && *result.winner == k;
    const std::string status =
        t.ok() ? (winner ? "winner" : (t.stopped_early ? "ok (stopped early)" : "ok")) : t.status + ": " + t.reason;
    if (t.ok()) {
      const double stage_ms = t.median_ms / job.stages_per_step;
      std::snprintf(line, sizeof line, " %10.4f %10.4f %9.1f %9.1f", t.median_ms, stage_ms,
                    job.minimal_bytes_per_stage / (stage_ms * 1e6), job.useful_flops_per_stage / (stage_ms * 1e6));
    } else {
      std::snprintf(line, sizeof line, " %10s %10s %9s %9s", "-", "-", "-", "-");
    }
    row(plan_text(t.point), std::string(line) + resources(t), status);
  }
  std::snprintf(line, sizeof line, "%zu variants, compile %.1f s, timing %.1f s\n", result.variants.size() - pruned,
                result.compile_seconds, result.timing_seconds);
  text << line;
  if (pruned > 0) {
    std::map<std::string, std::size_t> by_rule;
    for (const rtcg::tune::Timing& t : result.variants) {
      if (t.status != "pruned") continue;
      const std::string rule = pruning_rule_of(t);
      ++by_rule[rule.empty() ? std::string("unnamed") : rule];
    }
    text << pruned << " more pruned before compiling by the rules of " << pruning_rules().source << ":";
    const char* separator = " ";
    for (const auto& [rule, count] : by_rule) {
      text << separator << rule << " " << count;
      separator = ", ";
    }
    text << " (`rtdg tune dg --explain` says what each rule drops and why; --space prune=off keeps them)\n";
  }
  if (job.graph_on_winner)
    text << "steps as CUDA graphs tried on the winner only (--space prune=off tries them on every plan)\n";
  return text.str();
}

}  // namespace rtdg::dg
