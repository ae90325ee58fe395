// Specialized reductions and the simulated ring (kernels.h launchReduce /
// launchRingReduce, first choice), for Half / BFloat16 / Float / Double
// elements read 16 bytes at a time where aligned.
//
// Reductions, with the kept and the reduced dims each coalesced (< 2^31
// input elements, at least 16 per output): fp64 accumulation as in the
// general kernels, each output finished (mean, rounding) the same way;
// only the order in which the fp64 partial sums are added differs.
//  - row (the reduced elements of an output are contiguous): a warp per
//    output for rows up to 32 Ki elements when there are enough outputs,
//    else a block per output, the row split over several blocks when
//    there are few outputs;
//  - column (the innermost kept dim is contiguous, one reduced dim at a
//    stride): 16 x 16 threads per block, the 16 across contiguous columns
//    (8 / 4 / 2 columns each with 16-byte loads), the 16 and the blocks of
//    grid.y down the reduced dim; the block's 16 row partials of a column
//    are combined in row order by one thread per column.
// Each thread keeps 4 (rows) or 8 (columns) 16-byte loads in flight before
// converting them. Sums of Half and BFloat16 convert without fp64
// conversion instructions (a quarter of the arithmetic rate): each value
// x is placed, by integer operations on its float bits, in a double of
// value x * 2^-896 (scaledOf), the accumulation runs on those in the same
// order, and the result is scaled back, bit for bit the unscaled sum. The
// grid is one wave of the blocks the device holds at once
// (residentBlocks); with few outputs the reduced range is split so that
// the tasks fill that wave. A split reduction writes fp64 partials to a
// workspace, and the block that completes the last split of an output
// (rows) or of a column block (columns) combines them in the same launch,
// deterministically: in split order, or for a row output, thread t taking
// splits t, t + blockDim, ... in order and then the block's fixed tree.
// One thread per block orders the partials' stores before its counter
// increment (fence.acq_rel).
//
// Ring: one kernel; block row y is chunk y (all ranks) or the whole buffer
// (reduce to root); each thread reads one element group from every rank,
// does the hops in registers in the CPU simulation's ring order with the
// same per-hop rounding (exec/communicator.h), and writes the result to
// every destination.
#include <algorithm>
#include <map>
#include <mutex>
#include <type_traits>
#include <utility>

#include "exec/cuda/cuda_status.h"
#include "exec/cuda/kernels_device.cuh"
#include "exec/cuda/kernels_internal.h"
#include "support/internal_error.h"

