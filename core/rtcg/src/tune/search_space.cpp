#include <rtcg/error.hpp>
#include <rtcg/kernel_arguments.hpp>
#include <rtcg/search_space.hpp>

#include <algorithm>
#include <set>
#include <sstream>

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
  RTCG_VERIFY(allows, "constraint `" << description << "` has no predicate");
  constraints_.push_back({std::move(description), std::move(allows)});
  return *this;
}

std::vector<Point> SearchSpace::points() const {
  std::vector<Point> result;
  if (parameters_.empty()) return result;
  std::vector<std::size_t> index(parameters_.size(), 0);
  while (true) {
    Point point;
    for (std::size_t p = 0; p < parameters_.size(); ++p) point[parameters_[p].name] = parameters_[p].values[index[p]];
    if (std::all_of(constraints_.begin(), constraints_.end(), [&](const Constraint& c) { return c.allows(point); }))
      result.push_back(std::move(point));
    // Odometer: the last parameter varies fastest.
    std::size_t p = parameters_.size();
    while (true) {
      --p;
      if (++index[p] < parameters_[p].values.size()) break;
      index[p] = 0;
      if (p == 0) return result;
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
