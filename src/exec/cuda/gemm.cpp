// cuBLAS matrix products (see gemm.h).
#include "exec/cuda/gemm.h"

#include <cuda_runtime_api.h>

#include <climits>

#include "exec/cuda/cublas_api.h"
#include "exec/cuda/cuda_status.h"
#include "exec/exec_error.h"

namespace fc::exec::cuda {
namespace {

cudaDataType_t cudaType(DType t) {
  switch (t) {
    case DType::Half: return CUDA_R_16F;
    case DType::BFloat16: return CUDA_R_16BF;
    case DType::Float: return CUDA_R_32F;
    default: return CUDA_R_64F;
  }
}

}  // namespace

Blas::Blas() {
  cublasHandle_t h = nullptr;
  FC_CUBLAS(cublasApi().create(&h));
  handle_ = h;
}

Blas::~Blas() {
  if (handle_) cublasApi().destroy(static_cast<cublasHandle_t>(handle_));
}

bool Blas::supports(DType ab, DType c) {
  switch (ab) {
    case DType::Half:
    case DType::BFloat16: return c == ab || c == DType::Float;
    case DType::Float: return c == DType::Float;
    case DType::Double: return c == DType::Double;
    default: return false;
  }
}

void Blas::gemm(const void* A, const void* B, void* C, DType ab, DType c, int64_t M, int64_t N, int64_t K,
                int64_t batch, int64_t stride_a, int64_t stride_b, int64_t stride_c, bool b_transposed,
                void* stream, bool a_transposed) {
  if (!supports(ab, c)) fail("cuBLAS matmul does not support these dtypes", "", DiagCode::CudaError);
  if (M > INT_MAX || N > INT_MAX || K > INT_MAX || batch > INT_MAX)
    fail("matmul dimensions exceed cuBLAS's 32-bit sizes", "", DiagCode::CudaError);
  if (M == 0 || N == 0 || batch == 0) return;
  auto h = static_cast<cublasHandle_t>(handle_);
  FC_CUBLAS(cublasApi().setStream(h, static_cast<cudaStream_t>(stream)));
  bool dbl = ab == DType::Double;
  cublasComputeType_t ct = dbl ? CUBLAS_COMPUTE_64F : CUBLAS_COMPUTE_32F;
  float alpha_f = 1.0f, beta_f = 0.0f;
  double alpha_d = 1.0, beta_d = 0.0;
  const void* alpha = dbl ? static_cast<const void*>(&alpha_d) : &alpha_f;
  const void* beta = dbl ? static_cast<const void*>(&beta_d) : &beta_f;
  if (K == 0) {  // cuBLAS leaves C untouched with k = 0: the product is zeros
    int64_t bytes = batch * M * N * dtypeBytes(c);
    FC_CUDA(cudaMemsetAsync(C, 0, static_cast<size_t>(bytes), static_cast<cudaStream_t>(stream)));
    return;
  }
  // Column-major view: C^T (N x M, ldc N) = op(B)^T (N x K) * A^T (K x M, lda K).
  cublasOperation_t opb = b_transposed ? CUBLAS_OP_T : CUBLAS_OP_N;
  cublasOperation_t opa = a_transposed ? CUBLAS_OP_T : CUBLAS_OP_N;
  int ldb = static_cast<int>(b_transposed ? K : N);
  int lda = static_cast<int>(a_transposed ? M : K);
  FC_CUBLAS(cublasApi().gemmStridedBatchedEx(
      h, opb, opa, static_cast<int>(N), static_cast<int>(M), static_cast<int>(K), alpha, B, cudaType(ab), ldb,
      stride_b, A, cudaType(ab), lda, stride_a, beta, C, cudaType(c), static_cast<int>(N), stride_c,
      static_cast<int>(batch), ct, CUBLAS_GEMM_DEFAULT));
}

}  // namespace fc::exec::cuda
