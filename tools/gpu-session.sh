#!/bin/bash
# Everything the GPU machine is needed for, in one scripted call (device
# time is short and every machine start costs minutes). Binaries come
# prebuilt (`cmake --preset gpu`, targets fusecheck-cli fc_gpu_tests
# gpu_bench) in BIN_DIR, with the shared libraries the machine may lack in
# BIN_DIR/lib; they run from wherever the tree was copied to.
#   1. tools/gpu-suite.sh: fc_gpu_tests, the planted missing fixture, the
#      seed runs and planted wrong rewrites through the CLI;
#   2. fc_gpu_tests again from a copy of the tree at another path;
#   3. the figures: tools/bench/gpu_figures.py (gpu_bench and PyTorch eager
#      in one run, every figure beside PyTorch's) and, with BASE_DIR, the
#      same figures of an earlier build (before / after in one call);
#   4. the seed at production size (M = N = K = M_SIZE, half, 2 ranks)
#      through the CLI with the exact reference on the GPU: wall time and
#      peak host memory (also of BASE_DIR's CLI).
# Each step is time-limited; logs land in OUT_DIR.
#
# Usage: tools/gpu-session.sh [BIN_DIR=.gpu-bin] [OUT_DIR=$OUT] [M_SIZE=8192] [BASE_DIR]
set -u
BIN=$(realpath "${1:-.gpu-bin}")
OUT=${2:-${OUT:-/tmp/gpu-session}}
M=${3:-8192}
BASE=${4:-}
[ -n "$BASE" ] && BASE=$(realpath "$BASE")
mkdir -p "$OUT"
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
status=0
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
source "$root/tools/gpu-env.sh" "$BIN"

echo "=== 1. gpu-suite ($(date -u +%T))"
timeout 300 bash tools/gpu-suite.sh "$BIN" "$OUT" > "$OUT/gpu-suite.out" 2>&1 || status=1
grep -E "^(===|\[  (PASSED|FAILED|SKIPPED) |.*exit [0-9]|suite status)" "$OUT/gpu-suite.out" | tail -40

echo "=== 2. fc_gpu_tests from a copy of the tree at another path ($(date -u +%T))"
copy=$(mktemp -d /tmp/fc-copy-XXXX)
cp -r fixtures "$copy/" && mkdir -p "$copy/bin" && cp "$BIN/fc_gpu_tests" "$copy/bin/"
(cd / && timeout 240 "$copy/bin/fc_gpu_tests" --gtest_color=no --gtest_brief=1 > "$OUT/tests-copy.log" 2>&1)
rc=$?
tail -n 4 "$OUT/tests-copy.log"
echo "exit $rc (expected 0; the binary ran from $copy/bin, built elsewhere)"
[ $rc -eq 0 ] || status=1

echo "=== 3. figures: gpu_bench and PyTorch eager, M=N=K=$M ($(date -u +%T))"
timeout 300 python3 tools/bench/gpu_figures.py "$BIN/gpu_bench" "$M" 30 --log="$OUT/figures.log" \
  > "$OUT/figures.txt" 2>&1 || status=1
cat "$OUT/figures.txt" | grep -v "^  "
if [ -n "$BASE" ]; then
  echo "--- the same figures of $BASE"
  if grep -q "REPS" <(strings "$BASE/gpu_bench" | grep -m1 "usage: gpu_bench"); then
    timeout 240 python3 tools/bench/gpu_figures.py "$BASE/gpu_bench" "$M" 30 > "$OUT/figures-base.txt" 2>&1
    grep -v "^  " "$OUT/figures-base.txt"
  else  # a gpu_bench of the earlier format: its own lines
    timeout 240 "$BASE/gpu_bench" fixtures/seed/matmul_allreduce_bias.json "$M" > "$OUT/figures-base.txt" 2>&1
    cat "$OUT/figures-base.txt"
  fi
fi

echo "=== 4. the seed at M=N=K=$M through the CLI, exact reference on the GPU ($(date -u +%T))"
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
for b in "$BIN" ${BASE:+"$BASE"}; do
  /usr/bin/time -f "wall %e s, peak host RSS %M KB" timeout 150 "$b/fusecheck" run "$big" --device cuda --fix \
    > "$OUT/seed_big.txt" 2>&1
  rc=$?
  echo "--- $b/fusecheck run seed_$M.json --device cuda --fix"
  grep -v "^    at " "$OUT/seed_big.txt" | head -20
  echo "exit $rc (expected 0)"
  [ "$b" = "$BIN" ] && [ $rc -ne 0 ] && status=1
done

echo "=== session status $status ($(date -u +%T))"
exit $status
