// All-Half pointwise programs in packed half arithmetic
// (kernels_internal.h launchHalf2): b(x, y) and act(b(x, y)) with b add,
// sub or mul and act relu, neg or abs, every operand a Half value and
// every node's result rounded to Half. For two Half operands, float
// addition, subtraction and multiplication rounded to Half equal the Half
// operation rounded to nearest even (float's 24 bits are at least twice
// Half's 11 plus 2, so the double rounding is innocuous), which is what
// add.rn / sub.rn / mul.rn.f16x2 compute (the _rn intrinsics also keep
// the compiler from contracting them); relu, neg and abs only move or
// clear bits. So every element is the float kernels' value (NaNs as NaN),
// with no conversion at all: two 16-byte loads, four packed operations
// and one 16-byte store per 8 elements.
#include <cuda_fp16.h>

#include <cstdint>

#include "exec/cuda/cuda_status.h"
#include "exec/cuda/kernels_device.cuh"
#include "exec/cuda/kernels_internal.h"

namespace fc::exec::cuda::kern {
namespace {

__device__ __forceinline__ __half2 asH2(uint32_t w) { return *reinterpret_cast<const __half2*>(&w); }
__device__ __forceinline__ uint32_t asU(__half2 h) { return *reinterpret_cast<const uint32_t*>(&h); }

__device__ __forceinline__ uint32_t binary(OpKind op, uint32_t x, uint32_t y) {
  switch (op) {
    case OpKind::Sub: return asU(__hsub2_rn(asH2(x), asH2(y)));
    case OpKind::Mul: return asU(__hmul2_rn(asH2(x), asH2(y)));
    default: return asU(__hadd2_rn(asH2(x), asH2(y)));
  }
}

// relu keeps x where x > 0 or x is NaN and gives +0 elsewhere (-0 too).
__device__ __forceinline__ uint32_t activation(OpKind op, uint32_t x) {
  switch (op) {
    case OpKind::Relu:  // unordered x > 0: true for NaN too
      return x & __hgtu2_mask(asH2(x), __float2half2_rn(0.0f));
    case OpKind::Neg: return x ^ 0x80008000u;
    case OpKind::Abs: return x & 0x7fff7fffu;
    default: return x;
  }
}

// 8 values (4 pairs) of operand `o` from offset `off`: a 16-byte load, a
// value broadcast along the group, or the constant.
__device__ __forceinline__ void load8(const Half2Args::Operand& o, uint32_t off, uint32_t (&w)[4]) {
  uint32_t v = o.constant;
  if (!o.is_const && o.strides[0] == 0) {
    v = static_cast<const uint16_t*>(o.data)[off];
    v |= v << 16;
  }
  if (!o.is_const && o.strides[0] != 0) {
    const uint4 u = *reinterpret_cast<const uint4*>(static_cast<const uint16_t*>(o.data) + off);
    w[0] = u.x, w[1] = u.y, w[2] = u.z, w[3] = u.w;
    return;
  }
#pragma unroll
  for (int k = 0; k < 4; ++k) w[k] = v;
}

__device__ __forceinline__ uint32_t load1(const Half2Args::Operand& o, uint32_t off) {
  if (o.is_const) return o.constant;
  const uint32_t v = static_cast<const uint16_t*>(o.data)[off];
  return v | v << 16;
}

__device__ __forceinline__ void offsets(const Half2Args& a, uint32_t flat, uint32_t& o0, uint32_t& o1) {
  o0 = 0;
  o1 = 0;
  forEachIndexDiv<4>(a.rank, a.div, flat, [&](int k, uint32_t i) {
    o0 += i * a.ops[0].strides[k];
    o1 += i * a.ops[1].strides[k];
  });
}

__global__ void __launch_bounds__(kThreads) half2Kernel(const Half2Args a) {
  const uint32_t step = gridDim.x * blockDim.x, t0 = blockIdx.x * blockDim.x + threadIdx.x;
  for (uint32_t g = t0; g < a.n_groups; g += step) {
    uint32_t o0, o1;
    offsets(a, g * 8, o0, o1);
    uint32_t x[4], y[4];
    load8(a.ops[0], o0, x);
    load8(a.ops[1], o1, y);
    uint32_t r[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) r[k] = activation(a.act, binary(a.bin, x[k], y[k]));
    *reinterpret_cast<uint4*>(static_cast<uint16_t*>(a.out) + g * 8) = make_uint4(r[0], r[1], r[2], r[3]);
  }
  for (uint32_t i = a.n_groups * 8 + t0; i < a.n; i += step) {
    uint32_t o0, o1;
    offsets(a, i, o0, o1);
    const uint32_t r = activation(a.act, binary(a.bin, load1(a.ops[0], o0), load1(a.ops[1], o1)));
    static_cast<uint16_t*>(a.out)[i] = static_cast<uint16_t>(r & 0xffffu);
  }
}

}  // namespace

bool launchHalf2(const Half2Args& a, void* stream) {
  auto* k = half2Kernel;
  countLaunch(Path::PwVector);
  k<<<gridFor(a.n_groups + a.n % 8), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(a);
  FC_CUDA(cudaGetLastError());
  return true;
}

}  // namespace fc::exec::cuda::kern
