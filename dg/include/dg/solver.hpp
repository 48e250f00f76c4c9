// The DG solver: a law on a discretized mesh, its generated kernels compiled for one backend,
// the state in that backend's memory, and explicit Runge-Kutta steps.
//
//   du/dt = L(u, t) = S(u, x, t) - div F(u) + LIFT (Fscale n.(F - F*))      (strong form)
//
// Host-side values (set_state, state, rhs, initial and exact solutions) are always double and
// laid out [component][K][Np], flat (c * K + k) * Np + i, whatever the precision and layout
// the kernels use on the device. They are nodal values also when the plan keeps the state in
// the Bernstein basis (Plan::basis): the solver converts on the device.
#pragma once

#include "dg/discretization.hpp"
#include "dg/incident.hpp"
#include "dg/integrator.hpp"
#include "dg/kernels.hpp"
#include "dg/plan.hpp"
#include "dg/stabilization.hpp"

#include <fluxes/emit_c.hpp>
#include <fluxes/law.hpp>
#include <mesh/local_mesh.hpp>
#include <rtcg/backend.hpp>
#include <rtcg/tuning_db.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace rtdg::dg {

// A mesh boundary (physical name) and the law's condition applied there. `where` says where
// the assignment was made (e.g. "sphere.toml:24:1"), for messages.
struct BoundaryAssignment {
  std::string mesh_name;
  std::string condition;
  std::string where;
};

// Parallel runs (docs/parallel.md): how the traces of the faces shared with other ranks move.
// The solver packs its own trace of every halo face into `send` ([H][components][Nfp] values
// of the run's precision, in mesh::LocalMesh::halo_faces order, each face in its own node
// order) and expects the neighbour's trace of the same faces in `recv`, same layout, once
// finish() returns. An MPI implementation lives with the run driver; dg knows no MPI.
class HaloExchange {
public:
  virtual ~HaloExchange() = default;
  // Starts sending `send` and receiving into `recv` (H * face_bytes each); the buffers stay
  // untouched by the solver until finish(). They are host memory, unless device_memory() and
  // the solver runs on a GPU: then they are the device arrays themselves.
  virtual void start(const void* send, void* recv, std::size_t face_bytes) = 0;
  virtual void finish() = 0;
  // Whether start() takes device pointers (CUDA-aware MPI): the traces go from and to the GPU
  // arrays without host staging.
  virtual bool device_memory() const { return false; }
};

// How a solver's halo traces travel (Solver::halo_transfer).
enum class HaloTransfer : unsigned char {
  none,          // no halo faces (serial)
  arrays,        // host backend: straight from and into the solver's arrays (host memory)
  device,        // CUDA with CUDA-aware MPI: straight from and into the device arrays
  pinned_host,   // CUDA: copied through page-locked host buffers
};

struct HaloSetup {
  // mesh::LocalMesh::halo_faces: element (this rank's number), face, neighbour_face and
  // vertex_match are used. Empty: a serial run (or a rank without neighbours).
  std::vector<mesh::HaloFace> faces;
  HaloExchange* exchange = nullptr;  // not owned; required when faces is not empty
  // Materials per region: per parameter, empty or [H] values, the neighbour element's value
  // across each halo face (SolverSetup::element_parameters of the other rank's element).
  std::vector<std::vector<double>> neighbour_parameters;
  // TF/SF (SolverSetup::total_field): empty or [H] the neighbour element's total-field flag
  // across each halo face; a face between the regions takes the incident correction.
  std::vector<char> neighbour_total_field;
};

struct SolverSetup {
  const fluxes::Law* law = nullptr;
  std::vector<double> parameters;  // every parameter's value (fluxes::resolve_parameters)
  // Materials per region: empty, or one entry per parameter, each empty (the parameter is
  // `parameters[p]` everywhere) or [K] values, one per element. Only the parameters given per
  // element become per-element values in the kernels (KernelSpec::per_element). The incident
  // plane wave travels in the medium of `parameters` (the background).
  std::vector<std::vector<double>> element_parameters;
  // Every boundary of the mesh needs exactly one condition.
  std::vector<BoundaryAssignment> boundaries;
  std::optional<PlaneWave> incident;  // for conditions that read incident fields, and TF/SF
  // Total-field/scattered-field incidence (dg/total_field.hpp): empty, or [K] flags, 1 for the
  // elements that carry the total field. The incident wave is added across the faces between
  // flagged and unflagged elements; needs `incident` and a law with <field>_inc incident
  // fields. Not for parallel runs (halo faces) yet.
  std::vector<char> total_field;
  fluxes::ScalarType scalar = fluxes::ScalarType::float64;
  Integrator integrator = Integrator::lserk4;
  Plan plan;
  // Shock capturing applied to every Runge-Kutta stage's state (dg/stabilization.hpp); none by default.
  Stabilization stabilization;
  // Parallel runs: this rank's halo faces (the discretization is of its mesh::LocalMesh).
  HaloSetup halo;
  // Where the incident plane wave enters (dg::plane_wave_front); default: this
  // discretization's. A parallel run passes the whole mesh's (the minimum over the ranks).
  std::optional<double> incident_front;
};

