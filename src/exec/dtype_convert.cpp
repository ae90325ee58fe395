// fp64 <-> dtype conversions through CUDA's host-callable fp16/bf16/fp8
// headers (see dtype_convert.h). O(1) per value.
#include "exec/dtype_convert.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <bit>
#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include "support/internal_error.h"

namespace fc::exec {
namespace {

// The storage bits of a CUDA 16-bit float (__half, __nv_bfloat16) through
// its raw struct `Raw`, and the value of such bits.
template <class Raw, class T>
uint16_t rawBits(T v) {
  Raw r = v;
  return r.x;
}
template <class T, class Raw>
T fromRawBits(uint16_t b) {
  Raw r;
  r.x = b;
  return T(r);
}

uint16_t halfBits(double x) { return rawBits<__half_raw>(__double2half(x)); }
double halfValue(uint16_t b) { return static_cast<double>(__half2float(fromRawBits<__half, __half_raw>(b))); }
uint16_t bf16Bits(double x) { return rawBits<__nv_bfloat16_raw>(__double2bfloat16(x)); }
double bf16Value(uint16_t b) {
  return static_cast<double>(__bfloat162float(fromRawBits<__nv_bfloat16, __nv_bfloat16_raw>(b)));
}
uint8_t fp8Bits(double x, __nv_fp8_interpretation_t kind) {
  return static_cast<uint8_t>(__nv_cvt_double_to_fp8(x, __NV_SATFINITE, kind));
}
double fp8Value(uint8_t b, __nv_fp8_interpretation_t kind) {
  __half_raw r = __nv_cvt_fp8_to_halfraw(static_cast<__nv_fp8_storage_t>(b), kind);
  return halfValue(r.x);
}

double toInt(double x, double lo, double hi) {
  if (std::isnan(x)) return 0;
  if (x <= lo) return lo;
  if (x >= hi) return hi;
  return std::trunc(x);
}

// Maps a sign-magnitude bit pattern of `bits` width to a monotonic integer.
int64_t ordered(uint64_t b, int width) {
  uint64_t sign = uint64_t{1} << (width - 1);
  if (b & sign) return -static_cast<int64_t>(b & (sign - 1));
  return static_cast<int64_t>(b);
}

int widthOf(DType t) { return dtypeBytes(t) * 8; }

// A dtype !isComputedDType reaching a conversion is a broken invariant: `run` refuses it first.
[[noreturn]] void notExecuted(DType t) {
  internalError(__FILE__, __LINE__,
                "dtype " + std::string(dtypeName(t)) + " reached the executor, which does not compute it");
}

}  // namespace

bool isComputedDType(DType t) {
  return t != DType::Float8_e8m0fnu && t != DType::Float4_e2m1fn && t != DType::Float4_e2m1fn_x2 &&
         !isComplex(t);
}

double roundTo(DType t, double x) {
  switch (t) {
    case DType::Double: return x;
    case DType::Float: return static_cast<double>(static_cast<float>(x));
    case DType::Half: return halfValue(halfBits(x));
    case DType::BFloat16: return bf16Value(bf16Bits(x));
    case DType::Float8_e4m3fn: return fp8Value(fp8Bits(x, __NV_E4M3), __NV_E4M3);
    case DType::Float8_e5m2: return fp8Value(fp8Bits(x, __NV_E5M2), __NV_E5M2);
    case DType::Float8_e8m0fnu:
    case DType::Float4_e2m1fn_x2:
    case DType::Float4_e2m1fn:
    case DType::ComplexFloat:
    case DType::ComplexDouble: notExecuted(t);
    case DType::Bool: return x != 0 ? 1.0 : 0.0;
    case DType::Int32: return toInt(x, -2147483648.0, 2147483647.0);
    // int64 values are held in fp64: exact up to 2^53 (docs/numerics.md).
    case DType::Int:
    case DType::Index: return toInt(x, -9223372036854775808.0, 9223372036854775807.0);
  }
  return x;
}

uint64_t toBits(DType t, double x) {
  switch (t) {
    case DType::Double: return std::bit_cast<uint64_t>(x);
    case DType::Float: return std::bit_cast<uint32_t>(static_cast<float>(x));
    case DType::Half: return halfBits(x);
    case DType::BFloat16: return bf16Bits(x);
    case DType::Float8_e4m3fn: return fp8Bits(x, __NV_E4M3);
    case DType::Float8_e5m2: return fp8Bits(x, __NV_E5M2);
    case DType::Float8_e8m0fnu:
    case DType::Float4_e2m1fn_x2:
    case DType::Float4_e2m1fn:
    case DType::ComplexFloat:
    case DType::ComplexDouble: notExecuted(t);
    case DType::Bool: return x != 0 ? 1 : 0;
    case DType::Int32: return static_cast<uint32_t>(static_cast<int32_t>(roundTo(t, x)));
    case DType::Int:
    case DType::Index: {
      double r = roundTo(t, x);
      if (r >= 9223372036854775807.0) return static_cast<uint64_t>(INT64_MAX);
      return static_cast<uint64_t>(static_cast<int64_t>(r));
    }
  }
  return 0;
}

double fromBits(DType t, uint64_t b) {
  switch (t) {
    case DType::Double: return std::bit_cast<double>(b);
    case DType::Float: return std::bit_cast<float>(static_cast<uint32_t>(b));
    case DType::Half: return halfValue(static_cast<uint16_t>(b));
    case DType::BFloat16: return bf16Value(static_cast<uint16_t>(b));
    case DType::Float8_e4m3fn: return fp8Value(static_cast<uint8_t>(b), __NV_E4M3);
    case DType::Float8_e5m2: return fp8Value(static_cast<uint8_t>(b), __NV_E5M2);
    case DType::Float8_e8m0fnu:
    case DType::Float4_e2m1fn_x2:
    case DType::Float4_e2m1fn:
    case DType::ComplexFloat:
    case DType::ComplexDouble: notExecuted(t);
    case DType::Bool: return b != 0 ? 1.0 : 0.0;
    case DType::Int32: return static_cast<double>(static_cast<int32_t>(static_cast<uint32_t>(b)));
    case DType::Int:
    case DType::Index: return static_cast<double>(static_cast<int64_t>(b));
  }
  return 0;
}

namespace {

// A floating dtype's stored mantissa bits and its smallest normal exponent.
struct FloatFormat {
  int mantissa;
  int min_exp;
};

std::optional<FloatFormat> floatFormat(DType t) {
  switch (t) {
    case DType::Double: return FloatFormat{52, -1022};
    case DType::Float: return FloatFormat{23, -126};
    case DType::Half: return FloatFormat{10, -14};
    case DType::BFloat16: return FloatFormat{7, -126};
    case DType::Float8_e4m3fn: return FloatFormat{3, -6};
    case DType::Float8_e5m2: return FloatFormat{2, -14};
    default: return std::nullopt;
  }
}

}  // namespace

double epsilon(DType t) {
  auto f = floatFormat(t);
  return f ? std::ldexp(1.0, -f->mantissa) : 0;
}

double maxFinite(DType t) {
  switch (t) {
    case DType::Double: return std::numeric_limits<double>::max();
    case DType::Float: return std::numeric_limits<float>::max();
    case DType::Half: return 65504.0;
    case DType::BFloat16: return fromBits(t, 0x7f7f);
    case DType::Float8_e4m3fn: return 448.0;
    case DType::Float8_e5m2: return 57344.0;
    case DType::Int32: return 2147483647.0;
    case DType::Bool: return 1;
    default: return 9223372036854775807.0;
  }
}

double minSubnormal(DType t) {
  auto f = floatFormat(t);
  return f ? std::ldexp(1.0, f->min_exp - f->mantissa) : 1;
}

int precisionRank(DType t) {
  switch (t) {
    case DType::Float8_e5m2: return 0;
    case DType::Float8_e4m3fn: return 1;
    case DType::BFloat16: return 2;
    case DType::Half: return 3;
    case DType::Float: return 4;
    case DType::Double: return 5;
    default: return 6;
  }
}

uint64_t ulpDistance(DType t, double a, double b) {
  if (!isFloatingPoint(t)) {
    double d = std::fabs(roundTo(t, a) - roundTo(t, b));
    return d >= 1.8e19 ? UINT64_MAX : static_cast<uint64_t>(d);
  }
  double ra = roundTo(t, a), rb = roundTo(t, b);
  bool na = std::isnan(ra), nb = std::isnan(rb);
  if (na || nb) return (na && nb) ? 0 : UINT64_MAX;
  if (ra == rb) return 0;  // +0 == -0
  int w = widthOf(t);
  int64_t oa = ordered(toBits(t, ra), w), ob = ordered(toBits(t, rb), w);
  // -0 and +0 are one value: ordered() maps both to 0.
  __int128 d = static_cast<__int128>(oa) - ob;
  if (d < 0) d = -d;
  return d > static_cast<__int128>(UINT64_MAX) ? UINT64_MAX : static_cast<uint64_t>(d);
}

}  // namespace fc::exec
