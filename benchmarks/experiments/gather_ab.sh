#!/usr/bin/env bash
# On the GPU machine: the working tree's generator against the one of $BASE (default HEAD), the
# same plans timed by both builds in one call (`rtdg tune dg` with the space below on each build,
# on the carried 200k-tet sphere, .deps/meshes/sphere_200k.h5). Made for session 38's
# face-aligned neighbour copies of prefetch = async, but it compares any change that keeps the
# plan space. Prints per case the best plan of each build and the median new/old time ratio of
# the plans both timed. The old tree is `git archive $BASE` under /tmp. Logs under $OUT.
#   CASES="double:2 float:2" SPACE="--space prefetch=async" bash benchmarks/experiments/gather_ab.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-/tmp/gather-ab}; mkdir -p "$out"
new=${RTDG_GPU_BUILD_DIR:-build-gpu}
old=/tmp/gather-ab-old
configure() {  # source dir, build dir
  cmake -S "$1" -B "$2" -G Ninja -DCMAKE_BUILD_TYPE=Release -DRTDG_WARNINGS_AS_ERRORS=ON -DRTDG_BUILD_BENCHMARKS=OFF \
    -DRTDG_BUILD_TESTS=OFF -DRTDG_WITH_GMSH=OFF -DRTDG_WITH_VTK=OFF -DRTDG_EXTRA_INCLUDE_DIRS="$PWD/.deps/usr/include"
}
if [ ! -x "$old/build/apps/rtdg" ]; then
  rm -rf "$old" && mkdir -p "$old" && git archive "${BASE:-HEAD}" | tar -x -C "$old" || exit 1
  (configure "$old" "$old/build" && cmake --build "$old/build" -j 8 --target rtdg) > "$out/build-old.log" 2>&1 &
fi
[ -f "$new/CMakeCache.txt" ] || configure . "$new" > "$out/build-new.log" 2>&1
cmake --build "$new" -j 8 --target rtdg >> "$out/build-new.log" 2>&1 || { grep error -A5 "$out/build-new.log" | head -40; exit 1; }
wait
[ -x "$old/build/apps/rtdg" ] || { grep error -A5 "$out/build-old.log" | head -40; exit 1; }
mesh=$PWD/.deps/meshes/sphere_200k.h5
for case in ${CASES:-double:2 float:2 double:3 float:3}; do
  IFS=: read -r prec N <<<"$case"
  for which in old new; do
    bin=$new/apps/rtdg; [ $which = old ] && bin=$old/build/apps/rtdg
    start=$SECONDS
    RTDG_CACHE_DIR=/tmp/gather-ab-cache-$which RTDG_TUNING_DB=/tmp/gather-ab-tuning-$which.json RTDG_TUNE=force \
      "$bin" tune dg data/maxwell/sphere.toml --set "mesh.file=\"$mesh\"" --set run.backend=cuda \
      --orders "$N" --precision "$prec" ${SPACE:---space prefetch=async} > "$out/tune-$which-$prec-N$N.log" 2>&1
    echo "($case $which: tune took $((SECONDS - start)) s)"
  done
  grep -hoE "[0-9]+ variants \([0-9]+ dropped[^)]*\)" "$out/tune-old-$prec-N$N.log" "$out/tune-new-$prec-N$N.log" | sed 's/^/  old, new: /'
  python3 - "$out/tune-old-$prec-N$N.log" "$out/tune-new-$prec-N$N.log" "$case" <<'PY'
import re, statistics, sys
def table(log):
    times = {}
    for line in open(log):
        m = re.match(r'^((?:fused stage|unfused), .*?)\s{2,}([0-9.]+)\s+([0-9.]+)\s', line)
        if m: times[m.group(1)] = float(m.group(3))
    return times
old, new, case = table(sys.argv[1]), table(sys.argv[2]), sys.argv[3]
pairs = sorted(new[k] / old[k] for k in new if k in old)
best = lambda d: min(d.items(), key=lambda kv: kv[1]) if d else ('-', float('nan'))
if not pairs: print(f'{case}: no plan timed by both builds'); sys.exit()
print(f'{case}: best old {best(old)[1]:.5f} ms/stage, best new {best(new)[1]:.5f} ({best(new)[1] / best(old)[1]:.3f}); '
      f'new/old over {len(pairs)} plans: median {statistics.median(pairs):.3f}, quartiles '
      f'{pairs[len(pairs) // 4]:.3f} {pairs[3 * len(pairs) // 4]:.3f}, min {pairs[0]:.3f}, max {pairs[-1]:.3f}')
print(f'  best old: {best(old)[0]}')
print(f'  best new: {best(new)[0]}')
PY
done
