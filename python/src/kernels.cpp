// Modules, kernels and the elementwise and reduction generators for Python, in PyCUDA's shape
// (docs/python.md, "Kernels"). Arguments are checked against the kernel's declared parameters
// as rtcg's C++ launches check them (rtcg/argument_binding.hpp).
#include "common.hpp"
#include "kernels.hpp"

#include <rtcg/argument_binding.hpp>
#include <rtcg/array.hpp>
#include <rtcg/elementwise.hpp>
#include <rtcg/error.hpp>
#include <rtcg/reduction.hpp>

#include <pybind11/stl.h>

#include <climits>
#include <regex>

namespace rtdg::python {
namespace {

template <class T>
void bind_view(rtcg::detail::ArgumentBinder& binder, const DeviceArray& a) {
  if (a.readonly) binder.bind(rtcg::ArrayView<const T>(*a.backend, static_cast<const T*>(a.data), a.size()));
  else binder.bind(rtcg::ArrayView<T>(*a.backend, static_cast<T*>(a.data), a.size()));
}

}  // namespace

void bind_argument(rtcg::detail::ArgumentBinder& binder, rtcg::Backend& backend, const py::handle& value) {
  if (py::isinstance<py::bool_>(value))
    throw py::type_error("a bool was passed as a kernel argument; pass 0 or 1 for an integer parameter");
  if (py::isinstance<py::int_>(value)) {
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(value.ptr(), &overflow);
    if (overflow > 0) return binder.bind(value.cast<unsigned long long>());
    if (overflow < 0) throw py::value_error("an integer kernel argument below the range of long long");
    return binder.bind(v);
  }
  if (py::isinstance<py::float_>(value)) return binder.bind(value.cast<double>());
  // numpy scalars: their value, converted to the declared type by the same rules.
  if (py::hasattr(value, "dtype") && py::hasattr(value, "item") && !py::hasattr(value, "__dlpack__")) {
    const py::dtype dtype = value.attr("dtype");
    const char kind = dtype.kind();
    if (kind == 'f') return binder.bind(value.attr("item")().cast<double>());
    if (kind == 'i') return binder.bind(value.attr("item")().cast<long long>());
    if (kind == 'u') return binder.bind(value.attr("item")().cast<unsigned long long>());
  }
  if (py::isinstance<DeviceArray>(value) || py::hasattr(value, "__dlpack__")) {
    const auto a = as_device_array(value, &backend);
    switch (a->type) {
      case rtcg::ScalarType::f32: return bind_view<float>(binder, *a);
      case rtcg::ScalarType::f64: return bind_view<double>(binder, *a);
      case rtcg::ScalarType::i32: return bind_view<std::int32_t>(binder, *a);
      case rtcg::ScalarType::i64: return bind_view<std::int64_t>(binder, *a);
      default: break;
    }
  }
  throw py::type_error(std::string("kernel arguments are rtdg arrays (or DLPack tensors) and numbers, not ") +
                       Py_TYPE(value.ptr())->tp_name);
}

namespace {

// A kernel's parameter declarations as rtcg::parse_arguments reads them, when every one is of
// a form it knows ("const double* RTCG_RESTRICT x", "long long n"); nothing otherwise (a struct,
// a vector type), and launches then check sizes only, as Kernel::launch does.
std::optional<std::vector<rtcg::ArgumentDecl>> declared_arguments(const rtcg::Kernel& kernel) {
  const auto& names = kernel.parameter_names();
  if (names.size() != kernel.parameter_sizes().size()) return std::nullopt;
  static const std::regex restrict_words(R"(\b(RTCG_RESTRICT|__restrict__|__restrict|restrict)\b)");
  static const std::regex last_name(R"(([A-Za-z_][A-Za-z_0-9]*)\s*$)");
  std::vector<rtcg::ArgumentDecl> decls;
  for (std::size_t p = 0; p < names.size(); ++p) {
    std::string text = std::regex_replace(names[p], restrict_words, " ");
    std::smatch match;
    if (!std::regex_search(text, match, last_name)) return std::nullopt;
    const std::string name = match[1];
    // parse_arguments refuses the names generators reserve (i, n, rtcg_*); raw kernels may use them.
    text = text.substr(0, static_cast<std::size_t>(match.position(1))) + "rtdg_parameter_" + std::to_string(p);
    try {
      std::vector<rtcg::ArgumentDecl> one = rtcg::parse_arguments(text);
      if (one.size() != 1) return std::nullopt;
      one[0].name = name;
      if (rtcg::size_of(one[0].type) != kernel.parameter_sizes()[p] && !one[0].pointer) return std::nullopt;
      decls.push_back(one[0]);
    } catch (const rtcg::Error&) {
      return std::nullopt;
    }
  }
  return decls;
}

// Size-checked arguments for kernels whose declarations rtcg cannot read: arrays as pointers,
// numbers in the parameter's size (floats 4 or 8 bytes, integers range-checked), numpy scalars
// as their own bytes.
rtcg::KernelArgs raw_arguments(const rtcg::Kernel& kernel, rtcg::Backend& backend, const py::args& args) {
  rtcg::KernelArgs result;
  const auto& sizes = kernel.parameter_sizes();
  for (std::size_t p = 0; p < args.size(); ++p) {
    const py::handle value = args[p];
    const std::size_t size = p < sizes.size() ? sizes[p] : 0;
    if (py::isinstance<py::float_>(value)) {
      if (size == 4) result.push(value.cast<float>());
      else result.push(value.cast<double>());
    } else if (py::isinstance<py::int_>(value) && !py::isinstance<py::bool_>(value)) {
      if (size == 4) result.push(value.cast<std::int32_t>());
      else result.push(value.cast<long long>());
    } else if (py::hasattr(value, "dtype") && py::hasattr(value, "tobytes") && !py::hasattr(value, "__dlpack__")) {
      const std::string bytes = value.attr("tobytes")().cast<std::string>();
      if (bytes.size() == 4) {
        std::int32_t v;
        std::memcpy(&v, bytes.data(), 4);
        result.push(v);
      } else if (bytes.size() == 8) {
        std::int64_t v;
        std::memcpy(&v, bytes.data(), 8);
        result.push(v);
      } else {
        throw py::type_error("kernel `" + kernel.name() + "`: argument " + std::to_string(p) + " is a numpy scalar of " +
                             std::to_string(bytes.size()) + " bytes; pass 4- or 8-byte values");
      }
    } else if (py::isinstance<DeviceArray>(value) || py::hasattr(value, "__dlpack__")) {
      result.push(as_device_array(value, &backend)->data);
    } else {
      throw py::type_error(std::string("kernel arguments are rtdg arrays (or DLPack tensors) and numbers, not ") +
                           Py_TYPE(value.ptr())->tp_name);
    }
  }
  return result;
}

rtcg::Dim3 dim3_from(const py::object& value, const char* what) {
  if (value.is_none()) return {};
  if (py::isinstance<py::int_>(value)) return {value.cast<unsigned>(), 1, 1};
  const auto list = value.cast<std::vector<unsigned>>();
  if (list.empty() || list.size() > 3)
    throw py::value_error(std::string(what) + " takes 1 to 3 extents, e.g. (256,) or (16, 16, 1)");
  rtcg::Dim3 d;
  d.x = list[0];
  if (list.size() > 1) d.y = list[1];
  if (list.size() > 2) d.z = list[2];
  return d;
}

py::dict attributes_of(const rtcg::Kernel& k) {
  const rtcg::KernelAttributes a = k.attributes();
  py::dict d;
  d["registers"] = a.registers;
  d["static_shared_bytes"] = a.static_shared_bytes;
  d["max_dynamic_shared_bytes"] = a.max_dynamic_shared_bytes;
  d["local_bytes"] = a.local_bytes;
  d["max_threads_per_block"] = a.max_threads_per_block;
  d["ptx_version"] = a.ptx_version;
  d["binary_version"] = a.binary_version;
  return d;
}

std::size_t launch_count(const py::object& n) { return n.cast<std::size_t>(); }

}  // namespace

KernelHandle::KernelHandle(std::shared_ptr<const rtcg::Module> m, std::shared_ptr<const rtcg::Kernel> k, rtcg::Backend& b)
    : module(std::move(m)), kernel(std::move(k)), backend(&b), decls(declared_arguments(*kernel)) {}

void KernelHandle::launch(const py::args& args, const py::object& grid, const py::object& block, unsigned shared) const {
  rtcg::LaunchShape shape;
  shape.grid = dim3_from(grid, "grid");
  shape.block = dim3_from(block, "block");
  shape.shared_bytes = shared;
  if (decls) {
    rtcg::detail::ArgumentBinder binder(*backend, *decls, kernel->name());
    for (const py::handle value : args) bind_argument(binder, *backend, value);
    kernel->launch(shape, std::move(binder.finish()));
  } else {
    kernel->launch(shape, raw_arguments(*kernel, *backend, args));
  }
}

std::shared_ptr<ModuleHandle> compile_module(const std::string& source, const py::object& which,
                                             const std::vector<std::string>& options, const std::string& name,
                                             const std::vector<std::string>& include_dirs, bool no_extern_c,
                                             const std::vector<std::string>& name_expressions) {
  rtcg::Backend& backend = backend_from(which);
  rtcg::Program program;
  program.name = name;
  program.source = source;
  program.options = options;
  for (const std::string& dir : include_dirs) program.include_dirs.emplace_back(dir);
  program.name_expressions = name_expressions;
  program.extern_c = !no_extern_c;
  std::shared_ptr<const rtcg::Module> module;
  {
    py::gil_scoped_release release;  // compiles take seconds; other Python threads may run
    module = backend.compile(program);
  }
  auto result = std::make_shared<ModuleHandle>();
  result->module = module;
  result->backend = &backend;
  return result;
}

void bind_kernels(py::module_& m) {
  py::class_<KernelHandle, std::shared_ptr<KernelHandle>>(m, "Kernel", R"(A kernel of a compiled module, as PyCUDA's Function.

Call it with its arguments and a launch shape: kernel(x, y, 2.0, n, grid=(blocks,), block=(256,)).
Arrays (rtdg.Array or any DLPack tensor on the same device) go to pointer parameters, numbers
to scalar ones; each is checked against the kernel's declaration: the element type of an
array, const for read-only arrays, integers range-checked and no float for an integer
parameter (rtdg.LaunchError says which argument and why).)")
      .def_property_readonly("name", [](const KernelHandle& k) { return k.kernel->name(); })
      .def_property_readonly("parameters", [](const KernelHandle& k) { return k.kernel->parameter_names(); },
                             "The parameter declarations as written in the source.")
      .def_property_readonly("parameter_sizes", [](const KernelHandle& k) { return k.kernel->parameter_sizes(); })
      .def_property_readonly("attributes", [](const KernelHandle& k) { return attributes_of(*k.kernel); },
                             "Registers, shared and local memory, the largest block: a dict.")
      .def(
          "occupancy",
          [](const KernelHandle& k, int block, std::size_t shared) { return k.kernel->occupancy(block, shared); },
          py::arg("block_size"), py::arg("shared_bytes") = 0,
          "The fraction of a multiprocessor's thread slots in use "
          "(None on the host backend).")
      .def("__call__", &KernelHandle::launch, py::arg("grid") = py::none(), py::arg("block") = py::none(),
           py::arg("shared") = 0,
           "Launches (asynchronously on cuda). grid and block are "
           "an int or 1 to 3 extents; shared is the dynamic shared memory per block in bytes.")
      .def("__repr__", [](const KernelHandle& k) { return "rtdg.Kernel(" + k.kernel->name() + ")"; });

  py::class_<ModuleHandle, std::shared_ptr<ModuleHandle>>(m, "Module", "A compiled and loaded module (see SourceModule).")
      .def(
          "get_function",
          [](const ModuleHandle& h, const std::string& name) {
            h.check_valid();
            return std::make_shared<KernelHandle>(h.module, h.module->kernel(name), *h.backend);
          },
          py::arg("name"),
          "The kernel of that name (its extern \"C\" name, or a name expression given "
          "when compiling). Raises rtdg.Error listing the module's kernels when there is none.")
      .def_property_readonly(
          "kernel_names",
          [](const ModuleHandle& h) {
            h.check_valid();
            std::vector<std::string> names;
            for (const auto& [symbol, signature] : h.module->binary().signatures) names.push_back(symbol);
            return names;
          },
          "The kernels the source declares.")
      .def(
          "lowered_name",
          [](const ModuleHandle& h, const std::string& expression) {
            h.check_valid();
            return h.module->lowered_name(expression);
          },
          py::arg("expression"))
      .def_property_readonly("log", [](const ModuleHandle& h) {
        h.check_valid();
        return h.module->binary().log;
      }, "The compiler's warnings.")
      .def_property_readonly("backend", [](const ModuleHandle& h) -> rtcg::Backend& { return *h.backend; },
                             py::return_value_policy::reference);

  m.def("SourceModule", &compile_module, py::arg("source"), py::arg("backend") = py::none(),
        py::arg("options") = std::vector<std::string>{}, py::arg("name") = "program",
        py::arg("include_dirs") = std::vector<std::string>{}, py::arg("no_extern_c") = false,
        py::arg("name_expressions") = std::vector<std::string>{},
        R"(Compiles a source string through the compile cache (in-process, then on disk) and loads it, as
PyCUDA's SourceModule. The portable dialect of <rtcg/kernel.h> (RTCG_KERNEL, RTCG_GLOBAL_LOOP,
RTCG_DEVICE, RTCG_RESTRICT) is always included, so one source compiles with NVRTC (cuda) and
the C++ compiler (host); plain CUDA (__global__, threadIdx) compiles on cuda only. Raises
rtdg.CompileError with the compiler log and the source lines around each error.)");

