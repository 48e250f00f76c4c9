#!/usr/bin/env bash
# The run folder under MPI (docs/running.md, "What rtdg deletes"): rank 0 holds the lock and
# writes the manifest, for every rank count.
#   mpi_folder.sh <rtdg> <mpiexec> <config>
# - a second parallel run into a folder a parallel run is writing is refused at once, naming the
#   first run's pid, and ends every one of its ranks; the first run is not disturbed;
# - a run on 3 ranks restarted from its first checkpoint on 2 ranks (--overwrite) leaves a
#   manifest that lists exactly the files of the folder, and a summary naming files that exist;
# - a .geo on 2 ranks is meshed once, by rank 0, into <stem>_meshed.h5 of the output folder (in
#   the manifest, kind mesh, with the run's partition): a run on that file reads each rank's part
#   and gives the same result; --overwrite replaces only rtdg's files, and a file of that name
#   that rtdg did not write stops the run, untouched.
set -uo pipefail
rtdg=$1 mpiexec=$2 config=$3
work=$(mktemp -d)
trap 'kill -KILL ${first:-} 2> /dev/null; rm -rf "$work"' EXIT
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMP_NUM_THREADS=1 RTDG_TUNE=off
fail() { echo "FAILED: $*"; exit 1; }
common=(--set run.backend=host --set output.vtu=false --set output.interval=0.1 --set checkpoint.interval=0.1
        --set checkpoint.keep=10)

# The live file entries of a manifest ("+ kind step time path" adds, "- path" removes; folders,
# kind "folder", left out), sorted.
listed() { awk 'NR > 1 && $1 == "+" && $2 != "folder" { sub(/^\+ [^ ]+ [^ ]+ [^ ]+ /, ""); live[$0] = 1 } NR > 1 && $1 == "-" { sub(/^- /, ""); delete live[$0] } END { for (p in live) print p }' "$1/.rtdg-manifest" | sort; }
# The files of a run folder but its lock and manifest, relative, sorted.
present() { (cd "$1" && find . -type f ! -name .rtdg-manifest ! -name .rtdg-lock | sed 's|^\./||' | sort); }

# 1. Two parallel runs into one folder.
"$mpiexec" -n 2 "$rtdg" run "$config" --set "run.output_dir=\"$work/shared\"" "${common[@]}" --set time.final=1000 \
  --set output.interval=0 > "$work/first.log" 2>&1 &
first=$!
for _ in $(seq 1 1200); do grep -q "kernels ready" "$work/first.log" 2>/dev/null && break; sleep 0.1; done
grep -q "kernels ready" "$work/first.log" || { cat "$work/first.log"; fail "the first run did not start"; }
holder=$(cat "$work/shared/.rtdg-lock")
start=$(date +%s)
timeout 120 "$mpiexec" -n 2 "$rtdg" run "$config" --set "run.output_dir=\"$work/shared\"" "${common[@]}" --overwrite \
  > "$work/second.log" 2>&1
code=$?
cat "$work/second.log"
[ $code -ne 0 ] && [ $code -ne 124 ] || fail "the second run into a folder in use: exit $code"
grep -q "another rtdg run (pid $holder) is writing into the output folder" "$work/second.log" ||
  fail "the second run does not name the first run's pid $holder"
echo "second run refused in $(( $(date +%s) - start )) s"
kill -0 $first 2> /dev/null || { cat "$work/first.log"; fail "the first run ended when the second was refused"; }
# SIGTERM to the ranks themselves (the launcher's forwarding is mpi_run.sh's test): they agree on
# a step, write one checkpoint and stop.
ranks=$(pgrep -P $first)
[ -n "$ranks" ] || fail "the first run's ranks are not children of $mpiexec"
kill -TERM $ranks
for _ in $(seq 1 600); do kill -0 $first 2>/dev/null || break; sleep 0.1; done
kill -0 $first 2>/dev/null && fail "the first run did not stop on SIGTERM"
first=
grep -q "terminated (SIGTERM)" "$work/first.log" || { cat "$work/first.log"; fail "the first run: no stop message"; }
[ ! -e "$work/shared/.rtdg-lock" ] || fail "the first run left its lock behind"
[ "$(listed "$work/shared")" = "$(present "$work/shared")" ] ||
  { diff <(listed "$work/shared") <(present "$work/shared"); fail "the first run's manifest does not list its files"; }

# 2. 3 ranks to the end, then 2 ranks from its first checkpoint.
timeout 300 "$mpiexec" -n 3 "$rtdg" run "$config" --set "run.output_dir=\"$work/np3\"" "${common[@]}" --set time.final=0.3 \
  > "$work/np3.log" 2>&1 || { cat "$work/np3.log"; fail "3 ranks"; }
[ "$(listed "$work/np3")" = "$(present "$work/np3")" ] ||
  { diff <(listed "$work/np3") <(present "$work/np3"); fail "3 ranks: the manifest does not list the folder's files"; }
