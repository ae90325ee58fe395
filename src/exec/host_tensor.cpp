// HostTensor and MemoryBudget (see host_tensor.h). O(numel) per copy.
#include "exec/host_tensor.h"

#include "exec/dtype_convert.h"
#include "support/checked.h"

namespace fc::exec {

std::optional<int64_t> numelOf(const Shape& shape) {
  int64_t n = 1;
  for (int64_t s : shape) {
    if (s < 0) return std::nullopt;
    auto m = checkedMul(n, s);
    if (!m) return std::nullopt;
    n = *m;
  }
  return n;
}

std::vector<int64_t> contiguousStrides(const Shape& shape) {
  std::vector<int64_t> st(shape.size());
  int64_t s = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    st[i] = s;
    s *= shape[i] > 0 ? shape[i] : 1;
  }
  return st;
}

std::string shapeString(const Shape& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

void MemoryBudget::reserve(uint64_t bytes) {
  if (limit_ != 0 && (bytes > limit_ || used_ > limit_ - bytes)) {
    throw BudgetExceeded{bytes, used_, limit_};
  }
  used_ += bytes;
  if (used_ > peak_) peak_ = used_;
}

HostTensor::HostTensor(DType dtype, Shape shape, MemoryBudget* budget)
    : dtype_(dtype), shape_(std::move(shape)), budget_(budget) {
  auto n = numelOf(shape_);
  if (!n || *n > INT64_MAX / 8)
    throw BudgetExceeded{UINT64_MAX, budget ? budget->used() : 0, budget ? budget->limit() : 0};
  charged_ = static_cast<uint64_t>(*n) * sizeof(double);
  if (budget_) budget_->reserve(charged_);
  try {
    data_.assign(static_cast<size_t>(*n), 0.0);
  } catch (const std::bad_alloc&) {
    if (budget_) budget_->release(charged_);
    throw BudgetExceeded{charged_, budget_ ? budget_->used() : 0, budget_ ? budget_->limit() : 0};
  }
}

// Charged for the copied elements before they are copied (the budget refuses before allocating).
HostTensor::HostTensor(const HostTensor& o) : dtype_(o.dtype_), shape_(o.shape_), budget_(o.budget_) {
  charged_ = static_cast<uint64_t>(o.data_.size()) * sizeof(double);
  if (budget_) budget_->reserve(charged_);
  try {
    data_ = o.data_;
  } catch (const std::bad_alloc&) {
    if (budget_) budget_->release(charged_);
    throw BudgetExceeded{charged_, budget_ ? budget_->used() : 0, budget_ ? budget_->limit() : 0};
  }
}

HostTensor& HostTensor::operator=(const HostTensor& o) {
  if (this == &o) return *this;
  HostTensor tmp(o);
  *this = std::move(tmp);
  return *this;
}

HostTensor::HostTensor(HostTensor&& o) noexcept
    : dtype_(o.dtype_),
      shape_(std::move(o.shape_)),
      data_(std::move(o.data_)),
      budget_(o.budget_),
      charged_(o.charged_) {
  o.charged_ = 0;
  o.data_.clear();
}

HostTensor& HostTensor::operator=(HostTensor&& o) noexcept {
  if (this == &o) return *this;
  if (budget_) budget_->release(charged_);
  dtype_ = o.dtype_;
  shape_ = std::move(o.shape_);
  data_ = std::move(o.data_);
  budget_ = o.budget_;
  charged_ = o.charged_;
  o.charged_ = 0;
  o.data_.clear();
  return *this;
}

HostTensor::~HostTensor() {
  if (budget_) budget_->release(charged_);
}

int64_t HostTensor::offset(const std::vector<int64_t>& idx) const {
  int64_t off = 0;
  for (size_t d = 0; d < shape_.size(); ++d) off = off * shape_[d] + idx[d];
  return off;
}

std::vector<int64_t> HostTensor::index(int64_t flat) const { return unflatten(shape_, flat); }

std::vector<int64_t> unflatten(const Shape& shape, int64_t flat) {
  std::vector<int64_t> idx(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    int64_t s = shape[d] > 0 ? shape[d] : 1;
    idx[d] = flat % s;
    flat /= s;
  }
  return idx;
}

void HostTensor::roundToDType() {
  if (dtype_ == DType::Double) return;
  for (double& v : data_) v = roundTo(dtype_, v);
}

}  // namespace fc::exec
