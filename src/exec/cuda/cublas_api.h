// cuBLAS, loaded on first use. libcublas pulls in libcublasLt, whose static
// initializers cost about 0.5 s and 210 MB of resident memory at process
// start-up on every command — `check` on a 60-expr repro went from < 10 ms
// to 0.56 s in a CUDA build. Only `run --device cuda` needs cuBLAS, so the
// library is opened with dlopen the first time a Blas handle is created
// and the few entry points fusecheck calls are resolved from it.
//
// Search order: the soname of the cuBLAS major version the build compiled
// against (libcublas.so.13 for CUDA 13) through the loader's usual paths
// (LD_LIBRARY_PATH, the executable's RUNPATH, ld.so.cache), then the same
// name in the toolkit's library folder found at configure time. Failure is
// an ExecError (FC0903, exit 3) naming the library and dlerror's message.
// O(1) after the first call (thread-safe one-time initialization).
#pragma once

#include <cublasLt.h>
#include <cublas_v2.h>

namespace fc::exec::cuda {

struct CublasApi {
  decltype(&cublasCreate_v2) create = nullptr;
  decltype(&cublasDestroy_v2) destroy = nullptr;
  decltype(&cublasSetStream_v2) setStream = nullptr;
  // cublas_api.h also declares a C++ overload taking a cudaDataType compute
  // type; this is the C entry point's signature.
  using GemmStridedBatchedEx = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int,
                                                  int, int, const void*, const void*, cudaDataType, int,
                                                  long long, const void*, cudaDataType, int, long long,
                                                  const void*, void*, cudaDataType, int, long long, int,
                                                  cublasComputeType_t, cublasGemmAlgo_t);
  GemmStridedBatchedEx gemmStridedBatchedEx = nullptr;
  const char* path = nullptr;  // the library that was opened
};

// The loaded API; throws ExecError when the library or a symbol is missing.
const CublasApi& cublasApi();

// The few cublasLt entry points the GEMM autotuner uses (gemm.h), from the
// libcublasLt of the same major version.
struct CublasLtApi {
  decltype(&cublasLtCreate) create = nullptr;
  decltype(&cublasLtDestroy) destroy = nullptr;
  decltype(&cublasLtMatmulDescCreate) descCreate = nullptr;
  decltype(&cublasLtMatmulDescDestroy) descDestroy = nullptr;
  decltype(&cublasLtMatmulDescSetAttribute) descSet = nullptr;
  decltype(&cublasLtMatrixLayoutCreate) layoutCreate = nullptr;
  decltype(&cublasLtMatrixLayoutDestroy) layoutDestroy = nullptr;
  decltype(&cublasLtMatrixLayoutSetAttribute) layoutSet = nullptr;
  decltype(&cublasLtMatmulPreferenceCreate) prefCreate = nullptr;
  decltype(&cublasLtMatmulPreferenceDestroy) prefDestroy = nullptr;
  decltype(&cublasLtMatmulPreferenceSetAttribute) prefSet = nullptr;
  decltype(&cublasLtMatmulAlgoGetHeuristic) heuristic = nullptr;
  decltype(&cublasLtMatmul) matmul = nullptr;
};

// The loaded cublasLt API, or null when it cannot be loaded (the
// autotuner is then off; plain cuBLAS still works).
const CublasLtApi* cublasLtApi();

}  // namespace fc::exec::cuda
