// The fused stage kernel's scratch layout: block sizes, leading dimensions, offsets (Scratch).
#include "kernels/fused/fused.hpp"

namespace rtdg::dg::kernels::fused {

// GeometryPlace::shared reads the block's geometry from its copy in shared memory (sFgeo, sDrdx,
// sCode, filled in the load phase of Prefetch::async); the other plans from the global arrays.
GeometryReads geometry_reads(const Plan& plan) {
  if (plan.geometry != GeometryPlace::shared) return {};
  return {"sDrdx + (k - k0) * (DIM * DIM)", "sFgeo + ((k - k0) * NFACES + f) * (DIM + 1)",
          "static_cast<int>(sCode[(k - k0) * NFACES + f])"};
}

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

namespace {

// Threads, elements and columns of the block; the by-column chunks.
void set_block(Scratch& sc, const KernelSpec& spec) {
  const Plan& plan = spec.plan;
  const int Np = spec.element->Np;
  const bool tensor = plan.products != Products::scalar;
  sc.gpb = plan.groups_per_block;
  sc.teams = plan.teams;
  sc.mr = plan.row_tiles;
  sc.columns = plan.tiles == Tiles::columns;
  sc.by_column = plan.operators == Operators::constant || plan.operators == Operators::literals ||
                 plan.operators == Operators::stencil;
  if (sc.by_column) sc.chunks = (Np + max_chunk_rows - 1) / max_chunk_rows;
  sc.shared_fragments = tensor && plan.operators == Operators::shared;
  sc.npt = tensor ? 1 : std::clamp(plan.nodes_per_thread, 1, Np);
  sc.tpe = (Np + sc.npt - 1) / sc.npt;
  sc.ne = elements_per_block(plan.stage_elements_per_block, sc.tpe);
  // Tensor products take whole warps; so do teams, whose barriers count threads in warps (a
  // named barrier's count must be a multiple of 32, and a team's warps must be its own).
  sc.threads = tensor || plan.teams > 1 ? round_up(sc.ne * sc.tpe, 32) : sc.ne * sc.tpe;
  const int ncol = sc.ne * static_cast<int>(spec.law->state_components());
  sc.ncolp = tensor ? round_up(ncol, sc.columns ? 16 : 8) : ncol;
}

// The leading dimensions of sq, sF, sG (and of sY, sZ for by-column products); the windows of
// split directions.
void set_leading_dimensions(Scratch& sc, const KernelSpec& spec) {
  const Element& element = *spec.element;
  const Plan& plan = spec.plan;
  const int dim = element.dim, Np = element.Np, Nfn = element.Nfaces * element.Nfp;
  const bool tensor = plan.products != Products::scalar;
  const bool by_state = plan.derivative == Derivative::state;
  sc.ldq = tensor ? operand_ld(Np) : sc.by_column ? column_ld(Np) : Np;
  sc.ldf = tensor ? operand_ld(Nfn) : sc.by_column ? column_ld(Nfn) : Nfn;
  sc.ldg = tensor ? operand_ld(dim * Np) : sc.by_column ? column_ld(dim * Np) : dim * Np;
  if (sc.by_column) {
    sc.ldy = plan.operators == Operators::stencil ? 0 : column_ld(by_state ? dim * Np : Np);
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
    int window = 0;
    for (int a = 0; a < dim; ++a) {
      sc.kt0[a] = a * Np / 4;
      sc.kt1[a] = ((a + 1) * Np + 3) / 4;
      window = std::max(window, 4 * (sc.kt1[a] - sc.kt0[a]));
    }
    sc.ldg = operand_ld(window);
  }
}

// Column tiles: sY and sZ, one 16-column tile per item, MR = Plan::row_tiles operator row tiles
// (each column fragment read serves MR mma); whether the items' tiles are held in registers.
void set_column_tiles(Scratch& sc, const KernelSpec& spec) {
  const int Np = spec.element->Np, dim = spec.element->dim;
  const bool by_state = spec.plan.derivative == Derivative::state;
  const bool tf32 = spec.plan.products == Products::tf32x3;
  sc.ldy = output_ld_columns(by_state ? dim * Np : Np);
  sc.ldz = by_state ? output_ld_columns(Np) : 0;
  sc.nb = 1;
  sc.ng = sc.ncolp / 16;
  sc.col_step = 16;
  const int tiles = (Np + 7) / 8;
  if (by_state) return;
  const int warps = sc.threads / 32;
  const int groups = (tiles + sc.mr - 1) / sc.mr;
  sc.ipw8 = sc.ipw16 = (groups * sc.ng + warps - 1) / warps;
  // 4 doubles (8 registers) or 4 floats (tf32x3) per tile held.
  sc.held = sc.ipw8 * sc.mr * (tf32 ? 4 : 8) <= 48;
  sc.alias_y = !sc.split && sc.held && output_ld_columns(Np) <= sc.ldg;
}

// Row tiles: sY and sZ, the column tiles per item; whether the items' tiles are held.
void set_row_tiles(Scratch& sc, const KernelSpec& spec) {
  const Plan& plan = spec.plan;
  const int Np = spec.element->Np, dim = spec.element->dim;
  const bool by_state = plan.derivative == Derivative::state;
  const bool single = spec.scalar == fluxes::ScalarType::float32;
  const bool tf32 = plan.products == Products::tf32x3;
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
  if (by_state) return;
  const int warps = sc.threads / 32;
  const int groups8 = ((Np + 7) / 8 + sc.mr - 1) / sc.mr, groups16 = ((Np + 15) / 16 + sc.mr - 1) / sc.mr;
  sc.ipw8 = (groups8 * sc.ng + warps - 1) / warps;
  sc.ipw16 = (groups16 * sc.ng + warps - 1) / warps;
  // Registers for the held tiles, at most 48 per thread: 2 (8-row) or 4 (16-row) doubles per
  // tile (MR x NB of them per item), or 4 floats (tf32x3). A 16-row double plan runs with
  // 8-row tiles below sm_90, so those must fit too.
  const int item_tiles = sc.mr * sc.nb;
  sc.held = tf32 ? sc.ipw16 * item_tiles * 4 <= 48
                 : sc.ipw8 * item_tiles * 4 <= 48 && (plan.tile_rows == 8 || sc.ipw16 * item_tiles * 8 <= 48);
  sc.alias_y = !sc.split && sc.held && output_ld(Np, plan.tile_rows, single) <= sc.ldg;
}

// The buffers' offsets and the scratch's total, in reals.
void set_offsets(Scratch& sc, const KernelSpec& spec) {
  const Element& element = *spec.element;
  const Plan& plan = spec.plan;
  const int dim = element.dim, Np = element.Np, Nfn = element.Nfaces * element.Nfp;
  const bool tensor = plan.products != Products::scalar;
  const bool by_state = plan.derivative == Derivative::state;
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
    sc.total = sc.off_t + static_cast<long long>(sc.ne) * static_cast<int>(spec.law->state_components()) * sc.ldf;
  }
  // Column tiles' paired stores: every sY (sZ) start even in the block's shared memory.
  sc.store_pairs = sc.columns && sc.ldy % 2 == 0 && sc.off_y % 2 == 0 && sc.ldz % 2 == 0 && sc.off_z % 2 == 0 &&
                   sc.off_teams % 2 == 0 && (sc.teams == 1 || sc.total % 2 == 0);
}

}  // namespace

Scratch scratch_of(const KernelSpec& spec) {
  Scratch sc;
  set_block(sc, spec);
  set_leading_dimensions(sc, spec);
  if (sc.columns) set_column_tiles(sc, spec);
  else if (spec.plan.products != Products::scalar) set_row_tiles(sc, spec);
  set_offsets(sc, spec);
  return sc;
}

}  // namespace rtdg::dg::kernels::fused
