#!/bin/sh
# Builds the GPU benchmarks in build-gpu/ (the gpu preset):
# ./tools/bench/build.sh [BUILD_DIR] -> BUILD_DIR/tools/gpu_bench (the CMake
# target gpu_bench), and BUILD_DIR/nccl_allreduce_bench when NCCL is
# present ("build.sh DIR nccl": that one only).
set -e
root=$(cd "$(dirname "$0")/../.." && pwd)
b=${1:-$root/build-gpu}
cuda=${CUDA_HOME:-/usr/local/cuda}
nccl=""
[ -e "$cuda/lib64/libnccl.so" ] && nccl="-lnccl"
if [ "${2:-all}" != nccl ]; then
  cmake --build "$b" --target gpu_bench
  echo "built $b/tools/gpu_bench"
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
