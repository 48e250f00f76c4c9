// The DG solver (dg/solver.hpp): uploads the discretization in the kernels' layout, launches
// the generated kernels, and runs the Runge-Kutta stages.
#include "dg/solver.hpp"

#include "dg/bernstein.hpp"
#include "dg/error.hpp"
#include "dg/total_field.hpp"
#include "dg/wave_speed.hpp"
#include "kernels/geometry_arrays.hpp"
#include "solver/halo.hpp"

#include <fluxes/emit_c.hpp>
#include <fluxes/evaluate.hpp>
#include <fluxes/law_lowering.hpp>
#include <rtcg/array.hpp>
#include <rtcg/array_ops.hpp>
#include <rtcg/elementwise.hpp>
#include <rtcg/host_buffer.hpp>
#include <rtcg/log.hpp>
#include <rtcg/reduction.hpp>
#include <rtcg/tuner.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>

namespace rtdg::dg {
namespace {

constexpr const char* bernstein_with_stabilization =
    "the plan's basis = bernstein does not take shock capturing (its limiter and filter work on nodal values): use "
    "basis = nodal";

// Flat index (a * B + b) * C + c and sizes a * b * c, computed in 64 bits.
constexpr std::size_t flat(long long a, long long B, long long b, long long C, long long c) {
  return static_cast<std::size_t>((a * B + b) * C + c);
}
constexpr std::size_t count(long long a, long long b, long long c = 1) { return static_cast<std::size_t>(a * b * c); }

std::string join(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "" : ", ") + name;
  return text.empty() ? "(none)" : text;
}

// Evaluates a lowered piece at every node, [output][K][Np]; inputs: coordinates, time,
// parameters and (when given) the state [component][K][Np].
std::vector<double> evaluate_at_nodes(const fluxes::Lowered& piece, const Discretization& disc,
                                      const std::vector<double>& parameters, double time,
                                      const std::vector<double>* state, int components) {
  const int K = disc.K, Np = disc.element.Np;
  const std::size_t outputs = piece.outputs.size();
  std::vector<double> values(outputs * count(K, Np));
  const Eigen::MatrixXd* coordinates[3] = {&disc.x, &disc.y, &disc.z};
  fluxes::Evaluator evaluate(piece.dag, piece.outputs);  // K Np points: the DAG's order found once
  for (int k = 0; k < K; ++k)
    for (int i = 0; i < Np; ++i) {
      const std::vector<double>& result = evaluate([&](const fluxes::InputRef& ref) -> double {
        switch (ref.kind) {
          case fluxes::InputKind::coordinate: return (*coordinates[ref.index])(i, k);
          case fluxes::InputKind::time: return time;
          case fluxes::InputKind::parameter: return parameters.at(ref.index);
          case fluxes::InputKind::state:
            if (state && static_cast<int>(ref.index) < components)
              return (*state)[flat(ref.index, K, k, Np, i)];
            break;
          default: break;
        }
        throw Error(std::string("internal: a ") + fluxes::to_string(ref.kind) + " input where none is available");
      });
      for (std::size_t o = 0; o < outputs; ++o) values[flat(static_cast<long long>(o), K, k, Np, i)] = result[o];
    }
  return values;
}

// Where value (c, k, i) of a state array sits: the plan's layout and node stride (Np, or Np
// padded: dg::node_stride), and what it is: the value at node i, or coefficient i of the
// Bernstein basis (Plan::basis). The host layout is {field_major, Np, nodal}.
struct StateLayout {
  Layout layout = Layout::field_major;
  int stride = 0;
  Basis basis = Basis::nodal;
  friend bool operator==(const StateLayout&, const StateLayout&) = default;
  std::size_t index(int components, int K, int c, int k, int i) const {
    return layout == Layout::field_major ? flat(c, K, k, stride, i) : flat(k, components, c, stride, i);
  }
};

// The state layout of `plan` for Np nodes and reals of `real_bytes`.
StateLayout layout_of(const Plan& plan, int Np, int real_bytes) {
  return {plan.layout, node_stride(plan, Np, real_bytes), plan.basis};
}

// The Bernstein basis of an element, for the plans that keep the state in it: the operators'
// arrays for the kernels, and the per-element transforms (row-major Np x Np): nodal values
// u = V_B c, coefficients c = V_B^-1 u.
struct BernsteinBasis {
  Element element;  // the kernels' operators (bernstein_element)
  Eigen::MatrixXd to_nodal, to_coefficients;
  static std::vector<double> row_major(const Eigen::MatrixXd& m) {
    std::vector<double> out(static_cast<std::size_t>(m.size()));
    for (Eigen::Index i = 0; i < m.rows(); ++i)
      for (Eigen::Index j = 0; j < m.cols(); ++j) out[static_cast<std::size_t>(i * m.cols() + j)] = m(i, j);
    return out;
  }
};

// The base class the precision-specific implementation derives from.
struct Engine {
  virtual ~Engine() = default;
  // The state as the kernels keep it: the kernel layout, in the plan's basis.
  virtual void upload_state(const std::vector<double>& values) = 0;
  virtual std::vector<double> download_state() const = 0;
  // The state as nodal values in the kernel layout (through a device transform for a Bernstein
  // plan).
  virtual void upload_nodal(const std::vector<double>& values) = 0;
  virtual std::vector<double> download_nodal() const = 0;
  // Nodal values [offsets[r], offsets[r] + length) of the kernel layout into out[r * length ..].
  virtual void download_nodal_ranges(std::span<const std::size_t> offsets, std::size_t length,
                                     std::span<double> out) const = 0;
  virtual const void* nodal_data() const = 0;  // the nodal state on the device (kernel layout)
  // The state as the kernels keep it (kernel layout, the plan's basis), and for a Bernstein plan
  // V_B on the device (row-major Np x Np; null for a nodal plan): Solver::stored_state.
  virtual const void* state_data() const = 0;
  virtual const void* to_nodal_data() const = 0;
  // The Bernstein transforms and the operator arrays of a plan's basis (set before a plan of
  // that basis runs; the operators after replan switched to it).
  virtual void set_transforms(const BernsteinBasis& basis) = 0;
  virtual void set_operators(const Geometry& operators) = 0;
  virtual void step(double t, double dt) = 0;
  virtual std::vector<rtcg::tune::KernelUse> kernel_uses() const = 0;  // Solver::kernel_uses
  double exchange_seconds = 0;  // host time in exchange_start, exchange_send and exchange_finish
  HaloTransfer transfer = HaloTransfer::none;
  bool exchange_on = true;      // Solver::set_halo_exchange
  bool overlap = true;          // Solver::set_overlap
  // Called with each Runge-Kutta stage's output state (device, kernel layout) when set: the
  // shock capturing of dg/stabilization.hpp, applied stage by stage as Zhang & Shu's limiter needs.
  std::function<void(void*)> after_stage;
  virtual std::vector<double> rhs(double t) = 0;                          // nodal, in the kernel layout
  virtual bool finite() const = 0;
  virtual double max_abs() const = 0;  // the largest nodal |q|; NaN when any value is NaN
  // The reduction of dg/wave_speed.hpp over q's nodes (for this engine's layout and type);
  // NaN when a node's speed is NaN.
  virtual double max_wave_speed(const rtcg::ReductionSpec& spec) const = 0;
  // keep_state false: the state is left undefined (the caller sets it next).
  virtual void replan(const GeneratedKernels& kernels, const Plan& plan,
                      const std::function<std::vector<double>(const std::vector<double>&)>& relayout,
                      bool keep_state) = 0;

