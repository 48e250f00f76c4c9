#!/usr/bin/env bash
# On the GPU machine: column tiles (Plan::tiles = columns: the block's columns as the mma's 16
# rows, 8 operator rows as its 8 columns, m16n8k4 with the operator's rows padded to 8, not 16)
# against row tiles, 8 and 16 rows, in one sweep per case (`--space prefetch=async --space
# tiles=rows,columns --space row_tiles=1,2,3 --space prune=off`, or $SPACE), so the best plan of
# each kind is timed in the same run. prune=off: the default pruning keeps column tiles to float
# and to 2 row tiles per item and more. 200k-tet sphere as in align_ab.sh. Logs under $OUT.
# (Session 22 measured the same with a first version that the variable RTDG_EXPERIMENT_COLUMNS
# switched on in place of the 16-row plans, one sweep each: benchmarks/results/README.md.)
#   CASES="double:4 float:4" bash benchmarks/experiments/column_tiles_ab.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-/tmp/column-tiles-ab}; mkdir -p "$out"
. benchmarks/experiments/gpu_build.sh
summary() {
  python3 - "$1" <<'PY'
import re, sys
log = sys.argv[1]
times, fails = {}, 0
for line in open(log):
    m = re.match(r'^(fused stage, .*?)\s{2,}([0-9.]+)\s+([0-9.]+)\s+\S+\s+\S+\s+(\d+)\s+(\d+)', line)
    if m: times[m.group(1) + f' [{m.group(4)} regs, {m.group(5)} blocks/SM]'] = float(m.group(3))
    elif line.startswith('fused stage') and ('differs' in line or 'failed' in line or 'launch' in line): fails += 1
columns = {k: v for k, v in times.items() if 'column tiles' in k}
sixteen = {k: v for k, v in times.items() if '16-row tiles' in k}
eight = {k: v for k, v in times.items() if '16-row tiles' not in k and 'column tiles' not in k and 'tensor' in k}
best = lambda d: min(d.items(), key=lambda kv: kv[1]) if d else ('-', float('nan'))
print(f'  best ms/stage: 8-row {best(eight)[1]:.4f} ({len(eight)} plans), 16-row {best(sixteen)[1]:.4f} '
      f'({len(sixteen)}), column tiles {best(columns)[1]:.4f} ({len(columns)}); lines with differs/failed/launch: {fails}')
for name, d in (('8-row', eight), ('16-row', sixteen), ('columns', columns)):
    print(f'    best {name}: {best(d)[0]}')
PY
}
space=${SPACE:---space prefetch=async --space tiles=rows,columns --space row_tiles=1,2,3 --space prune=off}
for case in ${CASES:-double:2 double:3 double:4 double:5 double:6 float:4}; do
  IFS=: read -r prec N <<<"$case"
  log=$out/tune-$prec-N$N-tiles.log
  start=$SECONDS
  # shellcheck disable=SC2086  # $space is a list of options
  $build/apps/rtdg tune dg data/maxwell/sphere.toml --set "mesh.file=\"$mesh\"" \
    --set run.backend=cuda --orders "$N" --precision "$prec" $space > "$log" 2>&1
  echo "$case (tune took $((SECONDS - start)) s)"
  summary "$log"
done
