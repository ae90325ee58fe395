// The CUDA backend's general kernels and the public launchers (see
// kernels.h for the contracts and costs). Each launcher first tries the
// specialized kernels (kernels_pointwise.cu, kernels_reduce.cu; see
// kernels_internal.h) and falls back to the general kernels here: the
// pointwise interpreter, the strided reductions, the element-wise ring.
#include <atomic>
#include <cmath>
#include <cstdint>
#include <map>
#include <mutex>
#include <tuple>

#include "exec/cuda/cuda_status.h"
#include "exec/cuda/kernels.h"
#include "exec/cuda/kernels_device.cuh"
#include "exec/cuda/kernels_internal.h"
#include "support/internal_error.h"

namespace fc::exec::cuda {
namespace {

using namespace kern;  // NOLINT(google-build-using-namespace): the shared device helpers

template <typename T>
__device__ __forceinline__ T apply(const PwInstr& in, T a, T b, T c) {
  const bool x = in.approx_tanh;
  switch (in.op) {
    case OpKind::Set:
    case OpKind::SegmentSet:
    case OpKind::Cast: return a;
#define FC_PW_CASE(Name) \
  case OpKind::Name: return Op##Name::f(a, b, c, x);
      FC_PW_CASE(Neg)
      FC_PW_CASE(Abs)
      FC_PW_CASE(Exp)
      FC_PW_CASE(Log)
      FC_PW_CASE(Sqrt)
      FC_PW_CASE(Rsqrt)
      FC_PW_CASE(Tanh)
      FC_PW_CASE(Sigmoid)
      FC_PW_CASE(Relu)
      FC_PW_CASE(Gelu)
      FC_PW_CASE(Silu)
      FC_PW_CASE(Reciprocal)
      FC_PW_CASE(Sin)
      FC_PW_CASE(Cos)
      FC_PW_CASE(Erf)
      FC_PW_CASE(Floor)
      FC_PW_CASE(Ceil)
      FC_PW_CASE(LogicalNot)
      FC_PW_CASE(Add)
      FC_PW_CASE(Sub)
      FC_PW_CASE(Mul)
      FC_PW_CASE(Div)
      FC_PW_CASE(Pow)
      FC_PW_CASE(Maximum)
      FC_PW_CASE(Minimum)
      FC_PW_CASE(Eq)
      FC_PW_CASE(Ne)
      FC_PW_CASE(Lt)
      FC_PW_CASE(Le)
      FC_PW_CASE(Gt)
      FC_PW_CASE(Ge)
      FC_PW_CASE(LogicalAnd)
      FC_PW_CASE(LogicalOr)
      FC_PW_CASE(Where)
#undef FC_PW_CASE
    default: return static_cast<T>(NAN);
  }
}

// Evaluates the program at the output element whose leaf offsets are `off`.
template <typename T>
__device__ __forceinline__ T evalAt(const PwProgram& p, const int64_t* off) {
  T regs[kMaxInstrs];
  T result = 0;
  for (int k = 0; k < p.n_instrs; ++k) {
    const PwInstr& in = p.instrs[k];
    T v[3] = {0, 0, 0};
    for (int j = 0; j < in.nargs; ++j) {
      const PwRef& r = in.args[j];
      if (r.kind == PwRef::Leaf)
        v[j] = loadT<T>(p.leaves[r.index].data, p.leaves[r.index].dtype, off[r.index]);
      else if (r.kind == PwRef::Reg)
        v[j] = regs[r.index];
      else
        v[j] = static_cast<T>(r.value);
    }
    result = roundTo<T>(in.round_to, apply<T>(in, v[0], v[1], v[2]));
    regs[k] = result;
  }
  return result;
}

// Each thread: VEC consecutive elements along the innermost dim.
template <typename T, int VEC>
__global__ void pointwiseKernel(const PwProgram p, int64_t n_groups) {
  const int rank = p.rank;
  const int64_t inner = rank > 0 ? p.shape[rank - 1] : 1;
  for (int64_t g = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; g < n_groups;
       g += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t flat = g * VEC;
    int64_t off[kMaxLeaves];
    for (int l = 0; l < p.n_leaves; ++l) off[l] = 0;
    int64_t rem = flat;
    for (int d = rank - 1; d >= 0; --d) {
      int64_t s = p.shape[d];
      int64_t i = rem % s;
      rem /= s;
      for (int l = 0; l < p.n_leaves; ++l) off[l] += i * p.leaves[l].strides[d];
    }
    T out[VEC];
#pragma unroll
    for (int v = 0; v < VEC; ++v) {
      out[v] = evalAt<T>(p, off);
      if (rank > 0)
        for (int l = 0; l < p.n_leaves; ++l) off[l] += p.leaves[l].strides[rank - 1];
    }
    (void)inner;
#pragma unroll
    for (int v = 0; v < VEC; ++v) storeT<T>(p.out, p.out_dtype, flat + v, out[v]);
  }
}

template <typename T>
void launchPw(const PwProgram& p, int64_t n, cudaStream_t s) {
  int64_t inner = p.rank > 0 ? p.shape[p.rank - 1] : 1;
  if (inner % 4 == 0) {
    int64_t groups = n / 4;
    pointwiseKernel<T, 4><<<gridFor(groups), kThreads, 0, s>>>(p, groups);
  } else {
    pointwiseKernel<T, 1><<<gridFor(n), kThreads, 0, s>>>(p, n);
  }
}

// ---------------------------------------------------------------- reductions

// Offset of kept index `o` (row-major over the kept dims).
__device__ __forceinline__ int64_t keptOffset(const ReduceArgs& a, int64_t o) {
  int64_t off = 0;
  for (int d = a.rank - a.n_red - 1; d >= 0; --d) {
    int64_t s = a.shape[d];
    off += (o % s) * a.strides[d];
    o /= s;
  }
  return off;
}
__device__ __forceinline__ int64_t redOffset(const ReduceArgs& a, int64_t r) {
  int64_t off = 0;
  for (int d = a.rank - 1; d >= a.rank - a.n_red; --d) {
    int64_t s = a.shape[d];
    off += (r % s) * a.strides[d];
    r /= s;
  }
  return off;
}

__device__ __forceinline__ void finish(const ReduceArgs& a, int64_t o, double acc, int64_t count) {
  if (a.op == OpKind::Mean) acc /= static_cast<double>(count);
  storeAs(a.out, a.out_dtype, o, acc);
}

// One block per output; threads stride over the reduced elements.
__global__ void reduceBlockKernel(const ReduceArgs a, int64_t n_out, int64_t count, bool inner_contig) {
  __shared__ double partial[kThreads / 32];
  for (int64_t o = blockIdx.x; o < n_out; o += gridDim.x) {
    int64_t base = keptOffset(a, o);
    double acc = identity(a.op);
    if (inner_contig) {
      for (int64_t r = threadIdx.x; r < count; r += blockDim.x)
        acc = combine(a.op, acc, loadAs(a.in, a.in_dtype, base + r));
    } else {
      for (int64_t r = threadIdx.x; r < count; r += blockDim.x)
        acc = combine(a.op, acc, loadAs(a.in, a.in_dtype, base + redOffset(a, r)));
    }
    for (int s = 16; s > 0; s >>= 1) acc = combine(a.op, acc, __shfl_down_sync(0xffffffffu, acc, s));
    if ((threadIdx.x & 31) == 0) partial[threadIdx.x >> 5] = acc;
    __syncthreads();
    if (threadIdx.x == 0) {
      double t = identity(a.op);
      for (int w = 0; w < kThreads / 32; ++w) t = combine(a.op, t, partial[w]);
      finish(a, o, t, count);
    }
    __syncthreads();
  }
}

// One thread per output (short reductions).
__global__ void reduceThreadKernel(const ReduceArgs a, int64_t n_out, int64_t count) {
  for (int64_t o = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; o < n_out;
       o += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t base = keptOffset(a, o);
    double acc = identity(a.op);
    for (int64_t r = 0; r < count; ++r)
      acc = combine(a.op, acc, loadAs(a.in, a.in_dtype, base + redOffset(a, r)));
    finish(a, o, acc, count);
  }
}

// ---------------------------------------------------------------- ring

__global__ void ringKernel(const RingArgs a) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < a.count;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    // Chunk c = [c*n/R, (c+1)*n/R): the largest c with c*n/R <= i.
    int c = static_cast<int>((i * a.R) / a.count);
    while (c + 1 < a.R && ((c + 1) * a.count) / a.R <= i) ++c;
    while (c > 0 && (c * a.count) / a.R > i) --c;
    int end = a.all ? c : a.root;
    int start = (end + 1) % a.R;
    double acc = loadAs(a.src[start], a.dtype, i);
    for (int h = 1; h < a.R; ++h) {
      int r = (start + h) % a.R;
      acc = static_cast<double>(roundTo<double>(a.dtype, combine(a.op, acc, loadAs(a.src[r], a.dtype, i))));
    }
    if (a.all) {
      for (int r = 0; r < a.R; ++r) storeAs(a.dst[r], a.dtype, i, acc);
    } else {
      storeAs(a.dst[0], a.dtype, i, acc);
    }
  }
}

