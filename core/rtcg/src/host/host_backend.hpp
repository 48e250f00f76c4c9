// The host backend (private): generated C++ compiled to a shared object and run in-process.
#pragma once

#include <rtcg/backend.hpp>

// Mirrors rtcg_launch_shape in rtcg/kernel.h (the layout kernels read).
struct rtcg_launch_shape_abi {
  unsigned grid[3];
  unsigned block[3];
  unsigned shared_bytes;
};

namespace rtcg {

class HostBackend final : public Backend {
public:
  HostBackend();
  BackendKind kind() const override { return BackendKind::host; }
  DeviceInfo device_info() const override;
  std::shared_ptr<const Module> load(const Binary& binary) const override;
  void* allocate(std::size_t bytes) override;
  void deallocate(void* pointer) noexcept override;
  void copy_to_device(void* destination, const void* host_source, std::size_t bytes) override;
  void copy_to_host(void* host_destination, const void* source, std::size_t bytes) override;
  void copy_on_device(void* destination, const void* source, std::size_t bytes) override;
  void memset_bytes(void* destination, unsigned char value, std::size_t bytes) override;
  std::size_t free_memory() const override;
  void synchronize() override;
  double time_ms(const std::function<void()>& work) override;
};

}  // namespace rtcg