  // Device copies of the state for tuners, one per (slot, state layout): slot 0 the kept
  // state, slot 1 a reference change. Values in that layout.
  virtual bool has_saved(int slot, const StateLayout& layout) const = 0;
  virtual void save_state(int slot) = 0;                    // saved = q (current layout); other layouts' dropped
  virtual void save_change(int slot, int base) = 0;         // saved = q - saved[base]
  virtual void restore_state(int slot) = 0;                 // q = saved
  virtual void release_saved() = 0;                         // frees every saved copy
  // A layout of which slot `slot` holds a copy, if any.
  virtual std::optional<StateLayout> saved_layout(int slot) const = 0;
  virtual std::vector<double> download_saved(int slot, const StateLayout& layout) const = 0;
  virtual void upload_saved(int slot, const StateLayout& layout, const std::vector<double>& values) = 0;
  // Adds slot's copy in `to` (the current plan's layout) from a copy in the same layout and
  // stride in the other basis, on the device; false when there is no such copy.
  virtual bool transform_saved(int slot, const StateLayout& to) = 0;
  // {max |(q - saved[base]) - saved[change]|, max |saved[change]|}, NaN when a value is NaN.
  virtual std::pair<double, double> compare_change(int base, int change) const = 0;
};


template <class T>
struct EngineT final : Engine {
  rtcg::Backend& backend;
  GeneratedKernels generated;  // the kernels in use (a copy: set_plan swaps them)
  Integrator integrator;
  Plan plan;
  int K, dim, components, Np;
  std::size_t n;  // values per state array: components x K x the plan's node stride
  std::shared_ptr<const rtcg::Module> module;
  std::shared_ptr<const rtcg::Kernel> volume, surface, lserk, ssp, stage_lserk, stage_ssp, pack_halo;
  // The curved element group's kernels (GeneratedKernels::curved), else null: its right-hand
  // side for every plan, the change to coefficients for a Bernstein plan, and the Runge-Kutta
  // updates of its elements for a fused plan.
  std::shared_ptr<const rtcg::Kernel> volume_curved, surface_curved, wadg, curved_coefficients, curved_keep,
      curved_lserk, curved_ssp;
  // q: the state. rhs_: L(q) (unfused), or scratch. q_alt: the fused kernels' output state
  // (swapped with q after each stage). u1, u2: SSP-RK3 stage states. All in the plan's state
  // layout; with a padded node stride (Plan::align) their padding entries are zero from the
  // start and no kernel writes them (the fused kernels' copies rely on it).
  rtcg::Array<T> q, rhs_, res, q_alt, u1, u2;
  // Plan::graph: the graph a step is launched as, made at the first such step and dropped when
  // the plan changes (its kernels may then be unloaded).
  std::unique_ptr<rtcg::LaunchGraph> launch_graph;
  rtcg::Array<T> drdx, xyz, D, LIFT, DT, LT, AVS, AVF, AL, fgeo, prm;
  rtcg::Array<std::int32_t> vmapP, bcode;
  // The curved element group (Geometry: celem ... cLIFT); Kc = 0 without curved elements. ckeep
  // [Kc][components][Np]: a fused LSERK stage's residual of the curved elements, kept before the
  // fused kernel overwrites it (fused_lserk); one value otherwise.
  int Kc = 0;
  rtcg::Array<T> cdrdx, cfgeo, cwadg, Vq, Pq, cD, cLIFT, ckeep;
  rtcg::Array<std::int32_t> celem;
  // Plans with face connectivity (kernels::face_connectivity): compressed_connectivity's array,
  // which their kernels take in vmapP's place; built when a plan first needs it, else empty.
  rtcg::Array<std::int32_t> face_words;
  // Parallel runs: H halo faces; halo_faces [H][2] (element, face) to pack; halo_out our traces
  // of them, halo_in the neighbours' ([H][components][Nfp] each). The exchange reads and writes
  // these arrays directly on the host backend and with CUDA-aware MPI; otherwise (a GPU, MPI
  // without CUDA support) it goes through the page-locked host_out and host_in. A serial run
  // has H = 0 and one-value placeholders.
  int H = 0;
  // Elements [0, Ki) have no halo face: computed while the traces travel (mesh::LocalMesh puts
  // them first); [Ki, K) after they arrived. Ki = K without halo faces.
  int Ki = 0;
  HaloExchange* exchange = nullptr;
  rtcg::Array<std::int32_t> halo_faces;
  rtcg::Array<T> halo_out, halo_in;
  rtcg::HostBuffer<T> host_out, host_in;
  // Bernstein plans (Plan::basis): V_B and V_B^-1 (row-major Np x Np, set_transforms), and the
  // nodal values of q (or rhs_) that readers get (nodal()). One-value placeholders otherwise.
  rtcg::Array<T> to_nodal_matrix, to_coefficients_matrix;
  mutable rtcg::Array<T> nodal_values;
  mutable std::unique_ptr<rtcg::ElementwiseKernel> transform_kernel;
  // download_nodal_ranges: the ranges packed on the device, so that they come to the host in one
  // copy (a copy per range is a synchronisation each: 6 per probed element of Maxwell). The last
  // call's offsets stay on the device: probes ask for the same elements every time.
  mutable std::unique_ptr<rtcg::ElementwiseKernel> gather_kernel;
  mutable std::vector<std::int64_t> gather_offsets_host;
  mutable rtcg::Array<std::int64_t> gather_offsets;
  mutable rtcg::Array<T> gathered;

  static std::vector<T> convert(const std::vector<double>& values) { return std::vector<T>(values.begin(), values.end()); }

  EngineT(rtcg::Backend& b, const GeneratedKernels& kernels, const Geometry& geometry, Integrator integ,
          const Plan& p, int K_, int dim_, int components_, int Np_, const std::vector<std::int32_t>& pack,
          std::size_t halo_values, HaloExchange* exchange_)
      : backend(b), generated(kernels), integrator(integ), plan(p), K(K_), dim(dim_), components(components_), Np(Np_),
        n(state_size(p)), q(b, n), rhs_(b, n), res(b, n), q_alt(b, 1), u1(b, integ == Integrator::ssprk3 ? n : 1),
        u2(b, integ == Integrator::ssprk3 ? n : 1),
        drdx(rtcg::Array<T>::from_host(b, convert(geometry.drdx))), xyz(rtcg::Array<T>::from_host(b, convert(geometry.xyz))),
        D(rtcg::Array<T>::from_host(b, convert(geometry.D))), LIFT(rtcg::Array<T>::from_host(b, convert(geometry.LIFT))),
        DT(rtcg::Array<T>::from_host(b, convert(geometry.DT))), LT(rtcg::Array<T>::from_host(b, convert(geometry.LT))),
        AVS(rtcg::Array<T>::from_host(b, convert(geometry.AVS))), AVF(rtcg::Array<T>::from_host(b, convert(geometry.AVF))),
        AL(rtcg::Array<T>::from_host(b, convert(geometry.AL))),
        fgeo(rtcg::Array<T>::from_host(b, convert(geometry.fgeo))), prm(rtcg::Array<T>::from_host(b, convert(geometry.prm))),
        vmapP(rtcg::Array<std::int32_t>::from_host(b, geometry.vmapP)),
        bcode(rtcg::Array<std::int32_t>::from_host(b, geometry.bcode)),
        Kc(kernels.curved ? static_cast<int>(geometry.celem.size()) : 0),
        cdrdx(rtcg::Array<T>::from_host(b, convert(geometry.cdrdx))), cfgeo(rtcg::Array<T>::from_host(b, convert(geometry.cfgeo))),
        cwadg(rtcg::Array<T>::from_host(b, convert(geometry.cwadg))), Vq(rtcg::Array<T>::from_host(b, convert(geometry.Vq))),
        Pq(rtcg::Array<T>::from_host(b, convert(geometry.Pq))), cD(rtcg::Array<T>::from_host(b, convert(geometry.cD))),
        cLIFT(rtcg::Array<T>::from_host(b, convert(geometry.cLIFT))), ckeep(b, 1),
        celem(rtcg::Array<std::int32_t>::from_host(b, geometry.celem)),
        face_words(b, 0),
        H(static_cast<int>(pack.size() / 2)), Ki(K_), exchange(exchange_),
        halo_faces(rtcg::Array<std::int32_t>::from_host(b, pack.empty() ? std::vector<std::int32_t>{0} : pack)),
        halo_out(b, 1), halo_in(b, 1), to_nodal_matrix(b, 1), to_coefficients_matrix(b, 1), nodal_values(b, 1),
        gather_offsets(b, 1), gathered(b, 1) {
    for (std::size_t h = 0; h < pack.size(); h += 2) Ki = std::min(Ki, static_cast<int>(pack[h]));
    if (H > 0) {
      halo_out = rtcg::Array<T>(b, halo_values);
      halo_in = rtcg::Array<T>(b, halo_values);
      halo_in.fill(T(0));
      if (b.kind() == rtcg::BackendKind::host) {
        transfer = HaloTransfer::arrays;
      } else if (exchange->device_memory()) {
        transfer = HaloTransfer::device;
      } else {
        transfer = HaloTransfer::pinned_host;
        host_out = rtcg::HostBuffer<T>(b, halo_values);
        host_in = rtcg::HostBuffer<T>(b, halo_values);
      }
    }
    prepare_connectivity(plan);
    load_kernels();
    update_shape_ = make_update_shape();
    for (rtcg::Array<T>* a : {&q, &res, &rhs_, &u1, &u2}) a->fill(T(0));
  }

  // Where the state's values sit for plan `p`, and how many a state array holds.
  StateLayout layout_of(const Plan& p) const { return dg::layout_of(p, Np, static_cast<int>(sizeof(T))); }
  StateLayout state_layout() const { return layout_of(plan); }
  std::size_t state_size(const Plan& p) const { return count(components, K, layout_of(p).stride); }

  static std::shared_ptr<const rtcg::Module> compile(rtcg::Backend& b, const GeneratedKernels& kernels) {
    rtcg::Program program;
    program.name = kernels.name;
    program.source = kernels.source;
    return b.compile(program);
  }

  void load_kernels() { use(compile(backend, generated)); }

  void use(std::shared_ptr<const rtcg::Module> compiled) {
    module = std::move(compiled);
    volume = surface = lserk = ssp = stage_lserk = stage_ssp = nullptr;
    volume_curved = surface_curved = wadg = curved_coefficients = curved_keep = curved_lserk = curved_ssp = nullptr;
    pack_halo = module->kernel("rtdg_pack_halo");
    if (generated.curved) {
      volume_curved = module->kernel("rtdg_volume_curved");
      surface_curved = module->kernel("rtdg_surface_curved");
      wadg = module->kernel("rtdg_wadg");
      if (plan.basis == Basis::bernstein) curved_coefficients = module->kernel("rtdg_curved_coefficients");
      if (generated.fusion == Fusion::stage) {
        curved_keep = module->kernel("rtdg_curved_keep");
        curved_lserk = module->kernel("rtdg_curved_lserk");
        curved_ssp = module->kernel("rtdg_curved_ssp");
        const std::size_t kept = count(Kc, components, Np);
        if (integrator == Integrator::lserk4 && ckeep.size() != kept) ckeep = rtcg::Array<T>(backend, std::max<std::size_t>(1, kept));
      }
    }
    if (generated.fusion == Fusion::stage) {
      stage_lserk = module->kernel("rtdg_stage_lserk");
      stage_ssp = module->kernel("rtdg_stage_ssp");
      if (q_alt.size() != n) {
        q_alt = rtcg::Array<T>(backend, n);
        q_alt.fill(T(0));  // its padding (Plan::align) is read as zeros
      }
    } else {
      volume = module->kernel("rtdg_volume");
      surface = module->kernel("rtdg_surface");
      lserk = module->kernel("rtdg_lserk");
      ssp = module->kernel("rtdg_ssp");
      if (q_alt.size() != 1) q_alt = rtcg::Array<T>(backend, 1);
    }
  }

