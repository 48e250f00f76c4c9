// Modules and kernels: a loaded binary and its entry points. As PyCUDA's SourceModule and
// Function, with the launch checked against the kernel's parameter list.
#pragma once

#include <rtcg/binary.hpp>
#include <rtcg/error.hpp>

#include <array>
#include <cstddef>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace rtcg {

struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
};

struct LaunchShape {
  Dim3 grid;
  Dim3 block;
  unsigned shared_bytes = 0;  // dynamic shared memory per block
};

struct KernelAttributes {
  int registers = 0;                  // per thread
  int static_shared_bytes = 0;
  int max_dynamic_shared_bytes = 0;   // what a launch may ask for now
  int local_bytes = 0;                // per thread; non-zero means spills or stack arrays
  int max_threads_per_block = 0;
  int ptx_version = 0;
  int binary_version = 0;
};

// Arguments of one launch: each a trivially copyable value (a pointer, a number, a small
// struct) copied into its own slot.
class KernelArgs {
public:
  template <class... T>
  explicit KernelArgs(const T&... values) {
    (push(values), ...);
  }
  template <class T>
  void push(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>, "kernel arguments must be trivially copyable");
    std::array<std::byte, sizeof(T)> bytes;
    std::memcpy(bytes.data(), &value, sizeof(T));
    slots_.emplace_back(bytes.begin(), bytes.end());
  }
  std::size_t size() const noexcept { return slots_.size(); }
  std::size_t size_of(std::size_t i) const { return slots_.at(i).size(); }
  // Pointers to each argument's bytes, as cuLaunchKernel wants them.
  std::vector<void*> pointers();

private:
  std::vector<std::vector<std::byte>> slots_;
};

class Kernel {
public:
  virtual ~Kernel() = default;
  const std::string& name() const noexcept { return name_; }
  // Parameter sizes in bytes, from the driver (cuFuncGetParamInfo) or the host export table.
  const std::vector<std::size_t>& parameter_sizes() const noexcept { return parameter_sizes_; }
  // Declarations from the source where known ("double* y"), else empty strings.
  const std::vector<std::string>& parameter_names() const noexcept { return parameter_names_; }

  virtual KernelAttributes attributes() const = 0;
  // Fraction of a multiprocessor's thread slots in use at this block size (driver occupancy
  // API); nullopt on the host backend, where the notion does not apply.
  virtual std::optional<double> occupancy(int block_size, std::size_t dynamic_shared_bytes = 0) const = 0;
  // Largest block size the kernel can launch with, given its resources.
  int max_block_size() const { return attributes().max_threads_per_block; }

  // Checks the arguments against the parameter list, then launches (asynchronously on cuda).
  void launch(const LaunchShape& shape, KernelArgs args) const;
  template <class... T>
  void operator()(const LaunchShape& shape, const T&... values) const {
    launch(shape, KernelArgs(values...));
  }

  // Throws LaunchError naming the parameter when the count or a size is wrong.
  void check_arguments(const KernelArgs& args) const;

protected:
  Kernel(std::string name, std::vector<std::size_t> sizes, std::vector<std::string> names)
      : name_(std::move(name)), parameter_sizes_(std::move(sizes)), parameter_names_(std::move(names)) {}
  virtual void launch_checked(const LaunchShape& shape, KernelArgs& args) const = 0;

private:
  std::string name_;
  std::vector<std::size_t> parameter_sizes_;
  std::vector<std::string> parameter_names_;
};

class Module {
public:
  virtual ~Module() = default;
  // A kernel by its name (extern "C" name, or a name expression given at compile time).
  // Throws rtcg::Error listing the module's kernels when there is none of that name.
  virtual std::shared_ptr<const Kernel> kernel(const std::string& name) const = 0;
  // The symbol a name expression was lowered to.
  const std::string& lowered_name(const std::string& expression) const;
  const Binary& binary() const noexcept { return binary_; }

protected:
  explicit Module(Binary binary) : binary_(std::move(binary)) {}
  Binary binary_;
};

}  // namespace rtcg
