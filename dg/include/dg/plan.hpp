// How the DG kernels lay out memory and map work to threads: a value the kernel generator
// takes, so tuned plans (from the tuning database) plug in without touching the solver. The
// vocabulary is that of Kloeckner et al., "Nodal discontinuous Galerkin methods on graphics
// processors" (2009) and hedge: layout, where operators live, loop slicing, fusion.
//
// Each value's name, values and one-line documentation are in the plan schema
// (dg/plan_schema.hpp), from which texts, the tuner's points and docs/tuning.md's table derive.
//
// Every plan computes the same right-hand side to rounding; the default plan is the reference
// the others are checked against (the tuner drops a variant that disagrees).
//
// The default plan is correct for every law, order and shape: three kernels per stage
// (volume, surface, update), state stored field-major, one thread per node, a few elements
// per thread block, operators (D, LIFT) read from global memory.
#pragma once

#include <optional>
#include <string>

namespace rtdg::dg {

// Where component c of node i of element k lives in a state array of `components` x K x Np
// values:
//   field_major    ((c * K) + k) * Np + i     each component a contiguous Np x K block (the
//                                             book's layout, one array per field)
//   element_major  ((k * components) + c) * Np + i   an element's components together
enum class Layout : unsigned char { field_major, element_major };

// Which kernels a Runge-Kutta stage launches.
//   none   rtdg_volume, rtdg_surface, then the update: the right-hand side goes through
//          global memory (written, read back, added to, read by the update)
//   stage  one kernel per stage: volume + surface + update of a block of elements, the
//          right-hand side held in registers; the state is ping-ponged between two arrays
//          (read q_in and res, write q_out and res: the minimal four arrays of a stage)
enum class Fusion : unsigned char { none, stage };

// Where the fused kernel reads the reference operators D_r, D_s, D_t and LIFT from.
//   global  global memory through the read-only data cache (transposed, so the threads of an
//           element read consecutive addresses; with tensor products, the pre-arranged
//           fragments)
//   shared  copied into shared memory by every block (fits up to about order 5 in double).
//           With tensor products, the fragments of the volume operator and of LIFT, copied
//           once per block at its start and read by all of its teams (Plan::teams) and groups:
//           the products then wait on shared memory instead of L2, and the copy's L2 traffic
//           is one per block instead of one per group
//   constant   scalar products only, computed by column: a thread takes one (element,
//           component) column and a chunk of at most 16 output rows of one operator (D_r, D_s,
//           D_t or LIFT), in code unrolled over the operator's entries with zero entries dropped,
//           so all threads of a warp use the same operator entry at a time and each column entry
//           read from shared memory serves the chunk's rows. The entries are read from a table
//           in constant memory, initialised in the generated source (no upload), at addresses
//           fixed in the code (a constant-cache broadcast, no L1 traffic for the operator). The
//           outputs go through shared memory (as with tensor products), then one thread per node
//           updates. The operators must fit constant memory (60 KB: about order 4 in double)
//   literals   as constant, with the entries written into the code as literals (GiMMiK's idea,
//           Wozniak et al. 2016): no operator loads at all. The kernel grows with the operators
//           (at most 16,384 non-zero entries of D and LIFT together: order 5 on tetrahedra).
//   stencil    Bernstein plans only (basis = bernstein, derivative = state, fused, scalar
//           products, one node per thread): no derivative product at all. Each node's thread
//           takes D_a u from the Bernstein lattice stencil, (d_j c)_alpha = sum_k alpha_k
//           c_(alpha - e_k + e_j), reading its dim (dim + 1) lattice neighbours' indices and its
//           multi-index from a table in the code (global memory, one column per node), and
//           LIFT runs in the layers, one thread per column, as with literals
enum class Operators : unsigned char { global, shared, constant, literals, stencil };

// What the fused kernel differentiates.
//   flux   the metric-folded fluxes G_a = sum_d (dr_a/dx_d) F_d(u): right for every law
//   state  the state, then the flux of the gradient: div F(u) = sum_d F_d(du/dx_d). Right only
//          when F is linear in u with constant coefficients (Maxwell, acoustics, advection);
//          the generator checks that from the law's DAG and refuses it otherwise. Needs no
//          flux scratch in shared memory and a third of the shared-memory reads.
enum class Derivative : unsigned char { flux, state };

// How the fused kernel computes its operator products (D_a times the state or fluxes, LIFT
// times the face fluxes): products of an operator with the block's NE x NCOMP columns.
//   scalar  each thread accumulates its output nodes with FMA instructions
//   tensor  the FP64 tensor cores (DMMA, mma.sync m8n8k4, sm_80 and newer): the block's columns
//           are padded to multiples of 8, each warp computes 8-row tiles of the products from
//           operator fragments pre-arranged in global memory and the state in shared memory.
//           In float the fragments are widened to double as they are loaded (the products are
//           exact, the sums double) and rounded to float when stored: the FP64 tensor cores
//           serve float plans too, with half the shared memory. The host backend runs the same
//           padded products as loops.
//   tf32x3  float only: the TF32 tensor cores (mma.sync m16n8k8, sm_80 and newer), 16-row tiles
//           (tile_rows = 16) or column tiles (Tiles::columns, tile_rows = 8). Each operand x is
//           split into x_hi = x rounded to TF32 (10-bit mantissa) and x_lo = x - x_hi rounded to
//           TF32, and a b is computed as a_lo b_hi + a_hi b_lo + a_hi b_hi (three products; the
//           dropped a_lo b_lo and the roundings are about 2^-21 of a b), summed in float: float
//           accuracy on tensor cores of several times the FP64 ones' rate on paper, for the
//           instructions of the splitting. The fragments and the shared-memory layout are those
//           of tensor; the host backend runs the same padded products as loops in double.
enum class Products : unsigned char { scalar, tensor, tf32x3 };
// When the fused kernel issues its global loads.
//   off  phase by phase: the state, then (after the volume fluxes) each face's neighbour trace,
//        then (after the products) the update's res (or u0): three latencies in a row
//   on   all at the start: the neighbours' traces of interior faces go into the face-flux
//        scratch with the state's loads, and with tensor products each thread's res (u0) into
//        registers, so the latencies overlap; costs registers
//   async  as on, but the state and the neighbours' traces are copied into shared memory by
//        cp.async (sm_80 and newer; the host copies at once), which holds no registers and
//        does not wait for one copy before issuing the next, and each thread loads the face
//        codes and vmapP entries of all its face-node slots before it issues any neighbour
//        copy: two latencies before the first barrier instead of one per loop pass and slot.
//        One element group per block, one team
enum class Prefetch : unsigned char { off, on, async };
// Where the fused kernel reads the per-element geometry (face normals and Fscale, dr_a/dx_d,
// the face codes).
//   global  from the global arrays, through the read-only cache, where each phase needs them
//   shared  copied into the block's shared memory in the load phase (prefetch = async only:
//           the copies are cp.async like the state's), so the face fluxes and the metric
//           terms read shared memory instead of waiting on L1/L2 after each barrier; costs
//           NE x (NFACES x (DIM + 2) + DIM x DIM) reals of shared memory per block
enum class GeometryPlace : unsigned char { global, shared };
// How the fused kernels find the neighbour's node across each face node (the exterior trace).
//   nodes  vmapP: one index per face node ([K][Nfaces * Nfp] ints, k * Np + i of the twin)
//   faces  one word per face ([K][Nfaces] ints after a table of the mesh's distinct face-node
//          orders, at most 64: a neighbour face seen from this face is one of Nfaces x 6 (tets)
//          or Nfaces x 2 (triangles) node orders): the neighbour (or halo face) and the order.
//          At order 2 on tets 16 instead of 96 bytes per element; every face node then reads
//          its word (shared by the face's nodes, so an L1 hit) and its table entry.
enum class Connectivity : unsigned char { nodes, faces };
// Fused plans: the alignment, in bytes, of each (element, component) column of the state in
// device memory (hedge's microblocks, one column at a time): 0 leaves the columns Np reals
// apart; A pads Np up to a multiple of A / sizeof(real) (node_stride), so every column starts
// on an A-byte boundary of the (256-byte aligned) state arrays. The padding entries are zero
// in every state array and no kernel writes them. With element-major state and A >= 16 a
// block's copies move 16 bytes at a time at every order (Np = 35 at order 4 is odd: one real
// per copy without padding), and the zeros arrive as the padding rows the tensor products
// need. Costs (node_stride - Np) / Np more bytes per state array: at most 2.9 % at orders 2-7
// in double with 16 bytes, 20 % in float at order 2 (Np = 10 -> 12).
inline constexpr int max_align_bytes = 128;
// Tensor products: the rows of an operator tile, 8 (mma.m8n8k4) or 16 (mma.m16n8k16 and
// m16n8k4, sm_90 and newer: two 8-row fragments per instruction at twice the m8n8k4 rate on
// Hopper, and each column fragment read from shared memory serves 16 rows; the operators' rows
// are padded to 16 instead of 8). Below sm_90 a 16-row plan runs with 8-row tiles.
//
// Tensor products of the flux derivative: how the metric-folded fluxes G_a meet -D_a.
//   joint  G_r, G_s, G_t of the block's nodes at once: sG holds DIM x Np rows per column, one
//          product over DIM x Np columns of [-D_r, -D_s, -D_t]
//   split  one direction at a time: G_a computed into a buffer of about Np rows, multiplied by
//          -D_a and added to tile accumulators held in registers (DIM passes, LIFT in the
//          first); a third of sG's shared memory, so more blocks per SM, for DIM - 1 more flux
//          evaluations per node and 2 (DIM - 1) more barriers
enum class Directions : unsigned char { joint, split };
// Tensor products (FP64 or TF32 tensor cores): which side of a product the mma's 16-row side takes.
//   rows     operator rows (tile_rows = 8: m8n8k4; 16: m16n8k16 / m16n8k4 on sm_90), the block's
//            columns padded to 8
//   columns  16 of the block's columns, by 8 operator rows (m16n8k4 on sm_90 and newer, two
//            m8n8k4 below): the full Hopper rate of 16-row tiles with the operator's rows padded
//            to 8 instead of 16 (Np = 35 at order 4: 40 rows instead of 48), the block's columns
//            padded to 16 (8 elements of 6 components fill three tiles). The operator fragments
//            are the 8-row ones (the mma's B as they are), the columns come from shared memory
//            as its A. tile_rows = 8; row_tiles counts the operator row tiles of a warp item,
//            each reusing the item's column fragments. With tf32x3: mma.m16n8k8.tf32, k in steps
//            of 8
enum class Tiles : unsigned char { rows, columns };
// Tensor products: operator row tiles per warp item (MR). A warp item computes MR x NB output
// tiles (NB column tiles, chosen by the generator) from MR operator fragments and NB column
// fragments per k step, so each column fragment read from shared memory serves MR tiles: the
// products' shared-memory reads fall by MR, for MR times the accumulator registers and fewer
// items per block (ceil(row tiles / MR) x column groups; a last partial item recomputes its
// last tile and does not store it). 16-row tiles are MR = 2 of 8-row ones in this respect.
inline constexpr int max_row_tiles = 8;
// Tensor products: fragment steps of a product's k loop that the generated code unrolls (0:
// all of them). Fully unrolled, the compiler issues the operator loads of many steps ahead
// of their mma, which costs registers: 16-row tiles with m16n8k16 (8 operator values per lane
// per step) hold about twice the registers per thread of 8-row tiles. With k_unroll = U > 0 the
// loop is unrolled U times and 16-row tiles take k in steps of 4 only (m16n8k4: 2 operator
// values per lane, the same tensor rate as m16n8k16 on sm_90), which holds fewer.
inline constexpr int max_k_unroll = 16;
// Tensor products with k_unroll > 0: fragment steps whose operator and column fragments the
// k loop loads ahead of their mma (0: none, the compiler schedules the loop's loads; 1: the
// next step's, held in registers while this step's mma run: a software pipeline of one step).
// Fully unrolled loops (k_unroll = 0) already issue their loads early and take none.
inline constexpr int max_k_ahead = 1;

// The basis the state is stored in, and the element operators the kernels apply.
//   nodal      values at the element's nodes (Warp & Blend): D_a and LIFT dense, every entry a
//              product (Hesthaven & Warburton)
//   bernstein  the Bernstein-Bezier coefficients (dg/bernstein.hpp; Chan & Warburton, SIAM J.
//              Sci. Comput. 2017): the same polynomials, so for a law whose pointwise pieces
//              are affine in the state with coefficients that do not vary over an element or a
//              face (Maxwell, acoustics, advection; no position inputs) the same semi-discrete
//              system up to the similarity c = V_B^-1 u per element. D_a has at most 7 non-zero
//              entries per row (tetrahedra; 5 on triangles), and by-column plans (operators =
//              literals, constant or stencil) differentiating the state apply LIFT in sparse
//              layers (Plan::face_threads threads per column).
//              Faces that read the incident field (boundary conditions, TF/SF) take its face
//              coefficients. The solver converts at its edges (set_state, state, rhs, probes,
//              the far field, checkpoints, set_plan between bases), so callers see nodal values
//              either way. Triangles and tetrahedra; not with shock capturing (the generator and
//              the solver refuse what does not fit, naming it)
enum class Basis : unsigned char { nodal, bernstein };

inline constexpr int max_groups_per_block = 64;
// Teams per block: named barriers 1..15 (barrier 0 is the block-wide one).
inline constexpr int max_teams = 15;
// Plan::max_registers: 0 (the compiler's choice) or a cap from min_register_cap to
// max_register_cap registers per thread.
inline constexpr int min_register_cap = 32;
inline constexpr int max_register_cap = 255;

struct Plan {
  Layout layout = Layout::field_major;
  Fusion fusion = Fusion::none;
  // Unfused kernels: elements per thread block of the volume and surface kernels on CUDA
  // (threads: Np or Nfaces*Nfp per element). 0: enough elements for about 128 threads.
  int volume_elements_per_block = 0;
  int surface_elements_per_block = 0;
  // Threads per block of the Runge-Kutta update kernel (unfused).
  int update_block_size = 256;
  // Fused stage kernel: elements per thread block (0: enough for about 128 threads), output
  // nodes per thread (inline-parallel: a thread computes nodes i, i + T, i + 2T, ... of its
  // element with T = ceil(Np / nodes_per_thread), reusing every operand it loads), where the
  // operators live, and what is differentiated.
  int stage_elements_per_block = 0;
  int nodes_per_thread = 1;
  Operators operators = Operators::global;
  Derivative derivative = Derivative::flux;
  Products products = Products::scalar;
  Prefetch prefetch = Prefetch::off;
  int tile_rows = 8;  // tensor products only: 8 or 16 (see above); tf32x3: 16, or 8 with column tiles
  Directions directions = Directions::joint;  // tensor products of the flux derivative only
  int row_tiles = 1;  // tensor products only: operator row tiles per warp item, 1 .. max_row_tiles
  int k_unroll = 0;   // tensor products only: k steps unrolled, 0 (all) or 1 .. max_k_unroll
  int k_ahead = 0;    // tensor products with k_unroll > 0: k steps loaded ahead, 0 .. max_k_ahead
  // Element groups per thread block (per team, see teams): 1, or G > 1 groups of NE elements
  // computed one after another. With prefetch = on they are pipelined: the next group's state
  // and neighbours' traces arrive in a second shared-memory buffer (cp.async on CUDA, sm_80
  // and newer) during this one, so a block's loads overlap its own products instead of
  // waiting at its first barrier (costs one more state buffer and a trace buffer of shared
  // memory). Without prefetch they simply follow each other, which pays only where the block
  // has something to share between them (operators = shared with tensor products).
  int groups_per_block = 1;  // 1 .. max_groups_per_block
  // Element groups a block computes side by side (teams): each team of ceil(NE x threads per
  // element / 32) warps computes its own groups with its own scratch and its own barrier
  // (barrier.sync with a team id, not a block-wide barrier), so teams do not wait on each other;
  // what they share is the block's copy of the operators (operators = shared with tensor
  // products). A block of T teams and G groups per block computes T x G groups, team t the
  // groups t, t + T, .. of them; G > 1 without prefetch runs them in turn, with prefetch
  // pipelined as above. T x the team's threads must be at most 1024.
  int teams = 1;  // 1 .. max_teams
  GeometryPlace geometry = GeometryPlace::global;  // shared: prefetch = async only
  Connectivity connectivity = Connectivity::nodes;  // fused plans only
  int align = 0;  // fused plans only: 0, or 8, 16, 32, 64, 128 bytes (see max_align_bytes)
  Tiles tiles = Tiles::rows;  // tensor products only (see Tiles)
  Basis basis = Basis::nodal;  // every plan, fused or not (see Basis)
  // Bernstein plans whose LIFT runs in layers (by column: operators constant, literals or
  // stencil, derivative = state): the threads that share a column's faces, 1, 2 or 4 (at most
  // the element's faces). Each takes its share of the faces into an output buffer of its own
  // (face_threads x the LIFT output's shared memory), and the update adds them: the layers are
  // a chain of N + 1 dependent steps per face, run by one thread per column and face share
  // while the block's other threads wait.
  int face_threads = 1;
  // Fused plans of one team: a cap on the stage kernel's registers per thread (CUDA:
  // __maxnreg__), 0 for the compiler's own choice. A lower count fits more blocks per SM (64K
  // registers per SM: 4 elements of order 4, 140 threads in 5 warps, fit 4 blocks at 96
  // registers and 5 at 80) at the price of spills to local memory, so only the timing can say.
  // The host backend ignores it.
  int max_registers = 0;
  // Fused plans that prefetch (prefetch on or async) and stage their products (tensor products,
  // or by column: operators constant, literals or stencil): whether each thread loads its
  // output node's update input (res for LSERK, u0 for SSP) into registers with the prefetch, so
  // that load's latency overlaps the block's others (true), or
  // loads it as the node phase starts (every component before the update's first store). The
  // early copy holds NCOMP registers through the whole kernel, which can cost a block per SM.
  bool prefetch_update = true;
  // Every plan: whether a time step's launches (5 stage kernels for LSERK4, or 15 unfused, with
  // the stabilizer's after each stage) go to the device as one CUDA graph (rtcg::LaunchGraph:
  // recorded from the stream each step, the graph updated in place and launched once) instead
  // of one launch each. What it can save is launch overhead: the host's per launch, and the gaps
  // between kernels, which matter only where a stage takes a few microseconds (small meshes).
  // Not for parallel runs (their halo exchange with other ranks runs between launches: a step
  // refuses it). The host backend runs the launches as they come.
  bool graph = false;