namespace fc::exec::cuda::kern {
namespace {

constexpr int kRR = 4;  // kept dims after coalescing

// ------------------------------------------------------------ element access

template <typename E>
constexpr int kVecOf = 16 / static_cast<int>(sizeof(E));

__device__ __forceinline__ double toD(__half x) { return __half2float(x); }
__device__ __forceinline__ double toD(__nv_bfloat16 x) { return __bfloat162float(x); }
__device__ __forceinline__ double toD(float x) { return x; }
__device__ __forceinline__ double toD(double x) { return x; }

// E's value nearest to x: storeAs / roundTo<double> for E's dtype.
template <typename E>
__device__ __forceinline__ E fromD(double x) {
  if constexpr (std::is_same_v<E, __half>) return __double2half(x);
  if constexpr (std::is_same_v<E, __nv_bfloat16>) return __double2bfloat16(x);
  if constexpr (std::is_same_v<E, float>) return static_cast<float>(x);
  if constexpr (std::is_same_v<E, double>) return x;
}

template <typename E>
__device__ __forceinline__ uint32_t bits16(E x) {
  if constexpr (std::is_same_v<E, __half>) return __half_as_ushort(x);
  if constexpr (std::is_same_v<E, __nv_bfloat16>) return __bfloat16_as_ushort(x);
  return 0;
}
template <typename E>
__device__ __forceinline__ E fromBits16(uint32_t b) {
  const auto s = static_cast<unsigned short>(b & 0xffffu);
  if constexpr (std::is_same_v<E, __half>) return __ushort_as_half(s);
  if constexpr (std::is_same_v<E, __nv_bfloat16>) return __ushort_as_bfloat16(s);
  return E{};
}

// V elements from p as doubles: V == 1, or kVecOf<E> with one 16-byte load.
template <int V, typename E>
__device__ __forceinline__ void loadN(const E* p, double (&x)[V]) {
  if constexpr (V == 1) {
    x[0] = toD(p[0]);
  } else if constexpr (sizeof(E) == 2) {
    const uint4 u = *reinterpret_cast<const uint4*>(p);
    const uint32_t w[4] = {u.x, u.y, u.z, u.w};
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      x[2 * k] = toD(fromBits16<E>(w[k]));
      x[2 * k + 1] = toD(fromBits16<E>(w[k] >> 16));
    }
  } else if constexpr (sizeof(E) == 4) {
    const float4 u = *reinterpret_cast<const float4*>(p);
    x[0] = u.x, x[1] = u.y, x[2] = u.z, x[3] = u.w;
  } else {
    const double2 u = *reinterpret_cast<const double2*>(p);
    x[0] = u.x, x[1] = u.y;
  }
}

// The same load split in two, so that several loads are in flight before
// the first conversion: rawLoad (one 16-byte or one element load), then
// fromRaw (the conversion loadN does).
template <int V, typename E>
using RawOf = std::conditional_t<V == 1, E, uint4>;

template <int V, typename E>
__device__ __forceinline__ RawOf<V, E> rawLoad(const E* p) {
  if constexpr (V == 1)
    return p[0];
  else
    return *reinterpret_cast<const uint4*>(p);
}

template <int V, typename E>
__device__ __forceinline__ void fromRaw(const RawOf<V, E>& u, double (&x)[V]) {
  if constexpr (V == 1) {
    x[0] = toD(u);
  } else if constexpr (sizeof(E) == 2) {
    const uint32_t w[4] = {u.x, u.y, u.z, u.w};
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      x[2 * k] = toD(fromBits16<E>(w[k]));
      x[2 * k + 1] = toD(fromBits16<E>(w[k] >> 16));
    }
  } else if constexpr (sizeof(E) == 4) {
    x[0] = __uint_as_float(u.x), x[1] = __uint_as_float(u.y), x[2] = __uint_as_float(u.z),
    x[3] = __uint_as_float(u.w);
  } else {
    x[0] = __hiloint2double(static_cast<int>(u.y), static_cast<int>(u.x));
    x[1] = __hiloint2double(static_cast<int>(u.w), static_cast<int>(u.z));
  }
}

// acc combined with the V-element groups at p[0], p[step], p[2 step], ...
// below p[n] (each group [k step, k step + V) lies below n), in that
// order, with kDepth loads in flight.
template <OpKind OP, int V, int kDepth, typename E, typename Acc>
__device__ __forceinline__ void accumulateStrided(const E* p, uint32_t n, uint32_t step, Acc acc) {
  uint32_t r = 0;
  for (; r + (kDepth - 1) * step < n; r += kDepth * step) {
    RawOf<V, E> u[kDepth];
#pragma unroll
    for (int k = 0; k < kDepth; ++k) u[k] = rawLoad<V>(p + r + k * step);
#pragma unroll
    for (int k = 0; k < kDepth; ++k) {
      double x[V];
      fromRaw<V, E>(u[k], x);
      acc(x);
    }
  }
  for (; r < n; r += step) {
    double x[V];
    fromRaw<V, E>(rawLoad<V>(p + r), x);
    acc(x);
  }
}

// Sums of Half / BFloat16 values through scaled doubles. For such a value
// x with float bits f (the low 13 bits zero), the double with high word
// f >> 3 (sign kept in bit 31) and low word 0 is x * 2^-896: the float's
// exponent field becomes the double's, whose bias is 896 larger (a
// BFloat16 subnormal becomes a double subnormal, exactly). Every partial
// sum in the same order is then the unscaled one times 2^-896: where it
// is at least 2^-1022, rounding does not depend on the scale; below, the
// sums, multiples of 2^-24 (Half) or 2^-133 (BFloat16), are exact in both.
// Multiplying by 2^896 gives the unscaled sum's bits. An infinity or NaN
// would become finite: the accumulating thread tracks max |x| (NaN
// propagating) and, having seen one, accumulates its range again through
// fromRaw.
template <typename E, OpKind OP, int V>
constexpr bool kScaled = V == 8 && OP == OpKind::Sum &&
                         (std::is_same_v<E, __half> || std::is_same_v<E, __nv_bfloat16>);

__device__ __forceinline__ double scaledOf(uint32_t f) {
  return __hiloint2double(static_cast<int>((static_cast<int>(f) >> 3) & 0x8FFFFFFF), 0);
}

