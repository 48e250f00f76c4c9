#include "dg/plan.hpp"

#include "dg/error.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <sstream>
#include <utility>

namespace rtdg::dg {
namespace {

// Names of an enum's values, in value order; parse looks a text up in it.
template <class E, std::size_t N>
E parse_name(const std::string& text, const std::array<std::pair<E, const char*>, N>& names, const char* what) {
  std::string valid;
  for (const auto& [value, name] : names) {
    if (text == name) return value;
    valid += (valid.empty() ? "" : ", ") + std::string(name);
  }
  throw Error("unknown " + std::string(what) + " '" + text + "'; valid values: " + valid);
}

template <class E, std::size_t N>
const char* name_of(E value, const std::array<std::pair<E, const char*>, N>& names) {
  for (const auto& [v, name] : names)
    if (v == value) return name;
  return "?";
}

constexpr std::array layouts{std::pair{Layout::field_major, "field_major"}, std::pair{Layout::element_major, "element_major"}};
constexpr std::array fusions{std::pair{Fusion::none, "none"}, std::pair{Fusion::stage, "stage"}};
constexpr std::array operator_places{std::pair{Operators::global, "global"}, std::pair{Operators::shared, "shared"},
                                     std::pair{Operators::constant, "constant"},
                                     std::pair{Operators::literals, "literals"},
                                     std::pair{Operators::stencil, "stencil"}};
constexpr std::array derivatives{std::pair{Derivative::flux, "flux"}, std::pair{Derivative::state, "state"}};
constexpr std::array product_kinds{std::pair{Products::scalar, "scalar"}, std::pair{Products::tensor, "tensor"},
                                    std::pair{Products::tf32x3, "tf32x3"}};
constexpr std::array prefetch_kinds{std::pair{Prefetch::off, "off"}, std::pair{Prefetch::on, "on"},
                                     std::pair{Prefetch::async, "async"}};
constexpr std::array direction_kinds{std::pair{Directions::joint, "joint"}, std::pair{Directions::split, "split"}};
constexpr std::array geometry_places{std::pair{GeometryPlace::global, "global"}, std::pair{GeometryPlace::shared, "shared"}};
constexpr std::array connectivity_kinds{std::pair{Connectivity::nodes, "nodes"}, std::pair{Connectivity::faces, "faces"}};
constexpr std::array tile_kinds{std::pair{Tiles::rows, "rows"}, std::pair{Tiles::columns, "columns"}};
constexpr std::array bases{std::pair{Basis::nodal, "nodal"}, std::pair{Basis::bernstein, "bernstein"}};

}  // namespace

const char* to_string(Layout layout) { return name_of(layout, layouts); }
const char* to_string(Fusion fusion) { return name_of(fusion, fusions); }
const char* to_string(Operators operators) { return name_of(operators, operator_places); }
const char* to_string(Derivative derivative) { return name_of(derivative, derivatives); }
const char* to_string(Products products) { return name_of(products, product_kinds); }
const char* to_string(Prefetch prefetch) { return name_of(prefetch, prefetch_kinds); }
const char* to_string(Directions directions) { return name_of(directions, direction_kinds); }
const char* to_string(GeometryPlace geometry) { return name_of(geometry, geometry_places); }
const char* to_string(Connectivity connectivity) { return name_of(connectivity, connectivity_kinds); }
const char* to_string(Tiles tiles) { return name_of(tiles, tile_kinds); }
const char* to_string(Basis basis) { return name_of(basis, bases); }
Layout parse_layout(const std::string& text) { return parse_name(text, layouts, "memory layout"); }
Fusion parse_fusion(const std::string& text) { return parse_name(text, fusions, "fusion"); }
Operators parse_operators(const std::string& text) { return parse_name(text, operator_places, "operator storage"); }
Derivative parse_derivative(const std::string& text) { return parse_name(text, derivatives, "derivative"); }
Products parse_products(const std::string& text) { return parse_name(text, product_kinds, "products"); }
Prefetch parse_prefetch(const std::string& text) { return parse_name(text, prefetch_kinds, "prefetch"); }
Directions parse_directions(const std::string& text) { return parse_name(text, direction_kinds, "directions"); }
GeometryPlace parse_geometry(const std::string& text) { return parse_name(text, geometry_places, "geometry"); }
Tiles parse_tiles(const std::string& text) { return parse_name(text, tile_kinds, "tiles"); }
Basis parse_basis(const std::string& text) { return parse_name(text, bases, "basis"); }
Connectivity parse_connectivity(const std::string& text) {
  return parse_name(text, connectivity_kinds, "connectivity");
}

std::optional<int> parse_whole_number(const std::string& text, int low, int high) {
  std::size_t used = 0;
  int n = 0;
  try {
    n = std::stoi(text, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (used == 0 || used != text.size() || n < low || n > high) return std::nullopt;
  return n;
}

std::optional<int> parse_k_unroll(const std::string& text) {
  if (text == "all") return 0;
  return parse_whole_number(text, 1, max_k_unroll);
}

std::string to_text(const Plan& plan) {
  std::ostringstream text;
  text << "fusion=" << to_string(plan.fusion) << " layout=" << to_string(plan.layout);
  if (plan.fusion == Fusion::stage)
    text << " elements=" << plan.stage_elements_per_block << " nodes_per_thread=" << plan.nodes_per_thread
         << " operators=" << to_string(plan.operators) << " derivative=" << to_string(plan.derivative)
         << " products=" << to_string(plan.products) << " prefetch=" << to_string(plan.prefetch)
         << " tile_rows=" << plan.tile_rows << " directions=" << to_string(plan.directions)
         << " row_tiles=" << plan.row_tiles
         << " k_unroll=" << (plan.k_unroll == 0 ? std::string("all") : std::to_string(plan.k_unroll))
         << " k_ahead=" << plan.k_ahead
         << " groups=" << plan.groups_per_block << " teams=" << plan.teams << " geometry=" << to_string(plan.geometry)
         << " connectivity=" << to_string(plan.connectivity) << " align=" << plan.align
         << " tiles=" << to_string(plan.tiles);
  else
    text << " volume_elements=" << plan.volume_elements_per_block << " surface_elements=" << plan.surface_elements_per_block
         << " update_block=" << plan.update_block_size;
  // Written only when it is not the nodal basis, so nodal plans keep the text (and the tuning
  // database entries) they had before the basis was a plan value.
  if (plan.basis != Basis::nodal) text << " basis=" << to_string(plan.basis);
  if (plan.face_threads != 1) text << " face_threads=" << plan.face_threads;
  if (plan.max_registers != 0) text << " max_registers=" << plan.max_registers;
  // Written only when off, so plans keep the text they had before it was a plan value.
  if (!plan.prefetch_update) text << " prefetch_update=off";
  // Written only when on, likewise.
  if (plan.graph) text << " graph=on";
  return text.str();
}

Plan plan_from_text(const std::string& text) {
  std::map<std::string, std::string> words;
  std::istringstream in(text);
  for (std::string word; in >> word;) {
    const auto equals = word.find('=');
    if (equals == std::string::npos || equals == 0) throw Error("plan '" + text + "': '" + word + "' is not key=value");
    words[word.substr(0, equals)] = word.substr(equals + 1);
  }
  auto take = [&](const std::string& key) {
    const auto it = words.find(key);
    if (it == words.end()) throw Error("plan '" + text + "': no " + key + "=");
    std::string value = it->second;
    words.erase(it);
    return value;
  };
  auto number = [&](const std::string& key, int low, int high) {
    const std::string value = take(key);
    const std::optional<int> n = parse_whole_number(value, low, high);
    if (!n)
      throw Error("plan '" + text + "': " + key + "=" + value + " is not a whole number in " + std::to_string(low) + ".." +
                  std::to_string(high));
    return *n;
  };
  Plan plan;
  plan.fusion = parse_fusion(take("fusion"));
  plan.layout = parse_layout(take("layout"));
  if (plan.fusion == Fusion::stage) {
    plan.stage_elements_per_block = number("elements", 0, 1024);
    plan.nodes_per_thread = number("nodes_per_thread", 1, 8);
    plan.operators = parse_operators(take("operators"));
    plan.derivative = parse_derivative(take("derivative"));
    if (words.count("products")) plan.products = parse_products(take("products"));
    if (words.count("prefetch")) plan.prefetch = parse_prefetch(take("prefetch"));
    if (words.count("tile_rows")) {
      plan.tile_rows = number("tile_rows", 8, 16);
      if (plan.tile_rows != 8 && plan.tile_rows != 16)
        throw Error("plan '" + text + "': tile_rows=" + std::to_string(plan.tile_rows) + " is not 8 or 16");
    }
    if (words.count("directions")) plan.directions = parse_directions(take("directions"));
    if (words.count("row_tiles")) plan.row_tiles = number("row_tiles", 1, max_row_tiles);
    if (words.count("k_unroll")) {
      const std::string value = take("k_unroll");
      const std::optional<int> n = parse_k_unroll(value);
      if (!n)
        throw Error("plan '" + text + "': k_unroll=" + value + " is not 'all' or a whole number in 1.." +
                    std::to_string(max_k_unroll));
      plan.k_unroll = *n;
    }
    if (words.count("k_ahead")) plan.k_ahead = number("k_ahead", 0, max_k_ahead);
    if (words.count("groups")) plan.groups_per_block = number("groups", 1, max_groups_per_block);
    if (words.count("teams")) plan.teams = number("teams", 1, max_teams);
    if (words.count("geometry")) plan.geometry = parse_geometry(take("geometry"));
    if (words.count("connectivity")) plan.connectivity = parse_connectivity(take("connectivity"));
    if (words.count("align")) {
      plan.align = number("align", 0, max_align_bytes);
      if (!valid_align(plan.align))
        throw Error("plan '" + text + "': align=" + std::to_string(plan.align) +
                    " is not 0 or a power of two from 8 to " + std::to_string(max_align_bytes) + " (bytes)");
    }
    if (words.count("tiles")) plan.tiles = parse_tiles(take("tiles"));
  } else {
    plan.volume_elements_per_block = number("volume_elements", 0, 1024);
    plan.surface_elements_per_block = number("surface_elements", 0, 1024);
    plan.update_block_size = number("update_block", 32, 1024);
  }
  if (words.count("basis")) plan.basis = parse_basis(take("basis"));
  if (words.count("face_threads")) {
    plan.face_threads = number("face_threads", 1, 4);
    if (plan.face_threads == 3) throw Error("plan '" + text + "': face_threads=3 is not 1, 2 or 4");
  }
  if (words.count("max_registers")) {
    plan.max_registers = number("max_registers", 0, max_register_cap);
    if (!valid_register_cap(plan.max_registers))
      throw Error("plan '" + text + "': max_registers=" + std::to_string(plan.max_registers) + " is not 0 or " +
                  std::to_string(min_register_cap) + " to " + std::to_string(max_register_cap));
  }
  if (words.count("prefetch_update")) {
    const std::string value = take("prefetch_update");
    if (value != "on" && value != "off") throw Error("plan '" + text + "': prefetch_update=" + value + " is not on or off");
    plan.prefetch_update = value == "on";
  }
  if (words.count("graph")) {
    const std::string value = take("graph");
    if (value != "on" && value != "off") throw Error("plan '" + text + "': graph=" + value + " is not on or off");
    plan.graph = value == "on";
  }
  if (!words.empty()) throw Error("plan '" + text + "': unknown key '" + words.begin()->first + "'");
  return plan;
}

bool valid_register_cap(int registers) {
  return registers == 0 || (registers >= min_register_cap && registers <= max_register_cap);
}

bool valid_align(int bytes) {
  if (bytes == 0) return true;
  return bytes >= 8 && bytes <= max_align_bytes && (bytes & (bytes - 1)) == 0;
}

int node_stride(const Plan& plan, int Np, int real_bytes) {
  if (plan.fusion != Fusion::stage || plan.align <= real_bytes) return Np;
  const int reals = plan.align / real_bytes;
  return (Np + reals - 1) / reals * reals;
}

std::string state_index_macro(Layout layout, int node_stride, int Np) {
  const std::string stride = node_stride == Np ? std::string("NP") : std::to_string(node_stride);
  if (layout == Layout::field_major) return "#define QIDX(c, k, i) (((c) * K + (k)) * " + stride + " + (i))";
  return "#define QIDX(c, k, i) (((k) * NCOMP + (c)) * " + stride + " + (i))";
}

int elements_per_block(int requested, int threads_per_element) {
  if (requested > 0) return requested;
  // About 128 threads per block, at least one element, and never more than 1024 threads.
  const int per_element = std::max(1, threads_per_element);
  return std::clamp(128 / per_element, 1, std::max(1, 1024 / per_element));
}

std::string Plan::describe() const {
  auto count = [](int n) { return n > 0 ? std::to_string(n) : std::string("auto"); };
  const std::string in_basis = basis == Basis::bernstein ? ", Bernstein basis" : "";
  if (fusion == Fusion::stage)
    return std::string("fused stage, ") + to_string(layout) + ", " + count(stage_elements_per_block) +
           " elements/block, " + std::to_string(nodes_per_thread) + " nodes/thread, operators " + to_string(operators) +
           ", derivative of the " + to_string(derivative) +
           (products == Products::tensor   ? ", tensor cores"
            : products == Products::tf32x3 ? ", TF32 tensor cores (3 products)"
                                           : "") +
           (tile_rows != 8 ? ", " + std::to_string(tile_rows) + "-row tiles" : std::string()) +
           (tiles == Tiles::columns ? ", column tiles" : "") +
           (directions == Directions::split ? ", directions split" : "") +
           (row_tiles != 1 ? ", " + std::to_string(row_tiles) + " row tiles/warp" : std::string()) +
           (k_unroll != 0 ? ", k unrolled " + std::to_string(k_unroll) + "x" : std::string()) +
           (k_ahead != 0 ? ", " + std::to_string(k_ahead) + " k step loaded ahead" : std::string()) +
           (prefetch == Prefetch::on ? ", prefetch" : prefetch == Prefetch::async ? ", prefetch async" : "") +
           (groups_per_block != 1 ? ", " + std::to_string(groups_per_block) +
                                        (prefetch != Prefetch::off ? " groups/block pipelined" : " groups/block in turn")
                                  : std::string()) +
           (teams != 1 ? ", " + std::to_string(teams) + " teams/block" : std::string()) +
           (geometry == GeometryPlace::shared ? ", geometry shared" : "") +
           (connectivity == Connectivity::faces ? ", face connectivity" : "") +
           (align != 0 ? ", columns aligned to " + std::to_string(align) + " bytes" : std::string()) + in_basis +
           (face_threads != 1 ? ", faces on " + std::to_string(face_threads) + " threads/column" : std::string()) +
           (max_registers != 0 ? ", at most " + std::to_string(max_registers) + " registers" : std::string()) +
           (!prefetch_update ? ", update input read late" : "") + (graph ? ", steps as CUDA graphs" : "");
  return std::string("unfused, ") + to_string(layout) + ", volume " + count(volume_elements_per_block) +
         " elements/block, surface " + count(surface_elements_per_block) + " elements/block, update " +
         std::to_string(update_block_size) + " threads/block" + in_basis + (graph ? ", steps as CUDA graphs" : "");
}

}  // namespace rtdg::dg
