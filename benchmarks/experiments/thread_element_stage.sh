#!/usr/bin/env bash
# Builds thread_element_stage.cpp against a configured and built rtdg tree, with the compile
# flags of apps/rtdg's cmd_bench.cpp and the link line of apps/rtdg:
#   benchmarks/experiments/thread_element_stage.sh <build dir> [output]
set -euo pipefail
build=$1 out=$(realpath -m "${2:-$1/thread_element_stage}")
src=$(cd "$(dirname "$0")" && pwd)/thread_element_stage.cpp
cd "$build"
commands=$(ninja -t commands apps/rtdg)
compile=$(grep -- '-c .*cmd_bench.cpp' <<< "$commands" | head -1)
compile=$(sed 's/ -MD -MT [^ ]* -MF [^ ]*//; s/ -o [^ ]* -c .*//' <<< "$compile")
# The experiment indexes with int (host arrays of up to 2^31 entries): no sign-conversion noise.
eval "$compile -Wno-sign-conversion -Wno-conversion -o te.o -c $src"
link=$(tail -1 <<< "$commands")
link=$(sed 's# [^ ]*apps/CMakeFiles/rtdg\.dir/[^ ]*\.o##g; s# -o apps/rtdg # -o '"$out"' te.o #' <<< "$link")
eval "$link"
echo "built $out"
