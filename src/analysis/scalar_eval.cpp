#include "analysis/scalar_eval.h"

#include <algorithm>
#include <new>
#include <unordered_set>

#include "support/checked.h"

namespace fc {

void ScalarEval::setKnown(ScalarId s, uint8_t st, std::optional<int64_t> v, const Origin& o) {
  known_[s] = static_cast<uint8_t>(st | (v ? kHasValue : 0));
  if (v) value_[s] = *v;
  new (origin_[s].bytes) Origin(o);
}

const Origin& ScalarEval::origin(ScalarId s) const {
  static const Origin kNoOrigin{};
  return known(s) ? *std::launder(reinterpret_cast<const Origin*>(origin_[s].bytes)) : kNoOrigin;
}

bool ScalarEval::bind(ScalarId s, std::optional<int64_t> v, Origin origin) {
  if (isKnown(s)) {
    auto old = stored(s);
    if (old && v && *old != *v) return false;
    if (!old && v && state(s) == kBound) {  // symbolic bind upgraded to concrete
      known_[s] |= kHasValue;
      value_[s] = *v;
    }
    return true;
  }
  setKnown(s, kBound, v, origin);  // isKnown() above evaluated s, so it is already in touched_
  // Scalars evaluated earlier as unknown may now be known. Each entry was
  // pushed by one evaluation step, so this is amortized against evaluate().
  steps::counters.eval_resets += unknown_.size();
  for (ScalarId u : unknown_)
    if (state(u) == kUnknown) known_[u] = kUntried;
  unknown_.clear();
  return true;
}

void ScalarEval::reset() {
  steps::counters.eval_resets += touched_.size();
  for (ScalarId s : touched_) known_[s] = kUntried;
  touched_.clear();
  unknown_.clear();
}

bool ScalarEval::isKnown(ScalarId s) {
  if (state(s) == kUntried) evaluate(s);
  return known(s);
}

void ScalarEval::evaluateAll() {
  for (ScalarId s = 0; s < f_.scalars.size(); ++s) isKnown(s);
}

std::optional<int64_t> ScalarEval::value(ScalarId s) {
  if (!isKnown(s)) return std::nullopt;
  return stored(s);
}

void ScalarEval::evaluate(ScalarId root) {
  // Post-order over the derived-expression DAG with an explicit stack.
  std::vector<std::pair<ScalarId, bool>>& stack = stack_;
  stack.assign(1, {root, false});
  while (!stack.empty()) {
    auto [s, expanded] = stack.back();
    stack.pop_back();
    ++steps::counters.eval_steps;
    if (state(s) != kUntried) continue;
    if (!expanded) touched_.push_back(s);
    const Scalar& sc = f_.scalars[s];
    if (sc.kind == ScalarKind::Constant) {
      setKnown(s, kKnown,
               sc.value.kind != ConstValue::Kind::Float ? std::optional<int64_t>(sc.value.i) : std::nullopt,
               Origin{Origin::Kind::Constant});
      continue;
    }
    if (sc.kind != ScalarKind::Derived) {  // unbound symbol or input
      setUnknown(s);
      continue;
    }
    if (sc.op == ScalarOp::Size) {
      // size(T, d): the extent of non-Reduction logical axis d, if known.
      const AxisId a = f_.sizeAxis(sc);
      if (a == kNone) {
        setUnknown(s);
        continue;
      }
      const Axis& ax = f_.axes[a];
      ScalarId e = ax.expanded != kNone ? ax.expanded : ax.extent;
      if (!expanded) {
        stack.push_back({s, true});
        stack.push_back({e, false});
        continue;
      }
      if (known(e))
        setKnown(s, kKnown, stored(e), Origin{Origin::Kind::Derived});
      else
        setUnknown(s);
      continue;
    }
    if (!expanded) {
      stack.push_back({s, true});
      if (sc.lhs != kNone) stack.push_back({sc.lhs, false});
      if (sc.rhs != kNone) stack.push_back({sc.rhs, false});
      continue;
    }
    bool lk = sc.lhs == kNone || known(sc.lhs);
    bool rk = sc.rhs == kNone || known(sc.rhs);
    if (!lk || !rk) {
      setUnknown(s);
      continue;
    }
    std::optional<int64_t> a = sc.lhs != kNone ? stored(sc.lhs) : std::nullopt;
    std::optional<int64_t> b = sc.rhs != kNone ? stored(sc.rhs) : std::nullopt;
    std::optional<int64_t> r;  // known symbolically only, unless both operands are concrete
    if (a && (sc.rhs == kNone || b))
      r = foldIntScalarOp(sc.op, *a, b.value_or(0));  // nullopt on overflow / division by zero
    setKnown(s, kKnown, r, Origin{Origin::Kind::Derived});
  }
}

std::vector<ScalarId> ScalarEval::freeSymbols(const Fusion& f, ScalarId root) {
  std::vector<ScalarId> out;
  std::vector<ScalarId> stack{root};
  std::unordered_set<ScalarId> seen;  // hashed: a linear search was quadratic on deep expressions
  while (!stack.empty()) {
    ScalarId s = stack.back();
    stack.pop_back();
    ++steps::counters.free_symbol_steps;
    if (s == kNone || !seen.insert(s).second) continue;
    const Scalar& sc = f.scalars[s];
    if (sc.kind == ScalarKind::Symbol || sc.kind == ScalarKind::Input)
      out.push_back(s);
    else
      pushOperands(f, s, stack);
  }
  std::sort(out.begin(), out.end());
  return out;
}

void ScalarEval::pushOperands(const Fusion& f, ScalarId s, std::vector<ScalarId>& stack) {
  const Scalar& sc = f.scalars[s];
  if (sc.kind != ScalarKind::Derived) return;
  if (sc.op == ScalarOp::Size) {
    if (const AxisId a = f.sizeAxis(sc); a != kNone) stack.push_back(f.axes[a].extent);
  } else {
    stack.push_back(sc.lhs);
    stack.push_back(sc.rhs);
  }
}

}  // namespace fc
