// The check of the concrete inputs: what the repro says about each fusion
// input's sizes, strides or value, one description per input.
#include <locale>
#include <sstream>
#include <string>
#include <vector>

#include "ir/verifier_checks.h"
#include "support/checked.h"

namespace fc::verify {

namespace {
// A range bound as the message shows it (locale-independent).
std::string shortNumber(double d) {
  std::ostringstream os;
  os.imbue(std::locale::classic());
  os << d;
  return os.str();
}
}  // namespace

// ------------------------------------------------------------ concrete inputs
void Checks::checkConcreteInputs(Reporter& r) {
  FirstTable<uint32_t> tensor_seen(f_.inputs.size(), kNone);
  FirstTable<uint32_t> scalar_seen(f_.scalars.size(), kNone);
  checkConcreteInputs(0, f_.concrete_inputs.size(), tensor_seen, scalar_seen, r);
}

template <typename Slot>
void Checks::checkConcreteInputs(size_t b, size_t e, FirstTable<Slot>& tensor_seen,
                                 FirstTable<Slot>& scalar_seen, Reporter& r) {
  const bool speculative = r.speculative();
  for (size_t k = b; k < e; ++k) {
    const ConcreteInput& ci = f_.concrete_inputs[k];
    // Built only for a diagnostic: a million-expr repro has ~300k inputs.
    auto p = [k] { return Place::concreteInput(k); };
    if (ci.value.isScalar()) {
      if (ci.value.id == kNone || ci.value.id >= f_.scalars.size()) {
        r.error(DiagCode::DanglingScalar, "concrete input " + num(k) + " names a scalar that does not exist",
                p().key(F::Input));
        continue;
      }
      if (f_.scalars[ci.value.id].kind != ScalarKind::Input) {
        r.error(DiagCode::BadConcreteInput,
                "concrete input " + num(k) + " describes " + scalarDesc(ci.value.id) +
                    ", which is not a fusion input",
                p().key(F::Input));
        continue;
      }
      const uint32_t first = claimFirst(scalar_seen[ci.value.id], static_cast<uint32_t>(k), speculative);
      if (first != kNone) {
        if constexpr (kKeepsClaimants<Slot>)
          r.error(DiagCode::BadConcreteInput, scalarDesc(ci.value.id) + " is described twice",
                  p().key(F::Input))
              .note("first described here", r.at(Place::concreteInput(first)));
        else
          r.flag();
        continue;
      }
      if (!ci.scalar)
        r.error(DiagCode::BadConcreteInput,
                "concrete input " + num(k) + " for scalar " + scalarDesc(ci.value.id) + " has no \"value\"",
                p());
      if (ci.range || ci.fill)
        r.error(DiagCode::BadConcreteInput,
                "concrete input " + num(k) + " for scalar " + scalarDesc(ci.value.id) +
                    " has a \"range\" or \"fill\", which describe tensor data",
                p());
      continue;
    }
    TensorId t = ci.value.id;
    if (!tensorValid(t)) {
      r.error(DiagCode::DanglingTensor, "concrete input " + num(k) + " names a tensor that does not exist",
              p().key(F::Input));
      continue;
    }
    const uint32_t pos = st_.input_pos[t];
    if (pos == kNone) {
      if (st_.undefined_reported[t]) continue;  // same root cause as the FC0108 / FC0107 already reported
      r.error(DiagCode::BadConcreteInput,
              "concrete input " + num(k) + " describes " + tname(t) + ", which is not a fusion input",
              p().key(F::Input));
      continue;
    }
    const uint32_t first = claimFirst(tensor_seen[pos], static_cast<uint32_t>(k), speculative);
    if (first != kNone) {
      if constexpr (kKeepsClaimants<Slot>)
        r.error(DiagCode::BadConcreteInput, tname(t) + " is described twice", p().key(F::Input))
            .note("first described here", r.at(Place::concreteInput(first)));
      else
        r.flag();
      continue;
    }
    if (ci.range && !(ci.range->first < ci.range->second))
      r.error(DiagCode::BadConcreteInput,
              "concrete input " + num(k) + " gives " + tname(t) + " the empty value range [" +
                  shortNumber(ci.range->first) + ", " + shortNumber(ci.range->second) + ")",
              p().key(F::Range));
    if (ci.range && ci.fill)
      r.error(DiagCode::BadConcreteInput,
              "concrete input " + num(k) + " gives " + tname(t) + " both a range and a fill value",
              p().key(F::Fill));
    if (!st_.tensor_ok[t]) continue;
    const size_t rank = f_.nonReductionRank(t);
    if (ci.shape.size() != rank) {
      r.error(DiagCode::BadConcreteInput,
              "concrete input " + num(k) + " gives " + tname(t) + " " + num(ci.shape.size()) + " sizes but " +
                  tname(t) + " has " + num(rank) + " non-Reduction logical axes",
              p().key(F::Shape))
          .note(tname(t) + " is declared here", r.at(tp(t).key(F::Logical)));
      continue;
    }
    int64_t elements = 1;
    for (size_t j = 0; j < ci.shape.size(); ++j) {
      if (ci.shape[j] < 0) {
        r.error(DiagCode::BadConcreteInput,
                "concrete input " + num(k) + " gives " + tname(t) + " the negative size " +
                    std::to_string(ci.shape[j]),
                p().at(F::Shape, j));
        continue;
      }
      if (elements < 0) continue;  // the overflow is reported once
      auto prod = checkedMul(elements, ci.shape[j]);
      if (!prod) {
        r.error(DiagCode::BadConcreteInput,
                "concrete input " + num(k) + " gives " + tname(t) + " sizes whose product overflows int64",
                p().at(F::Shape, j));
        elements = -1;
        continue;
      }
      elements = *prod;
    }
    if (!ci.strides.empty() && ci.strides.size() != rank)
      r.error(DiagCode::BadConcreteInput,
              "concrete input " + num(k) + " gives " + tname(t) + " " + num(ci.strides.size()) +
                  " strides but " + num(rank) + " sizes",
              p().key(F::Strides));
  }
}

template void Checks::checkConcreteInputs(size_t, size_t, FirstTable<uint32_t>&, FirstTable<uint32_t>&,
                                          Reporter&);
template void Checks::checkConcreteInputs(size_t, size_t, FirstTable<uint8_t>&, FirstTable<uint8_t>&,
                                          Reporter&);

}  // namespace fc::verify
