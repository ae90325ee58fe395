#!/bin/bash
# Everything the GPU machine is needed for, in one scripted call (device
# time is short and every machine start costs minutes):
#   1. tools/gpu-suite.sh: fc_gpu_tests (label gpu), the seed on --device
#      cuda without / with --fix, planted wrong rewrites with --against,
#      and the benchmark against PyTorch eager (M = N = K = M_SIZE);
#   2. the seed at production size (M = N = K = M_SIZE, half, 2 ranks) run
#      end to end through the CLI with the exact reference on the GPU (fp64,
#      DGEMM), timed;
# The multi-GPU suite (tools/multigpu-suite.sh) is a second call: one call
# may run 10 minutes.
# Each step is time-limited; logs land in OUT_DIR.
#
# Usage: tools/gpu-session.sh [BIN_DIR=.gpu-bin] [OUT_DIR=$OUT] [M_SIZE=8192]
set -u
BIN=${1:-.gpu-bin}
OUT=${2:-${OUT:-/tmp/gpu-session}}
M=${3:-8192}
mkdir -p "$OUT"
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
status=0

echo "=== 1. gpu-suite ($(date -u +%T))"
timeout 420 bash tools/gpu-suite.sh "$BIN" "$OUT" "$M" > "$OUT/gpu-suite.out" 2>&1 || status=1
tail -n 60 "$OUT/gpu-suite.out"

echo "=== 2. the seed at M=N=K=$M through the CLI, exact reference on the GPU ($(date -u +%T))"
export LD_LIBRARY_PATH="$BIN/lib:/usr/local/cuda/lib64:/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
big="$OUT/seed_$M.json"
python3 - "$M" "$big" <<'PY'
import json, sys
m = int(sys.argv[1]); d = json.load(open("fixtures/seed/matmul_allreduce_bias.json"))
shapes = {"T0": [1, m // 2, m], "T1": [1, m // 2, m], "T2": [m]}
for c in d["concrete_inputs"]:
    c["shape"] = shapes[c["input"]]
    c.pop("stride", None)
json.dump(d, open(sys.argv[2], "w"), indent=1)
PY
/usr/bin/time -f "wall %e s, peak host RSS %M KB" timeout 120 "$BIN/fusecheck" run "$big" --device cuda --fix \
  > "$OUT/seed_big.txt" 2>&1
rc=$?
grep -v "^    at " "$OUT/seed_big.txt" | head -30
echo "exit $rc (expected 0)"
[ $rc -eq 0 ] || status=1

echo "=== session status $status ($(date -u +%T))"
exit $status
