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
// the rate of m8n8k4 on Hopper (benchmarks/dmma_shapes.cu: 66 against 33 TFLOP/s on the H100)
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
// tensor-core fragments of the volume operator and of LIFT (kernels/geometry_arrays.hpp: AVS
// for Derivative::state, AVF for flux), unused by scalar products.
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

namespace rtdg::dg::kernels {
namespace {

using fluxes::InputKind;

std::string str(int v) { return std::to_string(v); }
std::string str(long long v) { return std::to_string(v); }

// GeometryPlace::shared reads the block's geometry from its copy in shared memory (sFgeo, sDrdx,
// sCode, filled in the load phase of Prefetch::async); the other plans from the global arrays.
GeometryReads geometry_reads(const Plan& plan) {
  if (plan.geometry != GeometryPlace::shared) return {};
  return {"sDrdx + (k - k0) * (DIM * DIM)", "sFgeo + ((k - k0) * NFACES + f) * (DIM + 1)",
          "static_cast<int>(sCode[(k - k0) * NFACES + f])"};
}

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

int round_up(int value, int multiple) { return (value + multiple - 1) / multiple * multiple; }
// A B-operand column length: rows padded to the fragment's 4, then to 4 mod 8 (conflict-free
// fragment loads: the 16 lanes of a half-warp hit 16 different banks).
int operand_ld(int rows) {
  int ld = round_up(rows, 4);
  if (ld % 8 != 4) ld += 4;
  return ld;
}
// An output column length: whole tiles of `tile_rows` rows, then conflict-free tile stores (lane
// g + 4 t writes row g of column 2 t): doubles 2 mod 8 (a half-warp per 64-bit phase), floats 4
// mod 16 (the four columns 8 banks apart).
int output_ld(int rows, int tile_rows, bool single) {
  const int whole = round_up(rows, tile_rows);
  return single ? whole + (whole % 16 == 0 ? 4 : 12) : whole + 2;
}

// Column tiles: lane g + 4 t stores rows 2 t, 2 t + 1 of columns g and g + 8, as one 2-real
// store where aligned: conflict-free when the eight lanes of a quarter warp (doubles, 16 bytes
// each) or the sixteen of a half warp (floats, 8 bytes) hit disjoint banks: LD = 8 mod 16 in
// both (floats: 8 or 24 mod 32).
int output_ld_columns(int rows) {
  int ld = round_up(rows, 8);
  if (ld % 16 != 8) ld += 8;
  return ld;
}

// By-column products: a column length whose multiples by 16 (doubles) or 32 (floats)
// consecutive columns fall in different banks, so the threads of a warp, each walking its own
// column, read and write conflict-free: any odd number.
int column_ld(int rows) { return rows | 1; }

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
bool lift_in_layers(const KernelSpec& spec) { return spec.plan.basis == Basis::bernstein && spec.element->dim >= 2; }

std::vector<ColumnPart> by_column_parts(const KernelSpec& spec) {
  const Element& element = *spec.element;
  const int Np = element.Np, Nfn = element.Nfaces * element.Nfp, dim = element.dim;
  const Eigen::MatrixXd* derivative[3] = {&element.Dr, &element.Ds, &element.Dt};
  std::vector<ColumnPart> parts;
  auto lift = [&element](int i, int m) { return element.LIFT(i, m); };
  if (spec.plan.derivative == Derivative::state) {
    // sY rows a NP + i = (D_a u)(i), sZ rows i = (LIFT sF)(i). Operators::stencil: LIFT only (the
    // node phase takes D_a u from the lattice stencil, write_stencil_flux).
    for (int a = 0; a < dim && spec.plan.operators != Operators::stencil; ++a) {
      const Eigen::MatrixXd* D = derivative[a];
      parts.push_back({"sY", "LDY", a * Np, {{"sq", "LDQ", Np, [D](int i, int j) { return (*D)(i, j); }}}});
    }
    parts.push_back({"sZ", "LDZ", 0, {{"sF", "LDF", Nfn, lift}}, lift_in_layers(spec)});
  } else {
    // sY rows i = -sum_a (D_a G_a)(i) + (LIFT sF)(i).
    auto minus_d = [derivative, Np](int i, int j) { return -(*derivative[j / Np])(i, j % Np); };
    parts.push_back({"sY", "LDY", 0, {{"sG", "LDG", dim * Np, minus_d}, {"sF", "LDF", Nfn, lift}}});
  }
  // The constant table: every operator's Np rows, in this order.
  int base = 0;
  for (ColumnPart& part : parts)
    for (ColumnInput& input : part.inputs) {
      input.base = base;
      base += Np * input.count;
    }
  return parts;
}

// A literal of the kernel's real type for `value`, exact (hexadecimal: %a), in parentheses.
std::string real_literal(double value, bool single) {
  char text[64];
  if (single) std::snprintf(text, sizeof text, "%af", static_cast<double>(static_cast<float>(value)));
  else std::snprintf(text, sizeof text, "%a", value);
  return std::string("(") + text + ")";
}

// Operators::constant: the parts' operator entries as one table in constant memory (a static
// array on the host), written once per program, before the kernels.
void write_constant_operators(rtcg::SourceWriter& w, const KernelSpec& spec) {
  const bool single = spec.scalar == fluxes::ScalarType::float32;
  std::vector<std::string> entries;
  for (const ColumnPart& part : by_column_parts(spec))
    for (const ColumnInput& input : part.inputs)
      for (int i = 0; i < spec.element->Np; ++i)
        for (int j = 0; j < input.count; ++j) entries.push_back(real_literal(input.value(i, j), single));
  w.line("// The operators for the by-column products (Operators::constant), entry (i, j) of each");
  w.line("// operator row by row, the operators in the order the products take them.");
  w.line("#if RTCG_CUDA");
  w.line("__constant__ real rtdg_cops[" + str(static_cast<int>(entries.size())) + "] = {");
  w.line("#else");
  w.line("static const real rtdg_cops[" + str(static_cast<int>(entries.size())) + "] = {");
  w.line("#endif");
  for (std::size_t n = 0; n < entries.size(); n += 8) {
    std::string row = "  ";
    for (std::size_t m = n; m < std::min(entries.size(), n + 8); ++m) row += entries[m] + ",";
    w.line(row);
  }
  w.line("};");
  w.line();
}

// The Bernstein LIFT of one column in layers (bernstein.hpp), the weights as literals. Per face,
// layer 0 = L0 x_f (x the column's face values in sF, Fmask order), then each layer from the one
// before, every entry a variable of its own (a layer's variables die once the next layer is
// computed), each added to the column's output row y (face 0 writes it).
//
// Where the faces are large (lift_faces_outlined: 28 or more nodes, order 6 and up on
// tetrahedra) each face is a function of its own, written once per program before the kernels
// (write_layered_lift_faces) and not inlined on CUDA, reaching x and y as offsets into the block's
// shared memory (so its loads and stores stay shared-memory ones): inlined, ptxas kept several
// faces' values live at once: compiled with NVRTC 13 for sm_90 (2026-11-28; 2-element literal
// plans of maxwell3d in double with every condition of the law, tests/dg/test_kernels.cpp), 182
// registers at order 7 (one block per SM on the H100, where 186 were measured; a compiler fence
// between the faces did not prevent it) and 94 at order 6, against 128 and 80 as functions, the
// count of the rest of the kernel. Below that the faces are written inline, fenced apart: there
// they take no more registers than the rest of the kernel (80 either way at orders 4-5), and the
// call is saved. Timed on the H100 (session 29): the order-6 literal plan 3 % faster (2 blocks
// per SM with 4 elements), order 7 9.87 -> 7.93 ms per stage (2 blocks per SM).
bool lift_faces_outlined(const Element& element) { return element.Nfp >= 28; }

// The entries of face f's layers: "const real l<e> = <sum>; y[<row>] = (or +=) l<e>;" per entry.
// Plan::face_threads = F: thread share p of a column takes faces [p Nfaces / F, (p + 1) Nfaces / F)
// into its own output buffer; the first face of a share writes it, the others add.
int share_begin(int share, int faces, int shares) { return share * faces / shares; }
bool first_of_share(int f, int faces, int shares) {
  for (int p = 0; p < shares; ++p)
    if (share_begin(p, faces, shares) == f) return true;
  return false;
}

void write_face_layers(rtcg::SourceWriter& w, const BernsteinOperators& b, int f, bool first, bool single,
                       const std::string& indent) {
  const BernsteinFace& face = b.faces[static_cast<std::size_t>(f)];
  for (int e = 0; e < b.Np; ++e) {
    const std::vector<BernsteinEntry>& terms =
        e < b.Nfp ? face.L0[static_cast<std::size_t>(e)] : face.reduction[static_cast<std::size_t>(e)];
    std::string sum;
    for (const BernsteinEntry& t : terms) {
      if (t.weight == 0.0) continue;
      const std::string operand = e < b.Nfp ? "x[" + str(f * b.Nfp + t.index) + "]" : "l" + str(t.index);
      sum += (sum.empty() ? "" : " + ") + real_literal(t.weight, single) + " * " + operand;
    }
    if (sum.empty()) sum = "real(0)";
    const int row = face.volume[static_cast<std::size_t>(e)];
    w.line(indent + "const real l" + str(e) + " = " + sum + "; y[" + str(row) + "] " + (first ? "=" : "+=") + " l" + str(e) +
           ";");
  }
}

// The faces' functions of an outlined layered LIFT (see above), rtdg_lift_face_<f>.
void write_layered_lift_faces(rtcg::SourceWriter& w, const KernelSpec& spec) {
  const bool single = spec.scalar == fluxes::ScalarType::float32;
  const BernsteinOperators b = make_bernstein(*spec.element);
  for (int f = 0; f < b.Nfaces; ++f) {
    const bool first = first_of_share(f, b.Nfaces, spec.plan.face_threads);
    w.line("// Face " + str(f) + " of LIFT in the Bernstein layers, one column: y " + (first ? "=" : "+=") +
           " its layers.");
    w.line("#if RTCG_CUDA");
    w.line("__device__ __noinline__ void rtdg_lift_face_" + str(f) + "(int x_offset, int y_offset) {");
    w.line("  extern __shared__ double rtdg_smem[];");
    w.line("  const real* RTCG_RESTRICT x = reinterpret_cast<const real*>(rtdg_smem) + x_offset;");
    w.line("  real* RTCG_RESTRICT y = reinterpret_cast<real*>(rtdg_smem) + y_offset;");
    w.line("#else");
    w.line("static inline void rtdg_lift_face_" + str(f) + "(const real* RTCG_RESTRICT x, real* RTCG_RESTRICT y) {");
    w.line("#endif");
    write_face_layers(w, b, f, first, single, "  ");
    w.line("}");
  }
  w.line();
}

// The layered LIFT of column col (a task of the by-column products): the faces of thread share
// `share` of Plan::face_threads, into that share's output buffer (`z_share` reals apart). `b`:
// the element's Bernstein form, for the faces written inline (not lift_faces_outlined).
void write_layered_lift(rtcg::SourceWriter& w, const KernelSpec& spec, const BernsteinOperators& b, const ColumnPart& part,
                        int share, long long z_share) {
  const int Nfaces = spec.element->Nfaces, shares = spec.plan.face_threads;
  const int f0 = share_begin(share, Nfaces, shares), f1 = share_begin(share + 1, Nfaces, shares);
  const ColumnInput& input = part.inputs.front();
  w.line("// LIFT in the Bernstein layers: faces " + str(f0) + " .. " + str(f1 - 1) + " of " + str(Nfaces) + ", " +
         str(spec.element->N + 1) + " layers each.");
  w.line("const real* x = " + input.buffer + " + col * " + input.ld + ";");
  w.line("real* y = " + part.output + " + " + (share > 0 ? str(share * z_share) + " + " : std::string()) + "col * " + part.ld +
         " + " + str(part.row0) + ";");
  if (lift_faces_outlined(*spec.element)) {
    w.line("#if RTCG_CUDA");
    w.line("const int x_offset = static_cast<int>(x - reinterpret_cast<const real*>(rtdg_smem));");
    w.line("const int y_offset = static_cast<int>(y - reinterpret_cast<real*>(rtdg_smem));");
    for (int f = f0; f < f1; ++f) w.line("rtdg_lift_face_" + str(f) + "(x_offset, y_offset);");
    w.line("#else");
    for (int f = f0; f < f1; ++f) w.line("rtdg_lift_face_" + str(f) + "(x, y);");
    w.line("#endif");
    return;
  }
  const bool single = spec.scalar == fluxes::ScalarType::float32;
  for (int f = f0; f < f1; ++f) {
    auto scope = w.block("");
    if (f > f0) {
      // Keeps the next face's loads from being hoisted into this one's registers.
      w.line("#if RTCG_CUDA");
      w.line("asm volatile(\"\" ::: \"memory\");");
      w.line("#endif");
    }
    write_face_layers(w, b, f, f == f0, single, "");
  }
}

void write_column_task_cases(rtcg::SourceWriter& w, const KernelSpec& spec, const Scratch& sc,
                             const std::vector<ColumnPart>& parts);

// Operators::constant and literals, sq, sF (and sG) filled and synced: the products into sY (and
// sZ) by column. Task s of NTASK = (parts x chunks) x stride (a layered LIFT part: one task per
// face share, not chunks) takes column col = s % stride (none at or past NCOL; the stride is
// NCOL, or more where that keeps a warp on one case: column_task_stride) and the rows of one
// chunk of one part: consecutive threads take consecutive columns of the same chunk, so a warp's
// threads run the same code (the same operator entry: a literal, or one constant-memory address
// fixed in the code, a broadcast), and each reads its own column (odd leading dimensions: no bank
// conflicts). Each input entry read serves the chunk's rows, accumulated in registers.
void write_by_column_products(rtcg::SourceWriter& w, const KernelSpec& spec, const Scratch& sc) {
  const bool literals = spec.plan.operators == Operators::literals;
  const std::vector<ColumnPart> parts = by_column_parts(spec);
  int tasks = 0;
  for (const ColumnPart& part : parts) tasks += part.layered ? spec.plan.face_threads : sc.chunks;
  const char* where = literals                                        ? "as literals"
                      : spec.plan.operators == Operators::stencil ? "the derivatives by stencil later"
                                                                      : "in constant memory";
  w.line(std::string("// By-column products (operators ") + where + "): " +
         str(static_cast<int>(parts.size())) + (parts.size() == 1 ? " part" : " parts") + " of " + str(sc.chunks) +
         (sc.chunks == 1 ? " chunk" : " chunks") + " per column.");
  const int stride = column_task_stride(tasks, sc.ncolp, sc.threads);
  const bool padded = stride != sc.ncolp;
  const std::string stride_text = padded ? str(stride) : "(NE * NCOMP)";
  if (padded)
    w.line("// Tasks " + str(stride) + " columns apart, so that a warp's lanes take the same case (column_task_stride).");
  auto slots = w.block("RTDG_SLOTS(s, " + (padded ? str(tasks * stride) : str(tasks) + " * NE * NCOMP") + ")");
  w.line("const int pc = s / " + stride_text + ";");
  w.line("const int col = s - pc * " + stride_text + ";");
  w.line(std::string("if (") + (padded ? "col >= NE * NCOMP || " : "") + "k0 + col / NCOMP >= ke) continue;");
  write_column_task_cases(w, spec, sc, parts);
}

// The switch over the by-column tasks' cases (pc), inside the loop over tasks.
void write_column_task_cases(rtcg::SourceWriter& w, const KernelSpec& spec, const Scratch& sc,
                             const std::vector<ColumnPart>& parts) {
  const bool literals = spec.plan.operators == Operators::literals;
  const bool single = spec.scalar == fluxes::ScalarType::float32;
  const int Np = spec.element->Np;
  auto cases = w.block("switch (pc)");
  int task = 0;
  for (const ColumnPart& part : parts) {
    if (part.layered) {
      // Built once for the column's face shares (make_bernstein: about 15 ms at order 7); the
      // outlined faces' functions have their own.
      const BernsteinOperators b = lift_faces_outlined(*spec.element) ? BernsteinOperators{} : make_bernstein(*spec.element);
      for (int share = 0; share < spec.plan.face_threads; ++share) {
        auto body = w.block("case " + str(task++) + ":");
        write_layered_lift(w, spec, b, part, share, static_cast<long long>(sc.ncolp) * sc.ldz);
        w.line("break;");
      }
      continue;
    }
    for (int chunk = 0; chunk < sc.chunks; ++chunk, ++task) {
      const int i0 = chunk * Np / sc.chunks, i1 = (chunk + 1) * Np / sc.chunks, rows = i1 - i0;
      auto body = w.block("case " + str(task) + ":");
      w.line("// rows " + str(part.row0 + i0) + " .. " + str(part.row0 + i1 - 1) + " of " + part.output);
      w.line("real acc[" + str(rows) + "] = {};");
      for (const ColumnInput& input : part.inputs) {
        auto scope = w.block("");
        w.line("const real* x = " + input.buffer + " + col * " + input.ld + ";");
        // Unrolled, zero entries dropped (GiMMiK: a zero entry costs nothing); each entry a
        // literal, or the constant table's entry at an address fixed in the code.
        for (int j = 0; j < input.count; ++j) {
          std::string line = "{ const real v = x[" + str(j) + "];";
          bool any = false;
          for (int r = 0; r < rows; ++r) {
            const double value = input.value(i0 + r, j);
            const bool zero = single ? static_cast<float>(value) == 0.0f : value == 0.0;
            if (zero) continue;
            const std::string entry =
                literals ? real_literal(value, single)
                         : "rtdg_cops[" + str(input.base + (i0 + r) * input.count + j) + "]";
            line += " acc[" + str(r) + "] += " + entry + " * v;";
            any = true;
          }
          if (any) w.line(line + " }");
        }
      }
      w.line("real* y = " + part.output + " + col * " + part.ld + " + " + str(part.row0 + i0) + ";");
      w.line("#pragma unroll");
      w.line("for (int r = 0; r < " + str(rows) + "; ++r) y[r] = acc[r];");
      w.line("break;");
    }
  }
  w.line("default: break;");
}

void write_stage_body(rtcg::SourceWriter& w, const KernelSpec& spec, const Pieces& pieces, const Scratch& scratch,
                      const std::vector<std::string>& epilogue);

// Operators::stencil: the Bernstein lattice of the element, one column per coefficient n
// (coalesced for the threads of consecutive nodes): rows j * DIM + (k < j ? k : k - 1) the index
// of alpha(n) - e_k + e_j, row DIM (DIM + 1) alpha(n) packed 8 bits per component (alpha_0
// lowest). [DIM (DIM + 1) + 1][NP] ints, which write_stencil_table packs for the kernel.
//
// Where alpha_k = 0 that neighbour does not exist and its weight alpha_k is zero, so any node of
// the element will do: the table names the one that the nearest node with alpha_k > 0 reads in
// the same row. Consecutive threads take consecutive nodes, so that is mostly
// the address of a nearby lane of the same warp, a broadcast in shared memory. Naming n itself
// instead put a second address in the bank of n's own column: counted over the lattice at orders
// 4-7 (2-4 elements per block, 32-bank model), the node phase's shared reads of neighbour state
// took 1.4-1.7x the conflict-free wavefronts in float and 1.0-1.3x in double; with the nearby
// lane's address, 1.2-1.5x and 0.9-1.1x.
std::vector<int> stencil_table(const Element& element) {
  const BernsteinOperators b = make_bernstein(element);
  const int dim = b.dim, Np = b.Np, slots = dim * (dim + 1);
  std::map<std::array<int, 4>, int> index;
  for (int n = 0; n < Np; ++n) index[b.alpha[static_cast<std::size_t>(n)]] = n;
  std::vector<int> table(static_cast<std::size_t>((slots + 1) * Np), 0);
  for (int n = 0; n < Np; ++n) {
    const std::array<int, 4>& alpha = b.alpha[static_cast<std::size_t>(n)];
    int packed = 0;
    // Bytes suffice: scratch_of refuses stencil plans above max_stencil_nodes (so alpha_k <= 21).
    for (int k = 0; k <= dim; ++k) packed |= alpha[static_cast<std::size_t>(k)] << (8 * k);
    table[static_cast<std::size_t>(slots * Np + n)] = packed;
  }
  // alpha(m) - e_k + e_j, or -1 where alpha_k(m) = 0.
  auto neighbour = [&](int m, int j, int k) {
    std::array<int, 4> moved = b.alpha[static_cast<std::size_t>(m)];
    if (moved[static_cast<std::size_t>(k)] == 0) return -1;
    --moved[static_cast<std::size_t>(k)];
    ++moved[static_cast<std::size_t>(j)];
    return index.at(moved);
  };
  for (int j = 0; j <= dim; ++j)
    for (int k = 0; k <= dim; ++k) {
      if (k == j) continue;
      const int row = j * dim + (k < j ? k : k - 1);
      for (int n = 0; n < Np; ++n) {
        int read = neighbour(n, j, k);
        // Absent: the nearest node's read in this row (the lower one first at equal distance).
        for (int distance = 1; read < 0 && distance < Np; ++distance)
          for (const int m : {n - distance, n + distance})
            if (read < 0 && m >= 0 && m < Np) read = neighbour(m, j, k);
        table[static_cast<std::size_t>(row * Np + n)] = read < 0 ? n : read;
      }
    }
  return table;
}

// The stencil's nodes and packed multi-indices fit one byte each up to this many nodes (order 9
// on tetrahedra, 21 on triangles); the plan does not fit above it.
constexpr int max_stencil_nodes = 256;

// The table of stencil_table as 4 ints per node, so that a thread reads its node's in one 16-byte
// load instead of DIM (DIM + 1) + 1 loads of 4 bytes: word q holds rows 4q .. 4q + 3 (the
// neighbours' indices, 8 bits each, row 4q lowest; DIM (DIM + 1) <= 12 rows), word 3 the packed
// multi-index. In global memory: the threads of a warp read different entries, which constant
// memory would serialize. A warp's 32 loads of 16 bytes are 4 wavefronts of the L1 instead of 13
// of 4 bytes, and the L1/TEX pipe is what limits the stencil kernels (tuning.md).
void write_stencil_table(rtcg::SourceWriter& w, const Element& element) {
  const std::vector<int> table = stencil_table(element);
  const int slots = element.dim * (element.dim + 1), Np = element.Np;
  std::string values, words;
  for (int n = 0; n < Np; ++n) {
    unsigned word[4] = {0, 0, 0, static_cast<unsigned>(table[static_cast<std::size_t>(slots * Np + n)])};
    for (int x = 0; x < slots; ++x)
      word[x / 4] |= static_cast<unsigned>(table[static_cast<std::size_t>(x * Np + n)]) << (8 * (x % 4));
    std::string node;
    for (int q = 0; q < 4; ++q) node += (q ? "," : "") + std::to_string(static_cast<int>(word[q]));
    values += (n ? "," : "") + node;
    words += std::string(n ? "," : "") + "{" + node + "}";
  }
  w.line("// The Bernstein lattice for the derivative stencil (Operators::stencil): [NP] x 4 ints, the indices of");
  w.line("// the neighbours alpha - e_k + e_j 8 bits each in the order j DIM + (k < j ? k : k - 1) (words 0-2),");
  w.line("// the packed multi-index (word 3). RTDG_STENCIL_WORDS(node, out) reads a node's into int out[4].");
  w.line("#if RTCG_CUDA");
  w.line("__device__ const int4 rtdg_stencil[" + str(Np) + "] = {" + words + "};");
  w.line("#define RTDG_STENCIL_WORDS(node, out) do { const int4 rtdg_t = rtdg_stencil[node]; "
         "out[0] = rtdg_t.x; out[1] = rtdg_t.y; out[2] = rtdg_t.z; out[3] = rtdg_t.w; } while (0)");
  w.line("#else");
  w.line("static const int rtdg_stencil[" + str(4 * Np) + "] = {" + values + "};");
  w.line("#define RTDG_STENCIL_WORDS(node, out) do { for (int rtdg_q = 0; rtdg_q < 4; ++rtdg_q) "
         "out[rtdg_q] = rtdg_stencil[4 * (node) + rtdg_q]; } while (0)");
  w.line("#endif");
  w.line();
}

// rhs += LIFT sF at node i of element e: sZ, and with Plan::face_threads = F > 1 the F - 1 other
// shares' buffers after it.
void write_lift_sum(rtcg::SourceWriter& w, const KernelSpec& spec, const Scratch& sc) {
  std::string sum = "sZ[(e * NCOMP + c) * LDZ + i]";
  for (int share = 1; share < spec.plan.face_threads; ++share)
    sum += " + sZ[" + str(static_cast<long long>(share) * sc.ncolp * sc.ldz) + " + (e * NCOMP + c) * LDZ + i]";
  w.line("for (int c = 0; c < NCOMP; ++c) rhs[c] += " + sum + ";");
}

// Operators::stencil, in the node phase (node i of element e, se its state columns, g its
// dr_a/dx_d [DIM][DIM]): rhs = -sum_d d/dx_d F_d(u) with (D_a u_c)(i) from the lattice,
// d/dr_a = (d_(a+1) - d_0) / 2 with (d_j c)_alpha = sum_k alpha_k c_(alpha - e_k + e_j)
// (dg/bernstein.hpp): (DIM + 1)^2 multiply-adds per component instead of the up to 7 DIM entries
// of the sparse D rows, the neighbours' indices shared by the components. The flux is linear
// (Derivative::state), so d/dx_d F_d(u) = sum_a g[a][d] F_d(D_a u): one flux evaluation per
// reference direction a on the column D_a u, weighted into rhs (its zero entries skipped). That
// is the flops of transforming the gradient first (write_flux_of_gradient), but only the NCOMP
// values of one direction are live at a time instead of the NCOMP x DIM of the gradient: in
// double with prefetch_update = off, 72 registers at orders 4-6 instead of 96 (nvcc 13, sm_90).
void write_stencil_flux(rtcg::SourceWriter& w, const KernelSpec& spec, const Pieces& pieces) {
  const int dim = spec.element->dim;
  const int components = static_cast<int>(spec.law->state_components());
  const int slots = dim * (dim + 1);
  w.line("// D_a u by the Bernstein lattice stencil (operators = stencil), one direction a at a time.");
  w.line("int sw[4];");
  w.line("RTDG_STENCIL_WORDS(i, sw);");
  w.line("int nb[" + str(slots) + "];");
  w.line("for (int x = 0; x < " + str(slots) + "; ++x) nb[x] = (sw[x / 4] >> (8 * (x % 4))) & 255;");
  w.line("const int packed = sw[3];");
  w.line("real al[DIM + 1];");
  w.line("for (int k = 0; k <= DIM; ++k) al[k] = real((packed >> (8 * k)) & 255);");
  w.line("real d0[NCOMP];  // (d_0 u_c)(i)");
  w.line("for (int c = 0; c < NCOMP; ++c) { const real* u = se + c * LDQ; real v = al[0] * u[i]; "
         "for (int k = 1; k <= DIM; ++k) v += al[k] * u[nb[k - 1]]; d0[c] = v; }");
  w.line("for (int c = 0; c < NCOMP; ++c) rhs[c] = 0;");
  for (int a = 0; a < dim; ++a) {
    const std::string j = str(a + 1);
    auto direction = w.block("");
    w.line("real du[NCOMP];  // (D_" + str(a) + " u_c)(i)");
    w.line("for (int c = 0; c < NCOMP; ++c) { const real* u = se + c * LDQ; real v = -d0[c]; "
           "for (int k = 0; k <= DIM; ++k) v += al[k] * (k == " + j + " ? u[i] : u[nb[" + j + " * DIM + (k < " + j +
           " ? k : k - 1)]]); du[c] = real(0.5) * v; }");
    w.line("real Fa[NCOMP * DIM];");
    emit_piece(w, pieces.flux, "Fa", "va" + str(a) + "_", spec.scalar,
               [](std::size_t c) { return "du[" + std::to_string(c) + "]"; });
    for (int c = 0; c < components; ++c)
      for (int d = 0; d < dim; ++d) {
        const std::size_t out = static_cast<std::size_t>(c * dim + d);
        if (pieces.flux.dag.is_constant(pieces.flux.outputs[out], 0.0)) continue;
        w.line("rhs[" + str(c) + "] -= g[" + str(a * dim + d) + "] * Fa[" + str(static_cast<int>(out)) + "];");
      }
  }
}

// The products go through sY (and sZ), then one thread per node updates: tensor products and
// by-column products (operators constant or literals).
bool staged_products(const Plan& plan, const Scratch& sc) { return plan.products != Products::scalar || sc.by_column; }

// Whether each thread's update input (res or u0) is copied into registers with the prefetch
// (RTDG_PRE is then that copy on CUDA); otherwise the node phase loads it (write_update_loads).
bool update_prefetched(const Plan& plan, const Scratch& sc) {
  return plan.prefetch != Prefetch::off && staged_products(plan, sc) && plan.prefetch_update;
}

// The update inputs of node i of element k into upd[NCOMP], all loaded before the update's first
// store: LSERK reads res and writes it, and loads and stores in one loop would each wait for the
// store before (the compiler cannot tell the addresses apart), NCOMP memory latencies in a row.
void write_update_loads(rtcg::SourceWriter& w) {
  w.line("real upd[NCOMP];  // the update input (res or u0), loaded before any store");
  w.line("for (int c = 0; c < NCOMP; ++c) upd[c] = RTDG_PRE_SOURCE[QIDX(c, k, i)];");
}

// A stage kernel: the frame binding the block's elements (CUDA: a thread block; host: one
// iteration of an OpenMP loop over blocks), then the body. `epilogue` writes the update of
// component c of output node i (state index idx) from rhs[c] and the stage input se[c*LDQ + i].
void write_stage_kernel(rtcg::SourceWriter& w, const KernelSpec& spec, const Pieces& pieces, const Scratch& scratch,
                        const std::string& name, const std::string& parameters, const std::vector<std::string>& epilogue) {
  // The frame of plans with one team and operators in global memory is that of the first
  // fused kernels, word for word (the tuning database's timings are of that code).
  const bool teams = scratch.teams > 1, fragments = scratch.shared_fragments;
  const bool sequence = scratch.gpb > 1;
  // Groups a block computes: GPB per team.
  const std::string block_groups = teams ? "(TEAMS * GPB)" : "GPB";
  // The block's groups g_first .. g_end - 1 of the elements [kb, ke), block `index`.
  auto write_group_range = [&](const std::string& index) {
    w.line("  const int rtdg_groups = (ke - kb + NE - 1) / NE;");
    w.line("  const int g_first = " + index + " * " + block_groups + ";");
    w.line("  const int g_end = g_first + " + block_groups + " < rtdg_groups ? g_first + " + block_groups + " : rtdg_groups;");
  };
  // The fragments' copy into `ops` (the start of the block's shared memory), slots s = first,
  // first + step, ..; then rtdg_av and rtdg_al point at it.
  auto write_fragment_copy = [&](const std::string& ops, const std::string& first, const std::string& step) {
    w.line("  for (int s = " + first + "; s < AV_SIZE; " + step + ") " + ops + "[s] = AV[s];");
    w.line("  for (int s = " + first + "; s < AL_SIZE; " + step + ") " + ops + "[AV_SIZE + s] = AL[s];");
  };
  // Teams: launch bounds, since the block's threads must fit the SM's registers or it does
  // not launch at all; Plan::max_registers: the register cap (either before RTCG_KERNEL, which
  // the host backend finds kernels by).
  const bool bounds = teams || spec.plan.max_registers != 0;
  w.line((bounds ? "RTDG_BOUNDS " : "") + std::string("RTCG_KERNEL(") + name + ")(" + parameters + ")");
  w.line("{");
  w.line("#if RTCG_CUDA");
  w.line("  extern __shared__ double rtdg_smem[];");
  if (!teams && !fragments) {
    w.line("  real* scratch = reinterpret_cast<real*>(rtdg_smem);");
    w.line("  const int tid = static_cast<int>(threadIdx.x);");
  } else {
    if (teams) {
      w.line("  // Team `team` of the block: threads team * NTHREADS .., scratch from OFF_TEAMS + team * SCRATCH.");
      w.line("  const int team = static_cast<int>(threadIdx.x) / NTHREADS;");
      w.line("  const int tid = static_cast<int>(threadIdx.x) - team * NTHREADS;");
      w.line("  real* scratch = reinterpret_cast<real*>(rtdg_smem) + OFF_TEAMS + team * SCRATCH;");
    } else {
      w.line("  const int tid = static_cast<int>(threadIdx.x);");
      w.line("  real* scratch = reinterpret_cast<real*>(rtdg_smem) + OFF_TEAMS;");
    }
  }
  if (fragments) {
    w.line("  // The operators' fragments, copied once by the whole block, then read by every team.");
    w.line("  real* rtdg_ops = reinterpret_cast<real*>(rtdg_smem);");
    write_fragment_copy("rtdg_ops", "static_cast<int>(threadIdx.x)", "s += BLOCK_THREADS");
    w.line("  __syncthreads();");
    w.line("  const real* rtdg_av = rtdg_ops;");
    w.line("  const real* rtdg_al = rtdg_ops + AV_SIZE;");
  }
  if (sequence) {
    write_group_range("static_cast<int>(blockIdx.x)");
  } else if (teams) {
    w.line("  const int k0 = kb + (static_cast<int>(blockIdx.x) * TEAMS + team) * NE;");
  } else {
    w.line("  const int k0 = kb + static_cast<int>(blockIdx.x) * NE;");
  }
  w.line("#define RTDG_SLOTS(s, n) for (int s = tid; s < (n); s += NTHREADS)");
  if (teams) {
    // barrier.sync, not bar.sync: bar.sync is barrier.sync.aligned, which requires all threads
    // of a warp to reach it together, and after the divergent slot loops a warp's threads need
    // not be (sm_70 and newer schedule them independently). With bar.sync the pipelined plan of
    // 16-row tiles, 3 groups and 2 one-warp teams at double order 2 got rows 8-9 of its products
    // wrong in every run on the H200 (2026-11-29); the non-aligned barrier, __syncwarp before
    // bar.sync, or __syncthreads each gave the default plan's answer. (barrier.sync exists from
    // sm_70 on; CUDA 13 compiles for sm_75 and newer.)
    w.line("// A team's barrier: named barrier team + 1 over its NTHREADS threads (0 is the block's),");
    w.line("// which its threads may reach diverged (the slot loops), so not the aligned bar.sync.");
    w.line("#define RTDG_SYNC() asm volatile(\"barrier.sync %0, %1;\" :: \"r\"(team + 1), \"n\"(NTHREADS) : \"memory\")");
  } else {
    w.line("#define RTDG_SYNC() __syncthreads()");
  }
  w.line("#else");
  w.line("#pragma omp parallel for schedule(static)");
  if (sequence) {
    w.line("  for (int block = 0; block < ((ke - kb + NE - 1) / NE + " + block_groups + " - 1) / " + block_groups + "; ++block) {");
  } else if (teams) {
    w.line("  for (int block = 0; block < ((ke - kb + NE - 1) / NE + TEAMS - 1) / TEAMS; ++block) {");
  } else {
    w.line("  for (int block = 0; block < (ke - kb + NE - 1) / NE; ++block) {");
  }
  if (!teams && !fragments) {
    w.line("  real scratch[SCRATCH];");
  } else {
    w.line("  // The block's shared memory: the operators' fragments (if any), then one team's scratch at a");
    w.line("  // time (the host runs the teams in turn).");
    w.line("  real rtdg_block[OFF_TEAMS + SCRATCH];");
    w.line("  real* scratch = rtdg_block + OFF_TEAMS;");
  }
  if (fragments) {
    write_fragment_copy("rtdg_block", "0", "++s");
    w.line("  const real* rtdg_av = rtdg_block;");
    w.line("  const real* rtdg_al = rtdg_block + AV_SIZE;");
  }
  if (sequence) write_group_range("block");
  if (teams) w.line("  for (int team = 0; team < TEAMS; ++team) {");
  if (!sequence) {
    if (teams) w.line("  const int k0 = kb + (block * TEAMS + team) * NE;");
    else w.line("  const int k0 = kb + block * NE;");
  }
  w.line("#define RTDG_SLOTS(s, n) for (int s = 0; s < (n); ++s)");
  w.line("#define RTDG_SYNC()");
  w.line("#endif");
  w.indent();
  write_stage_body(w, spec, pieces, scratch, epilogue);
  w.dedent();
  w.line("#if RTCG_HOST");
  if (teams) w.line("  }");
  w.line("  }");
  w.line("#endif");
  w.line("}");
  w.line();
}

// rtdg_products: acc[nb] += A(tile row mt) x B(columns col0 + 8 nb ..), one warp (CUDA), and
// rtdg_store_tiles: the tiles into Y[col * LDY + row]. The host computes a whole product with
// rtdg_host_products. Written once per program, before the kernels. k_unroll: Plan::k_unroll;
// k_ahead: Plan::k_ahead (k_unroll > 0, FP64 tensor products); shared_fragments: the products
// read the fragments from shared memory (Operators::shared).
// Column tiles (Scratch::columns): rtdg_products and rtdg_store_tiles with the block's columns as
// the mma's rows. acc[m][nb] is the 16 x 8 tile of columns col0 + 16 nb .. by operator rows (mt +
// m) * 8 ..: lane g + 4 t holds rows 2 t, 2 t + 1 of columns g and g + 8 (d0, d1; d2, d3). The
// operator's 8 x 4 fragments are the mma's B as they are (lane g + 4 t: operator row g, k = t);
// its A is two column entries, columns g and g + 8 at k = t, from shared memory.
void write_column_tile_helpers(rtcg::SourceWriter& w, const std::string& k_loop, const std::string& ld, bool store_pairs,
                               bool single) {
  w.line("// d += a b on a 16 x 8 tile: a0, a1 columns g, g + 8 at k = t; b operator row g at k = t (m16n8k4");
  w.line("// on sm_90; below, two m8n8k4).");
  w.line("RTCG_DEVICE void rtdg_dmma_columns(double (&d)[4], double a0, double a1, double b) {");
  w.line("#if __CUDA_ARCH__ >= 900");
  w.line("  asm volatile(\"mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};\"");
  w.line("               : \"+d\"(d[0]), \"+d\"(d[1]), \"+d\"(d[2]), \"+d\"(d[3]) : \"d\"(a0), \"d\"(a1), \"d\"(b));");
  w.line("#else");
  w.line("  asm volatile(\"mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};\"");
  w.line("               : \"+d\"(d[0]), \"+d\"(d[1]) : \"d\"(a0), \"d\"(b));");
  w.line("  asm volatile(\"mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};\"");
  w.line("               : \"+d\"(d[2]), \"+d\"(d[3]) : \"d\"(a1), \"d\"(b));");
  w.line("#endif");
  w.line("}");
  w.line("// Operator row tiles mt .. mt + RTDG_MR - 1 (of TR; one past the last recomputes the last) by");
  w.line("// the 16-column tiles col0 + 16 nb (nb < TN): the operator fragments (TK per row tile from A, TKS");
  w.line("// per fragment row) as B, the columns B[col * TLDB + k] as A.");
  w.line("template <int TR, int TK, int TN, int TLDB, int TKS = TK>");
  w.line("RTCG_DEVICE void rtdg_products(rtdg_acc (&acc)[RTDG_MR][TN][RTDG_ACC], const real* RTCG_RESTRICT A, int mt, const real* B, int col0, int lane) {");
  w.line("  const real* a[RTDG_MR];");
  w.line("#pragma unroll");
  w.line("  for (int m = 0; m < RTDG_MR; ++m) a[m] = A + (mt + m < TR ? mt + m : TR - 1) * (TKS * 32) + lane;");
  w.line("  const real* b = B + (col0 + (lane >> 2)) * TLDB + (lane & 3);");
  w.line("#if RTDG_TF32");
  w.line("  // k in steps of 8 (m16n8k8.tf32): the columns' entries at k = t and t + 4 as A (columns g and");
  w.line("  // g + 8), operator fragments 2 k8 and 2 k8 + 1 (operator row g at k = t, t + 4) as B. Each split");
  w.line("  // into its TF32 rounding and the rounded rest; three products per tile, summed in float.");
  w.line(k_loop);
  w.line("  for (int k8 = 0; k8 < (TK + 1) / 2; ++k8) {");
  w.line("    const bool whole = 2 * k8 + 1 < TK;  // an odd TK's last step has no k = t + 4 half");
  w.line("    unsigned oh[RTDG_MR][2], ol[RTDG_MR][2];");
  w.line("#pragma unroll");
  w.line("    for (int m = 0; m < RTDG_MR; ++m) {");
  w.line("      rtdg_tf32_split(" + ld + "(a[m] + 2 * k8 * 32), oh[m][0], ol[m][0]);");
  w.line("      rtdg_tf32_split(whole ? " + ld + "(a[m] + (2 * k8 + 1) * 32) : 0.0f, oh[m][1], ol[m][1]);");
  w.line("    }");
  w.line("#pragma unroll");
  w.line("    for (int nb = 0; nb < TN; ++nb) {");
  w.line("      const real* bn = b + nb * 16 * TLDB + k8 * 8;");
  w.line("      unsigned ch[4], cl[4];");
  w.line("      rtdg_tf32_split(bn[0], ch[0], cl[0]);");
  w.line("      rtdg_tf32_split(bn[8 * TLDB], ch[1], cl[1]);");
  w.line("      rtdg_tf32_split(whole ? bn[4] : 0.0f, ch[2], cl[2]);");
  w.line("      rtdg_tf32_split(whole ? bn[8 * TLDB + 4] : 0.0f, ch[3], cl[3]);");
  w.line("#pragma unroll");
  w.line("      for (int m = 0; m < RTDG_MR; ++m) {");
  w.line("        rtdg_mma_tf32(acc[m][nb], cl, oh[m][0], oh[m][1]);");
  w.line("        rtdg_mma_tf32(acc[m][nb], ch, ol[m][0], ol[m][1]);");
  w.line("        rtdg_mma_tf32(acc[m][nb], ch, oh[m][0], oh[m][1]);");
  w.line("      }");
  w.line("    }");
  w.line("  }");
  w.line("#else");
  w.line(k_loop);
  w.line("  for (int kt = 0; kt < TK; ++kt) {");
  w.line("    double op[RTDG_MR];");
  w.line("#pragma unroll");
  w.line("    for (int m = 0; m < RTDG_MR; ++m) op[m] = " + ld + "(a[m] + kt * 32);");
  w.line("#pragma unroll");
  w.line("    for (int nb = 0; nb < TN; ++nb) {");
  w.line("      const real* bn = b + nb * 16 * TLDB + kt * 4;");
  w.line("      const double c0 = bn[0], c1 = bn[8 * TLDB];");
  w.line("#pragma unroll");
  w.line("      for (int m = 0; m < RTDG_MR; ++m) rtdg_dmma_columns(acc[m][nb], c0, c1, op[m]);");
  w.line("    }");
  w.line("  }");
  w.line("#endif");
  w.line("}");
  w.line("// The item's tiles of operator rows that exist (row tiles below TR) into Y[col * TLDY + row].");
  w.line("template <int TR, int TN, int TLDY>");
  w.line("RTCG_DEVICE void rtdg_store_tiles(const rtdg_acc (&acc)[RTDG_MR][TN][RTDG_ACC], real* Y, int mt, int col0, int lane) {");
  w.line("#pragma unroll");
  w.line("  for (int m = 0; m < RTDG_MR; ++m) {");
  w.line("    if (mt + m >= TR) break;");
  w.line("    const int row = (mt + m) * 8 + 2 * (lane & 3);");
  w.line("#pragma unroll");
  w.line("    for (int nb = 0; nb < TN; ++nb) {");
  w.line("      real* y0 = Y + (col0 + nb * 16 + (lane >> 2)) * TLDY + row;");
  w.line("      real* y1 = y0 + 8 * TLDY;");
  if (store_pairs) {
    w.line(std::string("      typedef ") + (single ? "float2" : "double2") + " pair;  // two reals, one store");
    w.line("      *reinterpret_cast<pair*>(y0) = pair{real(acc[m][nb][0]), real(acc[m][nb][1])};");
    w.line("      *reinterpret_cast<pair*>(y1) = pair{real(acc[m][nb][2]), real(acc[m][nb][3])};");
  } else {
    w.line("      y0[0] = real(acc[m][nb][0]);");
    w.line("      y0[1] = real(acc[m][nb][1]);");
    w.line("      y1[0] = real(acc[m][nb][2]);");
    w.line("      y1[1] = real(acc[m][nb][3]);");
  }
  w.line("    }");
  w.line("  }");
  w.line("}");
}

// Row tiles (Scratch::columns false): rtdg_products and rtdg_store_tiles with the operator's rows
// as the mma's rows (8-row, 16-row and TF32 tiles). k_loop: the k loops' unrolling pragma; ld:
// how a fragment entry is loaded (__ldg or rtdg_lds).
void write_row_tile_helpers(rtcg::SourceWriter& w, const std::string& k_loop, const std::string& ld, int k_unroll,
                            int k_ahead) {
  w.line("// Tile row mt covers operator rows mt * RTDG_TILE_ROWS ..: 8-row fragments 2 mt and 2 mt + 1");
  w.line("// (sm_90) or mt, TK fragments (k) each. A warp item takes tile rows mt .. mt + RTDG_MR - 1 of");
  w.line("// the TR the operator has; a row past the last recomputes the last (its tiles are not stored),");
  w.line("// so every column fragment read from B serves RTDG_MR tiles without a branch in the k loop.");
  w.line("// TKS: fragments per 8-row fragment row of A (more than TK when the product uses a window of");
  w.line("// A's k: A then points at the window's first fragment).");
  w.line("template <int TR, int TK, int TN, int TLDB, int TKS = TK>");
  w.line("RTCG_DEVICE void rtdg_products(rtdg_acc (&acc)[RTDG_MR][TN][RTDG_ACC], const real* RTCG_RESTRICT A, int mt, const real* B, int col0, int lane) {");
  w.line("  const real* a[RTDG_MR];");
  w.line("#pragma unroll");
  w.line("  for (int m = 0; m < RTDG_MR; ++m) a[m] = A + (mt + m < TR ? mt + m : TR - 1) * (RTDG_TILE_ROWS / 8) * (TKS * 32) + lane;");
  w.line("  const real* b = B + (col0 + (lane >> 2)) * TLDB + (lane & 3);");
  w.line("#if RTDG_TF32");
  w.line("  // k in steps of 8: 8-row fragments (2 mt, kt), (2 mt + 1, kt) for k = t and kt + 1 for k = t + 4.");
  w.line(k_loop);
  w.line("  for (int k8 = 0; k8 < (TK + 1) / 2; ++k8) {");
  w.line("    const bool whole = 2 * k8 + 1 < TK;  // an odd TK's last step has no k = t + 4 half");
  w.line("    unsigned ah[RTDG_MR][4], al[RTDG_MR][4];");
  w.line("#pragma unroll");
  w.line("    for (int m = 0; m < RTDG_MR; ++m) {");
  w.line("      rtdg_tf32_split(" + ld + "(a[m] + 2 * k8 * 32), ah[m][0], al[m][0]);");
  w.line("      rtdg_tf32_split(" + ld + "(a[m] + (TKS + 2 * k8) * 32), ah[m][1], al[m][1]);");
  w.line("      rtdg_tf32_split(whole ? " + ld + "(a[m] + (2 * k8 + 1) * 32) : 0.0f, ah[m][2], al[m][2]);");
  w.line("      rtdg_tf32_split(whole ? " + ld + "(a[m] + (TKS + 2 * k8 + 1) * 32) : 0.0f, ah[m][3], al[m][3]);");
  w.line("    }");
  w.line("#pragma unroll");
  w.line("    for (int nb = 0; nb < TN; ++nb) {");
  w.line("      const real* bn = b + nb * 8 * TLDB + k8 * 8;");
  w.line("      const float b0 = bn[0], b1 = whole ? bn[4] : 0.0f;");
  w.line("#pragma unroll");
  w.line("      for (int m = 0; m < RTDG_MR; ++m) rtdg_mma_3xtf32(acc[m][nb], ah[m], al[m], b0, b1);");
  w.line("    }");
  w.line("  }");
  w.line("#elif RTDG_TILE_ROWS == 16");
  // k from 0 with the next step's fragments loaded ahead (Plan::k_ahead = 1), for 16-row tiles
  // (two operator values per lane and step, m16n8k4) or 8-row ones (one, m8n8k4): they are in
  // flight while this step's mma run. The last step reloads its own (cached) instead of reading
  // past the operator.
  auto write_loop_ahead = [&w, &ld](const std::string& pragma, bool sixteen) {
    w.line("  // The next k step's fragments loaded while this step's mma run (Plan::k_ahead).");
    w.line(sixteen ? "  double na0[RTDG_MR], na1[RTDG_MR], nb[TN];" : "  double na0[RTDG_MR], nb[TN];");
    w.line("#pragma unroll");
    if (sixteen) {
      w.line("  for (int m = 0; m < RTDG_MR; ++m) {");
      w.line("    na0[m] = " + ld + "(a[m]);");
      w.line("    na1[m] = " + ld + "(a[m] + TKS * 32);");
      w.line("  }");
    } else {
      w.line("  for (int m = 0; m < RTDG_MR; ++m) na0[m] = " + ld + "(a[m]);");
    }
    w.line("#pragma unroll");
    w.line("  for (int n = 0; n < TN; ++n) nb[n] = b[n * 8 * TLDB];");
    w.line(pragma);
    w.line("  for (int kt = 0; kt < TK; ++kt) {");
    w.line(sixteen ? "    double a0[RTDG_MR], a1[RTDG_MR], bk[TN];" : "    double a0[RTDG_MR], bk[TN];");
    w.line("#pragma unroll");
    if (sixteen) {
      w.line("    for (int m = 0; m < RTDG_MR; ++m) {");
      w.line("      a0[m] = na0[m];");
      w.line("      a1[m] = na1[m];");
      w.line("    }");
    } else {
      w.line("    for (int m = 0; m < RTDG_MR; ++m) a0[m] = na0[m];");
    }
    w.line("#pragma unroll");
    w.line("    for (int n = 0; n < TN; ++n) bk[n] = nb[n];");
    w.line("    const int next = kt + 1 < TK ? kt + 1 : kt;");
    w.line("#pragma unroll");
    if (sixteen) {
      w.line("    for (int m = 0; m < RTDG_MR; ++m) {");
      w.line("      na0[m] = " + ld + "(a[m] + next * 32);");
      w.line("      na1[m] = " + ld + "(a[m] + (TKS + next) * 32);");
      w.line("    }");
    } else {
      w.line("    for (int m = 0; m < RTDG_MR; ++m) na0[m] = " + ld + "(a[m] + next * 32);");
    }
    w.line("#pragma unroll");
    w.line("    for (int n = 0; n < TN; ++n) nb[n] = b[n * 8 * TLDB + next * 4];");
    w.line("#pragma unroll");
    w.line("    for (int nb8 = 0; nb8 < TN; ++nb8)");
    w.line("#pragma unroll");
    w.line(sixteen ? "      for (int m = 0; m < RTDG_MR; ++m) rtdg_dmma(acc[m][nb8], a0[m], a1[m], bk[nb8]);"
                   : "      for (int m = 0; m < RTDG_MR; ++m) rtdg_dmma(acc[m][nb8], a0[m], 0.0, bk[nb8]);");
    w.line("  }");
  };
  // 16-row tiles, k in steps of 4 from `first` (m16n8k4).
  auto write_k4_loop = [&w, &ld](const std::string& pragma, const std::string& first) {
    w.line(pragma);
    w.line("  for (int kt = " + first + "; kt < TK; ++kt) {");
    w.line("    double a0[RTDG_MR], a1[RTDG_MR];");
    w.line("#pragma unroll");
    w.line("    for (int m = 0; m < RTDG_MR; ++m) {");
    w.line("      a0[m] = " + ld + "(a[m] + kt * 32);");
    w.line("      a1[m] = " + ld + "(a[m] + (TKS + kt) * 32);");
    w.line("    }");
    w.line("#pragma unroll");
    w.line("    for (int nb = 0; nb < TN; ++nb) {");
    w.line("      const double bk = b[nb * 8 * TLDB + kt * 4];");
    w.line("#pragma unroll");
    w.line("      for (int m = 0; m < RTDG_MR; ++m) rtdg_dmma(acc[m][nb], a0[m], a1[m], bk);");
    w.line("    }");
    w.line("  }");
  };
  if (k_unroll == 0) {
    w.line("  // k in steps of 16 (m16n8k16: a quarter of the dependent steps of m16n8k4, so a warp's few");
    w.line("  // accumulator chains wait less), the rest in steps of 4.");
    w.line("#pragma unroll");
    w.line("  for (int k16 = 0; k16 < TK / 4; ++k16) {");
    w.line("    double a16[RTDG_MR][8];");
    w.line("#pragma unroll");
    w.line("    for (int m = 0; m < RTDG_MR; ++m)");
    w.line("#pragma unroll");
    w.line("      for (int j = 0; j < 4; ++j) {");
    w.line("        a16[m][2 * j] = " + ld + "(a[m] + (4 * k16 + j) * 32);");
    w.line("        a16[m][2 * j + 1] = " + ld + "(a[m] + (TKS + 4 * k16 + j) * 32);");
    w.line("      }");
    w.line("#pragma unroll");
    w.line("    for (int nb = 0; nb < TN; ++nb) {");
    w.line("      const real* bn = b + nb * 8 * TLDB + k16 * 16;");
    w.line("      const double b0 = bn[0], b1 = bn[4], b2 = bn[8], b3 = bn[12];");
    w.line("#pragma unroll");
    w.line("      for (int m = 0; m < RTDG_MR; ++m) rtdg_dmma16(acc[m][nb], a16[m], b0, b1, b2, b3);");
    w.line("    }");
    w.line("  }");
    write_k4_loop("#pragma unroll", "TK / 4 * 4");
  } else {
    w.line("  // k in steps of 4 (m16n8k4: two operator values per lane and step, so few registers).");
    if (k_ahead > 0) write_loop_ahead(k_loop, true);
    else write_k4_loop(k_loop, "0");
  }
  w.line("#else");
  if (k_ahead > 0) {
    write_loop_ahead(k_loop, false);
  } else {
    w.line(k_loop);
    w.line("  for (int kt = 0; kt < TK; ++kt) {");
    w.line("    double a0[RTDG_MR];");
    w.line("#pragma unroll");
    w.line("    for (int m = 0; m < RTDG_MR; ++m) a0[m] = " + ld + "(a[m] + kt * 32);");
    w.line("#pragma unroll");
    w.line("    for (int nb = 0; nb < TN; ++nb) {");
    w.line("      const double bk = b[nb * 8 * TLDB + kt * 4];");
    w.line("#pragma unroll");
    w.line("      for (int m = 0; m < RTDG_MR; ++m) rtdg_dmma(acc[m][nb], a0[m], 0.0, bk);");
    w.line("    }");
    w.line("  }");
  }
  w.line("#endif");
  w.line("}");
  w.line("// The item's tiles of rows mt .. mt + RTDG_MR - 1 that exist (of TR) into Y[col * TLDY + row].");
  w.line("template <int TR, int TN, int TLDY>");
  w.line("RTCG_DEVICE void rtdg_store_tiles(const rtdg_acc (&acc)[RTDG_MR][TN][RTDG_ACC], real* Y, int mt, int col0, int lane) {");
  w.line("#pragma unroll");
  w.line("  for (int m = 0; m < RTDG_MR; ++m) {");
  w.line("    if (mt + m >= TR) break;");
  w.line("    const int row = (mt + m) * RTDG_TILE_ROWS + (lane >> 2);");
  w.line("    const int col = col0 + 2 * (lane & 3);");
  w.line("#pragma unroll");
  w.line("    for (int nb = 0; nb < TN; ++nb) {");
  w.line("      Y[(col + nb * 8) * TLDY + row] = real(acc[m][nb][0]);");
  w.line("      Y[(col + nb * 8 + 1) * TLDY + row] = real(acc[m][nb][1]);");
  w.line("#if RTDG_TILE_ROWS == 16");
  w.line("      Y[(col + nb * 8) * TLDY + row + 8] = real(acc[m][nb][2]);");
  w.line("      Y[(col + nb * 8 + 1) * TLDY + row + 8] = real(acc[m][nb][3]);");
  w.line("#endif");
  w.line("    }");
  w.line("  }");
  w.line("}");
}

void write_tensor_helpers(rtcg::SourceWriter& w, int k_unroll, int k_ahead, bool shared_fragments, bool columns,
                          bool store_pairs, bool single) {
  // The fragments' loads: through the read-only data cache, or from the block's copy in shared
  // memory (Operators::shared).
  const std::string ld = shared_fragments ? "rtdg_lds" : "__ldg";
  // The k loops' unrolling: all steps, or k_unroll at a time (the compiler then hoists fewer
  // operator loads ahead of their mma, so the kernel needs fewer registers).
  const std::string k_loop = k_unroll == 0 ? "#pragma unroll" : "#pragma unroll " + str(k_unroll);
  // The host backend compiles the program inside extern "C" (kernels are looked up by name);
  // templates need C++ linkage.
  w.line("extern \"C++\" {");
  w.line("#if RTCG_CUDA");
  w.line("#if __CUDA_ARCH__ < 800");
  w.line("#error \"tensor-core products (plan products = tensor) need compute capability 8.0 or newer\"");
  w.line("#endif");
  if (shared_fragments) {
    w.line("// An operator fragment's entry from the block's copy in shared memory.");
    w.line("RTCG_DEVICE real rtdg_lds(const real* p) { return *p; }");
  }
  w.line("// d += a b on one 8 x 8 (m8n8k4) or 16 x 8 (m16n8k4, sm_90: twice the rate on Hopper) tile;");
  w.line("// a1 is the second 8-row fragment's entry (m16n8k4 only).");
  w.line("RTCG_DEVICE void rtdg_dmma(double (&d)[RTDG_ACC], double a0, double a1, double b) {");
  w.line("#if RTDG_TILE_ROWS == 16");
  w.line("  asm volatile(\"mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};\"");
  w.line("               : \"+d\"(d[0]), \"+d\"(d[1]), \"+d\"(d[2]), \"+d\"(d[3]) : \"d\"(a0), \"d\"(a1), \"d\"(b));");
  w.line("#else");
  w.line("  (void)a1;");
  w.line("  asm volatile(\"mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};\"");
  w.line("               : \"+d\"(d[0]), \"+d\"(d[1]) : \"d\"(a0), \"d\"(b));");
  w.line("#endif");
  w.line("}");
  w.line("#if RTDG_TF32");
  w.line("// Products::tf32x3: x = hi + lo, hi = x rounded to TF32, lo = the rest rounded to TF32.");
  w.line("RTCG_DEVICE void rtdg_tf32_split(float x, unsigned& hi, unsigned& lo) {");
  w.line("  asm(\"cvt.rna.tf32.f32 %0, %1;\" : \"=r\"(hi) : \"f\"(x));");
  w.line("  const float rest = x - __uint_as_float(hi);");
  w.line("  asm(\"cvt.rna.tf32.f32 %0, %1;\" : \"=r\"(lo) : \"f\"(rest));");
  w.line("}");
  w.line("// d += a b on a 16 x 8 tile over 8 k (m16n8k8, TF32 in, float sums): a0, a1 rows g, g + 8 at");
  w.line("// k = t; a2, a3 the same at k = t + 4; b0, b1 at k = t, t + 4 (g = lane / 4, t = lane % 4).");
  w.line("RTCG_DEVICE void rtdg_mma_tf32(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {");
  w.line("  asm(\"mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, \"");
  w.line("      \"{%0, %1, %2, %3};\"");
  w.line("      : \"+f\"(d[0]), \"+f\"(d[1]), \"+f\"(d[2]), \"+f\"(d[3])");
  w.line("      : \"r\"(a[0]), \"r\"(a[1]), \"r\"(a[2]), \"r\"(a[3]), \"r\"(b0), \"r\"(b1));");
  w.line("}");
  w.line("// d += a b in three TF32 products, the small ones first.");
  w.line("RTCG_DEVICE void rtdg_mma_3xtf32(float (&d)[4], const unsigned (&ah)[4], const unsigned (&al)[4], float b0, float b1) {");
  w.line("  unsigned bh0, bl0, bh1, bl1;");
  w.line("  rtdg_tf32_split(b0, bh0, bl0);");
  w.line("  rtdg_tf32_split(b1, bh1, bl1);");
  w.line("  rtdg_mma_tf32(d, al, bh0, bh1);");
  w.line("  rtdg_mma_tf32(d, ah, bl0, bl1);");
  w.line("  rtdg_mma_tf32(d, ah, bh0, bh1);");
  w.line("}");
  w.line("#endif");
  w.line("#if RTDG_TILE_ROWS == 16");
  w.line("// d += a b on a 16 x 8 tile over 16 k (m16n8k16): a[2j], a[2j+1] rows g, g + 8 at k = t + 4j;");
  w.line("// b_j at k = t + 4j (g = lane / 4, t = lane % 4).");
  w.line("RTCG_DEVICE void rtdg_dmma16(double (&d)[4], const double (&a)[8], double b0, double b1, double b2, double b3) {");
  w.line("  asm volatile(\"mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5, %6, %7, %8, %9, %10, %11}, \"");
  w.line("               \"{%12, %13, %14, %15}, {%0, %1, %2, %3};\"");
  w.line("               : \"+d\"(d[0]), \"+d\"(d[1]), \"+d\"(d[2]), \"+d\"(d[3])");
  w.line("               : \"d\"(a[0]), \"d\"(a[1]), \"d\"(a[2]), \"d\"(a[3]), \"d\"(a[4]), \"d\"(a[5]), \"d\"(a[6]), \"d\"(a[7]),");
  w.line("                 \"d\"(b0), \"d\"(b1), \"d\"(b2), \"d\"(b3));");
  w.line("}");
  w.line("#endif");
  if (columns) write_column_tile_helpers(w, k_loop, ld, store_pairs, single);
  else write_row_tile_helpers(w, k_loop, ld, k_unroll, k_ahead);
  w.line("#else");
  w.line("// sum_k A(row, k) B[col * TLDB + k] over TK * 4 k, A in fragment order with TKS fragments per");
  w.line("// fragment row (A points at the first one used), in double whatever `real` is.");
  w.line("template <int TK, int TKS, int TLDB>");
  w.line("static inline double rtdg_host_dot(const real* A, int row, const real* B, int col) {");
  w.line("  double sum = 0;");
  w.line("  for (int k = 0; k < TK * 4; ++k) sum += double(A[((row / 8) * TKS + k / 4) * 32 + 4 * (row % 8) + k % 4]) * double(B[col * TLDB + k]);");
  w.line("  return sum;");
  w.line("}");
  w.line("// Y[col * TLDY + row] = A B + A2 B2 (the second product only when TK2 > 0) over TM * 8 rows. A");
  w.line("// column is written once it is computed, columns in order: Y may lie over B when TLDY <= TLDB");
  w.line("// (the CUDA alias_y).");
  w.line("template <int TM, int TK, int TLDB, int TK2, int TLDB2, int TLDY>");
  w.line("static inline void rtdg_host_products(const real* A, const real* B, const real* A2, const real* B2, real* Y) {");
  w.line("  for (int col = 0; col < NCOLP; ++col) {");
  w.line("    double column[TM * 8];");
  w.line("    for (int row = 0; row < TM * 8; ++row)");
  w.line("      column[row] = rtdg_host_dot<TK, TK, TLDB>(A, row, B, col) + rtdg_host_dot<TK2, TK2, TLDB2>(A2, row, B2, col);");
  w.line("    for (int row = 0; row < TM * 8; ++row) Y[col * TLDY + row] = real(column[row]);");
  w.line("  }");
  w.line("}");
  w.line("// acc[col * TM * 8 + row] += A B over TM * 8 rows (A as for rtdg_host_dot).");
  w.line("template <int TM, int TK, int TKS, int TLDB>");
  w.line("static inline void rtdg_host_accumulate(const real* A, const real* B, double* acc) {");
  w.line("  for (int col = 0; col < NCOLP; ++col)");
  w.line("    for (int row = 0; row < TM * 8; ++row) acc[col * TM * 8 + row] += rtdg_host_dot<TK, TKS, TLDB>(A, row, B, col);");
  w.line("}");
  w.line("#endif");
  w.line("}  // extern \"C++\"");
  w.line();
}

// Where the products read an operator's fragments: the kernel argument (global memory), or
// the block's copy in shared memory (Operators::shared).
std::string fragments_of(const Scratch& sc, const std::string& argument) {
  if (!sc.shared_fragments) return argument;
  return argument == "AV" ? "rtdg_av" : "rtdg_al";
}

// CUDA: the loop over this warp's items whose tiles it holds in registers (acc[j], RTDG_IPW of
// them), with the item's first tile row mt and first column col0 bound for `body`. An item is
// RTDG_MR tile rows by NB column tiles; `items` counts them (RTDG_ROW_GROUPS(rows) * NG).
void write_held_items(rtcg::SourceWriter& w, const Scratch& sc, const std::string& items,
                      const std::function<void()>& body) {
  w.line("#pragma unroll");
  auto loop = w.block("for (int j = 0; j < RTDG_IPW; ++j)");
  w.line("const int item = (tid >> 5) + j * (NTHREADS / 32);");
  w.line("if (item >= " + items + ") continue;");
  w.line("const int mt = item / " + str(sc.ng) + " * RTDG_MR;");
  w.line("const int col0 = (item % " + str(sc.ng) + ") * " + str(sc.col_step) + ";");
  body();
}

// The tensor products of a block (scratch filled, after a sync): sY (and sZ) for every column.
void write_tensor_products(rtcg::SourceWriter& w, const KernelSpec& spec, const Scratch& sc) {
  const std::string av = fragments_of(sc, "AV"), al = fragments_of(sc, "AL");
  const Element& element = *spec.element;
  const int Np = element.Np, Nfn = element.Nfaces * element.Nfp, dim = element.dim;
  const bool by_state = spec.plan.derivative == Derivative::state;
  // Tile rows: 8-row counts for the host loops; the CUDA item loops count RTDG_TILE_ROWS-row
  // tiles (RTDG_ROW_TILES).
  const int mtl = (Np + 7) / 8, ktl = (Nfn + 3) / 4;
  const int mtv = by_state ? (dim * Np + 7) / 8 : mtl;
  // Operator row tiles (TR of rtdg_products) and the CUDA items' row groups of RTDG_MR tiles.
  const std::string tiles_l = "RTDG_ROW_TILES(" + str(Np) + ")";
  const std::string tiles_v = by_state ? "RTDG_ROW_TILES(" + str(dim * Np) + ")" : tiles_l;
  const std::string groups_l = "RTDG_ROW_GROUPS(" + str(Np) + ")";
  const std::string groups_v = by_state ? "RTDG_ROW_GROUPS(" + str(dim * Np) + ")" : groups_l;
  const int ktv = by_state ? (Np + 3) / 4 : (dim * Np + 3) / 4;
  const std::string nb = str(sc.nb), ng = str(sc.ng);
  w.line("#if RTCG_CUDA");
  {
    auto scope = w.block("");
    w.line("const int lane = tid & 31;");
    auto item = [&](const std::string& groups, const std::function<void()>& body) {
      auto loop = w.block("for (int item = tid >> 5; item < " + groups + " * " + ng + "; item += NTHREADS / 32)");
      w.line("const int mt = item / " + ng + " * RTDG_MR;");
      w.line("const int col0 = (item % " + ng + ") * " + str(sc.col_step) + ";");
      w.line("rtdg_acc acc[RTDG_MR][" + nb + "][RTDG_ACC] = {};");
      body();
    };
    if (by_state) {
      w.line("// sY = [D_r; D_s; D_t] sq, then sZ = LIFT sF.");
      item(groups_v, [&] {
        w.line("rtdg_products<" + tiles_v + ", " + str(ktv) + ", " + nb + ", LDQ>(acc, " + av + ", mt, sq, col0, lane);");
        w.line("rtdg_store_tiles<" + tiles_v + ", " + nb + ", LDY>(acc, sY, mt, col0, lane);");
      });
      item(groups_l, [&] {
        w.line("rtdg_products<" + tiles_l + ", " + str(ktl) + ", " + nb + ", LDF>(acc, " + al + ", mt, sF, col0, lane);");
        w.line("rtdg_store_tiles<" + tiles_l + ", " + nb + ", LDZ>(acc, sZ, mt, col0, lane);");
      });
    } else if (sc.alias_y) {
      w.line("// sY = [-D_r, -D_s, -D_t] sG + LIFT sF, sY over sG: every warp's tiles stay in registers");
      w.line("// until all warps have read sG and sF.");
      const std::string items = groups_l + " * " + ng;
      w.line("rtdg_acc acc[RTDG_IPW][RTDG_MR][" + nb + "][RTDG_ACC] = {};");
      write_held_items(w, sc, items, [&] {
        w.line("rtdg_products<" + tiles_l + ", " + str(ktv) + ", " + nb + ", LDG>(acc[j], " + av + ", mt, sG, col0, lane);");
        w.line("rtdg_products<" + tiles_l + ", " + str(ktl) + ", " + nb + ", LDF>(acc[j], " + al + ", mt, sF, col0, lane);");
      });
      w.line(sc.teams > 1 ? "RTDG_SYNC();" : "__syncthreads();");
      write_held_items(w, sc, items,
                       [&] { w.line("rtdg_store_tiles<" + tiles_l + ", " + nb + ", LDY>(acc[j], sY, mt, col0, lane);"); });
    } else {
      w.line("// sY = [-D_r, -D_s, -D_t] sG + LIFT sF.");
      item(groups_l, [&] {
        w.line("rtdg_products<" + tiles_l + ", " + str(ktv) + ", " + nb + ", LDG>(acc, " + av + ", mt, sG, col0, lane);");
        w.line("rtdg_products<" + tiles_l + ", " + str(ktl) + ", " + nb + ", LDF>(acc, " + al + ", mt, sF, col0, lane);");
        w.line("rtdg_store_tiles<" + tiles_l + ", " + nb + ", LDY>(acc, sY, mt, col0, lane);");
      });
    }
  }
  w.line("#else");
  if (by_state) {
    w.line("rtdg_host_products<" + str(mtv) + ", " + str(ktv) + ", LDQ, 0, 1, LDY>(" + av + ", sq, " + av + ", sq, sY);");
    w.line("rtdg_host_products<" + str(mtl) + ", " + str(ktl) + ", LDF, 0, 1, LDZ>(" + al + ", sF, " + al + ", sF, sZ);");
  } else {
    w.line("rtdg_host_products<" + str(mtl) + ", " + str(ktv) + ", LDG, " + str(ktl) + ", LDF, LDY>(" + av + ", sG, " + al + ", sF, sY);");
  }
  w.line("#endif");
  w.line("RTDG_SYNC();");
}

// Directions::split (flux derivative, sF filled, after a sync): for a = 0 .. DIM - 1, G_a of
// every node into sG's window of direction a, then the tiles += -D_a G_a (+ LIFT sF when a =
// 0) in registers; finally the tiles into sY (over sF and sG).
void write_split_products(rtcg::SourceWriter& w, const KernelSpec& spec, const Pieces& pieces, const Scratch& sc) {
  const std::string av = fragments_of(sc, "AV"), al = fragments_of(sc, "AL");
  const Element& element = *spec.element;
  const int Np = element.Np, Nfn = element.Nfaces * element.Nfp, dim = element.dim;
  const int components = static_cast<int>(spec.law->state_components());
  const int mtl = (Np + 7) / 8, ktl = (Nfn + 3) / 4, ktv = (dim * Np + 3) / 4;
  const std::string nb = str(sc.nb), ng = str(sc.ng), mtl_rows = str(mtl * 8);
  const std::string tiles = "RTDG_ROW_TILES(" + str(Np) + ")";
  const std::string items = "RTDG_ROW_GROUPS(" + str(Np) + ") * " + ng;
  w.line("// Directions split: per direction a, G_a into sG at row k - 4 KT0 (k = a NP + j, the column");
  w.line("// index of [-D_r, -D_s, -D_t]; window rows of the other directions zero), then the tiles +=");
  w.line("// -D_a G_a over fragments KT0 .. KT1 - 1 (+ LIFT sF in the first pass), held in registers.");
  w.line("#if RTCG_CUDA");
  w.line("const int lane = tid & 31;");
  w.line("rtdg_acc acc[RTDG_IPW][RTDG_MR][" + nb + "][RTDG_ACC] = {};");
  w.line("#else");
  w.line("double hacc[NCOLP * " + mtl_rows + "] = {};");
  w.line("#endif");
  for (int a = 0; a < dim; ++a) {
    const int kt0 = sc.kt0[a], window = 4 * (sc.kt1[a] - sc.kt0[a]), shift = 4 * kt0 - a * Np;
    const std::string kt = str(sc.kt1[a] - sc.kt0[a]);
    {
      auto rows = w.block("RTDG_SLOTS(s, NE * " + str(window) + ")");
      w.line("const int e = s / " + str(window) + ";");
      w.line("const int r = s % " + str(window) + ";");
      w.line("const int k = k0 + e;");
      w.line("if (k >= ke) continue;");
      w.line("const int i = r + (" + str(shift) + ");");
      {
        auto outside = w.block("if (i < 0 || i >= NP)");
        w.line("for (int c = 0; c < NCOMP; ++c) sG[(e * NCOMP + c) * LDG + r] = real(0);");
        w.line("continue;");
      }
      w.line("real u[NCOMP];");
      for (int c = 0; c < components; ++c) w.line("u[" + str(c) + "] = sq[(e * NCOMP + " + str(c) + ") * LDQ + i];");
      if (reads_input(pieces.flux, InputKind::coordinate)) load_coordinates(w, dim, "i");
      write_folded_flux(
          w, spec, pieces, [dim](int ca) { return "sG[(e * NCOMP + " + std::to_string(ca / dim) + ") * LDG + r]"; }, a,
          geometry_reads(spec.plan));
    }
    w.line("RTDG_SYNC();");
    w.line("#if RTCG_CUDA");
    write_held_items(w, sc, items, [&] {
      w.line("rtdg_products<" + tiles + ", " + kt + ", " + nb + ", LDG, " + str(ktv) + ">(acc[j], " + av + " + " + str(kt0 * 32) +
             ", mt, sG, col0, lane);");
      if (a == 0)
        w.line("rtdg_products<" + tiles + ", " + str(ktl) + ", " + nb + ", LDF>(acc[j], " + al + ", mt, sF, col0, lane);");
    });
    w.line("#else");
    w.line("rtdg_host_accumulate<" + str(mtl) + ", " + kt + ", " + str(ktv) + ", LDG>(" + av + " + " + str(kt0 * 32) +
           ", sG, hacc);");
    if (a == 0) w.line("rtdg_host_accumulate<" + str(mtl) + ", " + str(ktl) + ", " + str(ktl) + ", LDF>(" + al + ", sF, hacc);");
    w.line("#endif");
    w.line("RTDG_SYNC();");
  }
  w.line("#if RTCG_CUDA");
  write_held_items(w, sc, items,
                   [&] { w.line("rtdg_store_tiles<" + tiles + ", " + nb + ", LDY>(acc[j], sY, mt, col0, lane);"); });
  w.line("#else");
  w.line("for (int col = 0; col < NCOLP; ++col) for (int row = 0; row < " + mtl_rows + "; ++row) sY[col * LDY + row] = real(hacc[col * " +
         mtl_rows + " + row]);");
  w.line("#endif");
  w.line("RTDG_SYNC();");
}

// The rest of an output node's right-hand side (the source) and its update; rhs[NCOMP] holds
// -div F + LIFT (...) for node i of element e (k = k0 + e), se the element's stage input.
void write_node_update(rtcg::SourceWriter& w, const KernelSpec& spec, const Pieces& pieces,
                       const std::vector<std::string>& epilogue) {
  const int dim = spec.element->dim;
  if (pieces.has_source) {
    w.line("real u[NCOMP];");
    w.line("for (int c = 0; c < NCOMP; ++c) u[c] = se[c * LDQ + i];");
    if (reads_input(pieces.source, InputKind::coordinate)) load_coordinates(w, dim, "i");
    w.line("real S[NCOMP];");
    emit_piece(w, pieces.source, "S", "vs", spec.scalar);
    w.line("for (int c = 0; c < NCOMP; ++c) rhs[c] += S[c];");
  }
  auto c_loop = w.block("for (int c = 0; c < NCOMP; ++c)");
  w.line("const int idx = QIDX(c, k, i);");
  for (const std::string& line : epilogue) w.line(line);
}

// div F(u) = sum_d F_d(du/dx_d) for a linear F (Derivative::state): the flux of the d-th
// physical derivative, component d, subtracted from rhs. `du(c, a)` is (D_a u_c) at the node;
// gx[c*DIM + d] = du_c/dx_d = sum_a (dr_a/dx_d) du(c, a).
void write_flux_of_gradient(rtcg::SourceWriter& w, const KernelSpec& spec, const Pieces& pieces,
                            const std::string& du_c_a) {
  const int dim = spec.element->dim;
  const int components = static_cast<int>(spec.law->state_components());
  w.line("real gx[NCOMP * DIM];");
  w.line("for (int c = 0; c < NCOMP; ++c) for (int d = 0; d < DIM; ++d) { real v = 0; for (int a = 0; a < DIM; ++a) v += g[a * DIM + d] * " +
         du_c_a + "; gx[c * DIM + d] = v; }");
  w.line("for (int c = 0; c < NCOMP; ++c) rhs[c] = 0;");
  for (int d = 0; d < dim; ++d) {
    auto direction = w.block("");
    w.line("real Fd[NCOMP * DIM];");
    emit_piece(w, pieces.flux, "Fd", "vd" + str(d) + "_", spec.scalar,
               [d, dim](std::size_t c) { return "gx[" + std::to_string(static_cast<int>(c) * dim + d) + "]"; });
    for (int c = 0; c < components; ++c) w.line("rhs[" + str(c) + "] -= Fd[" + str(c * dim + d) + "];");
  }
}

// Zeros in the padding of a [NCOLP][ld] scratch buffer: rows `rows` .. ld - 1 of every column,
// then (`column_loop`) rows 0 .. rows - 1 of the columns from `first_column` (an expression) on.
// No row loop where there are no padding rows: it would divide by zero.
void write_zero_padding(rtcg::SourceWriter& w, const std::string& buffer, const std::string& ld, int ld_value,
                        const std::string& rows, int rows_value, const std::string& first_column, bool column_loop) {
  if (ld_value > rows_value) {
    const std::string pad = "(" + ld + " - " + rows + ")";
    w.line("RTDG_SLOTS(s, NCOLP * " + pad + ") " + buffer + "[s / " + pad + " * " + ld + " + " + rows + " + s % " + pad +
           "] = real(0);");
  }
  if (column_loop)
    w.line("RTDG_SLOTS(s, (NCOLP - " + first_column + ") * " + rows + ") " + buffer + "[(" + first_column + " + s / " + rows +
           ") * " + ld + " + s % " + rows + "] = real(0);");
}

// How many consecutive reals of the state one async copy moves (RTDG_ASYNC_COPY_STATE, 16
// bytes at most): element-major state puts a block's NE elements in one contiguous run of NE x
// NCOMP x NP reals, and a copy of `width` of them lands in one column of sq when NP and LDQ are
// multiples of `width` (then every copy's source and destination are width x real_bytes
// aligned, given a 16-byte aligned state array: the solver's arrays are 256-byte aligned).
// 1: one real per copy, any layout. (Measured on the H100, 2026-11-26, two reals per copy
// against one: the best plan 1-4 % faster at orders 2-3, the median over 35-36 plans 0.7-2 %.)
int state_copy_width(const KernelSpec& spec, const Scratch& sc) {
  if (spec.plan.layout != Layout::element_major) return 1;
  const int stride = node_stride(spec);  // Np, or Np padded (Plan::align)
  if (stride > sc.ldq) return 1;         // a column of the copy must fit in one of sq
  int width = spec.scalar == fluxes::ScalarType::float32 ? 4 : 2;
  while (width > 1 && (stride % width != 0 || sc.ldq % width != 0)) width /= 2;
  return width;
}

// The state of the NE elements from element `base` on into `state` ([NCOLP][LDQ], padding zero);
// async: as RTDG_ASYNC_COPY, or with `width` > 1 (state_copy_width) `width` reals at a time
// (RTDG_ASYNC_COPY_STATE), then the padding. With a padded node stride (Plan::align) the
// copies move whole columns of NPS reals, whose last NPS - NP are the state's zero padding, so
// only the rows from NPS on are zeroed here.
void write_state_loads(rtcg::SourceWriter& w, const std::string& base, const std::string& state, bool async,
                       const KernelSpec& spec, const Scratch& sc) {
  const int width = async ? state_copy_width(spec, sc) : 1;
  if (width > 1) {
    const int stride = node_stride(spec);
    const std::string S = stride == spec.element->Np ? "NP" : "NPS";
    const int columns = sc.ne * static_cast<int>(spec.law->state_components());
    const std::string W = str(width);
    {
      auto load = w.block("RTDG_SLOTS(s, NE * NCOMP * " + S + " / " + W + ")");
      w.line("const int col = s / (" + S + " / " + W + ");");
      w.line("const int i = " + W + " * s - col * " + S + ";");
      w.line("if (" + base + " + col / NCOMP < ke) RTDG_ASYNC_COPY_STATE(" + state + " + col * LDQ + i, q + (" + base +
             ") * (NCOMP * " + S + ") + " + W + " * s);");
      w.line("else for (int r = 0; r < " + W + "; ++r) " + state + "[col * LDQ + i + r] = real(0);");
    }
    write_zero_padding(w, state, "LDQ", sc.ldq, S, stride, "NE * NCOMP", sc.ncolp > columns);
    return;
  }
  auto load = w.block("RTDG_SLOTS(s, NCOLP * LDQ)");
  w.line("const int col = s / LDQ;");
  w.line("const int i = s % LDQ;");
  w.line("const int e = col / NCOMP;");
  w.line("const int c = col % NCOMP;");
  w.line("const int k = " + base + " + e;");
  if (async) {
    w.line("if (e < NE && i < NP && k < ke) RTDG_ASYNC_COPY(" + state + " + s, q + (QIDX(c, k, i)));");
    w.line("else " + state + "[s] = real(0);");
  } else {
    w.line(state + "[s] = e < NE && i < NP && k < ke ? q[QIDX(c, k, i)] : real(0);");
  }
}

// A group's global loads (the file comment's load phase): the state of the NE elements from
// element `base` on into `state`, and with prefetch the neighbours' traces of interior faces
// into `traces` (a [NCOL][LDF] buffer). async: issued as RTDG_ASYNC_COPY (cp.async on CUDA),
// complete after RTDG_ASYNC_WAIT.
void write_group_loads(rtcg::SourceWriter& w, const KernelSpec& spec, const Scratch& sc, const std::string& base,
                       const std::string& state, const std::string& traces, bool async) {
  const int components = static_cast<int>(spec.law->state_components());
  w.line("// The block's state: NP consecutive values per (element, component) in either layout.");
  write_state_loads(w, base, state, async, spec, sc);
  if (spec.plan.prefetch == Prefetch::off) return;
  if (async) {
    w.line("// The neighbours' traces of interior faces, for the face-flux phase (the same slot, so the");
    w.line("// same thread, reads them there).");
  } else {
    w.line("// Prefetch: the neighbours' traces of interior faces go into sF now, with the state's loads;");
    w.line("// the face-flux phase (the same slot, so the same thread) reads them there and writes");
    w.line("// the flux over them.");
  }
  auto gather = w.block("RTDG_SLOTS(s, NE * NFN)");
  w.line("const int e = s / NFN;");
  w.line("const int m = s % NFN;");
  w.line("const int k = " + base + " + e;");
  w.line("if (k >= ke || bcode[k * NFACES + m / NFP] != 0) continue;");
  w.line("const int p = RTDG_VMAPP(k, m / NFP, m, NP);");
  w.line("const int kP = p / NP;");
  w.line("const int iP = p - kP * NP;");
  for (int c = 0; c < components; ++c) {
    const std::string slot = "(e * NCOMP + " + str(c) + ") * LDF + m";
    if (async) w.line("RTDG_ASYNC_COPY(" + traces + " + " + slot + ", q + (QIDX(" + str(c) + ", kP, iP)));");
    else w.line(traces + "[" + slot + "] = q[QIDX(" + str(c) + ", kP, iP)];");
  }
}

// GeometryPlace::shared: the block's face geometry and dr_a/dx_d ([K][NFACES][DIM + 1] and [K][DIM *
// DIM], so the block's part is one contiguous run of each) into sFgeo and sDrdx, one slot per
// real. `one_pass`: the block has a thread for every slot, so each thread copies at most one
// (no loop: with two slot loops NVRTC kept the order-4 split plan at 64 registers, not 56).
void write_geometry_copies(rtcg::SourceWriter& w, bool one_pass) {
  const std::string faces = "NE * NFACES * (DIM + 1)";
  auto slot = w.block(one_pass ? "if (const int s = tid; s < " + faces + " + NE * DIM * DIM)"
                                : "RTDG_SLOTS(s, " + faces + " + NE * DIM * DIM)");
  {
    auto face = w.block("if (s < " + faces + ")");
    w.line("if (k0 + s / (NFACES * (DIM + 1)) < ke) RTDG_ASYNC_COPY(sFgeo + s, fgeo + k0 * (NFACES * (DIM + 1)) + s);");
  }
  auto metric = w.block("else");
  w.line("const int r = s - " + faces + ";");
  w.line("if (k0 + r / (DIM * DIM) < ke) RTDG_ASYNC_COPY(sDrdx + r, drdx + k0 * (DIM * DIM) + r);");
}

// Prefetch::async, one group (k0 on): on CUDA each thread first loads the face codes and vmapP
// entries of all its face-node slots (independent loads, one latency), then issues the state's
// copies, `between` (the res prefetch) and the geometry's copies, then, the codes and entries
// arrived, the face codes into sCode and every neighbour copy; the host copies as
// write_group_loads does. Complete after RTDG_ASYNC_COMMIT and RTDG_ASYNC_WAIT.
void write_async_group_loads(rtcg::SourceWriter& w, const KernelSpec& spec, const Scratch& sc,
                             const std::function<void()>& between) {
  const int components = static_cast<int>(spec.law->state_components());
  const Element& element = *spec.element;
  const bool one_pass = sc.threads >= sc.ne * (element.Nfaces * (element.dim + 1) + element.dim * element.dim);
  const bool shared_geometry = spec.plan.geometry == GeometryPlace::shared;
  w.line("#if RTCG_CUDA");
  {
    // No scope of its own: `between` declares what the kernel uses later (pre[]).
    w.line(std::string("// The face codes and vmapP entries of this thread's face-node slots, then the state's") +
           (shared_geometry ? " and the geometry's" : "") + " copies,");
    w.line("// then the neighbours' traces of interior faces into sF for the face-flux phase (the same");
    w.line("// slot, so the same thread, reads them there).");
    w.line("constexpr int slots = (NE * NFN + NTHREADS - 1) / NTHREADS;");
    w.line("int gp[slots];  // vmapP of the slot's face node");
    w.line("int gc[slots];  // the code of the slot's face");
    {
      w.line("#pragma unroll");
      auto slot = w.block("for (int j = 0; j < slots; ++j)");
      w.line("const int s = tid + j * NTHREADS;");
      w.line("const int e = s / NFN;");
      w.line("const int m = s - e * NFN;");
      w.line("const int k = k0 + e;");
      w.line("gp[j] = 0;");
      w.line("gc[j] = 0;");
      auto valid = w.block("if (s < NE * NFN && k < ke)");
      w.line("gc[j] = bcode[k * NFACES + m / NFP];");
      w.line("gp[j] = RTDG_VMAPP(k, m / NFP, m, NP);");
    }
    write_state_loads(w, "k0", "sq", true, spec, sc);
    between();
    if (shared_geometry) write_geometry_copies(w, one_pass);
    w.line("// Only now wait for the codes and vmapP entries: the copies above are under way.");
    w.line("#pragma unroll");
    auto slot = w.block("for (int j = 0; j < slots; ++j)");
    w.line("const int s = tid + j * NTHREADS;");
    w.line("const int e = s / NFN;");
    w.line("const int m = s - e * NFN;");
    w.line("if (s >= NE * NFN || k0 + e >= ke) continue;");
    if (shared_geometry) w.line("if (m % NFP == 0) sCode[e * NFACES + m / NFP] = real(gc[j]);");
    w.line("if (gc[j] != 0) continue;");
    w.line("const int kP = gp[j] / NP;");
    w.line("const int iP = gp[j] - kP * NP;");
    for (int c = 0; c < components; ++c)
      w.line("RTDG_ASYNC_COPY(sF + (e * NCOMP + " + str(c) + ") * LDF + m, q + (QIDX(" + str(c) + ", kP, iP)));");
  }
  w.line("#else");
  if (shared_geometry) {
    write_geometry_copies(w, false);
    w.line("RTDG_SLOTS(s, NE * NFACES) if (k0 + s / NFACES < ke) sCode[s] = real(bcode[k0 * NFACES + s]);");
  }
  write_group_loads(w, spec, sc, "k0", "sq", "sF", true);
  between();
  w.line("#endif");
}

// Tensor products with prefetch: this thread's output node's res (u0) into registers.
void write_update_prefetch(rtcg::SourceWriter& w) {
  w.line("#if RTCG_CUDA");
  w.line("// Prefetch: this thread's output node's res (u0) into registers (one node per thread).");
  w.line("real pre[NCOMP] = {};");
  {
    auto node = w.block("");
    w.line("const int e = tid / NP;");
    w.line("const int i = tid - e * NP;");
    w.line("const int k = k0 + e;");
    w.line("if (tid < NE * NP && k < ke)");
    w.line("  for (int c = 0; c < NCOMP; ++c) pre[c] = RTDG_PRE_SOURCE[QIDX(c, k, i)];");
  }
  w.line("#endif");
}

// Tensor products: the padding of sF and sG must be zeros (0 x leftover NaN is NaN), and only
// the padding is written here: every other entry the products read is written before them
// (sF's by the neighbour copies and the face-flux phase, sG's by the G passes), and with
// prefetch the copies into sF are under way. The padding: the rows past the face nodes (sF)
// and the fluxes (sG) in every column, up to the leading dimension, and the columns past the
// block's last element. Split directions read only rows below each pass's window, which its
// G pass writes, so sG's padding there is the columns alone. (Zeroing all of sF, checking each
// entry, took about a tenth of an order-2 block's instructions: measured on the H100,
// 2026-11-26, 2-5 % less time per stage at orders 2-3.)
void write_padding_zeros(rtcg::SourceWriter& w, const KernelSpec& spec, const Scratch& sc) {
  const bool by_state = spec.plan.derivative == Derivative::state;
  w.line("// Padding rows and columns take part in the products: zeros, not leftovers.");
  auto scope = w.block("");
  w.line("const int valid = (ke - k0 < NE ? ke - k0 : NE) * NCOMP;  // the block's columns");
  const Element& element = *spec.element;
  write_zero_padding(w, "sF", "LDF", sc.ldf, "NFN", element.Nfaces * element.Nfp, "valid", true);
  if (by_state) return;
  if (sc.split) w.line("RTDG_SLOTS(s, (NCOLP - valid) * LDG) sG[valid * LDG + s] = real(0);");
  else write_zero_padding(w, "sG", "LDG", sc.ldg, "(DIM * NP)", element.dim * element.Np, "valid", true);
}

// The group's volume fluxes (joint G_a) and face fluxes, sq and (prefetch) the neighbours'
// traces in `traces` loaded; ends before the products' barrier.
void write_group_fluxes(rtcg::SourceWriter& w, const KernelSpec& spec, const Pieces& pieces, const Scratch& sc,
                        const std::string& traces) {
  const int dim = spec.element->dim;
  const int components = static_cast<int>(spec.law->state_components());
  const bool by_state = spec.plan.derivative == Derivative::state;
  if (!by_state && !sc.split) {
    w.line("// G_a = sum_d (dr_a/dx_d) F_d(u) at every node of the block.");
    auto nodes = w.block("RTDG_SLOTS(s, NE * NP)");
    w.line("const int e = s / NP;");
    w.line("const int i = s % NP;");
    w.line("const int k = k0 + e;");
    w.line("if (k >= ke) continue;");
    w.line("real u[NCOMP];");
    for (int c = 0; c < components; ++c) w.line("u[" + str(c) + "] = sq[(e * NCOMP + " + str(c) + ") * LDQ + i];");
    if (reads_input(pieces.flux, InputKind::coordinate)) load_coordinates(w, dim, "i");
    write_folded_flux(
        w, spec, pieces,
        [dim](int ca) {
          return "sG[(e * NCOMP + " + std::to_string(ca / dim) + ") * LDG + " + std::to_string(ca % dim) + " * NP + i]";
        },
        -1, geometry_reads(spec.plan));
  }
  w.line("// Fscale n.(F - F*) at every face node of the block; exterior traces from q.");
  auto faces = w.block("RTDG_SLOTS(s, NE * NFN)");
  w.line("const int e = s / NFN;");
  w.line("const int m = s % NFN;");
  w.line("const int k = k0 + e;");
  w.line("if (k >= ke) continue;");
  w.line("const int f = m / NFP;");
  w.line("const int iM = rtdg_fmask[m];");
  w.line("real u[NCOMP];");
  for (int c = 0; c < components; ++c) w.line("u[" + str(c) + "] = sq[(e * NCOMP + " + str(c) + ") * LDQ + iM];");
  if (spec.plan.prefetch != Prefetch::off)
    write_face_flux(
        w, spec, pieces, true,
        [traces](int c) { return traces + "[(e * NCOMP + " + std::to_string(c) + ") * LDF + m]"; },
        geometry_reads(spec.plan));
  else
    write_face_flux(w, spec, pieces);
  for (int c = 0; c < components; ++c)
    w.line("sF[(e * NCOMP + " + str(c) + ") * LDF + m] = fg[DIM] * dF[" + str(c) + "];");
}

// The group's products and update, sq, sF (and joint sG) filled and synced (split: sF only;
// the G passes follow here).
void write_group_products(rtcg::SourceWriter& w, const KernelSpec& spec, const Pieces& pieces, const Scratch& sc,
                          const std::vector<std::string>& epilogue) {
  const bool by_state = spec.plan.derivative == Derivative::state;
  if (staged_products(spec.plan, sc)) {
    if (sc.by_column) {
      write_by_column_products(w, spec, sc);
      w.line("RTDG_SYNC();");
    } else if (sc.split) {
      write_split_products(w, spec, pieces, sc);
    } else {
      write_tensor_products(w, spec, sc);
    }
    auto nodes = w.block("RTDG_SLOTS(s, NE * NP)");
    w.line("const int e = s / NP;");
    w.line("const int i = s % NP;");
    w.line("const int k = k0 + e;");
    w.line("if (k >= ke) continue;");
    w.line("const real* se = sq + e * (NCOMP * LDQ);");
    // Not prefetched: loaded as the node phase starts, its latency under the phase's arithmetic.
    if (!update_prefetched(spec.plan, sc)) write_update_loads(w);
    w.line("real rhs[NCOMP];");
    if (by_state && spec.plan.operators == Operators::stencil) {
      w.line("const real* g = " + geometry_reads(spec.plan).drdx + ";");
      write_stencil_flux(w, spec, pieces);
      write_lift_sum(w, spec, sc);
    } else if (by_state) {
      w.line("const real* g = " + geometry_reads(spec.plan).drdx + ";");
      write_flux_of_gradient(w, spec, pieces, "sY[(e * NCOMP + c) * LDY + a * NP + i]");
      write_lift_sum(w, spec, sc);
    } else {
      w.line("for (int c = 0; c < NCOMP; ++c) rhs[c] = sY[(e * NCOMP + c) * LDY + i];");
    }
    write_node_update(w, spec, pieces, epilogue);
    return;
  }

  auto outputs = w.block("RTDG_SLOTS(s, NE * TPE)");
  w.line("const int e = s / TPE;");
  w.line("const int l = s % TPE;");
  w.line("const int k = k0 + e;");
  w.line("if (k >= ke) continue;");
  w.line("// Output r is node l + r * TPE; past NP the last node is computed and not stored.");
  w.line("int node[NPT];");
  w.line("for (int r = 0; r < NPT; ++r) node[r] = l + r * TPE < NP ? l + r * TPE : NP - 1;");
  w.line("const real* se = sq + e * (NCOMP * LDQ);");
  if (by_state) {
    w.line("// du[r][c][a] = (D_a u_c)(node r)");
    w.line("real du[NPT][NCOMP][DIM];");
    w.line("for (int r = 0; r < NPT; ++r) for (int c = 0; c < NCOMP; ++c) for (int a = 0; a < DIM; ++a) du[r][c][a] = 0;");
    auto j_loop = w.block("for (int j = 0; j < NP; ++j)");
    w.line("real v[NCOMP];");
    w.line("for (int c = 0; c < NCOMP; ++c) v[c] = se[c * LDQ + j];");
    auto r_loop = w.block("for (int r = 0; r < NPT; ++r)");
    w.line("real d[DIM];");
    w.line("for (int a = 0; a < DIM; ++a) d[a] = Dop[(a * NP + j) * NP + node[r]];");
    w.line("for (int c = 0; c < NCOMP; ++c) for (int a = 0; a < DIM; ++a) du[r][c][a] += d[a] * v[c];");
  } else {
    w.line("// acc[r][c] = sum_a (D_a G_a,c)(node r)");
    w.line("real acc[NPT][NCOMP];");
    w.line("for (int r = 0; r < NPT; ++r) for (int c = 0; c < NCOMP; ++c) acc[r][c] = 0;");
    w.line("const real* ge = sG + e * (NCOMP * LDG);");
    auto j_loop = w.block("for (int j = 0; j < NP; ++j)");
    w.line("real gj[NCOMP * DIM];");
    w.line("for (int ca = 0; ca < NCOMP * DIM; ++ca) gj[ca] = ge[ca * NP + j];");
    auto r_loop = w.block("for (int r = 0; r < NPT; ++r)");
    w.line("real d[DIM];");
    w.line("for (int a = 0; a < DIM; ++a) d[a] = Dop[(a * NP + j) * NP + node[r]];");
    w.line("for (int c = 0; c < NCOMP; ++c) for (int a = 0; a < DIM; ++a) acc[r][c] += d[a] * gj[c * DIM + a];");
  }
  w.line("// lift[r][c] = (LIFT sF_c)(node r)");
  w.line("real lift[NPT][NCOMP];");
  w.line("for (int r = 0; r < NPT; ++r) for (int c = 0; c < NCOMP; ++c) lift[r][c] = 0;");
  w.line("const real* fe = sF + e * (NCOMP * LDF);");
  {
    auto m_loop = w.block("for (int m = 0; m < NFN; ++m)");
    w.line("real fm[NCOMP];");
    w.line("for (int c = 0; c < NCOMP; ++c) fm[c] = fe[c * LDF + m];");
    w.line("for (int r = 0; r < NPT; ++r) { const real lm = Lop[m * NP + node[r]]; for (int c = 0; c < NCOMP; ++c) lift[r][c] += lm * fm[c]; }");
  }
  if (by_state) w.line("const real* g = " + geometry_reads(spec.plan).drdx + ";");
  auto r_loop = w.block("for (int r = 0; r < NPT; ++r)");
  // A guard, not a break: with a break the loop is not unrolled and the per-output arrays go
  // to local memory.
  auto valid = w.block("if (l + r * TPE < NP)");
  w.line("const int i = node[r];");
  write_update_loads(w);
  w.line("real rhs[NCOMP];");
  if (by_state) write_flux_of_gradient(w, spec, pieces, "du[r][c][a]");
  else w.line("for (int c = 0; c < NCOMP; ++c) rhs[c] = -acc[r][c];");
  w.line("for (int c = 0; c < NCOMP; ++c) rhs[c] += lift[r][c];");
  write_node_update(w, spec, pieces, epilogue);
}

void write_stage_body(rtcg::SourceWriter& w, const KernelSpec& spec, const Pieces& pieces, const Scratch& sc,
                      const std::vector<std::string>& epilogue) {
  const Plan& plan = spec.plan;
  const bool by_state = plan.derivative == Derivative::state;
  const bool shared_ops = plan.operators == Operators::shared && !sc.shared_fragments;
  const bool tensor = plan.products != Products::scalar;
  const bool staged = staged_products(plan, sc);
  const bool prefetch = plan.prefetch != Prefetch::off;
  // Each thread's update input into registers with the loads (Plan::prefetch_update).
  const bool pre = update_prefetched(plan, sc);
  const bool in_turn = sc.gpb > 1;
  const bool pipelined = in_turn && prefetch;
  const bool teams = sc.teams > 1;
  w.line("(void)xyz; (void)prm; (void)t; (void)AV; (void)AL;");
  if (!pipelined && !in_turn) w.line("real* sq = scratch;");
  w.line("real* sF = scratch + OFF_F;");
  if (!by_state) w.line("real* sG = scratch + OFF_G;");
  if (staged && plan.operators != Operators::stencil) w.line("real* sY = scratch + OFF_Y;");
  if (staged && by_state) w.line("real* sZ = scratch + OFF_Z;");
  if (plan.geometry == GeometryPlace::shared) {
    w.line("// The block's geometry (GeometryPlace::shared): n and Fscale of its faces, dr_a/dx_d, the face codes.");
    w.line("real* sFgeo = scratch + OFF_GEO;                       // [NE][NFACES][DIM + 1]");
    w.line("real* sDrdx = sFgeo + NE * NFACES * (DIM + 1);         // [NE][DIM * DIM]");
    w.line("real* sCode = sDrdx + NE * DIM * DIM;                  // [NE][NFACES], as reals");
  }
  if (shared_ops) {
    w.line("real* sD = scratch + OFF_D;");
    w.line("real* sL = scratch + OFF_L;");
    w.line("RTDG_SLOTS(s, DIM * NP * NP) sD[s] = DT[s];");
    w.line("RTDG_SLOTS(s, NFN * NP) sL[s] = LT[s];");
    w.line("const real* Dop = sD;");
    w.line("const real* Lop = sL;");
  } else if (!staged) {
    w.line("const real* Dop = DT;");
    w.line("const real* Lop = LT;");
  }
  // One group: loads, fluxes, products and update of the NE elements from k0 on.
  auto one_group = [&] {
    if (plan.prefetch == Prefetch::async) {
      write_async_group_loads(w, spec, sc, [&] {
        if (pre) write_update_prefetch(w);
      });
    } else {
      write_group_loads(w, spec, sc, "k0", "sq", "sF", false);
      if (pre) write_update_prefetch(w);
    }
    if (tensor) write_padding_zeros(w, spec, sc);
    if (plan.prefetch == Prefetch::async) {
      w.line("RTDG_ASYNC_COMMIT();");
      w.line("RTDG_ASYNC_WAIT();");
    }
    w.line("RTDG_SYNC();");
    write_group_fluxes(w, spec, pieces, sc, "sF");
    // Split directions: the first G pass writes only sG, and its barrier also covers sF.
    if (!sc.split) w.line("RTDG_SYNC();");
    write_group_products(w, spec, pieces, sc, epilogue);
  };
  if (!in_turn) {
    one_group();
    return;
  }
  // The groups of this team (of the block's g_first .. g_end - 1): every one with one team,
  // every TEAMS-th from g_first + team with several.
  const std::string first = teams ? "g_first + team" : "g_first";
  const std::string step = teams ? "g += TEAMS" : "++g";
  if (!pipelined) {
    w.line("// Element groups in turn (Plan::groups_per_block without prefetch).");
    auto groups = w.block("for (int g = " + first + "; g < g_end; " + step + ")");
    w.line("const int k0 = kb + g * NE;");
    w.line("real* sq = scratch;");
    {
      auto group = w.block("");
      one_group();
    }
    w.line("// sq, sF, sG and sY are reused by the next group.");
    w.line("RTDG_SYNC();");
    return;
  }

  // Pipelined groups (Plan::groups_per_block with prefetch): this team's groups in turn; the
  // n-th one's state in buffer n % 2 (sq at 0 or OFF_Q1), its neighbours' traces in sT. The
  // next group's loads are issued once this group's face fluxes have read sT, and complete
  // while this group's products run.
  // Issues the loads of the group whose first element is `base` into state buffer `buffer`.
  auto issue_loads = [&](const std::string& condition, const std::string& base, const std::string& buffer) {
    {
      auto scope = w.block(condition);
      w.line("const int kn = " + base + ";");
      w.line("real* sqn = scratch + " + buffer + ";");
      write_group_loads(w, spec, sc, "kn", "sqn", "sT", true);
    }
    w.line("RTDG_ASYNC_COMMIT();");
  };
  w.line("// Element groups g_first .. g_end - 1 in turn, each loaded during the one before (cp.async).");
  w.line("real* sT = scratch + OFF_T;");
  issue_loads("", std::string("kb + ") + (teams ? "(g_first + team)" : "g_first") + " * NE", "0");
  auto groups = w.block("for (int g = " + first + "; g < g_end; " + step + ")");
  w.line("const int k0 = kb + g * NE;");
  if (teams) w.line("real* sq = scratch + ((g - g_first - team) / TEAMS % 2 ? OFF_Q1 : 0);");
  else w.line("real* sq = scratch + ((g - g_first) % 2 ? OFF_Q1 : 0);");
  if (pre) write_update_prefetch(w);
  w.line("RTDG_ASYNC_WAIT();");
  if (tensor) write_padding_zeros(w, spec, sc);
  w.line("RTDG_SYNC();");
  write_group_fluxes(w, spec, pieces, sc, "sT");
  w.line("RTDG_SYNC();");
  if (teams)
    issue_loads("if (g + TEAMS < g_end)", "k0 + TEAMS * NE", "((g + TEAMS - g_first - team) / TEAMS % 2 ? OFF_Q1 : 0)");
  else
    issue_loads("if (g + 1 < g_end)", "k0 + NE", "((g + 1 - g_first) % 2 ? OFF_Q1 : 0)");
  {
    auto products = w.block("");
    write_group_products(w, spec, pieces, sc, epilogue);
  }
  w.line("// sY (over sF and sG) and this group's state buffer are reused by the next groups.");
  w.line("RTDG_SYNC();");
}

// The scratch layout for a plan, with the checks that it fits.
Scratch scratch_of(const KernelSpec& spec) {
  const Element& element = *spec.element;
  const Plan& plan = spec.plan;
  const int dim = element.dim;
  const int components = static_cast<int>(spec.law->state_components());
  const int Np = element.Np, Nfn = element.Nfaces * element.Nfp;
  const bool tensor = plan.products != Products::scalar;
  const bool by_state = plan.derivative == Derivative::state;
  Scratch sc;
  if (plan.nodes_per_thread < 1 || plan.nodes_per_thread > 8)
    throw Error("the plan's nodes_per_thread must be 1 to 8, got " + std::to_string(plan.nodes_per_thread));
  if (plan.tile_rows != 8 && plan.tile_rows != 16)
    throw Error("the plan's tile_rows must be 8 or 16, got " + std::to_string(plan.tile_rows));
  if (plan.groups_per_block < 1 || plan.groups_per_block > max_groups_per_block)
    throw Error("the plan's groups_per_block must be 1 to " + std::to_string(max_groups_per_block) + ", got " +
                std::to_string(plan.groups_per_block));
  sc.gpb = plan.groups_per_block;
  if (plan.teams < 1 || plan.teams > max_teams)
    throw Error("the plan's teams must be 1 to " + std::to_string(max_teams) + ", got " + std::to_string(plan.teams));
  sc.teams = plan.teams;
  if (!valid_register_cap(plan.max_registers))
    throw Error("the plan's max_registers must be 0 or " + std::to_string(min_register_cap) + " to " +
                std::to_string(max_register_cap) + ", got " + std::to_string(plan.max_registers));
  // CUDA does not take __maxnreg__ together with the launch bounds that teams need.
  if (plan.max_registers != 0 && plan.teams != 1)
    throw Error("the plan does not fit: max_registers caps the registers of a one-team kernel (teams = 1); with " +
                std::to_string(plan.teams) + " teams the kernel has launch bounds, which CUDA does not combine with "
                "a register cap");
  if (plan.prefetch == Prefetch::async && (plan.groups_per_block != 1 || plan.teams != 1))
    throw Error("the plan does not fit: prefetch = async is for one element group per block and one team (got " +
                std::to_string(plan.groups_per_block) + " groups and " + std::to_string(plan.teams) +
                " teams); use prefetch = on");
  if (plan.geometry == GeometryPlace::shared && plan.prefetch != Prefetch::async)
    throw Error("the plan does not fit: geometry = shared is copied in the load phase of prefetch = async; use "
                "prefetch = async or geometry = global");
  if (plan.tile_rows != 8 && !tensor)
    throw Error("the plan does not fit: 16-row tiles are for tensor-core products (products = tensor)");
  const bool single = spec.scalar == fluxes::ScalarType::float32;
  const bool tf32 = plan.products == Products::tf32x3;
  if (tf32 && !single)
    throw Error("the plan does not fit: TF32 tensor products (products = tf32x3) are for float; double plans use "
                "products = tensor");
  if (tf32 && plan.tile_rows != 16 && plan.tiles != Tiles::columns)
    throw Error("the plan does not fit: TF32 tensor products (products = tf32x3) take 16-row tiles (tile_rows = 16) "
                "or column tiles (tiles = columns)");
  if (plan.row_tiles < 1 || plan.row_tiles > max_row_tiles)
    throw Error("the plan's row_tiles must be 1 to " + std::to_string(max_row_tiles) + ", got " +
                std::to_string(plan.row_tiles));
  if (plan.row_tiles != 1 && !tensor)
    throw Error("the plan does not fit: row tiles per warp item (row_tiles > 1) are for tensor-core products "
                "(products = tensor or tf32x3)");
  sc.mr = plan.row_tiles;
  if (plan.k_unroll < 0 || plan.k_unroll > max_k_unroll)
    throw Error("the plan's k_unroll must be 0 (all) to " + std::to_string(max_k_unroll) + ", got " +
                std::to_string(plan.k_unroll));
  if (plan.k_unroll != 0 && !tensor)
    throw Error("the plan does not fit: unrolling the k loop by a set count (k_unroll) is for tensor-core products "
                "(products = tensor or tf32x3)");
  if (plan.k_ahead < 0 || plan.k_ahead > max_k_ahead)
    throw Error("the plan's k_ahead must be 0 to " + std::to_string(max_k_ahead) + ", got " + std::to_string(plan.k_ahead));
  if (plan.k_ahead != 0 && plan.products != Products::tensor)
    throw Error("the plan does not fit: loading k steps ahead (k_ahead) is for FP64 tensor-core products "
                "(products = tensor)");
  if (plan.k_ahead != 0 && plan.k_unroll == 0)
    throw Error("the plan does not fit: loading k steps ahead (k_ahead) is for k loops unrolled a set count (k_unroll > 0); "
                "a fully unrolled loop's loads are placed by the compiler");
  if (tensor && plan.nodes_per_thread != 1)
    throw Error("the plan does not fit: tensor-core products compute one node per thread (nodes_per_thread = 1)");
  sc.columns = plan.tiles == Tiles::columns;
  if (sc.columns && !tensor)
    throw Error("the plan does not fit: column tiles (tiles = columns) are for tensor-core products (products = "
                "tensor or tf32x3)");
  if (sc.columns && plan.tile_rows != 8)
    throw Error("the plan does not fit: column tiles (tiles = columns) take 8 operator rows per tile (tile_rows = 8); "
                "the 16 rows of their mma are the block's columns");
  if (sc.columns && plan.k_ahead != 0)
    throw Error("the plan does not fit: column tiles (tiles = columns) load no k step ahead (k_ahead = 0)");
  const bool stencil = plan.operators == Operators::stencil;
  if (stencil && (plan.basis != Basis::bernstein || !by_state))
    throw Error("the plan does not fit: operators = stencil differentiates the state in the Bernstein basis "
                "(basis = bernstein, derivative = state)");
  if (stencil && element.Np > max_stencil_nodes)
    throw Error("the plan does not fit: operators = stencil indexes the lattice in bytes, at most " +
                std::to_string(max_stencil_nodes) + " nodes per element (order 9 on tetrahedra, 21 on triangles), not " +
                std::to_string(element.Np));
  sc.by_column = plan.operators == Operators::constant || plan.operators == Operators::literals || stencil;
  if (plan.face_threads != 1 && plan.face_threads != 2 && plan.face_threads != 4)
    throw Error("the plan's face_threads must be 1, 2 or 4, got " + std::to_string(plan.face_threads));
  if (plan.face_threads > 1 && !(sc.by_column && by_state && plan.basis == Basis::bernstein && !tensor))
    throw Error("the plan does not fit: face_threads > 1 shares the faces of the layered LIFT, which Bernstein plans by "
                "column of the state derivative have (basis = bernstein, operators = constant, literals or stencil, "
                "derivative = state)");
  if (plan.face_threads > element.Nfaces)
    throw Error("the plan does not fit: face_threads = " + std::to_string(plan.face_threads) + " is more than the " +
                std::to_string(element.Nfaces) + " faces of the element");
  if (!plan.prefetch_update && !(plan.prefetch != Prefetch::off && staged_products(plan, sc)))
    throw Error("the plan does not fit: prefetch_update = off reads the update input late instead of prefetching it, "
                "which only plans that prefetch (prefetch = on or async) and stage their products do (tensor products, "
                "or operators = constant, literals or stencil)");
  if (sc.by_column) {
    const std::string which = plan.operators == Operators::constant ? "constant" : stencil ? "stencil" : "literals";
    if (tensor)
      throw Error("the plan does not fit: operators = " + which + " computes the products by column with FMAs "
                  "(products = scalar); tensor-core products read their operators' fragments from global or shared memory");
    if (plan.nodes_per_thread != 1)
      throw Error("the plan does not fit: operators = " + which + " computes the products by column, and the update "
                  "one node per thread (nodes_per_thread = 1)");
    const long long entries = operator_entries(element);
    const long long bytes = entries * (spec.scalar == fluxes::ScalarType::float32 ? 4 : 8);
    if (plan.operators == Operators::constant && bytes > max_constant_bytes)
      throw Error("the plan does not fit: operators = constant needs " + std::to_string(bytes) +
                  " bytes of constant memory for D and LIFT at order " + std::to_string(element.N) + ", more than " +
                  std::to_string(max_constant_bytes) + "; use operators = global or shared");
    const long long nonzeros = operator_nonzeros(element);
    if (plan.operators == Operators::literals && nonzeros > max_literal_entries)
      throw Error("the plan does not fit: operators = literals would write the " + std::to_string(nonzeros) +
                  " non-zero entries of D and LIFT at order " + std::to_string(element.N) + " into the kernel, more than " +
                  std::to_string(max_literal_entries) + "; use operators = global, shared or constant");
    sc.chunks = (Np + max_chunk_rows - 1) / max_chunk_rows;
  }
  sc.shared_fragments = tensor && plan.operators == Operators::shared;
  sc.npt = tensor ? 1 : std::clamp(plan.nodes_per_thread, 1, Np);
  sc.tpe = (Np + sc.npt - 1) / sc.npt;
  sc.ne = elements_per_block(plan.stage_elements_per_block, sc.tpe);
  // Tensor products take whole warps; so do teams, whose barriers count threads in warps (a
  // named barrier's count must be a multiple of 32, and a team's warps must be its own).
  sc.threads = tensor || plan.teams > 1 ? round_up(sc.ne * sc.tpe, 32) : sc.ne * sc.tpe;
  if (sc.threads * sc.teams > 1024)
    throw Error("the plan does not fit: " + std::to_string(sc.teams) + (sc.teams > 1 ? " teams of " : " team of ") +
                std::to_string(sc.ne) + " elements per block of " + std::to_string(sc.tpe) + " threads each (" +
                std::to_string(sc.threads) + " threads per team" + (sc.threads != sc.ne * sc.tpe ? ", whole warps" : "") +
                ") is more than 1024 threads per block");
  const int ncol = sc.ne * components;
  sc.ncolp = tensor ? round_up(ncol, sc.columns ? 16 : 8) : ncol;
  sc.ldq = tensor ? operand_ld(Np) : sc.by_column ? column_ld(Np) : Np;
  sc.ldf = tensor ? operand_ld(Nfn) : sc.by_column ? column_ld(Nfn) : Nfn;
  sc.ldg = tensor ? operand_ld(dim * Np) : sc.by_column ? column_ld(dim * Np) : dim * Np;
  if (sc.by_column) {
    sc.ldy = stencil ? 0 : column_ld(by_state ? dim * Np : Np);
    sc.ldz = by_state ? column_ld(Np) : 0;
    // The flux derivative in one chunk: the one thread of a column reads all of its sG and sF
    // entries before it writes its sY column, so sY can lie over sG, column by column (the same
    // leading dimension): less shared memory per block.
    if (!by_state && sc.chunks == 1) {
      sc.ldy = sc.ldg;
      sc.alias_y = true;
    }
  }
  sc.split = plan.directions == Directions::split;
  if (sc.split) {
    if (!tensor || by_state)
      throw Error("the plan does not fit: directions = split is for tensor-core products of the flux derivative "
                  "(products = tensor, derivative = flux)");
    int window = 0;
    for (int a = 0; a < dim; ++a) {
      sc.kt0[a] = a * Np / 4;
      sc.kt1[a] = ((a + 1) * Np + 3) / 4;
      window = std::max(window, 4 * (sc.kt1[a] - sc.kt0[a]));
    }
    sc.ldg = operand_ld(window);
  }
  // Split directions hold each warp's output tiles in registers, at most 48 per thread.
  auto split_does_not_fit = [&sc] {
    return Error("the plan does not fit: directions = split holds each warp's output tiles in registers, and " +
                 std::to_string(sc.ne) + " elements per block of " + std::to_string(sc.threads / 32) +
                 " warps would need more than 48 accumulator registers per thread; use fewer elements per block");
  };
  if (sc.columns) {
    sc.ldy = output_ld_columns(by_state ? dim * Np : Np);
    sc.ldz = by_state ? output_ld_columns(Np) : 0;
    // One 16-column tile per item, MR = Plan::row_tiles operator row tiles (each column
    // fragment read serves MR mma).
    sc.nb = 1;
    sc.ng = sc.ncolp / 16;
    sc.col_step = 16;
    const int tiles = (Np + 7) / 8;
    if (!by_state) {
      const int warps = sc.threads / 32;
      const int groups = (tiles + sc.mr - 1) / sc.mr;
      sc.ipw8 = sc.ipw16 = (groups * sc.ng + warps - 1) / warps;
      // 4 doubles (8 registers) or 4 floats (tf32x3) per tile held.
      const bool held = sc.ipw8 * sc.mr * (tf32 ? 4 : 8) <= 48;
      if (sc.split && !held)
        throw split_does_not_fit();
      sc.alias_y = !sc.split && held && output_ld_columns(Np) <= sc.ldg;
    }
  } else if (tensor) {
    sc.ldy = output_ld(by_state ? dim * Np : Np, plan.tile_rows, single);
    sc.ldz = by_state ? output_ld(Np, plan.tile_rows, single) : 0;
    // Column tiles per warp item: the largest of 4, 3, 2, 1 dividing the tile count, so every
    // item is full; each item reuses an operator fragment NB times.
    const int tiles = sc.ncolp / 8;
    for (int nb = 4; nb >= 1; --nb)
      if (tiles % nb == 0) {
        sc.nb = nb;
        break;
      }
    sc.ng = tiles / sc.nb;
    sc.col_step = sc.nb * 8;
    if (!by_state) {
      const int warps = sc.threads / 32;
      const int groups8 = ((Np + 7) / 8 + sc.mr - 1) / sc.mr, groups16 = ((Np + 15) / 16 + sc.mr - 1) / sc.mr;
      sc.ipw8 = (groups8 * sc.ng + warps - 1) / warps;
      sc.ipw16 = (groups16 * sc.ng + warps - 1) / warps;
      // Registers for the held tiles, at most 48 per thread: 2 (8-row) or 4 (16-row) doubles per
      // tile (MR x NB of them per item), or 4 floats (tf32x3). A 16-row double plan runs with
      // 8-row tiles below sm_90, so those must fit too.
      const int item_tiles = sc.mr * sc.nb;
      const bool held = tf32 ? sc.ipw16 * item_tiles * 4 <= 48
                             : sc.ipw8 * item_tiles * 4 <= 48 && (plan.tile_rows == 8 || sc.ipw16 * item_tiles * 8 <= 48);
      if (sc.split && !held)
        throw split_does_not_fit();
      sc.alias_y = !sc.split && held && output_ld(Np, plan.tile_rows, single) <= sc.ldg;
    }
  }
  const long long cols = sc.ncolp;
  const long long q_size = cols * sc.ldq, f_size = cols * sc.ldf;
  const long long g_size = by_state ? 0 : cols * sc.ldg;
  const long long y_size = cols * sc.ldy, z_size = cols * sc.ldz * plan.face_threads;
  // Scalar products with operators = shared: D and LIFT in each team's scratch (tensor
  // products: the fragments, once per block, before the teams' scratch).
  const bool scalar_shared = !tensor && plan.operators == Operators::shared;
  const long long d_size = scalar_shared ? static_cast<long long>(dim) * Np * Np : 0;
  const long long l_size = scalar_shared ? static_cast<long long>(Nfn) * Np : 0;
  if (sc.shared_fragments) {
    sc.av = by_state ? mma_fragment_reals(dim * Np, Np) : mma_fragment_reals(Np, dim * Np);
    sc.al = mma_fragment_reals(Np, Nfn);
    sc.off_teams = sc.av + sc.al;
  }
  sc.off_f = q_size;
  sc.off_g = sc.off_f + f_size;
  sc.off_z = sc.off_g + g_size;
  sc.off_d = sc.off_z + z_size;
  sc.off_l = sc.off_d + d_size;
  if (sc.split) {
    sc.off_y = sc.off_f;  // over sF and sG, once every warp has read them
    sc.total = std::max(sc.off_l + l_size, sc.off_y + y_size);
  } else {
    sc.off_y = sc.alias_y ? sc.off_g : sc.off_l + l_size;
    sc.total = std::max(1LL, sc.alias_y ? sc.off_l + l_size : sc.off_y + y_size);
  }
  if (plan.geometry == GeometryPlace::shared) {
    // The block's geometry copy: face n and Fscale, dr_a/dx_d, the face codes (as reals).
    sc.off_geo = sc.total;
    sc.total += static_cast<long long>(sc.ne) * (element.Nfaces * (dim + 1) + dim * dim + element.Nfaces);
  }
  if (sc.gpb > 1 && plan.prefetch == Prefetch::on) {
    sc.off_q1 = sc.total;
    sc.off_t = sc.off_q1 + q_size;
    sc.total = sc.off_t + static_cast<long long>(ncol) * sc.ldf;
  }
  // Column tiles' paired stores: every sY (sZ) start even in the block's shared memory.
  sc.store_pairs = sc.columns && sc.ldy % 2 == 0 && sc.off_y % 2 == 0 && sc.ldz % 2 == 0 && sc.off_z % 2 == 0 &&
                   sc.off_teams % 2 == 0 && (sc.teams == 1 || sc.total % 2 == 0);
  return sc;
}

}  // namespace

std::string fused_plan_refusal(const KernelSpec& spec) {
  try {
    (void)scratch_of(spec);
  } catch (const Error& error) {
    return error.what();
  }
  return {};
}

void write_fused(rtcg::SourceWriter& w, const KernelSpec& spec, const Pieces& pieces, GeneratedKernels& out) {
  const Element& element = *spec.element;
  const Plan& plan = spec.plan;
  if (plan.derivative == Derivative::state && !flux_is_linear(pieces.flux))
    throw Error("the plan differentiates the state (derivative = state), which needs a volume flux linear in the "
                "state with constant coefficients; the law '" + spec.law->name + "' has a nonlinear or "
                "position-dependent flux: use derivative = flux");
  const Scratch sc = scratch_of(spec);
  const std::size_t real_bytes = spec.scalar == fluxes::ScalarType::float32 ? 4 : 8;
  out.stage_shared_bytes = static_cast<std::size_t>(sc.block_total()) * real_bytes;
  if (out.stage_shared_bytes > max_dynamic_shared_bytes)
    throw Error("the plan does not fit: the fused stage kernel needs " + std::to_string(out.stage_shared_bytes) +
                " bytes of shared memory per block (" + (sc.teams > 1 ? std::to_string(sc.teams) + " teams of " : "") +
                std::to_string(sc.ne) + " elements of order " + std::to_string(element.N) +
                (plan.operators == Operators::shared ? ", operators in shared memory" : "") +
                (plan.products != Products::scalar ? ", tensor products" : "") + "), more than " +
                std::to_string(max_dynamic_shared_bytes) +
                (sc.teams > 1 ? "; use fewer teams, fewer elements per block or operators in global memory"
                              : "; use fewer elements per block or operators in global memory"));
  out.stage_elements_per_block = sc.ne;
  out.stage_groups_per_block = sc.gpb * sc.teams;
  out.stage_threads = sc.threads * sc.teams;

  w.line("#define NE " + str(sc.ne));
  w.line("#define NPT " + str(sc.npt));
  w.line("#define TPE " + str(sc.tpe));
  w.line("#define NTHREADS " + str(sc.threads));
  w.line("#define NCOLP " + str(sc.ncolp));
  w.line("#define LDQ " + str(sc.ldq));
  w.line("#define LDF " + str(sc.ldf));
  w.line("#define LDG " + str(sc.ldg));
  w.line("#define LDY " + str(sc.ldy));
  w.line("#define LDZ " + str(sc.ldz));
  w.line("#define OFF_F " + str(sc.off_f));
  w.line("#define OFF_G " + str(sc.off_g));
  w.line("#define OFF_Y " + str(sc.off_y));
  w.line("#define OFF_Z " + str(sc.off_z));
  w.line("#define OFF_D " + str(sc.off_d));
  w.line("#define OFF_L " + str(sc.off_l));
  w.line("#define SCRATCH " + str(sc.total));
  if (sc.teams > 1 || sc.shared_fragments) {
    w.line("// Teams (Plan::teams) of NTHREADS threads, each with SCRATCH reals of scratch from OFF_TEAMS on.");
    w.line("#define TEAMS " + str(sc.teams));
    w.line("#define BLOCK_THREADS " + str(sc.threads * sc.teams));
    w.line("#define OFF_TEAMS " + str(sc.off_teams));
  }
  if (sc.teams > 1 || plan.max_registers != 0) {
    w.line("#if RTCG_CUDA");
    if (sc.teams > 1) w.line("#define RTDG_BOUNDS __launch_bounds__(BLOCK_THREADS)");
    else w.line("#define RTDG_BOUNDS __maxnreg__(" + str(plan.max_registers) + ")  // Plan::max_registers");
    w.line("#else");
    w.line("#define RTDG_BOUNDS");
    w.line("#endif");
  }
  if (sc.shared_fragments) {
    w.line("// The operators' fragments in shared memory: AV_SIZE reals of AV, then AL_SIZE of AL.");
    w.line("#define AV_SIZE " + str(sc.av));
    w.line("#define AL_SIZE " + str(sc.al));
  }
  if (sc.gpb > 1) w.line("#define GPB " + str(sc.gpb));
  if (plan.geometry == GeometryPlace::shared) w.line("#define OFF_GEO " + str(sc.off_geo));
  const bool async_copies = (sc.gpb > 1 && plan.prefetch == Prefetch::on) || plan.prefetch == Prefetch::async;
  const int state_width = state_copy_width(spec, sc);
  if (sc.gpb > 1 && plan.prefetch == Prefetch::on) {
    w.line("#define OFF_Q1 " + str(sc.off_q1));
    w.line("#define OFF_T " + str(sc.off_t));
  }
  if (async_copies) {
    // cp.async: a global -> shared copy that does not hold the thread (sm_80 and newer); the
    // host copies at once. WAIT: this thread's copies are complete (then a barrier for others).
    w.line("#if RTCG_CUDA");
    w.line("#if __CUDA_ARCH__ < 800");
    w.line(plan.prefetch == Prefetch::async
               ? "#error \"prefetch = async (cp.async) needs compute capability 8.0 or newer\""
               : "#error \"element groups per block > 1 (cp.async) need compute capability 8.0 or newer\"");
    w.line("#endif");
    w.line("#define RTDG_ASYNC_COPY(dst, src) asm volatile(\"cp.async.ca.shared.global [%0], [%1], " + str(static_cast<int>(real_bytes)) +
           ";\" :: \"r\"(static_cast<unsigned>(__cvta_generic_to_shared(dst))), \"l\"(src) : \"memory\")");
    w.line("#define RTDG_ASYNC_COPY_STATE(dst, src) asm volatile(\"cp.async.ca.shared.global [%0], [%1], " +
           str(state_width * static_cast<int>(real_bytes)) +
           ";\" :: \"r\"(static_cast<unsigned>(__cvta_generic_to_shared(dst))), \"l\"(src) : \"memory\")");
    w.line("#define RTDG_ASYNC_COMMIT() asm volatile(\"cp.async.commit_group;\" ::: \"memory\")");
    w.line("#define RTDG_ASYNC_WAIT() asm volatile(\"cp.async.wait_all;\" ::: \"memory\")");
    w.line("#else");
    w.line("#define RTDG_ASYNC_COPY(dst, src) (*(dst) = *(src))");
    w.line("#define RTDG_ASYNC_COPY_STATE(dst, src) do { for (int rtdg_r = 0; rtdg_r < " + str(state_width) +
           "; ++rtdg_r) (dst)[rtdg_r] = (src)[rtdg_r]; } while (0)");
    w.line("#define RTDG_ASYNC_COMMIT()");
    w.line("#define RTDG_ASYNC_WAIT()");
    w.line("#endif");
  }
  w.line();
  if (plan.products != Products::scalar) {
    const bool tf32 = plan.products == Products::tf32x3;
    if (!sc.columns) {
      w.line(tf32                   ? "// Tensor-core tiles: 16 rows, TF32 (mma.m16n8k8), three products each, float sums."
             : plan.tile_rows == 16 && plan.k_unroll == 0
                 ? "// Tensor-core tiles: 16 rows (mma.m16n8k16, m16n8k4) on sm_90 and newer, else 8 (mma.m8n8k4)."
             : plan.tile_rows == 16 ? "// Tensor-core tiles: 16 rows (mma.m16n8k4) on sm_90 and newer, else 8 (mma.m8n8k4)."
                                    : "// Tensor-core tiles: 8 rows (mma.m8n8k4).");
    }
    if (plan.k_unroll != 0) w.line("// The products' k loops unrolled " + str(plan.k_unroll) + " steps at a time (Plan::k_unroll).");
    if (plan.k_ahead != 0) w.line("// Each k step's fragments loaded one step ahead of their mma (Plan::k_ahead).");
    w.line(std::string("#define RTDG_TF32 ") + (tf32 ? "1" : "0"));
    w.line(std::string("typedef ") + (tf32 ? "float" : "double") + " rtdg_acc;  // the tiles' sums");
    if (sc.columns) {
      if (tf32) {
        w.line("// Column tiles: 16 of the block's columns by 8 operator rows, TF32 (mma.m16n8k8), three products");
        w.line("// each, float sums.");
      } else {
        w.line("// Column tiles: 16 of the block's columns by 8 operator rows (mma.m16n8k4 on sm_90 and newer, else");
        w.line("// two mma.m8n8k4).");
      }
      w.line("#define RTDG_TILE_ROWS 8");
      w.line("#define RTDG_ACC 4");
      w.line("#define RTDG_IPW " + str(sc.ipw8));
    } else {
      w.line(tf32 ? "#if RTCG_CUDA" : plan.tile_rows == 16 ? "#if RTCG_CUDA && __CUDA_ARCH__ >= 900" : "#if 0");
      w.line("#define RTDG_TILE_ROWS 16");
      w.line("#define RTDG_ACC 4");
      w.line("#define RTDG_IPW " + str(sc.ipw16));
      w.line("#else");
      w.line("#define RTDG_TILE_ROWS 8");
      w.line("#define RTDG_ACC 2");
      w.line("#define RTDG_IPW " + str(sc.ipw8));
      w.line("#endif");
    }
    w.line("#define RTDG_ROW_TILES(rows) (((rows) + RTDG_TILE_ROWS - 1) / RTDG_TILE_ROWS)");
    w.line("// Operator row tiles per warp item (Plan::row_tiles), and the items' row groups.");
    w.line("#define RTDG_MR " + str(sc.mr));
    w.line("#define RTDG_ROW_GROUPS(rows) ((RTDG_ROW_TILES(rows) + RTDG_MR - 1) / RTDG_MR)");
    write_tensor_helpers(w, plan.k_unroll, plan.k_ahead, sc.shared_fragments, sc.columns, sc.store_pairs,
                         spec.scalar == fluxes::ScalarType::float32);
  }
  const std::string geometry =
      "const real* RTCG_RESTRICT drdx, const real* RTCG_RESTRICT fgeo, const int* RTCG_RESTRICT vmapP, "
      "const int* RTCG_RESTRICT bcode, const real* RTCG_RESTRICT xyz, const real* RTCG_RESTRICT DT, "
      "const real* RTCG_RESTRICT LT, const real* RTCG_RESTRICT AV, const real* RTCG_RESTRICT AL, "
      "const real* RTCG_RESTRICT prm, real t, " + std::string(halo_arguments) + ", ";
  // With prefetched update inputs (update_prefetched), RTDG_PRE(c, idx) is the register copy on
  // CUDA; the host reads the array (its "threads" run the node loop in sequence).
  const bool pre = update_prefetched(plan, sc);
  if (plan.operators == Operators::constant) write_constant_operators(w, spec);
  if (plan.operators == Operators::stencil) write_stencil_table(w, element);
  if (plan.products == Products::scalar && (plan.operators == Operators::constant || plan.operators == Operators::literals ||
                                            plan.operators == Operators::stencil)) {
    const std::vector<ColumnPart> parts = by_column_parts(spec);
    if (lift_faces_outlined(element) &&
        std::any_of(parts.begin(), parts.end(), [](const ColumnPart& part) { return part.layered; }))
      write_layered_lift_faces(w, spec);
  }
  // Otherwise the node phase's copy, upd[c] (write_update_loads).
  const std::string res_in = pre ? "RTDG_PRE(c, idx)" : "upd[c]";
  const std::string u0_in = pre ? "RTDG_PRE(c, idx)" : "upd[c]";
  if (pre) {
    w.line("#if RTCG_CUDA");
    w.line("#define RTDG_PRE(c, idx) pre[c]");
    w.line("#else");
    w.line("#define RTDG_PRE(c, idx) RTDG_PRE_SOURCE[idx]");
    w.line("#endif");
  }
  w.line("#define RTDG_PRE_SOURCE res");
  write_stage_kernel(w, spec, pieces, sc, "rtdg_stage_lserk",
                     "const real* RTCG_RESTRICT q, real* RTCG_RESTRICT qo, real* RTCG_RESTRICT res, " + geometry +
                         "real a, real b, real dt, int K, int kb, int ke",
                     {"const real rr = a * " + res_in + " + dt * rhs[c];", "res[idx] = rr;",
                      "qo[idx] = se[c * LDQ + i] + b * rr;"});
  w.line("#undef RTDG_PRE_SOURCE");
  w.line("#define RTDG_PRE_SOURCE u0");
  write_stage_kernel(w, spec, pieces, sc, "rtdg_stage_ssp",
                     "const real* RTCG_RESTRICT q, const real* RTCG_RESTRICT u0, real* RTCG_RESTRICT qo, " + geometry +
                         "real alpha, real beta, real dt, int K, int kb, int ke",
                     {"qo[idx] = alpha * " + u0_in + " + beta * (se[c * LDQ + i] + dt * rhs[c]);"});
  w.line("#undef RTDG_PRE_SOURCE");
  if (pre) w.line("#undef RTDG_PRE");
  w.line("#undef RTDG_SLOTS");
  w.line("#undef RTDG_SYNC");
  if (sc.teams > 1 || plan.max_registers != 0) w.line("#undef RTDG_BOUNDS");
  if (async_copies) {
    w.line("#undef RTDG_ASYNC_COPY");
    w.line("#undef RTDG_ASYNC_COMMIT");
    w.line("#undef RTDG_ASYNC_WAIT");
  }
  w.line();
}

}  // namespace rtdg::dg::kernels

namespace rtdg::dg {

int column_task_stride(int tasks, int columns, int threads) {
  int best_stride = columns;
  long long best_busiest = -1, best_total = 0;
  for (int stride = columns; stride <= (columns + 31) / 32 * 32; ++stride) {
    const int n = tasks * stride;
    long long busiest = 0, total = 0;
    for (int warp = 0; warp * 32 < threads; ++warp) {
      const int lanes = std::min(32, threads - warp * 32);
      long long runs = 0;
      // Each pass of the loop: the warp's lanes take s = first .. first + lanes - 1, one run per
      // case with an active lane (consecutive s, so a case's lanes are consecutive).
      for (int first = warp * 32; first < n; first += threads) {
        int last_case = -1;
        for (int s = first; s < std::min(n, first + lanes); ++s) {
          if (s % stride >= columns || s / stride == last_case) continue;
          last_case = s / stride;
          ++runs;
        }
      }
      busiest = std::max(busiest, runs);
      total += runs;
    }
    if (best_busiest < 0 || busiest < best_busiest || (busiest == best_busiest && total < best_total)) {
      best_stride = stride;
      best_busiest = busiest;
      best_total = total;
    }
  }
  return best_stride;
}

}  // namespace rtdg::dg
