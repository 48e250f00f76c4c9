#include "output/solution.hpp"

#include "support.hpp"

#include <dg/discretization.hpp>
#include <dg/error.hpp>

#include <algorithm>
#include <set>

namespace rtdg::output {

Solution make_solution(const dg::Discretization& discretization) {
  const dg::Element& element = discretization.element;
  Solution solution;
  solution.shape = element.shape;
  solution.dim = discretization.dim;
  solution.N = element.N;
  solution.K = discretization.K;
  solution.Np = element.Np;
  // Np x K column-major: flat k * Np + i, the [K][Np] layout.
  const auto copy = [](const Eigen::MatrixXd& m) { return std::vector<double>(m.data(), m.data() + m.size()); };
  solution.x = copy(discretization.x);
  solution.y = copy(discretization.y);
  if (discretization.dim == 3) solution.z = copy(discretization.z);
  return solution;
}

void check_solution(const Solution& s, std::string_view context) {
  using detail::fail;
  if (s.dim != dg::dimension(s.shape)) {
    fail(context, "dim " + std::to_string(s.dim) + " does not match the " + std::string(dg::shape_name(s.shape)) +
                      " elements (dimension " + std::to_string(dg::dimension(s.shape)) + ")");
  }
  if (s.N < 1) fail(context, "polynomial order N = " + std::to_string(s.N) + "; it must be at least 1");
  if (s.K < 0) fail(context, "K = " + std::to_string(s.K) + " elements; it must not be negative");
  if (s.Np != dg::num_nodes(s.shape, s.N)) {
    fail(context, "Np = " + std::to_string(s.Np) + " but a " + std::string(dg::shape_name(s.shape)) + " of order " +
                      std::to_string(s.N) + " has " + std::to_string(dg::num_nodes(s.shape, s.N)) + " nodes");
  }
  const std::size_t nodes = detail::ix(s.K) * detail::ix(s.Np);
  const auto check_size = [&](const std::vector<double>& v, const char* name, std::size_t expected) {
    if (v.size() != expected) {
      fail(context, std::string(name) + " has " + std::to_string(v.size()) + " entries, expected " +
                        std::to_string(expected) + " (K = " + std::to_string(s.K) + " x Np = " + std::to_string(s.Np) +
                        (expected == 0 || expected == nodes ? ")" : " x components)"));
    }
  };
  check_size(s.x, "x", nodes);
  check_size(s.y, "y", s.dim >= 2 ? nodes : 0);
  check_size(s.z, "z", s.dim >= 3 ? nodes : 0);
  if (s.names.empty()) fail(context, "the solution has no components");
  std::set<std::string> seen;
  for (const std::string& name : s.names) {
    if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos) {
      fail(context, "component name '" + name + "' cannot be stored (it must be non-empty, contain no '/' and not be "
                    "'.' or '..')");
    }
    if (!seen.insert(name).second) fail(context, "component name '" + name + "' appears twice");
  }
  check_size(s.values, "values", s.names.size() * nodes);
  if (s.precision != "float" && s.precision != "double") {
    fail(context, "precision '" + s.precision + "' is neither \"float\" nor \"double\"");
  }
}

}  // namespace rtdg::output