// The 8 values of u scaled; m: the lanes' max |x| so far, as E x 2 bits.
template <typename E>
__device__ __forceinline__ void fromRawScaled(const uint4& u, double (&x)[8], uint32_t& m) {
  const uint32_t w[4] = {u.x, u.y, u.z, u.w};
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    if constexpr (std::is_same_v<E, __half>) {
      const __half2 h = *reinterpret_cast<const __half2*>(&w[k]);
      const float2 f = __half22float2(h);
      x[2 * k] = scaledOf(__float_as_uint(f.x));
      x[2 * k + 1] = scaledOf(__float_as_uint(f.y));
      __half2 mm = *reinterpret_cast<const __half2*>(&m);
      mm = __hmax2_nan(mm, __habs2(h));
      m = *reinterpret_cast<const uint32_t*>(&mm);
    } else {
      const __nv_bfloat162 h = *reinterpret_cast<const __nv_bfloat162*>(&w[k]);
      x[2 * k] = scaledOf(w[k] << 16);
      x[2 * k + 1] = scaledOf(w[k] & 0xffff0000u);
      __nv_bfloat162 mm = *reinterpret_cast<const __nv_bfloat162*>(&m);
      mm = __hmax2_nan(mm, __habs2(h));
      m = *reinterpret_cast<const uint32_t*>(&mm);
    }
  }
}

// Whether a lane of m (max |x|) is an infinity or NaN.
template <typename E>
__device__ __forceinline__ bool specialSeen(uint32_t m) {
  constexpr uint32_t kExp = std::is_same_v<E, __half> ? 0x7c00u : 0x7f80u;
  return (m & kExp) == kExp || (m >> 16 & kExp) == kExp;
}

template <int kDepth, typename E, typename Add>
__device__ __forceinline__ void accumulateScaled(const E* p, uint32_t n, uint32_t step, Add add,
                                                 uint32_t& m) {
  uint32_t r = 0;
  for (; r + (kDepth - 1) * step < n; r += kDepth * step) {
    uint4 u[kDepth];
#pragma unroll
    for (int k = 0; k < kDepth; ++k) u[k] = rawLoad<8>(p + r + k * step);
#pragma unroll
    for (int k = 0; k < kDepth; ++k) {
      double x[8];
      fromRawScaled<E>(u[k], x, m);
      add(x);
    }
  }
  for (; r < n; r += step) {
    double x[8];
    fromRawScaled<E>(rawLoad<8>(p + r), x, m);
    add(x);
  }
}

// acc (N accumulators, each OP's identity) combined by `add` with the
// groups accumulateStrided visits, in its order: Half / BFloat16 sums
// through scaled values.
template <typename E, OpKind OP, int V, int kDepth, int N, typename Add>
__device__ __forceinline__ void accumulateGroups(const E* p, uint32_t n, uint32_t step, double (&acc)[N],
                                                 Add add) {
  if constexpr (kScaled<E, OP, V>) {
    uint32_t m = 0;
    accumulateScaled<kDepth>(p, n, step, add, m);
    const bool special = specialSeen<E>(m);
#pragma unroll
    for (int k = 0; k < N; ++k) acc[k] = special ? identity(OP) : acc[k] * 0x1p896;
    if (!special) return;
  }
  accumulateStrided<OP, V, kDepth>(p, n, step, add);
}

// V values (each already one of E's values) stored as E.
template <int V, typename E>
__device__ __forceinline__ void storeN(E* p, const double (&x)[V]) {
  if constexpr (V == 1) {
    p[0] = fromD<E>(x[0]);
  } else if constexpr (sizeof(E) == 2) {
    uint32_t w[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) w[k] = bits16(fromD<E>(x[2 * k])) | bits16(fromD<E>(x[2 * k + 1])) << 16;
    *reinterpret_cast<uint4*>(p) = make_uint4(w[0], w[1], w[2], w[3]);
  } else if constexpr (sizeof(E) == 4) {
    *reinterpret_cast<float4*>(p) = make_float4(static_cast<float>(x[0]), static_cast<float>(x[1]),
                                                static_cast<float>(x[2]), static_cast<float>(x[3]));
  } else {
    *reinterpret_cast<double2*>(p) = make_double2(x[0], x[1]);
  }
}

bool aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

template <typename F>
bool withElementType(DType t, F f) {
  switch (t) {
    case DType::Half: f(__half{}); return true;
    case DType::BFloat16: f(__nv_bfloat16{}); return true;
    case DType::Float: f(float{}); return true;
    case DType::Double: f(double{}); return true;
    default: return false;
  }
}

