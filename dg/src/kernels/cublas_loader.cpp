#include "kernels/cublas_loader.hpp"

#include "dg/error.hpp"

#include <dlfcn.h>

#include <string>
#include <type_traits>

namespace rtdg::dg::cublas {
namespace {

struct Loaded {
  Api api;
  bool ok = false;
  std::string failure;
};

Loaded load() {
  Loaded loaded;
  // The CUDA 13 soname first, then any libcublas on the loader's path, then the toolkit's
  // usual folders (not always on the path when only the toolkit is installed).
  static const char* const candidates[] = {
      "libcublas.so.13",
      "libcublas.so",
      "/usr/local/cuda/lib64/libcublas.so.13",
      "/usr/local/cuda/lib64/libcublas.so",
      "/usr/local/cuda/targets/x86_64-linux/lib/libcublas.so.13",
      "/usr/local/cuda/targets/x86_64-linux/lib/libcublas.so",
  };
  void* handle = nullptr;
  std::string tried;
  for (const char* name : candidates) {
    handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (handle) {
      loaded.api.library = name;
      break;
    }
    const char* why = dlerror();
    tried += std::string(tried.empty() ? "" : "; ") + (why ? why : name);
  }
  if (!handle) {
    loaded.failure = "libcublas could not be loaded (" + tried + ")";
    return loaded;
  }
  // Kept open for the life of the process, as the CUDA driver is.
  std::string missing;
  auto symbol = [&](auto& pointer, const char* name) {
    void* address = dlsym(handle, name);
    if (!address) missing += std::string(missing.empty() ? "" : ", ") + name;
    pointer = reinterpret_cast<std::remove_reference_t<decltype(pointer)>>(address);
  };
  symbol(loaded.api.create, "cublasCreate_v2");
  symbol(loaded.api.destroy, "cublasDestroy_v2");
  symbol(loaded.api.set_stream, "cublasSetStream_v2");
  symbol(loaded.api.dgemm, "cublasDgemm_v2");
  symbol(loaded.api.sgemm, "cublasSgemm_v2");
  if (!missing.empty()) {
    loaded.failure = loaded.api.library + " lacks " + missing;
    return loaded;
  }
  loaded.ok = true;
  return loaded;
}

const Loaded& loaded() {
  static const Loaded instance = load();
  return instance;
}

}  // namespace

const Api* try_load() { return loaded().ok ? &loaded().api : nullptr; }
const std::string& load_failure() { return loaded().failure; }

const Api& api() {
  if (!loaded().ok) throw Error("cuBLAS unavailable: " + loaded().failure);
  return loaded().api;
}

std::string status_text(Status status) {
  const char* name = nullptr;
  switch (status) {
    case 0: name = "CUBLAS_STATUS_SUCCESS"; break;
    case 1: name = "CUBLAS_STATUS_NOT_INITIALIZED"; break;
    case 3: name = "CUBLAS_STATUS_ALLOC_FAILED"; break;
    case 7: name = "CUBLAS_STATUS_INVALID_VALUE"; break;
    case 8: name = "CUBLAS_STATUS_ARCH_MISMATCH"; break;
    case 11: name = "CUBLAS_STATUS_MAPPING_ERROR"; break;
    case 13: name = "CUBLAS_STATUS_EXECUTION_FAILED"; break;
    case 14: name = "CUBLAS_STATUS_INTERNAL_ERROR"; break;
    case 15: name = "CUBLAS_STATUS_NOT_SUPPORTED"; break;
    case 16: name = "CUBLAS_STATUS_LICENSE_ERROR"; break;
    default: break;
  }
  return std::string(name ? name : "cuBLAS status") + " (" + std::to_string(status) + ")";
}

}  // namespace rtdg::dg::cublas
