#!/bin/sh
# Builds tools/bench/gpu_bench against the libraries of build-gpu/ (the gpu
# preset): ./tools/bench/build.sh [BUILD_DIR] -> BUILD_DIR/gpu_bench, and
# BUILD_DIR/nccl_allreduce_bench when NCCL is present ("build.sh DIR nccl":
# that one only).
set -e
root=$(cd "$(dirname "$0")/../.." && pwd)
b=${1:-$root/build-gpu}
cuda=${CUDA_HOME:-/usr/local/cuda}
nccl=""
[ -e "$cuda/lib64/libnccl.so" ] && nccl="-lnccl"
if [ "${2:-all}" != nccl ]; then
  g++ -std=c++20 -O2 -I"$root/src" -I"$cuda/include" "$root/tools/bench/gpu_bench.cpp" -o "$b/gpu_bench" \
    "$b/src/libfc_exec.a" "$b/src/libfc_rewrite.a" "$b/src/libfc_pipeline.a" "$b/src/libfc_passes.a" \
    "$b/src/libfc_analysis.a" "$b/src/libfc_io.a" "$b/src/libfc_ir.a" "$b/src/libfc_diag.a" "$b/src/libfc_support.a" \
    -lsimdjson -L"$cuda/lib64" "$cuda/lib64/libcudart_static.a" -lcublas -lcublasLt $nccl -lpthread -ldl -lrt
  echo "built $b/gpu_bench"
fi

# tools/bench/nccl_allreduce_bench (docs/multigpu.md): allreduce bus bandwidth
# through fusecheck's one-rank-per-process NCCL communicator vs a plain
# ncclAllReduce loop; needs NCCL (libnccl + nccl.h) beside CUDA.
nccl_inc=""
for d in "$cuda/include" /usr/include; do [ -e "$d/nccl.h" ] && nccl_inc="-I$d" && break; done
if [ -n "$nccl_inc" ]; then
  g++ -std=c++20 -O2 -DFC_HAVE_CUDA=1 -DFC_HAVE_NCCL=1 -I"$root/src" -I"$cuda/include" $nccl_inc \
    "$root/tools/bench/nccl_allreduce_bench.cpp" -o "$b/nccl_allreduce_bench" \
    "$b/src/libfc_exec.a" "$b/src/libfc_analysis.a" "$b/src/libfc_ir.a" "$b/src/libfc_diag.a" \
    "$b/src/libfc_support.a" -L"$cuda/lib64" -L/usr/lib/x86_64-linux-gnu "$cuda/lib64/libcudart_static.a" -lnccl \
    -lpthread -ldl -lrt
  echo "built $b/nccl_allreduce_bench"
else
  echo "NCCL not found: nccl_allreduce_bench not built"
fi
