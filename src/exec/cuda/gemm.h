// Matrix products on the GPU through cuBLAS (cublasGemmStridedBatchedEx):
// Half / BFloat16 / Float operands with fp32 accumulation
// (CUBLAS_COMPUTE_32F, no TF32), Double with DGEMM-precision
// CUBLAS_COMPUTE_64F; the result is written in the requested dtype (Half,
// BFloat16, Float or Double as cuBLAS allows). Row-major operands are
// handled by computing C^T = B^T A^T in cuBLAS's column-major terms. Every
// status is checked (FC0903 / FC0904). Cost: O(batch * M * N * K) on the
// tensor cores.
//
// Autotuning (large 16/32-bit products, at least 2^33 multiply-adds; off
// with FC_GEMM_AUTOTUNE=0): the first product of each shape and layout
// also runs the algorithms cublasLt's heuristic proposes (up to 16, with a
// 64 MiB workspace) and keeps the fastest of those whose result is bit for
// bit the default algorithm's result, so that tuning changes the time and
// never a value: the output of every product is what
// cublasGemmStridedBatchedEx's default algorithm computes, whichever
// algorithm ran. The tuning costs about 5 runs per candidate, once per
// shape in the process.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>

#include "ir/types.h"

namespace fc::exec::cuda {

// The choice made for one shape (gemm.cpp).
struct GemmChoice;

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

  // What the autotuner chose for the products run so far, one line each
  // ("MxNxK ...: default algorithm 0.85 ms; cublasLt algorithm 3 of 12
  // 0.78 ms, bit-identical"), for benchmarks.
  std::string tuningReport() const;

 private:
  using Key = std::tuple<int, int, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, bool, bool>;
  void* handle_ = nullptr;
  void* lt_ = nullptr;         // cublasLtHandle_t, created with the first tuned product
  void* workspace_ = nullptr;  // for cublasLt algorithms
  std::map<Key, std::shared_ptr<GemmChoice>> tuned_;
};

}  // namespace fc::exec::cuda
