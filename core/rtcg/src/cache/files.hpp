// POSIX file primitives for the disk cache: owned descriptors, whole reads and writes, atomic
// publication and flock-based locks. Failures throw std::system_error whose what() names the
// call and the path, so DiskCache can turn them into one actionable warning.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace rtcg::cache_detail {

class UniqueFd {
public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) noexcept : fd_(fd) {}
  ~UniqueFd() { reset(); }
  UniqueFd(UniqueFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept;
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;

  int get() const noexcept { return fd_; }
  explicit operator bool() const noexcept { return fd_ >= 0; }
  void reset() noexcept;
  int release() noexcept { return std::exchange(fd_, -1); }  // the caller closes it

private:
  int fd_ = -1;
};

[[noreturn]] void throw_errno(int error, std::string_view call, const std::filesystem::path& path);

// open(2) with O_CLOEXEC | O_NOFOLLOW added: a planted symlink is never followed. Returns an
// empty descriptor (errno set) instead of throwing, since a missing file is often just a miss.
UniqueFd open_nofollow(const std::filesystem::path& path, int flags, mode_t mode = 0600);

// pread(2) until `size` bytes or end of file; returns how many were read.
std::size_t read_at(int fd, char* data, std::size_t size, off_t offset,
                    const std::filesystem::path& path);

// mkdir(path, 0700); an existing folder is fine, anything else there (a file, a symlink) is an
// error.
void make_private_dir(const std::filesystem::path& path);
// make_private_dir for `path` and each missing parent.
void make_private_dirs(const std::filesystem::path& path);

// Writes the concatenation of `parts` to a temporary file beside `target` (mode 0600), fsyncs
// it (when `durable`) and renames it over `target`: readers see the old file or the new one,
// never a part. Without fsync a crash soon after may leave `target` empty or short, which is
// fine for files whose readers check them (stats, explain records) and saves milliseconds.
enum class Durability { fsync, none };
void write_file_atomically(const std::filesystem::path& target,
                           std::initializer_list<std::string_view> parts,
                           Durability durability = Durability::fsync);

// Reads a small whole file; nullopt when it does not exist.
std::optional<std::string> read_small_file(const std::filesystem::path& path);

// True for the names write_file_atomically gives its temporary files.
bool is_temporary_name(std::string_view file_name);

// An exclusive flock(2) on a lock file. The kernel drops it when the process dies, so a
// crashed holder never blocks anyone. Lock files may be deleted (by eviction or clear) only
// while held, and acquire() re-checks after locking that the file it locked is still the one
// at the path: a waiter that locked a just-deleted file retries on the new one, so two
// processes never both believe they hold the lock.
class FileLock {
public:
  // Blocks until the lock is held; creates the lock file (0600) if needed.
  static FileLock acquire(const std::filesystem::path& path);
  // Does not block and does not create: nullopt when the file is missing or the lock is held.
  static std::optional<FileLock> try_acquire_existing(const std::filesystem::path& path);

  // Deletes the lock file while holding it, then releases it.
  void remove() noexcept;

private:
  FileLock(UniqueFd fd, std::filesystem::path path) : fd_(std::move(fd)), path_(std::move(path)) {}
  static bool still_at_path(int fd, const std::filesystem::path& path);

  UniqueFd fd_;  // closing it releases the lock
  std::filesystem::path path_;
};

}  // namespace rtcg::cache_detail
