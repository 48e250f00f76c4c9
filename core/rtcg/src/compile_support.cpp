#include "compile_support.hpp"

#include <rtcg/hash.hpp>
#include <rtcg/log.hpp>

#include <rtcg/error.hpp>
#include <rtcg/tune_stop.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <initializer_list>
#include <fstream>
#include <iomanip>
#include <regex>
#include <set>
#include <sstream>

extern char** environ;

namespace rtcg {

std::atomic<bool>& stop_compiling() {
  static std::atomic<bool> flag{false};
  return flag;
}

}  // namespace rtcg

namespace rtcg::detail {
namespace {

std::string trim(const std::string& text) {
  const auto begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string::npos) return {};
  const auto end = text.find_last_not_of(" \t\r\n");
  return text.substr(begin, end - begin + 1);
}

// Splits "double* y, const T<a, b>& x" at commas outside brackets.
std::vector<std::string> split_parameters(const std::string& list) {
  std::vector<std::string> parameters;
  int depth = 0;
  std::string current;
  for (char c : list) {
    if (c == '(' || c == '<' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == '>' || c == ']' || c == '}') --depth;
    if (c == ',' && depth == 0) {
      parameters.push_back(trim(current));
      current.clear();
    } else {
      current.push_back(c);
    }
  }
  if (!trim(current).empty()) parameters.push_back(trim(current));
  if (parameters.size() == 1 && parameters[0] == "void") parameters.clear();
  return parameters;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace

namespace {

bool is_identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::size_t skip_space(const std::string& text, std::size_t at) {
  while (at < text.size() && std::isspace(static_cast<unsigned char>(text[at]))) ++at;
  return at;
}

std::size_t identifier_end(const std::string& text, std::size_t at) {
  while (at < text.size() && is_identifier_char(text[at])) ++at;
  return at;
}

// At `at` (just past "RTCG_KERNEL" or "__global__"), reads the kernel's name and returns the
// position of the '(' opening its parameter list, or npos when this is not a declaration.
std::size_t read_kernel_name(const std::string& text, std::size_t at, bool macro, std::string& name) {
  at = skip_space(text, at);
  if (macro) {
    if (at >= text.size() || text[at] != '(') return std::string::npos;
    at = skip_space(text, at + 1);
  } else {
    const std::size_t end = identifier_end(text, at);
    if (text.compare(at, end - at, "void") != 0) return std::string::npos;
    at = skip_space(text, end);
  }
  const std::size_t end = identifier_end(text, at);
  if (end == at || std::isdigit(static_cast<unsigned char>(text[at]))) return std::string::npos;
  name = text.substr(at, end - at);
  at = skip_space(text, end);
  if (macro) {
    if (at >= text.size() || text[at] != ')') return std::string::npos;
    at = skip_space(text, at + 1);
  }
  return at < text.size() && text[at] == '(' ? at : std::string::npos;
}

}  // namespace

// A plain scan rather than std::regex: generated sources reach hundreds of kilobytes and this
// runs on every cache lookup.
std::map<std::string, KernelSignature> scan_kernel_signatures(const std::string& source) {
  std::map<std::string, KernelSignature> result;
  for (const auto& [marker, macro] : {std::pair{std::string("RTCG_KERNEL"), true}, std::pair{std::string("__global__"), false}}) {
    for (std::size_t at = source.find(marker); at != std::string::npos; at = source.find(marker, at + 1)) {
      if ((at > 0 && is_identifier_char(source[at - 1])) ||
          (at + marker.size() < source.size() && is_identifier_char(source[at + marker.size()])))
        continue;
      std::string name;
      const std::size_t open = read_kernel_name(source, at + marker.size(), macro, name);
      if (open == std::string::npos) continue;
      int depth = 1;
      std::size_t end = open + 1;
      while (end < source.size() && depth > 0) {
        if (source[end] == '(') ++depth;
        if (source[end] == ')') --depth;
        ++end;
      }
      if (depth != 0) continue;
      result[name].parameters = split_parameters(source.substr(open + 1, end - 1 - (open + 1)));
    }
  }
  return result;
}

std::vector<std::string> canonical_options(const std::vector<std::string>& options) {
  std::vector<std::string> result;
  std::set<std::string> seen;
  for (const auto& option : options)
    if (seen.insert(option).second) result.push_back(option);
  return result;
}

std::string source_label(const Program& program, const std::string& backend) {
  std::string label;
  for (char c : program.name) label.push_back((std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-') ? c : '_');
  if (label.empty()) label = "program";
  return label + (backend == "cuda" ? ".cu" : ".cpp");
}

std::string format_compile_failure(const Program& program, const std::string& backend, const std::string& target,
                                   const std::vector<std::string>& options, const std::string& log,
                                   const std::string& dump_path) {
  std::ostringstream message;
  message << "compiling `" << program.name << "` for " << backend << " (" << target << ") failed\n";
  message << "options:";
  for (const auto& option : options) message << ' ' << option;
  message << "\n";

  // Error lines in either dialect: NVRTC "file(12): error: ..." and gcc/clang
  // "file:12:5: error: ...". Only lines in the user's source are excerpted.
  const std::string label = source_label(program, backend);
  static const std::regex nvrtc_line(R"(^(.*)\((\d+)\): (error|warning|catastrophic error)(.*)$)");
  static const std::regex gcc_line(R"(^(.*):(\d+):(\d+): (error|fatal error)(.*)$)");
  const auto source_lines = split_lines(program.source);
  std::set<long> excerpted;
  for (const auto& line : split_lines(log)) {
    std::smatch match;
    long number = 0;
    if (std::regex_match(line, match, nvrtc_line) && match[3].str() != "warning" &&
        std::filesystem::path(match[1].str()).filename() == label)
      number = std::stol(match[2].str());
    else if (std::regex_match(line, match, gcc_line) && std::filesystem::path(match[1].str()).filename() == label)
      number = std::stol(match[2].str());
    if (number <= 0 || !excerpted.insert(number).second) continue;
    message << "\n" << line << "\n";
    const long first = std::max(1L, number - 3);
    const long last = std::min(static_cast<long>(source_lines.size()), number + 3);
    for (long n = first; n <= last; ++n) {
      message << (n == number ? " >" : "  ") << std::setw(4) << n << " | "
              << source_lines[static_cast<std::size_t>(n - 1)] << "\n";
    }
  }
  if (excerpted.empty()) message << "(no error located in the program's own source; see the log)\n";
  message << "\ncompiler log:\n" << log;
  if (!log.empty() && log.back() != '\n') message << "\n";
  if (!dump_path.empty()) message << "full source written to " << dump_path << "\n";
  else message << "set RTDG_DUMP_SOURCE=1 to write the full source to ./rtdg-dump\n";
  return message.str();
}

std::string dump_source(const Program& program, const std::string& backend, const std::string& full) {
  const char* flag = std::getenv("RTDG_DUMP_SOURCE");
  if (!flag || std::string(flag) != "1") return {};
  const char* dir_env = std::getenv("RTDG_DUMP_DIR");
  const std::filesystem::path dir = dir_env && *dir_env ? dir_env : "rtdg-dump";
  const std::string label = source_label(program, backend);
  const auto dot = label.rfind('.');
  const auto path = dir / (label.substr(0, dot) + "-" + Sha256::hex(full).substr(0, 12) + label.substr(dot));
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  std::ofstream out(path, std::ios::binary);
  out << full;
  if (!out) {
    warn_once("dump:" + dir.string(), "RTDG_DUMP_SOURCE=1 but " + path.string() + " could not be written");
    return {};
  }
  log().info("wrote generated source of `{}` to {}", program.name, path.string());
  return path.string();
}

bool& compile_shielded() {
  thread_local bool shielded = false;
  return shielded;
}

bool compile_stop_requested() { return stop_compiling().load() && !compile_shielded(); }

Interrupted compile_interrupted(const std::string& what) {
  return Interrupted("the compile (" + what + ") was stopped on request (a signal): nothing was cached");
}

namespace {

// Where PATH finds `name`, as execvp would look, resolved before the fork (after it only
// async-signal-safe calls are made). "" when it is not found.
std::string find_program(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  const char* path = std::getenv("PATH");
  std::string dirs = path && *path ? path : "/usr/local/bin:/usr/bin:/bin";
  for (std::size_t begin = 0;;) {
    const std::size_t end = dirs.find(':', begin);
    std::string dir = dirs.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
    const std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + name;
    struct stat info {};
    if (::stat(candidate.c_str(), &info) == 0 && S_ISREG(info.st_mode) && ::access(candidate.c_str(), X_OK) == 0)
      return candidate;
    if (end == std::string::npos) return {};
    begin = end + 1;
  }
}

// Closes the descriptors first..last (close_range, or one by one where the kernel lacks it).
void close_between(unsigned first, unsigned last) {
  if (first > last || ::close_range(first, last, 0) == 0) return;
  rlimit limit {};
  const unsigned open_max =
      ::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < 65536 ? static_cast<unsigned>(limit.rlim_cur) : 65536;
  for (unsigned fd = first; fd <= last && fd < open_max; ++fd) ::close(static_cast<int>(fd));
}

// Closes every descriptor from 3 up but the ones given (ascending).
void close_all_but(std::initializer_list<int> keep) {
  unsigned from = 3;
  for (const int fd : keep) {
    if (fd < static_cast<int>(from)) continue;
    if (static_cast<unsigned>(fd) > from) close_between(from, static_cast<unsigned>(fd) - 1);
    from = static_cast<unsigned>(fd) + 1;
  }
  close_between(from, ~0U);
}

void report_errno(int report_fd) {
  const int error = errno;
  [[maybe_unused]] const ssize_t written = ::write(report_fd, &error, sizeof error);
}

// The child of run_process: it leads a process group of its own and starts the compiler in it,
// then watches both. When the compiler ends it ends the same way (the exit status, or the same
// signal); when rtcg's process is gone (killed, even by SIGKILL, which leaves no chance to
// clean up) it kills the group, the compiler and what the compiler started (cc1plus, as, ld)
// with it, within 10 ms. Runs in a copy of a process that may have had threads: only
// async-signal-safe calls from here on.
[[noreturn]] void supervise(const char* program, char* const* args, int log_fd, int report_fd, pid_t rtcg_pid) {
  ::setpgid(0, 0);
  ::prctl(PR_SET_NAME, "rtcg-compile");  // what ps and top show, rather than a second rtdg
  // Copies of other compiles' descriptors (their report pipes among them) go.
  if (log_fd < report_fd) close_all_but({log_fd, report_fd});
  else close_all_but({report_fd, log_fd});
  if (::getppid() != rtcg_pid) ::_exit(127);  // rtcg died before this started
  const pid_t supervisor = ::getpid();
  const pid_t compiler = ::_Fork();
  if (compiler < 0) {
    report_errno(report_fd);
    ::_exit(127);
  }
  if (compiler == 0) {
    ::dup2(log_fd, STDOUT_FILENO);
    ::dup2(log_fd, STDERR_FILENO);
    if (log_fd > STDERR_FILENO) ::close(log_fd);
    // Also dies with the supervisor, should that be killed alone.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != supervisor) ::_exit(127);
    ::execve(program, args, environ);
    report_errno(report_fd);  // the descriptor is close-on-exec: nothing is written on success
    ::_exit(127);
  }
  ::close(report_fd);
  for (;;) {
    int status = 0;
    const pid_t done = ::waitpid(compiler, &status, WNOHANG);
    if (done == compiler) {
      if (WIFEXITED(status)) ::_exit(WEXITSTATUS(status));
      const int signal = WIFSIGNALED(status) ? WTERMSIG(status) : SIGKILL;
      struct sigaction plain {};
      plain.sa_handler = SIG_DFL;
      ::sigaction(signal, &plain, nullptr);
      sigset_t only;
      ::sigemptyset(&only);
      ::sigaddset(&only, signal);
      ::sigprocmask(SIG_UNBLOCK, &only, nullptr);
      ::kill(supervisor, signal);
      ::_exit(128 + signal);
    }
    if (::getppid() != rtcg_pid) ::kill(0, SIGKILL);  // rtcg is gone: the whole group, this process too
    const timespec pause{0, 10'000'000};
    ::nanosleep(&pause, nullptr);
  }
}

}  // namespace

int run_process(const std::vector<std::string>& argv, std::string& log) {
  const std::string program = find_program(argv[0]);
  if (program.empty()) {
    log = "could not start `" + argv[0] + "`: " + std::strerror(ENOENT);
    return -1;
  }
  char log_template[] = "/tmp/rtcg-log-XXXXXX";
  const int log_fd = mkstemp(log_template);
  if (log_fd < 0) {
    log = "could not create a temporary file for the compiler's output";
    return -1;
  }
  unlink(log_template);
  std::vector<char*> args;
  for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  int report[2];
  if (::pipe2(report, O_CLOEXEC) != 0) {
    log = std::string("could not create a pipe for `") + argv[0] + "`: " + std::strerror(errno);
    close(log_fd);
    return -1;
  }
  // A process group of its own: a terminal's Ctrl-C goes to the foreground group, which is
  // rtcg's caller's, and it decides (stop_compiling) instead of the compiler dying half-way.
  // _Fork, not fork: no atfork handlers run in a child that only calls async-signal-safe code.
  const pid_t rtcg_pid = ::getpid();
  const pid_t pid = ::_Fork();
  if (pid == 0) supervise(program.c_str(), args.data(), log_fd, report[1], rtcg_pid);
  ::close(report[1]);
  int start_error = 0;
  if (pid < 0) {
    start_error = errno;
  } else {
    ::setpgid(pid, pid);  // as the child does, so that kill(-pid) finds the group at once
    // Returns 0 bytes once the compiler started (its copy closes on exec), else its errno.
    for (;;) {
      const ssize_t n = ::read(report[0], &start_error, sizeof start_error);
      if (n >= 0 || errno != EINTR) break;
    }
  }
  ::close(report[0]);
  int status = -1;
  if (pid < 0) {
    log = "could not start `" + argv[0] + "`: " + std::strerror(start_error);
  } else {
    int wait_status = 0;
    bool stopped = false;
    // Polled every 10 ms, so a stop request is obeyed at once whatever the compile's length.
    for (;;) {
      const pid_t done = waitpid(pid, &wait_status, WNOHANG);
      if (done == pid || (done < 0 && errno != EINTR)) break;
      if (!stopped && compile_stop_requested()) {
        kill(-pid, SIGKILL);  // the supervisor, the compiler and what it started (cc1plus, as, ld)
        stopped = true;
      }
      const timespec pause{0, 10'000'000};
      nanosleep(&pause, nullptr);
    }
    if (stopped) {
      close(log_fd);
      throw compile_interrupted("`" + argv[0] + "`");
    }
    if (start_error != 0) {
      log = "could not start `" + argv[0] + "`: " + std::strerror(start_error);
      close(log_fd);
      return -1;
    }
    status = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : 128 + WTERMSIG(wait_status);
    lseek(log_fd, 0, SEEK_SET);
    char buffer[4096];
    for (ssize_t n; (n = read(log_fd, buffer, sizeof buffer)) > 0;) log.append(buffer, static_cast<std::size_t>(n));
  }
  close(log_fd);
  return status;
}

}  // namespace rtcg::detail
