// The tuner for Python (docs/python.md, "Tuning"): a search space of integer parameters, a
// Python callable that turns a point into a variant (a source and how to run it), and rtcg's
// tuner (rtcg/tuner.hpp), which compiles the variants in parallel, checks and times them.
#include "common.hpp"
#include "kernels.hpp"

#include <rtcg/error.hpp>
#include <rtcg/tuner.hpp>

#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include <tuple>

namespace rtdg::python {
namespace {

// A Python object that C++ threads may copy and drop: the reference is released with the GIL.
using Shared = std::shared_ptr<py::object>;
Shared share(py::object o) {
  return Shared(new py::object(std::move(o)), [](py::object* p) {
    py::gil_scoped_acquire gil;
    delete p;
  });
}

// What a Python callback raised, as an rtcg error (the Python exception object is dropped here,
// with the GIL held).
template <class F>
auto call_python(const char* what, F&& f) {
  py::gil_scoped_acquire gil;
  try {
    return f();
  } catch (py::error_already_set& e) {
    throw rtcg::Error(std::string(what) + " raised " + e.what());
  }
}

struct PyVariant {
  std::string source;
  std::string name = "variant";
  std::vector<std::string> options;
  bool no_extern_c = false;
  std::vector<std::string> name_expressions;
  std::vector<std::tuple<std::string, py::object, py::object, unsigned>> launches;  // kernel, grid, block, shared
  py::object run;
  std::optional<std::size_t> max_local_bytes;
};

rtcg::Dim3 dim3_of(const py::object& value) {
  if (value.is_none()) return {};
  if (py::isinstance<py::int_>(value)) return {value.cast<unsigned>(), 1, 1};
  const auto list = value.cast<std::vector<unsigned>>();
  rtcg::Dim3 d;
  if (!list.empty()) d.x = list[0];
  if (list.size() > 1) d.y = list[1];
  if (list.size() > 2) d.z = list[2];
  return d;
}

py::dict timing_dict(const rtcg::tune::Timing& t) {
  py::dict d;
  d["point"] = t.point;
  d["status"] = t.status;
  d["reason"] = t.reason;
  d["median_ms"] = t.median_ms;
  d["min_ms"] = t.min_ms;
  d["max_ms"] = t.max_ms;
  d["spread"] = t.spread;
  d["times_ms"] = t.times_ms;
  d["stopped_early"] = t.stopped_early;
  return d;
}

rtcg::tune::TuningResult tune(const std::string& family, const std::map<std::string, std::vector<std::int64_t>>& space_dict,
                              const py::function& generate, const py::object& default_point, const py::list& parameter_order,
                              const py::list& constraints, const py::object& check, const py::object& reset,
                              double bytes_per_run, const std::pair<std::string, std::int64_t>& problem,
                              const py::object& which, int warmup, int min_runs, int max_runs, double budget,
                              unsigned threads, bool store) {
  rtcg::Backend& backend = backend_from(which);
  rtcg::tune::Job job;
  job.family = family;
  job.problem = {problem.first, problem.second};
  // Parameters in the order given (parameter_order, else the dict's order).
  std::vector<std::string> names;
  if (parameter_order.size())
    for (const py::handle n : parameter_order) names.push_back(n.cast<std::string>());
  else
    for (const auto& [name, values] : space_dict) names.push_back(name);
  for (const std::string& name : names) {
    const auto found = space_dict.find(name);
    if (found == space_dict.end()) throw py::value_error("parameter_order names '" + name + "', which the space lacks");
    job.space.parameter(name, found->second);
  }
  for (const py::handle c : constraints) {
    const auto pair = c.cast<std::pair<std::string, py::function>>();
    const Shared allows = share(pair.second);
    job.space.constraint(pair.first, [allows](const rtcg::tune::Point& p) {
      return call_python("a constraint", [&] { return (*allows)(p).cast<bool>(); });
    });
  }
  if (default_point.is_none()) {
    const auto points = job.space.points();
    if (points.empty()) throw py::value_error("tune: the space has no point that the constraints allow");
    job.default_point = points.front();
  } else {
    job.default_point = default_point.cast<rtcg::tune::Point>();
  }
  const Shared generator = share(generate);
  job.generate = [generator, &backend](const rtcg::tune::Point& point) {
    return call_python("generate()", [&] {
      const py::object result = (*generator)(point);
      if (result.is_none()) throw rtcg::tune::Pruned("generate() returned None for this point");
      const PyVariant& v = result.cast<const PyVariant&>();
      rtcg::tune::Variant variant;
      variant.program.name = v.name;
      variant.program.source = v.source;
      variant.program.options = v.options;
      variant.program.extern_c = !v.no_extern_c;
      variant.program.name_expressions = v.name_expressions;
      for (const auto& [kernel, grid, block, shared] : v.launches)
        variant.launches.push_back({kernel, rtcg::LaunchShape{dim3_of(grid), dim3_of(block), shared}});
      variant.max_local_bytes = v.max_local_bytes;
      const Shared run = share(v.run);
      variant.run = [run, &backend](const rtcg::Module& module) {
        call_python("a variant's run()", [&] {
          auto handle = std::make_shared<ModuleHandle>();
          handle->module = std::shared_ptr<const rtcg::Module>(std::shared_ptr<const rtcg::Module>(), &module);
          handle->backend = &backend;
          try {
            (*run)(handle);
          } catch (...) {
            handle->valid = false;
            throw;
          }
          handle->valid = false;
        });
      };
      return variant;
    });
  };
  if (!check.is_none()) {
    const Shared checker = share(check);
    job.check = [checker] {
      return call_python("check()", [&]() -> std::string {
        const py::object r = (*checker)();
        if (r.is_none()) return "";
        if (py::isinstance<py::bool_>(r)) return r.cast<bool>() ? "" : "check() returned False";
        return r.cast<std::string>();
      });
    };
  }
  if (!reset.is_none()) {
    const Shared resetter = share(reset);
    job.reset = [resetter] { call_python("reset()", [&] { (*resetter)(); }); };
  }
  job.bytes_per_run = bytes_per_run;
  // The generator's text is the default variant's source: a changed generator is a new key.
  job.template_hash = rtcg::tune::template_hash(job.generate(job.default_point).program.source);
  rtcg::tune::TimingOptions options;
  options.warmup_runs = warmup;
  options.min_runs = min_runs;
  options.max_runs = max_runs;
  options.time_budget_seconds = budget;
  options.compile_threads = threads;
  rtcg::tune::Tuner tuner(backend, options);
  rtcg::tune::TuningResult result;
  {
    py::gil_scoped_release release;
    result = tuner.tune(job);
    if (store && result.winner) rtcg::tune::global_tuning_db().store(result.record());
  }
  return result;
}

}  // namespace

void bind_tuning(py::module_& m) {
  py::class_<PyVariant>(m, "Variant", R"(Variant(source, run, launches=[], name="variant", options=[], no_extern_c=False, name_expressions=[], max_local_bytes=None)

One point of a tuning space made concrete: the source to compile, and run(module), which
launches the variant once on the job's data (module: the compiled rtdg.Module, valid during
the call). launches lists (kernel name, grid, block, shared bytes) for the checks made before
anything runs (block size, shared memory, spills).)")
      .def(py::init([](std::string source, py::object run, std::vector<std::tuple<std::string, py::object, py::object, unsigned>> launches,
                       std::string name, std::vector<std::string> options, bool no_extern_c,
                       std::vector<std::string> name_expressions, std::optional<std::size_t> max_local_bytes) {
             if (!PyCallable_Check(run.ptr())) throw py::type_error("Variant: run must be callable as run(module)");
             return PyVariant{std::move(source), std::move(name), std::move(options), no_extern_c,
                              std::move(name_expressions), std::move(launches), std::move(run), max_local_bytes};
           }),
           py::arg("source"), py::arg("run"), py::arg("launches") = py::list(), py::arg("name") = "variant",
           py::arg("options") = std::vector<std::string>{}, py::arg("no_extern_c") = false,
           py::arg("name_expressions") = std::vector<std::string>{}, py::arg("max_local_bytes") = py::none())
      .def_readonly("source", &PyVariant::source)
      .def_readonly("name", &PyVariant::name);