// ------------------------------------------------------------ reductions

struct RedFast {
  const void* in = nullptr;
  void* out = nullptr;
  double* ws = nullptr;  // nsplit > 1: fp64 partials, [split][output]
  uint32_t* done =
      nullptr;  // nsplit > 1: splits finished per output (row) or column block; all 0 between launches
  DType out_dtype = DType::Float;
  bool mean = false;
  uint32_t count = 0;  // reduced elements per output
  uint32_t n_out = 0;
  int k_rank = 0;  // kept dims giving an input base offset, innermost first
  IntDiv k_div[kRR];
  uint32_t k_stride[kRR] = {};
  uint32_t n_base = 0;             // base offsets: n_out (row), outer kept indices (column)
  uint32_t r_stride = 1;           // column: stride of the reduced dim
  uint32_t inner = 1;              // column: size of the contiguous innermost kept dim
  uint32_t nsplit = 1, chunk = 0;  // split s reduces [s * chunk, min(count, (s + 1) * chunk))
};

__device__ __forceinline__ uint32_t baseOffset(const RedFast& a, uint32_t b) {
  uint32_t off = 0;
  forEachIndexDiv<kRR>(a.k_rank, a.k_div, b, [&](int k, uint32_t i) { off += i * a.k_stride[k]; });
  return off;
}

// Output o's reduction over split s: its partial, or (the whole range)
// finished as the general kernels finish it.
__device__ __forceinline__ void emit(const RedFast& a, uint32_t o, uint32_t s, double acc, bool partial) {
  if (partial) {
    a.ws[s * a.n_out + o] = acc;
    return;
  }
  if (a.mean) acc /= static_cast<double>(a.count);
  storeAs(a.out, a.out_dtype, o, acc);
}

// Combines the G threads' values; the group's first thread gets the result.
template <OpKind OP, int G>
__device__ __forceinline__ double groupReduce(double acc, double* partial) {
#pragma unroll
  for (int s = 16; s > 0; s >>= 1) acc = combine(OP, acc, __shfl_down_sync(0xffffffffu, acc, s));
  if constexpr (G == 32) {
    return acc;
  } else {
    if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = acc;
    __syncthreads();
    double t = partial[0];
    if (threadIdx.x == 0)
      for (int w = 1; w < G / 32; ++w) t = combine(OP, t, partial[w]);
    __syncthreads();  // partial is reused by the next output
    return t;
  }
}

// Release (before a split counter's increment) or acquire (after it).
__device__ __forceinline__ void fenceAcqRel() { asm volatile("fence.acq_rel.gpu;" ::: "memory"); }

// Split s of output o is done (its partial `acc` held by thread 0 of the
// block): the partial is stored, and the block that stores the last of
// o's splits combines them all in a fixed order (thread t takes splits t,
// t + blockDim, ... in order, then the block's tree), whichever block that
// is, and finishes o. Block-uniform; resets o's counter for the next launch.
template <OpKind OP>
__device__ __forceinline__ void finishSplit(const RedFast& a, uint32_t o, uint32_t s, double acc,
                                            double* partial) {
  __shared__ bool last;
  if (threadIdx.x == 0) {
    a.ws[s * a.n_out + o] = acc;
    fenceAcqRel();
    last = atomicAdd(a.done + o, 1u) == a.nsplit - 1;
    if (last) fenceAcqRel();
  }
  __syncthreads();
  if (last) {
    double v = identity(OP);
#pragma unroll 4
    for (uint32_t k = threadIdx.x; k < a.nsplit; k += blockDim.x)
      v = combine(OP, v, __ldcg(a.ws + k * a.n_out + o));
    v = groupReduce<OP, kThreads>(v, partial);
    if (threadIdx.x == 0) {
      emit(a, o, 0, v, false);
      a.done[o] = 0;
    }
  }
  __syncthreads();  // `last` is reused by the next task
}

