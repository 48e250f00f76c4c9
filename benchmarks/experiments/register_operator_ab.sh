#!/usr/bin/env bash
# On the GPU machine: the register-operator stage experiment (register_operator_stage.cu, orders 4
# and 3 in double; HARNESS_RUNS=pair: only the m16n8k4 variants, orders 4 and 2; SPREADS: the face
# neighbours' distances to run, 0 for random elements, default 53) and, in the same
# call, `rtdg bench dg` of session 23's tuned plans at BENCH_ORDERS (default 3 4) on the carried
# 200k-tet sphere, so the two are timed on the same card. SKIP_BENCH=1: the harness only. Output
# under $OUT.
#   bash benchmarks/experiments/register_operator_ab.sh
#   HARNESS_RUNS=pair BENCH_ORDERS="2 4" bash benchmarks/experiments/register_operator_ab.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-/tmp/register-operator}; mkdir -p "$out"
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv > "$out/device.txt" 2>&1
nvcc -O3 -std=c++17 -arch=sm_90 -Xptxas -v benchmarks/experiments/register_operator_stage.cu \
  -o "$out/register_operator_stage" > "$out/ptxas.log" 2>&1 || { tail -30 "$out/ptxas.log"; exit 1; }
for spread in ${SPREADS:-53}; do
  timeout 240 "$out/register_operator_stage" 205256 ${HARNESS_RUNS:-all} "$spread" 2>&1
done | tee "$out/register_operator_stage.log"
rm -f "$out/register_operator_stage"
[ "${SKIP_BENCH:-0}" = 1 ] && exit 0
. benchmarks/experiments/gpu_build.sh
# Session 23's winners: literals at order 2, split-direction 8-row tensor tiles at 3 and 4.
literals="fusion=stage layout=element_major elements=8 nodes_per_thread=1 operators=literals derivative=flux products=scalar prefetch=async tile_rows=8 directions=joint row_tiles=1 k_unroll=all k_ahead=0 groups=1 teams=1 geometry=global connectivity=nodes align=0 tiles=rows"
split="fusion=stage layout=element_major elements=4 nodes_per_thread=1 operators=global derivative=flux products=tensor prefetch=async tile_rows=8 directions=split row_tiles=1 k_unroll=all k_ahead=0 groups=1 teams=1 geometry=global connectivity=nodes align=0 tiles=rows"
for N in ${BENCH_ORDERS:-3 4}; do
  plan=$split; [ "$N" = 2 ] && plan=$literals
  timeout 200 $build/apps/rtdg bench dg data/maxwell/sphere.toml --set "mesh.file=\"$mesh\"" --set run.backend=cuda \
    --set "run.plan=\"$plan\"" --orders "$N" --precision double --runs 5 > "$out/bench-N$N.txt" 2>&1
  echo "== rtdg bench N$N (rc $?)"; grep -E "^ *double|tuned:|copy|roofline" "$out/bench-N$N.txt" | head -12
done