  py::class_<rtcg::ElementwiseKernel>(m, "ElementwiseKernel", R"(ElementwiseKernel(arguments, operation, name="elementwise", preamble="", backend=None, block_size=256, items_per_thread=1, blocks_per_sm=0, restrict_pointers=False)

A generated loop over i in [0, n), as PyCUDA's ElementwiseKernel:

    lin_comb = rtdg.ElementwiseKernel("double a, const double* x, double b, const double* y, double* z",
                                      "z[i] = a*x[i] + b*y[i]")
    lin_comb(5.0, x, 6.0, y, z)      # n: the arrays' common size

The argument list is parsed and checked (types float, double, int, long long, unsigned ...;
const pointers for read-only inputs); the operation is C code in terms of i and the arguments.)")
      .def(py::init([](const std::string& arguments, const std::string& operation, const std::string& name,
                       const std::string& preamble, const py::object& which, unsigned block_size, unsigned items,
                       unsigned blocks_per_sm, bool restrict_pointers) {
             rtcg::ElementwiseParams params;
             params.block_size = block_size;
             params.items_per_thread = items;
             params.blocks_per_sm = blocks_per_sm;
             params.restrict_pointers = restrict_pointers;
             rtcg::Backend& backend = backend_from(which);
             py::gil_scoped_release release;
             return new rtcg::ElementwiseKernel(backend, arguments, operation, name, params, preamble);
           }),
           py::arg("arguments"), py::arg("operation"), py::arg("name") = "elementwise", py::arg("preamble") = "",
           py::arg("backend") = py::none(), py::arg("block_size") = 256, py::arg("items_per_thread") = 1,
           py::arg("blocks_per_sm") = 0, py::arg("restrict_pointers") = false)
      .def(
          "__call__",
          [](const rtcg::ElementwiseKernel& k, const py::args& args, const py::object& n) {
            rtcg::detail::ArgumentBinder binder(k.backend(), k.arguments(), k.spec().name);
            for (const py::handle value : args) bind_argument(binder, k.backend(), value);
            rtcg::KernelArgs& bound = binder.finish();
            std::size_t count = 0;
            if (n.is_none()) {
              count = binder.common_array_size();
            } else {
              count = launch_count(n);
              binder.verify_arrays_hold(count);
            }
            if (count == 0) return;
            // The generated kernel's last parameter is the element count (long long), as
            // ElementwiseKernel::launch passes it.
            if (count > static_cast<std::size_t>(LLONG_MAX)) throw py::value_error("too many elements");
            bound.push(static_cast<long long>(count));
            k.kernel().launch(k.shape(count), std::move(bound));
          },
          py::arg("n") = py::none(),
          "Runs over n elements (default: the common size of the array arguments), "
          "asynchronously on cuda.")
      .def_property_readonly("source", &rtcg::ElementwiseKernel::source, "The generated source.")
      .def_property_readonly("name", [](const rtcg::ElementwiseKernel& k) { return k.spec().name; })
      .def_property_readonly("arguments", [](const rtcg::ElementwiseKernel& k) {
        std::vector<std::string> out;
        for (const auto& d : k.arguments()) out.push_back(d.declaration());
        return out;
      });

