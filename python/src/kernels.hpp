// Modules and kernels as Python sees them (kernels.cpp), shared with the tuner's bindings.
#pragma once

#include "common.hpp"

#include <rtcg/argument_binding.hpp>
#include <rtcg/module.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace rtdg::python {

// A loaded module. One the tuner lends to a variant's run (tuning.cpp) is valid only during
// that call: `valid` is cleared after it, and every use of a stale one raises.
struct ModuleHandle {
  std::shared_ptr<const rtcg::Module> module;
  rtcg::Backend* backend = nullptr;
  bool valid = true;
  void check_valid() const {
    if (!valid) throw py::value_error("this module was lent to a tuning variant's run() and is gone; use it only during that call");
  }
};

struct KernelHandle {
  KernelHandle(std::shared_ptr<const rtcg::Module> module, std::shared_ptr<const rtcg::Kernel> kernel, rtcg::Backend& backend);
  std::shared_ptr<const rtcg::Module> module;  // keeps the module loaded (null for a lent one)
  std::shared_ptr<const rtcg::Kernel> kernel;
  rtcg::Backend* backend;
  // The parameters as declared in the source, when rtcg can read every declaration; launches
  // then check types, else sizes only.
  std::optional<std::vector<rtcg::ArgumentDecl>> decls;
  void launch(const py::args& args, const py::object& grid, const py::object& block, unsigned shared) const;
};

// Binds one Python value (an rtdg.Array or DLPack tensor, an int, a float, a numpy scalar) to
// the next declared argument.
void bind_argument(rtcg::detail::ArgumentBinder& binder, rtcg::Backend& backend, const py::handle& value);

std::shared_ptr<ModuleHandle> compile_module(const std::string& source, const py::object& which,
                                             const std::vector<std::string>& options, const std::string& name,
                                             const std::vector<std::string>& include_dirs, bool no_extern_c,
                                             const std::vector<std::string>& name_expressions);

}  // namespace rtdg::python
