// Reads a law file: TOML through toml++, then every declaration and expression, collecting
// all problems with their file positions before throwing. The schema is docs/laws.md.
#include "fluxes/law.hpp"
#include "fluxes/text_file.hpp"

#include "fluxes/checker.hpp"
#include "fluxes/parser.hpp"
#include "fluxes/printer.hpp"
#include "toml_prescan.hpp"
#include "toml_strings.hpp"

#include <toml++/toml.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <sstream>
#include <utility>

namespace fluxes {

std::vector<std::string> Law::component_names() const {
  static constexpr const char* axes[] = {".x", ".y", ".z"};
  std::vector<std::string> names;
  for (const auto& f : fields) {
    if (f.shape == Shape::scalar) {
      names.push_back(f.name);
      continue;
    }
    for (int d = 0; d < dimension; ++d) names.push_back(f.name + axes[d]);
  }
  return names;
}

const char* to_string(FluxForm form) {
  switch (form) {
    case FluxForm::difference: return "difference";
    case FluxForm::full: return "full";
    case FluxForm::rusanov: return "rusanov";
    case FluxForm::central: return "central";
  }
  return "?";
}

const BoundaryCondition* Law::find_boundary(std::string_view wanted) const {
  for (const auto& bc : boundaries) {
    if (bc.name == wanted) return &bc;
  }
  return nullptr;
}

namespace {

using Entry = std::pair<const toml::key*, const toml::node*>;

class LawReader {
public:
  LawReader(std::string_view text, std::string file) : text_(text), file_(std::move(file)) {}

  Law read() {
    if (const auto hazard = detail::find_toml_hazard(text_)) {
      throw Error(Location{file_, hazard->where.line, hazard->where.column}, "invalid TOML: " + hazard->message);
    }
    toml::table root;
    try {
      root = toml::parse(text_, std::string_view(file_));
    } catch (const toml::parse_error& e) {
      throw Error(at(e.source()), "invalid TOML: " + std::string(e.description()));
    }
    Law law;
    law.file = file_;
    read_declarations(root, law);
    diagnostics_.throw_if_any();  // without valid declarations, expressions cannot be checked
    read_definitions(root, law);
    read_expressions(root, law);
    diagnostics_.throw_if_any();
    return law;
  }

private:
  // ----- locations and messages ---------------------------------------------------------
  Location at(const toml::source_region& region) const {
    return Location{file_, static_cast<int>(region.begin.line), static_cast<int>(region.begin.column)};
  }
  Location at(const toml::node& node) const { return at(node.source()); }
  Location at(const toml::key& key) const { return at(key.source()); }
  void error(Location where, std::string message) { diagnostics_.add(std::move(where), std::move(message)); }

  template <class Names>
  static std::string quoted_list(const Names& names) {
    std::string text;
    for (auto n : names) text += (text.empty() ? "" : ", ") + std::string(n);
    return text;
  }

  std::string field_list(const Law& law) const {
    std::string text;
    for (const auto& f : law.fields) text += (text.empty() ? "" : ", ") + f.name;
    return text;
  }

  // A table's entries in the order written (toml++ keeps them sorted by key).
  static std::vector<Entry> ordered(const toml::table& table) {
    std::vector<Entry> entries;
    for (const auto& [key, node] : table) entries.emplace_back(&key, &node);
    std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
      const auto& pa = a.first->source().begin;
      const auto& pb = b.first->source().begin;
      return pa.line != pb.line ? pa.line < pb.line : pa.column < pb.column;
    });
    return entries;
  }

  const toml::table* table_at(const toml::table& parent, std::string_view key, const std::string& what) {
    const toml::node* node = parent.get(key);
    if (node == nullptr) return nullptr;
    if (const toml::table* t = node->as_table()) return t;
    error(at(*node), what + " must be a table ([" + std::string(key) + "] or " + std::string(key) + " = { ... })");
    return nullptr;
  }

  std::optional<std::string> string_at(const toml::node& node, const std::string& what) {
    if (const auto* s = node.as_string()) return s->get();
    error(at(node), what + " must be a string");
    return std::nullopt;
  }