  // A short text for logs, tables and the run summary, e.g.
  // "stage fused, element_major, 4 elements/block, 2 nodes/thread, operators shared, d(state)".
  std::string describe() const;
  friend bool operator==(const Plan&, const Plan&) = default;
};

const char* to_string(Layout layout);
const char* to_string(Fusion fusion);
const char* to_string(Operators operators);
const char* to_string(Derivative derivative);
const char* to_string(Products products);
const char* to_string(Prefetch prefetch);
const char* to_string(Directions directions);
const char* to_string(GeometryPlace geometry);
const char* to_string(Connectivity connectivity);
const char* to_string(Tiles tiles);
const char* to_string(Basis basis);
// Each parses what its to_string writes (the schema's names); throws dg::Error listing the
// valid names otherwise.
Layout parse_layout(const std::string& text);
Fusion parse_fusion(const std::string& text);
Operators parse_operators(const std::string& text);
Derivative parse_derivative(const std::string& text);
Products parse_products(const std::string& text);
Prefetch parse_prefetch(const std::string& text);
Directions parse_directions(const std::string& text);
GeometryPlace parse_geometry(const std::string& text);
Connectivity parse_connectivity(const std::string& text);
Tiles parse_tiles(const std::string& text);
Basis parse_basis(const std::string& text);

// A plan as one line of key=value words in the plan schema's order (dg/plan_schema.hpp), e.g.
// "fusion=stage layout=element_major elements=4 nodes_per_thread=2 operators=shared
// derivative=state products=scalar prefetch=off ..." (an unfused plan: "fusion=none
// layout=field_major volume_elements=0 surface_elements=0 update_block=256"), and back.
// plan_from_text throws dg::Error naming the bad word; a word the schema does not require may
// be left out and reads as its default (so texts written before a value existed keep their
// meaning); basis=, face_threads=, max_registers=, prefetch_update= and graph= are written only
// when not the default.
std::string to_text(const Plan& plan);
// `text` as a whole number in low..high (plan texts, plan spaces); nothing when it is not one.
std::optional<int> parse_whole_number(const std::string& text, int low, int high);
// A k_unroll value as plan texts and spaces write it: "all" (0) or 1..max_k_unroll; nothing
// otherwise.
std::optional<int> parse_k_unroll(const std::string& text);
Plan plan_from_text(const std::string& text);

// The state's node stride in device memory for `plan` with reals of `real_bytes` (4 or 8):
// Np rounded up to a multiple of plan.align / real_bytes for fused plans with align > 0, Np
// otherwise. Value (c, k, i) of a state array sits at ((c K + k) stride + i) (field-major) or
// ((k components + c) stride + i) (element-major); entries i >= Np are zero.
int node_stride(const Plan& plan, int Np, int real_bytes);
// Whether `bytes` is an align value plans accept: 0, or a power of two in 8..max_align_bytes.
bool valid_align(int bytes);
// Whether `registers` is a max_registers value plans accept: 0, or min_register_cap to
// max_register_cap.
bool valid_register_cap(int registers);
// The generated code's state index macro, "#define QIDX(c, k, i) ...", for a layout and node
// stride (K, NCOMP, NP: the kernel's element count and its macros; the stride is written as NP
// when it is Np, so unpadded plans generate the code they did before padding existed).
std::string state_index_macro(Layout layout, int node_stride, int Np);

// Elements per block actually used for a kernel whose per-element thread count is
// `threads_per_element`, given the plan's request (0: automatic).
int elements_per_block(int requested, int threads_per_element);

}  // namespace rtdg::dg
