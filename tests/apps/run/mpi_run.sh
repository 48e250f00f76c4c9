#!/usr/bin/env bash
# Parallel `rtdg run` through MPI against the serial run (docs/parallel.md), on the host
# backend (or another, e.g. --set run.backend=cuda):
#   mpi_run.sh <rtdg> <compare_solutions> <mpiexec> <config> <name> [--set ...]
# - 2 and 3 ranks reproduce the serial run's last snapshot to 1e-12 (the halo exchange hands
#   over the same traces the serial run reads, so in practice bit for bit), 2 ranks with
#   run.overlap = false bit for bit, and write their
#   VTU snapshots as one piece per rank under a .pvtu in the .pvd series;
# - a checkpoint written by 3 ranks continues on 2 ranks to the serial run's end, bit for bit;
# - a plan with graph = on is refused from run.plan on 2 ranks, and taken without the graph from
#   the tuning database or a checkpoint (host backend), to the serial graph run's answer;
# - a blow-up (cfl = 10) stops every rank with a non-zero exit, and a failure on rank 0 alone
#   (an output folder that is taken) ends the other ranks too, within seconds;
# - SIGTERM to the launcher stops every rank at one step with a checkpoint;
# - 3 ranks starting at once compile each kernel program once and load it 3 times.
set -uo pipefail
rtdg=$1 compare=$2 mpiexec=$3 config=$4 name=$5
shift 5
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMP_NUM_THREADS=1
common=(--set time.final=0.4 --set output.interval=0.2 --set checkpoint.interval=0.2 --set checkpoint.keep=5 "$@")
fail() { echo "FAILED: $*"; exit 1; }
run() { local dir=$1; shift; timeout 300 "$@" "$config" --set "run.output_dir=\"$work/$dir\"" "${common[@]}" > "$work/$dir.log" 2>&1; }

# With --set run.backend=cuda: skipped (77) where there is no CUDA device.
if printf '%s\n' "$@" | grep -qx 'run.backend=cuda'; then
  command -v nvidia-smi > /dev/null && nvidia-smi -L > /dev/null 2>&1 || { echo "no CUDA device: skipped"; exit 77; }
