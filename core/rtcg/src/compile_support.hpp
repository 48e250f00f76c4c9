// Pieces shared by the NVRTC and host compilers: kernel signatures from source, the error
// report for a failed compile, and RTDG_DUMP_SOURCE.
#pragma once

#include <rtcg/binary.hpp>
#include <rtcg/program.hpp>
#include <rtcg/tune_stop.hpp>

#include <map>
#include <string>
#include <vector>

namespace rtcg::detail {

// Kernels declared as RTCG_KERNEL(name)(...) or __global__ void name(...), with their
// parameter declarations split at top-level commas.
std::map<std::string, KernelSignature> scan_kernel_signatures(const std::string& source);

// Options with exact duplicates removed, order kept.
std::vector<std::string> canonical_options(const std::vector<std::string>& options);

// The name the compiler reports for the user's source (set with #line), e.g. "axpy.cu".
std::string source_label(const Program& program, const std::string& backend);

// A complete message for a failed compile: what, options, each error with the source lines
// around it (numbered as in the user's source), the whole log, and where the source was
// dumped (or how to dump it).
std::string format_compile_failure(const Program& program, const std::string& backend, const std::string& target,
                                   const std::vector<std::string>& options, const std::string& log,
                                   const std::string& dump_path);

// Writes the full source when RTDG_DUMP_SOURCE=1 (to $RTDG_DUMP_DIR, default ./rtdg-dump);
// returns the path written, or "" when dumping is off or failed (a warning is logged).
std::string dump_source(const Program& program, const std::string& backend, const std::string& full);

// Runs argv[0] with the arguments, no shell, in a process group of its own; stdout and stderr go
// to `log`. Returns the exit status (or -1 if it could not start, with the reason in log).
// Throws rtcg::Interrupted, the process group killed, once rtcg::stop_compiling() is set. The
// group's leader is a small supervisor process (named rtcg-compile) that starts the program and
// kills the group when this process is gone, so a compiler never outlives a killed rtdg.
int run_process(const std::vector<std::string>& argv, std::string& log);

// True when the compile running on this thread is to stop: rtcg::stop_compiling() is set and no
// ShieldCompiles lives on this thread. Polled by both compilers every 10 ms.
bool compile_stop_requested();

// What a stopped compile throws; `what` names it ("`g++`", "NVRTC, `axpy`").
Interrupted compile_interrupted(const std::string& what);

// Per thread: while a ShieldCompiles lives, compiles ignore rtcg::stop_compiling(). The
// tuner shields its default point, which a stopped tuning still compiles and times so that it
// has a winner (rtcg/tune_stop.hpp).
bool& compile_shielded();
class ShieldCompiles {
public:
  ShieldCompiles() : was_(compile_shielded()) { compile_shielded() = true; }
  ~ShieldCompiles() { compile_shielded() = was_; }
  ShieldCompiles(const ShieldCompiles&) = delete;
  ShieldCompiles& operator=(const ShieldCompiles&) = delete;

private:
  bool was_;
};

}  // namespace rtcg::detail
