#!/usr/bin/env bash
# On the GPU machine: products by column with the operators in constant memory or as literals
# (Plan::operators = constant, literals) against the tuner's default space, in one sweep per
# case (the default space plus `--space operators=global,shared,constant,literals`), on the
# 200k-tet sphere (.deps/meshes/sphere_200k.h5, carried; see align_ab.sh). A case is
# precision:orders. Prints, per order, the best by-column plan and the best other plan with
# their times, and the sweep's winner. Logs under $OUT.
#   CASES="double:1-5" bash benchmarks/experiments/by_column_ab.sh
# SPACE replaces the added space words, e.g. SPACE="--space operators=constant,literals --space
# products=scalar --space prefetch=async --space prune=off" for the two by-column places alone.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-/tmp/by-column-ab}; mkdir -p "$out"
. benchmarks/experiments/gpu_build.sh
for case in ${CASES:-double:1-5 float:1-5}; do
  IFS=: read -r prec orders <<<"$case"
  log=$out/tune-$prec-N$orders-by-column.log
  start=$SECONDS
  $build/apps/rtdg tune dg data/maxwell/sphere.toml --set "mesh.file=\"$mesh\"" --set run.backend=cuda \
    --orders "$orders" --precision "$prec" ${SPACE:---space operators=global,shared,constant,literals} > "$log" 2>&1
  echo "($case: tune took $((SECONDS - start)) s)"
  python3 - "$log" "$prec" <<'PY'
import re, sys
log, prec = sys.argv[1:]
order, best = None, {}
def report():
    if order is None: return
    col = min(((v, k) for k, v in best.items() if 'operators constant' in k or 'operators literals' in k), default=None)
    other = min(((v, k) for k, v in best.items() if not ('operators constant' in k or 'operators literals' in k)), default=None)
    if col and other:
        print(f'{prec} N{order}: best by-column {col[0]:.4f} ms/stage, best other {other[0]:.4f} ({col[0] / other[0]:.3f}x)')
        print(f'  by-column: {col[1]}')
        print(f'  other:     {other[1]}')
    elif other: print(f'{prec} N{order}: no by-column plan ran; best other {other[0]:.4f}')
    for place in ('constant', 'literals'):
        one = min(((v, k) for k, v in best.items() if 'operators ' + place in k), default=None)
        if one: print(f'  best {place}: {one[0]:.4f} ms/stage, {one[1]}')
for line in open(log):
    m = re.match(r'^tuning .*?N(\d+)', line) or re.match(r'^== .*order (\d+)', line)
    if m and m.group(1) != order:
        report(); order, best = m.group(1), {}
    m = re.match(r'^\s*\*?\s*(fused stage, .*?)\s{2,}([0-9.]+)\s+([0-9.]+)\s', line)
    if m: best[m.group(1)] = float(m.group(3))
report()
PY
  grep -A12 "== winners" "$log"
done
