#!/bin/bash
# The multi-GPU suite in one scripted call on a 2-GPU machine
# (docs/multigpu.md): `fusecheck run --ranks 2 --device cuda` (one process
# per GPU, real NCCL) on the seed with --fix, the ReduceScatter and
# Allgather fixtures and a sharded synthetic transformer block, each
# against the reference and compared with the one-process simulation of
# the same ranks; the failure modes (a rank that dies, hangs, or hits an
# NCCL error: exit 3, no hang); the label-gpu multirank tests; the
# allreduce bandwidth benchmark (fusecheck's communicator vs plain NCCL).
#
# Usage: tools/multigpu-suite.sh BIN_DIR OUT_DIR
#   BIN_DIR: fusecheck, fusecheck-synth, nccl_allreduce_bench and
#            (optional) fc_multirank_gpu_tests, built here; BIN_DIR/lib for
#            shared libraries the machine may lack.
# Every step runs under `timeout`; the whole script stops starting steps
# after 330 s. Logs: OUT_DIR/suite.log (everything), OUT_DIR/*.json (the
# reports), OUT_DIR/bench.log. Exit 0 when every step behaved as expected.
set -u
BIN=$(cd "${1:-.gpu-bin}" && pwd)
OUT=${2:-${OUT:-/tmp/multigpu-suite}}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
unset RANK WORLD_SIZE LOCAL_RANK MASTER_ADDR MASTER_PORT OMPI_COMM_WORLD_RANK OMPI_COMM_WORLD_SIZE FC_FAULT_INJECT
# libnccl 2 (and cuBLAS 13, opened on demand): the toolkit's or the system's, else PyTorch's wheels'.
extra=""
for l in libnccl.so.2 libcublasLt.so.13; do
  if ! ldconfig -p | grep -q "$l" && [ ! -e /usr/local/cuda/lib64/$l ]; then
    p=$(find /usr/lib/x86_64-linux-gnu /opt /usr/local/lib /usr/lib/python3* -name "$l" 2>/dev/null | head -1)
    [ -n "$p" ] && extra="${extra:+$extra:}$(dirname "$p")"
  fi
done
export LD_LIBRARY_PATH="$BIN/lib:/usr/local/cuda/lib64:/usr/lib/x86_64-linux-gnu${extra:+:$extra}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
FC="$BIN/fusecheck"
LOG="$OUT/suite.log"
: > "$LOG"
status=0
START=$SECONDS
BUDGET=330

say() { echo "$*" | tee -a "$LOG"; }
step() { say ""; say "=== [$((SECONDS - START)) s] $*"; }
over_budget() {
  if ((SECONDS - START > BUDGET)); then
    say "SKIPPED (time budget of $BUDGET s spent): $*"
    status=1
    return 0
  fi
  return 1
}
# run_expect NAME EXPECTED_EXIT LIMIT_S CMD... : runs CMD with a time limit,
# its stdout to OUT_DIR/NAME.out, stderr to OUT_DIR/NAME.err, both into the log.
run_expect() {
  local name=$1 want=$2 limit=$3
  shift 3
  over_budget "$name" && return 0
  local t0=$SECONDS
  timeout -k 5 "$limit" "$@" > "$OUT/$name.out" 2> "$OUT/$name.err"
  local rc=$?
  local dt=$((SECONDS - t0))
  { echo "\$ $*"; tail -n 40 "$OUT/$name.out"; echo "--- stderr"; tail -n 20 "$OUT/$name.err"; } >> "$LOG"
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    say "FAIL $name: timed out after $limit s (the run hung)"
    status=1
  elif [ "$rc" -ne "$want" ]; then
    say "FAIL $name: exit $rc, expected $want (${dt} s)"
    status=1
  else
    say "ok   $name: exit $rc as expected (${dt} s)"
  fi
  return 0
}
# expect_text NAME REGEX WHAT: NAME's output (stdout + stderr) shows REGEX.
expect_text() {
  [ -e "$OUT/$1.out" ] || return 0
  if cat "$OUT/$1.out" "$OUT/$1.err" 2>/dev/null | grep -Eq "$2"; then
    say "ok   $1: shows $3"
  else
    say "FAIL $1: does not show $3 (/$2/)"
    status=1
  fi
}
# same_outputs A.json B.json LABEL: the two reports' outputs (shapes, error
# statistics, worst elements vs the reference) are identical.
same_outputs() {
  over_budget "compare $3" && return 0
  python3 - "$1" "$2" "$3" >> "$LOG" 2>&1 <<'PY'
import json, sys
a_path, b_path, label = sys.argv[1:]
try:
    a = json.load(open(a_path))["run"]; b = json.load(open(b_path))["run"]
except Exception as e:
    print(f"DIFF {label}: cannot read the reports: {e}"); sys.exit(1)
print(f"{label}: communicators '{a.get('communicator')}' vs '{b.get('communicator')}'")
oa, ob = a.get("outputs", []), b.get("outputs", [])
if oa == ob:
    for o in oa:
        print(f"  {o.get('name')}: identical comparison (max_abs {o.get('max_abs')}, mismatches {o.get('mismatches')})")
    print(f"SAME {label}: {len(oa)} outputs compare identically against the reference")
    sys.exit(0)
print(f"DIFF {label}:")
for x, y in zip(oa, ob):
    keys = sorted(set(x) | set(y))
    for k in keys:
        if x.get(k) != y.get(k):
            print(f"  {x.get('name')}.{k}: {x.get(k)} vs {y.get(k)}")
sys.exit(1)
PY
  local rc=$?
  if [ $rc -eq 0 ]; then say "ok   compare $3: identical"; else say "NOTE compare $3: differs (see suite.log)"; fi
  return 0
}