// ---------------------------------------------------------------- copies, factories

struct CopyArgs {
  const void* src;
  DType src_dtype;
  int64_t offset;
  int64_t strides[kMaxRank];
  int64_t shape[kMaxRank];
  int rank;
  void* dst;
  DType dst_dtype;
};

__global__ void stridedCopyKernel(const CopyArgs a, int64_t n) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t rem = i, off = a.offset;
    for (int d = a.rank - 1; d >= 0; --d) {
      off += (rem % a.shape[d]) * a.strides[d];
      rem /= a.shape[d];
    }
    storeAs(a.dst, a.dst_dtype, i, loadAs(a.src, a.src_dtype, off));
  }
}

__global__ void iotaKernel(void* dst, DType t, int64_t n, double start, double step) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    storeAs(dst, t, i, __dadd_rn(start, __dmul_rn(static_cast<double>(i), step)));  // no fma, as the host
}

struct ViewCopyArgs {
  const void* src;
  DType src_dtype;
  int64_t src_offset;
  int64_t src_strides[kMaxRank];
  void* dst;
  DType dst_dtype;
  int64_t dst_offset;
  int64_t dst_strides[kMaxRank];
  int64_t shape[kMaxRank];
  int rank;
};

__global__ void viewCopyKernel(const ViewCopyArgs a, int64_t n) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t rem = i, s = a.src_offset, d = a.dst_offset;
    for (int k = a.rank - 1; k >= 0; --k) {
      const int64_t x = rem % a.shape[k];
      rem /= a.shape[k];
      s += x * a.src_strides[k];
      d += x * a.dst_strides[k];
    }
    storeAs(a.dst, a.dst_dtype, d, loadAs(a.src, a.src_dtype, s));
  }
}

