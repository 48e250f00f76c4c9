// rtcg's device headers (core/rtcg/device_include/rtcg/*.h), embedded at build time, and those
// libraries register (rtcg/headers.hpp).
#pragma once

#include <rtcg/headers.hpp>

#include <string>
#include <vector>

namespace rtcg::detail {

using rtcg::EmbeddedHeader;

// rtcg's own, as CMake embedded them (rtcg_embed_headers).
std::vector<EmbeddedHeader> builtin_headers();

// Every header a compiler sees: rtcg's own, then the registered ones (rtcg::embedded_headers).
inline std::vector<EmbeddedHeader> embedded_headers() { return rtcg::embedded_headers(); }

}  // namespace rtcg::detail
