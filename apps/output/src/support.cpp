#include "support.hpp"

#include "output/error.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>
#include <system_error>

namespace rtdg::output::detail {
namespace {

std::string errno_text(int error) { return std::generic_category().message(error); }

}  // namespace

std::filesystem::path temporary_name(const std::filesystem::path& target, const std::string& suffix) {
  static std::atomic<unsigned> counter{0};
  const std::string name = "." + target.filename().string() + ".tmp-" + std::to_string(::getpid()) + "-" +
                           std::to_string(counter++) + suffix;
  return target.parent_path() / name;
}

void sync_path(const std::filesystem::path& path, bool directory, const std::string& source) {
  const int fd = ::open(path.empty() ? "." : path.c_str(), (directory ? O_RDONLY | O_DIRECTORY : O_RDONLY) | O_CLOEXEC);
  if (fd < 0) fail(source, "cannot open " + path.string() + " to sync it: " + errno_text(errno));
  const int status = ::fsync(fd);
  const int saved = errno;
  ::close(fd);
  // Some file systems cannot fsync a folder (EINVAL); the rename itself has happened.
  if (status != 0 && !(directory && (saved == EINVAL || saved == EROFS))) {
    fail(source, "fsync of " + path.string() + " failed: " + errno_text(saved));
  }
}


void fail(std::string_view source, const std::string& message) {
  throw Error(std::string(source) + ": " + message);
}

std::string format_double(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

std::string format_point(const double* point, int n) {
  std::string text = "(";
  for (int i = 0; i < n; ++i) text += (i > 0 ? ", " : "") + format_double(point[i]);
  return text + ")";
}

std::optional<double> parse_double(std::string_view text) {
  if (text == "nan") return std::nan("");
  if (text == "inf") return HUGE_VAL;
  if (text == "-inf") return -HUGE_VAL;
  double value = 0;
  const auto result = std::from_chars(text.data(), text.data() + text.size(), value);
  if (result.ec != std::errc() || result.ptr != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<long long> parse_integer(std::string_view text) {
  long long value = 0;
  const auto result = std::from_chars(text.data(), text.data() + text.size(), value);
  if (result.ec != std::errc() || result.ptr != text.data() + text.size()) return std::nullopt;
  return value;
}

std::string format_name_list(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "'" : ", '") + name + "'";
  return text.empty() ? "(none)" : text;
}

void publish_atomically(const std::filesystem::path& target, const std::string& suffix,
                        const std::function<void(const std::filesystem::path&)>& write) {
  const std::string source = target.string();
  if (target.filename().empty()) fail(source, "the output needs a file name");
  std::error_code error;
  if (std::filesystem::is_directory(target, error)) fail(source, "is a folder; the output needs a file name");
  const std::filesystem::path folder = target.parent_path();
  if (!folder.empty() && !std::filesystem::is_directory(folder, error)) {
    fail(source, "cannot write: the folder " + folder.string() + " does not exist");
  }
  const std::filesystem::path temporary = temporary_name(target, suffix);
  try {
    write(temporary);
    if (!std::filesystem::is_regular_file(temporary, error)) fail(source, "the writer produced no file");
    sync_path(temporary, false, source);
    std::filesystem::rename(temporary, target, error);
    if (error) fail(source, "cannot move the finished file into place: " + error.message());
  } catch (...) {
    std::error_code ignored;
    std::filesystem::remove(temporary, ignored);
    throw;
  }
  sync_path(target.parent_path(), true, source);
}

void write_file_atomically(const std::filesystem::path& target, std::string_view contents) {
  publish_atomically(target, ".tmp", [&](const std::filesystem::path& temporary) {
    const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) fail(target.string(), "cannot create " + temporary.string() + ": " + errno_text(errno));
    std::size_t done = 0;
    while (done < contents.size()) {
      const ssize_t n = ::write(fd, contents.data() + done, contents.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        const int saved = errno;
        ::close(fd);
        fail(target.string(), "cannot write " + temporary.string() + ": " + errno_text(saved));
      }
      done += static_cast<std::size_t>(n);
    }
    if (::close(fd) != 0) fail(target.string(), "cannot close " + temporary.string() + ": " + errno_text(errno));
  });
}

std::string read_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) fail(file.string(), "cannot open for reading");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) fail(file.string(), "cannot read");
  return text.str();
}

}  // namespace rtdg::output::detail
