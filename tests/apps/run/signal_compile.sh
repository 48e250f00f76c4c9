#!/usr/bin/env bash
# Signals that arrive while the host compiler runs (rtcg::stop_compiling, runner/run.hpp):
#   signal_compile.sh <rtdg> <config>
# The compiler is a wrapper around the real one that sends the signal to rtdg itself (not to its
# process group, as `kill <pid>` from another shell does; rtdg is the parent of the compiler's
# parent, rtcg's supervisor process) and then takes 60 s, so the signal arrives during the compile
# whatever the machine's speed; an empty compile cache makes rtdg compile every kernel.
# - SIGTERM at set-up (the first DG kernel compile): the compile is abandoned at once, rtdg exits
#   143 within seconds saying nothing was written, and no checkpoint or snapshot exists.
# - SIGINT during a compile once the run is set up (the max |q| reduction made on first use):
#   the compile runs to its end, and the run stops at its first step with a checkpoint listed in
#   the run folder's manifest, from which --restart continues to the end.
# - SIGKILL at set-up: the compiler dies with rtdg within a second or two, the compile's scratch
#   folder is left (nothing could remove it), and the next rtdg that makes a host compiler
#   (`rtdg info`) removes it, leaving a folder of the same name pattern of a live process alone.
set -uo pipefail
rtdg=$1 config=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAILED: $*"; exit 1; }
real_cxx=${CXX:-c++}
command -v "$real_cxx" > /dev/null || real_cxx=g++

# wrapper <pattern> <signal>: compiles normally, except the program whose source name matches
# <pattern>: for it, signal rtdg (the parent's parent) once and take 60 s before compiling.
wrapper() {
  cat > "$work/cxx" <<WRAP
#!/usr/bin/env bash
for arg in "\$@"; do
  case "\$arg" in
    *$1*.cpp) if [ ! -e "$work/signalled" ]; then
                touch "$work/signalled"
                rtdg_pid=\$(sed 's/.*) [A-Za-z] \([0-9]*\) .*/\1/' /proc/\$PPID/stat)
                kill -$2 "\$rtdg_pid"; sleep 60
              fi ;;
  esac
done
exec $real_cxx "\$@"
WRAP
  chmod +x "$work/cxx"
  rm -f "$work/signalled"
}
common=(--set run.backend=host --set discretization.order=2 --set mesh.parameters.h=0.5 --set time.final=0.2
        --set output.vtu=false --set output.interval=0.1 --set checkpoint.interval=0.1)

# 1. SIGTERM during the DG kernels' compile at set-up (program dg_<law>_...).
wrapper dg_maxwell2d TERM
start=$(date +%s)
CXX="$work/cxx" RTDG_CACHE_DIR="$work/cache1" RTDG_TUNE=off timeout 120 "$rtdg" run "$config" \
  --set "run.output_dir=\"$work/setup\"" "${common[@]}" > "$work/setup.log" 2>&1
status=$?
elapsed=$(( $(date +%s) - start ))
cat "$work/setup.log"
[ -e "$work/signalled" ] || fail "set-up: the wrapper never saw a DG kernel compile"
[ "$status" = 143 ] || fail "set-up: exit status $status, expected 143 (SIGTERM)"
[ "$elapsed" -lt 50 ] || fail "set-up: rtdg took ${elapsed} s: it waited for the compile instead of stopping it"
grep -q "terminated (SIGTERM) while setting up the run; nothing was written" "$work/setup.log" || fail "set-up: no message"
! ls "$work/setup/checkpoints/"*.h5 > /dev/null 2>&1 || fail "set-up: a checkpoint was written"
! ls "$work/setup/snapshots/"*.h5 > /dev/null 2>&1 || fail "set-up: a snapshot was written"
pgrep -f "$work/cxx" > /dev/null && fail "set-up: the compiler wrapper is still running"
echo "set-up: stopped in ${elapsed} s"

