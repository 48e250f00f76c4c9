// Plan texts, names and descriptions (dg/plan.hpp), all derived from the plan schema
// (dg/plan_schema.hpp).
#include "dg/plan.hpp"

#include "dg/error.hpp"
#include "dg/plan_schema.hpp"

#include <algorithm>
#include <set>
#include <sstream>
#include <utility>
#include <vector>

namespace rtdg::dg {
namespace {

const PlanField& field(const char* key) {
  const PlanField* found = find_plan_field(key);
  if (!found) throw Error(std::string("internal: no plan value '") + key + "' in the schema");
  return *found;
}

template <class E>
const char* name_of(const char* key, E value) {
  const PlanField& f = field(key);
  const auto i = static_cast<std::size_t>(value);
  return i < f.names.size() ? f.names[i] : "?";
}

// "unknown <key> '<text>'; valid values: a, b, ...", the message of every choice that is not one.
std::string unknown_choice(const PlanField& f, const std::string& text) {
  std::string valid;
  for (const char* name : f.names) valid += (valid.empty() ? "" : ", ") + std::string(name);
  return "unknown " + std::string(f.key) + " '" + text + "'; valid values: " + valid;
}

template <class E>
E parse_choice(const char* key, const std::string& text) {
  const PlanField& f = field(key);
  const std::optional<int> value = parse_value(f, text);
  if (!value) throw Error(unknown_choice(f, text));
  return static_cast<E>(*value);
}

}  // namespace

const char* to_string(Layout layout) { return name_of("layout", layout); }
const char* to_string(Fusion fusion) { return name_of("fusion", fusion); }
const char* to_string(Operators operators) { return name_of("operators", operators); }
const char* to_string(Derivative derivative) { return name_of("derivative", derivative); }
const char* to_string(Products products) { return name_of("products", products); }
const char* to_string(Prefetch prefetch) { return name_of("prefetch", prefetch); }
const char* to_string(Directions directions) { return name_of("directions", directions); }
const char* to_string(GeometryPlace geometry) { return name_of("geometry", geometry); }
const char* to_string(Connectivity connectivity) { return name_of("connectivity", connectivity); }
const char* to_string(Tiles tiles) { return name_of("tiles", tiles); }
const char* to_string(Basis basis) { return name_of("basis", basis); }
Layout parse_layout(const std::string& text) { return parse_choice<Layout>("layout", text); }
Fusion parse_fusion(const std::string& text) { return parse_choice<Fusion>("fusion", text); }
Operators parse_operators(const std::string& text) { return parse_choice<Operators>("operators", text); }
Derivative parse_derivative(const std::string& text) { return parse_choice<Derivative>("derivative", text); }
Products parse_products(const std::string& text) { return parse_choice<Products>("products", text); }
Prefetch parse_prefetch(const std::string& text) { return parse_choice<Prefetch>("prefetch", text); }
Directions parse_directions(const std::string& text) { return parse_choice<Directions>("directions", text); }
GeometryPlace parse_geometry(const std::string& text) { return parse_choice<GeometryPlace>("geometry", text); }
Connectivity parse_connectivity(const std::string& text) { return parse_choice<Connectivity>("connectivity", text); }
Tiles parse_tiles(const std::string& text) { return parse_choice<Tiles>("tiles", text); }
Basis parse_basis(const std::string& text) { return parse_choice<Basis>("basis", text); }

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

std::optional<int> parse_k_unroll(const std::string& text) { return parse_value(field("k_unroll"), text); }

std::string to_text(const Plan& plan) {
  std::string text;
  for (const PlanField& f : plan_fields()) {
    if (!applies_to(f, plan)) continue;
    const int value = f.get(plan);
    if (f.written_when_set && value == f.default_value) continue;
    text += (text.empty() ? "" : " ") + std::string(f.key) + "=" + format_value(f, value);
  }
  return text;
}

Plan plan_from_text(const std::string& text) {
  // The words first, so that which values apply is known from fusion= wherever it stands.
  std::vector<std::pair<std::string, std::string>> words;
  std::set<std::string> seen;
  std::istringstream in(text);
  for (std::string word; in >> word;) {
    const auto equals = word.find('=');
    if (equals == std::string::npos || equals == 0) throw Error("plan '" + text + "': '" + word + "' is not key=value");
    // A later word replaces an earlier one of the same key (a plan text with a word appended).
    std::string key = word.substr(0, equals);
    seen.insert(key);
    words.emplace_back(std::move(key), word.substr(equals + 1));
  }
  Plan plan;
  const auto fusion = std::find_if(words.rbegin(), words.rend(), [](const auto& w) { return w.first == "fusion"; });
  if (fusion == words.rend()) throw Error("plan '" + text + "': no fusion=");
  plan.fusion = parse_fusion(fusion->second);
  for (const auto& [key, value] : words) {
    const PlanField* f = find_plan_field(key);
    if (!f) {
      std::string valid;
      for (const PlanField& g : plan_fields())
        if (applies_to(g, plan)) valid += (valid.empty() ? "" : ", ") + std::string(g.key);
      throw Error("plan '" + text + "': unknown key '" + key + "'; the keys of this plan are " + valid);
    }
    if (!applies_to(*f, plan))
      throw Error("plan '" + text + "': " + key + "= is a value of " +
                  (f->applies == Applies::fused_plans ? "fused plans (fusion=stage)" : "unfused plans (fusion=none)") +
                  ", and this plan is fusion=" + to_string(plan.fusion));
    const std::optional<int> n = parse_value(*f, value);
    if (!n) {
      if (f->kind == ValueKind::choice) throw Error("plan '" + text + "': " + unknown_choice(*f, value));
      throw Error("plan '" + text + "': " + key + "=" + value + " is not " + valid_values(*f));
    }
    f->set(plan, *n);
  }
  for (const PlanField& f : plan_fields())
    if (f.required && applies_to(f, plan) && !seen.count(f.key))
      throw Error("plan '" + text + "': no " + std::string(f.key) + "=");
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
  std::string text = fusion == Fusion::stage ? "fused stage" : "unfused";
  for (const PlanField& f : plan_fields()) {
    if (!applies_to(f, *this)) continue;
    const std::string phrase = f.describe(*this);
    if (!phrase.empty()) text += ", " + phrase;
  }
  return text;
}

}  // namespace rtdg::dg
