#!/usr/bin/env bash
# On the GPU machine: connectivity = faces against nodes (vmapP), the same plans side by side
# in one sweep per order (`--space connectivity=nodes,faces`, async plans only), on the 200k-tet
# sphere (.deps/meshes/sphere_200k.h5, made here with `rtdg mesh data/geometries/sphere.geo -D
# h=0.062 -D h_pec=0.042 --order morton` and carried; toml++ headers in .deps/usr/include).
# Prints, per order and precision, the best plan of each kind and the median time ratio of
# plans that differ only in connectivity. Logs under $OUT.
#   ORDERS="2 3 4 5" PRECS="double float" bash benchmarks/experiments/face_connectivity_ab.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-/tmp/face-ab}; mkdir -p "$out"
. benchmarks/experiments/gpu_build.sh
for prec in ${PRECS:-double}; do
  for N in ${ORDERS:-2 3 4 5}; do
    log=$out/tune-$prec-N$N.log
    start=$SECONDS
    $build/apps/rtdg tune dg data/maxwell/sphere.toml --set "mesh.file=\"$mesh\"" --set run.backend=cuda \
      --orders "$N" --precision "$prec" --space prefetch=async --space connectivity=nodes,faces > "$log" 2>&1
    echo "($prec N$N: tune took $((SECONDS - start)) s)"
    python3 - "$log" "$prec" "$N" <<'PY'
import re, statistics, sys
log, prec, N = sys.argv[1:]
times = {}
for line in open(log):
    m = re.match(r'^(fused stage, .*?)\s{2,}([0-9.]+)\s+([0-9.]+)\s', line)
    if m: times[m.group(1)] = float(m.group(3))
nodes = {k: v for k, v in times.items() if 'face connectivity' not in k}
faces = {k.replace(', face connectivity', ''): v for k, v in times.items() if 'face connectivity' in k}
pairs = [faces[k] / nodes[k] for k in faces if k in nodes]
best = lambda d: min(d.items(), key=lambda kv: kv[1]) if d else ('-', float('nan'))
print(f'{prec} N{N}: best nodes {best(nodes)[1]:.4f} ms/stage, best faces {best(faces)[1]:.4f}; '
      f'faces/nodes over {len(pairs)} pairs: median {statistics.median(pairs) if pairs else float("nan"):.3f}, '
      f'min {min(pairs) if pairs else float("nan"):.3f}')
PY
  done
done