checkpoint=$(ls "$work/np3/checkpoints/"checkpoint_*.h5 | sort | head -1)
last=$(ls "$work/np3/checkpoints/"checkpoint_*.h5 | sort | tail -1)
timeout 300 "$mpiexec" -n 2 "$rtdg" run --restart "$checkpoint" --overwrite > "$work/restart.log" 2>&1 ||
  { cat "$work/restart.log"; fail "the restart on 2 ranks"; }
[ "$(listed "$work/np3")" = "$(present "$work/np3")" ] ||
  { diff <(listed "$work/np3") <(present "$work/np3"); fail "after the restart on 2 ranks: the manifest does not list the folder's files"; }
[ -s "$last" ] || fail "after the restart on 2 ranks: the final checkpoint $(basename "$last") is missing"
for named in $(grep -o '"[^"]*checkpoint_[0-9]*\.h5"' "$work/np3/summary.json" | tr -d '"'); do
  [ -s "$named" ] || [ -s "$work/np3/$named" ] || fail "summary.json names $named, which does not exist"
done
# 3. A .geo on 2 ranks: meshed once, written to the output folder, read back in parts.
geo=$(sed -n 's/^file *= *"\([^"]*\.geo\)".*/\1/p' "$config" | head -1)
[ -n "$geo" ] || fail "$config: no .geo mesh"
meshed="$(basename "$geo" .geo)_meshed.h5"
timeout 300 "$mpiexec" -n 2 "$rtdg" run "$config" --set "run.output_dir=\"$work/geo\"" "${common[@]}" --set time.final=0.1 \
  > "$work/geo.log" 2>&1 || { cat "$work/geo.log"; fail "2 ranks on $geo"; }
grep -q "mesh: rank 0 meshed $(basename "$geo") (.* elements) once and wrote it, with its partition into 2 parts, to $work/geo/$meshed" "$work/geo.log" ||
  { cat "$work/geo.log"; fail "2 ranks: the log does not name the mesh file written"; }
[ -s "$work/geo/$meshed" ] || fail "2 ranks: no $meshed in the output folder"
grep -qx "+ mesh 0 0 $meshed" "$work/geo/.rtdg-manifest" || { cat "$work/geo/.rtdg-manifest"; fail "$meshed is not in the manifest"; }
[ "$(listed "$work/geo")" = "$(present "$work/geo")" ] ||
  { diff <(listed "$work/geo") <(present "$work/geo"); fail "2 ranks on $geo: the manifest does not list the folder's files"; }
cp "$work/geo/$meshed" "$work/meshed.h5"
timeout 300 "$mpiexec" -n 2 "$rtdg" run "$config" --set "run.output_dir=\"$work/geo_read\"" "${common[@]}" --set time.final=0.1 \
  --set "mesh.file=\"$work/meshed.h5\"" --set "mesh.parameters={}" > "$work/geo_read.log" 2>&1 ||
  { cat "$work/geo_read.log"; fail "2 ranks on $meshed"; }
grep -q "partition stored in meshed.h5, each rank reading its part" "$work/geo_read.log" ||
  { cat "$work/geo_read.log"; fail "2 ranks on $meshed: the ranks did not read their parts"; }
for key in l2_error elements final_step; do
  a=$(grep "\"$key\":" "$work/geo/summary.json") b=$(grep "\"$key\":" "$work/geo_read/summary.json")
  [ -n "$a" ] && [ "$a" = "$b" ] || fail "$key: $a on $geo, $b on $meshed"
done
# --overwrite: the mesh file is rtdg's, so it is replaced; a user's file beside it stays.
echo mine > "$work/geo/notes.txt"
timeout 300 "$mpiexec" -n 2 "$rtdg" run "$config" --set "run.output_dir=\"$work/geo\"" "${common[@]}" --set time.final=0.1 \
  --overwrite > "$work/geo_again.log" 2>&1 || { cat "$work/geo_again.log"; fail "2 ranks on $geo, --overwrite"; }
[ -s "$work/geo/$meshed" ] && [ "$(cat "$work/geo/notes.txt")" = mine ] || fail "--overwrite: $meshed missing or notes.txt changed"
# A file of that name that rtdg did not write: the run stops, naming it, and leaves it alone.
mkdir -p "$work/foreign" && echo mine > "$work/foreign/$meshed"
timeout 300 "$mpiexec" -n 2 "$rtdg" run "$config" --set "run.output_dir=\"$work/foreign\"" "${common[@]}" --set time.final=0.1 \
  --overwrite > "$work/foreign.log" 2>&1 && { cat "$work/foreign.log"; fail "a run wrote over a $meshed it did not write"; }
grep -q "$meshed" "$work/foreign.log" || { cat "$work/foreign.log"; fail "the refusal does not name $meshed"; }
[ "$(cat "$work/foreign/$meshed")" = mine ] || fail "the user's $meshed was changed"
echo "OK"
