// A device tensor read as a TensorSource (exec/tensor_source.h): the
// comparison with the reference downloads one chunk at a time, so an
// output and its reference never sit whole on the host. The tensor must
// outlive the source. O(n) per read, staged as DeviceTensor::downloadRange.
#pragma once

#include "exec/cuda/device_tensor.h"
#include "exec/tensor_source.h"

namespace fc::exec::cuda {

class DeviceTensorSource final : public TensorSource {
 public:
  explicit DeviceTensorSource(const DeviceTensor& t) : t_(t) {}
  DType dtype() const override { return t_.dtype(); }
  const Shape& shape() const override { return t_.shape(); }
  int64_t numel() const override { return t_.numel(); }
  void read(int64_t begin, int64_t n, double* out) const override { t_.downloadRange(begin, n, out); }
  const void* storage() const override { return t_.data(); }

 private:
  const DeviceTensor& t_;
};

}  // namespace fc::exec::cuda
