// The DG kernel generator: one source, for both backends, holding the kernels of a time step
// with the order, node counts, field count and operator sizes written in as constants
// (Hesthaven & Warburton's strong form on straight-sided simplices). The plan (dg/plan.hpp)
// picks the kernel family; the families live in dg/src/kernels/.
//
// Unfused (Plan::fusion == none, the default plan):
//   rtdg_volume   rhs = S(u, x, t) - sum_a D_a G_a,  G_a = sum_d (dr_a/dx_d) F_d(u)
//                 (the metric is constant per element, so it moves inside the derivative)
//   rtdg_surface  rhs += LIFT (Fscale n.(F - F*)): gathers the interior trace u(vmapM) and the
//                 exterior trace u(vmapP), or the boundary condition's exterior state on a
//                 boundary face (with the incident field where the condition reads one)
//   rtdg_lserk    res = a res + dt rhs; u += b res          (LSERK4 stage)
//   rtdg_ssp      out = alpha u0 + beta (u + dt rhs)         (SSP-RK3 stage)
// Fused (Plan::fusion == stage; dg/src/kernels/fused/fused.hpp has the details):
//   rtdg_stage_lserk  res = a res + dt L(q); qo = q + b res   (q and qo distinct arrays)
//   rtdg_stage_ssp    qo = alpha u0 + beta (q + dt L(q))
//
// Kernel arguments (T = float or double; K elements; Nfn = Nfaces * Nfp; n = components*K*NPS,
// NPS = node_stride(spec): Np, or Np padded for a plan with align > 0, dg/plan.hpp; the state
// arrays below are [K][Np] per component in that stride, their padding entries zero).
// Every element kernel computes the elements [kb, ke) of the K (a launch covers ke - kb; the
// solver splits a stage into the elements without and with halo faces to overlap the halo
// exchange). halo [H][components][Nfp] holds the neighbour ranks' traces of the H halo faces
// (parallel runs; face code -1, vmapP = h * components * Nfp + the neighbour's face node;
// dg/src/kernels/common.hpp); a serial run passes H = 0.
//   rtdg_volume (const T* q, T* rhs, const T* drdx [K][dim][dim], const T* xyz [dim][K][Np],
//                const T* D [dim][Np][Np], const T* prm [parameters], T t, int K, int kb, int ke)
//   rtdg_surface(const T* q, T* rhs, const T* fgeo [K][Nfaces][dim+1] (normal, Fscale),
//                const int* vmapP [K][Nfn] (flat k*Np+i), const int* bcode [K][Nfaces]
//                (0 interior, -1 halo, b+1 boundary condition b), const T* xyz, const T* LIFT
//                [Np][Nfn], const T* prm, T t, const T* halo, int H, int K, int kb, int ke)
//   rtdg_lserk  (T* q, T* res, const T* rhs, T a, T b, T dt, int n)
//   rtdg_ssp    (T* out, const T* u0, const T* u, const T* rhs, T alpha, T beta, T dt, int n)
//   rtdg_stage_lserk(const T* q, T* qo, T* res, drdx, fgeo, vmapP, bcode, xyz,
//                    const T* DT [dim][Np][Np] (D_a transposed), const T* LT [Nfn][Np] (LIFT
//                    transposed), const T* AV, const T* AL (the volume operator's and LIFT's
//                    tensor-core fragments, read by Products::tensor plans only), prm, T t,
//                    halo, H, T a, T b, T dt, int K, int kb, int ke)
//   rtdg_stage_ssp  (const T* q, const T* u0, T* qo, drdx, fgeo, vmapP, bcode, xyz, DT, LT,
//                    AV, AL, prm, T t, halo, H, T alpha, T beta, T dt, int K, int kb, int ke)
//   rtdg_pack_halo  (const T* q, T* out [H][components][Nfp], const int* faces [H][2] (element,
//                    face), int H, int K): this rank's traces of its halo faces, for the exchange
// The curved element group (KernelSpec::curved, every plan family; docs/curved.md), over the
// curved elements [kb, ke) of the Kc in celem [Kc] (their element numbers), after the plan's
// kernels ran over all K elements, launched in this order; Nq cubature points. They work on nodal
// values: VB [Np][Np] is V_B (nodal = V_B c, row-major) for a Bernstein plan, whose q they
// evaluate at the nodes (unused otherwise), and D, LIFT are the nodal element's:
//   rtdg_surface_curved(q, rhs, const T* cfgeo [Kc][Nfn][dim+1] (normal, sJ at each face node),
//                       vmapP, bcode, xyz, LIFT, prm, T t, halo, H, const T* VB, const int* celem,
//                       int K, int kb, int ke)        rhs = LIFT (sJ n.(F - F*))
//   rtdg_wadg          (q, rhs, const T* cwadg [Kc][Nq] (1/J at each cubature point), const T* Vq
//                       [Nq][Np], const T* Pq [Np][Nq], xyz, prm, T t, celem, K, kb, ke)
//                  rhs = Pq diag(1/J) Vq rhs: the weight-adjusted M_J^-1 M
//   rtdg_volume_curved (q, rhs, const T* cdrdx [Kc][Np][dim][dim] (dr_a/dx_d at each node), xyz,
//                       D, prm, T t, VB, celem, K, kb, ke)
//                  rhs += S(u, x, t) - sum_a sum_d (dr_a/dx_d) (D_a F_d(u))   (pointwise)
//   rtdg_curved_coefficients(T* rhs, const T* VBinv [Np][Np], celem, K, kb, ke)   (Bernstein plans)
//                  rhs = V_B^-1 rhs
// and for a fused plan, whose stage kernel wrote the curved elements' update with the affine
// formula (the solver's fused_lserk has the order of launches and why), value s of the
// (ke - kb) x NCOMP x Np of the curved elements [kb, ke):
//   rtdg_curved_keep (const T* res, T* keep [Kc][NCOMP][Np], celem, K, kb, ke)   keep = res
//   rtdg_curved_lserk(const T* q, T* qo, T* res, const T* rhs, const T* keep, T a, T b, T dt, celem,
//                     K, kb, ke)        res = a keep + dt rhs; qo = q + b res
//   rtdg_curved_ssp  (T* out, const T* u0, const T* u, const T* rhs, T alpha, T beta, T dt, celem,
//                     K, kb, ke)        out = alpha u0 + beta (u + dt rhs)
// On CUDA the unfused volume and surface kernels run one thread per node (per face node in the
// surface kernel's gather) and several elements per block, staging an element's fluxes in
// shared memory; the fused kernels stage a block of elements in dynamic shared memory. On host
// they are OpenMP loops over elements (or blocks of elements) with the same statements.
#pragma once