// G threads (a warp or the block) per (output, split); splits only with
// G == kThreads.
template <typename E, OpKind OP, int V, int G>
__global__ void __launch_bounds__(kThreads) rowReduceKernel(const RedFast a) {
  constexpr int kGroups = kThreads / G;
  __shared__ double partial[kThreads / 32];
  const uint32_t lane = threadIdx.x % G;
  const uint32_t tasks = a.n_out * a.nsplit;
  for (uint32_t t = blockIdx.x * kGroups + threadIdx.x / G; t < tasks; t += gridDim.x * kGroups) {
    const uint32_t o = t % a.n_out, s = t / a.n_out;
    const E* row = static_cast<const E*>(a.in) + baseOffset(a, o);
    const uint32_t lo = s * a.chunk, hi = min(a.count, lo + a.chunk);
    double sum[1] = {identity(OP)};
    const uint32_t first = lo + lane * V;
    if (first < hi)
      accumulateGroups<E, OP, V, 4>(row + first, hi - first, G * V, sum, [&](const double(&x)[V]) {
#pragma unroll
        for (int v = 0; v < V; ++v) sum[0] = combine(OP, sum[0], x[v]);
      });
    const double acc = groupReduce<OP, G>(sum[0], partial);
    if constexpr (G == kThreads) {
      if (a.nsplit > 1) {
        finishSplit<OP>(a, o, s, acc, partial);
        continue;
      }
    }
    if (lane == 0) emit(a, o, s, acc, false);
  }
}

// kColX x kColY threads per block: x across V-column groups, y down the
// rows. Split reductions: the block that finishes the last split of its
// columns (counted per column block) combines their partials in split order.
constexpr int kColX = 16, kColY = kThreads / kColX;
template <typename E, OpKind OP, int V>
__global__ void __launch_bounds__(kThreads) colReduceKernel(const RedFast a) {
  constexpr int kX = kColX, kY = kColY;
  __shared__ double part[kY][kX * V];
  __shared__ bool last;
  const uint32_t tx = threadIdx.x % kX, ty = threadIdx.x / kX;
  const uint32_t col = (blockIdx.x * kX + tx) * V;
  const uint32_t tasks = a.n_base * a.nsplit;
  for (uint32_t t = blockIdx.y; t < tasks; t += gridDim.y) {
    const uint32_t b = t % a.n_base, s = t / a.n_base;
    const uint32_t lo = s * a.chunk, hi = min(a.count, lo + a.chunk);
    double acc[V];
#pragma unroll
    for (int v = 0; v < V; ++v) acc[v] = identity(OP);
    if (col < a.inner && lo + ty < hi) {
      const E* p = static_cast<const E*>(a.in) + baseOffset(a, b) + col + (lo + ty) * a.r_stride;
      const uint32_t rows = (hi - lo - ty + kY - 1) / kY;  // this thread's rows: lo + ty, + kY, ...
      accumulateGroups<E, OP, V, 8>(p, rows * (kY * a.r_stride), kY * a.r_stride, acc,
                                    [&](const double(&x)[V]) {
#pragma unroll
                                      for (int v = 0; v < V; ++v) acc[v] = combine(OP, acc[v], x[v]);
                                    });
    }
#pragma unroll
    for (int v = 0; v < V; ++v) part[ty][tx * V + v] = acc[v];
    __syncthreads();
    // One thread per column combines the kY row partials (coalesced stores).
    const uint32_t c0 = blockIdx.x * kX * V;
    if (threadIdx.x < kX * V && c0 + threadIdx.x < a.inner) {
      double r = part[0][threadIdx.x];
#pragma unroll
      for (int y = 1; y < kY; ++y) r = combine(OP, r, part[y][threadIdx.x]);
      emit(a, b * a.inner + c0 + threadIdx.x, s, r, a.nsplit > 1);
    }
    if (a.nsplit > 1) {
      const uint32_t counter = b * gridDim.x + blockIdx.x;
      __syncthreads();  // the block's partials are stored
      if (threadIdx.x == 0) {
        fenceAcqRel();
        last = atomicAdd(a.done + counter, 1u) == a.nsplit - 1;
        if (last) fenceAcqRel();
      }
      __syncthreads();
      if (last) {
        const uint32_t c = c0 + threadIdx.x;
        if (threadIdx.x < kX * V && c < a.inner) {
          const uint32_t o = b * a.inner + c;
          double r = __ldcg(a.ws + o);
#pragma unroll 8
          for (uint32_t k = 1; k < a.nsplit; ++k) r = combine(OP, r, __ldcg(a.ws + k * a.n_out + o));
          emit(a, o, 0, r, false);
        }
        if (threadIdx.x == 0) a.done[counter] = 0;
      }
    }
    __syncthreads();
  }
}

