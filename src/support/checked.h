// Overflow-checked 64-bit integer arithmetic. Every extent computation in
// fusecheck goes through these: an overflow is reported, never wrapped.
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>

namespace fc {

inline std::optional<int64_t> checkedAdd(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}
inline std::optional<int64_t> checkedSub(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_sub_overflow(a, b, &r)) return std::nullopt;
  return r;
}
inline std::optional<int64_t> checkedMul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}
// Truncating division as C++ (and nvFuser's generated code) does it.
inline std::optional<int64_t> checkedDiv(int64_t a, int64_t b) {
  if (b == 0 || (a == INT64_MIN && b == -1)) return std::nullopt;
  return a / b;
}
inline std::optional<int64_t> checkedMod(int64_t a, int64_t b) {
  if (b == 0 || (a == INT64_MIN && b == -1)) return std::nullopt;
  return a % b;
}
inline std::optional<int64_t> checkedCeilDiv(int64_t a, int64_t b) {
  if (b == 0 || (a == INT64_MIN && b == -1)) return std::nullopt;
  int64_t q = a / b;
  if ((a % b != 0) && ((a > 0) == (b > 0))) ++q;
  return q;
}

// C++'s conversion of a double to int64 (toward zero) where it is defined: not for NaN, the
// infinities, or values outside int64's range, whose conversion is undefined behaviour.
inline std::optional<int64_t> checkedTruncToInt64(double f) {
  if (!(f >= -0x1p63 && f < 0x1p63)) return std::nullopt;
  return static_cast<int64_t>(f);
}
// A double that is a whole number within int64, as that integer.
inline std::optional<int64_t> exactInt64(double f) {
  if (f != std::trunc(f)) return std::nullopt;
  return checkedTruncToInt64(f);
}

}  // namespace fc
