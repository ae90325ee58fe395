#include "analysis/scalar_eval.h"

#include <algorithm>
#include <unordered_set>

#include "support/checked.h"

namespace fc {

bool ScalarEval::bind(ScalarId s, std::optional<int64_t> v, Origin origin) {
  if (isKnown(s)) {
    auto old = value_[s];
    if (old && v && *old != *v) return false;
    if (!old && v && known_[s] == 2) value_[s] = v;  // symbolic bind upgraded to concrete
    return true;
  }
  known_[s] = 2;  // isKnown() above evaluated s, so it is already in touched_
  value_[s] = v;
  origin_[s] = origin;
  // Scalars evaluated earlier as unknown may now be known. Each entry was
  // pushed by one evaluation step, so this is amortized against evaluate().
  steps::counters.eval_resets += unknown_.size();
  for (ScalarId u : unknown_)
    if (known_[u] == 1) known_[u] = 0;
  unknown_.clear();
  return true;
}

void ScalarEval::reset() {
  steps::counters.eval_resets += touched_.size();
  for (ScalarId s : touched_) {
    known_[s] = 0;
    value_[s].reset();
    origin_[s] = Origin{};
  }
  touched_.clear();
  unknown_.clear();
}

bool ScalarEval::isKnown(ScalarId s) {
  if (known_[s] == 0) evaluate(s);
  return known_[s] >= 2;
}

void ScalarEval::evaluateAll() {
  for (ScalarId s = 0; s < f_.scalars.size(); ++s) isKnown(s);
}

std::optional<int64_t> ScalarEval::value(ScalarId s) {
  if (!isKnown(s)) return std::nullopt;
  return value_[s];
}

void ScalarEval::evaluate(ScalarId root) {
  // Post-order over the derived-expression DAG with an explicit stack.
  std::vector<std::pair<ScalarId, bool>> stack{{root, false}};
  while (!stack.empty()) {
    auto [s, expanded] = stack.back();
    stack.pop_back();
    ++steps::counters.eval_steps;
    if (known_[s] != 0) continue;
    if (!expanded) touched_.push_back(s);
    const Scalar& sc = f_.scalars[s];
    if (sc.kind == ScalarKind::Constant) {
      known_[s] = 3;
      if (sc.value.kind != ConstValue::Kind::Float) value_[s] = sc.value.i;
      origin_[s].kind = Origin::Kind::Constant;
      continue;
    }
    if (sc.kind != ScalarKind::Derived) {  // unbound symbol or input
      known_[s] = 1;
      unknown_.push_back(s);
      continue;
    }
    if (sc.op == ScalarOp::Size) {
      // size(T, d): the extent of the axis, if known.
      const Tensor& t = f_.tensors[sc.size_of];
      std::vector<AxisId> nored;
      for (AxisId a : t.logical)
        if (f_.axes[a].iter != IterType::Reduction) nored.push_back(a);
      if (sc.size_dim < 0 || static_cast<size_t>(sc.size_dim) >= nored.size()) {
        known_[s] = 1;
        unknown_.push_back(s);
        continue;
      }
      const Axis& ax = f_.axes[nored[sc.size_dim]];
      ScalarId e = ax.expanded != kNone ? ax.expanded : ax.extent;
      if (!expanded) {
        stack.push_back({s, true});
        stack.push_back({e, false});
        continue;
      }
      known_[s] = known_[e] >= 2 ? 3 : 1;
      if (known_[s] == 1) unknown_.push_back(s);
      value_[s] = value_[e];
      origin_[s].kind = Origin::Kind::Derived;
      continue;
    }
    if (!expanded) {
      stack.push_back({s, true});
      if (sc.lhs != kNone) stack.push_back({sc.lhs, false});
      if (sc.rhs != kNone) stack.push_back({sc.rhs, false});
      continue;
    }
    bool lk = sc.lhs == kNone || known_[sc.lhs] >= 2;
    bool rk = sc.rhs == kNone || known_[sc.rhs] >= 2;
    if (!lk || !rk) {
      known_[s] = 1;
      unknown_.push_back(s);
      continue;
    }
    known_[s] = 3;
    origin_[s].kind = Origin::Kind::Derived;
    std::optional<int64_t> a = sc.lhs != kNone ? value_[sc.lhs] : std::nullopt;
    std::optional<int64_t> b = sc.rhs != kNone ? value_[sc.rhs] : std::nullopt;
    if (!a || (sc.rhs != kNone && !b)) continue;  // known symbolically only
    std::optional<int64_t> r = foldIntScalarOp(sc.op, *a, b.value_or(0));
    value_[s] = r;  // nullopt on overflow / division by zero: known but not concrete
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
    if (sc.kind == ScalarKind::Symbol || sc.kind == ScalarKind::Input) {
      out.push_back(s);
    } else if (sc.kind == ScalarKind::Derived) {
      if (sc.op == ScalarOp::Size) {
        const Tensor& t = f.tensors[sc.size_of];
        int32_t d = 0;
        for (AxisId a : t.logical) {
          if (f.axes[a].iter == IterType::Reduction) continue;
          if (d++ == sc.size_dim) stack.push_back(f.axes[a].extent);
        }
      } else {
        stack.push_back(sc.lhs);
        stack.push_back(sc.rhs);
      }
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace fc
