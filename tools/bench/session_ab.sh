#!/bin/bash
# An A/B run of two fusecheck binaries on the same synthetic repros in one call. Per size and
# shape: `check` three times each (wall s, peak RSS KB); at 1M: same output
# of A, B and `B --threads 1`, `validate` twice each, B's phase tables, the
# failing tensor-parallel run (--nvfuser 2024-06), `segment`, the two public
# cases (30 runs, best and median in ms, timed in Python without the
# harness's own start-up) and B's `validate` on 1-16 threads.
#
# Usage: tools/bench/session_ab.sh A_BIN B_BIN SYNTH_BIN
set -u
A=$1; B=$2; S=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for n in 10000 100000 1000000; do
  "$S" --exprs $n --seed 1 -o "$tmp/t$n.json" >/dev/null &
  "$S" --exprs $n --seed 1 --sharded -o "$tmp/tp$n.json" >/dev/null &
done
wait
"$S" --shape linear-relu --count 30 -o "$tmp/i3510.json" >/dev/null
"$S" --shape adds --count 100 -o "$tmp/i1440.json" >/dev/null
tm() { /usr/bin/time -f "%e %M" "$@" 2>&1 >/dev/null | tail -1; }
for f in t tp; do
  for n in 10000 100000 1000000; do
    for bin in A B; do
      eval b=\$$bin
      r=""
      for k in 1 2 3; do r="$r $(tm "$b" check "$tmp/$f$n.json")"; done
      echo "check $f$n $bin:$r"
    done
  done
done
for f in t tp; do
  big="$tmp/${f}1000000.json"
  "$A" check "$big" >"$tmp/oA"; "$B" check "$big" >"$tmp/oB"; "$B" --threads 1 check "$big" >"$tmp/oB1"
  cmp -s "$tmp/oA" "$tmp/oB" && cmp -s "$tmp/oA" "$tmp/oB1" && echo "${f}1M check: same output A / B / B --threads 1"
  for bin in A B; do eval b=\$$bin; echo "validate ${f}1M $bin: $(tm "$b" validate "$big") $(tm "$b" validate "$big")"; done
  echo "== B check --time-report ${f}1M"; "$B" check --time-report "$big" 2>&1 >/dev/null
  echo "== B validate --time-report ${f}1M"; "$B" validate --time-report "$big" 2>&1 >/dev/null
done
big="$tmp/tp1000000.json"
for bin in A B; do
  eval b=\$$bin
  echo "tp1M check --nvfuser 2024-06 $bin: $(tm "$b" check --nvfuser 2024-06 "$big")"
  "$b" check --nvfuser 2024-06 "$big" >"$tmp/e$bin"
done
cmp -s "$tmp/eA" "$tmp/eB" && echo "failing run: same output"
for bin in A B; do eval b=\$$bin; echo "segment tp1M $bin: $(tm "$b" segment "$big")"; done
python3 - "$A" "$B" "$tmp" <<'PY'
import statistics, subprocess, sys, time
a, b, tmp = sys.argv[1:4]
for case in ("i3510", "i1440"):
    for name, binary in (("A", a), ("B", b)):
        ts = []
        for _ in range(30):
            t = time.perf_counter()
            subprocess.run([binary, "check", f"{tmp}/{case}.json"], stdout=subprocess.DEVNULL)
            ts.append((time.perf_counter() - t) * 1e3)
        print(f"{case} {name}: best {min(ts):.2f} ms, median {statistics.median(ts):.2f} ms")
PY
for t in 1 2 4 8 16; do echo "validate t1M B --threads $t: $(tm "$B" --threads $t validate "$tmp/t1000000.json")"; done
