// Host tensors for the CPU references and the CPU segmented executor.
//
// Storage is one fp64 per element, row-major contiguous (strides are
// derived, not stored): every dtype's values are exactly representable in
// fp64 except int64 magnitudes beyond 2^53 (docs/numerics.md says how those
// are flagged). `dtype` records what the values are meant to be; the
// dtype-faithful paths keep every value rounded to it (exec/dtype_convert.h).
// A shape is the tensor's materialized shape: the non-Reduction logical axes
// (an expanded broadcast materializes at its expanded size).
//
// Allocation goes through a MemoryBudget that refuses a request before any
// memory is taken (FC0904). Index helpers are O(rank).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/types.h"

namespace fc::exec {

using Shape = std::vector<int64_t>;

// Element count of `shape`, or nullopt on a negative size or overflow.
std::optional<int64_t> numelOf(const Shape& shape);
// Row-major contiguous strides (in elements) of `shape`.
std::vector<int64_t> contiguousStrides(const Shape& shape);
std::string shapeString(const Shape& shape);  // "[2, 3]"
// Multi-index of row-major flat index `flat` in `shape`. O(rank).
std::vector<int64_t> unflatten(const Shape& shape, int64_t flat);

// Thrown when an allocation would exceed the budget; the run turns it into
// diagnostic FC0904 (exit 3).
struct BudgetExceeded {
  uint64_t requested = 0;  // bytes of the refused request
  uint64_t in_use = 0;     // bytes granted before it
  uint64_t limit = 0;
};

// Counts bytes granted to host tensors of one run. limit 0 = unlimited.
class MemoryBudget {
 public:
  explicit MemoryBudget(uint64_t limit = 0) : limit_(limit) {}
  // Grants `bytes` or throws BudgetExceeded; nothing is allocated by this.
  void reserve(uint64_t bytes);
  void release(uint64_t bytes) { used_ = bytes > used_ ? 0 : used_ - bytes; }
  uint64_t used() const { return used_; }
  uint64_t peak() const { return peak_; }
  uint64_t limit() const { return limit_; }

 private:
  uint64_t limit_;
  uint64_t used_ = 0;
  uint64_t peak_ = 0;
};

class HostTensor {
 public:
  HostTensor() = default;
  // Zero-filled tensor; charges `budget` (when given) before allocating.
  // Throws BudgetExceeded on a refused or overflowing size.
  HostTensor(DType dtype, Shape shape, MemoryBudget* budget = nullptr);
  HostTensor(const HostTensor& o);
  HostTensor& operator=(const HostTensor& o);
  HostTensor(HostTensor&& o) noexcept;
  HostTensor& operator=(HostTensor&& o) noexcept;
  ~HostTensor();

  DType dtype() const { return dtype_; }
  void setDType(DType t) { dtype_ = t; }
  const Shape& shape() const { return shape_; }
  int64_t rank() const { return static_cast<int64_t>(shape_.size()); }
  int64_t size(int64_t d) const { return shape_[d]; }
  int64_t numel() const { return static_cast<int64_t>(data_.size()); }
  std::vector<int64_t> strides() const { return contiguousStrides(shape_); }
  MemoryBudget* budget() const { return budget_; }

  double* data() { return data_.data(); }
  const double* data() const { return data_.data(); }
  double& operator[](int64_t i) { return data_[i]; }
  double operator[](int64_t i) const { return data_[i]; }

  // Flat index of a multi-index (row-major).
  int64_t offset(const std::vector<int64_t>& idx) const;
  // Multi-index of a flat index.
  std::vector<int64_t> index(int64_t flat) const;

  // Rounds every element to dtype() (exec/dtype_convert.h).
  void roundToDType();

 private:
  DType dtype_ = DType::Double;
  Shape shape_;
  std::vector<double> data_;
  MemoryBudget* budget_ = nullptr;
  uint64_t charged_ = 0;
};

}  // namespace fc::exec
