// What `rtdg tune dg` and `rtdg bench dg` share: the orders and precisions of a sweep, parsed
// from the command line ("1-7", "2,4,6"; "float,double"), and a solver for each case.
#pragma once

#include <string>
#include <vector>

namespace rtdg::app {

// "1-7", "3", "2,4-6" -> ascending distinct orders; throws rtcg::Error for a bad text or an
// order outside dg::min_order..dg::max_order.
std::vector<int> parse_orders(const std::string& text);
// "float,double" -> {"float", "double"}; throws for anything else.
std::vector<std::string> parse_precisions(const std::string& text);

}  // namespace rtdg::app
