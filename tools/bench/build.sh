#!/bin/sh
# Builds tools/bench/gpu_bench against the libraries of build-gpu/ (the gpu
# preset): ./tools/bench/build.sh [BUILD_DIR] -> BUILD_DIR/gpu_bench.
set -e
root=$(cd "$(dirname "$0")/../.." && pwd)
b=${1:-$root/build-gpu}
cuda=${CUDA_HOME:-/usr/local/cuda}
nccl=""
[ -e "$cuda/lib64/libnccl.so" ] && nccl="-lnccl"
g++ -std=c++20 -O2 -I"$root/src" -I"$cuda/include" "$root/tools/bench/gpu_bench.cpp" -o "$b/gpu_bench" \
  "$b/src/libfc_exec.a" "$b/src/libfc_analysis.a" "$b/src/libfc_io.a" "$b/src/libfc_core.a" \
  -lsimdjson -L"$cuda/lib64" "$cuda/lib64/libcudart_static.a" -lcublas -lcublasLt $nccl -lpthread -ldl -lrt
echo "built $b/gpu_bench"
