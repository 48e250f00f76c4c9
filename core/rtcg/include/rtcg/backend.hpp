// A backend is a compiler plus somewhere to run: the CUDA driver on a GPU, or this process
// on the CPU. Both offer the same modules, kernels and raw memory operations; arrays, the
// memory pool and the tuner are built on this interface.
#pragma once

#include <rtcg/compiler.hpp>
#include <rtcg/module.hpp>
#include <rtcg/program.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace rtcg {

enum class BackendKind { cuda, host };

// A sequence of launches that runs as one unit. On cuda a CUDA graph: run() records what the
// given function launches on the backend's stream (stream capture; nothing runs while it is
// recorded), updates the graph it instantiated before in place when the new recording has the
// same shape (the same kernels and launch shapes in the same order; their arguments may
// differ), else instantiates it anew, and launches the graph on the stream. What a step costs
// then is one graph launch and an update instead of a launch per kernel, and the device runs
// the kernels back to back. On the host backend (Backend::make_launch_graph's default) run()
// calls the function as it is.
//
// The function must only launch kernels and enqueue device work on the backend's stream
// (copy_on_device, memset_bytes), and must not make or drop arrays: the stream-ordered pool's
// allocations and frees would be recorded into the graph. A copy to or from the host or a
// synchronisation while it records makes run() throw DeviceError with the driver's reason, as
// does any exception from the function (which run() passes on); in both cases nothing the
// function launched has run, but whatever it did on the host (e.g. swapping two arrays) is done.
class LaunchGraph {
public:
  virtual ~LaunchGraph() = default;
  virtual void run(const std::function<void()>& launches) = 0;
  // True when run() launches graphs (cuda), false when it calls the function directly.
  virtual bool graphs() const = 0;
  // Graphs instantiated so far: 1 after any number of runs of the same shape.
  virtual int instantiations() const = 0;
};

struct DeviceInfo {
  std::string name;                 // "NVIDIA H100 80GB HBM3", or the CPU model
  std::string arch;                 // "sm_90", or "host"
  int compute_capability_major = 0;
  int compute_capability_minor = 0;
  int multiprocessors = 0;          // SMs, or CPU threads available to OpenMP
  std::uint64_t total_memory = 0;   // bytes
  int memory_clock_khz = 0;
  int memory_bus_width_bits = 0;
  int l2_cache_bytes = 0;
  int max_threads_per_block = 0;
  int max_threads_per_multiprocessor = 0;
  int max_shared_memory_per_block_optin = 0;
  // Occupancy limits (CUDA; 0 where unknown, e.g. the host): shared memory and thread blocks
  // per SM, and the shared memory the system reserves per block (1 KiB on sm_80 and newer).
  int max_shared_memory_per_multiprocessor = 0;
  int max_blocks_per_multiprocessor = 0;
  int reserved_shared_memory_per_block = 0;
  int registers_per_multiprocessor = 0;  // 32-bit registers (65536 on sm_50 and newer)
  int warp_size = 0;
  int driver_version = 0;           // e.g. 13000
  std::string pci_bus_id;
};

class Backend {
public:
  virtual ~Backend() = default;
  Backend(const Backend&) = delete;
  Backend& operator=(const Backend&) = delete;

  virtual BackendKind kind() const = 0;
  std::string name() const { return kind() == BackendKind::cuda ? "cuda" : "host"; }
  virtual DeviceInfo device_info() const = 0;
  const Compiler& compiler() const { return *compiler_; }

  // Compiles through the cache (in-process memo, then disk) and loads. Thread-safe.
  std::shared_ptr<const Module> compile(const Program& program);

  // Loads an already compiled binary (what compile() does after the cache).
  virtual std::shared_ptr<const Module> load(const Binary& binary) const = 0;

  // Raw memory in the backend's address space. Pointers are device addresses on cuda.
  virtual void* allocate(std::size_t bytes) = 0;
  virtual void deallocate(void* pointer) noexcept = 0;
  virtual void copy_to_device(void* destination, const void* host_source, std::size_t bytes) = 0;
  virtual void copy_to_host(void* host_destination, const void* source, std::size_t bytes) = 0;
  virtual void copy_on_device(void* destination, const void* source, std::size_t bytes) = 0;
  virtual void memset_bytes(void* destination, unsigned char value, std::size_t bytes) = 0;
  virtual std::size_t free_memory() const = 0;

  // Host memory for staging copies: page-locked on cuda (cuMemHostAlloc, so copies to and
  // from it go by DMA without the driver's own staging), ordinary memory on host. Throws
  // DeviceError when it cannot be had. HostBuffer (rtcg/host_buffer.hpp) owns one.
  virtual void* allocate_host(std::size_t bytes);
  virtual void deallocate_host(void* pointer) noexcept;

  // Copies beside the launched work, for staging data that must travel while kernels run
  // (parallel runs' halo traces). cuda: a second stream, ordered against the launch stream by
  // events; host (and the defaults here): done at once, synchronously. Both ends on the host
  // side should be page-locked (allocate_host) for the copies to be asynchronous.
  //
  // start_copy_to_host: copies `bytes` from device `source` to host memory once the work
  // launched so far is done, without holding the host or later launches; complete when
  // wait_for_host_copies() returns.
  virtual void start_copy_to_host(void* host_destination, const void* source, std::size_t bytes);
  virtual void wait_for_host_copies();
  // Copies `bytes` from host memory to the device before any work launched after this call
  // runs, without holding the host. It may run while work launched before it still runs, so
  // that work must not use `destination`; `host_source` must stay as it is until the work
  // after it is done (e.g. until the next start_copy_to_host + wait_for_host_copies, or
  // synchronize()).
  virtual void copy_to_device_before_next_launch(void* destination, const void* host_source, std::size_t bytes);

  // Waits for all launched work (and copies).
  virtual void synchronize() = 0;
  // Runs `work` and returns the time it took on the device, in milliseconds: CUDA events
  // around it on cuda, a steady clock on host (host kernels run synchronously).
  virtual double time_ms(const std::function<void()>& work) = 0;
  // A launch graph on this backend (LaunchGraph above): CUDA graphs on cuda; on the host the
  // launches run as they come.
  virtual std::unique_ptr<LaunchGraph> make_launch_graph();

protected:
  explicit Backend(std::unique_ptr<Compiler> compiler) : compiler_(std::move(compiler)) {}

private:
  std::unique_ptr<Compiler> compiler_;
  std::mutex memo_mutex_;
  std::map<std::string, std::shared_ptr<const Module>> memo_;  // key digest -> module
};

// True when the CUDA driver loads and at least one device is usable. Never throws; the reason
// when false is available from cuda_unavailable_reason().
bool cuda_available();
std::string cuda_unavailable_reason();
// CUDA devices the driver reports (0 when CUDA is unusable); the backend takes device
// RTDG_CUDA_DEVICE (default 0).
int cuda_device_count();

// "cuda", "host" or "auto" (cuda when usable, else host; the choice is logged). The backend
// lives for the rest of the process. Throws rtcg::Error for an unknown name, or for "cuda"
// when no device is usable (saying why).
Backend& backend(const std::string& which = "auto");
BackendKind parse_backend_kind(const std::string& which);  // throws listing valid names

// The CUDA stream (a CUstream) that every launch and copy of a cuda backend is ordered on,
// with the backend's context made current on the calling thread: for work submitted through
// other CUDA libraries (cuBLAS) in order with rtcg's. nullptr for any other backend.
void* cuda_stream(Backend& backend);

}  // namespace rtcg
