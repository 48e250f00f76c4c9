#!/usr/bin/env bash
# On the GPU machine: tuner sweeps with the element operators of RTDG_EXPERIMENT_OPERATORS
# (dg/src/operators_experiment.cpp: `noisy` D with the rounding noise make_element drops)
# against the operators rtdg uses, on the 200k-tet sphere (.deps/meshes/sphere_200k.h5, carried;
# see align_ab.sh). A case is name:operators:precision:orders:space, operators `nodal` (none set)
# or `noisy`, space `literal` (literal plans only, pruning off: the by-column products are what
# the zero entries change) or `default`; each case its own tuning database (under the build
# folder, so that the logs stay within the files $OUT brings back). Prints each sweep's variant
# counts, times and winners. Logs under $OUT.
#   CASES="clean:nodal:double:2-3:literal noisy:noisy:double:2-3:literal" bash benchmarks/experiments/operators_ab.sh
# Sessions 26-27 also ran the experiments `bernstein` and `bernstein_product` here (e.g.
# CASES="bern:bernstein:double:5-6:literal bprod:bernstein_product:double:5-6:literal"); since
# session 28 the Bernstein basis is the plan value basis = bernstein, which the default space tries
# (`--space bases=nodal,bernstein`), and those experiment names are refused.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-/tmp/operators-ab}; mkdir -p "$out"
. benchmarks/experiments/gpu_build.sh
literal_space=(--space operators=literals --space products=scalar --space prefetch=async --space prune=off)
for case in ${CASES:-clean:nodal:double:2-3:literal noisy:noisy:double:2-3:literal clean:nodal:float:2-3:literal noisy:noisy:float:2-3:literal}; do
  IFS=: read -r name operators prec orders space <<<"$case"
  log=$out/tune-$prec-$name-N$orders.log start=$SECONDS
  experiment=$([ "$operators" = nodal ] && echo "" || echo "$operators")
  space_args=()
  [ "$space" = literal ] && space_args=("${literal_space[@]}")
  RTDG_EXPERIMENT_OPERATORS=$experiment RTDG_TUNING_DB="$build/db-$prec-$name.json" $build/apps/rtdg tune dg \
    data/maxwell/sphere.toml --set "mesh.file=\"$mesh\"" --set run.backend=cuda --orders "$orders" --precision "$prec" \
    "${space_args[@]}" > "$log" 2>&1
  echo "== $prec $name ($operators operators, $space space) N$orders: rc $?, $((SECONDS - start)) s"
  grep -h "tuned dg_stage" "$log" | sed -E 's/.*\/(N[0-9]+)\/.*: ([0-9]+ variants.*), winner.*/\1 \2/'
  grep -A16 "== winners" "$log" | grep -v "^--$\|as run.plan"
done