  std::optional<double> number_at(const toml::node& node, const std::string& what) {
    if (const auto* f = node.as_floating_point()) {
      if (!std::isfinite(f->get())) {
        error(at(node), what + " must be a finite number");
        return std::nullopt;
      }
      return f->get();
    }
    if (const auto* i = node.as_integer()) return static_cast<double>(i->get());
    error(at(node), what + " must be a number");
    return std::nullopt;
  }

  void unknown_key(const toml::key& key, const std::string& where, const std::string& expected) {
    error(at(key), "unknown key '" + std::string(key.str()) + "' in " + where + "; expected " + expected);
  }

  // ----- declarations ---------------------------------------------------------------------
  void read_declarations(const toml::table& root, Law& law) {
    static constexpr std::array<std::string_view, 14> top_keys = {
        "name", "description", "dimension", "fields", "parameters", "incident", "definitions", "volume_flux",
        "numerical_flux", "boundary", "source", "initial", "exact", "max_wave_speed"};
    for (const auto& [key, node] : ordered(root)) {
      if (std::find(top_keys.begin(), top_keys.end(), key->str()) == top_keys.end()) {
        unknown_key(*key, "the law file", quoted_list(top_keys));
      }
    }
    const Location file_start{file_, 1, 1};
    if (const toml::node* n = root.get("name")) {
      if (auto s = string_at(*n, "'name'")) {
        law.name = *s;
        const bool plain = !s->empty() && std::all_of(s->begin(), s->end(), [](char c) {
          return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
        });
        if (!plain) error(at(*n), "'name' must be letters, digits, '_' and '-' (it names the law in reports and caches)");
      }
    } else {
      law.name = std::filesystem::path(file_).stem().string();
    }
    if (const toml::node* n = root.get("description")) {
      if (auto s = string_at(*n, "'description'")) law.description = *s;
    }
    const toml::node* dim = root.get("dimension");
    if (dim == nullptr) {
      error(file_start, "missing 'dimension' (the mesh dimension: 1, 2 or 3)");
      return;
    }
    const auto* dim_int = dim->as_integer();
    if (dim_int == nullptr || dim_int->get() < 1 || dim_int->get() > 3) {
      error(at(*dim), "'dimension' must be 1, 2 or 3");
      return;
    }
    law.dimension = static_cast<int>(dim_int->get());
    law.env = Environment(law.dimension);

    const toml::table* fields = table_at(root, "fields", "'fields'");
    if (fields == nullptr) {
      if (root.get("fields") == nullptr) error(file_start, "missing [fields]: the law's state, e.g. u = \"scalar\"");
    } else {
      for (const auto& [key, node] : ordered(*fields)) {
        FieldDecl f;
        f.name = std::string(key->str());
        f.where = at(*key);
        if (!read_shaped(*node, "field '" + f.name + "'", f.shape, f.description)) continue;
        const std::string problem = law.env.add_field(f.name, f.shape);
        if (!problem.empty()) {
          error(at(*key), "field " + problem);
          continue;
        }
        law.fields.push_back(std::move(f));
      }
      if (fields->empty()) error(at(*fields), "[fields] is empty: a law needs at least one field");
    }
    if (const toml::table* params = table_at(root, "parameters", "'parameters'")) {
      for (const auto& [key, node] : ordered(*params)) read_parameter(*key, *node, law);
    }
    if (const toml::table* incident = table_at(root, "incident", "'incident'")) {
      for (const auto& [key, node] : ordered(*incident)) {
        IncidentDecl d;
        d.name = std::string(key->str());
        d.where = at(*key);
        if (!read_shaped(*node, "incident field '" + d.name + "'", d.shape, d.description)) continue;
        const std::string problem = law.env.add_incident(d.name, d.shape);
        if (!problem.empty()) {
          error(at(*key), "incident field " + problem);
          continue;
        }
        law.incident.push_back(std::move(d));
      }
    }
  }

