// Matrix products on the GPU through cuBLAS (cublasGemmStridedBatchedEx):
// Half / BFloat16 / Float operands with fp32 accumulation
// (CUBLAS_COMPUTE_32F, no TF32), Double with DGEMM-precision
// CUBLAS_COMPUTE_64F; the result is written in the requested dtype (Half,
// BFloat16, Float or Double as cuBLAS allows). Row-major operands are
// handled by computing C^T = B^T A^T in cuBLAS's column-major terms. Every
// status is checked (FC0903 / FC0904). Cost: O(batch * M * N * K) on the
// tensor cores.
#pragma once

#include <cstdint>

#include "ir/types.h"

namespace fc::exec::cuda {

class Blas {
 public:
  Blas();
  ~Blas();
  Blas(const Blas&) = delete;
  Blas& operator=(const Blas&) = delete;

  // Whether the (a, b, c) dtype combination is supported.
  static bool supports(DType ab, DType c);

  // C[b] (M x N, row-major, ldc = N) = op(A[b]) * op(B[b]); A is M x K
  // row-major, or K x M row-major when a_transposed (a permuted operand
  // read in place); B is K x N row-major, or N x K row-major when
  // b_transposed (torch's linear weight). Batch strides in elements; 0
  // broadcasts an operand.
  void gemm(const void* A, const void* B, void* C, DType ab, DType c, int64_t M, int64_t N, int64_t K,
            int64_t batch, int64_t stride_a, int64_t stride_b, int64_t stride_c, bool b_transposed,
            void* stream = nullptr, bool a_transposed = false);

 private:
  void* handle_ = nullptr;
};

}  // namespace fc::exec::cuda