  // Switches to other kernels (same law, element and precision): the state is kept, moved to
  // the new layout by the caller (`relayout` maps old kernel-layout values to new ones). A new
  // node stride (Plan::align) reallocates the state arrays.
  void replan(const GeneratedKernels& kernels, const Plan& p,
              const std::function<std::vector<double>(const std::vector<double>&)>& relayout, bool keep_state) override {
    auto compiled = compile(backend, kernels);  // may throw: nothing has changed yet
    prepare_connectivity(p);                    // may throw too (a mesh it cannot compress)
    launch_graph.reset();
    const bool same_layout = layout_of(p) == state_layout() || !keep_state;
    std::vector<double> state;
    if (!same_layout) state = download_state();  // through the host only when the layout changes
    generated = kernels;
    plan = p;
    if (state_size(p) != n) {
      n = state_size(p);
      for (rtcg::Array<T>* a : {&q, &res, &rhs_}) *a = rtcg::Array<T>(backend, n);
      if (integrator == Integrator::ssprk3)
        for (rtcg::Array<T>* a : {&u1, &u2}) *a = rtcg::Array<T>(backend, n);
      for (rtcg::Array<T>* a : {&q, &rhs_, &u1, &u2}) a->fill(T(0));
      q_alt = rtcg::Array<T>(backend, 1);  // use() makes it n long again for a fused plan
    }
    use(std::move(compiled));
    update_shape_ = make_update_shape();
    if (!same_layout) upload_state(relayout(state));
    res.fill(T(0));
  }

  // Builds face_words when `p` reads the face connectivity and they are not there yet (from
  // vmapP and bcode on the device: a plan change is rare, the host copies are not kept).
  void prepare_connectivity(const Plan& p) {
    if (!face_connectivity(p) || face_words.size() > 0 || K == 0) return;
    const int Nfaces = static_cast<int>(bcode.size()) / K;
    const int Nfp = static_cast<int>(vmapP.size()) / K / Nfaces;
    face_words = rtcg::Array<std::int32_t>::from_host(
        backend, compressed_connectivity(vmapP.to_host(), bcode.to_host(), K, Nfaces, Nfp, Np, components));
  }
  // What the kernels take as vmapP.
  const std::int32_t* connectivity() const { return face_connectivity(plan) ? face_words.data() : vmapP.data(); }

  // Launch shapes for the elements [kb, ke).
  rtcg::LaunchShape element_shape(int threads, int per_block, int kb, int ke) const {
    rtcg::LaunchShape shape;
    shape.block = {static_cast<unsigned>(threads), static_cast<unsigned>(per_block), 1};
    shape.grid = {static_cast<unsigned>((ke - kb + per_block - 1) / per_block), 1, 1};
    return shape;
  }

  rtcg::LaunchShape stage_shape(int kb, int ke) const {
    rtcg::LaunchShape shape;
    shape.block = {static_cast<unsigned>(generated.stage_threads), 1, 1};
    shape.grid = {static_cast<unsigned>(stage_blocks(ke - kb, generated)), 1, 1};
    shape.shared_bytes = static_cast<unsigned>(generated.stage_shared_bytes);
    return shape;
  }

  // The update kernel's launch shape, fixed for the run: computed once, because device_info()
  // is not free (the host backend reads /proc/cpuinfo) and launches are on the hot path.
  rtcg::LaunchShape update_shape_{};
  const rtcg::LaunchShape& update_shape() const { return update_shape_; }

  rtcg::LaunchShape make_update_shape() const {
    rtcg::LaunchShape shape;
    const std::size_t block = static_cast<std::size_t>(std::max(32, plan.update_block_size));
    const std::size_t sms = static_cast<std::size_t>(std::max(1, backend.device_info().multiprocessors));
    shape.block = {static_cast<unsigned>(block), 1, 1};
    shape.grid = {static_cast<unsigned>(std::clamp<std::size_t>((n + block - 1) / block, 1, sms * 32)), 1, 1};
    return shape;
  }

