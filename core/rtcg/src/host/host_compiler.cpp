// The host backend's compiler: the system C++ compiler (the one rtdg was configured with, or
// $CXX) turns the same generated source into a shared object, compiled with OpenMP.
#include <rtcg/compiler.hpp>
#include <rtcg/error.hpp>
#include <rtcg/hash.hpp>
#include <rtcg/log.hpp>

#include "compile_support.hpp"
#include "embedded_headers.hpp"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <regex>
#include <sstream>
#include <string_view>

namespace rtcg {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> split_words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> words;
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

// -march=native makes the binary depend on the CPU: describe it by model and feature flags.
std::string host_target() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line, model = "unknown-cpu", flags;
  while (std::getline(cpuinfo, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const auto key = line.substr(0, line.find_last_not_of(" \t", colon - 1) + 1);
    const auto value = colon + 2 <= line.size() ? line.substr(colon + 2) : std::string();
    if (key == "model name" && model == "unknown-cpu") model = value;
    if ((key == "flags" || key == "Features") && flags.empty()) flags = value;
  }
  return "host " + model + " (cpu flags " + Sha256::hex(flags).substr(0, 16) + ")";
}

// Host compiles work in scratch folders <tmp>/rtcg-host-<pid>-XXXXXX ($TMPDIR, else /tmp), made
// by mkdtemp (mode 0700), each with a marker file naming the process that made it. A compile
// removes its folder when it is over, whatever happens; a process killed before it could (by
// SIGKILL) leaves it, and the next process to make a host compiler removes it: only folders
// named so, with a marker that names the same pid, owned by this user, of mode 0700, not a
// symbolic link, whose process has ended (or whose pid now belongs to a process started later,
// or in another pid namespace: those are left alone).
constexpr std::string_view kScratchPrefix = "rtcg-host-";
constexpr const char* kScratchMarker = ".rtcg-scratch";
constexpr std::string_view kMarkerFirstLine = "rtcg host compile scratch folder";

fs::path scratch_root() {
  const char* tmp = std::getenv("TMPDIR");
  return tmp && *tmp ? fs::path(tmp) : fs::path("/tmp");
}

// Field 22 of /proc/<pid>/stat (clock ticks after boot), and whether the process is a zombie;
// nullopt when it cannot be read.
struct ProcessStart {
  std::string ticks;
  bool zombie = false;
};
std::optional<ProcessStart> process_start(long pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!std::getline(in, stat)) return std::nullopt;
  const auto close = stat.rfind(')');  // the command name may hold spaces and parentheses
  if (close == std::string::npos) return std::nullopt;
  std::istringstream fields(stat.substr(close + 1));
  std::vector<std::string> rest;  // fields 3 (state) onwards
  for (std::string field; fields >> field;) rest.push_back(field);
  if (rest.size() < 20) return std::nullopt;
  return ProcessStart{rest[19], rest[0] == "Z" || rest[0] == "X"};
}

std::string pid_namespace() {
  std::error_code error;
  const auto target = fs::read_symlink("/proc/self/ns/pid", error);
  return error ? std::string("unknown") : target.string();
}

std::string marker_text(long pid) {
  const auto start = process_start(pid);
  return std::string(kMarkerFirstLine) + "\npid " + std::to_string(pid) + "\nstarted " + (start ? start->ticks : "unknown") +
         "\nnamespace " + pid_namespace() + "\n";
}

// Whether `path` (in scratch_root) is a scratch folder of a process that has ended; see above.
bool stale_scratch(const fs::path& path) {
  const std::string name = path.filename().string();
  static const std::regex scheme(R"(rtcg-host-([0-9]{1,10})-[A-Za-z0-9]{6})");
  std::smatch match;
  if (!std::regex_match(name, match, scheme)) return false;
  const long pid = std::stol(match[1].str());
  struct stat folder {};
  if (::lstat(path.c_str(), &folder) != 0 || !S_ISDIR(folder.st_mode) || folder.st_uid != ::geteuid() ||
      (folder.st_mode & 07777) != 0700)
    return false;
  const fs::path marker = path / kScratchMarker;
  struct stat file {};
  if (::lstat(marker.c_str(), &file) != 0 || !S_ISREG(file.st_mode) || file.st_uid != ::geteuid() || file.st_size > 4096)
    return false;
  std::ifstream in(marker);
  std::string first, pid_line, started_line, namespace_line;
  std::getline(in, first);
  std::getline(in, pid_line);
  std::getline(in, started_line);
  std::getline(in, namespace_line);
  if (first != kMarkerFirstLine || pid_line != "pid " + std::to_string(pid) || started_line.rfind("started ", 0) != 0 ||
      namespace_line != "namespace " + pid_namespace())
    return false;
  if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) return true;
  const auto start = process_start(pid);
  if (!start) return false;  // alive as far as can be told
  if (start->zombie) return true;
  // A pid that now names a process started later: the one that made the folder has ended.
  return started_line != "started unknown" && "started " + start->ticks != started_line;
}

void remove_stale_scratch() {
  std::error_code error;
  std::size_t removed = 0;
  for (fs::directory_iterator it(scratch_root(), fs::directory_options::skip_permission_denied, error), end;
       !error && it != end; it.increment(error)) {
    const fs::path path = it->path();
    if (!path.filename().string().starts_with(kScratchPrefix) || !stale_scratch(path)) continue;
    std::error_code removing;
    fs::remove_all(path, removing);  // symbolic links inside are removed, never followed
    if (!removing) ++removed;
  }
  if (removed > 0)
    log().info("removed {} scratch folder(s) of host compiles under {} whose process had ended", removed,
               scratch_root().string());
}

