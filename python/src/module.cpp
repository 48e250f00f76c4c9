// The extension module rtdg._rtdg: rtcg (backends, arrays, modules, kernels, generators,
// tuner) and the DG solver, with C++ errors raised as Python exceptions that carry the C++
// message (file:line:column where the C++ side has it). The package rtdg (python/rtdg) re-exports
// it; docs/python.md is the guide.
#include "common.hpp"

#include <config/run_config.hpp>
#include <dg/error.hpp>
#include <fluxes/diagnostics.hpp>
#include <mesh/error.hpp>
#include <output/error.hpp>
#include <rtcg/error.hpp>
#include <runner/run.hpp>

namespace rtdg::python {
namespace {

py::list diagnostics_of(const std::vector<fluxes::Diagnostic>& list) {
  py::list out;
  for (const fluxes::Diagnostic& d : list) out.append(py::make_tuple(d.where.file, d.where.line, d.where.column, d.message));
  return out;
}

// Raises `type` with `message`, setting attributes on the exception instance.
void raise(PyObject* type, const std::string& message, const py::dict& attributes = py::dict()) {
  py::object instance = py::reinterpret_borrow<py::object>(type)(message);
  for (const auto& [key, value] : attributes) instance.attr(key) = value;
  PyErr_SetObject(type, instance.ptr());
}

}  // namespace
}  // namespace rtdg::python

PYBIND11_MODULE(_rtdg, m) {
  using namespace rtdg::python;
  m.doc() = "rtdg's C++ core: run-time compiled kernels (rtcg) and DG solvers. Import the package `rtdg`.";
  m.attr("__version__") = RTDG_VERSION;

  // The exception classes, all below rtdg.Error (a RuntimeError).
  static py::exception<rtcg::Error> error(m, "Error", PyExc_RuntimeError);
  static py::exception<rtcg::CompileError> compile_error(m, "CompileError", error.ptr());
  static py::exception<rtcg::LaunchError> launch_error(m, "LaunchError", error.ptr());
  static py::exception<rtcg::DeviceError> device_error(m, "DeviceError", error.ptr());
  static py::exception<rtdg::config::Error> config_error(m, "ConfigError", error.ptr());
  static py::exception<fluxes::Error> law_error(m, "LawError", error.ptr());
  static py::exception<rtdg::runner::RunFailure> run_failure(m, "RunFailure", error.ptr());
  error.doc() = "Base of rtdg's errors; str() is the C++ message.";
  compile_error.doc() = "A compile failed: .log (the compiler's), .source (what was compiled); str() has both, with the lines around each error.";
  config_error.doc() = "A run config is wrong: .diagnostics lists (file, line, column, message) for every problem.";
  law_error.doc() = "A law or expression is wrong: .diagnostics lists (file, line, column, message).";

  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const rtcg::CompileError& e) {
      py::dict a;
      a["log"] = e.log();
      a["source"] = e.source();
      raise(compile_error.ptr(), e.what(), a);
    } catch (const rtcg::LaunchError& e) {
      raise(launch_error.ptr(), e.what());
    } catch (const rtcg::DeviceError& e) {
      raise(device_error.ptr(), e.what());
    } catch (const rtcg::Error& e) {
      raise(error.ptr(), e.what());
    } catch (const rtdg::config::Error& e) {
      py::dict a;
      a["diagnostics"] = diagnostics_of(e.diagnostics());
      raise(config_error.ptr(), e.what(), a);
    } catch (const fluxes::Error& e) {
      py::dict a;
      a["diagnostics"] = diagnostics_of(e.diagnostics());
      raise(law_error.ptr(), e.what(), a);
    } catch (const rtdg::runner::RunFailure& e) {
      raise(run_failure.ptr(), e.what());
    } catch (const rtdg::dg::Error& e) {
      raise(error.ptr(), e.what());
    } catch (const rtdg::output::Error& e) {
      raise(error.ptr(), e.what());
    } catch (const rtdg::mesh::MeshError& e) {
      raise(error.ptr(), e.what());
    }
  });

  bind_arrays(m);
  bind_kernels(m);
  bind_tuning(m);
  bind_solver(m);
}
