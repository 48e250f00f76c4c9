#include "dg/plan.hpp"

#include "dg/error.hpp"

#include <algorithm>
#include <array>
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
constexpr std::array operator_places{std::pair{Operators::global, "global"}, std::pair{Operators::shared, "shared"}};
constexpr std::array derivatives{std::pair{Derivative::flux, "flux"}, std::pair{Derivative::state, "state"}};

}  // namespace

const char* to_string(Layout layout) { return name_of(layout, layouts); }
const char* to_string(Fusion fusion) { return name_of(fusion, fusions); }
const char* to_string(Operators operators) { return name_of(operators, operator_places); }
const char* to_string(Derivative derivative) { return name_of(derivative, derivatives); }
Layout parse_layout(const std::string& text) { return parse_name(text, layouts, "memory layout"); }
Fusion parse_fusion(const std::string& text) { return parse_name(text, fusions, "fusion"); }
Operators parse_operators(const std::string& text) { return parse_name(text, operator_places, "operator storage"); }
Derivative parse_derivative(const std::string& text) { return parse_name(text, derivatives, "derivative"); }

int elements_per_block(int requested, int threads_per_element) {
  if (requested > 0) return requested;
  // About 128 threads per block, at least one element, and never more than 1024 threads.
  const int per_element = std::max(1, threads_per_element);
  return std::clamp(128 / per_element, 1, std::max(1, 1024 / per_element));
}

std::string Plan::describe() const {
  auto count = [](int n) { return n > 0 ? std::to_string(n) : std::string("auto"); };
  if (fusion == Fusion::stage)
    return std::string("fused stage, ") + to_string(layout) + ", " + count(stage_elements_per_block) +
           " elements/block, " + std::to_string(nodes_per_thread) + " nodes/thread, operators " + to_string(operators) +
           ", derivative of the " + to_string(derivative);
  return std::string("unfused, ") + to_string(layout) + ", volume " + count(volume_elements_per_block) +
         " elements/block, surface " + count(surface_elements_per_block) + " elements/block, update " +
         std::to_string(update_block_size) + " threads/block";
}

}  // namespace rtdg::dg
