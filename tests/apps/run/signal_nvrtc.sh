#!/usr/bin/env bash
# SIGTERM while NVRTC compiles at set-up (rtcg::stop_compiling; NVRTC runs on a thread named
# rtcg-nvrtc while rtdg waits for it):
#   signal_nvrtc.sh <rtdg> <config>
# rtdg exits 143 within a second and a half of the signal, saying nothing was written, and
# writes no checkpoint or snapshot. Skipped (77) where there is no CUDA device.
set -uo pipefail
rtdg=$1 config=$2
command -v nvidia-smi > /dev/null && nvidia-smi -L > /dev/null 2>&1 || { echo "no CUDA device: skipped"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAILED: $*"; exit 1; }

# An empty cache, so every kernel is compiled; order 6 in 3D, so the DG kernels take NVRTC seconds.
RTDG_CACHE_DIR="$work/cache" RTDG_TUNE=off "$rtdg" run "$config" --set run.backend=cuda \
  --set "run.output_dir=\"$work/out\"" --set discretization.order=6 --set time.final=0.05 \
  > "$work/run.log" 2>&1 &
pid=$!
compiling() { grep -qx rtcg-nvrtc /proc/"$pid"/task/*/comm 2> /dev/null; }
for _ in $(seq 12000); do
  compiling && break
  kill -0 "$pid" 2> /dev/null || break
  sleep 0.005
done
compiling || { wait "$pid"; cat "$work/run.log"; fail "no NVRTC compile was seen"; }
start=$(date +%s%N)
kill -TERM "$pid"
wait "$pid"
status=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
cat "$work/run.log"
[ "$status" = 143 ] || fail "exit status $status, expected 143 (SIGTERM)"
[ "$ms" -lt 1500 ] || fail "rtdg took $ms ms after SIGTERM: it waited for the compile instead of stopping it"
grep -q "terminated (SIGTERM) while setting up the run; nothing was written" "$work/run.log" || fail "no message"
! ls "$work/out/checkpoints/"*.h5 > /dev/null 2>&1 || fail "a checkpoint was written"
! ls "$work/out/snapshots/"*.h5 > /dev/null 2>&1 || fail "a snapshot was written"
echo "stopped ${ms} ms after SIGTERM"