class Solver {
public:
  // Generates and compiles the kernels and uploads the discretization. Throws dg::Error for a
  // boundary without a condition (listing the conditions the law has), a condition that names
  // no mesh boundary (listing the mesh's boundaries), an unknown condition, or a law whose
  // dimension differs from the mesh's; compile errors come as rtcg errors.
  Solver(rtcg::Backend& backend, const Discretization& discretization, const SolverSetup& setup);
  ~Solver();
  Solver(const Solver&) = delete;
  Solver& operator=(const Solver&) = delete;

  const Discretization& discretization() const;
  const fluxes::Law& law() const;
  rtcg::Backend& backend() const;
  const GeneratedKernels& kernels() const;
  // What the kernels of a time step use with the current plan, one entry per kernel in the
  // order a stage launches them (fused: the stage kernel; unfused: volume, surface, update),
  // each launched over all K elements: registers, threads and shared memory per block, blocks
  // per SM (rtcg::tune::kernel_use; registers and blocks are 0 on the host backend).
  std::vector<rtcg::tune::KernelUse> kernel_uses() const;
  const SolverSetup& setup() const;
  // What the kernels are generated from (law, parameters, element, conditions in use, incident
  // field, precision, plan), and each face's code in them ([K][Nfaces]: 0 interior, b + 1 the
  // condition kernel_spec().conditions[b], -1 a halo face of a parallel run).
  const KernelSpec& kernel_spec() const;
  const std::vector<std::int32_t>& face_codes() const;
  int components() const;
  std::vector<std::string> component_names() const;  // "E.x", ...
  std::size_t size() const;                         // components * K * Np

  // The state, [component][K][Np] (see above).
  void set_state(std::span<const double> values);
  std::vector<double> state() const;

  // The state in device memory, for kernels that read it between steps (the far-field
  // accumulation, dg/farfield.hpp): address, `size` values of type `scalar` (components x K x
  // the plan's node stride: size() unless the plan pads, dg::node_stride), in the kernel
  // layout, where value (component, element, node) sits at device_index(...). Valid until the
  // next step or set_plan (the fused plans swap the state's buffers every stage). Nodal values:
  // for a Bernstein plan a transformed copy, made at each call (one state-sized transform) and
  // valid also only until the next rhs().
  struct DeviceState {
    const void* data = nullptr;
    std::size_t size = 0;
    fluxes::ScalarType scalar = fluxes::ScalarType::float64;
  };
  DeviceState device_state() const;
  // The state as the kernels keep it, for device readers of a few nodes (the far-field
  // transform) that would otherwise pay device_state()'s whole-state transform in a Bernstein
  // plan. `data` and the rest as DeviceState, except that in a Bernstein plan `data` holds the
  // coefficients and `to_nodal` points to V_B on the device (row-major Np x Np, of type
  // `scalar`); an element's column of a component is contiguous in every layout, so
  //   nodal value (c, k, i) = sum_j to_nodal[i Np + j] data[device_index(c, k, 0) + j].
  // Nodal plans: to_nodal is null and the value is data[device_index(c, k, i)]. Valid until the
  // next step or set_plan.
  struct StoredState {
    const void* data = nullptr;
    std::size_t size = 0;
    fluxes::ScalarType scalar = fluxes::ScalarType::float64;
    const void* to_nodal = nullptr;
  };
  StoredState stored_state() const;
  std::size_t device_index(int component, int element, int node) const;

  // Copies the state of the listed elements into `values` ([component][K][Np], size()), leaving
  // the other entries as they are: what probes need without moving the whole state each step.
  void copy_elements(std::span<const int> elements, std::span<double> values) const;

