// Shared by tensor_file.cpp and tensor_file_npz.cpp: element codecs and the
// .npz container. Not part of the exec interface.
#pragma once

#include <cstdint>
#include <string>

#include "exec/tensor_file.h"

namespace fc::exec::detail {

// Decodes `n` elements of `t` at `p` (little-endian unless `big_endian`)
// into `out`; an integer beyond 2^53 in magnitude is an ExecError (FC0505).
void decode(FileDType t, const uint8_t* p, int64_t n, bool big_endian, double* out, const std::string& what);
// Encodes `n` values little-endian into `p` (n * fileDTypeBytes(t) bytes).
void encode(FileDType t, const double* in, int64_t n, uint8_t* p);
// A zero-filled HostTensor for a tensor of `t` and `shape`.
HostTensor allocate(FileDType t, const Shape& shape, const std::string& what, MemoryBudget* budget);
// The bytes of `path` (FC0505 when it cannot be read).
std::string readWholeFile(const std::string& path);

// .npz through libzip (tensor_file_npz.cpp); FC0906 when built without it.
TensorFile readNpz(const std::string& path, MemoryBudget* budget);
void writeNpz(const std::string& path, const TensorFile& file);

}  // namespace fc::exec::detail