fi
run serial "$rtdg" run || { cat "$work/serial.log"; fail "serial run"; }
last=$(ls "$work/serial/snapshots/${name}"_*.h5 | sort | tail -1)
for np in 2 3; do
  run np$np "$mpiexec" -n $np "$rtdg" run || { cat "$work/np$np.log"; fail "$np ranks"; }
  grep -q "halo faces per rank" "$work/np$np.log" || { cat "$work/np$np.log"; fail "$np ranks: no partition report"; }
  "$compare" "$last" "$work/np$np/snapshots/$(basename "$last")" 1e-12 || fail "$np ranks differ from the serial run"
  # VTU (when this rtdg has VTK): one piece per rank and a .pvtu naming them, in the series.
  if ls "$work/serial/snapshots/"*.vtu > /dev/null 2>&1; then
    pvtu="$work/np$np/snapshots/$(basename "${last%.h5}").pvtu"
    [ "$(grep -c '<Piece Source=' "$pvtu")" = "$np" ] || fail "$np ranks: $pvtu does not list $np pieces"
    for source in $(sed -n 's/.*<Piece Source="\([^"]*\)".*/\1/p' "$pvtu"); do
      [ -s "$work/np$np/snapshots/$source" ] || fail "$np ranks: the VTU piece $source is missing"
    done
    grep -q "$(basename "$pvtu")" "$work/np$np/${name}.pvd" || fail "$np ranks: the .pvd does not list $(basename "$pvtu")"
  fi
  # Probes: rank 0 writes them with the owning ranks' values.
  for probe in "$work"/serial/*.csv; do
    [ -e "$probe" ] || continue
    cmp -s "$probe" "$work/np$np/$(basename "$probe")" || fail "$np ranks: probe file $(basename "$probe") differs"
    echo "probe $(basename "$probe"): same as the serial run's on $np ranks"
  done
done
grep -A4 "^balance" "$work/np3.log"

# Without the overlap (every element waits for the halo traces): the same answer, and the log says so.
timeout 300 "$mpiexec" -n 2 "$rtdg" run "$config" --set "run.output_dir=\"$work/np2_no_overlap\"" "${common[@]}" \
  --set run.overlap=false > "$work/np2_no_overlap.log" 2>&1 || { cat "$work/np2_no_overlap.log"; fail "2 ranks, run.overlap = false"; }
grep -q "received before any element is computed" "$work/np2_no_overlap.log" ||
  { cat "$work/np2_no_overlap.log"; fail "2 ranks, run.overlap = false: the log does not say so"; }
"$compare" "$last" "$work/np2_no_overlap/snapshots/$(basename "$last")" 0 || fail "2 ranks without the overlap differ from the serial run"

# Restart on 2 ranks from the 3 ranks' first checkpoint: it continues in that run's folder.
checkpoint=$(ls "$work/np3/checkpoints/"checkpoint_*.h5 | sort | head -1)
timeout 300 "$mpiexec" -n 2 "$rtdg" run --restart "$checkpoint" --overwrite > "$work/restart.log" 2>&1 ||
  { cat "$work/restart.log"; fail "restart on 2 ranks"; }
"$compare" "$last" "$work/np3/snapshots/$(basename "$last")" 0 || fail "the 3-to-2 rank restart differs from the serial run"

# run.plan with graph = on (steps as one CUDA graph): refused on 2 ranks before any step, naming
# run.plan (a parallel step exchanges halo traces between its launches).
timeout 120 "$mpiexec" -n 2 "$rtdg" run "$config" --set "run.output_dir=\"$work/graph\"" "${common[@]}" \
  --set 'run.plan="fusion=none layout=field_major volume_elements=0 surface_elements=0 update_block=256 graph=on"' \
  > "$work/graph.log" 2>&1
code=$?
[ $code -ne 0 ] && [ $code -ne 124 ] || { cat "$work/graph.log"; fail "run.plan with graph = on on 2 ranks: exit $code"; }
grep -q "'run.plan': graph = on launches each step as one CUDA graph" "$work/graph.log" ||
  { cat "$work/graph.log"; fail "run.plan with graph = on on 2 ranks: message"; }
ls "$work/graph/checkpoints/"checkpoint_*.h5 > /dev/null 2>&1 && fail "run.plan with graph = on on 2 ranks: it ran steps"

# A plan with graph = on from the tuning database or a checkpoint (not run.plan): a parallel run
# takes the same kernels launched one by one and says so (drop_graph_for_parallel_steps). Host
# backend only: the database's winner is tuned here (10 host variants, under a second) and then
# edited to graph = on, which the host backend runs as its launches come. A CUDA tune would
# put graph = on there itself, at the cost of a real tuning run.
if ! printf '%s\n' "$@" | grep -qx 'run.backend=cuda'; then
  db="$work/tuning.json"
  RTDG_TUNE=force RTDG_TUNING_DB="$db" run graph_tune "$rtdg" run || { cat "$work/graph_tune.log"; fail "tuning for the graph runs"; }
  grep -q '"graph": 0' "$db" || fail "the tuning database $db holds no \"graph\": 0 to turn on"
  sed -i 's/"graph": 0/"graph": 1/g' "$db"
  RTDG_TUNE=auto RTDG_TUNING_DB="$db" run graph_serial "$rtdg" run || { cat "$work/graph_serial.log"; fail "serial run on a graph plan"; }
  grep -q 'plan as run.plan: ".* graph=on"' "$work/graph_serial.log" ||
    { cat "$work/graph_serial.log"; fail "the serial run did not take the database's graph plan"; }
  last_name=$(basename "$(ls "$work/graph_serial/snapshots/${name}"_*.h5 | sort | tail -1)")
  graph_last="$work/graph_serial_last.h5"  # the restart below continues in graph_serial and rewrites it
  cp "$work/graph_serial/snapshots/$last_name" "$graph_last"
  dropped="graph off: a parallel step exchanges halo traces between its launches"
  RTDG_TUNE=auto RTDG_TUNING_DB="$db" run graph_np2 "$mpiexec" -n 2 "$rtdg" run ||
    { cat "$work/graph_np2.log"; fail "2 ranks on the database's graph plan"; }
  grep -q "tuning database.*$dropped" "$work/graph_np2.log" ||
    { cat "$work/graph_np2.log"; fail "2 ranks on the database's graph plan: the log does not say the graph is off"; }
  grep -q 'plan as run.plan: ".* graph=on"' "$work/graph_np2.log" && fail "2 ranks kept the database's graph = on"
  "$compare" "$graph_last" "$work/graph_np2/snapshots/$last_name" 1e-12 ||
    fail "2 ranks without the database's graph differ from the serial graph run"
  checkpoint=$(ls "$work/graph_serial/checkpoints/"checkpoint_*.h5 | sort | head -1)
  RTDG_TUNE=off timeout 300 "$mpiexec" -n 2 "$rtdg" run --restart "$checkpoint" --overwrite > "$work/graph_restart.log" 2>&1 ||
    { cat "$work/graph_restart.log"; fail "restart on 2 ranks of a checkpoint computed with graph = on"; }
  grep -q "the checkpoint's; $dropped" "$work/graph_restart.log" ||
    { cat "$work/graph_restart.log"; fail "restart on 2 ranks of a graph checkpoint: the log does not say the graph is off"; }
  "$compare" "$graph_last" "$work/graph_serial/snapshots/$last_name" 0 ||
    fail "the 2-rank restart of a graph checkpoint differs from the serial graph run"
fi

# A blow-up: every rank stops, non-zero, with the step, time, field and element.
start=$(date +%s)
timeout 120 "$mpiexec" -n 2 "$rtdg" run "$config" --set "run.output_dir=\"$work/blowup\"" --set time.cfl=10 --set time.allow_unstable=true \
  --set time.final=20 "${@}" > "$work/blowup.log" 2>&1
code=$?
[ $code -ne 0 ] && [ $code -ne 124 ] || { cat "$work/blowup.log"; fail "blow-up on 2 ranks: exit $code"; }
grep -q "growing without bound\|stopped being finite" "$work/blowup.log" || { cat "$work/blowup.log"; fail "blow-up message"; }
grep -q "in element" "$work/blowup.log" || { cat "$work/blowup.log"; fail "blow-up message names no element"; }

# Rank 0 alone fails (its output folder holds an earlier run): every rank ends, non-zero.
timeout 120 "$mpiexec" -n 2 "$rtdg" run "$config" --set "run.output_dir=\"$work/np2\"" "${common[@]}" > "$work/taken.log" 2>&1
code=$?
[ $code -ne 0 ] && [ $code -ne 124 ] || { cat "$work/taken.log"; fail "a failure on rank 0: exit $code"; }
grep -q "already holds" "$work/taken.log" || { cat "$work/taken.log"; fail "rank 0's message"; }
echo "failure runs ended in $(( $(date +%s) - start )) s"

# SIGTERM to the launcher reaches every rank; they agree on the step, write one checkpoint and stop.
"$mpiexec" -n 2 "$rtdg" run "$config" --set "run.output_dir=\"$work/term\"" --set time.final=1000 --set output.interval=0 \
  "${@}" > "$work/term.log" 2>&1 &
launcher=$!
for _ in $(seq 1 600); do grep -q "kernels ready" "$work/term.log" 2>/dev/null && break; sleep 0.1; done
sleep 1
kill -TERM $launcher
for _ in $(seq 1 300); do kill -0 $launcher 2>/dev/null || break; sleep 0.1; done
kill -0 $launcher 2>/dev/null && { kill -KILL $launcher; cat "$work/term.log"; fail "SIGTERM: the ranks did not stop within 30 s"; }
grep -q "terminated (SIGTERM)" "$work/term.log" || { cat "$work/term.log"; fail "SIGTERM: no stop message"; }
ls "$work/term/checkpoints/"checkpoint_*.h5 > /dev/null 2>&1 || { cat "$work/term.log"; fail "SIGTERM: no checkpoint"; }
echo "SIGTERM: stopped with a checkpoint"

# The compile cache: 3 ranks starting at once compile each program once (a lock per key) and
# load it 3 times, so they miss as often as one serial run and hit twice as often.
cache_stat() { RTDG_CACHE_DIR=$1 "$rtdg" cache info | awk -v key="$2" '$1 == key { print $2 }'; }
RTDG_TUNE=off RTDG_CACHE_DIR="$work/cache1" timeout 300 "$rtdg" run "$config" --set "run.output_dir=\"$work/cache1_run\"" \
  --set time.final=0.05 "${@}" > "$work/cache1.log" 2>&1 || { cat "$work/cache1.log"; fail "cache check: serial run"; }
RTDG_TUNE=off RTDG_CACHE_DIR="$work/cache3" timeout 300 "$mpiexec" -n 3 "$rtdg" run "$config" \
  --set "run.output_dir=\"$work/cache3_run\"" --set time.final=0.05 "${@}" > "$work/cache3.log" 2>&1 ||
  { cat "$work/cache3.log"; fail "cache check: 3 ranks"; }
m1=$(cache_stat "$work/cache1" misses) m3=$(cache_stat "$work/cache3" misses) h3=$(cache_stat "$work/cache3" hits)
echo "compile cache: serial $m1 compiles; 3 ranks $m3 compiles, $h3 loads from the cache"
[ -n "$m1" ] && [ "$m1" -gt 0 ] && [ "$m3" = "$m1" ] && [ "$h3" -ge $((2 * m1)) ] || fail "3 ranks compiled more than once per program"
echo "OK"
