// register_device_headers (dg/kernels.hpp): dg's device headers, embedded by CMake
// (rtcg_embed_headers in dg/CMakeLists.txt), handed to rtcg once.
#include "dg/kernels.hpp"

#include <rtcg/headers.hpp>

#include <mutex>

namespace rtdg::dg {
namespace kernels {
std::vector<rtcg::EmbeddedHeader> embedded_device_headers();  // generated: dg_device_headers.cpp
}  // namespace kernels

void register_device_headers() {
  static std::once_flag once;
  std::call_once(once, [] { rtcg::register_headers(kernels::embedded_device_headers()); });
}

}  // namespace rtdg::dg
