#include "temp_file.hpp"

#include "text.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <system_error>

namespace rtdg::mesh::detail {
namespace {

std::filesystem::path temporary_name(const std::filesystem::path& target, const std::string& suffix) {
  static std::atomic<unsigned> counter{0};
  const std::string name = "." + target.filename().string() + ".tmp-" + std::to_string(::getpid()) + "-" +
                           std::to_string(counter++) + suffix;
  return target.parent_path() / name;
}

void sync_file(const std::filesystem::path& file) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail(file.string(), "cannot reopen to sync: " + std::generic_category().message(errno));
  const int status = ::fsync(fd);
  const int saved = errno;
  ::close(fd);
  if (status != 0) fail(file.string(), "fsync failed: " + std::generic_category().message(saved));
}

}  // namespace

void publish_atomically(const std::filesystem::path& target, const std::string& suffix,
                        const std::function<void(const std::filesystem::path&)>& write) {
  if (target.filename().empty()) fail(target.string(), "the output needs a file name");
  const std::filesystem::path temporary = temporary_name(target, suffix);
  try {
    write(temporary);
    if (!std::filesystem::is_regular_file(temporary)) fail(target.string(), "the writer produced no file");
    sync_file(temporary);
    std::error_code error;
    std::filesystem::rename(temporary, target, error);
    if (error) fail(target.string(), "cannot move the finished file into place: " + error.message());
  } catch (...) {
    std::error_code ignored;
    std::filesystem::remove(temporary, ignored);
    throw;
  }
}

}  // namespace rtdg::mesh::detail
