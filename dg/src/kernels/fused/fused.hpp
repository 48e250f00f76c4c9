// The fused stage kernels (Plan::fusion == stage): one launch per Runge-Kutta stage does the
// volume term, the surface term and the update for a block of NE elements, so a stage moves
// the minimal four state-sized arrays (read q_in and res, write q_out and res) plus the
// neighbours' face traces and the per-element geometry.
//
// A block's scratch (CUDA: dynamic shared memory; host: a stack array per block), in reals.
// Column col = e * NCOMP + c holds component c of the block's element e; NCOLP columns (NE *
// NCOMP, padded to a multiple of 8 for tensor products), each LD* reals long:
//   sq [NCOLP][LDQ]           the elements' state (NP nodes), loaded once, coalesced
//   sG [NCOLP][LDG]           metric-folded fluxes G_a, row a * NP + j (Derivative::flux only;
//                             Directions::split: one direction's window at a time, see below)
//   sF [NCOLP][LDF]           Fscale * n.(F - F*) at the NFN face nodes
//   sY [NCOLP][LDY]           tensor and by-column products: D_a u at row a * NP + i (state), or
//                             -sum_a D_a G_a + LIFT sF at row i (Derivative::flux)
//   sZ [F][NCOLP][LDZ]        tensor and by-column products, Derivative::state: LIFT sF at row i
//                             (F = Plan::face_threads shares of the layered LIFT, 1 otherwise)
//   sD [DIM][NP][NP]          D_a transposed, sD[(a*NP + j)*NP + i] = D_a(i, j)  (Operators::shared)
//   sL [NFN][NP]              LIFT transposed, sL[m*NP + i] = LIFT(i, m)         (Operators::shared)
// Scalar products by node: LDQ = NP, LDG = DIM * NP, LDF = NFN, no padding. The operators arrive
// transposed (DT, LT) so that the threads of an element, which hold consecutive nodes i, read
// consecutive addresses.
//
// Tensor products (Plan::products == tensor, double): each product is operator x columns, cut
// into RTDG_TILE_ROWS x 8 output tiles; a warp item takes MR tile rows (mt .., Plan::row_tiles)
// and NB column tiles, and walks the operator's 8 x 4 fragments (AV, AL: pre-arranged in global
// memory so a warp reads one as a coalesced 256-byte load), the columns' 4 x 8 fragments read
// from shared memory, each serving the item's MR tile rows. 8-row tiles (Plan::tile_rows = 8)
// use mma.sync.m8n8k4.f64; 16-row tiles (tile_rows = 16, sm_90 and newer) take two 8-row
// fragments at once with m16n8k16 (k in steps of 16) and m16n8k4 (the rest), which run at twice
// the rate of m8n8k4 on Hopper (benchmarks/dmma_shapes.cu)
// and read each column fragment once per 16 operator rows, for more padding rows (Np up to a
// multiple of 16). Plan::k_unroll > 0 unrolls the k loops that many steps instead of fully
// and takes 16-row tiles' k in steps of 4 only: fewer operator values loaded ahead, so fewer
// registers (m16n8k16 wants 8 per lane and step). The padding rows of sq, sG and sF are zero
// (0 x garbage could be NaN); their leading dimensions are 4 mod 8 so that a fragment load is
// conflict-free, LDY and LDZ 2 mod 8 for the tile stores. The host backend computes the same
// padded products with loops.
//
// Column tiles (Plan::tiles == columns, FP64 tensor products): the same products transposed,
// Y^T = B^T A^T, with 16 of the block's columns as the rows of mma.m16n8k4 (sm_90; two m8n8k4
// below) and 8 operator rows as its columns: lane g + 4 t takes columns g and g + 8 at k = t
// from shared memory (the A operand) and the operator's 8 x 4 fragment entry (operator row g, k
// = t) as B, as the fragments are laid out for 8-row tiles. So the operator's rows are padded to
// 8 (Np = 35 at order 4: 40 rows, not 48) and the block's columns to 16 (NCOLP); a warp item is
// MR = Plan::row_tiles operator row tiles of one 16-column tile, each column fragment serving
// MR mma. Tiles are stored as pairs of rows (2-real stores where sY is aligned), LDY and LDZ 8
// mod 16 for conflict-free stores (output_ld_columns). With Plan::products == tf32x3 (float) the
// same tiles take k in steps of 8 with mma.m16n8k8.tf32 (columns g and g + 8 at k = t and t + 4
// as A, operator fragments 2 k8 and 2 k8 + 1 as B), each operand split as for TF32 row tiles
// below; the accumulator layout is that of m16n8k4.
//
// Operators::stencil (Bernstein plans of the state derivative): no sY. The by-column tasks are
// the layered LIFT only (Plan::face_threads tasks per column, each share of the faces into its
// own sZ buffer, NCOLP x LDZ reals apart), and the update phase takes D_a u at its node from the
// lattice stencil (rtdg_stencil, write_stencil_flux).
//
// By-column products (Operators::constant and literals, scalar products, one node per thread):
// a thread takes one column col of the block and a chunk of at most 16 output rows of one
// product (Derivative::state: D_r, D_s, D_t from sq into sY, LIFT from sF into sZ; flux: -[D_r,
// D_s, D_t] from sG and LIFT from sF together into sY), streams the column's input entries and
// keeps the chunk's rows in registers; consecutive threads take consecutive columns of one
// chunk, so a warp shares each operator entry (rtdg_cops in constant memory, or literals in the
// code with zero entries dropped). LDQ, LDF, LDG, LDY and LDZ are odd, so the threads' columns
// lie in different banks. With the flux derivative in one chunk, a thread writes its sY column
// over its own sG column (LDY = LDG), read before. Then one thread per node updates, as after
// tensor products.
//
// TF32 products (Plan::products == tf32x3, float, 16-row or column tiles, sm_80 and newer): the
// same fragments and scratch, k in steps of 8 with mma.sync.m16n8k8.tf32 (A registers: the 8-row
// fragments (2 mt, kt), (2 mt + 1, kt), (2 mt, kt + 1), (2 mt + 1, kt + 1); B: k = t and t + 4).
// Each operand is split into its TF32 rounding and the rounded rest, and each tile takes three
// products (lo hi, hi lo, hi hi), summed in float registers; the host computes in double.
//
// Directions::split (tensor products of the flux derivative): DIM passes, each computing one
// G_a into sG (about NP rows instead of DIM x NP) and adding -D_a G_a to the output tiles, which
// every warp holds in registers until the last pass; LIFT sF joins the first pass. The window
// of direction a starts at the fragment holding k = a NP of [-D_r, -D_s, -D_t], so the operator
// fragments are those of the joint product; window rows of a neighbouring direction are zero.
//
// Threads: TPE = ceil(NP / NPT) per element, NE * TPE per block. Thread l of element e owns
// the output nodes i = l + r * TPE, r < NPT (inline-parallel slicing: every operator entry
// and state value it loads serves NPT outputs). The flux and face-flux phases loop over node
// and face-node slots with the block's threads, as the unfused kernels do.
//
// Prefetch (Plan::prefetch == on): the neighbours' traces of interior faces are gathered into
// sF in the state-loading phase (each slot's thread later reads its own entries back in the
// face-flux phase and writes the flux over them), and with tensor products each thread loads
// its output node's res (u0) into registers there too, so the three global-load latencies of
// a stage overlap instead of following each other. Prefetch::async (one group per block, one
// team) issues the state's and the traces' loads as cp.async copies into shared memory
// (RTDG_ASYNC_COPY; no registers held, no copy waiting for the one before; element-major state
// 16 bytes per copy where Np allows, state_copy_width), after each thread
// has loaded the face codes and vmapP entries of all its face-node slots in one batch, and
// waits for them (RTDG_ASYNC_WAIT) before the first barrier. With GeometryPlace::shared the block's
// face normals and Fscale, dr_a/dx_d and face codes are copied there too (sFgeo [NE][NFACES][DIM
// + 1], sDrdx [NE][DIM * DIM], sCode [NE][NFACES] as reals, from OFF_GEO), and the face fluxes
// and metric terms read them there.
//
// Pipelined groups (Plan::groups_per_block = G > 1, prefetch only): a block computes the G
// consecutive groups of NE elements g_first .. g_end - 1 in turn. Group g's state is in buffer
// (g - g_first) % 2 (sq at 0 or OFF_Q1, [NCOLP][LDQ] each), its neighbours' traces in sT
// ([NE * NCOMP][LDF] at OFF_T, after everything else). Per group: wait for its loads, zero the
// padding, barrier, fluxes and face fluxes (reading sT), barrier, issue the next group's loads
// (RTDG_ASYNC_COPY: cp.async on CUDA, so the thread goes on; a plain copy on the host), then
// the products and the update, barrier. So a block's loads arrive during its own products,
// not only during other blocks'.
//
// Teams (Plan::teams = T > 1): a block of T x NTHREADS threads computes T element groups side
// by side; team `team` has threads team * NTHREADS .., its own scratch (the layout above, SCRATCH
// reals from OFF_TEAMS + team * SCRATCH) and its own barrier (RTDG_SYNC: barrier.sync team + 1
// over NTHREADS threads, a multiple of 32; not the aligned bar.sync, since a warp may reach it
// diverged), and computes the block's groups team, team + T, .. (GPB of them). With
// tensor products and Operators::shared the block first copies AV and AL (AV_SIZE, AL_SIZE
// reals, mma_fragment_reals) to the start of its shared memory (OFF_TEAMS = their sum), waits
// at __syncthreads, and every team's products read them there (rtdg_lds instead of __ldg). The
// host runs a block's teams in turn with one scratch. Plans with one team and global operators
// generate the same code as before teams existed.
//
// Kernels (T = float or double):
//   rtdg_stage_lserk(const T* q, T* qo, T* res, drdx, fgeo, vmapP, bcode, xyz, DT, LT, AV, AL,
//                    prm, T t, halo, H, T a, T b, T dt, int K, int kb, int ke)
//       res = a res + dt L(q);  qo = q + b res           (LSERK4 stage; a = 0, b = 0, dt = 1
//                                                         leaves L(q) in res)
//   rtdg_stage_ssp  (const T* q, const T* u0, T* qo, drdx, fgeo, vmapP, bcode, xyz, DT, LT, AV,
//                    AL, prm, T t, halo, H, T alpha, T beta, T dt, int K, int kb, int ke)
//       qo = alpha u0 + beta (q + dt L(q))                (SSP-RK3 stage)
// The geometry arguments are those of the unfused kernels (dg/kernels.hpp); AV and AL are the
// tensor-core fragments of the volume operator and of LIFT (solver/geometry_arrays.hpp: AVS
// for Derivative::state, AVF for flux), unused by scalar products.
//
// The generator of this family is split by phase (dg/src/kernels/fused/): layout.cpp (the
// scratch layout), load.cpp (state, traces, geometry), face_flux.cpp (volume and face fluxes),
// volume.cpp and tensor_helpers.cpp (tensor-core products), by_column.cpp, lift.cpp and
// stencil.cpp (products by column, the layered LIFT, the lattice stencil), update.cpp (the
// source and the Runge-Kutta update), frame.cpp and stage.cpp (the kernel frame and the order
// of the phases), refusal.cpp (the plans that do not fit); fused.cpp composes them.
#pragma once

