// A host-side staging buffer from a backend's allocate_host (page-locked on cuda): n values of
// a trivially copyable T, uninitialised, released with the buffer. For copies between device
// arrays and host code that wants them fast (halo traces handed to MPI).
#pragma once

#include <rtcg/backend.hpp>

#include <cstddef>
#include <span>
#include <type_traits>
#include <utility>

namespace rtcg {

template <class T>
class HostBuffer {
  static_assert(std::is_trivially_copyable_v<T>, "HostBuffer holds raw values");

public:
  HostBuffer() = default;
  HostBuffer(Backend& backend, std::size_t n)
      : backend_(&backend), data_(static_cast<T*>(backend.allocate_host(n * sizeof(T)))), size_(n) {}
  HostBuffer(HostBuffer&& other) noexcept
      : backend_(std::exchange(other.backend_, nullptr)), data_(std::exchange(other.data_, nullptr)),
        size_(std::exchange(other.size_, 0)) {}
  HostBuffer& operator=(HostBuffer&& other) noexcept {
    if (this != &other) {
      release();
      backend_ = std::exchange(other.backend_, nullptr);
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;
  ~HostBuffer() { release(); }

  T* data() noexcept { return data_; }
  const T* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }
  std::span<T> span() noexcept { return {data_, size_}; }
  std::span<const T> span() const noexcept { return {data_, size_}; }

private:
  void release() noexcept {
    if (backend_ && data_) backend_->deallocate_host(data_);
    data_ = nullptr;
  }
  Backend* backend_ = nullptr;
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace rtcg