  // "scalar", "vector", or { shape = "...", description = "..." }.
  bool read_shaped(const toml::node& node, const std::string& what, Shape& shape, std::string& description) {
    const toml::node* shape_node = &node;
    if (const toml::table* t = node.as_table()) {
      shape_node = t->get("shape");
      for (const auto& [key, value] : ordered(*t)) {
        if (key->str() == "description") {
          if (auto s = string_at(*value, what + ": 'description'")) description = *s;
        } else if (key->str() != "shape") {
          unknown_key(*key, what, "shape, description");
        }
      }
      if (shape_node == nullptr) {
        error(at(node), what + " needs shape = \"scalar\" or \"vector\"");
        return false;
      }
    }
    const auto* s = shape_node->as_string();
    if (s == nullptr || (s->get() != "scalar" && s->get() != "vector")) {
      error(at(*shape_node), what + ": the shape must be \"scalar\" or \"vector\"");
      return false;
    }
    shape = s->get() == "scalar" ? Shape::scalar : Shape::vector;
    return true;
  }

  void read_parameter(const toml::key& key, const toml::node& node, Law& law) {
    ParameterDecl p;
    p.name = std::string(key.str());
    p.where = at(key);
    const std::string what = "parameter '" + p.name + "'";
    bool ok = true;
    if (const toml::table* t = node.as_table()) {
      const toml::node* value = t->get("default");
      if (value == nullptr) {
        error(at(node), what + " needs default = <number>");
        ok = false;
      }
      for (const auto& [k, v] : ordered(*t)) {
        const std::string_view name = k->str();
        if (name == "default") {
          if (auto d = number_at(*v, what + ": 'default'")) p.value = *d; else ok = false;
        } else if (name == "min") {
          if (auto d = number_at(*v, what + ": 'min'")) p.min = *d; else ok = false;
        } else if (name == "max") {
          if (auto d = number_at(*v, what + ": 'max'")) p.max = *d; else ok = false;
        } else if (name == "constant") {
          if (const auto* b = v->as_boolean()) {
            p.constant = b->get();
          } else {
            error(at(*v), what + ": 'constant' must be true or false");
            ok = false;
          }
        } else if (name == "description") {
          if (auto s = string_at(*v, what + ": 'description'")) p.description = *s;
        } else {
          unknown_key(*k, what, "default, constant, min, max, description");
        }
      }
    } else if (auto d = number_at(node, what + " (a number, or a table with default = <number>)")) {
      p.value = *d;
    } else {
      ok = false;
    }
    if (!ok) return;
    if ((p.min && p.value < *p.min) || (p.max && p.value > *p.max)) {
      error(at(node), what + ": the default " + shortest_decimal(p.value) + " is outside [" +
                          (p.min ? shortest_decimal(*p.min) : "-inf") + ", " +
                          (p.max ? shortest_decimal(*p.max) : "inf") + "]");
      return;
    }
    const std::string problem = law.env.add_parameter(p.name);
    if (!problem.empty()) {
      error(at(key), "parameter " + problem);
      return;
    }
    law.parameters.push_back(std::move(p));
  }

  // ----- expressions ----------------------------------------------------------------------
  std::shared_ptr<const SourceText> source_of(const toml::node& node) {
    const Location where = at(node);
    if (const auto* s = node.as_string()) {
      if (auto located = detail::locate_toml_string(text_, file_, where.line, where.column, s->get())) {
        return std::make_shared<const SourceText>(std::move(*located));
      }
      // Not expected; approximate: the value's line, columns as if the string had no escapes.
      return std::make_shared<const SourceText>(file_, s->get(), where.line, where.column + 1);
    }
    // A TOML number stands for itself: its shortest decimal form, located at the number.
    const double value = node.is_integer() ? static_cast<double>(node.as_integer()->get())
                                           : node.as_floating_point()->get();
    return std::make_shared<const SourceText>(file_, shortest_decimal(value), where.line, where.column);
  }

  struct Parsed {
    std::shared_ptr<const SourceText> source;
    ExprPtr ast;
  };

  // An expression's text and syntax tree, not yet checked.
  std::optional<Parsed> parsed(const toml::node& node, const std::string& what) {
    if (!node.is_string() && !node.is_integer() && !(node.is_floating_point() && std::isfinite(node.as_floating_point()->get()))) {
      error(at(node), what + " must be an expression in a string, e.g. \"0.5*u\"");
      return std::nullopt;
    }
    Parsed result;
    result.source = source_of(node);
    try {
      result.ast = parse_expression(*result.source);
    } catch (const Error& e) {
      diagnostics_.append(e);
      return std::nullopt;
    }
    return result;
  }

