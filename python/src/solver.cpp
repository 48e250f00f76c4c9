// Run configs, laws, plans and the DG solver for Python (docs/python.md, "Solvers"). A Solver
// is set up as `rtdg run` sets one up (runner::load, the plan from run.plan or the tuning
// database, the initial state, the time step, probes and the far-field transform), and Python
// drives the time loop.
#include "common.hpp"

#include <runner/farfield_run.hpp>

#include <config/run_config.hpp>
#include <dg/error.hpp>
#include <dg/plan.hpp>
#include <dg/solver.hpp>
#include <dg/tuning.hpp>
#include <fluxes/law.hpp>
#include <output/probes.hpp>
#include <rtcg/error.hpp>
#include <rtcg/tuning_db.hpp>
#include <runner/problem.hpp>
#include <runner/run.hpp>

#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <cmath>
#include <iostream>
#include <sstream>

namespace rtdg::python {
namespace {

// Log lines of the set-up ("[rtdg] ..."): kept, and echoed to stderr when asked.
class LogBuffer : public std::stringbuf {
public:
  bool echo = false;

protected:
  int sync() override {
    if (echo) {
      std::cerr << str().substr(printed_);
      std::cerr.flush();
    }
    printed_ = str().size();
    return 0;
  }

private:
  std::size_t printed_ = 0;
};

struct ProbeRecord {
  std::vector<double> time;
  std::vector<long long> step;
  std::vector<double> values;  // rows x columns
  std::size_t columns = 0;
};

struct PySolver : runner::Problem {
  LogBuffer log_buffer;
  std::ostream log{&log_buffer};
  std::unique_ptr<dg::Solver> solver;
  std::string plan_source;
  double t = 0;
  long long step = 0;
  double dt = 0;
  std::unique_ptr<runner::FarFieldRun> farfield;
  std::unique_ptr<output::Probes> probes;
  std::vector<int> probe_elements;
  std::vector<double> probe_values;
  std::vector<ProbeRecord> records;

  void flush_log() { log.flush(); }

  void record_probes() {
    if (!probes || !probes->due(step)) return;
    solver->copy_elements(probe_elements, probe_values);
    for (std::size_t p = 0; p < probes->size(); ++p) {
      if (step % probes->spec(p).every != 0) continue;
      const std::vector<double> row = probes->evaluate(p, probe_values);
      ProbeRecord& r = records[p];
      r.time.push_back(t);
      r.step.push_back(step);
      r.columns = row.size();
      r.values.insert(r.values.end(), row.begin(), row.end());
    }
  }

  void build(bool echo) {
    log_buffer.echo = echo;
    runner::load(*this);
    rtcg::Backend& backend = rtcg::backend(cfg.backend);
    solver = std::make_unique<dg::Solver>(backend, disc, setup);
    if (plan) {
      try {
        solver->set_plan(*plan);
      } catch (const dg::Error& e) {
        throw fluxes::Error(cfg.where("run.plan"), "'run.plan': " + std::string(e.what()));
      }
      plan_source = "the config's run.plan";
    } else {
      const dg::PlanChoice choice = dg::choose_plan(*solver, rtcg::tune::tune_mode(), rtcg::tune::global_tuning_db(),
                                                    dg::tune_budget_seconds(), dg::PlanSpace::for_backend(backend.kind()), &log);
      plan_source = choice.source;
    }
    log << "[rtdg] " << law.name << " on " << disc.K << " elements of order " << cfg.order << ", backend " << backend.name()
        << ", plan " << solver->setup().plan.describe() << " (" << plan_source << ")" << std::endl;
    reset_state();
    if (cfg.farfield.enabled) farfield = std::make_unique<runner::FarFieldRun>(*this, *solver, dt, log);
    std::vector<output::ProbeSpec> specs;
    for (const config::Probe& p : cfg.probes) specs.push_back({p.name, p.points, p.fields, p.every});
    if (!specs.empty()) {
      probes = std::make_unique<output::Probes>(disc, mesh, solver->component_names(), specs);
      for (std::size_t p = 0; p < probes->size(); ++p)
        for (const output::ProbePoint& point : probes->points(p)) probe_elements.push_back(point.element);
      std::sort(probe_elements.begin(), probe_elements.end());
      probe_elements.erase(std::unique(probe_elements.begin(), probe_elements.end()), probe_elements.end());
      probe_values.assign(solver->size(), 0.0);
      records.resize(probes->size());
      record_probes();
    }
    flush_log();
  }

