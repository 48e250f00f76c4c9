// RunFolder (runner/run_folder.hpp): the manifest and the lock of a run's output folder.
#include "runner/run_folder.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <sstream>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace rtdg::runner {
namespace fs = std::filesystem;

namespace {

constexpr const char* kHeader = "rtdg-manifest 1";
// A manifest lists a few lines per output; 64 MB is millions of outputs, far past any run, and
// keeps a damaged or foreign file from being read whole.
constexpr std::uintmax_t kManifestLimit = 64u << 20;

std::string errno_text(int error) { return std::strerror(error); }

std::string trim(const std::string& text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  const auto last = text.find_last_not_of(" \t");
  return text.substr(first, last - first + 1);
}

std::string format_time(double t) {
  char text[40];
  std::snprintf(text, sizeof text, "%.17g", t);
  return text;
}

// A relative path that stays inside the folder, in one line of the manifest.
bool valid_relative(const std::string& relative) {
  if (relative.empty() || relative.find('\n') != std::string::npos || relative.find('\r') != std::string::npos) return false;
  const fs::path p(relative);
  if (p.is_absolute()) return false;
  for (const fs::path& part : p)
    if (part == "..") return false;
  return true;
}

bool exists_no_follow(const fs::path& p) {
  std::error_code ec;
  return fs::exists(fs::symlink_status(p, ec));
}

bool is_empty_folder(const fs::path& p) {
  std::error_code ec;
  if (!fs::is_directory(fs::symlink_status(p, ec))) return false;
  return fs::is_empty(p, ec) && !ec;
}

// The pid written in a lock file, or "unknown".
std::string lock_holder(const fs::path& lock) {
  std::ifstream in(lock);
  std::string pid;
  if (in) std::getline(in, pid);
  pid = trim(pid);
  const bool digits = !pid.empty() && pid.size() < 12 && std::all_of(pid.begin(), pid.end(), [](char c) { return c >= '0' && c <= '9'; });
  return digits ? pid : "unknown";
}

}  // namespace

std::string override_key(const std::string& override_text) {
  const auto equals = override_text.find('=');
  return trim(equals == std::string::npos ? override_text : override_text.substr(0, equals));
}

RunFolder::RunFolder(fs::path dir) : dir_(std::move(dir)) {
  std::error_code ec;
  const fs::file_status status = fs::symlink_status(dir_, ec);
  if (!fs::exists(status)) {
    fs::create_directories(dir_, ec);
    if (ec) throw RunFolderError("cannot create the output folder " + dir_.string() + ": " + ec.message());
    created_ = true;
  } else if (!fs::is_directory(fs::status(dir_, ec))) {
    throw RunFolderError("the output folder " + dir_.string() + " exists and is not a folder; set run.output_dir to a folder");
  }
  const fs::path lock = dir_ / kLock;
  // The lock file of an earlier run that ended holds no lock: taken over. One that another run
  // holds refuses this one. A lock file replaced between open and flock (its run ended and
  // removed it while this one opened it) is opened again.
  for (int attempt = 0; attempt < 5 && lock_fd_ < 0; ++attempt) {
    const int fd = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0) {
      const int error = errno;
      throw RunFolderError("cannot make the lock file " + lock.string() + ": " + errno_text(error) +
                           (error == ELOOP ? " (it is a symbolic link; remove it)" : ""));
    }
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int error = errno;
      ::close(fd);
      if (error == EWOULDBLOCK)
        throw RunFolderError("another rtdg run (pid " + lock_holder(lock) + ") is writing into the output folder " +
                             dir_.string() + " (it holds " + lock.string() +
                             "); wait for it to end, or set run.output_dir to another folder");
      throw RunFolderError("cannot lock " + lock.string() + ": " + errno_text(error));
    }
    struct stat held {}, now {};
    if (::fstat(fd, &held) == 0 && ::lstat(lock.c_str(), &now) == 0 && held.st_ino == now.st_ino && held.st_dev == now.st_dev) {
      lock_fd_ = fd;
    } else {
      ::close(fd);
    }
  }
  if (lock_fd_ < 0) throw RunFolderError("cannot lock " + lock.string() + ": it keeps being replaced");
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(lock_fd_, 0) != 0 || ::pwrite(lock_fd_, pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size())) {
    const int error = errno;
    ::close(lock_fd_);
    lock_fd_ = -1;
    throw RunFolderError("cannot write the lock file " + lock.string() + ": " + errno_text(error));
  }
  try {
    read_manifest();
  } catch (...) {
    ::unlink(lock.c_str());
    ::close(lock_fd_);
    lock_fd_ = -1;
    throw;
  }
}

