// Error translation for the CUDA backend (see cuda_status.h).
#include "exec/cuda/cuda_status.h"

#include <cublas_api.h>
#include <cuda_runtime_api.h>

#include "exec/exec_error.h"
#if FC_HAVE_NCCL
#include <nccl.h>
#endif

namespace fc::exec::cuda {

void checkCuda(int err, const char* what) {
  auto e = static_cast<cudaError_t>(err);
  if (e == cudaSuccess) return;
  cudaGetLastError();  // clear a sticky-free error so later calls can report their own
  std::string msg =
      std::string(what) + " failed: " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")";
  if (e == cudaErrorMemoryAllocation) {
    size_t free_b = 0, total_b = 0;
    if (cudaMemGetInfo(&free_b, &total_b) == cudaSuccess)
      msg += "; the device has " + std::to_string(free_b) + " of " + std::to_string(total_b) + " bytes free";
    fail("GPU out of memory: " + msg, {}, DiagCode::OutOfMemory);
  }
  fail(msg, {}, DiagCode::CudaError);
}

void checkCublas(int status, const char* what) {
  auto s = static_cast<cublasStatus_t>(status);
  if (s == CUBLAS_STATUS_SUCCESS) return;
  std::string msg = std::string(what) + " failed: cuBLAS status " + std::to_string(status);
  if (s == CUBLAS_STATUS_ALLOC_FAILED) fail("GPU out of memory: " + msg, {}, DiagCode::OutOfMemory);
  fail(msg, {}, DiagCode::CudaError);
}

void checkNccl(int result, const char* what) {
#if FC_HAVE_NCCL
  auto r = static_cast<ncclResult_t>(result);
  if (r == ncclSuccess) return;
  fail(std::string(what) + " failed: " + ncclGetErrorString(r), {}, DiagCode::CudaError);
#else
  if (result != 0) fail(std::string(what) + " failed (NCCL)", {}, DiagCode::CudaError);
#endif
}

int deviceCount(std::string* why) {
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    cudaGetLastError();
    if (why)
      *why = std::string("cudaGetDeviceCount: ") + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")";
    return 0;
  }
  if (n == 0 && why) *why = "the CUDA runtime reports no device";
  return n;
}

void setDevice(int device) { checkCuda(cudaSetDevice(device), "cudaSetDevice"); }

std::string deviceDescription(int device) {
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, device) != cudaSuccess) {
    cudaGetLastError();
    return "unknown device";
  }
  return std::string(p.name) + ", sm_" + std::to_string(p.major) + std::to_string(p.minor) + ", " +
         std::to_string(p.totalGlobalMem >> 30) + " GiB";
}

}  // namespace fc::exec::cuda