__global__ void countDiffKernel(const uint32_t* a, const uint32_t* b, int64_t words, const unsigned char* ta,
                                const unsigned char* tb, int tail, unsigned long long* count) {
  unsigned long long c = 0;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < words;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    c += a[i] != b[i];
  if (blockIdx.x == 0 && threadIdx.x == 0)
    for (int k = 0; k < tail; ++k) c += ta[k] != tb[k];
  if (c) atomicAdd(count, c);
}

__device__ __forceinline__ uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

__global__ void randomKernel(void* dst, DType t, int64_t n, uint64_t seed) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    uint64_t z = mix(seed * 0x9e3779b97f4a7c15ULL + static_cast<uint64_t>(i) + 1);
    double u = static_cast<double>(z >> 11) * (1.0 / 9007199254740992.0);
    storeAs(dst, t, i, 2.0 * u - 1.0);
  }
}

}  // namespace

namespace kern {
namespace {
std::atomic<bool> g_specialized{true};
std::atomic<int64_t> g_counts[static_cast<int>(Path::RingGeneral) + 1];
std::atomic<int> g_sms[64];
}  // namespace

bool specializedEnabled() { return g_specialized.load(std::memory_order_relaxed); }

void countLaunch(Path p) { g_counts[static_cast<int>(p)].fetch_add(1, std::memory_order_relaxed); }

int smCount() {
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= 64) return 132;
  int n = g_sms[dev].load(std::memory_order_relaxed);
  if (n > 0) return n;
  if (cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess || n <= 0) return 132;
  g_sms[dev].store(n, std::memory_order_relaxed);
  return n;
}

