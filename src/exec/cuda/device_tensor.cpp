// DeviceTensor allocation and host <-> device copies (see device_tensor.h).
#include "exec/cuda/device_tensor.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

#include "exec/cuda/cuda_status.h"
#include "exec/dtype_convert.h"
#include "exec/exec_error.h"
#include "support/internal_error.h"

namespace fc::exec::cuda {
namespace {

// A small caching allocator (as frameworks keep one): freed buffers are kept
// by exact size and handed out again, so repeated runs (benchmarks, the
// segments of one run) do not pay cudaMalloc / cudaFree, which synchronize.
// On an allocation failure the cache is released and the allocation retried.
std::mutex g_pool_mu;
std::multimap<uint64_t, void*>& pool() {
  static auto* p = new std::multimap<uint64_t, void*>();  // never destroyed: outlives static teardown
  return *p;
}

cudaError_t poolAlloc(void** ptr, uint64_t bytes) {
  {
    std::lock_guard<std::mutex> lock(g_pool_mu);
    auto it = pool().find(bytes);
    if (it != pool().end()) {
      *ptr = it->second;
      pool().erase(it);
      return cudaSuccess;
    }
  }
  cudaError_t e = cudaMalloc(ptr, bytes);
  if (e == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    releaseCachedDeviceMemory();
    e = cudaMalloc(ptr, bytes);
  }
  return e;
}

void poolFree(void* ptr, uint64_t bytes) {
  std::lock_guard<std::mutex> lock(g_pool_mu);
  pool().emplace(bytes, ptr);
}

}  // namespace

void releaseCachedDeviceMemory() {
  std::lock_guard<std::mutex> lock(g_pool_mu);
  for (auto& [b, p] : pool()) cudaFree(p);
  pool().clear();
}

DeviceTensor::DeviceTensor(DType dtype, Shape shape, MemoryBudget* budget)
    : dtype_(dtype), shape_(std::move(shape)) {
  auto n = numelOf(shape_);
  if (!n) throw BudgetExceeded{UINT64_MAX, budget ? budget->used() : 0, budget ? budget->limit() : 0};
  numel_ = *n;
  uint64_t b = static_cast<uint64_t>(numel_) * static_cast<uint64_t>(dtypeBytes(dtype));
  if (numel_ != 0 && b / static_cast<uint64_t>(numel_) != static_cast<uint64_t>(dtypeBytes(dtype)))
    throw BudgetExceeded{UINT64_MAX, budget ? budget->used() : 0, budget ? budget->limit() : 0};
  if (budget) budget->reserve(b);
  budget_ = budget;
  bytes_ = b;
  cudaError_t e = poolAlloc(&data_, b == 0 ? 1 : b);
  if (e != cudaSuccess) {
    data_ = nullptr;
    if (budget_) budget_->release(bytes_);
    budget_ = nullptr;
    checkCuda(e, ("cudaMalloc(" + std::to_string(b) + " bytes)").c_str());
  }
}

DeviceTensor::DeviceTensor(DeviceTensor&& o) noexcept
    : dtype_(o.dtype_),
      shape_(std::move(o.shape_)),
      numel_(o.numel_),
      bytes_(o.bytes_),
      data_(std::exchange(o.data_, nullptr)),
      budget_(std::exchange(o.budget_, nullptr)) {}

DeviceTensor& DeviceTensor::operator=(DeviceTensor&& o) noexcept {
  if (this != &o) {
    free();
    dtype_ = o.dtype_;
    shape_ = std::move(o.shape_);
    numel_ = o.numel_;
    bytes_ = o.bytes_;
    data_ = std::exchange(o.data_, nullptr);
    budget_ = std::exchange(o.budget_, nullptr);
  }
  return *this;
}

DeviceTensor::~DeviceTensor() { free(); }

void DeviceTensor::free() {
  if (data_) poolFree(data_, bytes_ == 0 ? 1 : bytes_);
  if (budget_) budget_->release(bytes_);
  data_ = nullptr;
  budget_ = nullptr;
}

void DeviceTensor::reshapeInPlace(Shape s) {
  auto n = numelOf(s);
  if (!n || *n != numel_) fail("reshape of a device tensor to " + shapeString(s) + " changes its size");
  shape_ = std::move(s);
}

// Host-side staging of the native bits, a bounded chunk at a time, so that
// a transfer holds at most kStage extra bytes on the host.
constexpr int64_t kStage = int64_t{64} << 20;

DeviceTensor DeviceTensor::upload(const HostTensor& h, MemoryBudget* budget) {
  return upload(h, budget, h.dtype());
}

DeviceTensor DeviceTensor::upload(const HostTensor& h, MemoryBudget* budget, DType as) {
  DeviceTensor d(as, h.shape(), budget);
  const int w = dtypeBytes(as);
  const int64_t per = std::max<int64_t>(1, kStage / w);
  std::vector<unsigned char> staging(static_cast<size_t>(std::min<int64_t>(h.numel(), per) * w));
  for (int64_t at = 0; at < h.numel(); at += per) {
    const int64_t n = std::min(per, h.numel() - at);
    for (int64_t i = 0; i < n; ++i) {
      uint64_t bits = toBits(as, h[at + i]);
      std::memcpy(staging.data() + i * w, &bits, w);  // little-endian low bytes
    }
    FC_CUDA(cudaMemcpy(static_cast<char*>(d.data_) + at * w, staging.data(), static_cast<size_t>(n * w),
                       cudaMemcpyHostToDevice));
  }
  return d;
}

HostTensor DeviceTensor::download(MemoryBudget* budget) const {
  HostTensor h(dtype_, shape_, budget);
  downloadRange(0, numel_, h.data());
  return h;
}

void DeviceTensor::downloadRange(int64_t begin, int64_t n, double* out) const {
  if (begin < 0 || n < 0 || begin + n > numel_)
    fail("a read of elements [" + std::to_string(begin) + ", " + std::to_string(begin + n) +
         ") of a device tensor of " + std::to_string(numel_));
  const int w = dtypeBytes(dtype_);
  const int64_t per = std::max<int64_t>(1, kStage / w);
  std::vector<unsigned char> staging(static_cast<size_t>(std::min<int64_t>(n, per) * w));
  for (int64_t done = 0; done < n; done += per) {
    const int64_t m = std::min(per, n - done);
    FC_CUDA(cudaMemcpy(staging.data(), static_cast<const char*>(data_) + (begin + done) * w,
                       static_cast<size_t>(m * w), cudaMemcpyDeviceToHost));
    for (int64_t i = 0; i < m; ++i) {
      uint64_t bits = 0;
      std::memcpy(&bits, staging.data() + i * w, w);
      out[done + i] = fromBits(dtype_, bits);
    }
  }
}

void DeviceTensor::copyBlockFrom(const DeviceTensor& block, const std::vector<int64_t>& off) {
  const Shape& bs = block.shape_;
  const size_t n = shape_.size();
  FC_CHECK(block.dtype_ == dtype_ && bs.size() == n && off.size() == n,
           "a block copy between unlike tensors");
  for (size_t d = 0; d < n; ++d)
    FC_CHECK(off[d] >= 0 && off[d] + bs[d] <= shape_[d], "a block copy outside the tensor");
  if (block.numel_ == 0) return;
  const auto w = static_cast<size_t>(dtypeBytes(dtype_));
  auto* dst = static_cast<char*>(data_);
  const auto* src = static_cast<const char*>(block.data_);
  if (n == 0) {
    FC_CUDA(cudaMemcpy(dst, src, w, cudaMemcpyDeviceToDevice));
    return;
  }
  // Dims after k are whole in the block: a row of dim k is one contiguous run.
  size_t k = n - 1;
  while (k > 0 && bs[k] == shape_[k]) --k;
  std::vector<int64_t> st(n, 1);  // this tensor's row-major strides
  for (size_t d = n - 1; d > 0; --d) st[d - 1] = st[d] * shape_[d];
  const int64_t row = bs[k] * st[k];  // elements of one row, in both tensors' order
  if (k == 0) {
    FC_CUDA(cudaMemcpy(dst + off[0] * st[0] * w, src, row * w, cudaMemcpyDeviceToDevice));
    return;
  }
  // Rows of dim k - 1 as one 2-D copy, for each index of the dims before it.
  const int64_t height = bs[k - 1];
  int64_t outer = 1;
  for (size_t d = 0; d + 1 < k; ++d) outer *= bs[d];
  std::vector<int64_t> idx(k - 1, 0);
  for (int64_t o = 0; o < outer; ++o) {
    int64_t at = off[k - 1] * st[k - 1] + off[k] * st[k];
    for (size_t d = 0; d + 1 < k; ++d) at += (idx[d] + off[d]) * st[d];
    FC_CUDA(cudaMemcpy2D(dst + at * w, st[k - 1] * w, src + o * height * row * w, row * w, row * w, height,
                         cudaMemcpyDeviceToDevice));
    for (size_t d = k - 1; d-- > 0;) {
      if (++idx[d] < bs[d]) break;
      idx[d] = 0;
    }
  }
}

}  // namespace fc::exec::cuda
