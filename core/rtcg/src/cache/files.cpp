#include "cache/files.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <system_error>

namespace rtcg::cache_detail {

UniqueFd& UniqueFd::operator=(UniqueFd&& other) noexcept {
  if (this != &other) {
    reset();
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

void UniqueFd::reset() noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

void throw_errno(int error, std::string_view call, const std::filesystem::path& path) {
  throw std::system_error(error, std::generic_category(), std::string(call) + " " + path.string());
}

UniqueFd open_nofollow(const std::filesystem::path& path, int flags, mode_t mode) {
  int fd = -1;
  do {
    fd = ::open(path.c_str(), flags | O_CLOEXEC | O_NOFOLLOW, mode);
  } while (fd < 0 && errno == EINTR);
  return UniqueFd(fd);
}

std::size_t read_at(int fd, char* data, std::size_t size, off_t offset,
                    const std::filesystem::path& path) {
  std::size_t done = 0;
  while (done < size) {
    const ssize_t got = ::pread(fd, data + done, size - done, offset + static_cast<off_t>(done));
    if (got < 0) {
      if (errno == EINTR) continue;
      throw_errno(errno, "pread", path);
    }
    if (got == 0) break;
    done += static_cast<std::size_t>(got);
  }
  return done;
}

namespace {

void write_all(int fd, std::string_view bytes, const std::filesystem::path& path) {
  while (!bytes.empty()) {
    const ssize_t wrote = ::write(fd, bytes.data(), bytes.size());
    if (wrote < 0) {
      if (errno == EINTR) continue;
      throw_errno(errno, "write", path);
    }
    bytes.remove_prefix(static_cast<std::size_t>(wrote));
  }
}

constexpr std::string_view kTemporaryMarker = ".tmp.";

}  // namespace

void make_private_dir(const std::filesystem::path& path) {
  if (::mkdir(path.c_str(), 0700) == 0) return;
  const int error = errno;
  struct stat info {};
  if (error == EEXIST && ::lstat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode)) return;
  throw_errno(error == EEXIST ? ENOTDIR : error, "mkdir", path);
}

void make_private_dirs(const std::filesystem::path& path) {
  if (path.empty()) return;  // the parent of a relative path's first component
  struct stat info {};
  if (::lstat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode)) return;
  if (path.has_relative_path() && path.parent_path() != path) make_private_dirs(path.parent_path());
  make_private_dir(path);
}

void write_file_atomically(const std::filesystem::path& target,
                           std::initializer_list<std::string_view> parts, Durability durability) {
  // pid + counter makes the name unique among live writers; O_EXCL catches a leftover from a
  // crashed process that had the same pid, and we move on to the next counter.
  static std::atomic<unsigned> counter{0};
  std::filesystem::path temporary;
  UniqueFd fd;
  for (int attempt = 0; attempt < 100 && !fd; ++attempt) {
    temporary = target;
    temporary += std::string(kTemporaryMarker) + std::to_string(::getpid()) + "." +
                 std::to_string(counter.fetch_add(1));
    fd = open_nofollow(temporary, O_WRONLY | O_CREAT | O_EXCL, 0600);
    if (!fd && errno != EEXIST) throw_errno(errno, "open", temporary);
  }
  if (!fd) throw_errno(EEXIST, "open", temporary);
  try {
    for (const auto part : parts) write_all(fd.get(), part, temporary);
    // Without fsync a crash after the rename could leave a named but empty entry (ext4 and
    // xfs may commit the rename before the data).
    if (durability == Durability::fsync && ::fsync(fd.get()) != 0)
      throw_errno(errno, "fsync", temporary);
    // close() reports delayed write errors (NFS, quotas); the descriptor is gone either way.
    if (::close(fd.release()) != 0) throw_errno(errno, "close", temporary);
    if (::rename(temporary.c_str(), target.c_str()) != 0) throw_errno(errno, "rename", target);
  } catch (...) {
    ::unlink(temporary.c_str());
    throw;
  }
}

std::optional<std::string> read_small_file(const std::filesystem::path& path) {
  UniqueFd fd = open_nofollow(path, O_RDONLY);
  if (!fd) {
    if (errno == ENOENT) return std::nullopt;
    throw_errno(errno, "open", path);
  }
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0) throw_errno(errno, "fstat", path);
  std::string bytes(static_cast<std::size_t>(info.st_size), '\0');
  bytes.resize(read_at(fd.get(), bytes.data(), bytes.size(), 0, path));
  return bytes;
}

bool is_temporary_name(std::string_view file_name) {
  return file_name.find(kTemporaryMarker) != std::string_view::npos;
}

bool FileLock::still_at_path(int fd, const std::filesystem::path& path) {
  struct stat locked {};
  struct stat current {};
  if (::fstat(fd, &locked) != 0) return false;
  if (::lstat(path.c_str(), &current) != 0) return false;
  return locked.st_dev == current.st_dev && locked.st_ino == current.st_ino;
}

FileLock FileLock::acquire(const std::filesystem::path& path) {
  for (;;) {
    UniqueFd fd = open_nofollow(path, O_RDWR | O_CREAT, 0600);
    if (!fd) throw_errno(errno, "open", path);
    int status = 0;
    do {
      status = ::flock(fd.get(), LOCK_EX);
    } while (status != 0 && errno == EINTR);
    if (status != 0) throw_errno(errno, "flock", path);
    if (still_at_path(fd.get(), path)) return FileLock(std::move(fd), path);
    // The file we locked was deleted (by its previous holder) meanwhile: lock the new one.
  }
}

std::optional<FileLock> FileLock::try_acquire_existing(const std::filesystem::path& path) {
  UniqueFd fd = open_nofollow(path, O_RDWR);
  if (!fd) return std::nullopt;
  if (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) return std::nullopt;
  if (!still_at_path(fd.get(), path)) return std::nullopt;
  return FileLock(std::move(fd), path);
}

void FileLock::remove() noexcept {
  if (fd_) ::unlink(path_.c_str());
  fd_.reset();
}

}  // namespace rtcg::cache_detail