  std::optional<Expression> expression(const Law& law, const toml::node& node, Where where, Shape expected,
                                       const std::string& what) {
    std::optional<Parsed> p = parsed(node, what);
    if (!p) return std::nullopt;
    Expression result;
    result.where = where;
    result.source = std::move(p->source);
    ExprPtr ast = std::move(p->ast);
    if (!check(*ast, law.env, where, *result.source, diagnostics_)) return std::nullopt;
    if (ast->shape == Shape::unknown) return std::nullopt;  // uses a definition whose errors were reported
    if (ast->shape != expected) {
      error(result.source->at(ast->begin), what + " must be " + describe(expected, law.dimension) + "; got " +
                                               describe(ast->shape, law.dimension));
      return std::nullopt;
    }
    result.ast = std::move(ast);
    return result;
  }

  // A table with one expression per field, each shaped as its field. `all` requires every
  // field; `extra` names other keys the caller handles.
  template <class Extra = std::array<std::string_view, 0>>
  std::vector<std::optional<Expression>> per_field(const Law& law, const toml::table& table, const std::string& name,
                                                   Where where, const std::string& what, bool all,
                                                   const Extra& extra = {}) {
    std::vector<std::optional<Expression>> result(law.fields.size());
    std::vector<bool> given(law.fields.size(), false);  // present, even if its expression had errors
    for (const auto& [key, node] : ordered(table)) {
      if (std::find(extra.begin(), extra.end(), key->str()) != extra.end()) continue;
      const Symbol s = law.env.lookup(key->str());
      if (s.kind != SymbolKind::field) {
        std::string expected = "a field name (" + field_list(law) + ")";
        for (auto e : extra) expected += " or '" + std::string(e) + "'";
        unknown_key(*key, name, expected);
        continue;
      }
      const FieldDecl& f = law.fields[s.index];
      given[s.index] = true;
      result[s.index] = expression(law, *node, where, f.shape, what + " of field '" + f.name + "'");
    }
    for (std::size_t i = 0; all && i < law.fields.size(); ++i) {
      if (!given[i]) error(at(table), name + " does not give " + what + " of field '" + law.fields[i].name + "'");
    }
    return result;
  }

  static std::vector<Expression> unwrap(std::vector<std::optional<Expression>> v) {
    std::vector<Expression> out;
    for (auto& e : v) {
      if (e) out.push_back(std::move(*e));
    }
    return out;
  }

  void read_volume_flux(const toml::table& root, Law& law) {
    const toml::table* table = table_at(root, "volume_flux", "'volume_flux'");
    if (table == nullptr) {
      if (root.get("volume_flux") == nullptr) error(Location{file_, 1, 1}, "missing [volume_flux]: F(u) for each field");
      return;
    }
    law.volume_flux.assign(law.fields.size(), {});
    std::vector<bool> given(law.fields.size(), false);
    for (const auto& [key, node] : ordered(*table)) {
      const Symbol s = law.env.lookup(key->str());
      if (s.kind != SymbolKind::field) {
        unknown_key(*key, "[volume_flux]", "a field name (" + field_list(law) + ")");
        continue;
      }
      given[s.index] = true;
      const FieldDecl& f = law.fields[s.index];
      const std::string what = "the volume flux of field '" + f.name + "'";
      if (f.shape == Shape::scalar) {
        if (auto e = expression(law, *node, Where::volume, Shape::vector, what)) law.volume_flux[s.index].push_back(std::move(*e));
        continue;
      }
      const toml::array* rows = node->as_array();
      if (rows == nullptr || rows->size() != static_cast<std::size_t>(law.dimension)) {
        error(at(*node), what + " must be an array of " + std::to_string(law.dimension) +
                             " expressions, the flux vector of each component of the vector field");
        continue;
      }
      static constexpr const char* axes[] = {"x", "y", "z"};
      for (std::size_t d = 0; d < rows->size(); ++d) {
        auto e = expression(law, *rows->get(d), Where::volume, Shape::vector,
                            what + " (component " + f.name + "." + axes[d] + ")");
        if (e) law.volume_flux[s.index].push_back(std::move(*e));
      }
    }
    for (std::size_t i = 0; i < law.fields.size(); ++i) {
      if (!given[i]) error(at(*table), "[volume_flux] does not give the flux of field '" + law.fields[i].name + "'");
    }
  }