RunFolder::~RunFolder() {
  if (lock_fd_ >= 0) {
    ::unlink((dir_ / kLock).c_str());  // removed while held: no other run can hold this file
    ::close(lock_fd_);
  }
  if (created_ && is_empty_folder(dir_)) {
    std::error_code ec;
    fs::remove(dir_, ec);
  }
}

void RunFolder::read_manifest() {
  const fs::path file = dir_ / kManifest;
  std::error_code ec;
  const fs::file_status status = fs::symlink_status(file, ec);
  if (!fs::exists(status)) return;
  if (!fs::is_regular_file(status))
    throw RunFolderError("the manifest " + file.string() + " is not a regular file; rtdg cannot tell which files of " +
                         dir_.string() + " it wrote: move the folder away or set run.output_dir to another folder");
  if (fs::file_size(file, ec) > kManifestLimit)
    throw RunFolderError("the manifest " + file.string() + " is larger than " + std::to_string(kManifestLimit >> 20) +
                         " MB, so it is not one rtdg wrote; move the folder away or set run.output_dir to another folder");
  std::ifstream in(file, std::ios::binary);
  if (!in) throw RunFolderError("cannot read the manifest " + file.string());
  std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  std::istringstream lines(text);
  std::string line;
  if (!std::getline(lines, line) || line != kHeader)
    throw RunFolderError("the manifest " + file.string() + " does not start with \"" + kHeader +
                         "\", so rtdg cannot tell which files of " + dir_.string() +
                         " it wrote: move the folder away or set run.output_dir to another folder");
  has_manifest_ = true;
  // A last line without its newline was cut short (the run was killed while appending it):
  // the claim it made is dropped, which at worst leaves one file rtdg will not delete.
  const bool complete = !text.empty() && text.back() == '\n';
  for (std::size_t number = 2; std::getline(lines, line); ++number) {
    if (lines.eof() && !complete) break;
    if (line.size() > 2 && line[0] == '-' && line[1] == ' ') {
      entries_.erase(line.substr(2));
      continue;
    }
    std::istringstream fields(line);
    std::string mark, kind, step, time;
    fields >> mark >> kind >> step >> time;
    std::string path;
    if (fields.get() == ' ') std::getline(fields, path);
    Entry entry;
    entry.kind = kind;
    bool ok = mark == "+" && !kind.empty() && valid_relative(path);
    try {
      entry.step = std::stoll(step);
      entry.time = std::stod(time);
    } catch (const std::exception&) {
      ok = false;
    }
    if (!ok)
      throw RunFolderError("the manifest " + file.string() + " is damaged at line " + std::to_string(number) +
                           ", so rtdg cannot tell which files of " + dir_.string() +
                           " it wrote: move the folder away or set run.output_dir to another folder");
    entries_[path] = entry;
  }
}

bool RunFolder::owns(const fs::path& relative) const {
  return entries_.count(relative.lexically_normal().generic_string()) != 0;
}

std::vector<fs::path> RunFolder::foreign(const std::vector<std::string>& names) const {
  std::vector<fs::path> found;
  std::vector<std::string> folders;
  for (const auto& [path, entry] : entries_)
    if (entry.kind == "folder") folders.push_back(path);
  for (std::string name : names) {
    const bool folder = !name.empty() && name.back() == '/';
    if (folder) name.pop_back();
    const fs::path p = dir_ / name;
    if (!exists_no_follow(p) || owns(name)) {
      if (folder && owns(name)) folders.push_back(name);
      continue;
    }
    std::error_code ec;
    const bool is_folder = fs::is_directory(fs::symlink_status(p, ec));
    if (folder && is_folder) {
      if (is_empty_folder(p)) continue;  // an empty folder is claimed, nothing in it is in the way
      folders.push_back(name);           // its entries are listed below
      continue;
    }
    found.push_back(p);
  }
  std::sort(folders.begin(), folders.end());
  folders.erase(std::unique(folders.begin(), folders.end()), folders.end());
  for (const std::string& folder : folders) {
    std::error_code ec;
    fs::recursive_directory_iterator it(dir_ / folder, fs::directory_options::none, ec), end;
    for (; !ec && it != end; it.increment(ec)) {
      const fs::path relative = it->path().lexically_relative(dir_);
      if (owns(relative)) continue;
      found.push_back(it->path());
      if (it->is_directory(ec)) it.disable_recursion_pending();  // one line for a whole foreign folder
    }
  }
  std::sort(found.begin(), found.end());
  found.erase(std::unique(found.begin(), found.end()), found.end());
  return found;
}

