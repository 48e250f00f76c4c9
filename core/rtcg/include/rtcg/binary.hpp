// A compiled program: what a compiler produces and the cache stores. Opaque bytes (CUBIN
// for cuda, a shared object for host) plus what loading and launching need to know.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace rtcg {

struct KernelSignature {
  // Parameter declarations as written in the source, e.g. {"double* y", "double a"}.
  std::vector<std::string> parameters;
};

struct Binary {
  std::string backend;                      // "cuda" or "host"
  std::string target;                       // "sm_90", or the host CPU description
  std::string image;                        // CUBIN or shared-object bytes
  std::string log;                          // compiler warnings of a successful compile
  std::map<std::string, std::string> lowered_names;        // name expression -> symbol
  std::map<std::string, KernelSignature> signatures;       // symbol -> parameters (from source)

  std::string serialize() const;
  static Binary deserialize(const std::string& bytes);  // throws rtcg::Error when malformed
};

}  // namespace rtcg