  void read_numerical_flux(const toml::table& table, Law& law) {
    if (const toml::node* form = table.get("form")) {
      const auto* s = form->as_string();
      static constexpr std::array<FluxForm, 4> forms = {FluxForm::difference, FluxForm::full, FluxForm::rusanov,
                                                        FluxForm::central};
      const auto found = std::find_if(forms.begin(), forms.end(),
                                      [&](FluxForm f) { return s != nullptr && s->get() == to_string(f); });
      if (found != forms.end()) {
        law.flux_form = *found;
      } else {
        error(at(*form), "'form' must be \"difference\" (n.(F - F*), as hedge writes it), \"full\" (n.F*), or "
                         "\"rusanov\" or \"central\" (n.F* derived from the volume flux)");
      }
    }
    const toml::node* wave_speed = table.get("wave_speed");
    if (law.flux_form == FluxForm::rusanov || law.flux_form == FluxForm::central) {
      // Derived from the volume flux: no expression per field.
      const std::string form = "form = \"" + std::string(to_string(law.flux_form)) + "\"";
      for (const auto& [key, node] : ordered(table)) {
        const std::string_view name = key->str();
        if (name == "form" || (name == "wave_speed" && law.flux_form == FluxForm::rusanov)) continue;
        if (law.env.lookup(name).kind == SymbolKind::field) {
          error(at(*key), form + " derives the numerical flux of every field from [volume_flux]; remove '" +
                              std::string(name) + "' here, or give the flux yourself with form = \"full\"");
        } else if (name == "wave_speed") {
          error(at(*key), "'wave_speed' is the lambda of form = \"rusanov\"; " + form + " has none");
        } else {
          unknown_key(*key, "[numerical_flux]", law.flux_form == FluxForm::rusanov ? "'form' or 'wave_speed'" : "'form'");
        }
      }
      if (wave_speed != nullptr && law.flux_form == FluxForm::rusanov) {
        law.wave_speed = expression(law, *wave_speed, Where::face, Shape::scalar, "'wave_speed'");
      }
      return;
    }
    for (const auto& [key, node] : ordered(table)) {
      if (key->str() == "wave_speed") {
        error(at(*key), "'wave_speed' is the lambda of form = \"rusanov\"; form = \"" +
                            std::string(to_string(law.flux_form)) + "\" has none");
      }
    }
    const std::string what = law.flux_form == FluxForm::difference ? "the flux difference n.(F - F*)" : "the numerical flux n.F*";
    if (wave_speed != nullptr) {
      law.numerical_flux = unwrap(per_field(law, table, "[numerical_flux]", Where::face, what, true,
                                            std::array<std::string_view, 2>{"form", "wave_speed"}));
    } else {
      law.numerical_flux = unwrap(per_field(law, table, "[numerical_flux]", Where::face, what, true,
                                            std::array<std::string_view, 1>{"form"}));
    }
  }

