// Backend selection and the compile path shared by both backends: in-process memo, then the
// disk cache, then the compiler.
#include <rtcg/backend.hpp>
#include <rtcg/cache.hpp>
#include <rtcg/log.hpp>

#include "cuda/cuda_backend.hpp"
#include "cuda/driver.hpp"
#include "host/host_backend.hpp"

#include <algorithm>
#include <mutex>
#include <new>

namespace rtcg {

void* Backend::allocate_host(std::size_t bytes) {
  return ::operator new(std::max<std::size_t>(bytes, 1), std::align_val_t{64});
}

void Backend::deallocate_host(void* pointer) noexcept {
  if (pointer) ::operator delete(pointer, std::align_val_t{64});
}

void Backend::start_copy_to_host(void* host_destination, const void* source, std::size_t bytes) {
  copy_to_host(host_destination, source, bytes);
}

void Backend::wait_for_host_copies() {}

void Backend::copy_to_device_before_next_launch(void* destination, const void* host_source, std::size_t bytes) {
  copy_to_device(destination, host_source, bytes);
}

namespace {

// The host's launch graph: host kernels run synchronously as they are launched.
class DirectLaunchGraph final : public LaunchGraph {
public:
  void run(const std::function<void()>& launches) override { launches(); }
  bool graphs() const override { return false; }
  int instantiations() const override { return 0; }
};

}  // namespace

std::unique_ptr<LaunchGraph> Backend::make_launch_graph() { return std::make_unique<DirectLaunchGraph>(); }

std::shared_ptr<const Module> Backend::compile(const Program& program) {
  const CacheKey key = compiler().cache_key(program);
  const std::string digest = key.digest();
  {
    std::lock_guard lock(memo_mutex_);
    if (auto it = memo_.find(digest); it != memo_.end()) return it->second;
  }
  const std::string payload = global_cache().get_or_compute(key, program.name, [&] {
    Binary binary = compiler().compile(program);
    if (!binary.log.empty())
      warn_once("compile-log:" + digest, "compiling `" + program.name + "` (" + name() + ") gave warnings:\n" + binary.log);
    return binary.serialize();
  });
  auto module = load(Binary::deserialize(payload));
  std::lock_guard lock(memo_mutex_);
  // Another thread may have loaded the same key meanwhile; keep the first so every caller
  // shares one module.
  return memo_.emplace(digest, std::move(module)).first->second;
}

namespace {

struct CudaProbe {
  bool usable = false;
  int devices = 0;
  std::string reason;
};

const CudaProbe& cuda_probe() {
  static const CudaProbe probe = [] {
    CudaProbe result;
    const auto* d = cuda::try_driver();
    if (!d) {
      result.reason = cuda::load_failure();
      return result;
    }
    int count = 0;
    if (d->cuDeviceGetCount(&count) != CUDA_SUCCESS || count == 0) {
      result.reason = "the CUDA driver reports no device";
      return result;
    }
    result.usable = true;
    result.devices = count;
    return result;
  }();
  return probe;
}

}  // namespace

bool cuda_available() { return cuda_probe().usable; }
int cuda_device_count() { return cuda_probe().devices; }
std::string cuda_unavailable_reason() { return cuda_probe().reason; }

BackendKind parse_backend_kind(const std::string& which) {
  if (which == "cuda") return BackendKind::cuda;
  if (which == "host") return BackendKind::host;
  if (which == "auto") return cuda_available() ? BackendKind::cuda : BackendKind::host;
  throw Error("unknown backend `" + which + "`; valid backends: cuda, host, auto");
}

Backend& backend(const std::string& which) {
  static std::mutex mutex;
  static std::unique_ptr<Backend> cuda_backend, host_backend;
  const BackendKind kind = parse_backend_kind(which);
  std::lock_guard lock(mutex);
  if (kind == BackendKind::cuda) {
    if (!cuda_available())
      throw DeviceError("the cuda backend was asked for but no CUDA device is usable: " + cuda_unavailable_reason() +
                        "; use --backend host (or auto) to run on the CPU");
    if (!cuda_backend) {
      cuda_backend = std::make_unique<CudaBackend>();
      const auto info = cuda_backend->device_info();
      log().info("backend: cuda on {} ({}, {} SMs){}", info.name, info.arch, info.multiprocessors,
                 which == "auto" ? " (chosen by auto)" : "");
    }
    return *cuda_backend;
  }
  if (!host_backend) {
    host_backend = std::make_unique<HostBackend>();
    if (which == "auto")
      log().info("backend: host (chosen by auto: no usable CUDA device: {})", cuda_unavailable_reason());
    else
      log().info("backend: host");
  }
  return *host_backend;
}

}  // namespace rtcg
