#!/bin/bash
# The GPU test suite in one scripted call on the GPU machine: environment,
# fc_gpu_tests (every test, from the carried binary), the same binary with
# a planted missing fixture (its tests fail with MISSING, the binary does
# not crash), the seed with --device cuda without and with --fix (text and
# JSON), and planted wrong rewrites checked with --against on the GPU. The
# figures are tools/bench/gpu_figures.py (tools/gpu-session.sh runs both).
# Binaries come prebuilt (gpu preset) in BIN_DIR, with the shared libraries
# the machine may lack in BIN_DIR/lib.
#
# Usage: tools/gpu-suite.sh [BIN_DIR=.gpu-bin] [OUT_DIR=$OUT]
# Writes OUT_DIR/suite.log and OUT_DIR/seed_fix.json; exit status 0 when
# every step behaved as expected.
set -u
BIN=$(realpath "${1:-.gpu-bin}")
OUT=${2:-${OUT:-/tmp/gpu-suite}}
mkdir -p "$OUT"
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
source "$root/tools/gpu-env.sh" "$BIN"
LOG="$OUT/suite.log"
status=0
step() { echo; echo "=== $*"; }
{
  step "environment"
  date -u
  nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm,clocks.max.sm --format=csv
  ldd "$BIN/fusecheck" | grep -E "cublas|nccl|simdjson|mimalloc|cudart|not found"

  step "fc_gpu_tests"
  "$BIN/fc_gpu_tests" --gtest_color=no || status=1

  step "fc_gpu_tests with a planted missing fixture (expected: exit 1, MISSING, no crash)"
  if command -v cmake > /dev/null; then
    cmake -DBIN="$BIN/fc_gpu_tests" -DSRC="$root" -DWORK="$(mktemp -d)/w" -P tests/gpu/missing_fixture.cmake \
      2>&1 | tail -5
    [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
  else
    echo "cmake not found: skipped"
  fi
  SEED=fixtures/seed/matmul_allreduce_bias.json
  step "fusecheck run $SEED --device cuda   (expected: exit 1, fails where 2024-06 fails)"
  "$BIN/fusecheck" run "$SEED" --device cuda
  rc=$?; echo "exit $rc"; [ $rc -eq 1 ] || status=1

  step "fusecheck run $SEED --device cuda --fix   (expected: exit 0)"
  "$BIN/fusecheck" run "$SEED" --device cuda --fix
  rc=$?; echo "exit $rc"; [ $rc -eq 0 ] || status=1
  "$BIN/fusecheck" run "$SEED" --device cuda --fix --format json > "$OUT/seed_fix.json"

  step "fusecheck run $SEED --device cpu --fix   (the same on the host, for comparison)"
  "$BIN/fusecheck" run "$SEED" --device cpu --fix
  echo "exit $?"

  step "planted wrong rewrites: run MUTANT --against ORIGINAL --device cuda --fix (expected: each nonzero)"
  mdir=$(mktemp -d)
  python3 - "$SEED" "$mdir" <<'PY'
import json, sys
seed = json.load(open(sys.argv[1]))
def mutant(name, fn):
    d = json.loads(json.dumps(seed)); fn(d)
    json.dump(d, open(f"{sys.argv[2]}/{name}.json", "w"))
def ex(d, op): return next(e for e in d["exprs"] if e["op"] == op)
def ten(d, n): return next(t for t in d["tensors"] if t["name"] == n)
mutant("swap_op", lambda d: ex(d, "add").update(op="sub"))
mutant("drop_broadcast_side", lambda d: ex(d, "broadcast").update(flags=[False, True]))
mutant("wrong_axis", lambda d: ex(d, "sum").update(dims=[1]))
mutant("narrow_boundary", lambda d: ten(d, "T4").update(dtype="BFloat16"))
mutant("fp8_allreduce", lambda d: ten(d, "T5").update(dtype="Float8_e4m3fn"))
mutant("drop_permute", lambda d: ex(d, "permute").update(dims=[0, 1, 2]))
PY
  for m in "$mdir"/*.json; do
    "$BIN/fusecheck" run "$m" --against "$SEED" --device cuda --fix > "$mdir/out.txt" 2>&1
    rc=$?
    echo "$(basename "$m" .json): exit $rc ($(grep -m1 -o 'FC0[0-9]*[^:]*' "$mdir/out.txt" | head -1))"
    [ $rc -ne 0 ] || status=1
  done
  "$BIN/fusecheck" run "$SEED" --against "$SEED" --device cuda --fix > "$mdir/out.txt" 2>&1
  rc=$?; echo "original --fix --against original: exit $rc (expected 0)"; [ $rc -eq 0 ] || status=1
  echo; echo "suite status $status"
} > "$LOG" 2>&1
cat "$LOG"
exit $status