step "environment"
{
  date -u
  nvidia-smi --query-gpu=index,name,memory.total,driver_version --format=csv
  nvidia-smi topo -m 2>/dev/null | head -5
  ldd "$FC" | grep -E "nccl|cudart|simdjson|not found"
  "$FC" --version
} >> "$LOG" 2>&1
ngpu=$(nvidia-smi -L 2>/dev/null | wc -l)
say "GPUs: $ngpu"

SEED=fixtures/seed/matmul_allreduce_bias.json
RS=fixtures/analysis/reduce_scatter_symbolic_ko.json
AG=fixtures/analysis/control_allgather_edge.json
J="--format json"

step "seed: --ranks 2 --device cuda --fix (expected: exit 0), vs the one-GPU simulation"
run_expect seed_fix_ranks2 0 90 "$FC" run $SEED --fix --device cuda --ranks 2 --rank-timeout 60 $J
run_expect seed_fix_sim_gpu 0 60 "$FC" run $SEED --fix --device cuda $J
run_expect seed_fix_sim_cpu 0 60 "$FC" run $SEED --fix --device cpu $J
same_outputs "$OUT/seed_fix_ranks2.out" "$OUT/seed_fix_sim_gpu.out" "seed --fix: nccl 2 processes vs simulated ring on 1 GPU"
same_outputs "$OUT/seed_fix_ranks2.out" "$OUT/seed_fix_sim_cpu.out" "seed --fix: nccl 2 processes vs simulated ring on the host"
run_expect seed_fix_ranks2_text 0 90 "$FC" run $SEED --fix --device cuda --ranks 2

step "seed without --fix: fails where 2024-06 fails (expected: exit 1)"
run_expect seed_nofix_ranks2 1 90 "$FC" run $SEED --device cuda --ranks 2

step "ReduceScatter ($RS, --fix) and Allgather ($AG): --ranks 2 --device cuda vs the host simulation"
run_expect rs_ranks2 0 90 "$FC" run $RS --fix --device cuda --ranks 2 --rank-timeout 60 $J
run_expect rs_sim_cpu 0 60 "$FC" run $RS --fix --device cpu $J
same_outputs "$OUT/rs_ranks2.out" "$OUT/rs_sim_cpu.out" "ReduceScatter: nccl 2 processes vs simulated ring on the host"
run_expect ag_ranks2 0 90 "$FC" run $AG --device cuda --ranks 2 --rank-timeout 60 $J
run_expect ag_sim_cpu 0 60 "$FC" run $AG --device cpu $J
same_outputs "$OUT/ag_ranks2.out" "$OUT/ag_sim_cpu.out" "Allgather: nccl 2 processes vs simulated ring on the host"