int residentBlocksOf(const void* kernel, int threads, size_t smem) {
  static std::mutex mu;
  static auto* cache = new std::map<std::tuple<const void*, int, size_t>, int>();
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = cache->find({kernel, threads, smem});
    if (it != cache->end()) return it->second * smCount();
  }
  int n = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel, threads, smem) != cudaSuccess || n < 1) {
    (void)cudaGetLastError();
    n = 1;
  }
  std::lock_guard<std::mutex> lock(mu);
  (*cache)[{kernel, threads, smem}] = n;
  return n * smCount();
}

int coalesce(int rank, const int64_t* shape, const int64_t* const* strides, int n_sets, int64_t* out_shape,
             int64_t (*out_strides)[kMaxRank]) {
  int k = 0;
  for (int d = rank - 1; d >= 0; --d) {
    if (shape[d] == 1) continue;
    bool merge = k > 0;
    for (int s = 0; merge && s < n_sets; ++s)
      merge = strides[s][d] == out_strides[s][k - 1] * out_shape[k - 1];
    if (merge) {
      out_shape[k - 1] *= shape[d];
      continue;
    }
    out_shape[k] = shape[d];
    for (int s = 0; s < n_sets; ++s) out_strides[s][k] = strides[s][d];
    ++k;
  }
  return k;
}
}  // namespace kern

void setSpecializedKernels(bool on) { kern::g_specialized.store(on); }

KernelCounts kernelCounts() {
  auto c = [](kern::Path p) { return kern::g_counts[static_cast<int>(p)].load(); };
  KernelCounts k;
  k.pointwise_interpreter = c(kern::Path::PwInterpreter);
  k.pointwise_vector = c(kern::Path::PwVector);
  k.pointwise_scalar = c(kern::Path::PwScalar);
  k.pointwise_tiled = c(kern::Path::PwTiled);
  k.pointwise_fused_ring = c(kern::Path::PwFusedRing);
  k.pointwise_table = c(kern::Path::PwTable);
  k.reduce_row = c(kern::Path::ReduceRow);
  k.reduce_column = c(kern::Path::ReduceColumn);
  k.reduce_general = c(kern::Path::ReduceGeneral);
  k.ring_vector = c(kern::Path::RingVector);
  k.ring_scalar = c(kern::Path::RingScalar);
  k.ring_general = c(kern::Path::RingGeneral);
  return k;
}

void resetKernelCounts() {
  for (auto& x : kern::g_counts) x.store(0);
}

void launchPointwise(const PwProgram& p, void* stream) {
  FC_CHECK(p.ring_leaf < 0, "a program with a ring leaf runs through launchPointwiseFused");
  int64_t n = numelOf(p.shape, p.rank);
  if (n == 0) return;
  if (specializedEnabled() && launchPointwiseFast(p, n, stream)) return;
  countLaunch(Path::PwInterpreter);
  auto s = static_cast<cudaStream_t>(stream);
  if (p.fp64)
    launchPw<double>(p, n, s);
  else
    launchPw<float>(p, n, s);
  FC_CUDA(cudaGetLastError());
}

bool launchPointwiseFused(const PwProgram& p, void* stream) {
  if (p.ring_leaf < 0) {
    launchPointwise(p, stream);
    return true;
  }
  int64_t n = numelOf(p.shape, p.rank);
  if (n == 0) return true;
  return specializedEnabled() && launchPointwiseFast(p, n, stream);
}

void launchReduce(const ReduceArgs& a, void* stream) {
  int64_t n_out = numelOf(a.shape, a.rank - a.n_red);
  int64_t count = 1;
  for (int d = a.rank - a.n_red; d < a.rank; ++d) count *= a.shape[d];
  if (n_out == 0) return;
  if (specializedEnabled() && launchReduceFast(a, stream)) return;
  countLaunch(Path::ReduceGeneral);
  auto s = static_cast<cudaStream_t>(stream);
  bool inner_contig = a.n_red == 1 && a.strides[a.rank - 1] == 1;
  if (count >= 256)
    reduceBlockKernel<<<static_cast<int>(n_out < 65535 * 8 ? n_out : 65535 * 8), kThreads, 0, s>>>(
        a, n_out, count, inner_contig);
  else
    reduceThreadKernel<<<gridFor(n_out), kThreads, 0, s>>>(a, n_out, count);
  FC_CUDA(cudaGetLastError());
}

