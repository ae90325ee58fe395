// Enumerations of the fusion model and their spellings.
// Spellings follow nvFuser (csrc/type.h, csrc/type.cpp) so that users can
// match what fusecheck prints with their logs.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace fc {

enum class DType : uint8_t {
  Bool,
  Int32,
  Int,    // int64_t
  Index,  // nvfuser_index_t; the dtype of extents
  Half,
  BFloat16,
  Float,
  Double,
  Float8_e4m3fn,
  Float8_e5m2,
  Float8_e8m0fnu,    // exponent only: 2^(bits - 127), 0xff is NaN (block scales)
  Float4_e2m1fn_x2,  // two Float4_e2m1fn packed in a byte (torch.float4_e2m1fn_x2; before
                     // Float4_e2m1fn so that the torch spelling names it)
  Float4_e2m1fn,     // 4 bits: +-{0, 0.5, 1, 1.5, 2, 3, 4, 6}; not a floating-point type to nvFuser
  ComplexFloat,      // std::complex<float> (torch.complex64)
  ComplexDouble,     // std::complex<double> (torch.complex128)
};
inline constexpr int kNumDTypes = 15;

// JSON / Python spelling: "Half", "Float", "Int", ...
std::string_view dtypeName(DType t);
std::optional<DType> parseDType(std::string_view s);
// C++ spelling nvFuser prints (`__half`, `float`, `int64_t`, ...).
std::string_view dtypeCppName(DType t);
// torch's name for the element type (`float16`, `int64`: Int and Index are both int64).
std::string_view dtypeTorchName(DType t);
// ATen's scalar type (`kHalf`, `kLong`).
std::string_view dtypeAtenName(DType t);
// Size of one element in bits (4 for Float4_e2m1fn, as nvFuser's dataTypeSizeBit), and in
// whole bytes (Float4_e2m1fn: 1, the byte one element takes unpacked).
int dtypeBits(DType t);
int dtypeBytes(DType t);
// nvFuser's isFloatingPointType (csrc/type.h:284 @ 81c4b22fd): Float4_e2m1fn and its packed form
// are not floating-point types there (type promotion treats them apart).
bool isFloatingPoint(DType t);
bool isIntegral(DType t);  // Int32, Int, Index (not Bool)
// nvFuser's isComplexType (csrc/type.h:344 @ 81c4b22fd): ComplexFloat and ComplexDouble, neither
// of them floating-point to isFloatingPoint.
bool isComplex(DType t);
// The dtype of a complex dtype's real and imaginary parts (getTypeFromComplexType: ComplexFloat ->
// Float, ComplexDouble -> Double), and the complex dtype of a Float or Double (or complex) dtype
// (getComplexTypeFromType, csrc/type.cpp:160-183 @ 81c4b22fd); nullopt for any other dtype.
std::optional<DType> complexPartDType(DType t);
std::optional<DType> complexDTypeOf(DType t);

enum class IterType : uint8_t {
  Iteration,
  Reduction,
  Broadcast,
  Symbolic,
  Stride,
  GatherScatter,
  VectorComponent,
};
std::string_view iterTypeName(IterType t);  // "Iteration", ...
std::optional<IterType> parseIterType(std::string_view s);
char iterTypeLetter(IterType t);  // i r b ? s n v

enum class ParallelType : uint8_t {
  Serial,
  DIDx,
  DIDy,
  DIDz,
  Stream,
  BIDx,
  BIDy,
  BIDz,
  TIDx,
  TIDy,
  TIDz,
  Vectorize,
  Unroll,
  Unswitch,
  Mma,
  Group,
  Bulk,
};
std::string_view parallelTypeName(ParallelType t);  // "DIDx", "Serial", ...
std::optional<ParallelType> parseParallelType(std::string_view s);
// What nvFuser prints inside an axis name: "S", "deviceIdx.x", "blockIdx.x", ...
std::string_view parallelTypePrinted(ParallelType t);
inline bool isDeviceDim(ParallelType t) {
  return t == ParallelType::DIDx || t == ParallelType::DIDy || t == ParallelType::DIDz;
}

enum class MemoryType : uint8_t { Global, Local, Shared };
std::string_view memoryTypeName(MemoryType t);  // "global", "local", "shared"
std::optional<MemoryType> parseMemoryType(std::string_view s);
std::string_view memorySuffix(MemoryType t);  // "g", "l", "s"

// The nvFuser era whose pipeline fusecheck replays.
enum class Era : uint8_t { E2024_06, E2024_07, Head };
inline constexpr Era kAllEras[] = {Era::E2024_06, Era::E2024_07, Era::Head};
std::string_view eraName(Era e);  // "2024-06", "2024-07", "head"
std::optional<Era> parseEra(std::string_view s);

}  // namespace fc