  // ----- definitions ----------------------------------------------------------------------
  // [definitions]: name = "expression". Every name is declared first, so bodies may use each
  // other in any order; then the uses are followed (no cycles allowed) and the bodies checked
  // so that each definition's shape is known before a body that uses it is checked.
  void read_definitions(const toml::table& root, Law& law) {
    const toml::table* table = table_at(root, "definitions", "'definitions'");
    if (table == nullptr) return;
    struct Pending {
      std::optional<Parsed> body;
      std::vector<std::pair<std::size_t, std::size_t>> uses;  // (definition, offset of the use in the body)
      bool failed = false;
    };
    std::vector<Pending> pending;
    for (const auto& [key, node] : ordered(*table)) {
      Definition d;
      d.name = std::string(key->str());
      d.where = at(*key);
      const Symbol clash = law.env.lookup(d.name);
      std::string problem;
      if (clash.kind == SymbolKind::field) {
        problem = "definition '" + d.name + "' has the name of the field declared at " + to_string(law.fields[clash.index].where);
      } else if (clash.kind == SymbolKind::parameter) {
        problem = "definition '" + d.name + "' has the name of the parameter declared at " +
                  to_string(law.parameters[clash.index].where);
      } else if (clash.kind == SymbolKind::incident) {
        problem = "definition '" + d.name + "' has the name of the incident field declared at " +
                  to_string(law.incident[clash.index].where);
      } else if (std::string why = law.env.add_definition(d.name); !why.empty()) {
        problem = "definition " + why;
      }
      if (!problem.empty()) {
        error(at(*key), problem + "; choose another name");
        continue;
      }
      Pending p;
      p.body = parsed(*node, "definition '" + d.name + "'");
      p.failed = !p.body;
      pending.push_back(std::move(p));
      law.definitions.push_back(std::move(d));
    }
    for (Pending& p : pending) {
      if (p.body) collect_uses(*p.body->ast, law.env, p.uses);
    }
    for (std::size_t i = 0; i < pending.size(); ++i) {
      for (const auto& use : pending[i].uses) law.definitions[i].uses.push_back(use.first);
      auto& uses = law.definitions[i].uses;
      std::sort(uses.begin(), uses.end());
      uses.erase(std::unique(uses.begin(), uses.end()), uses.end());
    }

    // Depth-first over the uses (iteratively: a law may have many definitions): post-order is
    // the order to check in, and a use of a definition still on the path closes a cycle.
    enum class Mark : unsigned char { new_, open, done };
    std::vector<Mark> mark(pending.size(), Mark::new_);
    std::vector<std::size_t> order;
    for (std::size_t start = 0; start < pending.size(); ++start) {
      if (mark[start] != Mark::new_) continue;
      std::vector<std::pair<std::size_t, std::size_t>> path{{start, 0}};  // (definition, next use)
      mark[start] = Mark::open;
      while (!path.empty()) {
        const std::size_t d = path.back().first;
        const std::size_t next = path.back().second++;
        if (next == pending[d].uses.size()) {
          mark[d] = Mark::done;
          order.push_back(d);
          path.pop_back();
          continue;
        }
        const auto [u, offset] = pending[d].uses[next];
        if (mark[u] == Mark::new_) {
          mark[u] = Mark::open;
          path.emplace_back(u, 0);
        } else if (mark[u] == Mark::open) {
          // u, ..., d is the cycle; d's use of u closes it.
          std::string cycle;
          const std::size_t used = u;  // clang before 16 cannot capture a structured binding
          auto first = std::find_if(path.begin(), path.end(), [used](const auto& entry) { return entry.first == used; });
          for (auto it = first; it != path.end(); ++it) {
            cycle += law.definitions[it->first].name + " -> ";
            pending[it->first].failed = true;
          }
          cycle += law.definitions[u].name;
          const Location where = pending[d].body->source->at(offset);
          if (u == d) {
            error(where, "definition '" + law.definitions[d].name + "' uses itself; a definition cannot use itself, "
                         "directly or through other definitions");
          } else {
            error(where, "definitions use each other in a cycle: " + cycle + "; a definition cannot use itself, "
                         "directly or through other definitions");
          }
        }
      }
    }

    for (std::size_t i : order) {
      Pending& p = pending[i];
      Definition& d = law.definitions[i];
      if (!p.body) continue;
      d.body.where = Where::definition;
      d.body.source = p.body->source;
      const std::size_t before = diagnostics_.size();
      check(*p.body->ast, law.env, Where::definition, *d.body.source, diagnostics_);
      Expr& ast = *p.body->ast;
      if (diagnostics_.size() != before || ast.shape == Shape::unknown) p.failed = true;
      if (!p.failed && ast.shape == Shape::boolean) {
        error(d.body.source->at(ast.begin), "definition '" + d.name + "' must be a scalar or a vector; a comparison "
                                             "can only be the first argument of if()");
        p.failed = true;
      }
      DefinitionShape shape;
      if (!p.failed) {
        shape.shape = ast.shape;
        depends(ast, law.env, shape);
      }
      law.env.set_definition(i, shape);
      d.body.ast = std::move(p.body->ast);
    }
  }

