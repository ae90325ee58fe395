// Checked CUDA / cuBLAS / NCCL calls for the CUDA backend: every failing
// call becomes an ExecError with a diagnostic code — FC0904 out-of-memory
// for allocation failures, FC0903 cuda-error otherwise (both exit 3) —
// naming the call and the runtime's message. deviceAvailable() answers
// FC0902 no-device questions without throwing. O(1) each.
#pragma once

#include <cstdint>
#include <string>

namespace fc::exec::cuda {

// Throws ExecError(CudaError, or OutOfMemory when `err` is an allocation
// failure) when `err` (a cudaError_t) is not cudaSuccess.
void checkCuda(int err, const char* what);
// cublasStatus_t; CUBLAS_STATUS_ALLOC_FAILED maps to OutOfMemory.
void checkCublas(int status, const char* what);
// ncclResult_t (only when built with NCCL).
void checkNccl(int result, const char* what);

// Number of usable CUDA devices; 0 (with `why` set) when the driver or the
// runtime reports none.
int deviceCount(std::string* why = nullptr);
// True when at least one device is usable.
inline bool deviceAvailable(std::string* why = nullptr) { return deviceCount(why) > 0; }
// cudaSetDevice, checked.
void setDevice(int device);
// "NVIDIA H200, sm_90, 139 GiB" for reports.
std::string deviceDescription(int device = 0);

}  // namespace fc::exec::cuda

#define FC_CUDA(call) ::fc::exec::cuda::checkCuda(static_cast<int>(call), #call)
#define FC_CUBLAS(call) ::fc::exec::cuda::checkCublas(static_cast<int>(call), #call)
#define FC_NCCL(call) ::fc::exec::cuda::checkNccl(static_cast<int>(call), #call)