// Per-(device, stream) workspace for split reductions: fp64 partials,
// grown on demand and kept, and kMaxCounters split counters, zeroed once
// (the finishing blocks reset each one they use). The lock is held while
// the kernels that use it are enqueued, so two threads sharing a stream
// cannot interleave them.
constexpr uint32_t kMaxCounters = 1u << 16;

struct Workspace {
  std::unique_lock<std::mutex> lock;
  double* data = nullptr;
  uint32_t* done = nullptr;
};
Workspace workspace(uint64_t bytes, cudaStream_t s) {
  struct Entry {
    void* data = nullptr;
    uint64_t bytes = 0;
    void* done = nullptr;
  };
  static std::mutex mu;
  static auto* cache = new std::map<std::pair<int, cudaStream_t>, Entry>();
  int dev = 0;
  FC_CUDA(cudaGetDevice(&dev));
  Workspace w{std::unique_lock<std::mutex>(mu), nullptr, nullptr};
  Entry& e = (*cache)[{dev, s}];
  if (!e.done) {
    FC_CUDA(cudaMalloc(&e.done, kMaxCounters * sizeof(uint32_t)));
    FC_CUDA(cudaMemsetAsync(e.done, 0, kMaxCounters * sizeof(uint32_t), s));
  }
  if (e.bytes < bytes) {
    if (e.data) FC_CUDA(cudaFree(e.data));  // waits for the kernels that used it
    e.data = nullptr;
    e.bytes = 0;
    FC_CUDA(cudaMalloc(&e.data, bytes));
    e.bytes = bytes;
  }
  w.data = static_cast<double*>(e.data);
  w.done = static_cast<uint32_t*>(e.done);
  return w;
}

uint32_t ceilDiv(uint64_t a, uint64_t b) { return static_cast<uint32_t>((a + b - 1) / b); }

// Splits of the reduced range: about `want` of them (at most), each at
// least `min_len` long, chunk a multiple of `align`.
void setSplits(RedFast& r, uint64_t want, uint64_t min_len, uint32_t align) {
  uint64_t n = std::max<uint64_t>(1, std::min<uint64_t>(want, r.count / std::max<uint64_t>(min_len, 1)));
  r.chunk = ceilDiv(ceilDiv(r.count, n), align) * align;
  r.nsplit = ceilDiv(r.count, r.chunk);
}

// The grid is one wave of resident blocks (residentBlocks): with few
// outputs the reduced range is split so that the (output, split) tasks
// fill that wave, each block streaming a long range with its loads in
// flight, and the last block of each output (or column block) finishes it
// in the same launch.
template <typename E, OpKind OP>
void launchRowOrColumn(RedFast r, bool row, bool vec, cudaStream_t s) {
  constexpr int V = kVecOf<E>;
  const uint64_t sms = static_cast<uint64_t>(smCount());
  void (*kernel)(RedFast) = nullptr;
  dim3 grid;
  if (row) {
    const bool warp = r.count <= 256 || (r.count <= 32768 && r.n_out >= 16 * sms);
    kernel = warp ? (vec ? rowReduceKernel<E, OP, V, 32> : rowReduceKernel<E, OP, 1, 32>)
                  : (vec ? rowReduceKernel<E, OP, V, kThreads> : rowReduceKernel<E, OP, 1, kThreads>);
    const uint64_t wave = static_cast<uint64_t>(residentBlocks(kernel, kThreads));
    // A split is a whole number of the block's batches of loads (4 per
    // thread), so that no thread ends on loads issued one at a time.
    const uint32_t batch = kThreads * 4 * (vec ? V : 1);
    if (!warp && r.n_out < wave)
      setSplits(r, wave / r.n_out, batch, batch);
    else
      setSplits(r, 1, 1, 1);
    const uint64_t tasks = uint64_t{r.n_out} * r.nsplit;
    grid.x = static_cast<uint32_t>(std::min<uint64_t>(warp ? ceilDiv(tasks, kThreads / 32) : tasks, wave));
  } else {
    kernel = vec ? colReduceKernel<E, OP, V> : colReduceKernel<E, OP, 1>;
    const uint64_t wave = static_cast<uint64_t>(residentBlocks(kernel, kThreads));
    grid.x = ceilDiv(r.inner, uint32_t{kColX} * (vec ? V : 1));
    const uint64_t per = uint64_t{grid.x} * r.n_base;
    // Whole batches of rows: 8 loads per thread, kColY rows apart.
    constexpr uint32_t kRowBatch = kColY * 8;
    setSplits(r, per < wave ? wave / per : 1, kRowBatch, kRowBatch);
    grid.y = static_cast<uint32_t>(std::min<uint64_t>(uint64_t{r.n_base} * r.nsplit, 65535));
  }
  Workspace ws;
  if (r.nsplit > 1) {
    FC_CHECK((row ? r.n_out : r.n_base * grid.x) <= kMaxCounters, "split reduction beyond its counters");
    ws = workspace(uint64_t{r.nsplit} * r.n_out * sizeof(double), s);
    r.ws = ws.data;
    r.done = ws.done;
  }
  countLaunch(row ? Path::ReduceRow : Path::ReduceColumn);
  kernel<<<grid, kThreads, 0, s>>>(r);
  FC_CUDA(cudaGetLastError());
}

