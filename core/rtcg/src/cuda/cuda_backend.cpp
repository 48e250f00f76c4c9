#include "cuda/cuda_backend.hpp"

#include <rtcg/log.hpp>

#include <chrono>
#include <cstdlib>
#include <sstream>

namespace rtcg {
namespace {

using cuda::check;
using cuda::driver;

int device_ordinal() {
  const char* value = std::getenv("RTDG_CUDA_DEVICE");
  if (!value || !*value) return 0;
  char* end = nullptr;
  const long ordinal = std::strtol(value, &end, 10);
  if (*end != '\0' || ordinal < 0) throw Error(std::string("RTDG_CUDA_DEVICE=") + value + " is not a device number (0, 1, ...)");
  return static_cast<int>(ordinal);
}

int attribute(CUdevice device, CUdevice_attribute which) {
  int value = 0;
  check(driver().cuDeviceGetAttribute(&value, which, device), "cuDeviceGetAttribute");
  return value;
}

class CudaKernel final : public Kernel {
public:
  CudaKernel(const CudaBackend& backend, std::string name, CUfunction function, std::vector<std::size_t> sizes,
             std::vector<std::string> names)
      : Kernel(std::move(name), std::move(sizes), std::move(names)), backend_(backend), function_(function) {}

  KernelAttributes attributes() const override {
    auto get = [&](CUfunction_attribute which) {
      int value = 0;
      check(driver().cuFuncGetAttribute(&value, which, function_), "cuFuncGetAttribute");
      return value;
    };
    KernelAttributes result;
    result.registers = get(CU_FUNC_ATTRIBUTE_NUM_REGS);
    result.static_shared_bytes = get(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
    result.max_dynamic_shared_bytes = get(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);
    result.local_bytes = get(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES);
    result.max_threads_per_block = get(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    result.ptx_version = get(CU_FUNC_ATTRIBUTE_PTX_VERSION);
    result.binary_version = get(CU_FUNC_ATTRIBUTE_BINARY_VERSION);
    return result;
  }

  std::optional<double> occupancy(int block_size, std::size_t dynamic_shared_bytes) const override {
    backend_.make_current();
    // The occupancy calculator respects the kernel's dynamic shared-memory limit: opt in as a
    // launch would (a size the device cannot give at all means no block fits).
    if (dynamic_shared_bytes > 48u * 1024u &&
        driver().cuFuncSetAttribute(function_, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                    static_cast<int>(dynamic_shared_bytes)) != CUDA_SUCCESS)
      return 0.0;
    int blocks = 0;
    check(driver().cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, function_, block_size, dynamic_shared_bytes),
          "cuOccupancyMaxActiveBlocksPerMultiprocessor");
    const int slots = backend_.device_info().max_threads_per_multiprocessor;
    return slots > 0 ? static_cast<double>(blocks * block_size) / slots : 0.0;
  }

protected:
  void launch_checked(const LaunchShape& shape, KernelArgs& args) const override {
    backend_.make_current();
    // Above 48 KiB of dynamic shared memory a kernel must opt in first.
    if (shape.shared_bytes > 48u * 1024u)
      check(driver().cuFuncSetAttribute(function_, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                        static_cast<int>(shape.shared_bytes)),
            ("kernel `" + name() + "`: asking for " + std::to_string(shape.shared_bytes) + " bytes of dynamic shared memory").c_str());
    auto pointers = args.pointers();
    const CUresult result = driver().cuLaunchKernel(function_, shape.grid.x, shape.grid.y, shape.grid.z, shape.block.x,
                                                    shape.block.y, shape.block.z, shape.shared_bytes,
                                                    backend_.stream(), pointers.data(), nullptr);
    if (result != CUDA_SUCCESS) {
      std::ostringstream what;
      what << "launching kernel `" << name() << "` with grid (" << shape.grid.x << ", " << shape.grid.y << ", "
           << shape.grid.z << "), block (" << shape.block.x << ", " << shape.block.y << ", " << shape.block.z
           << "), " << shape.shared_bytes << " bytes of dynamic shared memory (max block size for this kernel: "
           << attributes().max_threads_per_block << ")";
      check(result, what.str().c_str());
    }
  }

private:
  const CudaBackend& backend_;
  CUfunction function_;
};

class CudaModule final : public Module {
public:
  CudaModule(const CudaBackend& backend, Binary binary, CUmodule module)
      : Module(std::move(binary)), backend_(backend), module_(module) {}
  ~CudaModule() override {
    // Cleanup never throws: a failed unload at exit is not worth dying for.
    if (const auto* d = cuda::try_driver(); d && backend_.try_make_current()) d->cuModuleUnload(module_);
  }
  CudaModule(const CudaModule&) = delete;
  CudaModule& operator=(const CudaModule&) = delete;

