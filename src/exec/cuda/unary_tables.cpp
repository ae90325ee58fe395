// The lookup tables of kernels_tables.cu, computed on the host in C++20
// (the CPU executor's headers are not CUDA-compilable): entry b is the
// op's fp64 value at the dtype's value of bit pattern b, rounded to the
// dtype, as the CPU executor computes each element.
#include <cstdint>

#include "exec/cuda/kernels_internal.h"
#include "exec/dtype_convert.h"
#include "exec/op_eval.h"

namespace fc::exec::cuda::kern {

void fillUnaryTable(OpKind op, bool approx, DType dtype, uint16_t* table) {
  for (uint32_t b = 0; b < 65536; ++b)
    table[b] =
        static_cast<uint16_t>(exec::toBits(dtype, exec::unaryOpValue(op, exec::fromBits(dtype, b), approx)));
}

}  // namespace fc::exec::cuda::kern
