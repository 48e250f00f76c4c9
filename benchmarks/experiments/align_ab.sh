#!/usr/bin/env bash
# On the GPU machine: padded state columns (Plan::align) against unpadded, the same plans side by
# side in one sweep per case (`--space align=0,A`, async plans only), on the 200k-tet sphere
# (.deps/meshes/sphere_200k.h5, made here with `rtdg mesh data/geometries/sphere.geo -D h=0.062
# -D h_pec=0.042 --order morton` and carried; toml++ headers in .deps/usr/include). A case is
# precision:order:bytes; the default cases are the tetrahedral orders whose Np a 16-byte (or,
# double order 2, 32-byte) alignment changes: double 4 (35 -> 36), double 2 (10 -> 12), float 2
# (10 -> 12) and float 4 (35 -> 36). Prints, per case, the best plan of each kind and the median
# time ratio of plans that differ only in the padding. Logs under $OUT.
#   CASES="double:4:16 float:4:16" bash benchmarks/experiments/align_ab.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-/tmp/align-ab}; mkdir -p "$out"
. benchmarks/experiments/gpu_build.sh
for case in ${CASES:-double:4:16 float:4:16 double:2:32 float:2:16}; do
  IFS=: read -r prec N bytes <<<"$case"
  log=$out/tune-$prec-N$N-align$bytes.log
  start=$SECONDS
  $build/apps/rtdg tune dg data/maxwell/sphere.toml --set "mesh.file=\"$mesh\"" --set run.backend=cuda \
    --orders "$N" --precision "$prec" --space prefetch=async --space "align=0,$bytes" > "$log" 2>&1
  echo "($case: tune took $((SECONDS - start)) s)"
  python3 - "$log" "$case" <<'PY'
import re, statistics, sys
log, case = sys.argv[1:]
times = {}
for line in open(log):
    m = re.match(r'^(fused stage, .*?)\s{2,}([0-9.]+)\s+([0-9.]+)\s', line)
    if m: times[m.group(1)] = float(m.group(3))
mark = re.compile(r', columns aligned to \d+ bytes')
plain = {k: v for k, v in times.items() if not mark.search(k)}
padded = {mark.sub('', k): v for k, v in times.items() if mark.search(k)}
pairs = sorted(padded[k] / plain[k] for k in padded if k in plain)
best = lambda d: min(d.items(), key=lambda kv: kv[1]) if d else ('-', float('nan'))
nan = float('nan')
print(f'{case}: best unpadded {best(plain)[1]:.4f} ms/stage, best padded {best(padded)[1]:.4f}; '
      f'padded/unpadded over {len(pairs)} pairs: median {statistics.median(pairs) if pairs else nan:.3f}, '
      f'quartiles {pairs[len(pairs)//4] if pairs else nan:.3f} {pairs[3*len(pairs)//4] if pairs else nan:.3f}, '
      f'min {pairs[0] if pairs else nan:.3f}')
print(f'  best padded: {best(padded)[0]}')
PY
  grep -A3 "== winners" "$log" | sed -n 2p
done