void launchRingReduce(const void* const* src, void* const* dst, int R, int64_t count, DType dtype, OpKind op,
                      bool all_ranks, int root, void* stream) {
  if (count == 0 || R <= 0) return;
  RingArgs a{};
  for (int r = 0; r < R && r < 64; ++r) {
    a.src[r] = src[r];
    a.dst[r] = all_ranks ? dst[r] : dst[0];
  }
  a.R = R;
  a.count = count;
  a.dtype = dtype;
  a.op = op;
  a.all = all_ranks;
  a.root = root;
  if (specializedEnabled() && launchRingFast(a, stream)) return;
  countLaunch(Path::RingGeneral);
  ringKernel<<<gridFor(count), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(a);
  FC_CUDA(cudaGetLastError());
}

void launchStridedCopy(const void* src, DType src_dtype, int64_t offset, const int64_t* strides,
                       const int64_t* shape, int rank, void* dst, DType dst_dtype, void* stream) {
  CopyArgs a{};
  a.src = src;
  a.src_dtype = src_dtype;
  a.offset = offset;
  a.rank = rank;
  for (int d = 0; d < rank; ++d) {
    a.strides[d] = strides[d];
    a.shape[d] = shape[d];
  }
  a.dst = dst;
  a.dst_dtype = dst_dtype;
  int64_t n = numelOf(shape, rank);
  if (n == 0) return;
  stridedCopyKernel<<<gridFor(n), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(a, n);
  FC_CUDA(cudaGetLastError());
}

void launchCopyView(const void* src, DType src_dtype, int64_t src_offset, const int64_t* src_strides,
                    void* dst, DType dst_dtype, int64_t dst_offset, const int64_t* dst_strides,
                    const int64_t* shape, int rank, void* stream) {
  FC_CHECK(rank >= 0 && rank <= kMaxRank, "view copy rank");
  ViewCopyArgs a{};
  a.src = src;
  a.src_dtype = src_dtype;
  a.src_offset = src_offset;
  a.dst = dst;
  a.dst_dtype = dst_dtype;
  a.dst_offset = dst_offset;
  a.rank = rank;
  for (int d = 0; d < rank; ++d) {
    a.src_strides[d] = src_strides[d];
    a.dst_strides[d] = dst_strides[d];
    a.shape[d] = shape[d];
  }
  int64_t n = numelOf(shape, rank);
  if (n == 0) return;
  viewCopyKernel<<<gridFor(n), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(a, n);
  FC_CUDA(cudaGetLastError());
}

int64_t countDifferentWords(const void* a, const void* b, int64_t bytes, void* stream) {
  auto s = static_cast<cudaStream_t>(stream);
  unsigned long long* d = nullptr;
  FC_CUDA(cudaMalloc(&d, sizeof *d));
  FC_CUDA(cudaMemsetAsync(d, 0, sizeof *d, s));
  const int64_t words = bytes / 4;
  const int tail = static_cast<int>(bytes % 4);
  countDiffKernel<<<gridFor(words), kThreads, 0, s>>>(
      static_cast<const uint32_t*>(a), static_cast<const uint32_t*>(b), words,
      static_cast<const unsigned char*>(a) + words * 4, static_cast<const unsigned char*>(b) + words * 4,
      tail, d);
  cudaError_t e = cudaGetLastError();
  unsigned long long h = 0;
  if (e == cudaSuccess) e = cudaMemcpyAsync(&h, d, sizeof h, cudaMemcpyDeviceToHost, s);
  if (e == cudaSuccess) e = cudaStreamSynchronize(s);
  cudaFree(d);
  FC_CUDA(e);
  return static_cast<int64_t>(h);
}

void launchIota(void* dst, DType dtype, int64_t n, double start, double step, void* stream) {
  if (n == 0) return;
  iotaKernel<<<gridFor(n), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(dst, dtype, n, start, step);
  FC_CUDA(cudaGetLastError());
}

void launchRandom(void* dst, DType dtype, int64_t n, uint64_t seed, void* stream) {
  if (n == 0) return;
  randomKernel<<<gridFor(n), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(dst, dtype, n, seed);
  FC_CUDA(cudaGetLastError());
}

}  // namespace fc::exec::cuda
