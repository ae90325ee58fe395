// Device tensors of the CUDA backend: one cudaMalloc'd buffer, row-major
// contiguous, elements in the tensor's native dtype (kernels.h lists the
// formats). Allocation charges the run's MemoryBudget first (so --max-bytes
// bounds device memory too) and a failing cudaMalloc is FC0904; copies to
// and from HostTensor convert through exec/dtype_convert.h's bit patterns
// (staged on the host 64 MiB at a time), so an upload followed by a
// download is exact for values already rounded to the dtype. Move-only; the destructor returns the buffer to
// a per-size cache. O(numel) per copy.
#pragma once

#include <cstdint>
#include <vector>

#include "exec/host_tensor.h"

namespace fc::exec::cuda {

// Frees the device buffers cached for reuse (DeviceTensor keeps freed
// buffers by size, as PyTorch's caching allocator does).
void releaseCachedDeviceMemory();

class DeviceTensor {
 public:
  DeviceTensor() = default;
  // Uninitialized device buffer; throws BudgetExceeded or ExecError(OutOfMemory).
  DeviceTensor(DType dtype, Shape shape, MemoryBudget* budget = nullptr);
  DeviceTensor(const DeviceTensor&) = delete;
  DeviceTensor& operator=(const DeviceTensor&) = delete;
  DeviceTensor(DeviceTensor&& o) noexcept;
  DeviceTensor& operator=(DeviceTensor&& o) noexcept;
  ~DeviceTensor();

  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  int64_t rank() const { return static_cast<int64_t>(shape_.size()); }
  int64_t numel() const { return numel_; }
  uint64_t bytes() const { return bytes_; }
  void* data() { return data_; }
  const void* data() const { return data_; }
  // Reinterprets the same elements with another shape of equal numel.
  void reshapeInPlace(Shape s);

  static DeviceTensor upload(const HostTensor& h, MemoryBudget* budget);
  // The values of `h` stored as `as` (each value rounded to `as` as
  // exec/dtype_convert.h rounds; exact when they are `as` values).
  static DeviceTensor upload(const HostTensor& h, MemoryBudget* budget, DType as);
  HostTensor download(MemoryBudget* budget) const;
  // Elements [begin, begin + n) as fp64 into out[0, n) (staged as download
  // is); ExecError on a range outside the tensor.
  void downloadRange(int64_t begin, int64_t n, double* out) const;
  // Copies the whole of `block` into this tensor at element offsets `off`
  // (one per dim), device to device: the block's rows as strided 2-D copies.
  // Same dtype and rank, the block inside this tensor (InternalError
  // otherwise). O(block bytes).
  void copyBlockFrom(const DeviceTensor& block, const std::vector<int64_t>& off);

 private:
  void free();
  DType dtype_ = DType::Float;
  Shape shape_;
  int64_t numel_ = 0;
  uint64_t bytes_ = 0;
  void* data_ = nullptr;
  MemoryBudget* budget_ = nullptr;
};

}  // namespace fc::exec::cuda
