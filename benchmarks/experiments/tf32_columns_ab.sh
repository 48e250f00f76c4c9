#!/usr/bin/env bash
# On the GPU machine: TF32 column tiles (products = tf32x3 with tiles = columns: the block's
# columns as the rows of mma.m16n8k8.tf32, three products per tile) against the float default
# space, in one sweep per case (the default space plus `--space products=scalar,tensor,tf32x3`,
# which also times TF32 with 16-row tiles), on the 200k-tet sphere (.deps/meshes/sphere_200k.h5,
# carried; see align_ab.sh). A case is precision:orders (float only: TF32 is refused in double).
# Prints, per order, the best TF32 column-tile plan, the best TF32 16-row plan and the best plan
# on the FP64 tensor cores or scalar, with their times, and the sweep's winners. Logs under $OUT.
#   CASES="float:2-5" bash benchmarks/experiments/tf32_columns_ab.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-/tmp/tf32-columns-ab}; mkdir -p "$out"
. benchmarks/experiments/gpu_build.sh
for case in ${CASES:-float:1-7}; do
  IFS=: read -r prec orders <<<"$case"
  log=$out/tune-$prec-N$orders-tf32-columns.log
  start=$SECONDS
  $build/apps/rtdg tune dg data/maxwell/sphere.toml --set "mesh.file=\"$mesh\"" --set run.backend=cuda \
    --orders "$orders" --precision "$prec" ${SPACE:---space products=scalar,tensor,tf32x3} > "$log" 2>&1
  echo "($case: tune took $((SECONDS - start)) s)"
  python3 - "$log" "$prec" <<'PY'
import re, sys
log, prec = sys.argv[1:]
order, best = None, {}
def kind(k):
    if 'TF32' in k: return 'tf32 columns' if 'column tiles' in k else 'tf32 rows'
    return 'other'
def report():
    if order is None: return
    by = {}
    for k, v in best.items():
        c = kind(k)
        if c not in by or v < by[c][0]: by[c] = (v, k)
    other = by.get('other')
    for c in ('tf32 columns', 'tf32 rows', 'other'):
        if c not in by: print(f'{prec} N{order}: no {c} plan ran'); continue
        v, k = by[c]
        ratio = f' ({v / other[0]:.3f}x the best other)' if other and c != 'other' else ''
        print(f'{prec} N{order}: best {c} {v:.4f} ms/stage{ratio}\n  {k}')
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
