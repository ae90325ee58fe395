// The reader's names (reader_internal.h): interning, the maps from a name to
// its tensor and its scalar, and references to names not declared yet
// (pending until finish() resolves them). A chunk reader only looks names up
// in its primary's tables; anything else makes it give up.
#include <string>

#include "io/reader_internal.h"
#include "support/prefault.h"

namespace fc::reader_detail {

// The names a scalar expression uses (parseScalarExpr).
std::optional<ScalarId> Reader::scalar(std::string_view name) {
  return refByName(internName(name), Want::Scalar).id;
}

std::optional<TensorId> Reader::tensor(std::string_view name) {
  return refByName(internName(name), Want::Tensor).id;
}

std::optional<DType> Reader::dtypeOf(ScalarId s) const {
  if (primary_ == nullptr || s == kNone || isPending(s) || (s & kGlobal) == 0) return std::nullopt;
  return primary_->f_.scalars[s & ~kGlobal].dtype;
}

void Reader::growNames() {
  if (primary_ == nullptr && tensor_of_name_.size() < f_.names.size()) {
    const size_t n = f_.names.size();
    if (n > tensor_of_name_.capacity() && n - tensor_of_name_.size() >= 65536) {
      // A whole array's names at once (mergeTensors, readPlainScalars):
      // both maps' new pages are faulted in on every thread first.
      tensor_of_name_.reserve(n);
      scalar_of_name_.reserve(n);
      const size_t old = tensor_of_name_.size(), bytes = (n - old) * sizeof(uint32_t);
      const PrefaultBlock blocks[] = {{tensor_of_name_.data() + old, bytes},
                                      {scalar_of_name_.data() + old, bytes}};
      prefault(blocks, threads_);
    }
    tensor_of_name_.resize(f_.names.size(), kNone);
    scalar_of_name_.resize(f_.names.size(), kNone);
  }
}

uint32_t Reader::addPending(NameId n, Want w) {
  if (primary_ != nullptr) {  // a forward reference: only the sequential reader resolves it
    fatal_ = true;
    return kPending;
  }
  pending_.push_back(Pending{n, w, pointer()});
  return kPending | static_cast<uint32_t>(pending_.size() - 1);
}

bool Reader::readNameRef(sj::value& v, Want w, ValueRef& out) {
  std::string_view s;
  if (!getString(v, s, "a name")) return false;
  if (!isScalarName(s)) {
    error(w == Want::Scalar ? DiagCode::DanglingScalar : DiagCode::DanglingTensor,
          "\"" + std::string(s) + "\" is not a name");
    return false;
  }
  out = refByName(internName(s), w);
  return true;
}

}  // namespace fc::reader_detail
