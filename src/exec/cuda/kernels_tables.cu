// Transcendental unary ops on Half / BFloat16 tensors through lookup
// tables (kernels_internal.h launchUnaryTable): a 16-bit input has 65536
// values, so the op's result for each, computed once on the host the way
// the CPU executor computes it (fillUnaryTable, unary_tables.cpp), is a
// 128 KiB table, and the kernel is a gather. Its value is the CPU's bit for
// bit, for every input (NaN, infinities and subnormals included); the
// float evaluation of the other kernels differs from it where the float
// math is an ulp or more off (the erf of gelu near its underflow, say).
//
// Large tensors: one block of 1024 threads per multiprocessor copies the
// table into 128 KiB of shared memory (while its first loads are in
// flight), then streams the tensor 16 bytes per thread and load, 4 loads
// in flight per thread. Small ones (or misaligned): one element per
// thread, the table read through the L1 cache. Both give the same values.
// Tables are built on first use and kept (one per device, op and dtype).
#include <map>
#include <mutex>
#include <tuple>
#include <vector>

#include "exec/cuda/cuda_status.h"
#include "exec/cuda/kernels_device.cuh"
#include "exec/cuda/kernels_internal.h"

namespace fc::exec::cuda::kern {
namespace {

constexpr int kEntries = 65536;
constexpr size_t kTableBytes = kEntries * sizeof(uint16_t);
constexpr int kBlock = 1024;
constexpr int kInFlight = 4;
// Below this many elements the shared-memory copy of the table costs more
// than it saves.
constexpr int64_t kSharedMin = int64_t{1} << 20;

__device__ __forceinline__ uint32_t lookupPair(const uint16_t* t, uint32_t w) {
  return static_cast<uint32_t>(t[w & 0xffffu]) | static_cast<uint32_t>(t[w >> 16]) << 16;
}

// The first loads are issued before the table is staged, and each batch's
// successor before its stores, so that the staging and the stores overlap
// loads in flight.
__global__ void __launch_bounds__(kBlock, 1)
    tableSharedKernel(const uint4* __restrict__ in, uint4* __restrict__ out, const uint4* __restrict__ table,
                      uint32_t n_groups) {
  extern __shared__ uint4 staged[];
  const uint32_t step = gridDim.x * blockDim.x;
  uint32_t g = blockIdx.x * blockDim.x + threadIdx.x;
  uint4 u[kInFlight];
  auto load = [&](uint32_t from) {
#pragma unroll
    for (int k = 0; k < kInFlight; ++k)
      if (from + k * step < n_groups) u[k] = __ldcs(in + from + k * step);
  };
  load(g);
  for (uint32_t i = threadIdx.x; i < kTableBytes / 16; i += blockDim.x) staged[i] = table[i];
  __syncthreads();
  const auto* t = reinterpret_cast<const uint16_t*>(staged);
  for (; g < n_groups; g += kInFlight * step) {
    uint4 w[kInFlight];
#pragma unroll
    for (int k = 0; k < kInFlight; ++k)
      if (g + k * step < n_groups)
        w[k] = make_uint4(lookupPair(t, u[k].x), lookupPair(t, u[k].y), lookupPair(t, u[k].z),
                          lookupPair(t, u[k].w));
    load(g + kInFlight * step);
#pragma unroll
    for (int k = 0; k < kInFlight; ++k)
      if (g + k * step < n_groups) __stcs(out + g + k * step, w[k]);
  }
}

__global__ void __launch_bounds__(kThreads)
    tableGatherKernel(const uint16_t* __restrict__ in, uint16_t* __restrict__ out,
                      const uint16_t* __restrict__ table, uint32_t from, uint32_t n) {
  for (uint32_t i = from + blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    out[i] = __ldg(table + in[i]);
}

// The table of (device, op, tanh_approx, dtype), built and uploaded on
// first use; kept for the process.
const uint16_t* tableFor(OpKind op, bool approx, DType dt) {
  static std::mutex mu;
  static auto* cache = new std::map<std::tuple<int, int, bool, int>, void*>();
  int dev = 0;
  FC_CUDA(cudaGetDevice(&dev));
  std::lock_guard<std::mutex> lock(mu);
  void*& d = (*cache)[{dev, static_cast<int>(op), approx && op == OpKind::Gelu, static_cast<int>(dt)}];
  if (d) return static_cast<const uint16_t*>(d);
  std::vector<uint16_t> h(kEntries);
  fillUnaryTable(op, approx, dt, h.data());
  void* p = nullptr;
  FC_CUDA(cudaMalloc(&p, kTableBytes));
  FC_CUDA(cudaMemcpy(p, h.data(), kTableBytes, cudaMemcpyHostToDevice));
  d = p;
  return static_cast<const uint16_t*>(d);
}

// The shared-memory kernel's limit raised to the table's size, once per
// device; false where the device refuses it.
bool sharedTableAllowed() {
  static std::mutex mu;
  static auto* done = new std::map<int, bool>();
  int dev = 0;
  FC_CUDA(cudaGetDevice(&dev));
  std::lock_guard<std::mutex> lock(mu);
  auto it = done->find(dev);
  if (it != done->end()) return it->second;
  bool ok = cudaFuncSetAttribute(tableSharedKernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 static_cast<int>(kTableBytes)) == cudaSuccess;
  if (!ok) (void)cudaGetLastError();
  (*done)[dev] = ok;
  return ok;
}

bool aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

}  // namespace

bool unaryTableOp(OpKind op) {
  switch (op) {
    case OpKind::Exp:
    case OpKind::Log:
    case OpKind::Rsqrt:
    case OpKind::Tanh:
    case OpKind::Sigmoid:
    case OpKind::Gelu:
    case OpKind::Silu:
    case OpKind::Erf: return true;
    default: return false;
  }
}

bool launchUnaryTable(OpKind op, bool approx, DType dtype, const void* in, void* out, int64_t n,
                      void* stream) {
  if (!unaryTableOp(op) || (dtype != DType::Half && dtype != DType::BFloat16) || n <= 0 ||
      n >= (int64_t{1} << 31))
    return false;
  const uint16_t* table = tableFor(op, approx, dtype);
  auto s = static_cast<cudaStream_t>(stream);
  countLaunch(Path::PwTable);
  uint32_t from = 0;
  if (n >= kSharedMin && aligned16(in) && aligned16(out) && sharedTableAllowed()) {
    const auto groups = static_cast<uint32_t>(n / 8);
    const int grid = residentBlocks(tableSharedKernel, kBlock, kTableBytes);
    tableSharedKernel<<<grid, kBlock, kTableBytes, s>>>(static_cast<const uint4*>(in),
                                                        static_cast<uint4*>(out),
                                                        reinterpret_cast<const uint4*>(table), groups);
    FC_CUDA(cudaGetLastError());
    from = groups * 8;
  }
  if (from < n) {
    auto* k = tableGatherKernel;
    k<<<gridResident(k, n - from), kThreads, 0, s>>>(
        static_cast<const uint16_t*>(in), static_cast<uint16_t*>(out), table, from, static_cast<uint32_t>(n));
    FC_CUDA(cudaGetLastError());
  }
  return true;
}

}  // namespace fc::exec::cuda::kern