  py::class_<rtcg::tune::TuningResult>(m, "TuningResult", "What a tuning measured: every variant, the winner.")
      .def_readonly("family", &rtcg::tune::TuningResult::family)
      .def_property_readonly("winner", [](const rtcg::tune::TuningResult& r) -> py::object {
        if (!r.winner) return py::none();
        return py::cast(r.variants[*r.winner].point);
      }, "The fastest point (a dict), or None when every variant was dropped.")
      .def_property_readonly("best", [](const rtcg::tune::TuningResult& r) { return timing_dict(r.best()); },
                             "The winner's timing; raises rtdg.Error listing why each variant was dropped when none won.")
      .def_property_readonly("variants", [](const rtcg::tune::TuningResult& r) {
        py::list out;
        for (const auto& t : r.variants) out.append(timing_dict(t));
        return out;
      }, "Every variant's point, status (\"ok\" or why it was dropped), reason and times, in the space's order.")
      .def_readonly("compile_seconds", &rtcg::tune::TuningResult::compile_seconds)
      .def_readonly("timing_seconds", &rtcg::tune::TuningResult::timing_seconds)
      .def_readonly("budget_exhausted", &rtcg::tune::TuningResult::budget_exhausted)
      .def_property_readonly("table", [](const rtcg::tune::TuningResult& r) { return rtcg::tune::format_table(r); },
                             "The table `rtdg tune` prints.")
      .def("__str__", [](const rtcg::tune::TuningResult& r) { return rtcg::tune::format_table(r); });

  m.def("tune", &tune, py::arg("family"), py::arg("space"), py::arg("generate"), py::arg("default") = py::none(),
        py::arg("parameter_order") = py::list(), py::arg("constraints") = py::list(), py::arg("check") = py::none(),
        py::arg("reset") = py::none(), py::arg("bytes_per_run") = 0.0,
        py::arg("problem") = std::pair<std::string, std::int64_t>{"python", 0}, py::arg("backend") = py::none(),
        py::arg("warmup_runs") = 2, py::arg("min_runs") = 5, py::arg("max_runs") = 25, py::arg("time_budget") = 0.0,
        py::arg("compile_threads") = 0u, py::arg("store") = false,
        R"(Tunes a kernel family with rtcg's tuner. space maps parameter names to candidate integers;
generate(point) returns an rtdg.Variant for a point (a dict), or None to prune it; it is
called from several threads (each holding the GIL in turn). constraints: (description,
predicate(point)) pairs. check() returns None/""/True when the outputs are right after one run
(from reset()), else what differs; a variant failing it is dropped. Variants that fail to
compile, spill, cannot launch or raise are dropped with the reason; the rest are timed
(warm-up, caches flushed, repeated, median). store=True keeps the result in the tuning
database (RTDG_TUNING_DB).)");
}

}  // namespace rtdg::python