void RunFolder::prepare_new_run(const std::vector<std::string>& names, bool overwrite) {
  const std::vector<fs::path> in_the_way = foreign(names);
  const std::string manifest = (dir_ / kManifest).string();
  if (!in_the_way.empty()) {
    std::string list;
    for (std::size_t i = 0; i < in_the_way.size() && i < 3; ++i) list += (i ? ", " : "") + in_the_way[i].string();
    if (in_the_way.size() > 3) list += " and " + std::to_string(in_the_way.size() - 3) + " more";
    throw RunFolderError("the output folder " + dir_.string() + " holds " + list + ", which rtdg did not write (" +
                         (has_manifest_ ? "not in " + manifest : "the folder has no " + std::string(kManifest) +
                                                                     ", e.g. an rtdg that kept none wrote it") +
                         "); rtdg replaces and deletes only its own files: move " +
                         (in_the_way.size() == 1 ? "it" : "them") + " away, or set run.output_dir to another folder");
  }
  std::vector<std::string> files, folders;
  for (const auto& [path, entry] : entries_) (entry.kind == "folder" ? folders : files).push_back(path);
  if (!files.empty() && !overwrite)
    throw RunFolderError("the output folder " + dir_.string() + " already holds an earlier run's files (e.g. " +
                         (dir_ / files.front()).string() + "); pass --overwrite to delete them (only the " +
                         std::to_string(files.size()) + " files listed in " + manifest +
                         "), set run.output_dir to another folder, or continue the earlier run with --restart "
                         "<checkpoint>");
  for (const std::string& file : files) remove(file);
  // Deepest first; fs::remove deletes a folder only when it is empty (foreign() found nothing in it).
  std::sort(folders.rbegin(), folders.rend());
  for (const std::string& folder : folders) {
    std::error_code ec;
    fs::remove(dir_ / folder, ec);
    entries_.erase(folder);
  }
  std::error_code ec;
  fs::remove(dir_ / kManifest, ec);
  has_manifest_ = false;
  entries_.clear();
  append("");  // a new manifest with its header
}

void RunFolder::append(const std::string& line) {
  const fs::path file = dir_ / kManifest;
  const int fd = ::open(file.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) throw RunFolderError("cannot write the manifest " + file.string() + ": " + errno_text(errno));
  std::string text;
  if (!has_manifest_) text = std::string(kHeader) + "\n";
  if (!line.empty()) text += line + "\n";
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int error = errno;
      ::close(fd);
      throw RunFolderError("cannot write the manifest " + file.string() + ": " + errno_text(error));
    }
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
  has_manifest_ = true;
}

void RunFolder::claim(const std::string& relative_text, const std::string& kind, long long step, double time) {
  std::string relative = fs::path(relative_text).lexically_normal().generic_string();
  if (!relative.empty() && relative.back() == '/') relative.pop_back();
  if (!valid_relative(relative) || kind.empty() || kind.find(' ') != std::string::npos)
    throw RunFolderError("rtdg does not write " + (dir_ / relative_text).string() +
                         ": the name leaves the output folder or holds a line break");
  if (!owns(relative) && exists_no_follow(dir_ / relative) && !(kind == "folder" && is_empty_folder(dir_ / relative)))
    throw RunFolderError("rtdg will not replace " + (dir_ / relative).string() + ", which it did not write (not in " +
                         (dir_ / kManifest).string() + "): move it away, or set run.output_dir to another folder");
  const auto found = entries_.find(relative);
  if (found != entries_.end() && found->second.kind == kind && found->second.step == step && found->second.time == time) return;
  append("+ " + kind + " " + std::to_string(step) + " " + format_time(time) + " " + relative);
  entries_[relative] = Entry{kind, step, time};
}

void RunFolder::create_folder(const std::string& relative) {
  claim(relative, "folder");
  std::error_code ec;
  fs::create_directories(dir_ / relative, ec);
  if (ec) throw RunFolderError("cannot create the folder " + (dir_ / relative).string() + ": " + ec.message());
}

bool RunFolder::remove(const std::string& relative_text) {
  const std::string relative = fs::path(relative_text).lexically_normal().generic_string();
  const auto found = entries_.find(relative);
  if (found == entries_.end() || found->second.kind == "folder") return false;
  std::error_code ec;
  const fs::file_status status = fs::symlink_status(dir_ / relative, ec);
  // A path rtdg wrote as a file that is a folder now was put there by someone else: left alone.
  if (fs::exists(status) && fs::is_directory(status)) return false;
  append("- " + relative);
  fs::remove(dir_ / relative, ec);
  entries_.erase(found);
  return true;
}

std::vector<std::pair<std::string, RunFolder::Entry>> RunFolder::of_kind(const std::string& kind) const {
  std::vector<std::pair<std::string, Entry>> list;
  for (const auto& [path, entry] : entries_)
    if (entry.kind == kind) list.emplace_back(path, entry);
  std::stable_sort(list.begin(), list.end(), [](const auto& a, const auto& b) { return a.second.step < b.second.step; });
  return list;
}

}  // namespace rtdg::runner
