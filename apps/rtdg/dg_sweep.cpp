#include "rtdg/dg_sweep.hpp"

#include <dg/element.hpp>
#include <rtcg/error.hpp>

#include <algorithm>
#include <sstream>

namespace rtdg::app {
namespace {

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, separator);) parts.push_back(part);
  return parts;
}

int parse_order(const std::string& text, const std::string& whole) {
  std::size_t used = 0;
  int value = 0;
  try {
    value = std::stoi(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size())
    throw rtcg::Error("--orders: '" + whole + "' is not a list of orders (e.g. 1-7 or 2,4,6)");
  if (value < dg::min_order || value > dg::max_order)
    throw rtcg::Error("--orders: order " + text + " is outside " + std::to_string(dg::min_order) + ".." +
                      std::to_string(dg::max_order));
  return value;
}

}  // namespace

std::vector<int> parse_orders(const std::string& text) {
  std::vector<int> orders;
  for (const std::string& part : split(text, ',')) {
    const auto dash = part.find('-');
    if (dash == std::string::npos) {
      orders.push_back(parse_order(part, text));
      continue;
    }
    const int first = parse_order(part.substr(0, dash), text), last = parse_order(part.substr(dash + 1), text);
    if (first > last) throw rtcg::Error("--orders: the range '" + part + "' runs backwards");
    for (int N = first; N <= last; ++N) orders.push_back(N);
  }
  if (orders.empty()) throw rtcg::Error("--orders: no orders given");
  std::sort(orders.begin(), orders.end());
  orders.erase(std::unique(orders.begin(), orders.end()), orders.end());
  return orders;
}

std::vector<std::string> parse_precisions(const std::string& text) {
  std::vector<std::string> out;
  for (const std::string& part : split(text, ',')) {
    if (part != "float" && part != "double")
      throw rtcg::Error("--precision: '" + part + "' is not float or double");
    if (std::find(out.begin(), out.end(), part) == out.end()) out.push_back(part);
  }
  if (out.empty()) throw rtcg::Error("--precision: none given");
  return out;
}

}  // namespace rtdg::app
