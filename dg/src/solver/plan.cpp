#include "dg/plan.hpp"

#include "dg/error.hpp"

#include <algorithm>

namespace rtdg::dg {

const char* to_string(Layout layout) {
  return layout == Layout::field_major ? "field_major" : "element_major";
}

Layout parse_layout(const std::string& text) {
  if (text == "field_major") return Layout::field_major;
  if (text == "element_major") return Layout::element_major;
  throw Error("unknown memory layout '" + text + "'; valid layouts: field_major, element_major");
}

int elements_per_block(int requested, int threads_per_element) {
  if (requested > 0) return requested;
  // About 128 threads per block, at least one element, and never more than 1024 threads.
  const int per_element = std::max(1, threads_per_element);
  return std::clamp(128 / per_element, 1, std::max(1, 1024 / per_element));
}

std::string Plan::describe() const {
  auto count = [](int n) { return n > 0 ? std::to_string(n) : std::string("auto"); };
  return std::string(to_string(layout)) + ", volume " + count(volume_elements_per_block) + " elements/block, surface " +
         count(surface_elements_per_block) + " elements/block, update " + std::to_string(update_block_size) +
         " threads/block";
}

}  // namespace rtdg::dg
