#!/bin/bash
# End-to-end `fusecheck check` timings, as a user runs it: the two
# public cases (best and median of 20 process runs) and synthetic repros of
# 10k / 100k / 1M exprs, transformer and tensor-parallel (wall time and peak
# RSS from /usr/bin/time, best of REPS). Run it on a quiet machine.
#
# Usage: tools/bench/cli_perf.sh BIN_DIR [SIZES="10000 100000 1000000"] [REPS=2]
# BIN_DIR holds fusecheck and fusecheck-synth. Scratch files go to $TMPDIR.
set -u
BIN=$1
SIZES=${2:-"10000 100000 1000000"}
REPS=${3:-2}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$BIN/fusecheck" <<'PY'
import subprocess, sys, time
b = sys.argv[1]
for f in ["fixtures/perf/issue3510_linear_relu_30.json", "fixtures/perf/issue1440_adds_100.json"]:
    ts = []
    for _ in range(20):
        t = time.perf_counter()
        subprocess.run([b, "check", f], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        ts.append(time.perf_counter() - t)
    ts.sort()
    print(f"check {f.split('/')[-1]}: best {ts[0]*1e3:.1f} ms, median {ts[10]*1e3:.1f} ms (20 runs)")
PY
for n in $SIZES; do
  for kind in transformer sharded; do
    flag=""; [ $kind = sharded ] && flag="--sharded"
    f="$tmp/$kind-$n.json"
    "$BIN/fusecheck-synth" --exprs "$n" --seed 1 $flag -o "$f" > /dev/null || { echo "synth failed"; continue; }
    mb=$(( $(stat -c %s "$f") / 1000000 ))
    best=""
    for _ in $(seq "$REPS"); do
      /usr/bin/time -f "%e %M" -o "$tmp/t" "$BIN/fusecheck" check "$f" > /dev/null 2>&1
      r=$(cat "$tmp/t" | tail -1)
      if [ -z "$best" ] || awk -v a="${r% *}" -v b="${best% *}" 'BEGIN{exit !(a<b)}'; then best=$r; fi
    done
    echo "check $kind $n exprs ($mb MB): ${best% *} s, peak RSS $(( ${best#* } / 1024 )) MiB"
    rm -f "$f"
  done
done
