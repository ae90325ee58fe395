#!/bin/bash
# A/B end-to-end timings of two fusecheck binaries on the same synthetic
# repros in the same run: wall, user, sys and peak RSS per command,
# best of REPS, runs of A and B interleaved, the ratio B/A of the best
# walls and of the median walls. For comparing a change against its
# baseline on a quiet machine.
#
# Usage: tools/bench/cli_ab.sh A_BIN B_BIN SYNTH_BIN [SIZES="100000 1000000"] [REPS=3] [CMDS="check validate"]
# Extra environment for B only: AB_B_ENV="MIMALLOC_LARGE_OS_PAGES=0" (e.g.).
# The repro shapes: AB_KINDS (default "transformer sharded").
set -u
A=$1; B=$2; SYNTH=$3
SIZES=${4:-"100000 1000000"}
REPS=${5:-3}
CMDS=${6:-"check validate"}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "A=$A B=$B ${AB_B_ENV:+(B env: $AB_B_ENV)}"
# GNU time writes "Command exited with non-zero status N" before the figures
# of a run that exits non-zero (check's exit 1, 5): only lines of figures count.
best() {  # best() FILE: the line with the smallest first field
  grep -E '^[0-9]' "$1" | sort -n | head -1
}
median() {  # median() FILE: the median of the first fields (the lower middle one for an even count)
  grep -E '^[0-9]' "$1" | sort -n | awk '{w[NR] = $1} END {print w[int((NR + 1) / 2)]}'
}
for n in $SIZES; do
  for kind in ${AB_KINDS:-transformer sharded}; do
    flag=""; [ "$kind" = sharded ] && flag="--sharded"
    f="$tmp/$kind-$n.json"
    "$SYNTH" --exprs "$n" --seed 1 $flag -o "$f" > /dev/null || { echo "synth failed"; continue; }
    mb=$(( $(stat -c %s "$f") / 1000000 ))
    for cmd in $CMDS; do
      : > "$tmp/a"; : > "$tmp/b"
      for _ in $(seq "$REPS"); do
        /usr/bin/time -f "%e %U %S %M" -a -o "$tmp/a" "$A" "$cmd" "$f" > "$tmp/out-a" 2>/dev/null
        env ${AB_B_ENV:-} /usr/bin/time -f "%e %U %S %M" -a -o "$tmp/b" "$B" "$cmd" "$f" > "$tmp/out-b" 2>/dev/null
      done
      same=$(cmp -s "$tmp/out-a" "$tmp/out-b" && echo "same output" || echo "OUTPUT DIFFERS")
      read -r aw au as am <<< "$(best "$tmp/a")"
      read -r bw bu bs bm <<< "$(best "$tmp/b")"
      ratio=$(awk -v a="$aw" -v b="$bw" 'BEGIN{printf "%.2f", (a > 0 ? b / a : 0)}')
      amed=$(median "$tmp/a"); bmed=$(median "$tmp/b")
      mratio=$(awk -v a="$amed" -v b="$bmed" 'BEGIN{printf "%.3f", (a > 0 ? b / a : 0)}')
      printf '%-8s %-11s %8s exprs %4s MB  A %6ss (%5su %5ss) %5d MiB  B %6ss (%5su %5ss) %5d MiB  B/A %s  median A %ss B %ss B/A %s  %s\n' \
        "$cmd" "$kind" "$n" "$mb" "$aw" "$au" "$as" $((am / 1024)) "$bw" "$bu" "$bs" $((bm / 1024)) "$ratio" \
        "$amed" "$bmed" "$mratio" "$same"
    done
    rm -f "$f"
  done
done