  std::shared_ptr<const Kernel> kernel(const std::string& name) const override {
    const auto lowered = binary_.lowered_names.find(name);
    const std::string symbol = lowered != binary_.lowered_names.end() ? lowered->second : name;
    backend_.make_current();
    CUfunction function = nullptr;
    // With lazy loading (CUDA 12 and newer by default) this is where the kernel's code reaches
    // the device, so it can also fail for want of memory: only NOT_FOUND means a wrong name.
    const CUresult found = driver().cuModuleGetFunction(&function, module_, symbol.c_str());
    if (found != CUDA_SUCCESS && found != CUDA_ERROR_NOT_FOUND)
      cuda::check(found, ("loading kernel `" + name + "` of the module").c_str());
    if (found != CUDA_SUCCESS) {
      std::ostringstream message;
      message << "the module has no kernel `" << name << "`; kernels:";
      for (const auto& [kernel_name, signature] : binary_.signatures) message << ' ' << kernel_name;
      for (const auto& [expression, symbol_name] : binary_.lowered_names) message << " `" << expression << '`';
      throw Error(message.str());
    }
    // Parameter sizes from the driver: it answers CUDA_ERROR_INVALID_VALUE past the last one.
    std::vector<std::size_t> sizes;
    for (std::size_t index = 0;; ++index) {
      std::size_t offset = 0, size = 0;
      if (driver().cuFuncGetParamInfo(function, index, &offset, &size) != CUDA_SUCCESS) break;
      sizes.push_back(size);
    }
    std::vector<std::string> names;
    if (auto it = binary_.signatures.find(symbol); it != binary_.signatures.end()) names = it->second.parameters;
    names.resize(sizes.size());
    return std::make_shared<CudaKernel>(backend_, name, function, std::move(sizes), std::move(names));
  }

private:
  const CudaBackend& backend_;
  CUmodule module_;
};

}  // namespace

std::string cuda_device_arch(int ordinal) {
  CUdevice device = 0;
  check(driver().cuDeviceGet(&device, ordinal), "cuDeviceGet");
  return "sm_" + std::to_string(attribute(device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)) +
         std::to_string(attribute(device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR));
}

CudaBackend::CudaBackend() : Backend(make_nvrtc_compiler(cuda_device_arch(device_ordinal()))) {
  const auto& d = driver();
  check(d.cuDeviceGet(&device_, device_ordinal()), "cuDeviceGet");
  check(d.cuDevicePrimaryCtxRetain(&context_, device_), "cuDevicePrimaryCtxRetain");
  make_current();
  check(d.cuStreamCreate(&stream_, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  check(d.cuStreamCreate(&copy_stream_, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  check(d.cuEventCreate(&launched_, CU_EVENT_DISABLE_TIMING), "cuEventCreate");
  check(d.cuEventCreate(&copied_, CU_EVENT_DISABLE_TIMING), "cuEventCreate");

  char name[256] = {};
  check(d.cuDeviceGetName(name, sizeof name, device_), "cuDeviceGetName");
  info_.name = name;
  info_.compute_capability_major = attribute(device_, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  info_.compute_capability_minor = attribute(device_, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  info_.arch = "sm_" + std::to_string(info_.compute_capability_major) + std::to_string(info_.compute_capability_minor);
  info_.multiprocessors = attribute(device_, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  std::size_t total = 0;
  check(d.cuDeviceTotalMem(&total, device_), "cuDeviceTotalMem");
  info_.total_memory = total;
  info_.memory_clock_khz = attribute(device_, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
  info_.memory_bus_width_bits = attribute(device_, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
  info_.l2_cache_bytes = attribute(device_, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
  info_.max_threads_per_block = attribute(device_, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  info_.max_threads_per_multiprocessor = attribute(device_, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
  info_.max_shared_memory_per_block_optin = attribute(device_, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
  info_.max_shared_memory_per_multiprocessor = attribute(device_, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
  info_.max_blocks_per_multiprocessor = attribute(device_, CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR);
  info_.registers_per_multiprocessor = attribute(device_, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
  info_.reserved_shared_memory_per_block = attribute(device_, CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK);
  info_.warp_size = attribute(device_, CU_DEVICE_ATTRIBUTE_WARP_SIZE);
  check(d.cuDriverGetVersion(&info_.driver_version), "cuDriverGetVersion");
  char bus[64] = {};
  if (d.cuDeviceGetPCIBusId(bus, sizeof bus, device_) == CUDA_SUCCESS) info_.pci_bus_id = bus;
}

CudaBackend::~CudaBackend() {
  // At process exit the driver may already be shut down (CUDA_ERROR_DEINITIALIZED): then
  // there is nothing left to release, and a destructor must not throw.
  if (const auto* d = cuda::try_driver(); d && try_make_current()) {
    if (launched_) d->cuEventDestroy(launched_);
    if (copied_) d->cuEventDestroy(copied_);
    if (copy_stream_) d->cuStreamDestroy(copy_stream_);
    if (stream_) d->cuStreamDestroy(stream_);
    d->cuDevicePrimaryCtxRelease(device_);
  }
}

bool CudaBackend::try_make_current() const noexcept {
  const auto* d = cuda::try_driver();
  if (!d) return false;
  CUcontext current = nullptr;
  if (d->cuCtxGetCurrent(&current) != CUDA_SUCCESS) return false;
  return current == context_ || d->cuCtxSetCurrent(context_) == CUDA_SUCCESS;
}

void CudaBackend::make_current() const {
  CUcontext current = nullptr;
  driver().cuCtxGetCurrent(&current);
  if (current != context_) check(driver().cuCtxSetCurrent(context_), "cuCtxSetCurrent");
}

std::shared_ptr<const Module> CudaBackend::load(const Binary& binary) const {
  RTCG_VERIFY(binary.backend == "cuda", "a " << binary.backend << " binary can't be loaded by the CUDA backend");
  RTCG_VERIFY(binary.target == info_.arch, "a binary for " << binary.target << " can't be loaded on " << info_.name
                                                           << " (" << info_.arch << ")");
  make_current();
  CUmodule module = nullptr;
  check(driver().cuModuleLoadDataEx(&module, binary.image.data(), 0, nullptr, nullptr), "cuModuleLoadDataEx");
  return std::make_shared<CudaModule>(*this, binary, module);
}

void* CudaBackend::allocate(std::size_t bytes) {
  make_current();
  CUdeviceptr pointer = 0;
  const CUresult result = driver().cuMemAlloc(&pointer, std::max<std::size_t>(bytes, 1));
  if (result == CUDA_ERROR_OUT_OF_MEMORY)
    throw DeviceError("out of device memory: asked for " + std::to_string(bytes) + " bytes, " +
                      std::to_string(free_memory()) + " bytes free");
  check(result, "cuMemAlloc");
  return reinterpret_cast<void*>(pointer);
}

void CudaBackend::deallocate(void* pointer) noexcept {
  if (!pointer) return;
  if (const auto* d = cuda::try_driver()) d->cuMemFree(reinterpret_cast<CUdeviceptr>(pointer));
}

void* CudaBackend::allocate_host(std::size_t bytes) {
  make_current();
  void* pointer = nullptr;
  // Portable: page-locked for every context, so any thread's copies use it as such.
  const CUresult result = driver().cuMemHostAlloc(&pointer, std::max<std::size_t>(bytes, 1), CU_MEMHOSTALLOC_PORTABLE);
  if (result == CUDA_ERROR_OUT_OF_MEMORY)
    throw DeviceError("out of page-locked host memory: asked for " + std::to_string(bytes) + " bytes");
  check(result, "cuMemHostAlloc");
  return pointer;
}

void CudaBackend::deallocate_host(void* pointer) noexcept {
  if (!pointer) return;
  if (const auto* d = cuda::try_driver()) d->cuMemFreeHost(pointer);
}

void CudaBackend::copy_to_device(void* destination, const void* source, std::size_t bytes) {
  if (!bytes) return;
  make_current();
  check(driver().cuMemcpyHtoDAsync(reinterpret_cast<CUdeviceptr>(destination), source, bytes, stream_), "cuMemcpyHtoDAsync");
  check(driver().cuStreamSynchronize(stream_), "cuStreamSynchronize");
}

void CudaBackend::copy_to_host(void* destination, const void* source, std::size_t bytes) {
  if (!bytes) return;
  make_current();
  check(driver().cuMemcpyDtoHAsync(destination, reinterpret_cast<CUdeviceptr>(source), bytes, stream_), "cuMemcpyDtoHAsync");
  check(driver().cuStreamSynchronize(stream_), "cuStreamSynchronize");
}

void CudaBackend::start_copy_to_host(void* destination, const void* source, std::size_t bytes) {
  if (!bytes) return;
  make_current();
  const auto& d = driver();
  check(d.cuEventRecord(launched_, stream_), "cuEventRecord");
  check(d.cuStreamWaitEvent(copy_stream_, launched_, 0), "cuStreamWaitEvent");
  check(d.cuMemcpyDtoHAsync(destination, reinterpret_cast<CUdeviceptr>(source), bytes, copy_stream_), "cuMemcpyDtoHAsync");
}

void CudaBackend::wait_for_host_copies() {
  make_current();
  check(driver().cuStreamSynchronize(copy_stream_), "cuStreamSynchronize");
}

void CudaBackend::copy_to_device_before_next_launch(void* destination, const void* source, std::size_t bytes) {
  if (!bytes) return;
  make_current();
  const auto& d = driver();
  check(d.cuMemcpyHtoDAsync(reinterpret_cast<CUdeviceptr>(destination), source, bytes, copy_stream_), "cuMemcpyHtoDAsync");
  check(d.cuEventRecord(copied_, copy_stream_), "cuEventRecord");
  check(d.cuStreamWaitEvent(stream_, copied_, 0), "cuStreamWaitEvent");
}

void CudaBackend::copy_on_device(void* destination, const void* source, std::size_t bytes) {
  if (!bytes) return;
  make_current();
  check(driver().cuMemcpyDtoDAsync(reinterpret_cast<CUdeviceptr>(destination), reinterpret_cast<CUdeviceptr>(source),
                                   bytes, stream_),
        "cuMemcpyDtoDAsync");
}

void CudaBackend::memset_bytes(void* destination, unsigned char value, std::size_t bytes) {
  if (!bytes) return;
  make_current();
  check(driver().cuMemsetD8Async(reinterpret_cast<CUdeviceptr>(destination), value, bytes, stream_), "cuMemsetD8Async");
}

std::size_t CudaBackend::free_memory() const {
  make_current();
  std::size_t free = 0, total = 0;
  check(driver().cuMemGetInfo(&free, &total), "cuMemGetInfo");
  return free;
}

void CudaBackend::synchronize() {
  make_current();
  check(driver().cuStreamSynchronize(stream_), "cuStreamSynchronize");
  check(driver().cuStreamSynchronize(copy_stream_), "cuStreamSynchronize");
}

double CudaBackend::time_ms(const std::function<void()>& work) {
  make_current();
  const auto& d = driver();
  CUevent start = nullptr, stop = nullptr;
  check(d.cuEventCreate(&start, CU_EVENT_DEFAULT), "cuEventCreate");
  check(d.cuEventCreate(&stop, CU_EVENT_DEFAULT), "cuEventCreate");
  struct Destroy {
    CUevent a, b;
    ~Destroy() {
      if (const auto* driver_table = cuda::try_driver()) {
        driver_table->cuEventDestroy(a);
        driver_table->cuEventDestroy(b);
      }
    }
  } destroy{start, stop};
  check(d.cuEventRecord(start, stream_), "cuEventRecord");
  work();
  check(d.cuEventRecord(stop, stream_), "cuEventRecord");
  check(d.cuEventSynchronize(stop), "cuEventSynchronize");
  float ms = 0;
  check(d.cuEventElapsedTime(&ms, start, stop), "cuEventElapsedTime");
  return static_cast<double>(ms);
}

namespace {

// CUDA graphs by stream capture (rtcg::LaunchGraph). Each run records the launches into a new
// graph and, while their shape stays the same, only updates the one executable graph's
// arguments (cuGraphExecUpdate), which is what NVIDIA's guide suggests for a sequence whose
// arguments change from one run to the next (here the stage times and the ping-pong buffers).
class CudaLaunchGraph final : public LaunchGraph {
public:
  explicit CudaLaunchGraph(const CudaBackend& backend) : backend_(backend) {}
  ~CudaLaunchGraph() override {
    if (const auto* d = cuda::try_driver(); d && exec_ && backend_.try_make_current()) d->cuGraphExecDestroy(exec_);
  }
  CudaLaunchGraph(const CudaLaunchGraph&) = delete;
  CudaLaunchGraph& operator=(const CudaLaunchGraph&) = delete;

  void run(const std::function<void()>& launches) override {
    backend_.make_current();
    const auto& d = driver();
    // Thread-local mode: a call on this thread that could synchronise with the recording stream
    // (a synchronous copy, cuMemAlloc) fails instead of running outside the recording.
    check(d.cuStreamBeginCapture(backend_.stream(), CU_STREAM_CAPTURE_MODE_THREAD_LOCAL), "cuStreamBeginCapture");
    try {
      launches();
    } catch (...) {
      CUgraph partial = nullptr;
      d.cuStreamEndCapture(backend_.stream(), &partial);  // ends the capture whatever state it is in
      if (partial) d.cuGraphDestroy(partial);
      throw;
    }
    CUgraph graph = nullptr;
    const CUresult ended = d.cuStreamEndCapture(backend_.stream(), &graph);
    struct DestroyGraph {
      CUgraph graph;
      ~DestroyGraph() {
        if (const auto* driver_table = cuda::try_driver(); driver_table && graph) driver_table->cuGraphDestroy(graph);
      }
    } destroy{graph};
    check(ended, "recording launches into a CUDA graph (cuStreamEndCapture; the launches did something a graph "
                 "cannot hold, such as a copy to or from the host or a synchronisation)");
    if (exec_) {
      CUgraphExecUpdateResultInfo info{};
      if (d.cuGraphExecUpdate(exec_, graph, &info) != CUDA_SUCCESS) {
        // Another shape (other kernels, launch shapes or order): instantiate it anew.
        d.cuGraphExecDestroy(exec_);
        exec_ = nullptr;
      }
    }
    if (!exec_) {
      check(d.cuGraphInstantiate(&exec_, graph, 0), "cuGraphInstantiate");
      ++instantiations_;
    }
    check(d.cuGraphLaunch(exec_, backend_.stream()), "cuGraphLaunch");
  }
  bool graphs() const override { return true; }
  int instantiations() const override { return instantiations_; }

private:
  const CudaBackend& backend_;
  CUgraphExec exec_ = nullptr;
  int instantiations_ = 0;
};

}  // namespace

std::unique_ptr<LaunchGraph> CudaBackend::make_launch_graph() { return std::make_unique<CudaLaunchGraph>(*this); }

void* cuda_stream(Backend& backend) {
  auto* cuda = dynamic_cast<CudaBackend*>(&backend);
  if (!cuda) return nullptr;
  cuda->make_current();
  return cuda->stream();
}

}  // namespace rtcg