  // The definitions an expression uses by name (or as a trace), with where.
  static void collect_uses(const Expr& e, const Environment& env, std::vector<std::pair<std::size_t, std::size_t>>& uses) {
    if (e.kind == ExprKind::name || e.kind == ExprKind::trace) {
      const Symbol s = env.lookup(e.name);
      if (s.kind == SymbolKind::definition) uses.emplace_back(s.index, e.offset);
    }
    for (const auto& arg : e.args) collect_uses(*arg, env, uses);
  }

  // What a checked definition body depends on: fields, normal, incident fields, directly or
  // through the definitions it uses (checked before it).
  static void depends(const Expr& e, const Environment& env, DefinitionShape& shape) {
    if (e.kind == ExprKind::name || e.kind == ExprKind::trace) {
      switch (e.symbol.kind) {
        case SymbolKind::field: shape.state = true; break;
        case SymbolKind::normal: shape.normal = true; break;
        case SymbolKind::incident: shape.incident = true; break;
        case SymbolKind::definition: {
          const DefinitionShape& used = env.definitions()[e.symbol.index];
          shape.state = shape.state || used.state;
          shape.normal = shape.normal || used.normal;
          shape.incident = shape.incident || used.incident;
          break;
        }
        default: break;
      }
    }
    for (const auto& arg : e.args) depends(*arg, env, shape);
  }

  void read_expressions(const toml::table& root, Law& law) {
    read_volume_flux(root, law);

    if (const toml::table* table = table_at(root, "numerical_flux", "'numerical_flux'")) {
      read_numerical_flux(*table, law);
    } else if (root.get("numerical_flux") == nullptr) {
      error(Location{file_, 1, 1}, "missing [numerical_flux]: n.(F - F*) (form = \"difference\") or n.F* "
                                   "(form = \"full\") for each field, or form = \"rusanov\" or \"central\"");
    }

    if (const toml::table* boundaries = table_at(root, "boundary", "'boundary'")) {
      for (const auto& [key, node] : ordered(*boundaries)) {
        BoundaryCondition bc;
        bc.name = std::string(key->str());
        bc.where = at(*key);
        if (!Environment::is_identifier(bc.name)) {
          error(at(*key), "boundary condition name '" + bc.name + "' is not a name (letters, digits and '_')");
          continue;
        }
        const toml::table* table = node->as_table();
        if (table == nullptr) {
          error(at(*node), "boundary condition '" + bc.name + "' must be a table giving the exterior state of each field");
          continue;
        }
        if (const toml::node* d = table->get("description")) {
          if (auto s = string_at(*d, "'description'")) bc.description = *s;
        }
        bc.exterior = unwrap(per_field(law, *table, "[boundary." + bc.name + "]", Where::boundary,
                                       "the exterior state", true, std::array<std::string_view, 1>{"description"}));
        law.boundaries.push_back(std::move(bc));
      }
    }

    if (const toml::table* table = table_at(root, "source", "'source'")) {
      law.source = per_field(law, *table, "[source]", Where::volume, "the source term", false);
    } else {
      law.source.assign(law.fields.size(), std::nullopt);
    }
    if (const toml::table* table = table_at(root, "initial", "'initial'")) {
      law.initial = unwrap(per_field(law, *table, "[initial]", Where::pointwise, "the initial condition", true));
    }
    if (const toml::table* table = table_at(root, "exact", "'exact'")) {
      law.exact = unwrap(per_field(law, *table, "[exact]", Where::pointwise, "the exact solution", true));
    }
    if (const toml::node* speed = root.get("max_wave_speed")) {
      if (auto e = expression(law, *speed, Where::volume, Shape::scalar, "'max_wave_speed'")) law.max_wave_speed = std::move(*e);
    } else {
      error(Location{file_, 1, 1}, "missing max_wave_speed: an expression for the largest wave speed "
                                   "(it sets the time step)");
    }
  }

  std::string_view text_;
  std::string file_;
  Diagnostics diagnostics_;
};

}  // namespace

Law parse_law(std::string_view text, const std::string& file) {
  LawReader reader(text, file);
  return reader.read();
}

Law read_law(const std::filesystem::path& path) {
  // A regular file of at most a few MB (law.file = "/dev/zero" is refused, not read forever).
  const TextFile read = read_text_file(path, "law file");
  if (!read.ok()) throw Error(Location{path.string(), 0, 0}, read.problem);
  return parse_law(read.text, path.string());
}

}  // namespace fluxes
