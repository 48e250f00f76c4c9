// Compilers turn a Program into a Binary without needing a device: NVRTC for a named GPU
// architecture, or the system C++ compiler for the host backend. Each knows its identity,
// which goes into the cache key.
#pragma once

#include <rtcg/binary.hpp>
#include <rtcg/program.hpp>

#include <memory>
#include <string>
#include <vector>

namespace rtcg {

class CacheKey;

class Compiler {
public:
  virtual ~Compiler() = default;
  virtual std::string backend() const = 0;            // "cuda" or "host"
  virtual std::string target() const = 0;             // "sm_90", host CPU description
  virtual std::string identity() const = 0;           // compiler path/version/build
  virtual std::vector<std::string> base_options() const = 0;  // options always passed

  // Every field that changes the binary: schema, backend, identity, target, canonical
  // options, the full source with the contents of the headers it includes, name expressions.
  CacheKey cache_key(const Program& program) const;

  // Compiles without consulting any cache. Throws CompileError with the log, the options and
  // the source lines around each error.
  virtual Binary compile(const Program& program) const = 0;
};

// NVRTC for an explicit architecture ("sm_90", "sm_80", ...). Needs no GPU and no driver.
std::unique_ptr<Compiler> make_nvrtc_compiler(const std::string& arch);

// The host compiler: $CXX if set, else the compiler rtdg was configured with; flags from
// $RTDG_HOST_CXXFLAGS if set, else "-O3 -march=native -fopenmp".
std::unique_ptr<Compiler> make_host_compiler();

// The final source a compiler sees (prelude, extern "C" wrapping, #line) for a program.
std::string full_source(const Program& program, const std::string& backend);

}  // namespace rtcg
