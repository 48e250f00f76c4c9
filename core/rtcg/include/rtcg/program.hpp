// What to compile: a source string and how to compile it. PyCUDA's SourceModule arguments,
// as a value. The same Program compiles on both backends when it is written in the portable
// dialect of <rtcg/kernel.h> (RTCG_KERNEL, RTCG_GLOBAL_LOOP, ...), which is always included.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace rtcg {

struct Program {
  // A label for logs, dumps and `rtdg cache explain` (e.g. "axpy_f64"). Not part of the key.
  std::string name = "program";
  std::string source;
  // Extra compiler options, e.g. "-DBLOCK=128" or "--use_fast_math". Canonicalised (order
  // kept, duplicates removed) before they enter the cache key.
  std::vector<std::string> options;
  // Extra include folders; rtdg's own device headers need none.
  std::vector<std::filesystem::path> include_dirs;
  // C++ name expressions (e.g. "scale<float, 4>") to look up after compiling; needs
  // extern_c = false, as with NVRTC.
  std::vector<std::string> name_expressions;
  // Wrap the source in extern "C" { } so kernels keep their plain names (PyCUDA's default).
  bool extern_c = true;
};

}  // namespace rtcg