// ------------------------------------------------------------ ring

__device__ __forceinline__ int ringRank(int start, int h, int R) {
  return start + h < R ? start + h : start + h - R;
}

// acc = round(combine(acc, x)) per element, rounding to E as the CPU does.
template <typename E, OpKind OP, int V>
__device__ __forceinline__ void hopWith(double (&acc)[V], const double (&x)[V]) {
#pragma unroll
  for (int v = 0; v < V; ++v) acc[v] = toD(fromD<E>(combine(OP, acc[v], x[v])));
}
template <typename E, int V>
__device__ __forceinline__ void hop(OpKind op, double (&acc)[V], const double (&x)[V]) {
  switch (op) {
    case OpKind::Prod: hopWith<E, OpKind::Prod>(acc, x); return;
    case OpKind::Max: hopWith<E, OpKind::Max>(acc, x); return;
    case OpKind::Min: hopWith<E, OpKind::Min>(acc, x); return;
    default: hopWith<E, OpKind::Sum>(acc, x); return;
  }
}

// Elements [i, i + V) through the whole ring (RC ranks, or a.R when RC is 0).
template <typename E, int RC, int V>
__device__ __forceinline__ void ringAt(const RingArgs& a, int start, int64_t i) {
  const int R = RC > 0 ? RC : a.R;
  double acc[V];
  loadN<V>(static_cast<const E*>(a.src[start]) + i, acc);
  if constexpr (RC > 0) {
    double x[RC > 1 ? RC - 1 : 1][V];
#pragma unroll
    for (int h = 1; h < RC; ++h) loadN<V>(static_cast<const E*>(a.src[ringRank(start, h, RC)]) + i, x[h - 1]);
#pragma unroll
    for (int h = 1; h < RC; ++h) hop<E>(a.op, acc, x[h - 1]);
  } else {
    for (int h = 1; h < R; ++h) {
      double x[V];
      loadN<V>(static_cast<const E*>(a.src[ringRank(start, h, R)]) + i, x);
      hop<E>(a.op, acc, x);
    }
  }
  if (a.all) {
    for (int r = 0; r < R; ++r) storeN<V>(static_cast<E*>(a.dst[r]) + i, acc);
  } else {
    storeN<V>(static_cast<E*>(a.dst[0]) + i, acc);
  }
}

template <typename E, int RC>
__global__ void __launch_bounds__(kThreads) ringFastKernel(const RingArgs a, bool vec) {
  constexpr int V = kVecOf<E>;
  const int64_t R = RC > 0 ? RC : a.R, c = blockIdx.y;
  const int64_t lo = a.all ? c * a.count / R : 0, hi = a.all ? (c + 1) * a.count / R : a.count;
  const int end = a.all ? static_cast<int>(c) : a.root;
  const int start = end + 1 == R ? 0 : end + 1;
  int64_t vlo = lo, vhi = lo;  // the vectorized part: whole aligned groups
  if (vec) {
    vlo = (lo + V - 1) / V * V;
    if (vlo > hi) vlo = hi;
    vhi = vlo + (hi - vlo) / V * V;
  }
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t t0 = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (int64_t g = vlo + t0 * V; g < vhi; g += step * V) ringAt<E, RC, V>(a, start, g);
  if (t0 < vlo - lo) ringAt<E, RC, 1>(a, start, lo + t0);
  for (int64_t i = vhi + t0; i < hi; i += step) ringAt<E, RC, 1>(a, start, i);
}

}  // namespace