  // Parallel runs: the neighbour ranks' traces of `state` into halo_in, in three steps around
  // the work that does not need them (the elements [0, Ki), launched between start and send).
  // start: our traces packed on the device, and with pinned staging their copy to the host
  // started beside the kernels (a second stream on a GPU); send: that copy waited for, the
  // traces sent; finish: the neighbours' received and copied to the device ahead of the
  // launches that read them, without holding the host. So the GPU goes from the packing kernel
  // to the interior elements and then to the halo elements without waiting for the host.
  // (CUDA-aware MPI: the packed traces go to MPI from the device, after a synchronize.)
  void exchange_start(const rtcg::Array<T>& state) {
    if (H == 0 || !exchange_on) return;
    const auto start = std::chrono::steady_clock::now();
    rtcg::LaunchShape shape;
    const std::size_t values = halo_out.size();
    const std::size_t sms = static_cast<std::size_t>(std::max(1, backend.device_info().multiprocessors));
    shape.block = {256, 1, 1};
    shape.grid = {static_cast<unsigned>(std::clamp<std::size_t>((values + 255) / 256, 1, sms * 32)), 1, 1};
    (*pack_halo)(shape, state.data(), halo_out.data(), halo_faces.data(), H, K);
    if (transfer == HaloTransfer::pinned_host) {
      backend.start_copy_to_host(host_out.data(), halo_out.data(), values * sizeof(T));
    } else {
      // MPI knows nothing of the backend's stream: the packed traces must be there first.
      backend.synchronize();
      exchange->start(halo_out.data(), halo_in.data(), face_bytes());
    }
    exchange_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  void exchange_send() {
    if (H == 0 || !exchange_on || transfer != HaloTransfer::pinned_host) return;
    const auto start = std::chrono::steady_clock::now();
    backend.wait_for_host_copies();
    exchange->start(host_out.data(), host_in.data(), face_bytes());
    exchange_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  void exchange_finish() {
    if (H == 0 || !exchange_on) return;
    const auto start = std::chrono::steady_clock::now();
    exchange->finish();
    if (transfer == HaloTransfer::pinned_host)
      backend.copy_to_device_before_next_launch(halo_in.data(), host_in.data(), halo_in.size() * sizeof(T));
    exchange_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  std::size_t face_bytes() const { return halo_out.size() / static_cast<std::size_t>(H) * sizeof(T); }
  // The element split of a stage: [0, Ki) then [Ki, K) around the exchange; one range [0, K)
  // without halo faces (or with the exchange off); without overlap, every element after it.
  int split() const {
    if (H == 0 || !exchange_on) return K;
    return overlap ? Ki : 0;
  }

  void evaluate_rhs(const rtcg::Array<T>& state, double t) {
    exchange_start(state);
    const int Kargs = K, Ks = split();
    (*volume)(element_shape(generated.volume_threads, generated.volume_elements_per_block, 0, Kargs), state.data(),
              rhs_.data(), drdx.data(), xyz.data(), D.data(), prm.data(), static_cast<T>(t), Kargs, 0, Kargs);
    auto surface_range = [&](int kb, int ke) {
      if (ke <= kb) return;
      (*surface)(element_shape(generated.surface_threads, generated.surface_elements_per_block, kb, ke), state.data(),
                 rhs_.data(), fgeo.data(), connectivity(), bcode.data(), xyz.data(), LIFT.data(), prm.data(),
                 static_cast<T>(t), halo_in.data(), H, Kargs, kb, ke);
    };
    surface_range(0, Ks);
    exchange_send();
    exchange_finish();
    surface_range(Ks, Kargs);
    curved_rhs(state, t);
  }

  // The curved elements' right-hand side into their columns of rhs_, from `state`, with per-node
  // geometry and the weight-adjusted mass matrix: after the halo traces arrived (their faces read
  // them too). Surface term lifted and projected first (it replaces what was there), then the
  // pointwise volume term and source added; for a Bernstein plan on the nodal values of the
  // state's coefficients, and the result taken to coefficients.
  void curved_rhs(const rtcg::Array<T>& state, double t) {
    if (Kc == 0) return;
    (*surface_curved)(element_shape(generated.curved_surface_threads, 1, 0, Kc), state.data(), rhs_.data(), cfgeo.data(),
                      connectivity(), bcode.data(), xyz.data(), cLIFT.data(), prm.data(), static_cast<T>(t),
                      halo_in.data(), H, to_nodal_matrix.data(), celem.data(), K, 0, Kc);
    (*wadg)(element_shape(generated.wadg_threads, 1, 0, Kc), state.data(), rhs_.data(), cwadg.data(), Vq.data(),
            Pq.data(), xyz.data(), prm.data(), static_cast<T>(t), celem.data(), K, 0, Kc);
    (*volume_curved)(element_shape(generated.curved_volume_threads, 1, 0, Kc), state.data(), rhs_.data(), cdrdx.data(),
                     xyz.data(), cD.data(), prm.data(), static_cast<T>(t), to_nodal_matrix.data(), celem.data(), K, 0, Kc);
    if (curved_coefficients)
      (*curved_coefficients)(element_shape(generated.curved_volume_threads, 1, 0, Kc), rhs_.data(),
                             to_coefficients_matrix.data(), celem.data(), K, 0, Kc);
  }

  // The launch shape of the curved elements' updates (Kc x components x Np values, a grid-stride
  // loop).
  rtcg::LaunchShape curved_update_shape() const {
    rtcg::LaunchShape shape;
    const std::size_t values = count(Kc, components, Np);
    shape.block = {256, 1, 1};
    shape.grid = {static_cast<unsigned>(std::clamp<std::size_t>((values + 255) / 256, 1, 4096)), 1, 1};
    return shape;
  }

  // The volume operator's tensor-core fragments for the plan's derivative (unused by scalar
  // products).
  const rtcg::Array<T>& volume_fragments() const { return plan.derivative == Derivative::state ? AVS : AVF; }

  // Fused LSERK stage: res = a res + dt L(in, t); out = in + b res. `in`, `out`, `r` and rhs_ are
  // state arrays [components][K][NPS] in the plan's layout (rtdg_curved_* index them by QIDX),
  // ckeep [Kc][components][Np]. With curved elements the fused kernel computes every element with
  // the affine formula, and the curved group's kernels then redo its Kc elements:
  //   1. rtdg_curved_keep       ckeep = r at the curved elements: the fused kernel overwrites r
  //                             there with a r + dt L_affine, losing the r the update needs
  //   2. rtdg_stage_lserk       every element (both ranges around the halo exchange): reads
  //                             `in` and its neighbours' traces of `in`, writes out and r
  //   3. rtdg_surface_curved .. rhs_ = L_curved(in) at the curved elements, after the halo traces
  //                             arrived; it reads `in`, which no launch of the stage writes (out
  //                             is another array), so it sees the same old state as step 2
  //   4. rtdg_curved_lserk      r = a ckeep + dt rhs_; out = in + b r at the curved elements
  // `curved_update` false (rhs(): r is rhs_) leaves steps 1 and 4 out: r then holds L(in).
  void fused_lserk(const rtcg::Array<T>& in, rtcg::Array<T>& out, rtcg::Array<T>& r, double t, double a, double b, double dt,
                   bool curved_update = true) {
    if (Kc > 0 && curved_update)
      (*curved_keep)(curved_update_shape(), r.data(), ckeep.data(), celem.data(), K, 0, Kc);
    auto range = [&](int kb, int ke) {
      if (ke <= kb) return;
      (*stage_lserk)(stage_shape(kb, ke), in.data(), out.data(), r.data(), drdx.data(), fgeo.data(), connectivity(),
                     bcode.data(), xyz.data(), DT.data(), LT.data(), volume_fragments().data(), AL.data(), prm.data(),
                     static_cast<T>(t), halo_in.data(), H, static_cast<T>(a), static_cast<T>(b), static_cast<T>(dt), K, kb,
                     ke);
    };
    exchange_start(in);
    range(0, split());
    exchange_send();
    exchange_finish();
    range(split(), K);
    if (Kc == 0) return;
    curved_rhs(in, t);
    if (curved_update)
      (*curved_lserk)(curved_update_shape(), in.data(), out.data(), r.data(), rhs_.data(), ckeep.data(), static_cast<T>(a),
                      static_cast<T>(b), static_cast<T>(dt), celem.data(), K, 0, Kc);
  }
  // Fused SSP stage: out = alpha u0 + beta (in + dt L(in, t)). With curved elements the fused
  // kernel computes every element with the affine formula; then rhs_ = L_curved(in) at the
  // curved elements (`in` and u0 are not written in the stage: out is another array) and
  // rtdg_curved_ssp redoes their update from it.
  void fused_ssp(const rtcg::Array<T>& in, const rtcg::Array<T>& u0, rtcg::Array<T>& out, double t, double alpha,
                 double beta, double dt) {
    auto range = [&](int kb, int ke) {
      if (ke <= kb) return;
      (*stage_ssp)(stage_shape(kb, ke), in.data(), u0.data(), out.data(), drdx.data(), fgeo.data(), connectivity(),
                   bcode.data(), xyz.data(), DT.data(), LT.data(), volume_fragments().data(), AL.data(), prm.data(),
                   static_cast<T>(t), halo_in.data(), H, static_cast<T>(alpha), static_cast<T>(beta), static_cast<T>(dt), K,
                   kb, ke);
    };
    exchange_start(in);
    range(0, split());
    exchange_send();
    exchange_finish();
    range(split(), K);
    if (Kc == 0) return;
    curved_rhs(in, t);
    (*curved_ssp)(curved_update_shape(), out.data(), u0.data(), in.data(), rhs_.data(), static_cast<T>(alpha),
                  static_cast<T>(beta), static_cast<T>(dt), celem.data(), K, 0, Kc);
  }

  void upload_state(const std::vector<double>& values) override { q.copy_from_host(convert(values)); }

  std::vector<double> download_state() const override {
    const std::vector<T> values = q.to_host();
    return std::vector<double>(values.begin(), values.end());
  }

  // out = m in for every (element, component) column of the state layout: Np rows of the
  // column's values, the padding rows (Plan::align) zero. Summed in double.
  void transform(const rtcg::Array<T>& in, rtcg::Array<T>& out, const rtcg::Array<T>& m) const {
    if (!transform_kernel) {
      const std::string type = rtcg::c_type(rtcg::scalar_type_of<T>());
      transform_kernel = std::make_unique<rtcg::ElementwiseKernel>(
          backend, type + "* out, const " + type + "* in, const " + type + "* m, int np, int stride",
          "const long long node = static_cast<long long>(i) % stride; "
          "const long long base = static_cast<long long>(i) - node; double sum = 0; "
          "if (node < np) for (int j = 0; j < np; ++j) sum += static_cast<double>(m[node * np + j]) * "
          "static_cast<double>(in[base + j]); out[i] = static_cast<" + type + ">(sum);",
          "rtdg_basis_transform");
    }
    transform_kernel->launch(n, out.data(), in.data(), m.data(), Np, state_layout().stride);
  }
  // `x` (q or rhs_) as nodal values: itself for a nodal plan, else its transform into
  // nodal_values (valid until the next call).
  const rtcg::Array<T>& nodal(const rtcg::Array<T>& x) const {
    if (plan.basis == Basis::nodal) return x;
    if (nodal_values.size() != n) nodal_values = rtcg::Array<T>(backend, n);
    transform(x, nodal_values, to_nodal_matrix);
    return nodal_values;
  }

  void upload_nodal(const std::vector<double>& values) override {
    if (plan.basis == Basis::nodal) return upload_state(values);
    if (nodal_values.size() != n) nodal_values = rtcg::Array<T>(backend, n);
    nodal_values.copy_from_host(convert(values));
    transform(nodal_values, q, to_coefficients_matrix);
  }
  std::vector<double> download_nodal() const override {
    const std::vector<T> values = nodal(q).to_host();
    return std::vector<double>(values.begin(), values.end());
  }
  // The ranges are a few element columns (probes, every step they are due): packed on the device
  // by one kernel, which in a Bernstein plan also takes them to nodal values (V_B times each
  // column, summed in double and rounded to T, as the whole-state transform does), and brought
  // to the host in one copy. Transforming the whole state to read two elements made a probed run
  // on 205k tets at order 4 1.4x slower per step.
  void download_nodal_ranges(std::span<const std::size_t> offsets, std::size_t length,
                             std::span<double> out) const override {
    const bool bernstein = plan.basis == Basis::bernstein;
    if (bernstein && length != static_cast<std::size_t>(Np))
      throw Error("download_nodal_ranges: a range of " + std::to_string(length) + " values is not one element column");
    if (offsets.empty() || length == 0) return;
    const std::vector<std::int64_t> wanted(offsets.begin(), offsets.end());
    if (wanted != gather_offsets_host) {
      gather_offsets_host = wanted;
      gather_offsets = rtcg::Array<std::int64_t>::from_host(backend, wanted);
    }
    const std::size_t total = offsets.size() * length;
    if (gathered.size() != total) gathered = rtcg::Array<T>(backend, total);
    if (!gather_kernel) {
      const std::string type = rtcg::c_type(rtcg::scalar_type_of<T>());
      gather_kernel = std::make_unique<rtcg::ElementwiseKernel>(
          backend,
          type + "* out, const " + type + "* in, const long long* offsets, long long length, const " + type +
              "* m, int transform",
          "const long long r = static_cast<long long>(i) / length, node = static_cast<long long>(i) - r * length; "
          "const " + type + "* column = in + offsets[r]; "
          "if (!transform) { out[i] = column[node]; } else { double sum = 0; "
          "for (long long j = 0; j < length; ++j) sum += static_cast<double>(m[node * length + j]) * "
          "static_cast<double>(column[j]); out[i] = static_cast<" + type + ">(sum); }",
          "rtdg_gather_ranges");
    }
    gather_kernel->launch(total, gathered.data(), q.data(), gather_offsets.data(), static_cast<long long>(length),
                          to_nodal_matrix.data(), bernstein ? 1 : 0);
    const std::vector<T> values = gathered.to_host();
    std::copy(values.begin(), values.end(), out.begin());
  }
  const void* nodal_data() const override { return nodal(q).data(); }
  const void* state_data() const override { return q.data(); }
  const void* to_nodal_data() const override {
    return plan.basis == Basis::bernstein ? static_cast<const void*>(to_nodal_matrix.data()) : nullptr;
  }

  void set_transforms(const BernsteinBasis& basis) override {
    to_nodal_matrix = rtcg::Array<T>::from_host(backend, convert(BernsteinBasis::row_major(basis.to_nodal)));
    to_coefficients_matrix = rtcg::Array<T>::from_host(backend, convert(BernsteinBasis::row_major(basis.to_coefficients)));
  }
  void set_operators(const Geometry& g) override {
    D = rtcg::Array<T>::from_host(backend, convert(g.D));
    LIFT = rtcg::Array<T>::from_host(backend, convert(g.LIFT));
    DT = rtcg::Array<T>::from_host(backend, convert(g.DT));
    LT = rtcg::Array<T>::from_host(backend, convert(g.LT));
    AVS = rtcg::Array<T>::from_host(backend, convert(g.AVS));
    AVF = rtcg::Array<T>::from_host(backend, convert(g.AVF));
    AL = rtcg::Array<T>::from_host(backend, convert(g.AL));
  }

  void staged(rtcg::Array<T>& state) {
    if (after_stage) after_stage(state.data());
  }

  std::vector<rtcg::tune::KernelUse> kernel_uses() const override {
    const int slots = backend.device_info().max_threads_per_multiprocessor;
    const bool lserk4 = integrator == Integrator::lserk4;
    if (generated.fusion == Fusion::stage)
      return {rtcg::tune::kernel_use(lserk4 ? "rtdg_stage_lserk" : "rtdg_stage_ssp", lserk4 ? *stage_lserk : *stage_ssp,
                                     stage_shape(0, K), slots)};
    return {rtcg::tune::kernel_use("rtdg_volume", *volume,
                                   element_shape(generated.volume_threads, generated.volume_elements_per_block, 0, K), slots),
            rtcg::tune::kernel_use("rtdg_surface", *surface,
                                   element_shape(generated.surface_threads, generated.surface_elements_per_block, 0, K),
                                   slots),
            rtcg::tune::kernel_use(lserk4 ? "rtdg_lserk" : "rtdg_ssp", lserk4 ? *lserk : *ssp, update_shape(),
                                   slots)};
  }

  void step(double t, double dt) override {
    if (!plan.graph) return step_launches(t, dt);
    // Plan::graph: the step's launches recorded and launched as one CUDA graph (the host
    // backend runs them as they come). A parallel step exchanges halo traces between its
    // launches (MPI, through host buffers or CUDA-aware), which a graph cannot hold.
    if (H > 0 && exchange_on)
      throw Error("the plan's graph = on launches a step as one CUDA graph, but this run exchanges halo traces "
                  "with other ranks between a step's launches (a parallel run), which a graph cannot hold: use a "
                  "plan with graph = off");
    if (!launch_graph) launch_graph = backend.make_launch_graph();
    launch_graph->run([&] { step_launches(t, dt); });
  }

  // A step's launches (and the host's swaps of the ping-pong states between them).
  void step_launches(double t, double dt) {
    const bool fused = generated.fusion == Fusion::stage;
    const int count = static_cast<int>(n);
    const T h = static_cast<T>(dt);
    if (integrator == Integrator::lserk4) {
      for (std::size_t s = 0; s < 5; ++s) {
        const double ts = t + Lserk4::c[s] * dt;
        if (fused) {
          fused_lserk(q, q_alt, res, ts, Lserk4::a[s], Lserk4::b[s], dt);
          std::swap(q, q_alt);
          staged(q);
          continue;
        }
        evaluate_rhs(q, ts);
        (*lserk)(update_shape(), q.data(), res.data(), rhs_.data(), static_cast<T>(Lserk4::a[s]), static_cast<T>(Lserk4::b[s]),
                 h, count);
        staged(q);
      }
      return;
    }
    // Shu-Osher SSP-RK3: u1 = u + dt L(u, t); u2 = 3/4 u + 1/4 (u1 + dt L(u1, t + dt));
    // u = 1/3 u + 2/3 (u2 + dt L(u2, t + dt/2)), the last written to u1 and swapped in.
    if (fused) {
      fused_ssp(q, q, u1, t, 0.0, 1.0, dt);
      staged(u1);
      fused_ssp(u1, q, u2, t + dt, 0.75, 0.25, dt);
      staged(u2);
      fused_ssp(u2, q, u1, t + 0.5 * dt, 1.0 / 3.0, 2.0 / 3.0, dt);
      staged(u1);
      std::swap(q, u1);
      return;
    }
    evaluate_rhs(q, t);
    (*ssp)(update_shape(), u1.data(), q.data(), q.data(), rhs_.data(), T(0), T(1), h, count);
    staged(u1);
    evaluate_rhs(u1, t + dt);
    (*ssp)(update_shape(), u2.data(), q.data(), u1.data(), rhs_.data(), T(0.75), T(0.25), h, count);
    staged(u2);
    evaluate_rhs(u2, t + 0.5 * dt);
    (*ssp)(update_shape(), u1.data(), q.data(), u2.data(), rhs_.data(), static_cast<T>(1.0 / 3.0),
           static_cast<T>(2.0 / 3.0), h, count);
    staged(u1);
    std::swap(q, u1);
  }

  std::vector<double> rhs(double t) override {
    // Fused: a stage with a = 0, dt = 1 leaves L(q) in its residual argument (here rhs_).
    if (generated.fusion == Fusion::stage) fused_lserk(q, q_alt, rhs_, t, 0.0, 0.0, 1.0, false);
    else evaluate_rhs(q, t);
    const std::vector<T> values = nodal(rhs_).to_host();
    return std::vector<double>(values.begin(), values.end());
  }

  bool finite() const override { return std::isfinite(static_cast<double>(rtcg::sum(q))); }

  // [slot]: the slot's copies: the one saved, in the layout it was saved in, and at most
  // max_conversions conversions of it (ensure_saved adds the current layout's when a plan with
  // another layout or node stride reads the slot; the least recently used conversion makes room
  // for a new one). A tuning sweep alternates between a few layouts (plans with and without
  // padding, say), so two conversions keep it from converting through the host at every
  // variant, and a sweep over many layouts holds three state-sized copies per slot, not one
  // per layout.
  static constexpr std::size_t max_conversions = 2;
  struct Saved {
    StateLayout layout;
    rtcg::Array<T> copy;
    mutable std::uint64_t used = 0;  // use_clock at the last read
  };
  std::vector<Saved> saved[2];
  mutable std::uint64_t use_clock = 0;
  mutable std::unique_ptr<rtcg::ElementwiseKernel> difference_kernel;
  mutable std::unique_ptr<rtcg::ReductionKernel<T>> change_kernel;

  const Saved* find_saved(int slot, const StateLayout& layout) const {
    for (const Saved& s : saved[slot])
      if (s.layout == layout) {
        s.used = ++use_clock;
        return &s;
      }
    return nullptr;
  }
  const rtcg::Array<T>& saved_here(int slot) const {
    const Saved* s = find_saved(slot, state_layout());
    if (!s) throw Error("internal: no saved state in the current layout");
    return s->copy;
  }
  bool has_saved(int slot, const StateLayout& layout) const override { return find_saved(slot, layout) != nullptr; }
  std::optional<StateLayout> saved_layout(int slot) const override {
    if (saved[slot].empty()) return std::nullopt;
    return saved[slot].front().layout;
  }
  void save_state(int slot) override {
    saved[slot].clear();
    saved[slot].push_back({state_layout(), q.clone(), ++use_clock});
  }
  void save_change(int slot, int base) override {
    const rtcg::Array<T>& from = saved_here(base);
    rtcg::Array<T> change(backend, n);
    if (!difference_kernel) {
      const std::string type = rtcg::c_type(rtcg::scalar_type_of<T>());
      difference_kernel = std::make_unique<rtcg::ElementwiseKernel>(
          backend, type + "* d, const " + type + "* x, const " + type + "* y", "d[i] = x[i] - y[i]", "rtdg_difference");
    }
    (*difference_kernel)(change, q, from);
    saved[slot].clear();
    saved[slot].push_back({state_layout(), std::move(change), ++use_clock});
  }
  void restore_state(int slot) override { q.copy_from(saved_here(slot).view()); }
  void release_saved() override {
    for (auto& slot : saved) slot.clear();
  }
  std::vector<double> download_saved(int slot, const StateLayout& layout) const override {
    const Saved* s = find_saved(slot, layout);
    if (!s) throw Error("internal: no saved state in the requested layout");
    const std::vector<T> values = s->copy.to_host();
    return std::vector<double>(values.begin(), values.end());
  }
  void upload_saved(int slot, const StateLayout& layout, const std::vector<double>& values) override {
    add_saved(slot, layout, rtcg::Array<T>::from_host(backend, convert(values)));
  }
  void add_saved(int slot, const StateLayout& layout, rtcg::Array<T> copy) {
    std::vector<Saved>& copies = saved[slot];
    for (Saved& s : copies)
      if (s.layout == layout) {
        s.copy = std::move(copy);
        s.used = ++use_clock;
        return;
      }
    if (copies.size() > max_conversions) {  // the original stays; the least recently used conversion goes
      const auto oldest = std::min_element(copies.begin() + 1, copies.end(),
                                           [](const Saved& a, const Saved& b) { return a.used < b.used; });
      copies.erase(oldest);
    }
    copies.push_back({layout, std::move(copy), ++use_clock});
  }
  bool transform_saved(int slot, const StateLayout& to) override {
    StateLayout from = to;
    from.basis = to.basis == Basis::nodal ? Basis::bernstein : Basis::nodal;
    const Saved* source = find_saved(slot, from);
    if (!source || to != state_layout()) return false;
    rtcg::Array<T> copy(backend, n);
    transform(source->copy, copy, to.basis == Basis::nodal ? to_nodal_matrix : to_coefficients_matrix);
    add_saved(slot, to, std::move(copy));
    return true;
  }
  std::pair<double, double> compare_change(int base, int change) const override {
    const rtcg::Array<T>& from = saved_here(base);
    const rtcg::Array<T>& reference = saved_here(change);
    if (!change_kernel) {
      const std::string type = rtcg::c_type(rtcg::scalar_type_of<T>());
      // |(q - q0) - dq|, the difference computed in the kernel's precision as the host would.
      change_kernel = std::make_unique<rtcg::ReductionKernel<T>>(
          backend, "0", "(a > b || a != a) ? a : b", "((x[i] - y[i]) - z[i] < 0 ? -((x[i] - y[i]) - z[i]) : (x[i] - y[i]) - z[i])",
          "const " + type + "* x, const " + type + "* y, const " + type + "* z", "rtdg_change_difference");
    }
    const double worst = static_cast<double>((*change_kernel)(q, from, reference));
    return {worst, max_abs_of(reference)};
  }

  // Compiled on first use, and again when the spec changes (another layout after set_plan).
  mutable std::unique_ptr<rtcg::ReductionKernel<T>> speed_kernel;
  double max_wave_speed(const rtcg::ReductionSpec& spec) const override {
    if (!speed_kernel || speed_kernel->engine().spec().preamble != spec.preamble)
      speed_kernel = std::make_unique<rtcg::ReductionKernel<T>>(backend, spec);
    const std::size_t nodes = count(K, Np);
    rtcg::Array<T> result(backend, 1);
    // Pointers, not arrays: q, xyz and prm differ in size from the K * Np nodes reduced over.
    speed_kernel->launch_into(nodes, result.view(), static_cast<const T*>(nodal(q).data()), static_cast<const T*>(xyz.data()),
                              static_cast<const T*>(prm.data()), K);
    T value{};
    result.copy_to_host(std::span<T>(&value, 1));
    return static_cast<double>(value);
  }

  // max |q[i]| in one reduction on the device (only the result comes back). NaN wins, as in
  // rtcg::max: `a != a` holds only for NaN. Compiled on first use (through the cache).
  mutable std::unique_ptr<rtcg::ReductionKernel<T>> max_abs_kernel;
  double max_abs() const override {
    if (n == 0) return 0;
    return max_abs_of(nodal(q));
  }
  double max_abs_of(const rtcg::Array<T>& x) const {
    if (x.size() == 0) return 0;
    if (!max_abs_kernel) {
      const std::string type = rtcg::c_type(rtcg::scalar_type_of<T>());
      max_abs_kernel = std::make_unique<rtcg::ReductionKernel<T>>(
          backend, "0", "(a > b || a != a) ? a : b", "(x[i] < 0 ? -x[i] : x[i])", "const " + type + "* x",
          "rtdg_max_abs");
    }
    return static_cast<double>((*max_abs_kernel)(x));
  }
};

}  // namespace

struct Solver::Impl {
  rtcg::Backend& backend;
  const Discretization& disc;
  SolverSetup setup;
  std::vector<const fluxes::BoundaryCondition*> conditions;
  std::optional<fluxes::Lowered> incident;
  std::vector<std::int32_t> face_codes;  // [K][Nfaces]: 0 interior, b + 1 condition b
  KernelSpec spec;  // what the kernels were generated from (set_plan regenerates with another plan)
  GeneratedKernels kernels;
  std::unique_ptr<Engine> engine;
  std::unique_ptr<Stabilizer> stabilizer;  // when setup.stabilization is active; follows the plan's layout
  int components = 0;

  Impl(rtcg::Backend& b, const Discretization& d, const SolverSetup& s) : backend(b), disc(d), setup(s) {}

  // Where the kernels keep the state (the plan's layout and node stride), and the host layout
  // [component][K][Np].
  StateLayout state_layout() const { return layout_of(setup.plan); }
  StateLayout layout_of(const Plan& plan) const { return dg::layout_of(plan, disc.element.Np, real_bytes(setup.scalar)); }
  StateLayout host_layout() const { return {Layout::field_major, disc.element.Np, Basis::nodal}; }
  // The kernel layout with nodal values (what Engine::upload_nodal and download_nodal move).
  StateLayout nodal_layout() const {
    StateLayout layout = state_layout();
    layout.basis = Basis::nodal;
    return layout;
  }

  // The Bernstein basis of the element, made when a plan first needs it.
  std::optional<BernsteinBasis> bernstein;
  const BernsteinBasis& bernstein_basis() {
    if (!bernstein) {
      BernsteinBasis basis;
      basis.element = bernstein_element(disc.element);
      const BernsteinOperators b = make_bernstein(disc.element);
      basis.to_nodal = b.V;
      basis.to_coefficients = b.invV;
      bernstein = std::move(basis);
    }
    return *bernstein;
  }

  // Index in the kernel layout of host index (c * K + k) * Np + i.
  std::size_t device_index(int c, int k, int i) const { return state_layout().index(components, disc.K, c, k, i); }

  // Host values [component][K][Np] as nodal values in the kernel layout.
  std::vector<double> to_device_layout(std::span<const double> values) const {
    return convert_layout({values.begin(), values.end()}, host_layout(), nodal_layout());
  }

  // Values in state layout `from` as state layout `to` (padding entries zero), through the
  // basis transforms when the bases differ (`bernstein` made by then: a plan of that basis
  // exists).
  std::vector<double> convert_layout(const std::vector<double>& values, const StateLayout& from,
                                     const StateLayout& to) const {
    if (from == to) return values;
    const int K = disc.K, Np = disc.element.Np;
    std::vector<double> out(count(components, K, to.stride), 0.0);
    if (from.basis == to.basis) {
      for (int c = 0; c < components; ++c)
        for (int k = 0; k < K; ++k)
          for (int i = 0; i < Np; ++i) out[to.index(components, K, c, k, i)] = values[from.index(components, K, c, k, i)];
      return out;
    }
    if (!bernstein) throw Error("internal: a change of basis before the Bernstein basis was made");
    const Eigen::MatrixXd& m = to.basis == Basis::nodal ? bernstein->to_nodal : bernstein->to_coefficients;
    // One component at a time as an Np x K matrix, so the transform is one matrix product.
    Eigen::MatrixXd columns(Np, K);
    for (int c = 0; c < components; ++c) {
      for (int k = 0; k < K; ++k)
        for (int i = 0; i < Np; ++i) columns(i, k) = values[from.index(components, K, c, k, i)];
      const Eigen::MatrixXd changed = m * columns;
      for (int k = 0; k < K; ++k)
        for (int i = 0; i < Np; ++i) out[to.index(components, K, c, k, i)] = changed(i, k);
    }
    return out;
  }

  void ensure_saved(int slot, const char* what);

  // Nodal values in the kernel layout as host values [component][K][Np].
  std::vector<double> to_host_layout(const std::vector<double>& values) const {
    return convert_layout(values, nodal_layout(), host_layout());
  }
};

namespace {

// Matches mesh boundaries with the law's conditions; face codes are 1 + index in `used`.
std::vector<std::int32_t> boundary_codes(const Discretization& disc, const fluxes::Law& law,
                                         const std::vector<BoundaryAssignment>& assignments,
                                         std::vector<const fluxes::BoundaryCondition*>& used) {
  std::vector<std::string> mesh_names, law_names;
  for (const BoundaryNodes& b : disc.boundaries)
    if (!b.elements.empty()) mesh_names.push_back(b.name);
  for (const fluxes::BoundaryCondition& bc : law.boundaries) law_names.push_back(bc.name);
  auto prefix = [](const BoundaryAssignment& a) { return a.where.empty() ? std::string() : a.where + ": "; };

  std::map<std::string, const BoundaryAssignment*> by_name;
  std::ostringstream problems;
  for (const BoundaryAssignment& a : assignments) {
    if (!by_name.emplace(a.mesh_name, &a).second)
      problems << prefix(a) << "the boundary '" << a.mesh_name << "' is given a condition twice\n";
    const bool on_mesh = std::any_of(disc.boundaries.begin(), disc.boundaries.end(),
                                     [&](const BoundaryNodes& b) { return b.name == a.mesh_name; });
    if (!on_mesh)
      problems << prefix(a) << "the mesh has no boundary named '" << a.mesh_name << "'; its boundaries are: " << join(mesh_names)
               << "\n";
    if (!law.find_boundary(a.condition))
      problems << prefix(a) << "the law '" << law.name << "' has no boundary condition '" << a.condition
               << "'; its conditions are: " << join(law_names) << "\n";
  }
  for (const std::string& name : mesh_names)
    if (!by_name.count(name))
      problems << "the mesh boundary '" << name << "' has no boundary condition; add it under [boundary] with one of: "
               << join(law_names) << "\n";
  std::string text = problems.str();
  if (!text.empty()) {
    text.pop_back();
    throw Error(text);
  }

  const int Nfaces = disc.element.Nfaces;
  std::vector<std::int32_t> codes(count(disc.K, Nfaces), 0);
  for (const BoundaryNodes& b : disc.boundaries) {
    if (b.elements.empty()) continue;
    const fluxes::BoundaryCondition* bc = law.find_boundary(by_name.at(b.name)->condition);
    auto it = std::find(used.begin(), used.end(), bc);
    if (it == used.end()) it = used.insert(used.end(), bc);
    const int code = static_cast<int>(it - used.begin()) + 1;
    for (std::size_t f = 0; f < b.elements.size(); ++f)
      codes[flat(0, 0, b.elements[f], Nfaces, b.faces[f])] = code;
  }
  return codes;
}

double law_parameter(const fluxes::Law& law, const std::vector<double>& values, const char* name, double fallback) {
  for (std::size_t p = 0; p < law.parameters.size(); ++p)
    if (law.parameters[p].name == name) return values.at(p);
  return fallback;
}

// KernelSpec::per_element from SolverSetup::element_parameters: empty when no parameter varies
// (the kernels of a run without regions), else a flag per parameter. Throws dg::Error for a
// list of the wrong size.
std::vector<bool> per_element_flags(const fluxes::Law& law, const std::vector<std::vector<double>>& values, int K) {
  if (values.empty()) return {};
  if (values.size() != law.parameters.size())
    throw Error("the solver got per-element values for " + std::to_string(values.size()) + " parameters, law '" +
                law.name + "' has " + std::to_string(law.parameters.size()));
  std::vector<bool> flags(values.size(), false);
  bool any = false;
  for (std::size_t p = 0; p < values.size(); ++p) {
    if (values[p].empty()) continue;
    if (values[p].size() != static_cast<std::size_t>(K))
      throw Error("parameter '" + law.parameters[p].name + "' has " + std::to_string(values[p].size()) +
                  " per-element values for " + std::to_string(K) + " elements");
    flags[p] = any = true;
  }
  return any ? flags : std::vector<bool>{};
}

// prm = [P uniform values][P][K per-element values] when a parameter varies (the [P][K] block
// repeats the uniform value for the parameters that do not, which the kernels never read).
void append_element_parameters(std::vector<double>& prm, const std::vector<double>& uniform,
                               const std::vector<std::vector<double>>& values, const std::vector<bool>& flags, int K) {
  if (flags.empty()) return;
  prm.resize(uniform.size());
  for (std::size_t p = 0; p < uniform.size(); ++p)
    for (int k = 0; k < K; ++k) prm.push_back(flags[p] ? values[p][static_cast<std::size_t>(k)] : uniform[p]);
}

}  // namespace

Solver::Solver(rtcg::Backend& backend, const Discretization& disc, const SolverSetup& setup)
    : impl_(std::make_unique<Impl>(backend, disc, setup)) {
  Impl& s = *impl_;
  if (!setup.law) throw Error("the solver needs a law");
  const fluxes::Law& law = *setup.law;
  const Element& element = disc.element;
  if (law.dimension != disc.dim)
    throw Error("the law '" + law.name + "' (" + law.file + ") is " + std::to_string(law.dimension) + "D but the mesh is " +
                std::to_string(disc.dim) + "D");
  if (setup.parameters.size() != law.parameters.size())
    throw Error("the solver got " + std::to_string(setup.parameters.size()) + " parameter values for the " +
                std::to_string(law.parameters.size()) + " parameters of law '" + law.name + "'");
  s.components = static_cast<int>(law.state_components());
  const int K = disc.K, Np = element.Np, dim = disc.dim;
  const double total = static_cast<double>(s.components) * K * Np;
  if (total >= static_cast<double>(std::numeric_limits<std::int32_t>::max()))
    throw Error("the state has " + std::to_string(static_cast<long long>(total)) +
                " values, more than the 2^31 - 1 that 32-bit kernel indices address; use fewer elements or a lower order");

  std::vector<std::int32_t> geometry_codes = boundary_codes(disc, law, setup.boundaries, s.conditions);

  // Total-field/scattered-field faces: codes after the boundary conditions' (their kernels
  // branch on them), on both sides of each face between flagged and unflagged elements.
  std::vector<int> tfsf;
  if (!setup.total_field.empty()) {
    if (setup.total_field.size() != static_cast<std::size_t>(K))
      throw Error("the total-field region flags " + std::to_string(setup.total_field.size()) + " elements, the mesh has " +
                  std::to_string(K));
    tfsf = incident_components(law);
    const int total_code = static_cast<int>(s.conditions.size()) + 1, scattered_code = total_code + 1;
    const int Nfaces = element.Nfaces;
    int faces = 0;
    for (int k = 0; k < K; ++k)
      for (int f = 0; f < Nfaces; ++f) {
        const int nb = disc.vmapP(f * element.Nfp, k) / Np;  // k itself on a boundary face
        const bool here = setup.total_field[static_cast<std::size_t>(k)] != 0;
        if (nb == k || here == (setup.total_field[static_cast<std::size_t>(nb)] != 0)) continue;
        std::int32_t& code = geometry_codes[flat(0, 0, k, Nfaces, f)];
        if (code != 0) continue;  // a boundary face keeps its condition
        code = here ? total_code : scattered_code;
        ++faces;
      }
    // A rank of a parallel run may hold none of the region's faces (run.cpp checks the whole mesh).
    if (faces == 0 && !setup.halo.exchange)
      throw Error("the total-field region has no faces inside the mesh: give it some elements, not all of them");
  }

  // Incident field: the plane wave enters at the mesh's most upstream point at t = 0.
  bool needs_incident = !tfsf.empty();
  for (const fluxes::BoundaryCondition* bc : s.conditions)
    needs_incident = needs_incident ||
                     reads_input(fluxes::lower_boundary_flux(law, *bc, setup.parameters), fluxes::InputKind::incident);
  if (needs_incident) {
    if (!setup.incident)
      throw Error(std::string(tfsf.empty() ? "a boundary condition in use reads" : "total-field/scattered-field incidence needs") +
                  " the incident field, but the run defines none: set [incident] kind = \"plane_wave\" in the config");
    const fluxes::Lowered speed = fluxes::lower_max_wave_speed(law, setup.parameters);
    if (!speed.dag.is_constant(speed.outputs.at(0)))
      throw Error("a plane wave needs a constant wave speed, but the law's max_wave_speed depends on the state or position");
    const double c = speed.dag[speed.outputs[0]].value;
    const double eps = law_parameter(law, setup.parameters, "eps", 1.0);
    const double mu = law_parameter(law, setup.parameters, "mu", 1.0);
    const double front = setup.incident_front ? *setup.incident_front : plane_wave_front(disc, setup.incident->direction);
    s.incident = lower_plane_wave(law, *setup.incident, c, std::sqrt(mu / eps), front);
  }

  KernelSpec spec;
  spec.law = &law;
  spec.parameters = setup.parameters;
  spec.per_element = per_element_flags(law, setup.element_parameters, K);
  spec.element = &element;
  spec.conditions = s.conditions;
  spec.incident = s.incident;
  spec.tfsf = tfsf;
  spec.scalar = setup.scalar;
  spec.plan = setup.plan;
  spec.curved = !disc.curved.empty();
  s.kernels = generate_kernels(spec);
  s.spec = spec;

  if (setup.plan.basis == Basis::bernstein && setup.stabilization.active())
    throw Error(bernstein_with_stabilization);
  Geometry geometry = kernel_geometry(disc, geometry_codes, setup.parameters);
  if (setup.plan.basis == Basis::bernstein) set_operators(geometry, s.bernstein_basis().element);
  append_element_parameters(geometry.prm, setup.parameters, setup.element_parameters, spec.per_element, K);
  const std::vector<std::int32_t> pack =
      apply_halo(geometry, disc, setup.halo, s.components, setup.parameters, spec.per_element);
  const std::size_t halo_values = count(static_cast<long long>(pack.size() / 2), s.components, element.Nfp);
  if (!tfsf.empty() && !setup.halo.faces.empty()) {
    // TF/SF faces across ranks: the halo face's code says which side this element is on.
    const std::vector<char>& across = setup.halo.neighbour_total_field;
    if (across.size() != setup.halo.faces.size())
      throw Error("total-field/scattered-field incidence in a parallel run needs the neighbour's total-field flag "
                  "across each of the " + std::to_string(setup.halo.faces.size()) + " halo faces, not " +
                  std::to_string(across.size()));
    for (std::size_t h = 0; h < across.size(); ++h) {
      const mesh::HaloFace& f = setup.halo.faces[h];
      const bool here = setup.total_field[static_cast<std::size_t>(f.element)] != 0;
      if (here == (across[h] != 0)) continue;
      geometry.bcode[static_cast<std::size_t>(f.element) * static_cast<std::size_t>(element.Nfaces) +
                     static_cast<std::size_t>(f.face)] = here ? tfsf_halo_total_code : tfsf_halo_scattered_code;
    }
  }
  s.face_codes = geometry.bcode;

  HaloExchange* exchange = setup.halo.exchange;
  if (setup.scalar == fluxes::ScalarType::float32)
    s.engine = std::make_unique<EngineT<float>>(backend, s.kernels, geometry, setup.integrator, setup.plan, K, dim,
                                                s.components, Np, pack, halo_values, exchange);
  else
    s.engine = std::make_unique<EngineT<double>>(backend, s.kernels, geometry, setup.integrator, setup.plan, K, dim,
                                                 s.components, Np, pack, halo_values, exchange);
  if (setup.plan.basis == Basis::bernstein) s.engine->set_transforms(s.bernstein_basis());
  if (setup.stabilization.active()) {
    s.stabilizer = std::make_unique<Stabilizer>(backend, disc, law, setup.parameters, setup.stabilization, setup.scalar,
                                                setup.plan.layout, s.state_layout().stride);
    s.engine->after_stage = [&s](void* state) { s.stabilizer->apply(state); };
  }
}

Solver::~Solver() = default;

const Discretization& Solver::discretization() const { return impl_->disc; }
const fluxes::Law& Solver::law() const { return *impl_->setup.law; }
rtcg::Backend& Solver::backend() const { return impl_->backend; }
const GeneratedKernels& Solver::kernels() const { return impl_->kernels; }
std::vector<rtcg::tune::KernelUse> Solver::kernel_uses() const { return impl_->engine->kernel_uses(); }
const SolverSetup& Solver::setup() const { return impl_->setup; }
const KernelSpec& Solver::kernel_spec() const { return impl_->spec; }
const std::vector<std::int32_t>& Solver::face_codes() const { return impl_->face_codes; }
int Solver::components() const { return impl_->components; }
std::vector<std::string> Solver::component_names() const { return impl_->setup.law->component_names(); }
std::size_t Solver::size() const {
  return count(impl_->components, impl_->disc.K, impl_->disc.element.Np);
}

void Solver::set_state(std::span<const double> values) {
  if (values.size() != size())
    throw Error("set_state: got " + std::to_string(values.size()) + " values, the state has " + std::to_string(size()) +
                " (components x K x Np)");
  impl_->engine->upload_nodal(impl_->to_device_layout(values));
}

std::vector<double> Solver::state() const { return impl_->to_host_layout(impl_->engine->download_nodal()); }

Solver::DeviceState Solver::device_state() const {
  const StateLayout layout = impl_->state_layout();
  return DeviceState{impl_->engine->nodal_data(), count(impl_->components, impl_->disc.K, layout.stride),
                     impl_->setup.scalar};
}

Solver::StoredState Solver::stored_state() const {
  const StateLayout layout = impl_->state_layout();
  return StoredState{impl_->engine->state_data(), count(impl_->components, impl_->disc.K, layout.stride),
                     impl_->setup.scalar, impl_->engine->to_nodal_data()};
}

std::size_t Solver::device_index(int component, int element, int node) const {
  return impl_->device_index(component, element, node);
}

void Solver::copy_elements(std::span<const int> elements, std::span<double> values) const {
  if (values.size() != size())
    throw Error("copy_elements: the buffer holds " + std::to_string(values.size()) + " values, the state " +
                std::to_string(size()));
  if (elements.empty()) return;
  const int K = impl_->disc.K, Np = impl_->disc.element.Np;
  // An element's Np values of one component are contiguous in both layouts.
  std::vector<std::size_t> offsets;
  for (const int k : elements) {
    if (k < 0 || k >= K) throw Error("copy_elements: element " + std::to_string(k) + " is out of range");
    for (int c = 0; c < impl_->components; ++c) offsets.push_back(impl_->device_index(c, k, 0));
  }
  std::vector<double> columns(offsets.size() * static_cast<std::size_t>(Np));
  impl_->engine->download_nodal_ranges(offsets, static_cast<std::size_t>(Np), columns);
  std::size_t r = 0;
  for (const int k : elements)
    for (int c = 0; c < impl_->components; ++c, ++r)
      std::copy_n(columns.begin() + static_cast<std::ptrdiff_t>(r * static_cast<std::size_t>(Np)), Np,
                  values.begin() + static_cast<std::ptrdiff_t>(flat(c, K, k, Np, 0)));
}

std::vector<double> Solver::initial_values() const {
  const fluxes::Lowered piece = fluxes::lower_initial(*impl_->setup.law, impl_->setup.parameters);
  return evaluate_at_nodes(piece, impl_->disc, impl_->setup.parameters, 0.0, nullptr, 0);
}

std::vector<double> Solver::exact_values(double t) const {
  const fluxes::Lowered piece = fluxes::lower_exact(*impl_->setup.law, impl_->setup.parameters);
  return evaluate_at_nodes(piece, impl_->disc, impl_->setup.parameters, t, nullptr, 0);
}

namespace {

// "max_wave_speed (file:line:column)": the expression, where the law file has it.
std::string wave_speed_expression(const fluxes::Law& law) {
  const fluxes::Expression& e = law.max_wave_speed;
  return "the law's max_wave_speed" + (e.source ? " (" + fluxes::to_string(e.source->at(0)) + ")" : " (" + law.file + ")");
}

std::string format_value(double value) {
  std::ostringstream out;
  out.precision(17);
  out << value;
  return out.str();
}

}  // namespace

double Solver::max_wave_speed() const {
  const Impl& s = *impl_;
  const fluxes::Law& law = *s.setup.law;
  const fluxes::Lowered piece = fluxes::lower_max_wave_speed(law, s.setup.parameters, s.spec.per_element);
  double speed = 0;
  if (piece.dag.is_constant(piece.outputs.at(0))) {
    speed = piece.dag[piece.outputs[0]].value;
    if (speed < 0)
      throw Error(wave_speed_expression(law) + " is " + format_value(speed) +
                  " at every node (its parameters are constants): a wave speed is >= 0, the largest |eigenvalue| of "
                  "the flux Jacobian; fix the expression or the parameters");
    return speed;
  }
  // Reduced on the device: the adaptive time step calls this every few steps, and moving the
  // state to the host for it would cost more than the steps themselves on a GPU.
  speed = s.engine->max_wave_speed(wave_speed_reduction(law, s.setup.parameters, s.disc.element.Np, s.setup.scalar,
                                                        s.setup.plan.layout, s.spec.per_element, s.state_layout().stride));
  if (speed < 0) {
    const std::string where = wave_speed_culprit(*this);
    throw Error(wave_speed_expression(law) + " is " +
                (where.empty() ? "negative at a node (" + format_value(speed) + " in " + fluxes::c_type(s.setup.scalar) + ")"
                               : where) +
                ": a wave speed is >= 0, the largest |eigenvalue| of the flux Jacobian (abs(u) + c, not u + c); fix "
                "the expression");
  }
  return speed;
}

double Solver::stable_dt(double cfl) const {
  if (!(cfl > 0)) throw Error("the CFL number must be positive, got " + std::to_string(cfl));
  const double c = max_wave_speed();
  if (!(c > 0) || !std::isfinite(c)) {
    const std::string where = c > 0 || std::isnan(c) ? wave_speed_culprit(*this) : std::string();
    throw Error("cannot derive a time step from the wave speed " + std::to_string(c) + " of the state" +
                (where.empty() ? std::string() : " (" + wave_speed_expression(*impl_->setup.law) + " is " + where + ")") +
                "; give a fixed time.dt in the config");
  }
  const double fscale = impl_->disc.Fscale.maxCoeff();
  const double N = impl_->disc.element.N;
  return cfl * 2.0 / ((N + 1) * (N + 1) * c * fscale);
}

void Solver::step(double t, double dt) { impl_->engine->step(t, dt); }

double Solver::exchange_seconds() const { return impl_->engine->exchange_seconds; }

HaloTransfer Solver::halo_transfer() const { return impl_->engine->transfer; }

void Solver::set_halo_exchange(bool on) { impl_->engine->exchange_on = on; }
void Solver::set_overlap(bool on) { impl_->engine->overlap = on; }

void Solver::set_plan(const Plan& plan, StateOnReplan state) {
  Impl& s = *impl_;
  if (plan == s.setup.plan) return;
  if (plan.basis == Basis::bernstein && s.stabilizer) throw Error(bernstein_with_stabilization);
  KernelSpec spec = s.spec;
  spec.plan = plan;
  GeneratedKernels kernels = generate_kernels(spec);
  const bool new_basis = plan.basis != s.setup.plan.basis;
  if (new_basis && plan.basis == Basis::bernstein) s.engine->set_transforms(s.bernstein_basis());
  const StateLayout old_layout = s.state_layout(), new_layout = s.layout_of(plan);
  // The state moves from the old layout to the new one on the host (or not at all when the
  // caller sets it next).
  auto relayout = [&](const std::vector<double>& values) {
    if (state == StateOnReplan::discard) return std::vector<double>(count(s.components, s.disc.K, new_layout.stride), 0.0);
    return s.convert_layout(values, old_layout, new_layout);
  };
  std::unique_ptr<Stabilizer> stabilizer;
  if (s.stabilizer && !(new_layout == old_layout))
    stabilizer = std::make_unique<Stabilizer>(s.backend, s.disc, *s.setup.law, s.setup.parameters, s.setup.stabilization,
                                              s.setup.scalar, plan.layout, new_layout.stride);
  s.engine->replan(kernels, plan, relayout, state == StateOnReplan::keep);
  if (new_basis) {
    Geometry operators;
    set_operators(operators, plan.basis == Basis::bernstein ? s.bernstein_basis().element : s.disc.element);
    s.engine->set_operators(operators);
  }
  if (stabilizer) s.stabilizer = std::move(stabilizer);
  s.kernels = std::move(kernels);
  s.spec = spec;
  s.setup.plan = plan;
}

namespace {
constexpr int kept_slot = 0, change_slot = 1;
}

// A saved slot in the current layout, converted (once) from another copy when there is none:
// on the device from a copy in the same layout and the other basis (a tuning sweep alternates
// between nodal and Bernstein plans), else through the host from the original.
void Solver::Impl::ensure_saved(int slot, const char* what) {
  const StateLayout now = state_layout();
  if (engine->has_saved(slot, now)) return;
  const std::optional<StateLayout> other = engine->saved_layout(slot);
  if (!other) throw Error(std::string("no ") + what + " kept on the device: call keep_state first");
  if (engine->transform_saved(slot, now)) return;
  engine->upload_saved(slot, now, convert_layout(engine->download_saved(slot, *other), *other, now));
}

void Solver::keep_state() { impl_->engine->save_state(kept_slot); }

void Solver::release_kept_state() { impl_->engine->release_saved(); }

void Solver::restore_kept_state() {
  impl_->ensure_saved(kept_slot, "state");
  impl_->engine->restore_state(kept_slot);
}

void Solver::keep_change() {
  impl_->ensure_saved(kept_slot, "state");
  impl_->engine->save_change(change_slot, kept_slot);
}

Solver::ChangeDifference Solver::compare_change() const {
  impl_->ensure_saved(kept_slot, "state");
  impl_->ensure_saved(change_slot, "reference change (keep_change)");
  const auto [worst, scale] = impl_->engine->compare_change(kept_slot, change_slot);
  return {worst, scale};
}

std::vector<double> Solver::rhs(double t) { return impl_->to_host_layout(impl_->engine->rhs(t)); }

bool Solver::state_is_finite() const { return impl_->engine->finite(); }

std::optional<Solver::BadValue> Solver::find_bad_value() const {
  const std::vector<double> q = state();
  const int K = impl_->disc.K, Np = impl_->disc.element.Np;
  for (int k = 0; k < K; ++k)
    for (int c = 0; c < impl_->components; ++c)
      for (int i = 0; i < Np; ++i) {
        const double v = q[flat(c, K, k, Np, i)];
        if (!std::isfinite(v)) return BadValue{c, k, i, v};
      }
  return std::nullopt;
}

double Solver::max_abs() const { return impl_->engine->max_abs(); }

std::optional<Solver::BadValue> Solver::find_largest_value() const {
  const std::vector<double> q = state();
  const int K = impl_->disc.K, Np = impl_->disc.element.Np;
  std::optional<BadValue> largest;
  for (int k = 0; k < K; ++k)
    for (int c = 0; c < impl_->components; ++c)
      for (int i = 0; i < Np; ++i) {
        const double v = q[flat(c, K, k, Np, i)];
        if (std::isnan(v)) return BadValue{c, k, i, v};
        if (!largest || std::abs(v) > std::abs(largest->value)) largest = BadValue{c, k, i, v};
      }
  return largest;
}

double Solver::l2_norm(std::span<const double> values) const {
  const Discretization& disc = impl_->disc;
  const int K = disc.K, Np = disc.element.Np;
  if (values.size() % count(K, Np) != 0)
    throw Error("l2_norm: the values are not a whole number of K x Np fields");
  const std::size_t fields = values.size() / count(K, Np);
  // Curved elements: integral of J u^2 on their cubature (J varies over the element).
  std::vector<int> curved_index(static_cast<std::size_t>(K), -1);
  for (std::size_t c = 0; c < disc.curved.size(); ++c) curved_index[static_cast<std::size_t>(disc.curved[c])] = static_cast<int>(c);
  double total = 0;
  for (std::size_t c = 0; c < fields; ++c)
    for (int k = 0; k < K; ++k) {
      const Eigen::Map<const Eigen::VectorXd> u(values.data() + flat(static_cast<long long>(c), K, k, Np, 0), Np);
      const int curved = curved_index[static_cast<std::size_t>(k)];
      if (curved < 0) {
        total += disc.J(0, k) * u.dot(disc.element.M * u);
      } else {
        const Eigen::VectorXd uq = disc.Vq * u;
        total += (disc.wq.array() * disc.Jq.col(curved).array() * uq.array().square()).sum();
      }
    }
  return std::sqrt(total);
}

}  // namespace rtdg::dg