step "sharded transformer block: fusecheck-synth --exprs 200 --sharded, --ranks 2 --device cuda --fix"
run_expect synth_gen 0 30 "$BIN/fusecheck-synth" --exprs 200 --sharded -o "$OUT/synth_sharded.json"
run_expect synth_ranks2 0 120 "$FC" run "$OUT/synth_sharded.json" --fix --device cuda --ranks 2 --rank-timeout 60 $J
run_expect synth_sim_cpu 0 90 "$FC" run "$OUT/synth_sharded.json" --fix --device cpu $J
same_outputs "$OUT/synth_ranks2.out" "$OUT/synth_sim_cpu.out" "synth: nccl 2 processes vs simulated ring on the host"
# The one-GPU simulation performs Allreduce / Reduce only; logged, not required.
over_budget synth_sim_gpu || {
  timeout -k 5 90 "$FC" run "$OUT/synth_sharded.json" --fix --device cuda $J > "$OUT/synth_sim_gpu.out" 2> "$OUT/synth_sim_gpu.err"
  say "info synth on the one-GPU simulation: exit $?"
  [ -s "$OUT/synth_sim_gpu.out" ] && same_outputs "$OUT/synth_ranks2.out" "$OUT/synth_sim_gpu.out" "synth: nccl 2 processes vs simulated ring on 1 GPU"
}

step "failures: a rank that dies, hangs, or hits an NCCL error (expected: exit 3, never a hang)"
for fault in die hang nccl-error; do
  FC_FAULT_INJECT=rank:1:$fault run_expect "fault_$fault" 3 80 "$FC" run $SEED --fix --device cuda --ranks 2 --rank-timeout 20
done
FC_FAULT_INJECT=rank:0:die run_expect fault_root_die 3 80 "$FC" run $SEED --fix --device cuda --ranks 2 --rank-timeout 20
expect_text fault_die "rank 1 was killed by signal 9" "the dead rank"
expect_text fault_hang "did not complete within --rank-timeout|timed out" "the timeout"
expect_text fault_nccl-error "rank 1: .*(invalid|failed)" "rank 1's NCCL error"
expect_text fault_root_die "rank 0 was killed by signal 9" "the dead rank 0"
for f in fault_die fault_hang fault_nccl-error fault_root_die; do expect_text $f "FC0907" "FC0907"; done
run_expect too_many_ranks 2 30 "$FC" run $SEED --fix --device cuda --ranks 3

step "external launcher (torchrun convention, two processes started by this script)"
if ! over_budget external; then
  port=$((29500 + RANDOM % 1000))
  for r in 1 0; do
    RANK=$r WORLD_SIZE=2 LOCAL_RANK=$r MASTER_ADDR=127.0.0.1 MASTER_PORT=$port \
      timeout -k 5 90 "$FC" run $SEED --fix --device cuda --ranks 2 --rank-timeout 60 > "$OUT/external_r$r.out" 2> "$OUT/external_r$r.err" &
    eval "pid$r=$!"
  done
  wait "$pid0"; rc0=$?
  wait "$pid1"; rc1=$?
  { cat "$OUT/external_r0.out"; echo "--- rank 0 stderr"; cat "$OUT/external_r0.err"; echo "--- rank 1 stderr"; cat "$OUT/external_r1.err"; } >> "$LOG"
  if [ $rc0 -eq 0 ] && [ $rc1 -eq 0 ]; then say "ok   external launch: ranks exit 0 0"; else say "FAIL external launch: ranks exit $rc0 $rc1"; status=1; fi
fi

if [ -x "$BIN/fc_multirank_gpu_tests" ]; then
  step "fc_multirank_gpu_tests (label gpu)"
  FC_CLI="$FC" FC_SOURCE_DIR="$ROOT" run_expect gpu_tests 0 200 "$BIN/fc_multirank_gpu_tests" --gtest_color=no
fi

step "benchmark: allreduce bus bandwidth, fusecheck's communicator vs plain NCCL (8 B .. 1 GiB, half and float)"
run_expect bench 0 150 "$BIN/nccl_allreduce_bench" --ranks 2 --limit 140
cp "$OUT/bench.out" "$OUT/bench.log" 2>/dev/null
cat "$OUT/bench.out" >> "$LOG" 2>/dev/null

say ""
say "suite status $status ($((SECONDS - START)) s)"
exit $status
