// RTCG_VERIFY's out-of-line half: building the message here keeps the macro small at every
// call site.
#include <rtcg/error.hpp>

#include <string>

namespace rtcg::detail {

void throw_verify_failure(const char* file, int line, const std::string& message) {
#ifdef NDEBUG
  // Release builds: the message is for users, who have no use for rtdg's source locations.
  static_cast<void>(file);
  static_cast<void>(line);
  throw Error(message);
#else
  // Debug builds: where it was raised, after the message so the message still reads first.
  std::string where = file;
  if (const auto slash = where.find_last_of('/'); slash != std::string::npos) {
    where.erase(0, slash + 1);
  }
  throw Error(message + " [" + where + ":" + std::to_string(line) + "]");
#endif
}

}  // namespace rtcg::detail
