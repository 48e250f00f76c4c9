// The frame of a stage kernel: block, team and group binding on CUDA and the host.
#include "kernels/fused/fused.hpp"

namespace rtdg::dg::kernels::fused {

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
    // wrong in every run on an H200; the non-aligned barrier, __syncwarp before
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

}  // namespace rtdg::dg::kernels::fused
