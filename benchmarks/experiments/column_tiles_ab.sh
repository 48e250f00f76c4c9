#!/usr/bin/env bash
# On the GPU machine (session 22 experiment): column tiles against 8-row tiles. With
# RTDG_EXPERIMENT_COLUMNS set, the generator computes plans of tile_rows = 16 with column tiles
# (the block's columns as the mma's 16 rows, 8 operator rows as its 8 columns: m16n8k4 with
# the operator's rows padded to 8, not 16). One sweep per case (`--space prefetch=async`, the
# default tile rows 8 and 16), so the best 8-row plan and the best column-tile plan are timed in
# the same run; a second sweep without the variable (RUN_ROWS=1) times the 16-row plans as they
# are. 200k-tet sphere as in align_ab.sh. Logs under $OUT.
#   CASES="double:4 float:4" bash benchmarks/experiments/column_tiles_ab.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-/tmp/column-tiles-ab}; mkdir -p "$out"
. benchmarks/experiments/gpu_build.sh
summary() {
  python3 - "$1" "$2" <<'PY'
import re, sys
log, label = sys.argv[1:]
times, fails = {}, 0
for line in open(log):
    m = re.match(r'^(fused stage, .*?)\s{2,}([0-9.]+)\s+([0-9.]+)\s+\S+\s+\S+\s+(\d+)\s+(\d+)', line)
    if m: times[m.group(1) + f' [{m.group(4)} regs, {m.group(5)} blocks/SM]'] = float(m.group(3))
    elif line.startswith('fused stage') and ('differs' in line or 'failed' in line or 'launch' in line): fails += 1
sixteen = {k: v for k, v in times.items() if '16-row tiles' in k}
eight = {k: v for k, v in times.items() if '16-row tiles' not in k and 'tensor' in k}
best = lambda d: min(d.items(), key=lambda kv: kv[1]) if d else ('-', float('nan'))
print(f'  {label}: best 8-row {best(eight)[1]:.4f} ms/stage ({len(eight)} plans), best tile_rows=16 {best(sixteen)[1]:.4f} '
      f'({len(sixteen)} plans); lines with differs/failed/launch: {fails}')
print(f'    best 8-row: {best(eight)[0]}')
print(f'    best 16:    {best(sixteen)[0]}')
PY
}
for case in ${CASES:-double:2 double:3 double:4 double:5 double:6 float:4}; do
  IFS=: read -r prec N <<<"$case"
  log=$out/tune-$prec-N$N-columns.log
  start=$SECONDS
  RTDG_EXPERIMENT_COLUMNS=1 $build/apps/rtdg tune dg data/maxwell/sphere.toml --set "mesh.file=\"$mesh\"" \
    --set run.backend=cuda --orders "$N" --precision "$prec" --space prefetch=async ${SPACE:-} > "$log" 2>&1
  echo "$case (tune took $((SECONDS - start)) s)"
  summary "$log" "column tiles"
  if [ "${RUN_ROWS:-0}" = 1 ]; then
    log=$out/tune-$prec-N$N-rows.log
    RTDG_TUNING_DB=$out/tuning-rows.json $build/apps/rtdg tune dg data/maxwell/sphere.toml --set "mesh.file=\"$mesh\"" \
      --set run.backend=cuda --orders "$N" --precision "$prec" --space prefetch=async ${SPACE:-} > "$log" 2>&1
    summary "$log" "16-row tiles"
  fi
done
