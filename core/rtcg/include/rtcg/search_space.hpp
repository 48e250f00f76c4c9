// A tuning search space: named integer parameters, each with candidate values, and
// constraints that rule out combinations. A point assigns one value to every parameter.
//
//   rtcg::tune::SearchSpace space;
//   space.parameter("block", {128, 256, 512}).parameter("items", {1, 2, 4, 8})
//        .constraint("block * items <= 2048", [](const Point& p) { return p.at("block") * p.at("items") <= 2048; });
//   for (const Point& p : space.points()) ...   // cartesian product, declaration order, filtered
//
// A constraint that names the parameters it reads (`reads`) is checked as soon as those have
// values, so points() skips every combination of the later parameters under a prefix it rules
// out: a space of millions of combinations with a few thousand allowed ones is enumerated in
// milliseconds instead of seconds. Without `reads` it is checked on whole points. A predicate
// that reads a parameter it did not name gets an error that says so (the parameter is absent
// from the partial point, so Point::at throws).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace rtcg::tune {

using Point = std::map<std::string, std::int64_t>;

// "block=256 items=4" (parameters in name order).
std::string to_string(const Point& point);

struct Constraint {
  std::string description;  // shown when a point is ruled out, e.g. "block * items <= 2048"
  std::function<bool(const Point&)> allows;
  std::vector<std::string> reads;  // the parameters `allows` reads; empty: all of them
};

class SearchSpace {
public:
  // Adds a parameter; names must be identifiers and distinct, values non-empty and distinct.
  SearchSpace& parameter(std::string name, std::vector<std::int64_t> values);
  SearchSpace& constraint(std::string description, std::function<bool(const Point&)> allows);
  // The same, checked on partial points once the parameters in `reads` have values (above).
  SearchSpace& constraint(std::string description, std::vector<std::string> reads,
                          std::function<bool(const Point&)> allows);

  // Every combination the constraints allow: the first parameter varies slowest.
  std::vector<Point> points() const;
  // Whether `point` has exactly this space's parameters, candidate values, and passes the
  // constraints; when not, why_not (if given) says which.
  bool contains(const Point& point, std::string* why_not = nullptr) const;
  // "block in {128, 256}; items in {1, 2}; where block * items <= 2048".
  std::string describe() const;

  struct Parameter {
    std::string name;
    std::vector<std::int64_t> values;
  };
  const std::vector<Parameter>& parameters() const noexcept { return parameters_; }

private:
  std::vector<Parameter> parameters_;
  std::vector<Constraint> constraints_;
};

}  // namespace rtcg::tune
