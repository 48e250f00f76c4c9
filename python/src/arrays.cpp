// Backends and device arrays for Python: numpy round trips and the DLPack protocol both ways
// (docs/python.md, "Arrays").
#include "common.hpp"
#include "dlpack.hpp"

#include <rtcg/array.hpp>
#include <rtcg/error.hpp>

#include <pybind11/stl.h>

#include <cstdlib>
#include <sstream>

namespace rtdg::python {
namespace {

template <class F>
decltype(auto) with_type(rtcg::ScalarType type, F&& f) {
  switch (type) {
    case rtcg::ScalarType::f32: return f(float{});
    case rtcg::ScalarType::f64: return f(double{});
    case rtcg::ScalarType::i32: return f(std::int32_t{});
    case rtcg::ScalarType::i64: return f(std::int64_t{});
    default: break;
  }
  throw py::type_error(std::string("device arrays hold float32, float64, int32 or int64, not ") + rtcg::c_type(type));
}

std::shared_ptr<DeviceArray> empty_array(rtcg::Backend& backend, std::vector<std::size_t> shape, rtcg::ScalarType type) {
  auto result = std::make_shared<DeviceArray>();
  result->backend = &backend;
  result->type = type;
  result->shape = shape;
  with_type(type, [&](auto zero) {
    using T = decltype(zero);
    auto array = std::make_shared<rtcg::Array<T>>(backend, shape);
    result->data = array->data();
    result->owner = array;
  });
  return result;
}

// numpy's C-contiguous copy of `values` in the array's element type.
py::array contiguous(const py::handle& values, const py::dtype& dtype) {
  return py::array::ensure(values, py::array::c_style | py::array::forcecast).attr("astype")(dtype, "C", "same_kind", true, false);
}

std::vector<std::size_t> shape_of(const py::array& a) {
  std::vector<std::size_t> shape;
  for (py::ssize_t d = 0; d < a.ndim(); ++d) shape.push_back(static_cast<std::size_t>(a.shape(d)));
  return shape;
}

std::shared_ptr<DeviceArray> to_device(const py::handle& values, const py::object& dtype, const py::object& which) {
  rtcg::Backend& backend = backend_from(which);
  py::array host = py::array::ensure(values);
  if (!host) throw py::type_error("to_device: expected an array-like of numbers");
  const py::dtype type = dtype.is_none() ? host.dtype() : py::dtype::from_args(dtype);
  const rtcg::ScalarType scalar = scalar_type_from(type);
  const py::array copy = contiguous(host, type);
  auto result = empty_array(backend, shape_of(copy), scalar);
  if (result->bytes()) backend.copy_to_device(result->data, copy.data(), result->bytes());
  return result;
}

std::string device_name(std::int32_t type) {
  switch (type) {
    case dlpack::cpu: return "CPU";
    case dlpack::cuda: return "CUDA";
    case dlpack::cuda_host: return "CUDA host (pinned)";
    case dlpack::cuda_managed: return "CUDA managed";
    default: return "DLPack device type " + std::to_string(type);
  }
}

int cuda_ordinal() {
  const char* value = std::getenv("RTDG_CUDA_DEVICE");
  return value && *value ? std::atoi(value) : 0;
}

// The DLPack device of an array on `backend`.
dlpack::Device device_of(const rtcg::Backend& backend) {
  if (backend.kind() == rtcg::BackendKind::cuda) return {dlpack::cuda, cuda_ordinal()};
  return {dlpack::cpu, 0};
}

// ---------------------------------------------------------------- export (__dlpack__)

// What an exported tensor owns: the shape it points to and a reference to the array.
struct Export {
  std::vector<std::int64_t> shape;
  PyObject* array;  // a strong reference, dropped by the deleter (with the GIL held)
};

void release_export(void* context) {
  auto* exported = static_cast<Export*>(context);
  if (!Py_IsInitialized()) {
    delete exported;
    return;
  }
  PyGILState_STATE state = PyGILState_Ensure();
  Py_XDECREF(exported->array);
  delete exported;
  PyGILState_Release(state);
}

void fill_tensor(dlpack::Tensor& tensor, const DeviceArray& a, Export& exported) {
  tensor.data = a.data;
  tensor.device = device_of(*a.backend);
  tensor.ndim = static_cast<std::int32_t>(a.shape.size());
  const bool floating = rtcg::is_floating(a.type);
  tensor.dtype = {floating ? dlpack::float_code : dlpack::int_code, static_cast<std::uint8_t>(8 * rtcg::size_of(a.type)), 1};
  for (const std::size_t n : a.shape) exported.shape.push_back(static_cast<std::int64_t>(n));
  tensor.shape = exported.shape.data();
  tensor.strides = nullptr;
  tensor.byte_offset = 0;
}

void capsule_destructor(PyObject* capsule) {
  // A consumer renames the capsule it took ("used_dltensor..."); only an unconsumed one is ours.
  if (PyCapsule_IsValid(capsule, "dltensor")) {
    auto* tensor = static_cast<dlpack::ManagedTensor*>(PyCapsule_GetPointer(capsule, "dltensor"));
    if (tensor && tensor->deleter) tensor->deleter(tensor);
  } else if (PyCapsule_IsValid(capsule, "dltensor_versioned")) {
    auto* tensor = static_cast<dlpack::ManagedTensorVersioned*>(PyCapsule_GetPointer(capsule, "dltensor_versioned"));
    if (tensor && tensor->deleter) tensor->deleter(tensor);
  }
}

// The consumer's stream must see the array's values: rtcg's work is ordered on its own
// stream, so the export waits for it (a synchronisation, not an event: the protocol's stream
// number is the consumer's, which rtcg does not launch on).
py::object export_dlpack(const py::object& self, const py::object& stream, const py::object& max_version,
                         const py::object& dl_device, const py::object& copy) {
  const DeviceArray& a = self.cast<const DeviceArray&>();
  if (!copy.is_none() && copy.cast<bool>())
    throw py::buffer_error("__dlpack__(copy=True): rtdg arrays are exported without a copy; use array.copy() first");
  if (!dl_device.is_none()) {
    const auto wanted = dl_device.cast<std::pair<int, int>>();
    const dlpack::Device here = device_of(*a.backend);
    if (wanted.first != here.device_type || wanted.second != here.device_id)
      throw py::buffer_error("__dlpack__: the array lives on " + device_name(here.device_type) + " device " +
                             std::to_string(here.device_id) + "; it is not copied to another device");
  }
  const bool no_sync = !stream.is_none() && stream.cast<long long>() == -1;  // -1: the consumer asks for none
  if (a.backend->kind() == rtcg::BackendKind::cuda && !no_sync) a.backend->synchronize();
  auto* exported = new Export{{}, self.ptr()};
  Py_INCREF(self.ptr());
  const bool versioned = !max_version.is_none() && max_version.cast<std::pair<int, int>>().first >= 1;
  if (versioned) {
    auto* tensor = new dlpack::ManagedTensorVersioned{};
    tensor->version = {1, 0};
    tensor->manager_ctx = exported;
    tensor->deleter = [](dlpack::ManagedTensorVersioned* t) {
      release_export(t->manager_ctx);
      delete t;
    };
    tensor->flags = a.readonly ? dlpack::flag_read_only : 0;
    fill_tensor(tensor->dl_tensor, a, *exported);
    return py::reinterpret_steal<py::object>(PyCapsule_New(tensor, "dltensor_versioned", capsule_destructor));
  }
  // The unversioned protocol has no read-only flag: a consumer of it (numpy before 2.1, which
  // marks every import read-only itself) is trusted not to write into a read-only array.
  auto* tensor = new dlpack::ManagedTensor{};
  tensor->manager_ctx = exported;
  tensor->deleter = [](dlpack::ManagedTensor* t) {
    release_export(t->manager_ctx);
    delete t;
  };
  fill_tensor(tensor->dl_tensor, a, *exported);
  return py::reinterpret_steal<py::object>(PyCapsule_New(tensor, "dltensor", capsule_destructor));
}

// ---------------------------------------------------------------- import (from_dlpack)

rtcg::ScalarType scalar_type_of(const dlpack::DataType& t) {
  if (t.lanes == 1) {
    if (t.code == dlpack::float_code && t.bits == 32) return rtcg::ScalarType::f32;
    if (t.code == dlpack::float_code && t.bits == 64) return rtcg::ScalarType::f64;
    if (t.code == dlpack::int_code && t.bits == 32) return rtcg::ScalarType::i32;
    if (t.code == dlpack::int_code && t.bits == 64) return rtcg::ScalarType::i64;
  }
  std::ostringstream text;
  text << "from_dlpack: the tensor's elements are of DLPack type code " << int{t.code} << ", " << int{t.bits} << " bits, "
       << t.lanes << " lanes; rtdg arrays hold float32, float64, int32 or int64 (convert the tensor first)";
  throw py::type_error(text.str());
}

std::shared_ptr<DeviceArray> import_tensor(const dlpack::Tensor& t, bool readonly, std::shared_ptr<void> owner,
                                           rtcg::Backend* wanted) {
  rtcg::Backend* backend = wanted;
  if (t.device.device_type == dlpack::cpu) {
    if (!backend) backend = &rtcg::backend("host");
    if (backend->kind() != rtcg::BackendKind::host)
      throw py::value_error("from_dlpack: the tensor is in CPU memory but the backend is " + backend->name() +
                            "; pass backend=\"host\", or copy it with rtdg.to_device()");
  } else if (t.device.device_type == dlpack::cuda) {
    if (!backend) backend = &rtcg::backend("cuda");
    if (backend->kind() != rtcg::BackendKind::cuda)
      throw py::value_error("from_dlpack: the tensor is in CUDA memory but the backend is " + backend->name());
    if (t.device.device_id != cuda_ordinal())
      throw py::value_error("from_dlpack: the tensor is on CUDA device " + std::to_string(t.device.device_id) +
                            " but rtdg runs on device " + std::to_string(cuda_ordinal()) + " (RTDG_CUDA_DEVICE)");
  } else {
    throw py::value_error("from_dlpack: rtdg takes tensors in CPU or CUDA device memory, not " +
                          device_name(t.device.device_type));
  }
  auto result = std::make_shared<DeviceArray>();
  result->backend = backend;
  result->type = scalar_type_of(t.dtype);
  if (t.ndim < 0) throw py::value_error("from_dlpack: negative ndim");
  for (std::int32_t d = 0; d < t.ndim; ++d) {
    if (t.shape[d] < 0) throw py::value_error("from_dlpack: negative extent");
    result->shape.push_back(static_cast<std::size_t>(t.shape[d]));
  }
  if (t.strides) {
    std::int64_t expected = 1;
    for (std::int32_t d = t.ndim - 1; d >= 0; --d) {
      if (t.shape[d] != 1 && t.strides[d] != expected)
        throw py::value_error("from_dlpack: the tensor is not C-contiguous (strides in elements differ from a row-major "
                              "layout); pass a contiguous copy (e.g. .contiguous() or numpy.ascontiguousarray)");
      expected *= t.shape[d];
    }
  }
  result->data = static_cast<char*>(t.data) + t.byte_offset;
  result->readonly = readonly;
  result->owner = std::move(owner);
  return result;
}

std::shared_ptr<DeviceArray> from_dlpack(const py::handle& object, rtcg::Backend* wanted) {
  if (py::isinstance<DeviceArray>(object)) {
    auto a = object.cast<std::shared_ptr<DeviceArray>>();
    if (wanted && wanted != a->backend)
      throw py::value_error("from_dlpack: the array lives on the " + a->backend->name() + " backend, not " +
                            wanted->name());
    return a;
  }
  if (!py::hasattr(object, "__dlpack__"))
    throw py::type_error(std::string("from_dlpack: a ") + Py_TYPE(object.ptr())->tp_name +
                         " has no __dlpack__ method; pass a DLPack tensor (numpy, CuPy, PyTorch, JAX) or use rtdg.to_device()");
  // The stream the producer orders its work before: rtcg's CUDA stream (1: the legacy default
  // stream, when rtcg's is the default one); none for CPU memory.
  py::object stream = py::none();
  if (py::hasattr(object, "__dlpack_device__")) {
    const auto device = object.attr("__dlpack_device__")().cast<std::pair<int, int>>();
    if (device.first == dlpack::cuda) {
      rtcg::Backend& cuda = wanted ? *wanted : rtcg::backend("cuda");
      void* s = rtcg::cuda_stream(cuda);
      stream = py::int_(s ? reinterpret_cast<std::uintptr_t>(s) : std::uintptr_t{1});
    }
  }
  py::object capsule;
  try {
    capsule = object.attr("__dlpack__")(py::arg("stream") = stream, py::arg("max_version") = py::make_tuple(1, 0));
  } catch (py::error_already_set& e) {
    if (!e.matches(PyExc_TypeError)) throw;
    capsule = object.attr("__dlpack__")(py::arg("stream") = stream);  // a producer before DLPack 1.0
  }
  PyObject* c = capsule.ptr();
  if (PyCapsule_IsValid(c, "dltensor_versioned")) {
    auto* tensor = static_cast<dlpack::ManagedTensorVersioned*>(PyCapsule_GetPointer(c, "dltensor_versioned"));
    if (tensor->version.major > 1)
      throw py::buffer_error("from_dlpack: DLPack version " + std::to_string(tensor->version.major) + " is newer than 1");
    std::shared_ptr<void> owner(tensor, [](void* p) {
      auto* t = static_cast<dlpack::ManagedTensorVersioned*>(p);
      if (t->deleter) t->deleter(t);
    });
    PyCapsule_SetName(c, "used_dltensor_versioned");
    return import_tensor(tensor->dl_tensor, (tensor->flags & dlpack::flag_read_only) != 0, std::move(owner), wanted);
  }
  if (PyCapsule_IsValid(c, "dltensor")) {
    auto* tensor = static_cast<dlpack::ManagedTensor*>(PyCapsule_GetPointer(c, "dltensor"));
    std::shared_ptr<void> owner(tensor, [](void* p) {
      auto* t = static_cast<dlpack::ManagedTensor*>(p);
      if (t->deleter) t->deleter(t);
    });
    PyCapsule_SetName(c, "used_dltensor");
    return import_tensor(tensor->dl_tensor, false, std::move(owner), wanted);
  }
  throw py::type_error("from_dlpack: __dlpack__ returned no DLPack capsule (or one already consumed)");
}

py::array to_numpy(const DeviceArray& a) {
  std::vector<py::ssize_t> shape;
  for (const std::size_t n : a.shape) shape.push_back(static_cast<py::ssize_t>(n));
  py::array result = new_array(a.dtype(), rtcg::size_of(a.type), shape);
  if (a.bytes()) a.backend->copy_to_host(result.mutable_data(), a.data, a.bytes());
  return result;
}

void set_from(DeviceArray& a, const py::handle& values) {
  if (a.readonly) throw py::value_error("set: this array is read-only");
  const py::array host = contiguous(values, a.dtype());
  if (static_cast<std::size_t>(host.size()) != a.size())
    throw py::value_error("set: the array has " + std::to_string(a.size()) + " elements, the values " +
                          std::to_string(host.size()));
  if (a.bytes()) a.backend->copy_to_device(a.data, host.data(), a.bytes());
}

std::string describe(const DeviceArray& a) {
  std::ostringstream text;
  text << "rtdg.Array(shape=(";
  for (std::size_t d = 0; d < a.shape.size(); ++d) text << (d ? ", " : "") << a.shape[d];
  text << (a.shape.size() == 1 ? ",)" : ")") << ", dtype=" << rtcg::c_type(a.type) << ", backend=" << a.backend->name()
       << (a.readonly ? ", read-only" : "") << ")";
  return text.str();
}

}  // namespace

py::array new_array(const py::dtype& dtype, std::size_t itemsize, const std::vector<py::ssize_t>& shape) {
  std::vector<py::ssize_t> strides(shape.size());
  auto stride = static_cast<py::ssize_t>(itemsize);
  for (std::size_t d = shape.size(); d-- > 0;) {
    strides[d] = stride;
    stride *= shape[d];
  }
  return py::array(dtype, shape, strides);
}

std::size_t DeviceArray::size() const {
  std::size_t n = 1;
  for (const std::size_t e : shape) n *= e;
  return n;
}

py::dtype DeviceArray::dtype() const {
  return with_type(type, [](auto zero) { return py::dtype::of<decltype(zero)>(); });
}

rtcg::Backend& backend_from(const py::object& which) {
  if (which.is_none()) return rtcg::backend("auto");
  if (py::isinstance<py::str>(which)) return rtcg::backend(which.cast<std::string>());
  return which.cast<rtcg::Backend&>();
}

rtcg::ScalarType scalar_type_from(const py::dtype& dtype) {
  if (dtype.is(py::dtype::of<float>()) || dtype.equal(py::dtype::of<float>())) return rtcg::ScalarType::f32;
  if (dtype.equal(py::dtype::of<double>())) return rtcg::ScalarType::f64;
  if (dtype.equal(py::dtype::of<std::int32_t>())) return rtcg::ScalarType::i32;
  if (dtype.equal(py::dtype::of<std::int64_t>())) return rtcg::ScalarType::i64;
  throw py::type_error("device arrays hold float32, float64, int32 or int64, not " + py::repr(dtype).cast<std::string>() +
                       "; convert with .astype()");
}

std::shared_ptr<DeviceArray> as_device_array(const py::handle& object, rtcg::Backend* backend) {
  return from_dlpack(object, backend);
}

void bind_arrays(py::module_& m) {
  py::class_<rtcg::Backend, std::unique_ptr<rtcg::Backend, py::nodelete>>(m, "Backend", R"(A place to compile and run kernels: "cuda" (a GPU through NVRTC and the driver) or "host" (the CPU
through the system C++ compiler). Get one with rtdg.backend(); it lives as long as the process.)")
      .def_property_readonly("name", &rtcg::Backend::name, "\"cuda\" or \"host\"")
      .def_property_readonly(
          "device",
          [](const rtcg::Backend& b) {
            const rtcg::DeviceInfo d = b.device_info();
            py::dict info;
            info["name"] = d.name;
            info["arch"] = d.arch;
            info["compute_capability"] = py::make_tuple(d.compute_capability_major, d.compute_capability_minor);
            info["multiprocessors"] = d.multiprocessors;
            info["total_memory"] = d.total_memory;
            info["l2_cache_bytes"] = d.l2_cache_bytes;
            info["max_threads_per_block"] = d.max_threads_per_block;
            info["warp_size"] = d.warp_size;
            info["driver_version"] = d.driver_version;
            info["pci_bus_id"] = d.pci_bus_id;
            return info;
          },
          "The device's properties as a dict (name, arch, multiprocessors, total_memory, ...).")
      .def("synchronize", &rtcg::Backend::synchronize, "Waits for all launched work.")
      .def(
          "time_ms", [](rtcg::Backend& b, const py::function& work) { return b.time_ms([&] { work(); }); },
          py::arg("work"), "Runs work() and returns the device time it took in milliseconds.")
      .def("__repr__", [](const rtcg::Backend& b) { return "rtdg.Backend(" + b.name() + ": " + b.device_info().name + ")"; });