bool launchReduceFast(const ReduceArgs& a, void* stream) {
  constexpr int64_t kLimit = int64_t{1} << 31;
  if (a.rank < 1 || a.rank > kMaxRank || a.n_red < 1 || a.n_red > a.rank) return false;
  if (a.op != OpKind::Sum && a.op != OpKind::Mean && a.op != OpKind::Prod && a.op != OpKind::Max &&
      a.op != OpKind::Min)
    return false;
  const int nk = a.rank - a.n_red;
  int64_t count = numelOf(a.shape + nk, a.n_red), n_out = numelOf(a.shape, nk);
  if (count < 16 || n_out < 1 || count >= kLimit || n_out >= kLimit) return false;
  int64_t kshape[kMaxRank], kstr[1][kMaxRank], rshape[kMaxRank], rstr[1][kMaxRank];
  const int64_t* ks[1] = {a.strides};
  const int64_t* rs[1] = {a.strides + nk};
  int krank = coalesce(nk, a.shape, ks, 1, kshape, kstr);
  int rrank = coalesce(a.n_red, a.shape + nk, rs, 1, rshape, rstr);
  if (rrank != 1 || krank > kRR + 1 || rstr[0][0] < 0 || rstr[0][0] >= kLimit) return false;
  int64_t max_off = (rshape[0] - 1) * rstr[0][0];  // each term < 2^62, checked as it is added
  for (int k = 0; k < krank && max_off < kLimit; ++k) {
    if (kstr[0][k] < 0 || kstr[0][k] >= kLimit) return false;
    max_off += (kshape[k] - 1) * kstr[0][k];
  }
  if (max_off >= kLimit) return false;

  RedFast r;
  r.in = a.in;
  r.out = a.out;
  r.out_dtype = a.out_dtype;
  r.mean = a.op == OpKind::Mean;
  r.count = static_cast<uint32_t>(count);
  r.n_out = static_cast<uint32_t>(n_out);
  const bool row = rstr[0][0] == 1;
  const int first = row ? 0 : 1;  // column: the innermost kept dim is the columns
  if (!row && (krank < 1 || kstr[0][0] != 1)) return false;
  if (krank - first > kRR) return false;
  r.k_rank = krank - first;
  for (int k = first; k < krank; ++k) {
    r.k_div[k - first] = IntDiv(static_cast<uint32_t>(kshape[k]));
    r.k_stride[k - first] = static_cast<uint32_t>(kstr[0][k]);
  }
  r.r_stride = static_cast<uint32_t>(rstr[0][0]);
  r.inner = row ? 1 : static_cast<uint32_t>(kshape[0]);
  r.n_base = row ? r.n_out : r.n_out / r.inner;
  auto s = static_cast<cudaStream_t>(stream);
  return withElementType(a.in_dtype, [&](auto e) {
    using E = decltype(e);
    constexpr uint32_t V = kVecOf<E>;
    bool vec = aligned16(a.in) && (row ? r.count % V == 0 : r.inner % V == 0 && r.r_stride % V == 0);
    for (int k = 0; k < r.k_rank; ++k) vec = vec && r.k_stride[k] % V == 0;
    switch (a.op) {
      case OpKind::Prod: launchRowOrColumn<E, OpKind::Prod>(r, row, vec, s); break;
      case OpKind::Max: launchRowOrColumn<E, OpKind::Max>(r, row, vec, s); break;
      case OpKind::Min: launchRowOrColumn<E, OpKind::Min>(r, row, vec, s); break;
      default: launchRowOrColumn<E, OpKind::Sum>(r, row, vec, s); break;
    }
  });
}

bool launchRingFast(const RingArgs& a, void* stream) {
  if (a.R < 1 || a.R > 64 || a.count < 1 || (!a.all && (a.root < 0 || a.root >= a.R))) return false;
  bool vec = true;
  for (int r = 0; r < a.R; ++r) vec = vec && aligned16(a.src[r]) && aligned16(a.dst[r]);
  auto s = static_cast<cudaStream_t>(stream);
  return withElementType(a.dtype, [&](auto e) {
    using E = decltype(e);
    dim3 grid(1, a.all ? a.R : 1);
    grid.x = std::max(1, gridFor(a.count / (vec ? kVecOf<E> : 1)) / static_cast<int>(grid.y));
    countLaunch(vec ? Path::RingVector : Path::RingScalar);
    if (a.R == 2)
      ringFastKernel<E, 2><<<grid, kThreads, 0, s>>>(a, vec);
    else
      ringFastKernel<E, 0><<<grid, kThreads, 0, s>>>(a, vec);
    FC_CUDA(cudaGetLastError());
  });
}

}  // namespace fc::exec::cuda::kern
