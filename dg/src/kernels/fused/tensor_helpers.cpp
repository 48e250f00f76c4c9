// The tensor-core product helpers written once per program (mma wrappers, tile products).
#include "kernels/fused/fused.hpp"

namespace rtdg::dg::kernels::fused {

// rtdg_products: acc[nb] += A(tile row mt) x B(columns col0 + 8 nb ..), one warp (CUDA), and
// rtdg_store_tiles: the tiles into Y[col * LDY + row]; the mma they call are dg/tensor_core.h's.
// The host computes a whole product with rtdg_host_products (dg/tensor_core.h). Written once per program, before the kernels. k_unroll: Plan::k_unroll;
// k_ahead: Plan::k_ahead (k_unroll > 0, FP64 tensor products); shared_fragments: the products
// read the fragments from shared memory (Operators::shared).
// Column tiles (Scratch::columns): rtdg_products and rtdg_store_tiles with the block's columns as
// the mma's rows (rtdg_dmma_columns, dg/tensor_core.h). acc[m][nb] is the 16 x 8 tile of columns col0 + 16 nb .. by operator rows (mt +
// m) * 8 ..: lane g + 4 t holds rows 2 t, 2 t + 1 of columns g and g + 8 (d0, d1; d2, d3). The
// operator's 8 x 4 fragments are the mma's B as they are (lane g + 4 t: operator row g, k = t);
// its A is two column entries, columns g and g + 8 at k = t, from shared memory.
void write_column_tile_helpers(rtcg::SourceWriter& w, const std::string& k_loop, const std::string& ld, bool store_pairs,
                               bool single) {
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

namespace {

// k from 0 with the next step's fragments loaded ahead (Plan::k_ahead = 1), for 16-row tiles
// (two operator values per lane and step, m16n8k4) or 8-row ones (one, m8n8k4): they are in
// flight while this step's mma run. The last step reloads its own (cached) instead of reading
// past the operator.
void write_loop_ahead(rtcg::SourceWriter& w, const std::string& ld, const std::string& pragma, bool sixteen) {
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
}

// 16-row tiles, k in steps of 4 from `first` (m16n8k4).
void write_k4_loop(rtcg::SourceWriter& w, const std::string& ld, const std::string& pragma, const std::string& first) {
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
}

}  // namespace

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
    write_k4_loop(w, ld, "#pragma unroll", "TK / 4 * 4");
  } else {
    w.line("  // k in steps of 4 (m16n8k4: two operator values per lane and step, so few registers).");
    if (k_ahead > 0) write_loop_ahead(w, ld, k_loop, true);
    else write_k4_loop(w, ld, k_loop, "0");
  }
  w.line("#else");
  if (k_ahead > 0) {
    write_loop_ahead(w, ld, k_loop, false);
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
  w.line("#if RTCG_CUDA && __CUDA_ARCH__ < 800");
  w.line("#error \"tensor-core products (plan products = tensor) need compute capability 8.0 or newer\"");
  w.line("#endif");
  // The mma wrappers, the TF32 split and the host's loops (the parts that no plan value changes).
  register_device_headers();
  w.line("#include <dg/tensor_core.h>");
  w.line("#if RTCG_CUDA");
  if (shared_fragments) {
    w.line("// An operator fragment's entry from the block's copy in shared memory.");
    w.line("RTCG_DEVICE real rtdg_lds(const real* p) { return *p; }");
  }
  if (columns) write_column_tile_helpers(w, k_loop, ld, store_pairs, single);
  else write_row_tile_helpers(w, k_loop, ld, k_unroll, k_ahead);
  w.line("#endif");
  w.line("}  // extern \"C++\"");
  w.line();
}

}  // namespace rtdg::dg::kernels::fused