  m.def("backend", &backend_from, py::arg("which") = py::none(), py::return_value_policy::reference,
        R"("cuda", "host" or "auto" (cuda when a GPU is usable, else host). Raises rtdg.Error for "cuda"
without a usable GPU, saying why.)");
  m.def("cuda_available", &rtcg::cuda_available, "True when the CUDA driver loads and a device is usable.");
  m.def("cuda_unavailable_reason", &rtcg::cuda_unavailable_reason, "Why cuda_available() is False (\"\" otherwise).");

  py::class_<DeviceArray, std::shared_ptr<DeviceArray>>(m, "Array", R"(A contiguous row-major array in a backend's memory, as PyCUDA's GPUArray.

Make one with rtdg.to_device(ndarray), rtdg.empty(shape, dtype), rtdg.zeros(shape, dtype) or
rtdg.from_dlpack(tensor). get() copies it to a numpy array; the DLPack protocol (__dlpack__,
__dlpack_device__) lends it to numpy (host backend), CuPy, PyTorch or JAX without a copy.)")
      .def_property_readonly("shape", [](const DeviceArray& a) { return py::tuple(py::cast(a.shape)); })
      .def_property_readonly("dtype", &DeviceArray::dtype)
      .def_property_readonly("size", &DeviceArray::size, "Number of elements.")
      .def_property_readonly("nbytes", &DeviceArray::bytes)
      .def_property_readonly("ndim", [](const DeviceArray& a) { return a.shape.size(); })
      .def_property_readonly("readonly", [](const DeviceArray& a) { return a.readonly; })
      .def_property_readonly("ptr", [](const DeviceArray& a) { return reinterpret_cast<std::uintptr_t>(a.data); },
                             "The address of the first element (a device pointer on cuda).")
      .def_property_readonly("backend", [](const DeviceArray& a) -> rtcg::Backend& { return *a.backend; },
                             py::return_value_policy::reference)
      .def("__len__", [](const DeviceArray& a) {
        if (a.shape.empty()) throw py::type_error("len() of a 0-d array");
        return a.shape[0];
      })
      .def("get", &to_numpy, "A copy of the values in host memory (waits for the device).")
      .def("set", &set_from, py::arg("values"),
           "Copies values (array-like of the same size; cast to this dtype) into the array.")
      .def(
          "fill",
          [](DeviceArray& a, const py::object& value) {
            if (a.readonly) throw py::value_error("fill: this array is read-only");
            with_type(a.type, [&](auto zero) {
              using T = decltype(zero);
              rtcg::ArrayView<T>(*a.backend, static_cast<T*>(a.data), a.size()).fill(value.cast<T>());
            });
          },
          py::arg("value"), "Sets every element to value.")
      .def(
          "copy",
          [](const DeviceArray& a) {
            auto result = empty_array(*a.backend, a.shape, a.type);
            if (a.bytes()) a.backend->copy_on_device(result->data, a.data, a.bytes());
            return result;
          },
          "A new array with a copy of the values (on the device).")
      .def(
          "reshape",
          [](const std::shared_ptr<DeviceArray>& a, const std::vector<std::size_t>& shape) {
            auto result = std::make_shared<DeviceArray>(*a);
            result->shape = shape;
            if (result->size() != a->size())
              throw py::value_error("reshape: the new shape has " + std::to_string(result->size()) + " elements, the array has " +
                                    std::to_string(a->size()));
            return result;
          },
          py::arg("shape"), "The same memory with another shape of the same size.")
      .def("__dlpack__", &export_dlpack, py::arg("stream") = py::none(), py::arg("max_version") = py::none(),
           py::arg("dl_device") = py::none(), py::arg("copy") = py::none(),
           "The DLPack capsule of this array, "
           "without a copy (the array stays alive while the consumer holds it). Work queued on rtdg's CUDA stream is "
           "finished first.")
      .def("__dlpack_device__",
           [](const DeviceArray& a) {
             const dlpack::Device d = device_of(*a.backend);
             return py::make_tuple(d.device_type, d.device_id);
           },
           "(device type, device id): (1, 0) for the host backend (CPU), (2, ordinal) for cuda.")
      .def("__repr__", &describe);

