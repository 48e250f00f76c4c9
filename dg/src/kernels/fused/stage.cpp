// A group's products and update, and the stage body that sequences the phases.
#include "kernels/fused/fused.hpp"

namespace rtdg::dg::kernels::fused {

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

}  // namespace rtdg::dg::kernels::fused
