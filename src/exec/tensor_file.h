// Tensor files: the user's own tensors in and out of `run` (--inputs,
// --save-inputs, --save-outputs) and of the Python API.
//
// Two formats, chosen by the file's extension:
// - `.safetensors`: an 8-byte little-endian header length N, N bytes of
//   JSON ({"name": {"dtype", "shape", "data_offsets"}, ..., optional
//   "__metadata__": {string: string}}), then the raw little-endian bytes.
//   Every dtype fusecheck has is representable (BF16 and the fp8 types
//   included). The order of the tensors is the order of their keys in the
//   header.
// - `.npz`: numpy's zip of `.npy` files (one per tensor, `name.npy`), read
//   and written through libzip. numpy has no bfloat16 or fp8: writing those
//   refuses (FC0507) and points to safetensors.
//
// Values are held as HostTensors (one fp64 per element, row-major). A file
// dtype without a fusecheck dtype (U8, I8, I16) reads as Double values with
// `file_dtype` telling what it was; matching such a tensor to a fusion input
// fails on its dtype. An integer beyond 2^53 in magnitude does not fit an
// fp64 exactly and is refused (FC0505). Errors are ExecErrors with FC0505
// (the file is malformed or unreadable), FC0507 (a format that cannot hold a
// dtype, an unknown extension) or FC0905 (the file cannot be written).
// Reading and writing are O(file size).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "exec/host_tensor.h"

namespace fc::exec {

// Element types of the files, with safetensors' spellings.
enum class FileDType : uint8_t { Bool, U8, I8, I16, I32, I64, F16, BF16, F32, F64, F8_E4M3, F8_E5M2 };

std::string_view fileDTypeName(FileDType t);  // "BOOL", "F32", "F8_E4M3", ...
std::optional<FileDType> parseFileDType(std::string_view s);
int fileDTypeBytes(FileDType t);
// The file dtype that stores a fusion dtype (Int and Index: I64).
FileDType fileDTypeOf(DType t);
// The fusion dtype a file dtype holds; nullopt for U8, I8, I16.
std::optional<DType> dtypeOfFile(FileDType t);

struct FileTensor {
  std::string name;
  FileDType file_dtype = FileDType::F32;
  HostTensor values;  // dtype: dtypeOfFile(file_dtype), Double when there is none
};

struct TensorFile {
  std::vector<FileTensor> tensors;                            // in file order
  std::vector<std::pair<std::string, std::string>> metadata;  // safetensors "__metadata__", in order
};

enum class TensorFormat : uint8_t { Safetensors, Npz };
// By extension (".safetensors", ".npz"); nullopt otherwise.
std::optional<TensorFormat> tensorFormatOf(std::string_view path);

// Reads `path`; allocations are charged to `budget` (may be null).
TensorFile readTensorFile(const std::string& path, MemoryBudget* budget);
// Writes `file` to `path` (atomically for safetensors; libzip writes npz
// through a temporary file of its own). `file.metadata` is kept by
// safetensors only.
void writeTensorFile(const std::string& path, const TensorFile& file);

// The formats in memory (tests, the Python module). `what` names the source
// in messages.
TensorFile parseSafetensors(std::string_view bytes, const std::string& what, MemoryBudget* budget);
std::string serializeSafetensors(const TensorFile& file);
// One .npy file (format versions 1.0, 2.0 and 3.0; C or Fortran order;
// either byte order).
FileTensor parseNpy(std::string_view bytes, const std::string& what, MemoryBudget* budget);
std::string serializeNpy(const FileTensor& t);

}  // namespace fc::exec