  m.def("to_device", &to_device, py::arg("values"), py::arg("dtype") = py::none(), py::arg("backend") = py::none(),
        "A new device array holding a copy of values (a numpy "
        "array or anything numpy.asarray takes), in dtype (default: the values' own; float32, float64, int32, int64).");
  m.def(
      "empty",
      [](const py::object& shape, const py::object& dtype, const py::object& which) {
        std::vector<std::size_t> s = py::isinstance<py::int_>(shape) ? std::vector<std::size_t>{shape.cast<std::size_t>()}
                                                                      : shape.cast<std::vector<std::size_t>>();
        return empty_array(backend_from(which), s, scalar_type_from(py::dtype::from_args(dtype)));
      },
      py::arg("shape"), py::arg("dtype") = "float64", py::arg("backend") = py::none(),
      "A new array with uninitialised values.");
  m.def("from_dlpack", [](const py::object& tensor, const py::object& which) {
        return from_dlpack(tensor, which.is_none() ? nullptr : &backend_from(which));
      },
      py::arg("tensor"), py::arg("backend") = py::none(),
      "The memory of a DLPack tensor (numpy, CuPy, PyTorch, JAX) as an "
      "rtdg array, without a copy: on the host backend for CPU memory, on cuda for the GPU rtdg uses. It must be "
      "C-contiguous; the tensor stays alive while the array does.");
}

}  // namespace rtdg::python
