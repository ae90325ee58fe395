#include "ir/types.h"

#include <array>

namespace fc {
namespace {

template <typename E, size_t N>
std::optional<E> lookup(const std::array<std::string_view, N>& names, std::string_view s) {
  for (size_t i = 0; i < N; ++i)
    if (names[i] == s) return static_cast<E>(i);
  return std::nullopt;
}

constexpr std::array<std::string_view, kNumDTypes> kDTypeNames = {
    "Bool",          "Int32",        "Int",           "Index",       "Half",           "BFloat16",
    "Float",         "Double",       "Float8_e4m3fn", "Float8_e5m2", "Float8_e8m0fnu", "Float4_e2m1fn_x2",
    "Float4_e2m1fn", "ComplexFloat", "ComplexDouble"};
// nvFuser's dtype printing (csrc/type.cpp:238-257 @ 81c4b22fd).
constexpr std::array<std::string_view, kNumDTypes> kDTypeCpp = {"bool",
                                                                "int",
                                                                "int64_t",
                                                                "nvfuser_index_t",
                                                                "__half",
                                                                "__bfloat",
                                                                "float",
                                                                "double",
                                                                "__e4m3",
                                                                "__e5m2",
                                                                "__e8m0",
                                                                "__e2m1_x2",
                                                                "__e2m1",
                                                                "std::complex<float>",
                                                                "std::complex<double>"};
// torch's dtype attribute names (torch.float16, ...) and ATen's scalar types (at::kHalf, ...).
// torch has no unpacked 4-bit dtype: nvFuser maps Float4_e2m1fn to the packed one
// (data_type_to_aten, csrc/type.cpp:1392-1396 @ 81c4b22fd).
constexpr std::array<std::string_view, kNumDTypes> kDTypeTorch = {"bool",
                                                                  "int32",
                                                                  "int64",
                                                                  "int64",
                                                                  "float16",
                                                                  "bfloat16",
                                                                  "float32",
                                                                  "float64",
                                                                  "float8_e4m3fn",
                                                                  "float8_e5m2",
                                                                  "float8_e8m0fnu",
                                                                  "float4_e2m1fn_x2",
                                                                  "float4_e2m1fn_x2",
                                                                  "complex64",
                                                                  "complex128"};
constexpr std::array<std::string_view, kNumDTypes> kDTypeAten = {"kBool",
                                                                 "kInt",
                                                                 "kLong",
                                                                 "kLong",
                                                                 "kHalf",
                                                                 "kBFloat16",
                                                                 "kFloat",
                                                                 "kDouble",
                                                                 "kFloat8_e4m3fn",
                                                                 "kFloat8_e5m2",
                                                                 "kFloat8_e8m0fnu",
                                                                 "kFloat4_e2m1fn_x2",
                                                                 "kFloat4_e2m1fn_x2",
                                                                 "kComplexFloat",
                                                                 "kComplexDouble"};
constexpr std::array<int, kNumDTypes> kDTypeBits = {8, 32, 64, 64, 16, 16, 32, 64, 8, 8, 8, 8, 4, 64, 128};

constexpr std::array<std::string_view, 7> kIterNames = {
    "Iteration", "Reduction", "Broadcast", "Symbolic", "Stride", "GatherScatter", "VectorComponent"};
constexpr std::array<char, 7> kIterLetters = {'i', 'r', 'b', '?', 's', 'n', 'v'};

constexpr std::array<std::string_view, 17> kParallelNames = {
    "Serial", "DIDx", "DIDy",      "DIDz",   "Stream",   "BIDx", "BIDy",  "BIDz", "TIDx",
    "TIDy",   "TIDz", "Vectorize", "Unroll", "Unswitch", "Mma",  "Group", "Bulk"};
constexpr std::array<std::string_view, 17> kParallelPrinted = {"S",
                                                               "deviceIdx.x",
                                                               "deviceIdx.y",
                                                               "deviceIdx.z",
                                                               "streamIdx",
                                                               "blockIdx.x",
                                                               "blockIdx.y",
                                                               "blockIdx.z",
                                                               "threadIdx.x",
                                                               "threadIdx.y",
                                                               "threadIdx.z",
                                                               "V",
                                                               "UR",
                                                               "US",
                                                               "MMA",
                                                               "G",
                                                               "B"};

constexpr std::array<std::string_view, 3> kMemoryNames = {"global", "local", "shared"};
constexpr std::array<std::string_view, 3> kMemorySuffix = {"g", "l", "s"};

constexpr std::array<std::string_view, 3> kEraNames = {"2024-06", "2024-07", "head"};

}  // namespace

std::string_view dtypeName(DType t) { return kDTypeNames[static_cast<size_t>(t)]; }
std::optional<DType> parseDType(std::string_view s) { return lookup<DType>(kDTypeNames, s); }
std::string_view dtypeCppName(DType t) { return kDTypeCpp[static_cast<size_t>(t)]; }
std::string_view dtypeTorchName(DType t) { return kDTypeTorch[static_cast<size_t>(t)]; }
std::string_view dtypeAtenName(DType t) { return kDTypeAten[static_cast<size_t>(t)]; }
int dtypeBits(DType t) { return kDTypeBits[static_cast<size_t>(t)]; }
int dtypeBytes(DType t) { return (dtypeBits(t) + 7) / 8; }
bool isFloatingPoint(DType t) {
  switch (t) {
    case DType::Half:
    case DType::BFloat16:
    case DType::Float:
    case DType::Double:
    case DType::Float8_e4m3fn:
    case DType::Float8_e5m2:
    case DType::Float8_e8m0fnu: return true;
    default: return false;
  }
}
bool isIntegral(DType t) { return t == DType::Int32 || t == DType::Int || t == DType::Index; }
bool isComplex(DType t) { return t == DType::ComplexFloat || t == DType::ComplexDouble; }
std::optional<DType> complexPartDType(DType t) {
  if (t == DType::ComplexFloat) return DType::Float;
  if (t == DType::ComplexDouble) return DType::Double;
  return std::nullopt;
}
std::optional<DType> complexDTypeOf(DType t) {
  if (t == DType::Float || t == DType::ComplexFloat) return DType::ComplexFloat;
  if (t == DType::Double || t == DType::ComplexDouble) return DType::ComplexDouble;
  return std::nullopt;
}

std::string_view iterTypeName(IterType t) { return kIterNames[static_cast<size_t>(t)]; }
std::optional<IterType> parseIterType(std::string_view s) { return lookup<IterType>(kIterNames, s); }
char iterTypeLetter(IterType t) { return kIterLetters[static_cast<size_t>(t)]; }

std::string_view parallelTypeName(ParallelType t) { return kParallelNames[static_cast<size_t>(t)]; }
std::optional<ParallelType> parseParallelType(std::string_view s) {
  return lookup<ParallelType>(kParallelNames, s);
}
std::string_view parallelTypePrinted(ParallelType t) { return kParallelPrinted[static_cast<size_t>(t)]; }

std::string_view memoryTypeName(MemoryType t) { return kMemoryNames[static_cast<size_t>(t)]; }
std::optional<MemoryType> parseMemoryType(std::string_view s) { return lookup<MemoryType>(kMemoryNames, s); }
std::string_view memorySuffix(MemoryType t) { return kMemorySuffix[static_cast<size_t>(t)]; }

std::string_view eraName(Era e) { return kEraNames[static_cast<size_t>(e)]; }
std::optional<Era> parseEra(std::string_view s) { return lookup<Era>(kEraNames, s); }

}  // namespace fc