  // The law's initial condition ([initial], else [exact] at t = 0) and exact solution at the
  // nodes, [component][K][Np]. Throw fluxes::Error when the law gives none.
  std::vector<double> initial_values() const;
  std::vector<double> exact_values(double t) const;

  // The largest wave speed over the current state's nodes (the law's max_wave_speed at t = 0),
  // reduced on the device (dg/wave_speed.hpp); NaN when a node's speed is NaN (a state outside
  // the law's valid range, or not finite), infinity when one is. Throws dg::Error naming the
  // expression's file:line:column, the element, the node and the state there when a node's
  // speed is negative: that is the law's mistake, not a speed (dg::wave_speed_culprit names
  // the node of a NaN or infinite one).
  double max_wave_speed() const;

  // The time step for a Courant number cfl: dt = cfl * 2 / ((N + 1)^2 * c_max * max Fscale)
  // (Hesthaven & Warburton's 3D choice; cfl = 1 is their step). Throws dg::Error when the wave
  // speed is zero or not finite (give a fixed dt instead).
  double stable_dt(double cfl) const;

  // One step of the integrator from time t to t + dt.
  void step(double t, double dt);
  // Parallel runs: wall seconds spent in the halo exchange (packing, staging, waiting) since
  // the solver was made; 0 for a serial run.
  double exchange_seconds() const;
  // Parallel runs: how the halo traces travel (none for a serial run).
  HaloTransfer halo_transfer() const;
  // Parallel runs: false makes the steps skip the halo exchange, the halo faces keeping the
  // traces last received, so one rank can time plans without the others (tuning); true again
  // before computing. A serial solver ignores it.
  void set_halo_exchange(bool on);
  // Parallel runs: true (the default) computes the elements without halo faces while the
  // neighbours' traces travel; false waits for the traces before computing any element (the
  // same answer; for measuring what the overlap hides). A serial solver ignores it.
  void set_overlap(bool on);
  // Regenerates the kernels with another plan (same law, mesh, precision and integrator),
  // keeping the state (converted through the host when the layout, node stride or basis
  // changes); the residual of the low-storage scheme is zeroed (call between steps).
  // Throws dg::Error when the plan does not fit this law or order, rtcg errors when the new
  // kernels do not compile. The tuner uses it to try plans on one set of device arrays.
  // StateOnReplan::discard leaves the state undefined (no relayout through the host): for a
  // caller that sets or restores it next.
  enum class StateOnReplan : unsigned char { keep, discard };
  void set_plan(const Plan& plan, StateOnReplan state = StateOnReplan::keep);

  // Device-side copies of the state for tuners, so that trying a plan moves nothing through
  // the host: keep_state() keeps the current state on the device; restore_kept_state() makes
  // it the state again; keep_change() keeps the state's change since keep_state() as the
  // reference change; compare_change() reduces on the device max |(state - kept) - reference
  // change| (worst, NaN when any value is NaN) and max |reference change| (scale). A layout
  // change converts the kept arrays once, through the host. Throw dg::Error when nothing was
  // kept. release_kept_state() frees them (up to four state-sized arrays).
  void keep_state();
  void release_kept_state();
  void restore_kept_state();
  void keep_change();
  struct ChangeDifference {
    double worst = 0;
    double scale = 0;
  };
  ChangeDifference compare_change() const;
  // L(u, t) for the current state, [component][K][Np] (for tests).
  std::vector<double> rhs(double t);

  // False when any value of the state is NaN or infinite (a reduction on the device).
  bool state_is_finite() const;
  // The first node whose value is not finite: component, element, node; nullopt if none.
  struct BadValue {
    int component = 0;
    int element = 0;
    int node = 0;
    double value = 0;
  };
  std::optional<BadValue> find_bad_value() const;
  // The largest |value| of the state, reduced on the device (one number comes back, not the
  // state): NaN when any value is NaN, infinity when one is infinite, 0 for a zero state.
  double max_abs() const;
  // Where that largest |value| sits (the first NaN when there is one; the first of equal ones
  // in element, component, node order); nullopt for an empty state. Downloads the state: for
  // reports, not for every step.
  std::optional<BadValue> find_largest_value() const;

  // sqrt(sum over components of integral u_c^2) for host values [component][K][Np]: the L2
  // norm with the element mass matrices.
  double l2_norm(std::span<const double> values) const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rtdg::dg
