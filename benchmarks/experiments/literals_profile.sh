#!/usr/bin/env bash
# On the GPU machine: ncu profiles of products by column with literal operators (operators =
# literals), to see why they win at double order 2 and lose from order 3 on (session 23 saw the
# loss grow with the kernel's code size). Each case is order:plan; the plan goes to `rtdg bench
# dg` through run.plan, and ncu profiles its first stage launch (the default plan is unfused, so
# the first rtdg_stage_lserk is the named plan's). Sections: speed of light, warp states (stall
# "no instruction": the instruction cache), instruction and scheduler statistics, occupancy.
# Output under $OUT (ncu-<precision>-N<order>-<name>.txt). CASES (order:name:plan, separated by
# ';') and PRECISION (default double) profile other plans, e.g. TF32 against FP64 column tiles:
#   PRECISION=float CASES="4:tf32:fusion=stage ... products=tf32x3 tiles=columns row_tiles=2" bash ...
#   bash benchmarks/experiments/literals_profile.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-/tmp/literals-profile}; mkdir -p "$out"
. benchmarks/experiments/gpu_build.sh
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
[ -n "$ncu" ] || { echo "no ncu on this machine"; exit 1; }
base="fusion=stage layout=element_major nodes_per_thread=1 derivative=flux products=scalar prefetch=async"
default_cases=(
  "2:literals8:$base elements=8 operators=literals geometry=shared"
  "3:literals8:$base elements=8 operators=literals geometry=shared"
  "3:constant8:$base elements=8 operators=constant geometry=shared"
  "4:literals4:$base elements=4 operators=literals"
)
cases=("${default_cases[@]}")
[ -n "${CASES:-}" ] && IFS=';' read -r -a cases <<<"$CASES"
for case in "${cases[@]}"; do
  IFS=: read -r N name plan <<<"$case"
  prec=${PRECISION:-double}
  log=$out/ncu-$prec-N$N-$name.txt
  echo "# N=$N plan: $plan" > "$log"
  timeout 150 "$ncu" --kernel-name regex:rtdg_stage_lserk --launch-count 1 --clock-control none \
    --section SpeedOfLight --section WarpStateStats --section InstructionStats --section SchedulerStats \
    --section Occupancy --section LaunchStats --section ComputeWorkloadAnalysis \
    $build/apps/rtdg bench dg data/maxwell/sphere.toml --set "mesh.file=\"$mesh\"" --set run.backend=cuda \
    --set "run.plan=\"$plan\"" --orders "$N" --precision "$prec" --runs 3 >> "$log" 2>&1
  echo "== $prec N$N $name (rc $?)"
  grep -E "tuned:|^$prec|Duration|Stall No Instruction|No Instruction|Warp Cycles Per Issued|Executed Instructions |Registers Per|Achieved Occupancy|Issue Slots Busy|L1/TEX Cache Throughput|DRAM Throughput" "$log" | head -24
  grep -i -B1 -A3 "no_instruction\|instruction cache" "$log" | head -12
done
