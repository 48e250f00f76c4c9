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

}  // namespace rtdg::dg::kernels::fused
