// Errors raised by rtcg. Two tiers, as in MFEM and deal.II:
//   RTCG_VERIFY(cond, msg)  always on: user input, the environment, the device.
//   RTCG_ASSERT(cond)       debug builds only: internal invariants.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>

namespace rtcg {

// Base of every error rtcg throws; what() is a complete message for a user.
class Error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// A compile failed. what() has the compiler log, the options and the source lines around each
// reported error; the parts are also kept separately.
class CompileError : public Error {
public:
  CompileError(std::string message, std::string log, std::string source)
      : Error(std::move(message)), log_(std::move(log)), source_(std::move(source)) {}
  const std::string& log() const noexcept { return log_; }
  const std::string& source() const noexcept { return source_; }

private:
  std::string log_;
  std::string source_;
};

// A launch was refused: wrong arguments, a block too large, no such kernel.
class LaunchError : public Error {
public:
  using Error::Error;
};

// The device or driver said no (out of memory, no device, a failed driver call).
class DeviceError : public Error {
public:
  using Error::Error;
};

namespace detail {
[[noreturn]] void throw_verify_failure(const char* file, int line, const std::string& message);
}  // namespace detail

}  // namespace rtcg

#define RTCG_VERIFY(cond, msg)                                                     \
  do {                                                                             \
    if (!(cond)) {                                                                 \
      std::ostringstream rtcg_verify_stream_;                                      \
      rtcg_verify_stream_ << msg;                                                  \
      ::rtcg::detail::throw_verify_failure(__FILE__, __LINE__, rtcg_verify_stream_.str()); \
    }                                                                              \
  } while (false)

#ifdef NDEBUG
#define RTCG_ASSERT(cond) ((void)0)
#else
#define RTCG_ASSERT(cond) RTCG_VERIFY(cond, "internal error: assertion `" #cond "` failed")
#endif
