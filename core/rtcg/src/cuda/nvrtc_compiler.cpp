// NVRTC: CUDA source to CUBIN for a named architecture. Needs the toolkit's libnvrtc, no GPU.
#include <rtcg/compiler.hpp>
#include <rtcg/error.hpp>
#include <rtcg/log.hpp>
#include <rtcg/tune_stop.hpp>

#include "compile_support.hpp"
#include "embedded_headers.hpp"

#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <nvrtc.h>

#include <cuda.h>  // CUDA_VERSION
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <regex>
#include <thread>

// NVRTC's front end puts handlers of its own on SIGINT and SIGTERM while it parses (with
// signal(), the previous ones put back when it is done), and those end the process with status
// 4 and no message: a Ctrl-C or SIGTERM in that phase would never reach the handler of the
// program using rtcg (rtdg's, which stops the compile and exits 130 or 143). So on the threads
// that run NVRTC, signal() for SIGINT and SIGTERM leaves the handler in place and returns it;
// every other call goes to the C library's. This definition takes the C library's place in the
// process (libnvrtc's calls bind to it where rtcg is linked into the executable).
namespace {
thread_local bool on_nvrtc_thread = false;
}  // namespace

extern "C" __attribute__((visibility("default"))) sighandler_t signal(int number, sighandler_t handler) noexcept {
  if (on_nvrtc_thread && (number == SIGINT || number == SIGTERM)) {
    struct sigaction current {};
    if (sigaction(number, nullptr, &current) != 0) return SIG_ERR;
    return current.sa_handler;
  }
  using Signal = sighandler_t (*)(int, sighandler_t);
  static const auto next = reinterpret_cast<Signal>(dlsym(RTLD_NEXT, "signal"));
  return next ? next(number, handler) : SIG_ERR;
}

namespace rtcg {
namespace {

void check_nvrtc(nvrtcResult result, const char* what) {
  if (result != NVRTC_SUCCESS) throw Error(std::string(what) + ": " + nvrtcGetErrorString(result));
}

// NVRTC's version and the file it was loaded from (its name carries the build, e.g.
// libnvrtc.so.13.0.88), so a toolkit update invalidates cached binaries.
std::string nvrtc_identity() {
  int major = 0, minor = 0;
  check_nvrtc(nvrtcVersion(&major, &minor), "nvrtcVersion");
  std::string identity = "nvrtc " + std::to_string(major) + "." + std::to_string(minor);
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&nvrtcVersion), &info) && info.dli_fname) {
    std::error_code error;
    const auto real = std::filesystem::canonical(info.dli_fname, error);
    identity += " (" + (error ? std::string(info.dli_fname) : real.string()) + ")";
  }
  return identity;
}

// One NVRTC compile, shared by the thread that runs it and the caller that waits for it. The
// thread owns copies of everything it reads, so a caller that stops waiting (a stop request)
// frees nothing the thread still uses; the thread holds it until it returns.
struct NvrtcRun {
  std::string source, label;
  std::vector<std::string> header_contents, header_names, options, name_expressions;
  // Set by the caller when it gives up; NVRTC's flow callback then cancels the compile.
  std::atomic<bool> abandoned{false};

  std::mutex mutex;
  std::condition_variable finished;
  bool done = false;  // the fields below are set (under mutex)
  nvrtcResult result = NVRTC_SUCCESS;
  std::string log;
  std::string image;
  std::map<std::string, std::string> lowered_names;
  std::exception_ptr error;
};

// Abandoned compiles still running (rtcg::abandoned_compiles_running).
std::atomic<int>& abandoned_running() {
  static std::atomic<int> count{0};
  return count;
}

// Exit-time destructors (NVRTC's own among them) must not run under a compile that is still
// in NVRTC: while one is, the process ends at exit with its status once stdio is flushed.
// Registered at the first abandon, so it runs before the destructors of what existed then.
void end_at_exit_if_abandoned_run(int status, void*) {
  if (abandoned_running().load() == 0) return;
  std::fflush(nullptr);  // std::cout and std::cerr are synchronised with stdio
  _exit(status);
}

void end_at_exit_while_abandoned_runs() {
  static std::once_flag registered;
  std::call_once(registered, [] { on_exit(end_at_exit_if_abandoned_run, nullptr); });
}