#include "kernels/families.hpp"

#include "dg/bernstein.hpp"
#include "dg/error.hpp"

#include <fluxes/dag.hpp>

#include <algorithm>
#include <array>
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace rtdg::dg::kernels::fused {

using fluxes::InputKind;

inline std::string str(int v) { return std::to_string(v); }
inline std::string str(long long v) { return std::to_string(v); }

// The padded sizes of a fused kernel's scratch (see the file comment), in reals.
struct Scratch {
  int ne = 1, npt = 1, tpe = 1, threads = 1;
  int ncolp = 1;          // columns: NE * NCOMP, padded to 8 for tensor products
  int ldq = 1, ldf = 1, ldg = 1, ldy = 0, ldz = 0;
  int nb = 1, ng = 1;     // tensor: column tiles per warp item, items per tile row
  int mr = 1;             // tensor: operator row tiles per warp item (Plan::row_tiles)
  // Tensor products of the flux derivative: each warp keeps its ipw items' tiles in registers
  // until every warp has read sG and sF, so sY can take sG's place (alias_y): less shared
  // memory per block, more blocks per SM.
  int ipw8 = 1, ipw16 = 1;  // with 8-row (m8n8k4) and 16-row (m16n8k4, sm_90) tiles, MR rows each
  bool alias_y = false;
  // Tensor products of the flux derivative: whether the warp items' tiles fit the 48 accumulator
  // registers per thread that holding them allows (split directions need it).
  bool held = true;
  // Column tiles: the mma's 16 rows are 16 of the block's columns and its 8 columns are 8
  // operator rows (m16n8k4; two m8n8k4 below sm_90), so the operator's rows are padded to 8, not
  // 16; the block's columns are padded to 16. A warp item is MR operator row tiles of one
  // 16-column tile; each column fragment read from shared memory serves its MR tiles.
  bool columns = false;
  // By-column products (Operators::constant, literals): task (part, chunk, column) of the
  // by_column_parts; chunk rows of at most 16 (max_chunk_rows), `chunks` chunks per part.
  bool by_column = false;
  int chunks = 1;
  int col_step = 8;  // the block's columns per warp item (nb x 8, or nb x 16 with columns)
  bool store_pairs = false;  // columns: the tiles' two adjacent rows stored as one 2-real store
  // Directions::split: direction a multiplies fragments kt0[a] .. kt1[a] - 1 of [-D_r, -D_s,
  // -D_t] (k = a Np + j), so sG holds the window k = 4 kt0[a] .. 4 kt1[a] - 1 of one direction
  // (rows of the neighbouring directions that share its first or last fragment are zero), and
  // the tiles stay in registers over the passes; sY lies over sF and sG.
  bool split = false;
  int kt0[3] = {0, 0, 0}, kt1[3] = {0, 0, 0};
  long long off_f = 0, off_g = 0, off_y = 0, off_z = 0, off_d = 0, off_l = 0, total = 1;
  // Plan::groups_per_block > 1: the second state buffer [NCOLP][LDQ] and the neighbours'
  // traces [NE * NCOMP][LDF] of the group being loaded, after everything else.
  int gpb = 1;
  long long off_q1 = 0, off_t = 0;
  // GeometryPlace::shared: the block's geometry [NE][NFACES][DIM + 1], [NE][DIM * DIM] and face codes
  // [NE][NFACES] (as reals), after everything else.
  long long off_geo = 0;
  // Plan::teams: TEAMS teams of `threads` threads, each with `total` reals of scratch from
  // off_teams + team * total. Tensor products with operators = shared: the fragments of the
  // volume operator (av reals) and of LIFT (al) at the start of the block's shared memory,
  // before the teams' scratch (off_teams = av + al); the block copies them at its start.
  int teams = 1;
  bool shared_fragments = false;
  long long av = 0, al = 0, off_teams = 0;
  // What the block needs in all, in reals: off_teams + teams * total.
  long long block_total() const { return off_teams + teams * total; }
};

// Operators::constant and literals (scalar products by column). A part is one product into one
// output buffer: the output rows `row0` .. row0 + NP - 1 of each column of `output`, from the
// column's entries of the inputs, each entry (i, j) of an operator (`value`) times input entry j
// (at `ld` reals per column). The operator's entries lie in the constant table from `base` on,
// entry (i, j) at base + i * count + j, in the order of the parts and inputs (by_column_parts
// sets it).
struct ColumnInput {
  std::string buffer, ld;
  int count = 0;
  std::function<double(int i, int j)> value;
  int base = 0;
};
struct ColumnPart {
  std::string output, ld;
  int row0 = 0;
  std::vector<ColumnInput> inputs;
  // LIFT in the Bernstein layers (Basis::bernstein, bernstein.hpp): one task per column instead
  // of chunks, the layers in place of the product.
  bool layered = false;
};

// Rows of one task of a by-column product: few enough accumulators that a thread keeps them in
// registers while its column streams through.
constexpr int max_chunk_rows = 16;
// The constant table's limit (the 64 KB of constant memory, less room for rtdg_fmask and the
// compiler's own constants) and the literal code's (16,384 non-zero operator entries: order 6
// on tetrahedra has 20,742, order 5 9,432; about 100,000 lines of code per kernel).
constexpr long long max_constant_bytes = 60 * 1024;
constexpr long long max_literal_entries = 16384;

// Whether by-column plans apply LIFT in the Bernstein layers: the plans of the Bernstein basis
// (generate_kernels gave them the Bernstein element, bernstein.hpp).
inline bool lift_in_layers(const KernelSpec& spec) { return spec.plan.basis == Basis::bernstein && spec.element->dim >= 2; }

// The stencil's nodes and packed multi-indices fit one byte each up to this many nodes (order 9
// on tetrahedra, 21 on triangles); the plan does not fit above it.
constexpr int max_stencil_nodes = 256;

// layout.cpp
GeometryReads geometry_reads(const Plan& plan);
inline int round_up(int value, int multiple) { return (value + multiple - 1) / multiple * multiple; }
// A B-operand column length: rows padded to the fragment's 4, then to 4 mod 8 (conflict-free
// fragment loads: the 16 lanes of a half-warp hit 16 different banks).
int operand_ld(int rows);
int output_ld(int rows, int tile_rows, bool single);
int output_ld_columns(int rows);
inline int column_ld(int rows) { return rows | 1; }

// The scratch layout of a plan that fused_plan_refusal accepts.
Scratch scratch_of(const KernelSpec& spec);

// by_column.cpp
std::vector<ColumnPart> by_column_parts(const KernelSpec& spec);
std::string real_literal(double value, bool single);
void write_constant_operators(rtcg::SourceWriter& w, const KernelSpec& spec);
void write_by_column_products(rtcg::SourceWriter& w, const KernelSpec& spec, const Scratch& sc);
void write_column_task_cases(rtcg::SourceWriter& w, const KernelSpec& spec, const Scratch& sc,
                             const std::vector<ColumnPart>& parts);

// lift.cpp
inline bool lift_faces_outlined(const Element& element) { return element.Nfp >= 28; }

// The entries of face f's layers: "const real l<e> = <sum>; y[<row>] = (or +=) l<e>;" per entry.
// Plan::face_threads = F: thread share p of a column takes faces [p Nfaces / F, (p + 1) Nfaces / F)
// into its own output buffer; the first face of a share writes it, the others add.
inline int share_begin(int share, int faces, int shares) { return share * faces / shares; }
bool first_of_share(int f, int faces, int shares);
void write_face_layers(rtcg::SourceWriter& w, const BernsteinOperators& b, int f, bool first, bool single,
                       const std::string& indent);
void write_layered_lift_header(rtcg::SourceWriter& w);
void write_layered_lift_faces(rtcg::SourceWriter& w, const KernelSpec& spec);
void write_layered_lift(rtcg::SourceWriter& w, const KernelSpec& spec, const BernsteinOperators& b, const ColumnPart& part,
                        int share, long long z_share);
void write_lift_sum(rtcg::SourceWriter& w, const KernelSpec& spec, const Scratch& sc);

// stencil.cpp
std::vector<int> stencil_table(const Element& element);
// stencil_table packed as the kernels read it (dg/bernstein_stencil.h): 4 ints per node, [Np][4].
std::vector<int> stencil_words(const Element& element);
void write_stencil_table(rtcg::SourceWriter& w, const Element& element);
void write_stencil_flux(rtcg::SourceWriter& w, const KernelSpec& spec, const Pieces& pieces);

// update.cpp
inline bool staged_products(const Plan& plan, const Scratch& sc) { return plan.products != Products::scalar || sc.by_column; }

// Whether each thread's update input (res or u0) is copied into registers with the prefetch
// (RTDG_PRE is then that copy on CUDA); otherwise the node phase loads it (write_update_loads).
bool update_prefetched(const Plan& plan, const Scratch& sc);
void write_update_loads(rtcg::SourceWriter& w);
void write_node_update(rtcg::SourceWriter& w, const KernelSpec& spec, const Pieces& pieces,
                       const std::vector<std::string>& epilogue);
void write_flux_of_gradient(rtcg::SourceWriter& w, const KernelSpec& spec, const Pieces& pieces,
                            const std::string& du_c_a);
void write_update_prefetch(rtcg::SourceWriter& w);

// frame.cpp
void write_stage_kernel(rtcg::SourceWriter& w, const KernelSpec& spec, const Pieces& pieces, const Scratch& scratch,
                        const std::string& name, const std::string& parameters, const std::vector<std::string>& epilogue);

// tensor_helpers.cpp
void write_column_tile_helpers(rtcg::SourceWriter& w, const std::string& k_loop, const std::string& ld, bool store_pairs,
                               bool single);
void write_row_tile_helpers(rtcg::SourceWriter& w, const std::string& k_loop, const std::string& ld, int k_unroll,
                            int k_ahead);
void write_tensor_helpers(rtcg::SourceWriter& w, int k_unroll, int k_ahead, bool shared_fragments, bool columns,
                          bool store_pairs, bool single);

// volume.cpp
std::string fragments_of(const Scratch& sc, const std::string& argument);
void write_held_items(rtcg::SourceWriter& w, const Scratch& sc, const std::string& items,
                      const std::function<void()>& body);
void write_tensor_products(rtcg::SourceWriter& w, const KernelSpec& spec, const Scratch& sc);
void write_split_products(rtcg::SourceWriter& w, const KernelSpec& spec, const Pieces& pieces, const Scratch& sc);

// load.cpp
void write_zero_padding(rtcg::SourceWriter& w, const std::string& buffer, const std::string& ld, int ld_value,
                        const std::string& rows, int rows_value, const std::string& first_column, bool column_loop);
int state_copy_width(const KernelSpec& spec, const Scratch& sc);
void write_state_loads(rtcg::SourceWriter& w, const std::string& base, const std::string& state, bool async,
                       const KernelSpec& spec, const Scratch& sc);
void write_group_loads(rtcg::SourceWriter& w, const KernelSpec& spec, const Scratch& sc, const std::string& base,
                       const std::string& state, const std::string& traces, bool async);
void write_geometry_copies(rtcg::SourceWriter& w, bool one_pass);
void write_async_group_loads(rtcg::SourceWriter& w, const KernelSpec& spec, const Scratch& sc,
                             const std::function<void()>& between);
void write_padding_zeros(rtcg::SourceWriter& w, const KernelSpec& spec, const Scratch& sc);

// face_flux.cpp
void write_group_fluxes(rtcg::SourceWriter& w, const KernelSpec& spec, const Pieces& pieces, const Scratch& sc,
                        const std::string& traces);

// stage.cpp
void write_group_products(rtcg::SourceWriter& w, const KernelSpec& spec, const Pieces& pieces, const Scratch& sc,
                          const std::vector<std::string>& epilogue);
void write_stage_body(rtcg::SourceWriter& w, const KernelSpec& spec, const Pieces& pieces, const Scratch& sc,
                      const std::vector<std::string>& epilogue);

}  // namespace rtdg::dg::kernels::fused
