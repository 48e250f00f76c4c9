#include <rtcg/error.hpp>
#include <rtcg/kernel_arguments.hpp>
#include <rtcg/search_space.hpp>

#include <algorithm>
#include <set>
#include <sstream>
#include <stdexcept>

namespace rtcg::tune {

std::string to_string(const Point& point) {
  std::string text;
  for (const auto& [name, value] : point) {
    if (!text.empty()) text += ' ';
    text += name + "=" + std::to_string(value);
  }
  return text;
}

SearchSpace& SearchSpace::parameter(std::string name, std::vector<std::int64_t> values) {
  RTCG_VERIFY(is_identifier(name), "tuning parameter `" << name << "` is not an identifier");
  RTCG_VERIFY(std::none_of(parameters_.begin(), parameters_.end(), [&](const Parameter& p) { return p.name == name; }),
              "tuning parameter `" << name << "` is declared twice");
  RTCG_VERIFY(!values.empty(), "tuning parameter `" << name << "` has no candidate values");
  RTCG_VERIFY(std::set<std::int64_t>(values.begin(), values.end()).size() == values.size(),
              "tuning parameter `" << name << "` lists a value twice");
  parameters_.push_back({std::move(name), std::move(values)});
  return *this;
}

SearchSpace& SearchSpace::constraint(std::string description, std::function<bool(const Point&)> allows) {
  return constraint(std::move(description), {}, std::move(allows));
}

SearchSpace& SearchSpace::constraint(std::string description, std::vector<std::string> reads,
                                     std::function<bool(const Point&)> allows) {
  RTCG_VERIFY(allows, "constraint `" << description << "` has no predicate");
  constraints_.push_back({std::move(description), std::move(allows), std::move(reads)});
  return *this;
}

std::vector<Point> SearchSpace::points() const {
  std::vector<Point> result;
  if (parameters_.empty()) return result;
  const std::size_t n = parameters_.size();
  // Each constraint is checked at the depth where the last parameter it reads gets its value
  // (the last depth when it names none: on whole points).
  std::vector<std::vector<const Constraint*>> at_depth(n);
  for (const Constraint& c : constraints_) {
    std::size_t depth = c.reads.empty() ? n - 1 : 0;
    for (const std::string& name : c.reads) {
      const auto it = std::find_if(parameters_.begin(), parameters_.end(), [&](const Parameter& p) { return p.name == name; });
      RTCG_VERIFY(it != parameters_.end(),
                  "constraint `" << c.description << "` reads `" << name << "`, which is not a parameter of the space");
      depth = std::max(depth, static_cast<std::size_t>(it - parameters_.begin()));
    }
    at_depth[depth].push_back(&c);
  }
  auto allowed = [&](const Constraint& c, const Point& partial) {
    try {
      return c.allows(partial);
    } catch (const std::out_of_range&) {
      RTCG_VERIFY(false, "constraint `" << c.description << "` reads a parameter "
                                        << (c.reads.empty() ? "the space does not have" : "it does not name in its `reads`")
                                        << " (the point so far: " << to_string(partial) << ")");
      return false;
    }
  };
  // Depth-first in declaration order (the first parameter varies slowest): the partial point
  // holds the parameters 0 .. depth.
  Point point;
  std::vector<std::size_t> index(n, 0);
  std::size_t depth = 0;
  while (true) {
    const Parameter& parameter = parameters_[depth];
    if (index[depth] == parameter.values.size()) {
      // This parameter's values are done: back to the previous one.
      point.erase(parameter.name);
      index[depth] = 0;
      if (depth == 0) return result;
      --depth;
      ++index[depth];
      continue;
    }
    point[parameter.name] = parameter.values[index[depth]];
    const bool ok = std::all_of(at_depth[depth].begin(), at_depth[depth].end(),
                                [&](const Constraint* c) { return allowed(*c, point); });
    if (!ok) {
      ++index[depth];
    } else if (depth + 1 == n) {
      result.push_back(point);
      ++index[depth];
    } else {
      ++depth;
    }
  }
}

bool SearchSpace::contains(const Point& point, std::string* why_not) const {
  auto fail = [&](const std::string& why) {
    if (why_not) *why_not = why;
    return false;
  };
  if (point.size() != parameters_.size())
    return fail("it has " + std::to_string(point.size()) + " parameters, the space " + std::to_string(parameters_.size()));
  for (const auto& parameter : parameters_) {
    const auto it = point.find(parameter.name);
    if (it == point.end()) return fail("it has no value for `" + parameter.name + "`");
    if (std::find(parameter.values.begin(), parameter.values.end(), it->second) == parameter.values.end())
      return fail(parameter.name + "=" + std::to_string(it->second) + " is not a candidate value");
  }
  for (const auto& constraint : constraints_)
    if (!constraint.allows(point)) return fail("it breaks the constraint " + constraint.description);
  return true;
}

std::string SearchSpace::describe() const {
  std::ostringstream text;
  for (std::size_t p = 0; p < parameters_.size(); ++p) {
    if (p) text << "; ";
    text << parameters_[p].name << " in {";
    for (std::size_t v = 0; v < parameters_[p].values.size(); ++v) text << (v ? ", " : "") << parameters_[p].values[v];
    text << "}";
  }
  for (std::size_t c = 0; c < constraints_.size(); ++c) text << (c ? " and " : "; where ") << constraints_[c].description;
  return text.str();
}

}  // namespace rtcg::tune