void run_nvrtc(std::shared_ptr<NvrtcRun> run) {
  on_nvrtc_thread = true;
  pthread_setname_np(pthread_self(), "rtcg-nvrtc");  // for top -H, debuggers, tests
  std::string log, image;
  std::map<std::string, std::string> lowered_names;
  nvrtcResult result = NVRTC_SUCCESS;
  std::exception_ptr error;
  try {
    std::vector<const char*> header_contents, header_names, options;
    for (const auto& content : run->header_contents) header_contents.push_back(content.c_str());
    for (const auto& name : run->header_names) header_names.push_back(name.c_str());
    for (const auto& option : run->options) options.push_back(option.c_str());
    nvrtcProgram handle = nullptr;
    check_nvrtc(nvrtcCreateProgram(&handle, run->source.c_str(), run->label.c_str(),
                                   static_cast<int>(header_contents.size()), header_contents.data(), header_names.data()),
                "nvrtcCreateProgram");
    struct Destroy {
      nvrtcProgram* handle;
      ~Destroy() { nvrtcDestroyProgram(handle); }
    } destroy{&handle};
#if CUDA_VERSION >= 12080
    // NVRTC asks this now and then (seconds apart in a long compile) whether to go on.
    check_nvrtc(nvrtcSetFlowCallback(
                    handle, [](void* abandoned, void*) { return static_cast<std::atomic<bool>*>(abandoned)->load() ? 1 : 0; },
                    &run->abandoned),
                "nvrtcSetFlowCallback");
#endif
    for (const auto& expression : run->name_expressions)
      check_nvrtc(nvrtcAddNameExpression(handle, expression.c_str()), "nvrtcAddNameExpression");

    result = nvrtcCompileProgram(handle, static_cast<int>(options.size()), options.data());
    std::size_t log_size = 0;
    nvrtcGetProgramLogSize(handle, &log_size);
    log.assign(log_size, '\0');
    if (log_size > 0) nvrtcGetProgramLog(handle, log.data());
    while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
    if (result == NVRTC_SUCCESS) {
      std::size_t size = 0;
      check_nvrtc(nvrtcGetCUBINSize(handle, &size), "nvrtcGetCUBINSize");
      image.resize(size);
      check_nvrtc(nvrtcGetCUBIN(handle, image.data()), "nvrtcGetCUBIN");
      for (const auto& expression : run->name_expressions) {
        const char* lowered = nullptr;
        check_nvrtc(nvrtcGetLoweredName(handle, expression.c_str(), &lowered), "nvrtcGetLoweredName");
        lowered_names[expression] = lowered;
      }
    }
  } catch (...) {
    error = std::current_exception();
  }
  std::lock_guard lock(run->mutex);
  run->result = result;
  run->log = std::move(log);
  run->image = std::move(image);
  run->lowered_names = std::move(lowered_names);
  run->error = error;
  run->done = true;
  if (run->abandoned) abandoned_running().fetch_sub(1);
  run->finished.notify_all();
}

class NvrtcCompiler final : public Compiler {
public:
  explicit NvrtcCompiler(std::string arch) : arch_(std::move(arch)), identity_(nvrtc_identity()) {
    static const std::regex valid(R"(sm_\d+[a-z]?)");
    if (!std::regex_match(arch_, valid))
      throw Error("unknown CUDA architecture `" + arch_ + "`; expected a real architecture such as sm_90 or sm_80");
  }

  std::string backend() const override { return "cuda"; }
  std::string target() const override { return arch_; }
  std::string identity() const override { return identity_; }
  std::vector<std::string> base_options() const override {
    std::vector<std::string> options = {"--gpu-architecture=" + arch_, "--std=c++17"};
    // The toolkit's headers (CUB, CCCL) for programs that include them.
    for (const char* dir : {RTCG_CUDA_INCLUDE_DIR, RTCG_CUDA_INCLUDE_DIR "/cccl"})
      if (std::filesystem::is_directory(dir)) options.push_back(std::string("-I") + dir);
    return options;
  }

  Binary compile(const Program& program) const override {
    const std::string source = full_source(program, "cuda");
    const std::string dump_path = detail::dump_source(program, "cuda", source);

    auto run = std::make_shared<NvrtcRun>();
    run->source = source;
    run->label = detail::source_label(program, "cuda");
    for (const auto& header : detail::embedded_headers()) {
      run->header_contents.push_back(header.content);
      run->header_names.push_back(header.name);
    }
    run->name_expressions = program.name_expressions;
    std::vector<std::string> options = base_options();
    for (const auto& dir : program.include_dirs) options.push_back("-I" + dir.string());
    for (const auto& option : detail::canonical_options(program.options)) options.push_back(option);
    run->options = options;

    // NVRTC runs in this process and cannot be stopped from outside half-way, so it runs on a
    // thread of its own while this one waits, polling the stop request as a host compile does.
    std::thread(run_nvrtc, run).detach();
    {
      std::unique_lock lock(run->mutex);
      while (!run->done) {
        if (detail::compile_stop_requested()) {
          // Abandoned: the thread keeps its inputs and drops its result, and the flow callback
          // cancels it at NVRTC's next check. Nothing reaches the cache (the caller stores).
          run->abandoned = true;
          abandoned_running().fetch_add(1);
          end_at_exit_while_abandoned_runs();
          throw detail::compile_interrupted("NVRTC, `" + program.name + "`");
        }
        run->finished.wait_for(lock, std::chrono::milliseconds(10));
      }
    }
    if (run->error) std::rethrow_exception(run->error);
    const std::string& log = run->log;
    if (run->result != NVRTC_SUCCESS)
      throw CompileError(detail::format_compile_failure(program, "cuda", arch_, options, log, dump_path), log, source);

    Binary binary;
    binary.backend = "cuda";
    binary.target = arch_;
    binary.log = log;
    binary.image = std::move(run->image);
    binary.lowered_names = std::move(run->lowered_names);
    auto signatures = detail::scan_kernel_signatures(program.source);
    for (auto& [name, signature] : signatures) binary.signatures[name] = std::move(signature);
    // Templated kernels are looked up by lowered name; give them their template's parameters.
    for (const auto& [expression, lowered] : binary.lowered_names) {
      const auto base = expression.substr(0, expression.find('<'));
      auto it = binary.signatures.find(base);
      if (it != binary.signatures.end()) binary.signatures[lowered] = it->second;
    }
    return binary;
  }

private:
  std::string arch_;
  std::string identity_;
};

}  // namespace

std::unique_ptr<Compiler> make_nvrtc_compiler(const std::string& arch) { return std::make_unique<NvrtcCompiler>(arch); }

int abandoned_compiles_running() { return abandoned_running().load(); }

}  // namespace rtcg
