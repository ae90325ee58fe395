// A tensor's values read a chunk at a time, as fp64 in row-major order:
// what the comparison with the reference reads, so that an output and its
// reference can stay where they were computed (a host tensor, a device
// buffer) and the host holds one chunk of each at a time.
//
// `storage()` names the memory the values live in (null when unknown):
// two sources over the same storage hold the same bits, so a replica check
// between them reads nothing. O(n) per read.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "exec/host_tensor.h"

namespace fc::exec {

class TensorSource {
 public:
  virtual ~TensorSource() = default;
  virtual DType dtype() const = 0;
  virtual const Shape& shape() const = 0;
  virtual int64_t numel() const = 0;
  // Writes elements [begin, begin + n) to out[0, n).
  virtual void read(int64_t begin, int64_t n, double* out) const = 0;
  virtual const void* storage() const { return nullptr; }
};

// A HostTensor read in place (it must outlive the source).
class HostTensorSource final : public TensorSource {
 public:
  explicit HostTensorSource(const HostTensor& t) : t_(t) {}
  DType dtype() const override { return t_.dtype(); }
  const Shape& shape() const override { return t_.shape(); }
  int64_t numel() const override { return t_.numel(); }
  void read(int64_t begin, int64_t n, double* out) const override;
  const void* storage() const override { return t_.data(); }

 private:
  const HostTensor& t_;
};

// Elements per chunk of a streamed read, unless the reader is given
// another (32 MiB of fp64).
inline constexpr int64_t kSourceChunk = int64_t{4} << 20;

// The first flat index where `b` differs from `a` bit for bit (+0 and -0
// differ, NaNs are equal to each other), or nullopt; sources of one shape.
// Reads nothing when both name the same storage. O(numel).
std::optional<int64_t> firstBitDifference(const TensorSource& a, const TensorSource& b, int64_t chunk = 0);

}  // namespace fc::exec
