#!/usr/bin/env bash
# On the GPU machine: steps launched as one CUDA graph (Plan::graph) against steps launched kernel
# by kernel, the same plans side by side in one sweep per case (`--space graph=off,on`). First the
# gpu tests of the graph path (rtcg's LaunchGraph tests and the solver's CudaGraph), then per case
# the best plan of each kind and the median time ratio of plans that differ only in `graph`.
# A case is mesh:precision:order, the mesh `small` (data/meshes/sphere.h5, 1,238 tets: stages of a
# few microseconds, where launch overhead can show) or `large` (.deps/meshes/sphere_200k.h5, made
# here with `rtdg mesh data/geometries/sphere.geo -D h=0.062 -D h_pec=0.042 --order morton` and
# carried; there a stage takes 0.1 ms or more and the graph should change nothing). toml++ headers
# in .deps/usr/include. Logs under $OUT.
#   CASES="small:double:3 large:double:1" bash benchmarks/experiments/graph_ab.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-/tmp/graph-ab}; mkdir -p "$out"
# The tests as well as rtdg (gpu_build.sh alone configures without tests).
build=${RTDG_GPU_BUILD_DIR:-build-gpu}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DRTDG_WARNINGS_AS_ERRORS=ON -DRTDG_BUILD_BENCHMARKS=OFF \
  -DRTDG_BUILD_TESTS=ON -DRTDG_WITH_GMSH=OFF -DRTDG_WITH_VTK=OFF -DRTDG_EXTRA_INCLUDE_DIRS="$PWD/.deps/usr/include" \
  > "$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
. benchmarks/experiments/gpu_build.sh
cmake --build "$build" -j "$(nproc)" --target test_modules_cuda test_dg_plans_cuda >> "$out/build.log" 2>&1 ||
  { grep error -A5 "$out/build.log" | head -40; exit 1; }
"$(find "$build/tests" -type f -name test_modules_cuda | head -1)" --gtest_filter='*LaunchGraph*' > "$out/tests.log" 2>&1
"$(find "$build/tests" -type f -name test_dg_plans_cuda | head -1)" --gtest_filter='CudaGraph.*' >> "$out/tests.log" 2>&1
grep -E '^\[ +(OK|FAILED|PASSED|SKIPPED) ' "$out/tests.log"
for case in ${CASES:-small:double:1 small:double:3 small:float:3 small:double:5 large:double:1}; do
  IFS=: read -r which prec N <<<"$case"
  file=$PWD/data/meshes/sphere.h5
  [ "$which" = large ] && file=$mesh
  log=$out/tune-$which-$prec-N$N.log
  start=$SECONDS
  "$build/apps/rtdg" tune dg data/maxwell/sphere.toml --set "mesh.file=\"$file\"" --set run.backend=cuda \
    --orders "$N" --precision "$prec" --space graph=off,on > "$log" 2>&1
  echo "($case: tune took $((SECONDS - start)) s)"
  python3 - "$log" "$case" <<'PY'
import re, statistics, sys
log, case = sys.argv[1:]
times = {}
for line in open(log):
    m = re.match(r'^((?:fused stage|unfused), .*?)\s{2,}([0-9.]+)\s+([0-9.]+)\s', line)
    if m: times[m.group(1)] = float(m.group(3))
mark = ', steps as CUDA graphs'
direct = {k: v for k, v in times.items() if mark not in k}
graph = {k.replace(mark, ''): v for k, v in times.items() if mark in k}
pairs = sorted(graph[k] / direct[k] for k in graph if k in direct)
best = lambda d: min(d.items(), key=lambda kv: kv[1]) if d else ('-', float('nan'))
nan = float('nan')
print(f'{case}: best direct {best(direct)[1]:.5f} ms/stage, best as graphs {best(graph)[1]:.5f}; '
      f'graph/direct over {len(pairs)} pairs: median {statistics.median(pairs) if pairs else nan:.3f}, '
      f'quartiles {pairs[len(pairs)//4] if pairs else nan:.3f} {pairs[3*len(pairs)//4] if pairs else nan:.3f}, '
      f'min {pairs[0] if pairs else nan:.3f}')
print(f'  best as graphs: {best(graph)[0]}')
PY
done
