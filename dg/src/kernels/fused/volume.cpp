// The volume products of tensor-core plans: joint and split directions (write_tensor_products,
// write_split_products).
#include "kernels/fused/fused.hpp"

namespace rtdg::dg::kernels::fused {

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

}  // namespace rtdg::dg::kernels::fused
