// The CUDA backend (private): NVRTC for the device's own architecture, modules loaded through
// the driver API (dlopen'ed), the device's primary context, one stream for all work, and a
// second stream for the copies that run beside it.
#pragma once

#include <rtcg/backend.hpp>

#include "cuda/driver.hpp"

namespace rtcg {

class CudaBackend final : public Backend {
public:
  // Device ordinal from RTDG_CUDA_DEVICE (default 0). Throws DeviceError when unusable.
  CudaBackend();
  ~CudaBackend() override;
  BackendKind kind() const override { return BackendKind::cuda; }
  DeviceInfo device_info() const override { return info_; }
  std::shared_ptr<const Module> load(const Binary& binary) const override;
  void* allocate(std::size_t bytes) override;
  void deallocate(void* pointer) noexcept override;
  void copy_to_device(void* destination, const void* host_source, std::size_t bytes) override;
  void copy_to_host(void* host_destination, const void* source, std::size_t bytes) override;
  void copy_on_device(void* destination, const void* source, std::size_t bytes) override;
  void memset_bytes(void* destination, unsigned char value, std::size_t bytes) override;
  std::size_t free_memory() const override;
  void* allocate_host(std::size_t bytes) override;
  void deallocate_host(void* pointer) noexcept override;
  void start_copy_to_host(void* host_destination, const void* source, std::size_t bytes) override;
  void wait_for_host_copies() override;
  void copy_to_device_before_next_launch(void* destination, const void* host_source, std::size_t bytes) override;
  void synchronize() override;
  double time_ms(const std::function<void()>& work) override;
  std::unique_ptr<LaunchGraph> make_launch_graph() override;

  // Makes the primary context current on the calling thread (cheap; call before driver work).
  void make_current() const;
  // The same for destructors: false (never a throw) when the driver is gone, e.g. at exit.
  bool try_make_current() const noexcept;
  // The stream every launch and copy of this backend uses (stream-ordered in one sequence).
  CUstream stream() const noexcept { return stream_; }
  CUdevice device() const noexcept { return device_; }

private:
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
  CUstream stream_ = nullptr;
  // The side copies (start_copy_to_host, copy_to_device_before_next_launch): their stream,
  // and events marking "launched so far" on stream_ and "copied" on copy_stream_.
  CUstream copy_stream_ = nullptr;
  CUevent launched_ = nullptr, copied_ = nullptr;
  DeviceInfo info_;
};

// The device's architecture ("sm_90") without creating a backend; throws when no device.
std::string cuda_device_arch(int ordinal);

}  // namespace rtcg
