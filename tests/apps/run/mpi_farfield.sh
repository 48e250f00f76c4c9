#!/usr/bin/env bash
# The far-field transform of a scattering run in parallel (docs/parallel.md), on the host backend
# (or another, e.g. --set run.backend=cuda: skipped, 77, without a CUDA device):
#   mpi_farfield.sh <rtdg> <mpiexec> <config> [--set ...]
# (the --set options make the config small; the far field must be sampled after the scattered
# wave reached the surface, and the first checkpoint come after the sampling started)
# - 2 and 3 ranks give the serial run's far-field CSVs (farfield/*.csv) to 1e-12 relative, and
#   its probe files byte for byte (each rank accumulates its own surface points; the twins of
#   points on faces between ranks come from the neighbour at each sample);
# - a checkpoint written by 3 ranks holds the sums in the serial layout, so 1 and 2 ranks
#   continue it to the serial run's far field.
# The log must show faces between ranks (the surface and, with TF/SF, the total-field surface
# are cut by the partition), or the test would not test the exchange.
#
# Distributed mesh input (docs/parallel.md, "Which mesh"):
#   mpi_farfield.sh <rtdg> <mpiexec> <config> --partitioned <mesh args> -- [--set ...]
# first writes `rtdg mesh <mesh args> --partitions 2,3 -o mesh.h5` and runs every case on it
# (the config's mesh.parameters dropped); with a config whose mesh is such an .h5 already (with
# partitions into 2 and 3 parts), `--partitioned --` runs on it as it is. Either way every
# parallel run and restart must have read only its part (the log's partition line), and give
# the serial run's numbers; and 4 ranks, for which the file stores no partition, must say so
# and give them too.
#
# Without a stored partition (docs/parallel.md, "Which mesh"):
#   mpi_farfield.sh <rtdg> <mpiexec> <config> --sent <mesh args> -- [--set ...]
# writes `rtdg mesh <mesh args> -o mesh.h5` (no partition) and runs every case on it: every
# parallel run must say that rank 0 partitioned the mesh and sent each rank its part, and give
# the serial run's numbers; and the same runs on a copy with stored 2- and 3-part partitions
# (`rtdg mesh mesh.h5 --partitions 2,3`, each rank reading its part: the same METIS partition)
# must give the same parts (elements and halo faces of every rank, summary.json) and the same
# far-field and probe files, byte for byte.
set -uo pipefail
rtdg=$1 mpiexec=$2 config=$3
shift 3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMP_NUM_THREADS=1 RTDG_TUNE=off
fail() { echo "FAILED: $*"; exit 1; }
partitioned=0 sent=0 mesh_args=()
if [ "${1:-}" = --partitioned ] || [ "${1:-}" = --sent ]; then
  [ "$1" = --partitioned ] && partitioned=1 || sent=1
  shift
  while [ $# -gt 0 ] && [ "$1" != -- ]; do mesh_args+=("$1"); shift; done
  [ $# -gt 0 ] && shift
fi
common=(--set run.backend=host "$@")
if [ $sent = 1 ]; then
  "$rtdg" mesh "${mesh_args[@]}" -o "$work/mesh.h5" > "$work/mesh.log" 2>&1 || { cat "$work/mesh.log"; fail "rtdg mesh"; }
  "$rtdg" mesh "$work/mesh.h5" --partitions 2,3 -o "$work/stored.h5" >> "$work/mesh.log" 2>&1 ||
    { cat "$work/mesh.log"; fail "rtdg mesh --partitions 2,3"; }
  common+=(--set "mesh.file=\"$work/mesh.h5\"" --set "mesh.parameters={}")
elif [ ${#mesh_args[@]} -gt 0 ]; then
  "$rtdg" mesh "${mesh_args[@]}" --partitions 2,3 -o "$work/mesh.h5" > "$work/mesh.log" 2>&1 || { cat "$work/mesh.log"; fail "rtdg mesh"; }
  common+=(--set "mesh.file=\"$work/mesh.h5\"" --set "mesh.parameters={}")
fi
# Under --partitioned, a parallel run's log must say that each rank read only its part.
read_parts() {
  [ $partitioned = 1 ] || return 0
  grep -q "partition stored in .*, each rank reading its part" "$1" || { cat "$1"; fail "$2: the ranks did not read only their parts of the mesh"; }
}
# Under --sent, that rank 0 partitioned the mesh and sent the parts (no rank but 0 held it).
sent_parts() {
  [ $sent = 1 ] || return 0
  grep -q "partition METIS k-way on rank 0, which sent each rank its part" "$1" ||
    { cat "$1"; fail "$2: rank 0 did not partition the mesh and send the parts"; }
  ! grep -q "every rank holds it" "$1" || { cat "$1"; fail "$2: every rank held the whole mesh"; }
}
# summary.json's set-up, start-up (launch to the first step) and peak host memory: positive,
# start-up at least the set-up, and with P ranks each rank's in parallel.balance, the run's the
# largest of them.
check_summary() {
  python3 -c 'import json, sys
s = json.load(open(sys.argv[1])); P = int(sys.argv[2])
keys = ("setup_seconds", "startup_seconds", "peak_memory_bytes")
def sane(d, where):
    for k in keys:
        if not (k in d and d[k] > 0): sys.exit(where + ": " + k + " missing or not positive: " + str(d.get(k)))
    if d["startup_seconds"] < d["setup_seconds"]: sys.exit(where + ": start-up shorter than the set-up")
    if not (1 << 20) < d["peak_memory_bytes"] < (1 << 36): sys.exit(where + ": peak memory " + str(d["peak_memory_bytes"]))
sane(s, "the run")
if P > 1:
    ranks = s["parallel"]["balance"]
    if len(ranks) != P: sys.exit(str(len(ranks)) + " ranks in parallel.balance")
    for r in ranks: sane(r, "rank " + str(r["rank"]))
    for k in keys:
        if s[k] != max(r[k] for r in ranks): sys.exit(k + " is not the largest of the ranks\x27")
print("summary: set-up %.3g s, start-up %.3g s, peak memory %.1f MiB" % (s["setup_seconds"], s["startup_seconds"], s["peak_memory_bytes"] / 2**20))
' "$1" "$2" || fail "$1: the summary's set-up, start-up or peak memory"
}
# Each rank's elements and halo faces (summary.json's parallel.balance), one line per rank.
rank_parts() {
  python3 -c 'import json, sys
for r in json.load(open(sys.argv[1]))["parallel"]["balance"]: print(r["rank"], r["elements"], r["halo_faces"])' "$1"
}
if printf '%s\n' "$@" | grep -qx 'run.backend=cuda'; then
  command -v nvidia-smi > /dev/null && nvidia-smi -L > /dev/null 2>&1 || { echo "no CUDA device: skipped"; exit 77; }
fi
# run <folder> <command...>: the config with the common options, then $extra (overrides that win).
extra=()
run() { local dir=$1; shift; timeout 300 "$@" "$config" --set "run.output_dir=\"$work/$dir\"" "${common[@]}" ${extra[@]+"${extra[@]}"} > "$work/$dir.log" 2>&1; }

# The largest relative difference of two CSV files of numbers (same header, same shape), over
# the entries; |a - b| / max(|a|, |b|, 1e-300). Prints it; fails on another shape.
compare_csv() {
  awk -F, -v limit="$3" '
    NR == FNR { row[FNR] = $0; rows = FNR; next }
    FNR == 1 { if ($0 != row[1]) { print "headers differ"; bad = 1 } ; next }
    {
      n = split(row[FNR], a, ",")
      if (n != NF) { print "row " FNR ": " n " vs " NF " columns"; bad = 1; next }
      for (i = 1; i <= NF; ++i) {
        x = a[i] + 0; y = $i + 0
        d = x - y; if (d < 0) d = -d
        s = (x < 0 ? -x : x); t = (y < 0 ? -y : y); if (t > s) s = t; if (s < 1e-300) s = 1e-300
        if (d / s > worst) worst = d / s
      }
    }
    END {
      if (FNR != rows) { print "rows differ: " rows " vs " FNR; bad = 1 }
      printf "%.3g\n", worst + 0
      exit (bad || worst > limit) ? 1 : 0
    }' "$1" "$2"
}

run serial "$rtdg" run || { cat "$work/serial.log"; fail "serial run"; }
check_summary "$work/serial/summary.json" 1
ls "$work/serial/farfield/"*.csv > /dev/null 2>&1 || { cat "$work/serial.log"; fail "the serial run wrote no far field"; }
# Some far field, not zeros everywhere (a zero field is 0 in the cuts' value column, -3000 dB).
cat "$work"/serial/farfield/f*_*.csv | awk -F, '$1 ~ /^[0-9.e+-]+$/ && $0 !~ /,-3000(,|$)/ { n++ } END { exit n ? 0 : 1 }' ||
  fail "the serial run's far field is zero everywhere: sample after the scattered wave reached the surface"
farfield_cut=0 tfsf_cut=0
check_farfield() {
  local dir=$1 what=$2
  for csv in "$work"/serial/farfield/*.csv; do
    local other="$work/$dir/farfield/$(basename "$csv")"
    [ -s "$other" ] || fail "$what: no $(basename "$csv")"
    local worst
    worst=$(compare_csv "$csv" "$other" 1e-12) || fail "$what: $(basename "$csv") differs from the serial run's ($worst)"
    echo "$what: $(basename "$csv") max relative difference $worst"
  done
}
for np in 2 3; do
  run np$np "$mpiexec" -n $np "$rtdg" run || { cat "$work/np$np.log"; fail "$np ranks"; }
  read_parts "$work/np$np.log" "$np ranks"
  sent_parts "$work/np$np.log" "$np ranks"
  check_summary "$work/np$np/summary.json" $np
  grep -q "far field: Huygens surface of .* between ranks" "$work/np$np.log" ||
    { cat "$work/np$np.log"; fail "$np ranks: the far-field log line does not count the faces between ranks"; }
  grep -q "far field: Huygens surface of .*; 0 faces between ranks" "$work/np$np.log" || farfield_cut=1
  grep -q "total-field/scattered-field incidence: .* ([1-9][0-9]* between ranks)" "$work/np$np.log" && tfsf_cut=1
  check_farfield np$np "$np ranks"
  for probe in "$work"/serial/*.csv; do
    [ -e "$probe" ] || continue
    cmp -s "$probe" "$work/np$np/$(basename "$probe")" || fail "$np ranks: probe file $(basename "$probe") differs"
    echo "$np ranks: probe $(basename "$probe") byte for byte the serial run's"
  done
  # The parts rank 0 sent are those each rank reads of the stored partition (the same METIS
  # call), and the outputs are the same files.
  if [ $sent = 1 ]; then
    extra=(--set "mesh.file=\"$work/stored.h5\"")
    run stored$np "$mpiexec" -n $np "$rtdg" run || { cat "$work/stored$np.log"; fail "$np ranks on the stored partition"; }
    extra=()
    grep -q "partition stored in .*, each rank reading its part" "$work/stored$np.log" ||
      { cat "$work/stored$np.log"; fail "$np ranks on stored.h5 did not read their parts"; }
    sent_ranks=$(rank_parts "$work/np$np/summary.json") && stored_ranks=$(rank_parts "$work/stored$np/summary.json") ||
      fail "$np ranks: no parallel.balance in summary.json"
    [ "$(echo "$sent_ranks" | wc -l)" = $np ] || fail "$np ranks: summary.json lists $(echo "$sent_ranks" | wc -l) ranks"
    [ "$sent_ranks" = "$stored_ranks" ] ||
      fail "$np ranks: the parts sent (rank, elements, halo faces: $sent_ranks) are not the stored partition's ($stored_ranks)"
    echo "$np ranks: parts sent by rank 0 (rank, elements, halo faces):" $sent_ranks
    for file in "$work"/stored$np/farfield/*.csv "$work"/stored$np/*.csv; do
      [ -e "$file" ] || continue
      other="$work/np$np/${file#"$work/stored$np/"}"
      cmp -s "$file" "$other" || fail "$np ranks: ${file#"$work/stored$np/"} differs between the parts sent and the parts read"
    done
    echo "$np ranks: far field and probes byte for byte those of the stored partition's run"
  fi
done
# A rank count without a stored partition: every rank holds the whole mesh, says the log, and
# the numbers are the same.
if [ $partitioned = 1 ]; then
  run np4 "$mpiexec" -n 4 "$rtdg" run || { cat "$work/np4.log"; fail "4 ranks"; }
  grep -q "stores no partition into 4 parts (it stores 2, 3): rank 0 reads the whole mesh" "$work/np4.log" ||
    { cat "$work/np4.log"; fail "4 ranks: the log does not say why every rank holds the whole mesh"; }
  check_farfield np4 "4 ranks (no stored partition)"
fi
# RTDG_WHOLE_MESH=1: every rank holds the whole mesh again (rank 0 broadcasts it), the same numbers.
if [ $sent = 1 ]; then
  RTDG_WHOLE_MESH=1 run whole3 "$mpiexec" -n 3 -x RTDG_WHOLE_MESH "$rtdg" run || { cat "$work/whole3.log"; fail "3 ranks, RTDG_WHOLE_MESH=1"; }
  grep -q "RTDG_WHOLE_MESH is set: rank 0 reads the whole mesh and every rank holds it" "$work/whole3.log" &&
    grep -q "partition METIS k-way at start" "$work/whole3.log" ||
    { cat "$work/whole3.log"; fail "3 ranks, RTDG_WHOLE_MESH=1: the log does not say that every rank holds the whole mesh"; }
  check_farfield whole3 "3 ranks, RTDG_WHOLE_MESH=1"
fi
[ $farfield_cut = 1 ] || fail "no far-field face lies between ranks on 2 or 3 ranks, so the exchange is not tested"
grep -h "far field: Huygens surface" "$work/np2.log" "$work/np3.log"
if grep -q "total-field/scattered-field incidence" "$work/serial.log"; then
  [ $tfsf_cut = 1 ] || fail "no total-field/scattered-field face lies between ranks on 2 or 3 ranks, so TF/SF across ranks is not tested"
  grep -h "total-field/scattered-field incidence" "$work/np2.log" "$work/np3.log"
fi

# A checkpoint of 3 ranks (the sums in the serial layout) continued on 1 rank into a new
# folder, and on 2 ranks in its own.
checkpoint=$(ls "$work/np3/checkpoints/"checkpoint_*.h5 | sort | head -1)
timeout 300 "$rtdg" run --restart "$checkpoint" --set "run.output_dir=\"$work/np3_on1\"" > "$work/restart1.log" 2>&1 ||
  { cat "$work/restart1.log"; fail "restart on 1 rank"; }
check_farfield np3_on1 "3 ranks, continued on 1 from $(basename "$checkpoint")"
timeout 300 "$mpiexec" -n 2 "$rtdg" run --restart "$checkpoint" --overwrite > "$work/restart.log" 2>&1 ||
  { cat "$work/restart.log"; fail "restart on 2 ranks"; }
grep -q "restarting from" "$work/restart.log" || { cat "$work/restart.log"; fail "the restart log"; }
read_parts "$work/restart.log" "the restart on 2 ranks"
sent_parts "$work/restart.log" "the restart on 2 ranks"
check_farfield np3 "3 ranks, continued on 2 from $(basename "$checkpoint")"
echo "far field in parallel: the serial run's"
