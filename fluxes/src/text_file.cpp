// read_text_file (fluxes/text_file.hpp).
#include "fluxes/text_file.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fluxes {

TextFile read_text_file(const std::filesystem::path& file, std::string_view kind, std::uintmax_t limit) {
  TextFile result;
  const std::string what(kind);
  // O_NONBLOCK: opening a FIFO must not wait for a writer; the type is checked on what was opened.
  const int fd = ::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    const int error = errno;
    result.problem = error == ENOENT ? what + " not found" : "cannot open the " + what + ": " + std::strerror(error);
    return result;
  }
  struct stat info {};
  if (::fstat(fd, &info) != 0) {
    result.problem = "cannot read the " + what + ": " + std::strerror(errno);
  } else if (S_ISDIR(info.st_mode)) {
    result.problem = "is a folder, not a " + what;
  } else if (!S_ISREG(info.st_mode)) {
    result.problem = "is not a regular file (a FIFO, device or socket); rtdg reads a " + what + " only from a regular file";
  } else if (static_cast<std::uintmax_t>(info.st_size) > limit) {
    result.problem = "is " + std::to_string(info.st_size) + " bytes, more than a " + what + " can be (the limit is " +
                     std::to_string(limit >> 20) + " MB): check that this is the file you meant";
  } else {
    // Read to the end, but never past the limit (a file that grows while it is read).
    std::string text;
    char buffer[65536];
    for (;;) {
      const ssize_t n = ::read(fd, buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        result.problem = "cannot read the " + what + ": " + std::strerror(errno);
        break;
      }
      if (n == 0) break;
      text.append(buffer, static_cast<std::size_t>(n));
      if (text.size() > limit) {
        result.problem = "grew past " + std::to_string(limit >> 20) + " MB while it was read, more than a " + what + " can be";
        break;
      }
    }
    if (result.problem.empty()) result.text = std::move(text);
  }
  ::close(fd);
  return result;
}

}  // namespace fluxes