// A scratch folder removed when the compile is over, whatever happens.
class ScratchDir {
public:
  ScratchDir() {
    const long pid = ::getpid();
    std::string pattern = (scratch_root() / (std::string(kScratchPrefix) + std::to_string(pid) + "-XXXXXX")).string();
    if (!mkdtemp(pattern.data()))
      throw Error("could not create a scratch folder under " + scratch_root().string() + " for the host compiler: " +
                  std::strerror(errno));
    path_ = pattern;
    std::ofstream(path_ / kScratchMarker, std::ios::binary) << marker_text(pid);
  }
  ~ScratchDir() {
    std::error_code error;
    fs::remove_all(path_, error);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const fs::path& path() const { return path_; }

private:
  fs::path path_;
};

class HostCompiler final : public Compiler {
public:
  HostCompiler() {
    static std::once_flag cleaned;
    std::call_once(cleaned, remove_stale_scratch);
    const char* cxx = std::getenv("CXX");
    compiler_ = cxx && *cxx ? cxx : RTCG_HOST_CXX;
    const char* flags = std::getenv("RTDG_HOST_CXXFLAGS");
    flags_ = split_words(flags ? flags : "-O3 -march=native -fopenmp");
    std::string version_log;
    const int status = detail::run_process({compiler_, "--version"}, version_log);
    if (status != 0)
      throw Error("the host compiler `" + compiler_ + "` does not run (" + version_log +
                  "); set CXX to a working C++ compiler");
    std::error_code error;
    std::string resolved = compiler_;
    if (compiler_.find('/') != std::string::npos) {
      const auto real = fs::canonical(compiler_, error);
      if (!error) resolved = real.string();
    }
    identity_ = resolved + ": " + version_log.substr(0, version_log.find('\n'));
    target_ = host_target();
  }

  std::string backend() const override { return "host"; }
  std::string target() const override { return target_; }
  std::string identity() const override { return identity_; }
  std::vector<std::string> base_options() const override {
    // -fvisibility=hidden: a module exports only its entry points (RTCG_HOST_EXPORT), so the
    // kernels bind to their own definitions. With default visibility a kernel named like a
    // function of a library loaded before the module (libc's getpid, clock, ...) resolves to that
    // function through the GOT, and a launch runs libc instead of the kernel: ELF symbol
    // interposition, which dlopen's RTLD_LOCAL does not prevent (the global scope is searched
    // first). -fno-semantic-interposition only lets the compiler inline calls, and address
    // taking still goes through the GOT; RTLD_DEEPBIND would also bind libstdc++ and OpenMP
    // symbols module-first, which breaks their interposition by sanitizers and allocators; a
    // name prefix would change the names users see in profilers. Hidden visibility is the
    // linker's own answer, and makes the modules' symbol tables small.
    std::vector<std::string> options = {"-std=c++20", "-fPIC", "-shared", "-fvisibility=hidden"};
    options.insert(options.end(), flags_.begin(), flags_.end());
    return options;
  }

  Binary compile(const Program& program) const override {
    if (!program.extern_c && program.name_expressions.empty())
      throw Error("program `" + program.name + "`: without extern \"C\" the host backend exports only name "
                  "expressions; give name_expressions or keep extern_c");
    const std::string source = full_source(program, "host");
    const std::string dump_path = detail::dump_source(program, "host", source);

    ScratchDir scratch;
    // rtdg's device headers, from the copy embedded in the library.
    for (const auto& header : detail::embedded_headers()) {
      const auto path = scratch.path() / "include" / header.name;
      fs::create_directories(path.parent_path());
      std::ofstream(path, std::ios::binary) << header.content;
    }
    const auto source_path = scratch.path() / detail::source_label(program, "host");
    std::ofstream(source_path, std::ios::binary) << source;
    const auto output = scratch.path() / "module.so";

    std::vector<std::string> argv = {compiler_};
    std::vector<std::string> options = base_options();
    options.push_back("-I" + (scratch.path() / "include").string());
    for (const auto& dir : program.include_dirs) options.push_back("-I" + dir.string());
    for (const auto& option : detail::canonical_options(program.options)) options.push_back(option);
    argv.insert(argv.end(), options.begin(), options.end());
    argv.insert(argv.end(), {"-o", output.string(), source_path.string()});

    std::string log;
    const int status = detail::run_process(argv, log);
    while (!log.empty() && log.back() == '\n') log.pop_back();
    if (status != 0 || !fs::exists(output))
      throw CompileError(detail::format_compile_failure(program, "host", target_, options, log, dump_path), log, source);

    Binary binary;
    binary.backend = "host";
    binary.target = target_;
    binary.log = log;
    binary.image = read_file(output);
    binary.signatures = detail::scan_kernel_signatures(program.source);
    for (std::size_t i = 0; i < program.name_expressions.size(); ++i) {
      const std::string symbol = "rtcg_expr_" + std::to_string(i);
      binary.lowered_names[program.name_expressions[i]] = symbol;
      const auto base = program.name_expressions[i].substr(0, program.name_expressions[i].find('<'));
      auto it = binary.signatures.find(base);
      if (it != binary.signatures.end()) binary.signatures[symbol] = it->second;
    }
    return binary;
  }

private:
  std::string compiler_;
  std::vector<std::string> flags_;
  std::string identity_;
  std::string target_;
};

}  // namespace

std::unique_ptr<Compiler> make_host_compiler() { return std::make_unique<HostCompiler>(); }

}  // namespace rtcg
