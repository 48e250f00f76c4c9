// The fused stage family (Plan::fusion == stage): write_fused composes the phases of
// dg/src/kernels/fused/ (fused.hpp has the kernels' design and the scratch layout).
#include "kernels/fused/fused.hpp"

namespace rtdg::dg::kernels {

namespace {

using namespace fused;

// The block's sizes and the scratch layout as constants (NE, NTHREADS, LD*, OFF_*, ...), the
// launch bounds of teams and register caps.
void write_layout_defines(rtcg::SourceWriter& w, const KernelSpec& spec, const Scratch& sc) {
  const Plan& plan = spec.plan;
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
}

// The async copies (cp.async) of prefetch = async and of pipelined groups: RTDG_ASYNC_COPY,
// RTDG_ASYNC_COPY_STATE (state_copy_width reals), COMMIT and WAIT. Returns whether it wrote them.
bool write_async_copy_macros(rtcg::SourceWriter& w, const KernelSpec& spec, const Scratch& sc) {
  const Plan& plan = spec.plan;
  const std::size_t real_bytes = spec.scalar == fluxes::ScalarType::float32 ? 4 : 8;
  const bool async_copies = (sc.gpb > 1 && plan.prefetch == Prefetch::on) || plan.prefetch == Prefetch::async;
  const int state_width = state_copy_width(spec, sc);
  if (sc.gpb > 1 && plan.prefetch == Prefetch::on) {
    w.line("#define OFF_Q1 " + str(sc.off_q1));
    w.line("#define OFF_T " + str(sc.off_t));
  }
  if (async_copies) {
    // cp.async: a global -> shared copy that does not hold the thread (sm_80 and newer); the
    // host copies at once. WAIT: this thread's copies are complete (then a barrier for others).
    w.line("#if RTCG_CUDA && __CUDA_ARCH__ < 800");
    w.line(plan.prefetch == Prefetch::async
               ? "#error \"prefetch = async (cp.async) needs compute capability 8.0 or newer\""
               : "#error \"element groups per block > 1 (cp.async) need compute capability 8.0 or newer\"");
    w.line("#endif");
    register_device_headers();
    w.line("#include <dg/async_copy.h>");
    // A real per copy, and state_width reals per copy of the state.
    w.line("#if RTCG_CUDA");
    w.line("#define RTDG_ASYNC_COPY(dst, src) RTDG_CP_ASYNC(dst, src, " + str(static_cast<int>(real_bytes)) + ")");
    w.line("#define RTDG_ASYNC_COPY_STATE(dst, src) RTDG_CP_ASYNC(dst, src, " + str(state_width * static_cast<int>(real_bytes)) + ")");
    w.line("#else");
    w.line("#define RTDG_ASYNC_COPY(dst, src) (*(dst) = *(src))");
    w.line("#define RTDG_ASYNC_COPY_STATE(dst, src) RTDG_COPY_REALS(dst, src, " + str(state_width) + ")");
    w.line("#endif");
  }
  return async_copies;
}

// Tensor-core plans: the tiles' constants (RTDG_TF32, RTDG_TILE_ROWS, RTDG_ACC, RTDG_IPW,
// RTDG_MR, ...) and the product helpers.
void write_tensor_defines(rtcg::SourceWriter& w, const KernelSpec& spec, const Scratch& sc) {
  const Plan& plan = spec.plan;
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

}  // namespace

void write_fused(rtcg::SourceWriter& w, const KernelSpec& spec, const Pieces& pieces, GeneratedKernels& out) {
  const Element& element = *spec.element;
  const Plan& plan = spec.plan;
  // generate_kernels has run dg::check, which includes fused_plan_refusal: the layout fits.
  const Scratch sc = scratch_of(spec);
  const std::size_t real_bytes = spec.scalar == fluxes::ScalarType::float32 ? 4 : 8;
  out.stage_shared_bytes = static_cast<std::size_t>(sc.block_total()) * real_bytes;
  out.stage_elements_per_block = sc.ne;
  out.stage_groups_per_block = sc.gpb * sc.teams;
  out.stage_threads = sc.threads * sc.teams;

  write_layout_defines(w, spec, sc);
  const bool async_copies = write_async_copy_macros(w, spec, sc);
  w.line();
  if (plan.products != Products::scalar) write_tensor_defines(w, spec, sc);
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
    const bool layered = std::any_of(parts.begin(), parts.end(), [](const ColumnPart& part) { return part.layered; });
    if (layered) write_layered_lift_header(w);
    if (layered && lift_faces_outlined(element)) write_layered_lift_faces(w, spec);
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
    w.line("#undef RTDG_ASYNC_COPY_STATE");
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