#include "dg/element.hpp"
#include "dg/plan.hpp"

#include <fluxes/emit_c.hpp>
#include <fluxes/law.hpp>
#include <fluxes/law_lowering.hpp>

#include <optional>
#include <string>
#include <vector>

namespace rtdg::dg {

struct KernelSpec {
  const fluxes::Law* law = nullptr;
  std::vector<double> parameters;  // every law parameter's value (fluxes::resolve_parameters)
  // Empty, or one flag per parameter: true for a parameter given per element (materials per
  // region). Such a parameter is read from prm[NPRM + p * K + k] (prm holds the P uniform
  // values, then a [P][K] block), the neighbour's through kP; the others stay as declared, so
  // runs without regions get the kernels (and kernel_hash) they always had.
  std::vector<bool> per_element;
  const Element* element = nullptr;
  // The boundary conditions in use: face code b + 1 selects conditions[b].
  std::vector<const fluxes::BoundaryCondition*> conditions;
  // Values of the law's incident components (dg/incident.hpp); needed when a condition in use
  // reads an incident field.
  std::optional<fluxes::Lowered> incident;
  // Total-field/scattered-field incidence (dg/total_field.hpp): empty without it; else, per
  // state component, the incident component added to the neighbour's trace on faces with code
  // tfsf_total_code() (this element total, the neighbour scattered) and subtracted on faces
  // with tfsf_scattered_code(), or -1 for a component without one. Needs `incident`.
  std::vector<int> tfsf;
  fluxes::ScalarType scalar = fluxes::ScalarType::float64;
  Plan plan;
  // The mesh has curved elements (Discretization::curved): the program also holds the curved
  // element group's kernels (rtdg_volume_curved, rtdg_surface_curved, rtdg_wadg and the others
  // below), which recompute those elements' right-hand side with per-node geometry and the
  // weight-adjusted mass matrix after the plan's kernels ran over all elements. Every plan
  // family: the plan applies to the affine elements.
  bool curved = false;
};

// Face connectivity (Plan::connectivity = faces): the table of a mesh's face-node orders holds
// at most this many (FACE_ORDERS in the generated code; docs/tuning.md).
inline constexpr int max_face_orders = 64;

// Entries of D_r, D_s (, D_t) and LIFT together: DIM Np^2 + Np Nfaces Nfp. What literal operators
// (Plan::operators = literals) write into a kernel, and constant ones put in constant memory.
inline long long operator_entries(const Element& element) {
  return static_cast<long long>(element.dim) * element.Np * element.Np +
         static_cast<long long>(element.Np) * element.Nfaces * element.Nfp;
}
// Non-zero entries of D_r, D_s (, D_t) and LIFT together: what literal operators write into a
// kernel (zero entries are dropped; about half of D's are exact zeros, element.hpp).
inline long long operator_nonzeros(const Element& element) {
  long long count = 0;
  for (const Eigen::MatrixXd* m : {&element.Dr, &element.Ds, &element.Dt, &element.LIFT})
    for (Eigen::Index k = 0; k < m->size(); ++k) count += m->data()[k] != 0.0 ? 1 : 0;
  return count;
}
// Whether the kernels of `plan` read the face connectivity (fused plans with connectivity =
// faces): their vmapP argument is then the solver's compressed array (one word per face after
// the table of face-node orders) instead of vmapP.
inline bool face_connectivity(const Plan& plan) {
  return plan.fusion == Fusion::stage && plan.connectivity == Connectivity::faces;
}

// Bytes per real of a precision.
inline int real_bytes(fluxes::ScalarType scalar) { return scalar == fluxes::ScalarType::float32 ? 4 : 8; }
// The state's node stride of a spec's kernels (dg::node_stride of its plan, order and precision).
inline int node_stride(const KernelSpec& spec) {
  return node_stride(spec.plan, spec.element->Np, real_bytes(spec.scalar));
}

// The face codes of TF/SF faces: after the boundary conditions' codes 1 .. conditions.size().
inline int tfsf_total_code(const KernelSpec& spec) { return static_cast<int>(spec.conditions.size()) + 1; }
inline int tfsf_scattered_code(const KernelSpec& spec) { return static_cast<int>(spec.conditions.size()) + 2; }
// Parallel runs: a halo face has code -1 (the neighbour's trace from the halo buffer); a halo
// face between the regions has these, the same correction on the halo trace.
constexpr int tfsf_halo_total_code = -2;
constexpr int tfsf_halo_scattered_code = -3;

// Registers dg's device headers (dg/device_include/dg/*.h, embedded in the library) with rtcg,
// so that NVRTC and the host compiler find the headers generated kernels include and cache keys
// hash them (rtcg/headers.hpp). The generator does it before it writes an include; a program
// of the caller's own that includes them calls it first. Idempotent and thread-safe.
void register_device_headers();

struct GeneratedKernels {
  std::string name;    // a label for the cache and logs, e.g. "dg_maxwell3d_tet_N4_f64"
  std::string source;  // the whole program (kernel dialect of <rtcg/kernel.h>)
  int volume_elements_per_block = 1;
  int surface_elements_per_block = 1;
  int volume_threads = 0;   // threads per element in x: Np
  int surface_threads = 0;  // max(Np, Nfaces*Nfp)
  std::size_t volume_shared_bytes = 0;   // static shared memory per block (CUDA)
  std::size_t surface_shared_bytes = 0;
  // The fused family (fusion == stage): its kernels' block size and dynamic shared memory.
  Fusion fusion = Fusion::none;
  int stage_elements_per_block = 0;
  int stage_groups_per_block = 1;       // element groups of stage_elements_per_block each (all teams')
  int stage_threads = 0;                // threads per block (all teams')
  std::size_t stage_shared_bytes = 0;   // dynamic shared memory per block
  // The curved element group's kernels (KernelSpec::curved): one element per block, threads
  // Np (volume, coefficients), max(Np, Nfn) (surface) and max(Np, Nq) (rtdg_wadg); Nq
  // cubature points.
  bool curved = false;
  int cubature_points = 0;
  int wadg_threads = 0;
  int curved_volume_threads = 0;   // Np (also rtdg_curved_coefficients)
  int curved_surface_threads = 0;  // max(Np, Nfn)
};

// The reals of an M x Kd operator's tensor-core fragments (8 x 4 tiles of 32, tile rows in
// pairs; the solver's geometry arrays AVS, AVF and AL hold them in this size).
inline long long mma_fragment_reals(int M, int Kd) {
  return static_cast<long long>((M + 15) / 16 * 2) * ((Kd + 3) / 4) * 32;
}

// Thread blocks of a fused stage launch over `elements` elements: one per groups_per_block
// groups of stage_elements_per_block elements.
inline int stage_blocks(int elements, const GeneratedKernels& kernels) {
  const int groups = (elements + kernels.stage_elements_per_block - 1) / kernels.stage_elements_per_block;
  return (groups + kernels.stage_groups_per_block - 1) / kernels.stage_groups_per_block;
}

// Why `spec.plan` cannot run the law on the element (in `spec`), or "" when it can: the one
// validity check of plans, which the generator, Solver::set_plan, `run.plan` and the tuner
// all go through. It checks, in this order: every plan value against the schema's values
// (dg/plan_schema.hpp); values that belong to the fused stage kernel in an unfused plan; the
// law's dimension against the element's; a Bernstein plan against the element and the law's
// pieces; a plan of the state derivative against the law's flux (linear with constant
// coefficients); and the fused stage kernel's own rules (tile shapes, teams, prefetching,
// operator storage and its size at this order). What depends on the device (shared memory per
// block, cp.async, m16n8k*) the generator checks against the sizes it computes, and the
// tuner's search space leaves out where the device lacks it.
std::string check(const KernelSpec& spec);

// Throws dg::Error when the spec is incomplete (no law or element, a condition reading an
// incident field with no incident given) or when the plan does not fit (shared memory).
GeneratedKernels generate_kernels(const KernelSpec& spec);

// The column stride of a fused plan's by-column tasks (operators = constant, literals or stencil):
// `tasks` cases (operator chunks, LIFT face shares) over `columns` (element, component) columns,
// `threads` threads per block taking task s = t, t + threads, ..; task s is case s / stride of
// column s % stride (none at or past `columns`). A warp whose lanes span several cases runs them
// one after another (the switch diverges) and the block's barrier waits for its slowest warp:
// with stride = columns = 12 (order-5 stencil plans of 2 elements, 4 face shares, 112 threads)
// warp 0 ran faces 0, 1 and 2 in turn while warps 2 and 3 had nothing to do. So the stride is
// the one from `columns` to `columns` rounded up to 32 with the fewest cases run by the busiest
// warp (the partial last warp included), then the fewest in all, then the smallest: 32 there,
// one face per warp.
int column_task_stride(int tasks, int columns, int threads);

// Whether any output of `piece` reads an input of this kind (e.g. a boundary condition that
// reads the incident field).
bool reads_input(const fluxes::Lowered& piece, fluxes::InputKind kind);

// Shared memory the CUDA kernels may use statically per block, and dynamically (the opt-in
// limit of sm_90; a device with less refuses the launch, which the tuner records).
inline constexpr std::size_t max_static_shared_bytes = 48 * 1024;
inline constexpr std::size_t max_dynamic_shared_bytes = 227 * 1024;

// A digest of what the generated code computes for this law and element, independent of the
// plan and of run-time values (mesh size, incident-wave constants): the generator's version
// and the law's lowered pieces. The tuning database keys DG plans on it.
std::string kernel_hash(const KernelSpec& spec);

}  // namespace rtdg::dg
