// Value conversions between fp64 and every fusion dtype: round
// to nearest even with subnormals, inf and NaN for Half, BFloat16, Float,
// Float8_e4m3fn and Float8_e5m2; integer and Bool conversions; bit patterns
// and ULP distances. The floating conversions delegate to CUDA's
// host-callable headers (cuda_fp16.h, cuda_bf16.h, cuda_fp8.h), used
// header-only: no GPU and no libcudart needed. Every function is O(1).
//
// Conversion rules (docs/numerics.md):
// - Half / BFloat16: from fp64 directly (one rounding, no double rounding
//   through float), RNE, overflow to +-inf.
// - Float8_e4m3fn / Float8_e5m2: RNE with saturation to the largest finite
//   value (+-448 / +-57344), +-inf included; NaN stays NaN. This is what
//   nvFuser's generated kernels do (PTX cvt.rn.satfinite, CUDA's
//   __NV_SATFINITE). torch's CPU casts differ: e4m3fn gives NaN from 480 up,
//   e5m2 gives inf (docs/numerics.md).
// - Int32 / Int / Index: truncation toward zero; NaN -> 0; out of range
//   saturates (a documented choice: C++ leaves it undefined).
// - Bool: x != 0 (NaN -> true).
#pragma once

#include <cstdint>

#include "ir/types.h"

namespace fc::exec {

// Whether the executors hold and compute values of dtype `t`: every dtype but the block scales'
// Float8_e8m0fnu, FP4 (Float4_e2m1fn, Float4_e2m1fn_x2) and the complex dtypes, which import and
// are analysed only; `run` refuses a fusion holding one (FC0909).
bool isComputedDType(DType t);

// The value `x` takes when stored in `t` (an fp64 holding that value).
double roundTo(DType t, double x);

// The bit pattern of roundTo(t, x) in `t`'s storage format (low bits).
uint64_t toBits(DType t, double x);
// The value of a bit pattern of `t`.
double fromBits(DType t, uint64_t bits);

// Machine epsilon (distance from 1 to the next value) of a floating dtype;
// 0 for integer and Bool dtypes.
double epsilon(DType t);
// Largest finite value of a floating dtype.
double maxFinite(DType t);
// Smallest positive subnormal of a floating dtype.
double minSubnormal(DType t);
// Precision rank: higher is more precise. Bool/integers rank above Double
// (they are exact).
int precisionRank(DType t);

// Distance in units in the last place between roundTo(t, a) and
// roundTo(t, b), counted along `t`'s ordered values. 0 when both are NaN;
// UINT64_MAX when exactly one is NaN. Integers: |a - b|.
uint64_t ulpDistance(DType t, double a, double b);

}  // namespace fc::exec
