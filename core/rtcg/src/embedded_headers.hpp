// rtdg's device headers (core/rtcg/device_include/rtcg/*.h), embedded at build time.
#pragma once

#include <string>
#include <vector>

namespace rtcg::detail {

struct EmbeddedHeader {
  std::string name;     // as included: "rtcg/kernel.h"
  std::string content;
};

const std::vector<EmbeddedHeader>& embedded_headers();

}  // namespace rtcg::detail
