// Device headers embedded in a library: every compiler finds them by name (NVRTC as in-memory
// headers, the host compiler from a per-process copy) and their text is part of every cache
// key that includes them. rtcg's own (rtcg/kernel.h, rtcg/host_export.h) are always there; a
// library adds its own once, before it compiles, from the list rtcg_embed_headers (CMake,
// RtcgEmbedHeaders.cmake) writes for it.
#pragma once

#include <string>
#include <vector>

namespace rtcg {

struct EmbeddedHeader {
  std::string name;     // as included: "rtcg/kernel.h"
  std::string content;
};

// Adds `headers` to those every compiler sees. A header of a name already there replaces it.
// Thread-safe; compiles started before see the headers of before.
void register_headers(const std::vector<EmbeddedHeader>& headers);

// rtcg's own headers and every registered one.
std::vector<EmbeddedHeader> embedded_headers();

}  // namespace rtcg
