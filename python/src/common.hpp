// Shared by the pieces of the extension module rtdg._rtdg (docs/python.md): the device array
// type that every binding passes kernels and solvers, and how a Python argument names a backend.
#pragma once

#include <rtcg/backend.hpp>
#include <rtcg/kernel_arguments.hpp>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstddef>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace rtdg::python {

namespace py = pybind11;

// A contiguous, row-major array in a backend's memory: owned (from the backend's memory pool),
// a view of another array's memory, or memory another library lent through DLPack (`lender`
// keeps it alive). Element types: float32, float64, int32, int64.
struct DeviceArray {
  rtcg::Backend* backend = nullptr;
  rtcg::ScalarType type = rtcg::ScalarType::f64;
  std::vector<std::size_t> shape;
  void* data = nullptr;
  bool readonly = false;
  std::shared_ptr<void> owner;  // the memory's owner (an rtcg::Array, a DLPack tensor); may be null
  py::object lender;            // a Python object that must outlive this one (a solver), or None

  std::size_t size() const;
  std::size_t bytes() const { return size() * rtcg::size_of(type); }
  py::dtype dtype() const;
};

// The backend a Python argument names: None (the "auto" backend), "auto", "cuda", "host", or
// an rtdg.Backend object.
rtcg::Backend& backend_from(const py::object& which);
// The element type of a numpy dtype; throws TypeError for one arrays do not hold.
rtcg::ScalarType scalar_type_from(const py::dtype& dtype);
// A device array from something else: a DeviceArray itself, or any object with __dlpack__
// (zero-copy; on `backend` when given, else the backend of the object's device).
std::shared_ptr<DeviceArray> as_device_array(const py::handle& object, rtcg::Backend* backend);

// A new C-contiguous numpy array with its strides computed here: pybind11 before 2.12 computes
// strides from the dtype's element size as numpy 1 lays it out, which numpy 2 moved.
py::array new_array(const py::dtype& dtype, std::size_t itemsize, const std::vector<py::ssize_t>& shape);
template <class T>
py::array numpy_copy(const std::vector<py::ssize_t>& shape, const T* values) {
  py::array result = new_array(py::dtype::of<T>(), sizeof(T), shape);
  if (result.size()) std::memcpy(result.mutable_data(), values, static_cast<std::size_t>(result.size()) * sizeof(T));
  return result;
}

void bind_arrays(py::module_& m);
void bind_kernels(py::module_& m);
void bind_tuning(py::module_& m);
void bind_solver(py::module_& m);

}  // namespace rtdg::python
