// Iterative memoized evaluation of scalar expressions (see scalar_values.h).
#include "exec/scalar_values.h"

#include <cmath>

#include "support/checked.h"

namespace fc::exec {

namespace {

// The scalar an axis's size is: its expanded extent where it has one (nvFuser's
// getMaybeExpandedExtent), else its extent.
ScalarId sizeOf(const Axis& ax) { return ax.expanded != kNone ? ax.expanded : ax.extent; }

}  // namespace

ScalarValues::ScalarValues(const Fusion& f)
    : f_(f), state_(f.scalars.size(), kUnknown), value_(f.scalars.size()), why_(f.scalars.size()) {}

std::string scalarLabel(const Fusion& f, ScalarId s) {
  if (s >= f.scalars.size()) return "<invalid scalar>";
  std::string_view n = f.scalarName(s);
  if (!n.empty()) return std::string(n);
  const Scalar& sc = f.scalars[s];
  if (sc.kind == ScalarKind::Constant) {
    if (sc.value.kind == ConstValue::Kind::Float) return std::to_string(sc.value.f);
    return std::to_string(sc.value.i);
  }
  return "<expression>";
}

bool ScalarValues::bind(ScalarId s, ScalarValue v) {
  if (state_[s] == kBound) {
    return value_[s].is_float == v.is_float && value_[s].i == v.i &&
           (value_[s].f == v.f || (std::isnan(value_[s].f) && std::isnan(v.f)));
  }
  state_[s] = kBound;
  value_[s] = v;
  // Derived values computed before this bind may now change: reset them.
  for (size_t i = 0; i < state_.size(); ++i)
    if (state_[i] == kDone || state_[i] == kFailed) state_[i] = kUnknown;
  return true;
}

std::optional<ScalarValue> ScalarValues::eval(ScalarId root, std::string* why) {
  if (root >= f_.scalars.size()) {
    if (why) *why = "invalid scalar reference";
    return std::nullopt;
  }
  // Explicit DFS stack: push operands until all are resolved.
  std::vector<ScalarId> stack{root};
  while (!stack.empty()) {
    ScalarId s = stack.back();
    if (state_[s] != kUnknown) {
      stack.pop_back();
      continue;
    }
    const Scalar& sc = f_.scalars[s];
    std::vector<ScalarId> deps;
    if (sc.kind == ScalarKind::Derived) {
      if (sc.op == ScalarOp::Size) {
        if (AxisId a = f_.sizeAxis(sc); a != kNone) deps.push_back(sizeOf(f_.axes[a]));
      } else {
        if (sc.lhs != kNone) deps.push_back(sc.lhs);
        if (sc.rhs != kNone) deps.push_back(sc.rhs);
      }
    }
    bool pushed = false;
    for (ScalarId d : deps) {
      if (d < f_.scalars.size() && state_[d] == kUnknown) {
        stack.push_back(d);
        pushed = true;
      }
    }
    if (pushed) {
      if (stack.size() > f_.scalars.size() * 2 + 16) {  // a cycle: cannot happen in a verified fusion
        if (why) *why = "cyclic scalar expression";
        return std::nullopt;
      }
      continue;
    }
    stack.pop_back();
    std::string w;
    state_[s] = compute(s, w) ? kDone : kFailed;
    if (state_[s] == kFailed) why_[s] = w;
  }
  if (state_[root] == kFailed) {
    if (why) *why = why_[root];
    return std::nullopt;
  }
  return value_[root];
}

bool ScalarValues::compute(ScalarId s, std::string& why) {
  const Scalar& sc = f_.scalars[s];
  switch (sc.kind) {
    case ScalarKind::Constant:
      if (sc.value.kind == ConstValue::Kind::Float)
        value_[s] = ScalarValue::ofFloat(sc.value.f);
      else
        value_[s] = ScalarValue::ofInt(sc.value.i);
      return true;
    case ScalarKind::Symbol:
    case ScalarKind::Input: why = scalarLabel(f_, s) + " is not bound"; return false;
    case ScalarKind::Derived: break;
  }
  auto operand = [&](ScalarId d, ScalarValue& out) {
    if (d >= f_.scalars.size()) {
      why = "invalid scalar reference";
      return false;
    }
    if (state_[d] == kFailed) {
      why = why_[d];
      return false;
    }
    out = value_[d];
    return true;
  };
  if (sc.op == ScalarOp::Size) {
    // size(T, d) reads T's d-th non-Reduction axis, its expanded extent where
    // it has one (csrc/ops/arith.cpp:1550-1554 @ 81c4b22fd).
    ScalarId d = kNone;
    if (AxisId a = f_.sizeAxis(sc); a != kNone) d = sizeOf(f_.axes[a]);
    if (d == kNone) {
      why = "size() names an axis that does not exist";
      return false;
    }
    ScalarValue v;
    if (!operand(d, v)) return false;
    value_[s] = v;
    return true;
  }
  ScalarValue a, b;
  if (!operand(sc.lhs, a)) return false;
  bool binary = sc.op != ScalarOp::Neg;
  if (binary && !operand(sc.rhs, b)) return false;
  if (a.is_float || (binary && b.is_float)) {
    double x = a.asDouble(), y = binary ? b.asDouble() : 0;
    double r = 0;
    switch (sc.op) {
      case ScalarOp::Add: r = x + y; break;
      case ScalarOp::Sub: r = x - y; break;
      case ScalarOp::Mul: r = x * y; break;
      case ScalarOp::Div: r = x / y; break;
      case ScalarOp::Mod: r = std::fmod(x, y); break;
      case ScalarOp::CeilDiv: r = std::ceil(x / y); break;
      case ScalarOp::Max: r = std::fmax(x, y); break;
      case ScalarOp::Min: r = std::fmin(x, y); break;
      case ScalarOp::Neg: r = -x; break;
      default: why = "unsupported scalar op"; return false;
    }
    value_[s] = ScalarValue::ofFloat(r);
    return true;
  }
  if (!isIntArithmetic(sc.op)) {
    why = "unsupported scalar op";
    return false;
  }
  std::optional<int64_t> r = foldIntScalarOp(sc.op, a.i, b.i);
  if (!r) {
    why = std::string("integer ") + std::string(scalarOpName(sc.op)) + " overflows or divides by zero";
    return false;
  }
  value_[s] = ScalarValue::ofInt(*r);
  return true;
}

std::optional<int64_t> ScalarValues::evalInt(ScalarId s, std::string* why) {
  auto v = eval(s, why);
  if (!v) return std::nullopt;
  if (!v->is_float) return v->i;
  if (std::isfinite(v->f) && std::trunc(v->f) == v->f && std::fabs(v->f) < 9.0e18)
    return static_cast<int64_t>(v->f);
  if (why) *why = scalarLabel(f_, s) + " is not an integer";
  return std::nullopt;
}

std::optional<int64_t> ScalarValues::axisSize(AxisId a, std::string* why) {
  return evalInt(sizeOf(f_.axes[a]), why);
}

}  // namespace fc::exec
