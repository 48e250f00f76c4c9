// NVRTC: CUDA source to CUBIN for a named architecture. Needs the toolkit's libnvrtc, no GPU.
#include <rtcg/compiler.hpp>
#include <rtcg/error.hpp>
#include <rtcg/log.hpp>

#include "compile_support.hpp"
#include "embedded_headers.hpp"

#include <dlfcn.h>
#include <nvrtc.h>

#include <climits>
#include <cstdlib>
#include <filesystem>
#include <regex>

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

    const auto& headers = detail::embedded_headers();
    std::vector<const char*> header_contents, header_names;
    for (const auto& header : headers) {
      header_contents.push_back(header.content.c_str());
      header_names.push_back(header.name.c_str());
    }
    nvrtcProgram handle = nullptr;
    const std::string label = detail::source_label(program, "cuda");
    check_nvrtc(nvrtcCreateProgram(&handle, source.c_str(), label.c_str(), static_cast<int>(headers.size()),
                                   header_contents.data(), header_names.data()),
                "nvrtcCreateProgram");
    struct Destroy {
      nvrtcProgram* handle;
      ~Destroy() { nvrtcDestroyProgram(handle); }
    } destroy{&handle};

    for (const auto& expression : program.name_expressions)
      check_nvrtc(nvrtcAddNameExpression(handle, expression.c_str()), "nvrtcAddNameExpression");

    std::vector<std::string> options = base_options();
    for (const auto& dir : program.include_dirs) options.push_back("-I" + dir.string());
    for (const auto& option : detail::canonical_options(program.options)) options.push_back(option);
    std::vector<const char*> option_pointers;
    for (const auto& option : options) option_pointers.push_back(option.c_str());

    const nvrtcResult result = nvrtcCompileProgram(handle, static_cast<int>(option_pointers.size()), option_pointers.data());
    std::size_t log_size = 0;
    nvrtcGetProgramLogSize(handle, &log_size);
    std::string log(log_size, '\0');
    if (log_size > 0) nvrtcGetProgramLog(handle, log.data());
    while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();

    if (result != NVRTC_SUCCESS)
      throw CompileError(detail::format_compile_failure(program, "cuda", arch_, options, log, dump_path), log, source);

    Binary binary;
    binary.backend = "cuda";
    binary.target = arch_;
    binary.log = log;
    std::size_t size = 0;
    check_nvrtc(nvrtcGetCUBINSize(handle, &size), "nvrtcGetCUBINSize");
    binary.image.resize(size);
    check_nvrtc(nvrtcGetCUBIN(handle, binary.image.data()), "nvrtcGetCUBIN");
    for (const auto& expression : program.name_expressions) {
      const char* lowered = nullptr;
      check_nvrtc(nvrtcGetLoweredName(handle, expression.c_str(), &lowered), "nvrtcGetLoweredName");
      binary.lowered_names[expression] = lowered;
    }
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

}  // namespace rtcg
