#include "cuda/driver.hpp"

#include <rtcg/error.hpp>

#include <dlfcn.h>

#include <mutex>
#include <string>

namespace rtcg::cuda {
namespace {

struct Loaded {
  Driver driver;
  bool ok = false;
  std::string failure;
};

// cuda.h maps most API names to versioned symbols with macros (cuMemAlloc -> cuMemAlloc_v2);
// expanding the macro before stringifying gives the symbol the header's prototype matches.
#define RTCG_STRINGIFY_EXPANDED(x) RTCG_STRINGIFY(x)
#define RTCG_STRINGIFY(x) #x

Loaded load() {
  Loaded loaded;
  void* handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = dlerror();
    loaded.failure = std::string("the CUDA driver (libcuda.so.1) could not be loaded: ") + (why ? why : "unknown reason");
    return loaded;
  }
  // The handle is kept for the life of the process: unloading the driver is never safe while
  // modules or memory may still refer to it.
  std::string missing;
#define RTCG_LOAD_POINTER(name)                                                          \
  loaded.driver.name = reinterpret_cast<decltype(&::name)>(dlsym(handle, RTCG_STRINGIFY_EXPANDED(name))); \
  if (!loaded.driver.name) missing += std::string(missing.empty() ? "" : ", ") + RTCG_STRINGIFY_EXPANDED(name);
  RTCG_DRIVER_FUNCTIONS(RTCG_LOAD_POINTER)
#undef RTCG_LOAD_POINTER
  if (!missing.empty()) {
    loaded.failure = "the CUDA driver is too old for rtdg (missing " + missing + "); rtdg needs a driver for CUDA 12.4 or newer";
    return loaded;
  }
  const CUresult init = loaded.driver.cuInit(0);
  if (init != CUDA_SUCCESS) {
    const char* name = nullptr;
    loaded.driver.cuGetErrorName(init, &name);
    loaded.failure = std::string("the CUDA driver loaded but cuInit failed: ") + (name ? name : "unknown error");
    if (init == CUDA_ERROR_NO_DEVICE) loaded.failure = "the CUDA driver loaded but reports no CUDA device";
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

const Driver* try_driver() { return loaded().ok ? &loaded().driver : nullptr; }
const std::string& load_failure() { return loaded().failure; }

const Driver& driver() {
  if (!loaded().ok) throw DeviceError(loaded().failure);
  return loaded().driver;
}

void check(CUresult result, const char* what) {
  if (result == CUDA_SUCCESS) return;
  const char* name = nullptr;
  const char* text = nullptr;
  if (const Driver* d = try_driver()) {
    d->cuGetErrorName(result, &name);
    d->cuGetErrorString(result, &text);
  }
  throw DeviceError(std::string(what) + ": " + (name ? name : "CUDA error " + std::to_string(result)) +
                    (text ? std::string(": ") + text : std::string()));
}

}  // namespace rtcg::cuda