  py::class_<rtcg::ReductionEngine>(m, "ReductionKernel", R"(ReductionKernel(dtype, neutral, reduce_expr, map_expr, arguments, name="reduce", preamble="", finalize="", backend=None, block_size=256, items_per_thread=4, blocks_per_sm=4)

A generated reduction, as PyCUDA's ReductionKernel:

    dot = rtdg.ReductionKernel("float64", neutral="0", reduce_expr="a + b",
                               map_expr="x[i] * y[i]", arguments="const double* x, const double* y")
    value = dot(x, y)                # a Python number (waits for the device)

map_expr is evaluated at every i, reduce_expr combines two values a and b; neutral must be its
identity. Results are deterministic: the same bits run after run for the same size.)")
      .def(py::init([](const py::object& dtype, const std::string& neutral, const std::string& reduce_expr,
                       const std::string& map_expr, const std::string& arguments, const std::string& name,
                       const std::string& preamble, const std::string& finalize, const py::object& which,
                       unsigned block_size, unsigned items, unsigned blocks_per_sm) {
             rtcg::ReductionSpec spec;
             spec.name = name;
             spec.type = scalar_type_from(py::dtype::from_args(dtype));
             spec.neutral = neutral;
             spec.reduce_expr = reduce_expr;
             spec.map_expr = map_expr;
             spec.arguments = arguments;
             spec.preamble = preamble;
             spec.finalize = finalize;
             rtcg::ReductionParams params;
             params.block_size = block_size;
             params.items_per_thread = items;
             params.blocks_per_sm = blocks_per_sm;
             rtcg::Backend& backend = backend_from(which);
             py::gil_scoped_release release;
             return new rtcg::ReductionEngine(backend, spec, params);
           }),
           py::arg("dtype"), py::arg("neutral"), py::arg("reduce_expr"), py::arg("map_expr"), py::arg("arguments"),
           py::arg("name") = "reduce", py::arg("preamble") = "", py::arg("finalize") = "",
           py::arg("backend") = py::none(), py::arg("block_size") = 256, py::arg("items_per_thread") = 4,
           py::arg("blocks_per_sm") = 4)
      .def(
          "__call__",
          [](const rtcg::ReductionEngine& e, const py::args& args, const py::object& n, const py::object& out) -> py::object {
            rtcg::detail::ArgumentBinder binder(e.backend(), e.arguments(), e.spec().name);
            for (const py::handle value : args) bind_argument(binder, e.backend(), value);
            binder.finish();
            std::size_t count = 0;
            if (n.is_none()) {
              count = binder.common_array_size();
            } else {
              count = launch_count(n);
              binder.verify_arrays_hold(count);
            }
            const std::size_t bytes = rtcg::size_of(e.spec().type);
            if (!out.is_none()) {
              const auto result = as_device_array(out, &e.backend());
              if (result->type != e.spec().type || result->size() < 1 || result->readonly)
                throw py::value_error(std::string("out: a writable array of at least one ") + rtcg::c_type(e.spec().type));
              e.run(count, binder, result->data);
              return out;
            }
            rtcg::PoolBlock result(rtcg::memory_pool(e.backend()), bytes);
            e.run(count, binder, result.get());
            std::int64_t raw = 0;
            e.backend().copy_to_host(&raw, result.get(), bytes);
            switch (e.spec().type) {
              case rtcg::ScalarType::f32: {
                float v;
                std::memcpy(&v, &raw, 4);
                return py::float_(static_cast<double>(v));
              }
              case rtcg::ScalarType::f64: {
                double v;
                std::memcpy(&v, &raw, 8);
                return py::float_(v);
              }
              case rtcg::ScalarType::i32: {
                std::int32_t v;
                std::memcpy(&v, &raw, 4);
                return py::int_(v);
              }
              default: return py::int_(raw);
            }
          },
          py::arg("n") = py::none(), py::arg("out") = py::none(),
          "Reduces over n elements (default: the arrays' common size). Returns "
          "the value as a Python number (waiting for the device), or, with out (an rtdg array), writes out[0] on the "
          "device without waiting and returns out.")
      .def_property_readonly("source", &rtcg::ReductionEngine::source, "The generated source (both passes).");
}

}  // namespace rtdg::python