  // The state at t = 0 (the law's initial condition, or zero) and the config's time step.
  void reset_state() {
    if (cfg.initial == "law") solver->set_state(solver->initial_values());
    else solver->set_state(std::vector<double>(solver->size(), 0.0));
    t = 0;
    step = 0;
    dt = cfg.dt ? *cfg.dt : solver->stable_dt(cfg.cfl.value_or(0.5));
  }

  // One step of dt, or to `target` when that is nearer (within 1e-12 relative: landing).
  void step_once(double target) {
    if (cfg.dt_update_every > 0 && step % cfg.dt_update_every == 0) dt = solver->stable_dt(cfg.cfl.value_or(0.5));
    const bool land = t + dt >= target - 1e-12 * std::max(1.0, std::abs(target));
    const double h = land ? target - t : dt;
    solver->step(t, h);
    ++step;
    t = land ? target : t + h;
    if (farfield) farfield->sample(t, step);
    record_probes();
  }
};

std::shared_ptr<PySolver> make_solver(const config::RunConfig& cfg, bool echo) {
  auto s = std::make_shared<PySolver>();
  s->cfg = cfg;
  {
    s->build(echo);
  }
  return s;
}

py::array state_array(const PySolver& s, const std::vector<double>& values) {
  const auto C = static_cast<py::ssize_t>(s.solver->components());
  const auto K = static_cast<py::ssize_t>(s.disc.K);
  const auto Np = static_cast<py::ssize_t>(s.disc.element.Np);
  return numpy_copy<double>({C, K, Np}, values.data());
}

void advance(PySolver& s, double until, const py::object& callback, long long every, long long max_steps) {
  if (!(until >= s.t)) throw py::value_error("advance: the target time is before the solver's time t = " + std::to_string(s.t));
  if (every < 1) throw py::value_error("advance: every must be >= 1");
  long long taken = 0;
  while (s.t < until && (max_steps <= 0 || taken < max_steps)) {
    s.step_once(until);
    ++taken;
    if (!callback.is_none() && (s.step % every == 0 || s.t >= until)) {
      const py::object answer = callback(py::cast(&s, py::return_value_policy::reference));
      if (!answer.is_none() && !answer.cast<bool>()) break;  // False: stop early
    }
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
  }
}

}  // namespace

void bind_solver(py::module_& m) {
  py::class_<config::RunConfig>(m, "Config", R"(A run configuration (docs/config.md), read and checked as `rtdg run` reads it.

Config(path, overrides=[]) reads a TOML file; overrides are "--set" texts ("discretization.order=2").
Config.from_text(text, file) reads text (relative paths against file's folder); rtdg.config_from_dict
makes one from a dict. Errors raise rtdg.ConfigError listing every problem as file:line:column.)")
      .def(py::init([](const std::filesystem::path& path, const std::vector<std::string>& overrides) {
             return config::read_config(path, overrides);
           }),
           py::arg("path"), py::arg("overrides") = std::vector<std::string>{})
      .def_static(
          "from_text",
          [](const std::string& text, const std::filesystem::path& file, const std::vector<std::string>& overrides) {
            return config::parse_config(text, file, overrides);
          },
          py::arg("text"), py::arg("file") = "config.toml", py::arg("overrides") = std::vector<std::string>{},
          "A config from TOML text; relative paths are resolved against file's folder.")
      .def_readonly("name", &config::RunConfig::name)
      .def_readonly("backend", &config::RunConfig::backend)
      .def_readonly("precision", &config::RunConfig::precision)
      .def_readonly("order", &config::RunConfig::order)
      .def_readonly("final_time", &config::RunConfig::final_time)
      .def_readonly("cfl", &config::RunConfig::cfl)
      .def_readonly("dt", &config::RunConfig::dt)
      .def_readonly("integrator", &config::RunConfig::integrator)
      .def_readonly("law_file", &config::RunConfig::law_file)
      .def_readonly("mesh_file", &config::RunConfig::mesh_file)
      .def_readonly("plan", &config::RunConfig::plan)
      .def_readonly("effective_toml", &config::RunConfig::effective_toml,
                    "The whole config with every default filled in, as TOML.")
      .def("__repr__", [](const config::RunConfig& c) { return "rtdg.Config(" + c.file.string() + ")"; });

  py::class_<fluxes::Law>(m, "Law", R"(Law(text, file="<string>") or rtdg.read_law(path)

A conservation law in the law language (docs/laws.md), parsed and checked. Errors raise
rtdg.LawError with every problem as file:line:column.)")
      .def(py::init([](const std::string& text, const std::string& file) { return fluxes::parse_law(text, file); }),
           py::arg("text"), py::arg("file") = "<string>")
      .def_readonly("name", &fluxes::Law::name)
      .def_readonly("description", &fluxes::Law::description)
      .def_readonly("dimension", &fluxes::Law::dimension)
      .def_property_readonly("component_names", &fluxes::Law::component_names, "The flat state components: \"E.x\", ...")
      .def_property_readonly("parameters", [](const fluxes::Law& l) {
        py::dict d;
        for (const auto& p : l.parameters) d[py::str(p.name)] = p.value;
        return d;
      }, "Parameter names and default values.")
      .def_property_readonly("boundary_conditions", [](const fluxes::Law& l) {
        std::vector<std::string> names;
        for (const auto& b : l.boundaries) names.push_back(b.name);
        return names;
      })
      .def_property_readonly("has_initial", [](const fluxes::Law& l) { return !l.initial.empty(); })
      .def_property_readonly("has_exact", [](const fluxes::Law& l) { return !l.exact.empty(); });
  m.def("read_law", [](const std::filesystem::path& path) { return fluxes::read_law(path); }, py::arg("path"),
        "read_law(path) -> Law");

  py::class_<dg::Plan>(m, "Plan", R"(A DG kernel plan (opaque). str(plan) is its text, as run.plan takes it and
`rtdg run` logs it; rtdg.plan_from_text(text) reads one.)")
      .def("__str__", [](const dg::Plan& p) { return dg::to_text(p); })
      .def("__repr__", [](const dg::Plan& p) { return "rtdg.plan_from_text(\"" + dg::to_text(p) + "\")"; })
      .def_property_readonly("description", &dg::Plan::describe)
      .def("__eq__", [](const dg::Plan& a, const dg::Plan& b) { return a == b; });
  m.def("plan_from_text", &dg::plan_from_text, py::arg("text"),
        "Raises rtdg.Error naming the word at fault.");

  py::class_<PySolver, std::shared_ptr<PySolver>>(m, "Solver", R"(Solver(config, overrides=[], verbose=False)

The DG solver of a run config (a path, an rtdg.Config, or a dict as rtdg.config_from_dict takes it),
set up as `rtdg run` sets it up: law, mesh, discretization, generated kernels on the config's
backend, the plan (run.plan, else the tuning database as RTDG_TUNE says), the initial state
(initial.condition), the time step (time.dt or time.cfl), probes and the far-field transform.
Python drives the time loop: step(), advance(t, callback). Nothing is written to disk.)")
      .def(py::init([](const py::object& config, const std::vector<std::string>& overrides, bool verbose) {
             config::RunConfig cfg;
             if (py::isinstance<py::dict>(config)) {
               cfg = py::module_::import("rtdg.config").attr("config_from_dict")(config, ".", overrides).cast<config::RunConfig>();
             } else if (py::isinstance<config::RunConfig>(config)) {
               cfg = config.cast<config::RunConfig>();
               if (!overrides.empty()) cfg = config::parse_config(cfg.effective_toml, cfg.file, overrides);
             } else {
               cfg = config::read_config(config.cast<std::filesystem::path>(), overrides);
             }
             return make_solver(cfg, verbose);
           }),
           py::arg("config"), py::arg("overrides") = std::vector<std::string>{}, py::arg("verbose") = false)
      .def_property_readonly("t", [](const PySolver& s) { return s.t; }, "The simulated time.")
      .def_property_readonly("steps", [](const PySolver& s) { return s.step; }, "Steps taken.")
      .def_property(
          "dt", [](const PySolver& s) { return s.dt; },
          [](PySolver& s, double dt) {
            if (!(dt > 0) || !std::isfinite(dt)) throw py::value_error("dt must be a positive number");
            s.dt = dt;
          },
          "The time step (from the config; may be set).")
      .def_property_readonly("final_time", [](const PySolver& s) { return s.cfg.final_time; }, "time.final of the config.")
      .def_property_readonly("config", [](const PySolver& s) { return s.cfg; })
      .def_property_readonly("law", [](const PySolver& s) { return s.law; })
      .def_property_readonly("backend", [](const PySolver& s) -> rtcg::Backend& { return s.solver->backend(); },
                             py::return_value_policy::reference)
      .def_property_readonly("component_names", [](const PySolver& s) { return s.solver->component_names(); })
      .def_property_readonly("shape", [](const PySolver& s) {
        return py::make_tuple(s.solver->components(), s.disc.K, s.disc.element.Np);
      }, "(components, elements, nodes per element): the shape of state().")
      .def_property_readonly("dimension", [](const PySolver& s) { return s.disc.dim; })
      .def_property_readonly("order", [](const PySolver& s) { return s.cfg.order; })
      .def_property_readonly("log", [](const PySolver& s) { return s.log_buffer.str(); }, "The set-up's log lines.")
      .def_property_readonly("plan", [](const PySolver& s) { return s.solver->setup().plan; }, "The kernel plan in use.")
      .def_property_readonly("plan_source", [](const PySolver& s) { return s.plan_source; })
      .def(
          "set_plan", [](PySolver& s, const dg::Plan& plan) { s.solver->set_plan(plan); }, py::arg("plan"),
          "Regenerates the kernels with another plan, keeping the state.")
      .def(
          "tune_plan",
          [](PySolver& s, const std::string& mode, const py::object& budget) {
            const rtcg::tune::TuneMode tune_mode = mode == "off"    ? rtcg::tune::TuneMode::off
                                           : mode == "auto" ? rtcg::tune::TuneMode::automatic
                                           : mode == "force"
                                               ? rtcg::tune::TuneMode::force
                                               : throw py::value_error("tune_plan: mode is \"off\", \"auto\" or \"force\", not \"" + mode + "\"");
            const std::vector<double> state = s.solver->state();  // tuning steps the solver from a state of its own
            const dg::PlanChoice choice =
                dg::choose_plan(*s.solver, tune_mode, rtcg::tune::global_tuning_db(),
                                budget.is_none() ? dg::tune_budget_seconds() : budget.cast<double>(),
                                dg::PlanSpace::for_backend(s.solver->backend().kind()), &s.log);
            s.solver->set_state(state);
            s.plan_source = choice.source;
            s.flush_log();
            py::dict result;
            result["plan"] = choice.plan;
            result["source"] = choice.source;
            result["tuning"] = choice.tuned ? py::cast(*choice.tuned) : py::none();
            return result;
          },
          py::arg("mode") = "force", py::arg("budget") = py::none(),
          R"(Chooses the kernel plan as `rtdg tune dg` does: "force" times the plan space now (within
budget seconds, default RTDG_TUNE_BUDGET) and stores the winner in the tuning database; "auto"
takes the database's entry if there is one; "off" the default plan. The solver is left on the
chosen plan with its state kept. Returns {"plan": Plan, "source": str, "tuning": TuningResult or
None}: the tuning's every plan with its time and status when one ran.)")
      .def(
          "step",
          [](PySolver& s, long long n) {
            for (long long i = 0; i < n; ++i) s.step_once(HUGE_VAL);
          },
          py::arg("n") = 1, "Takes n steps of dt (asynchronously on cuda: nothing waits for the device).")
      .def("advance", &advance, py::arg("t"), py::arg("callback") = py::none(), py::arg("every") = 1,
           py::arg("max_steps") = 0,
           "Steps to time t, the last step shortened to land on it. "
           "callback(solver) runs every `every` steps and after the last; returning False stops early (progress, "
           "stopping criteria). max_steps > 0 caps the steps of this call. Ctrl-C stops it with KeyboardInterrupt.")
      .def(
          "run", [](PySolver& s, const py::object& callback, long long every) { advance(s, s.cfg.final_time, callback, every, 0); },
          py::arg("callback") = py::none(), py::arg("every") = 1,
          "advance() to the config's time.final.")
      .def("reset", &PySolver::reset_state, "Back to t = 0 with the initial state (probe records and far-field sums kept).")
      .def("synchronize", [](PySolver& s) { s.solver->backend().synchronize(); }, "Waits for the queued steps.")
      .def("state", [](const PySolver& s) { return state_array(s, s.solver->state()); },
           "A copy of the state, shape (components, elements, nodes), float64, nodal values.")
      .def(
          "set_state",
          [](PySolver& s, const py::array_t<double, py::array::c_style | py::array::forcecast>& values) {
            if (static_cast<std::size_t>(values.size()) != s.solver->size())
              throw py::value_error("set_state: the solver's state has " + std::to_string(s.solver->size()) +
                                    " values (components x elements x nodes), the array " + std::to_string(values.size()));
            s.solver->set_state(std::span<const double>(values.data(), s.solver->size()));
          },
          py::arg("values"), "Sets the state from an array of shape (components, elements, nodes).")
      .def(
          "state_view",
          [](const py::object& self) {
            const PySolver& s = self.cast<const PySolver&>();
            const dg::Solver::DeviceState d = s.solver->device_state();
            auto a = std::make_shared<DeviceArray>();
            a->backend = &s.solver->backend();
            a->type = d.scalar == fluxes::ScalarType::float32 ? rtcg::ScalarType::f32 : rtcg::ScalarType::f64;
            a->shape = {d.size};
            a->data = const_cast<void*>(d.data);
            a->readonly = true;
            a->lender = self;
            return a;
          },
          R"(The state in device memory without a copy (read-only, 1-D, the kernels' layout and precision:
value (c, k, i) at index device_index(c, k, i)). Valid until the next step or set_plan; export
it with DLPack (numpy.from_dlpack on the host backend, cupy/torch.from_dlpack on cuda).)")
      .def(
          "device_index", [](const PySolver& s, int c, int k, int i) { return s.solver->device_index(c, k, i); },
          py::arg("component"), py::arg("element"), py::arg("node"))
      .def("coordinates", [](const PySolver& s) {
        const auto K = static_cast<py::ssize_t>(s.disc.K), Np = static_cast<py::ssize_t>(s.disc.element.Np);
        std::vector<double> xyz;
        const Eigen::MatrixXd* c[3] = {&s.disc.x, &s.disc.y, &s.disc.z};
        for (int d = 0; d < s.disc.dim; ++d) xyz.insert(xyz.end(), c[d]->data(), c[d]->data() + c[d]->size());
        return numpy_copy<double>({static_cast<py::ssize_t>(s.disc.dim), K, Np}, xyz.data());
      }, "The nodes' coordinates, shape (dimension, elements, nodes).")
      .def("exact", [](const PySolver& s, const py::object& t) {
        return state_array(s, s.solver->exact_values(t.is_none() ? s.t : t.cast<double>()));
      }, py::arg("t") = py::none(), "The law's exact solution at the nodes at time t (default: now).")
      .def("l2_norm", [](const PySolver& s, const py::array_t<double, py::array::c_style | py::array::forcecast>& v) {
        if (static_cast<std::size_t>(v.size()) != s.solver->size()) throw py::value_error("l2_norm: wrong size");
        return s.solver->l2_norm(std::span<const double>(v.data(), s.solver->size()));
      }, py::arg("values"), "l2_norm(values) -> float\n\nThe L2 norm over the mesh (element mass matrices) of (components, elements, nodes) values.")
      .def("max_abs", [](const PySolver& s) { return s.solver->max_abs(); }, "The state's largest |value| (reduced on the device).")
      .def("is_finite", [](const PySolver& s) { return s.solver->state_is_finite(); })
      .def("probes", [](const PySolver& s) {
        py::dict out;
        if (!s.probes) return out;
        for (std::size_t p = 0; p < s.probes->size(); ++p) {
          const ProbeRecord& r = s.records[p];
          py::dict d;
          std::vector<std::string> columns;
          std::stringstream header(s.probes->header(p));
          for (std::string cell; std::getline(header, cell, ',');) columns.push_back(cell);
          columns.erase(columns.begin(), columns.begin() + 2);  // time, step
          d["columns"] = columns;
          const auto rows = static_cast<py::ssize_t>(r.time.size());
          const auto cols = static_cast<py::ssize_t>(columns.size());
          d["time"] = numpy_copy<double>({rows}, r.time.data());
          d["step"] = numpy_copy<long long>({rows}, r.step.data());
          d["values"] = numpy_copy<double>({rows, cols}, r.values.data());
          out[py::str(s.probes->spec(p).name)] = d;
        }
        return out;
      }, R"(Every [[probe]] of the config recorded so far: name -> {"columns": ["Ez@0", ...], "time": (rows,),
"step": (rows,), "values": (rows, columns)} as numpy arrays (the columns of the probe's CSV).)")
      .def_property_readonly("has_far_field", [](const PySolver& s) { return s.farfield != nullptr; })
      .def(
          "_write_far_field",
          [](const PySolver& s, const std::filesystem::path& dir) {
            if (!s.farfield) throw py::value_error("far_field: the config has no [farfield] table");
            s.farfield->write(dir, s.t, s.step);
          },
          py::arg("dir"));

  m.def("tune_budget_seconds", &dg::tune_budget_seconds, "RTDG_TUNE_BUDGET (default 60).");
}

}  // namespace rtdg::python
