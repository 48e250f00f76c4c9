// The registry of embedded device headers (rtcg/headers.hpp).
#include "embedded_headers.hpp"

#include <mutex>

namespace rtcg {
namespace {

std::mutex& registry_mutex() {
  static std::mutex mutex;
  return mutex;
}

std::vector<EmbeddedHeader>& registry() {
  static std::vector<EmbeddedHeader> headers = detail::builtin_headers();
  return headers;
}

}  // namespace

void register_headers(const std::vector<EmbeddedHeader>& headers) {
  const std::lock_guard<std::mutex> lock(registry_mutex());
  std::vector<EmbeddedHeader>& all = registry();
  for (const EmbeddedHeader& header : headers) {
    bool replaced = false;
    for (EmbeddedHeader& known : all)
      if (known.name == header.name) {
        known.content = header.content;
        replaced = true;
      }
    if (!replaced) all.push_back(header);
  }
}

std::vector<EmbeddedHeader> embedded_headers() {
  const std::lock_guard<std::mutex> lock(registry_mutex());
  return registry();
}

}  // namespace rtcg
