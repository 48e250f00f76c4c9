#!/usr/bin/env bash
# Runs a tutorial's commands from the markdown itself, so the document cannot drift:
#   run_tutorial.sh RTDG SOURCE_DIR DOC WORK LAW
# In DOC, a block fenced as ```toml file=NAME is appended to WORK/tutorial/NAME, and a block
# fenced as ```sh test runs (bash, -e -u -o pipefail: any failing command or grep fails the
# test) in WORK/tutorial, in document order, with `rtdg` on PATH and WORK/data a link to the
# source tree's data/, as in a checkout. Afterwards the law the tutorial wrote must equal LAW
# (data/laws/...), so the shipped file and the tutorial agree.
set -euo pipefail
rtdg=$1 source=$2 doc=$3 work=$4 law=$5

rm -rf "$work"
mkdir -p "$work/tutorial" "$work/bin"
ln -s "$source/data" "$work/data"
ln -s "$rtdg" "$work/bin/rtdg"
export PATH="$work/bin:$PATH"

# One script from the document: file blocks become here-documents, test blocks are copied.
awk '
  /^```toml file=/ && !inside { inside = "file"; sub(/^```toml file=/, ""); printf "cat >> %s <<'"'"'RTDG_TUTORIAL_EOF'"'"'\n", $0; files++; next }
  /^```sh test *$/ && !inside  { inside = "sh"; printf "echo \"+++ tutorial block %d\"\n", ++blocks; next }
  /^```/ && inside == "file"    { print "RTDG_TUTORIAL_EOF"; inside = ""; next }
  /^```/ && inside == "sh"      { inside = ""; next }
  inside                        { print }
  END { if (inside) { print "unterminated block in the document" > "/dev/stderr"; exit 1 }
        printf "# %d files, %d test blocks\n", files, blocks }
' "$doc" > "$work/tutorial.sh"

blocks=$(sed -n 's/^# [0-9]* files, \([0-9]*\) test blocks$/\1/p' "$work/tutorial.sh")
if [ "${blocks:-0}" -lt 3 ]; then
  echo "found ${blocks:-0} \`\`\`sh test blocks in $doc; expected at least 3" >&2
  exit 1
fi

cd "$work/tutorial"
bash -euo pipefail -x "$work/tutorial.sh"

if ! diff -u "$law" "$work/tutorial/$(basename "$law")"; then
  echo "the law the tutorial writes differs from $law (diff above): change both" >&2
  exit 1
fi
echo "tutorial: $blocks blocks ran; the law matches $law"
