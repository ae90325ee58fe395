// Device helpers shared by the CUDA backend's kernel files (kernels.cu: the
// general kernels; kernels_pointwise.cu and kernels_reduce.cu: the
// specialized ones): dtype loads / stores / rounding in the formats of
// kernels.h, the math of every pointwise op as one functor per op (so the
// general interpreter and the specialized kernels evaluate an op with the
// same code), and the reduction combiners. All O(1) per element.
//
// Add, Sub and Mul use the _rn intrinsics: a fused specialized kernel
// evaluates a chain such as add(mul(a, b), c) in one expression, and nvcc
// would otherwise contract it into an fma, which rounds once where the
// interpreter (one op at a time) rounds twice.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>

#include "exec/cuda/int_div.h"
#include "exec/cuda/kernels.h"

namespace fc::exec::cuda::kern {

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
    // The block-scale, FP4 and complex dtypes: never reached (`run` refuses a fusion holding one,
    // FC0909).
    case DType::Float8_e8m0fnu:
    case DType::Float4_e2m1fn_x2:
    case DType::Float4_e2m1fn:
    case DType::ComplexFloat:
    case DType::ComplexDouble: break;
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
    case DType::Float8_e8m0fnu:  // never reached (FC0909), as in loadAs
    case DType::Float4_e2m1fn_x2:
    case DType::Float4_e2m1fn:
    case DType::ComplexFloat:
    case DType::ComplexDouble: return;
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

// ------------------------------------------------------------ op math

__device__ __forceinline__ float addRn(float a, float b) { return __fadd_rn(a, b); }
__device__ __forceinline__ double addRn(double a, double b) { return __dadd_rn(a, b); }
__device__ __forceinline__ float subRn(float a, float b) { return __fsub_rn(a, b); }
__device__ __forceinline__ double subRn(double a, double b) { return __dsub_rn(a, b); }
__device__ __forceinline__ float mulRn(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ double mulRn(double a, double b) { return __dmul_rn(a, b); }

template <typename T>
__device__ __forceinline__ T gelu(T x, bool tanh_approx) {
  if (tanh_approx) {
    const T k = static_cast<T>(0.7978845608028654);
    return static_cast<T>(0.5) * x *
           (static_cast<T>(1) + tanh(k * (x + static_cast<T>(0.044715) * x * x * x)));
  }
  return static_cast<T>(0.5) * x * (static_cast<T>(1) + erf(x * static_cast<T>(0.7071067811865476)));
}

// One functor per op: kKind, and f(a, b, c, approx) (unused operands
// ignored). The interpreter's switch and the specialized kernels both call
// these.
#define FC_PW_OP(Name, expr)                                                               \
  struct Op##Name {                                                                        \
    static constexpr OpKind kKind = OpKind::Name;                                          \
    template <typename T>                                                                  \
    __device__ __forceinline__ static T f(T a, [[maybe_unused]] T b, [[maybe_unused]] T c, \
                                          [[maybe_unused]] bool approx) {                  \
      return expr;                                                                         \
    }                                                                                      \
  };
FC_PW_OP(Neg, -a)
FC_PW_OP(Abs, fabs(a))
FC_PW_OP(Exp, exp(a))
FC_PW_OP(Log, log(a))
FC_PW_OP(Sqrt, sqrt(a))
FC_PW_OP(Rsqrt, static_cast<T>(1) / sqrt(a))
FC_PW_OP(Tanh, tanh(a))
FC_PW_OP(Sigmoid, static_cast<T>(1) / (static_cast<T>(1) + exp(-a)))
FC_PW_OP(Relu, isnan(a) ? a : (a > 0 ? a : static_cast<T>(0)))
FC_PW_OP(Gelu, gelu(a, approx))
FC_PW_OP(Silu, a / (static_cast<T>(1) + exp(-a)))
FC_PW_OP(Reciprocal, static_cast<T>(1) / a)
FC_PW_OP(Sin, sin(a))
FC_PW_OP(Cos, cos(a))
FC_PW_OP(Erf, erf(a))
FC_PW_OP(Floor, floor(a))
FC_PW_OP(Ceil, ceil(a))
FC_PW_OP(LogicalNot, static_cast<T>(a == 0 ? 1 : 0))
FC_PW_OP(Add, addRn(a, b))
FC_PW_OP(Sub, subRn(a, b))
FC_PW_OP(Mul, mulRn(a, b))
FC_PW_OP(Div, a / b)
FC_PW_OP(Pow, pow(a, b))
FC_PW_OP(Maximum, (isnan(a) || isnan(b)) ? static_cast<T>(NAN) : (a > b ? a : b))
FC_PW_OP(Minimum, (isnan(a) || isnan(b)) ? static_cast<T>(NAN) : (a < b ? a : b))
FC_PW_OP(Eq, static_cast<T>(a == b))
FC_PW_OP(Ne, static_cast<T>(a != b))
FC_PW_OP(Lt, static_cast<T>(a < b))
FC_PW_OP(Le, static_cast<T>(a <= b))
FC_PW_OP(Gt, static_cast<T>(a > b))
FC_PW_OP(Ge, static_cast<T>(a >= b))
FC_PW_OP(LogicalAnd, static_cast<T>((a != 0) && (b != 0)))
FC_PW_OP(LogicalOr, static_cast<T>((a != 0) || (b != 0)))
FC_PW_OP(Where, a != 0 ? b : c)
#undef FC_PW_OP

// ------------------------------------------------------------ reductions

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

// ------------------------------------------------------------ indexing

// Calls f(k, i) with the index i along each dim k (innermost first) of
// element `flat` of a row-major space of `rank` <= K dims of sizes
// shape[k]: one 32-bit division per dim but the outermost.
template <int K, class F>
__device__ __forceinline__ void forEachIndex(int rank, const uint32_t* shape, uint32_t flat, F f) {
#pragma unroll
  for (int k = 0; k < K; ++k) {
    if (k < rank) {
      uint32_t i = flat;
      if (k + 1 < rank) {
        i = flat % shape[k];
        flat /= shape[k];
      }
      f(k, i);
    }
  }
}

// The same with each dim's extent as an IntDiv (a multiply-high and a
// shift per dim instead of a division).
template <int K, class F>
__device__ __forceinline__ void forEachIndexDiv(int rank, const IntDiv* div, uint32_t flat, F f) {
#pragma unroll
  for (int k = 0; k < K; ++k) {
    if (k < rank) {
      uint32_t i = flat;
      if (k + 1 < rank) flat = div[k].divmod(flat, i);
      f(k, i);
    }
  }
}

// ------------------------------------------------------------ launch shapes

inline int gridFor(int64_t work) {
  int64_t b = (work + kThreads - 1) / kThreads;
  if (b < 1) b = 1;
  const int64_t cap = 132 * 32;  // enough resident blocks on an H200 for a grid-stride loop
  return static_cast<int>(b < cap ? b : cap);
}

int smCount();                                                       // kernels_internal.h
int residentBlocksOf(const void* kernel, int threads, size_t smem);  // kernels_internal.h

// Blocks of `threads` threads (and `smem` dynamic shared bytes) of
// `kernel` resident on the whole device at once: a grid-stride kernel
// launched with this many blocks runs in one wave, every thread looping,
// with no partly filled last wave.
template <class Kernel>
int residentBlocks(Kernel* kernel, int threads, size_t smem = 0) {
  return residentBlocksOf(reinterpret_cast<const void*>(kernel), threads, smem);
}

// A grid for `work` items of a grid-stride kernel: one block per kThreads
// items, at most one full wave of resident blocks.
template <class Kernel>
int gridResident(Kernel* kernel, int64_t work) {
  int64_t b = (work + kThreads - 1) / kThreads;
  if (b < 1) b = 1;
  const int64_t cap = residentBlocks(kernel, kThreads);
  return static_cast<int>(b < cap ? b : cap);
}

inline int64_t numelOf(const int64_t* shape, int rank) {
  int64_t n = 1;
  for (int d = 0; d < rank; ++d) n *= shape[d];
  return n;
}

}  // namespace fc::exec::cuda::kern
