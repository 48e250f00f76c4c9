// The host backend: shared objects loaded with dlopen, memory from the C++ heap, kernels run
// on the calling thread (parallel inside with OpenMP).
#include <rtcg/backend.hpp>
#include <rtcg/log.hpp>

#include "host/host_backend.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <new>
#include <sstream>
#include <thread>

namespace rtcg {
namespace {

using ParamsFunction = int (*)(std::size_t*, int);
using LaunchFunction = void (*)(const rtcg_launch_shape_abi*, void**);

class HostKernel final : public Kernel {
public:
  HostKernel(std::string name, std::vector<std::size_t> sizes, std::vector<std::string> names, LaunchFunction entry)
      : Kernel(std::move(name), std::move(sizes), std::move(names)), entry_(entry) {}

  KernelAttributes attributes() const override {
    KernelAttributes attributes;
    attributes.max_threads_per_block = 1024;  // the launch shape is advisory on host
    return attributes;
  }
  std::optional<double> occupancy(int, std::size_t) const override { return std::nullopt; }

protected:
  void launch_checked(const LaunchShape& shape, KernelArgs& args) const override {
    const rtcg_launch_shape_abi abi{{shape.grid.x, shape.grid.y, shape.grid.z},
                                    {shape.block.x, shape.block.y, shape.block.z},
                                    shape.shared_bytes};
    auto pointers = args.pointers();
    entry_(&abi, pointers.data());
  }

private:
  LaunchFunction entry_;
};

class HostModule final : public Module {
public:
  HostModule(Binary binary, void* handle) : Module(std::move(binary)), handle_(handle) {}
  ~HostModule() override { dlclose(handle_); }
  HostModule(const HostModule&) = delete;
  HostModule& operator=(const HostModule&) = delete;

  std::shared_ptr<const Kernel> kernel(const std::string& name) const override {
    const auto lowered = binary_.lowered_names.find(name);
    const std::string symbol = lowered != binary_.lowered_names.end() ? lowered->second : name;
    auto params = reinterpret_cast<ParamsFunction>(dlsym(handle_, ("rtcg_host_params_" + symbol).c_str()));
    auto entry = reinterpret_cast<LaunchFunction>(dlsym(handle_, ("rtcg_host_launch_" + symbol).c_str()));
    if (!params || !entry) {
      std::ostringstream message;
      message << "the module has no kernel `" << name << "`; kernels:";
      for (const auto& [kernel_name, signature] : binary_.signatures) message << ' ' << kernel_name;
      for (const auto& [expression, symbol_name] : binary_.lowered_names) message << " `" << expression << '`';
      message << " (host kernels are declared with RTCG_KERNEL(name))";
      throw Error(message.str());
    }
    std::vector<std::size_t> sizes(64);
    const int count = params(sizes.data(), static_cast<int>(sizes.size()));
    RTCG_VERIFY(count >= 0 && count <= 64, "kernel `" << name << "` has more than 64 parameters");
    sizes.resize(static_cast<std::size_t>(count));
    std::vector<std::string> names;
    if (auto it = binary_.signatures.find(symbol); it != binary_.signatures.end()) names = it->second.parameters;
    names.resize(sizes.size());
    return std::make_shared<HostKernel>(name, std::move(sizes), std::move(names), entry);
  }

private:
  void* handle_;
};

std::string temp_folder() {
  const char* tmp = std::getenv("TMPDIR");
  return tmp && *tmp ? tmp : "/tmp";
}

}  // namespace

HostBackend::HostBackend() : Backend(make_host_compiler()) {}

DeviceInfo HostBackend::device_info() const {
  DeviceInfo info;
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("model name", 0) == 0) {
      info.name = line.substr(line.find(':') + 2);
      break;
    }
  }
  if (info.name.empty()) info.name = "host CPU";
  info.arch = "host";
  info.multiprocessors = static_cast<int>(std::thread::hardware_concurrency());
  const long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGE_SIZE);
  if (pages > 0 && page_size > 0) info.total_memory = static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page_size);
  info.max_threads_per_block = 1024;
  info.warp_size = 1;
  return info;
}

std::shared_ptr<const Module> HostBackend::load(const Binary& binary) const {
  RTCG_VERIFY(binary.backend == "host", "a " << binary.backend << " binary can't be loaded by the host backend");
  // dlopen needs a file. A unique name per load: glibc identifies loaded objects by path, so
  // reusing one could hand back an older module.
  static std::atomic<unsigned long> counter{0};
  const std::string path = temp_folder() + "/rtcg-" + std::to_string(getpid()) + "-" +
                           std::to_string(counter.fetch_add(1)) + ".so";
  {
    std::ofstream out(path, std::ios::binary);
    out.write(binary.image.data(), static_cast<std::streamsize>(binary.image.size()));
    if (!out) throw Error("could not write " + path + " to load a host module (is " + temp_folder() + " full?)");
  }
  // RTLD_NODELETE: a module stays mapped until the process exits. Its OpenMP regions run on
  // libgomp's pool threads, which hold per-thread state of the module (its thread_local launch
  // shape, rtcg/kernel.h) past the region's end; unmapping the module under them crashed those
  // threads now and then (seen as segfaults in libgomp's worker threads under parallel ctest).
  // Before modules were built with -fvisibility=hidden that inline thread_local was a
  // STB_GNU_UNIQUE symbol, which made every module undeletable anyway.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  const char* why = handle ? nullptr : dlerror();
  std::remove(path.c_str());
  if (!handle) throw Error("could not load a host module: " + std::string(why ? why : "unknown reason"));
  return std::make_shared<HostModule>(binary, handle);
}

void* HostBackend::allocate(std::size_t bytes) {
  // 256-byte alignment, like cudaMalloc, so vectorised generated code may assume it.
  const std::size_t rounded = (std::max<std::size_t>(bytes, 1) + 255) / 256 * 256;
  void* pointer = std::aligned_alloc(256, rounded);
  if (!pointer) throw DeviceError("host allocation of " + std::to_string(bytes) + " bytes failed");
  return pointer;
}
void HostBackend::deallocate(void* pointer) noexcept { std::free(pointer); }
void HostBackend::copy_to_device(void* destination, const void* source, std::size_t bytes) {
  if (bytes) std::memcpy(destination, source, bytes);
}
void HostBackend::copy_to_host(void* destination, const void* source, std::size_t bytes) {
  if (bytes) std::memcpy(destination, source, bytes);
}
void HostBackend::copy_on_device(void* destination, const void* source, std::size_t bytes) {
  if (bytes) std::memmove(destination, source, bytes);
}
void HostBackend::memset_bytes(void* destination, unsigned char value, std::size_t bytes) {
  if (bytes) std::memset(destination, value, bytes);
}
std::size_t HostBackend::free_memory() const {
  const long pages = sysconf(_SC_AVPHYS_PAGES), page_size = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page_size > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(page_size) : 0;
}
void HostBackend::synchronize() {}
double HostBackend::time_ms(const std::function<void()>& work) {
  const auto start = std::chrono::steady_clock::now();
  work();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace rtcg