# 2. SIGINT during a compile once the run is set up: the compile completes, the run stops with a
# checkpoint the manifest lists, and the restart continues from it.
wrapper max_abs INT
CXX="$work/cxx" RTDG_CACHE_DIR="$work/cache2" RTDG_TUNE=off timeout 300 "$rtdg" run "$config" \
  --set "run.output_dir=\"$work/run\"" "${common[@]}" > "$work/run.log" 2>&1
status=$?
cat "$work/run.log"
[ -e "$work/signalled" ] || fail "run: the wrapper never saw the max_abs compile"
[ "$status" = 130 ] || fail "run: exit status $status, expected 130 (SIGINT)"
checkpoint=$(sed -n 's/.*continue with: rtdg run --restart \(.*\)$/\1/p' "$work/run.log")
[ -n "$checkpoint" ] && [ -s "$checkpoint" ] || fail "run: no checkpoint named to continue from"
grep -q "\"$(basename "$checkpoint")\"\|$(basename "$checkpoint")" "$work/run/.rtdg-manifest" ||
  fail "run: the manifest does not list $(basename "$checkpoint")"
[ ! -e "$work/run/.rtdg-lock" ] || fail "run: the lock was left behind"
RTDG_CACHE_DIR="$work/cache2" RTDG_TUNE=off timeout 300 "$rtdg" run --restart "$checkpoint" > "$work/restart.log" 2>&1 ||
  { cat "$work/restart.log"; fail "run: the restart failed"; }
grep -q "finished" "$work/restart.log" || { cat "$work/restart.log"; fail "run: the restart did not finish"; }
echo "run: stopped with $(basename "$checkpoint"), restarted to the end"

# 3. SIGKILL during the DG kernels' compile at set-up: nothing in rtdg can act, the compiler must
# still go, and the scratch folder is removed by the next rtdg that makes a host compiler.
wrapper dg_maxwell2d KILL
mkdir -p "$work/tmp"
TMPDIR="$work/tmp" CXX="$work/cxx" RTDG_CACHE_DIR="$work/cache1" RTDG_TUNE=off timeout 120 "$rtdg" run "$config" \
  --set "run.output_dir=\"$work/killed\"" "${common[@]}" > "$work/killed.log" 2>&1
status=$?
[ -e "$work/signalled" ] || { cat "$work/killed.log"; fail "SIGKILL: the wrapper never saw a DG kernel compile"; }
[ "$status" = 137 ] || { cat "$work/killed.log"; fail "SIGKILL: exit status $status, expected 137"; }
for _ in $(seq 40); do pgrep -f "$work/cxx" > /dev/null || break; sleep 0.05; done
pgrep -f "$work/cxx" > /dev/null && fail "SIGKILL: the compiler outlived rtdg by 2 s"
scratch=$(ls -d "$work/tmp"/rtcg-host-* 2> /dev/null)
[ -n "$scratch" ] || fail "SIGKILL: no scratch folder was left (is TMPDIR honoured?)"
live="$work/tmp/rtcg-host-$$-Live00"
mkdir -m 700 "$live"
printf 'rtcg host compile scratch folder\npid %s\nstarted %s\nnamespace %s\n' $$ \
  "$(sed 's/.*) //' /proc/$$/stat | cut -d' ' -f20)" "$(readlink /proc/self/ns/pid)" > "$live/.rtcg-scratch"
TMPDIR="$work/tmp" RTDG_CACHE_DIR="$work/cache1" "$rtdg" info > "$work/info.log" 2>&1 || { cat "$work/info.log"; fail "rtdg info failed"; }
[ ! -e "$scratch" ] || fail "SIGKILL: the next rtdg left $scratch"
[ -e "$live/.rtcg-scratch" ] || fail "SIGKILL: the next rtdg removed a folder that was not a dead process's"
echo "SIGKILL: the compiler went with rtdg, and the next rtdg removed its scratch folder"
