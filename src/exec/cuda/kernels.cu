// The CUDA backend's kernels (see kernels.h for the contracts and costs).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>

#include "exec/cuda/cuda_status.h"
#include "exec/cuda/kernels.h"

namespace fc::exec::cuda {
namespace {

constexpr int kThreads = 256;

__device__ __forceinline__ double loadAs(const void* p, DType t, int64_t i) {
  switch (t) {
    case DType::Double: return static_cast<const double*>(p)[i];
    case DType::Float: return static_cast<const float*>(p)[i];
    case DType::Half: return __half2float(static_cast<const __half*>(p)[i]);
    case DType::BFloat16: return __bfloat162float(static_cast<const __nv_bfloat16*>(p)[i]);
    case DType::Float8_e4m3fn: {
      __half_raw r = __nv_cvt_fp8_to_halfraw(static_cast<const __nv_fp8_storage_t*>(p)[i], __NV_E4M3);
      return __half2float(__half(r));
    }
    case DType::Float8_e5m2: {
      __half_raw r = __nv_cvt_fp8_to_halfraw(static_cast<const __nv_fp8_storage_t*>(p)[i], __NV_E5M2);
      return __half2float(__half(r));
    }
    case DType::Bool: return static_cast<const uint8_t*>(p)[i] != 0 ? 1.0 : 0.0;
    case DType::Int32: return static_cast<double>(static_cast<const int32_t*>(p)[i]);
    case DType::Int:
    case DType::Index: return static_cast<double>(static_cast<const int64_t*>(p)[i]);
  }
  return 0;
}

__device__ __forceinline__ double toIntRange(double x, double lo, double hi) {
  if (isnan(x)) return 0;
  if (x <= lo) return lo;
  if (x >= hi) return hi;
  return trunc(x);
}

__device__ __forceinline__ void storeAs(void* p, DType t, int64_t i, double x) {
  switch (t) {
    case DType::Double: static_cast<double*>(p)[i] = x; return;
    case DType::Float: static_cast<float*>(p)[i] = static_cast<float>(x); return;
    case DType::Half: static_cast<__half*>(p)[i] = __double2half(x); return;
    case DType::BFloat16: static_cast<__nv_bfloat16*>(p)[i] = __double2bfloat16(x); return;
    case DType::Float8_e4m3fn:
      static_cast<__nv_fp8_storage_t*>(p)[i] = __nv_cvt_double_to_fp8(x, __NV_SATFINITE, __NV_E4M3);
      return;
    case DType::Float8_e5m2:
      static_cast<__nv_fp8_storage_t*>(p)[i] = __nv_cvt_double_to_fp8(x, __NV_SATFINITE, __NV_E5M2);
      return;
    case DType::Bool: static_cast<uint8_t*>(p)[i] = x != 0 ? 1 : 0; return;
    case DType::Int32:
      static_cast<int32_t*>(p)[i] = static_cast<int32_t>(toIntRange(x, -2147483648.0, 2147483647.0));
      return;
    case DType::Int:
    case DType::Index:
      static_cast<int64_t*>(p)[i] =
          static_cast<int64_t>(toIntRange(x, -9223372036854775808.0, 9223372036854775807.0));
      return;
  }
}

// Rounds a computed value to a dtype's values (as storing and reloading).
template <typename T>
__device__ __forceinline__ T roundTo(DType t, T x) {
  switch (t) {
    case DType::Double: return x;
    case DType::Float: return static_cast<T>(static_cast<float>(x));
    case DType::Half: return static_cast<T>(__half2float(__double2half(static_cast<double>(x))));
    case DType::BFloat16: return static_cast<T>(__bfloat162float(__double2bfloat16(static_cast<double>(x))));
    default: {
      unsigned char buf[8];
      storeAs(buf, t, 0, static_cast<double>(x));
      return static_cast<T>(loadAs(buf, t, 0));
    }
  }
}

// float fast paths for the common half / bf16 / float conversions.
template <>
__device__ __forceinline__ float roundTo<float>(DType t, float x) {
  switch (t) {
    case DType::Float:
    case DType::Double: return x;
    case DType::Half: return __half2float(__float2half_rn(x));
    case DType::BFloat16: return __bfloat162float(__float2bfloat16_rn(x));
    default: {
      unsigned char buf[8];
      storeAs(buf, t, 0, static_cast<double>(x));
      return static_cast<float>(loadAs(buf, t, 0));
    }
  }
}

template <typename T>
__device__ __forceinline__ T loadT(const void* p, DType t, int64_t i) {
  if constexpr (sizeof(T) == 4) {
    if (t == DType::Half) return __half2float(static_cast<const __half*>(p)[i]);
    if (t == DType::Float) return static_cast<const float*>(p)[i];
    if (t == DType::BFloat16) return __bfloat162float(static_cast<const __nv_bfloat16*>(p)[i]);
  }
  return static_cast<T>(loadAs(p, t, i));
}

template <typename T>
__device__ __forceinline__ void storeT(void* p, DType t, int64_t i, T x) {
  if constexpr (sizeof(T) == 4) {
    if (t == DType::Float) {
      static_cast<float*>(p)[i] = x;
      return;
    }
    if (t == DType::Half) {
      static_cast<__half*>(p)[i] = __float2half_rn(x);
      return;
    }
    if (t == DType::BFloat16) {
      static_cast<__nv_bfloat16*>(p)[i] = __float2bfloat16_rn(x);
      return;
    }
  }
  storeAs(p, t, i, static_cast<double>(x));
}

template <typename T>
__device__ __forceinline__ T gelu(T x, bool tanh_approx) {
  if (tanh_approx) {
    const T k = static_cast<T>(0.7978845608028654);
    return static_cast<T>(0.5) * x *
           (static_cast<T>(1) + tanh(k * (x + static_cast<T>(0.044715) * x * x * x)));
  }
  return static_cast<T>(0.5) * x * (static_cast<T>(1) + erf(x * static_cast<T>(0.7071067811865476)));
}

template <typename T>
__device__ __forceinline__ T apply(const PwInstr& in, T a, T b, T c) {
  switch (in.op) {
    case OpKind::Set:
    case OpKind::SegmentSet:
    case OpKind::Cast: return a;
    case OpKind::Neg: return -a;
    case OpKind::Abs: return fabs(a);
    case OpKind::Exp: return exp(a);
    case OpKind::Log: return log(a);
    case OpKind::Sqrt: return sqrt(a);
    case OpKind::Rsqrt: return static_cast<T>(1) / sqrt(a);
    case OpKind::Tanh: return tanh(a);
    case OpKind::Sigmoid: return static_cast<T>(1) / (static_cast<T>(1) + exp(-a));
    case OpKind::Relu: return isnan(a) ? a : (a > 0 ? a : static_cast<T>(0));
    case OpKind::Gelu: return gelu(a, in.approx_tanh);
    case OpKind::Silu: return a / (static_cast<T>(1) + exp(-a));
    case OpKind::Reciprocal: return static_cast<T>(1) / a;
    case OpKind::Sin: return sin(a);
    case OpKind::Cos: return cos(a);
    case OpKind::Erf: return erf(a);
    case OpKind::Floor: return floor(a);
    case OpKind::Ceil: return ceil(a);
    case OpKind::LogicalNot: return a == 0 ? 1 : 0;
    case OpKind::Add: return a + b;
    case OpKind::Sub: return a - b;
    case OpKind::Mul: return a * b;
    case OpKind::Div: return a / b;
    case OpKind::Pow: return pow(a, b);
    case OpKind::Maximum: return (isnan(a) || isnan(b)) ? static_cast<T>(NAN) : (a > b ? a : b);
    case OpKind::Minimum: return (isnan(a) || isnan(b)) ? static_cast<T>(NAN) : (a < b ? a : b);
    case OpKind::Eq: return a == b;
    case OpKind::Ne: return a != b;
    case OpKind::Lt: return a < b;
    case OpKind::Le: return a <= b;
    case OpKind::Gt: return a > b;
    case OpKind::Ge: return a >= b;
    case OpKind::LogicalAnd: return (a != 0) && (b != 0);
    case OpKind::LogicalOr: return (a != 0) || (b != 0);
    case OpKind::Where: return a != 0 ? b : c;
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

int gridFor(int64_t work) {
  int64_t b = (work + kThreads - 1) / kThreads;
  if (b < 1) b = 1;
  const int64_t cap = 132 * 32;  // enough resident blocks on an H200 for a grid-stride loop
  return static_cast<int>(b < cap ? b : cap);
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

__device__ __forceinline__ double combine(OpKind op, double acc, double v) {
  switch (op) {
    case OpKind::Prod: return acc * v;
    case OpKind::Max: return (isnan(v) || isnan(acc)) ? NAN : (v > acc ? v : acc);
    case OpKind::Min: return (isnan(v) || isnan(acc)) ? NAN : (v < acc ? v : acc);
    default: return acc + v;
  }
}
__device__ __forceinline__ double identity(OpKind op) {
  switch (op) {
    case OpKind::Prod: return 1.0;
    case OpKind::Max: return -INFINITY;
    case OpKind::Min: return INFINITY;
    default: return 0.0;
  }
}

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

struct RingArgs {
  const void* src[64];
  void* dst[64];
  int R;
  int64_t count;
  DType dtype;
  OpKind op;
  bool all;
  int root;
};

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
    storeAs(dst, t, i, start + static_cast<double>(i) * step);
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

int64_t numelOf(const int64_t* shape, int rank) {
  int64_t n = 1;
  for (int d = 0; d < rank; ++d) n *= shape[d];
  return n;
}

}  // namespace

void launchPointwise(const PwProgram& p, void* stream) {
  int64_t n = numelOf(p.shape, p.rank);
  if (n == 0) return;
  auto s = static_cast<cudaStream_t>(stream);
  if (p.fp64)
    launchPw<double>(p, n, s);
  else
    launchPw<float>(p, n, s);
  FC_CUDA(cudaGetLastError());
}

void launchReduce(const ReduceArgs& a, void* stream) {
  int64_t n_out = numelOf(a.shape, a.rank - a.n_red);
  int64_t count = 1;
  for (int d = a.rank - a.n_red; d < a.rank; ++d) count *= a.shape[d];
  if (n_out == 0) return;
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
