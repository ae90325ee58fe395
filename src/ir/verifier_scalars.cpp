// The checks of scalars (a post-order walk over the scalar DAG: dangling
// operands, cycles, integer-valuedness, constant folding) and of names,
// which tensors and named scalars share.
#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ir/verifier_checks.h"
#include "support/checked.h"

namespace fc::verify {

// ------------------------------------------------------------ scalars
std::string Checks::scalarDesc(ScalarId s) const {
  std::string_view n = f_.scalarName(s);
  if (!n.empty()) return std::string(n);
  if (s < st_.scalar_const.size() && st_.scalar_const[s]) return std::to_string(*st_.scalar_const[s]);
  return "scalar #" + num(s);
}

// Post-order over the scalar DAG (iterative): dangling operands, cycles,
// integer-valuedness and constant folding, each scalar visited once.
void Checks::checkScalars(Reporter& r) {
  const size_t n = f_.scalars.size();
  st_.scalar_bad.assign(n, 0);
  st_.scalar_int.assign(n, 0);
  st_.scalar_const.assign(n, std::nullopt);
  st_.scalar_overflow.assign(n, 0);
  st_.scalar_reported.assign(n, 0);
  std::vector<uint8_t> state(n, 0);  // 0 new, 1 on stack, 2 done
  scalarWalk(state, r);
}

// The facts of scalars [b, e) that have no operands (symbols, inputs,
// constants; finishScalar reads nothing else for them), marked done in
// `state` for scalarWalk.
void Checks::scalarLeaves(size_t b, size_t e, std::vector<uint8_t>& state, Reporter& r) {
  for (size_t i = b; i < e; ++i) {
    if (f_.scalars[i].kind == ScalarKind::Derived) continue;
    finishScalar(static_cast<ScalarId>(i), r);
    state[i] = 2;
  }
}

// The walk of checkScalars over the scalars not done in `state`.
void Checks::scalarWalk(std::vector<uint8_t>& state, Reporter& r) {
  const size_t n = f_.scalars.size();
  auto operands = [&](ScalarId s, ScalarId out[2]) -> int {
    const Scalar& sc = f_.scalars[s];
    if (sc.kind != ScalarKind::Derived || sc.op == ScalarOp::Size) return 0;
    out[0] = sc.lhs;
    if (sc.op == ScalarOp::Neg) return 1;
    out[1] = sc.rhs;
    return 2;
  };
  std::vector<std::pair<ScalarId, int>> stack;
  for (ScalarId root = 0; root < n; ++root) {
    if (state[root]) continue;
    stack.push_back({root, 0});
    state[root] = 1;
    while (!stack.empty()) {
      auto& [s, next] = stack.back();
      ScalarId ops[2];
      int nops = operands(s, ops);
      if (next < nops) {
        ScalarId o = ops[next++];
        if (o == kNone || o >= n) continue;  // reported in finish()
        if (state[o] == 0) {
          state[o] = 1;
          stack.push_back({o, 0});
        } else if (state[o] == 1) {
          if (!st_.scalar_bad[o]) {
            r.error(DiagCode::Cycle, "scalar " + scalarDesc(o) + " is defined in terms of itself",
                    scalarPlace(o, r));
          }
          st_.scalar_bad[o] = 1;
          st_.scalar_bad[s] = 1;
        }
        continue;
      }
      finishScalar(s, r);
      state[s] = 2;
      stack.pop_back();
    }
  }
}

void Checks::finishScalar(ScalarId s, Reporter& r) {
  const Scalar& sc = f_.scalars[s];
  const bool int_type = isIntegral(sc.dtype);
  switch (sc.kind) {
    case ScalarKind::Symbol:
    case ScalarKind::Input: st_.scalar_int[s] = int_type; return;
    case ScalarKind::Constant:
      st_.scalar_int[s] = int_type && sc.value.kind == ConstValue::Kind::Int;
      if (sc.value.kind == ConstValue::Kind::Int) st_.scalar_const[s] = sc.value.i;
      return;
    case ScalarKind::Derived: break;
  }
  if (sc.op == ScalarOp::Size) {
    if (!tensorValid(sc.size_of)) {
      r.error(DiagCode::DanglingTensor, "size() names a tensor that does not exist", scalarPlace(s, r));
      st_.scalar_bad[s] = 1;
    } else {
      // size(T, d) counts T's non-Reduction logical axes (csrc/ops/arith.cpp:1550-1554 @ 81c4b22fd).
      size_t rank = 0, reductions = 0;
      for (AxisId a : f_.tensors[sc.size_of].logical)
        (a < f_.axes.size() && f_.axes[a].iter == IterType::Reduction ? reductions : rank) += 1;
      if (sc.size_dim < 0 || static_cast<size_t>(sc.size_dim) >= rank) {
        r.error(DiagCode::DanglingAxis,
                "size(" + tname(sc.size_of) + ", " + std::to_string(sc.size_dim) + ") names an axis " +
                    tname(sc.size_of) + " does not have (it has " + num(rank) +
                    (reductions ? " besides its " + num(reductions) +
                                      (reductions == 1 ? " Reduction axis" : " Reduction axes")
                                : std::string()) +
                    ")",
                scalarPlace(s, r));
        st_.scalar_bad[s] = 1;
      }
    }
    st_.scalar_int[s] = !st_.scalar_bad[s];
    return;
  }
  ScalarId ops[2] = {sc.lhs, sc.rhs};
  int nops = sc.op == ScalarOp::Neg ? 1 : 2;
  bool all_int = int_type;
  std::optional<int64_t> v[2];
  for (int k = 0; k < nops; ++k) {
    ScalarId o = ops[k];
    if (o == kNone || o >= f_.scalars.size()) {
      if (!st_.scalar_bad[s])
        r.error(DiagCode::DanglingScalar, "a scalar expression names an operand that does not exist",
                scalarPlace(s, r));
      st_.scalar_bad[s] = 1;
      return;
    }
    if (st_.scalar_bad[o]) st_.scalar_bad[s] = 1;
    if (st_.scalar_overflow[o]) st_.scalar_overflow[s] = 1;
    all_int = all_int && st_.scalar_int[o];
    v[k] = st_.scalar_const[o];
  }
  st_.scalar_int[s] = all_int;
  if (!all_int || !v[0] || (nops == 2 && !v[1])) return;
  if (!isIntArithmetic(sc.op)) return;
  std::optional<int64_t> folded = foldIntScalarOp(sc.op, *v[0], nops == 2 ? *v[1] : 0);
  // Overflow / division by zero: not constant here; extents report it
  // (checkExtent), other scalars are left to the evaluators.
  st_.scalar_const[s] = folded;
  if (!folded) st_.scalar_overflow[s] = 1;
}

// ------------------------------------------------------------ names
// Tensors and named scalars share one namespace: expr operands are
// resolved by name among both. `first` holds the first definition per
// name: a tensor (its id) or a scalar (id | kScalarBit).
constexpr uint32_t kScalarBit = 0x80000000u;

void Checks::checkNames(Reporter& r) {
  FirstTable<uint32_t> first(f_.names.size(), kNone);
  checkNames(0, f_.tensors.size(), false, first, r);
  checkNames(0, f_.scalars.size(), true, first, r);
}

// The names of tensors [b, e), or of scalars [b, e).
template <typename Slot>
void Checks::checkNames(size_t b, size_t e, bool scalars, FirstTable<Slot>& first, Reporter& r) {
  const bool speculative = r.speculative();
  const Scalar* sc = f_.scalars.data();
  const Tensor* tv = f_.tensors.data();
  for (size_t i = b; i < e; ++i) {
    const NameId n = scalars ? sc[i].name : tv[i].name;
    if (n == kNoName) continue;
    const uint32_t def = scalars ? static_cast<uint32_t>(i) | kScalarBit : static_cast<uint32_t>(i);
    if (n >= first.size()) {
      if (speculative) {
        r.flag();
        continue;
      }
      first.resize(size_t{n} + 1, kFreeSlot<Slot>);
    }
    const uint32_t prev = claimFirst(first[n], def, speculative);
    if (prev == kNone) continue;
    if constexpr (kKeepsClaimants<Slot>)
      reportName(n, def, prev, r);
    else
      r.flag();
  }
}
template void Checks::checkNames(size_t, size_t, bool, FirstTable<uint32_t>&, Reporter&);
template void Checks::checkNames(size_t, size_t, bool, FirstTable<uint8_t>&, Reporter&);

// Name n, defined by `def`, was defined by `first` already.
void Checks::reportName(NameId n, uint32_t def, uint32_t first, Reporter& r) {
  auto ptrOf = [&](uint32_t d) {
    if (!(d & kScalarBit)) return tp(d).key(F::Name);
    ScalarId s = d & ~kScalarBit;
    return f_.scalars[s].decl != kNone ? Place::scalar(f_.scalars[s].decl).key(F::Name) : scalarPlace(s, r);
  };
  r.error(DiagCode::DuplicateName, "the name " + std::string(f_.names.str(n)) + " is defined twice",
          ptrOf(def))
      .note("first defined here", r.at(ptrOf(first)));
}

}  // namespace fc::verify
