#include "ir/constant_scalar.h"

#include <algorithm>
#include <cmath>

namespace fc {
namespace {

std::optional<double> floating(const ConstValue& v) {
  if (v.kind == ConstValue::Kind::Float) return v.f;
  if (v.kind == ConstValue::Kind::Int) return static_cast<double>(v.i);
  return std::nullopt;
}

std::optional<double> foldDoubleScalarOp(ScalarOp op, double a, double b) {
  switch (op) {
    case ScalarOp::Add: return a + b;
    case ScalarOp::Sub: return a - b;
    case ScalarOp::Mul: return a * b;
    case ScalarOp::Div: return b == 0 ? std::nullopt : std::optional<double>(a / b);
    case ScalarOp::Mod: return b == 0 ? std::nullopt : std::optional<double>(std::fmod(a, b));
    case ScalarOp::CeilDiv: return b == 0 ? std::nullopt : std::optional<double>(std::ceil(a / b));
    case ScalarOp::Max: return std::max(a, b);
    case ScalarOp::Min: return std::min(a, b);
    case ScalarOp::Neg: return -a;
    case ScalarOp::None:
    case ScalarOp::Size: break;
  }
  return std::nullopt;
}

std::optional<ConstValue> evaluate(const Fusion& f, ScalarId s, int depth) {
  if (s >= f.scalars.size() || depth > 64) return std::nullopt;
  const Scalar& x = f.scalars[s];
  if (x.kind == ScalarKind::Constant) return x.value;
  if (x.kind != ScalarKind::Derived || x.op == ScalarOp::Size || x.op == ScalarOp::None) return std::nullopt;
  std::optional<ConstValue> a = evaluate(f, x.lhs, depth + 1);
  if (!a) return std::nullopt;
  std::optional<ConstValue> b = x.op == ScalarOp::Neg ? ConstValue{} : evaluate(f, x.rhs, depth + 1);
  if (!b) return std::nullopt;
  ConstValue out;
  if (isIntegral(x.dtype)) {
    if (a->kind != ConstValue::Kind::Int || b->kind != ConstValue::Kind::Int) return std::nullopt;
    std::optional<int64_t> r = foldIntScalarOp(x.op, a->i, b->i);
    if (!r) return std::nullopt;
    out.kind = ConstValue::Kind::Int;
    out.i = *r;
    return out;
  }
  if (!isFloatingPoint(x.dtype)) return std::nullopt;
  std::optional<double> da = floating(*a), db = floating(*b);
  if (!da || !db) return std::nullopt;
  std::optional<double> r = foldDoubleScalarOp(x.op, *da, *db);
  if (!r) return std::nullopt;
  out.kind = ConstValue::Kind::Float;
  out.f = *r;
  return out;
}

}  // namespace

std::optional<ConstValue> constantScalarValue(const Fusion& f, ScalarId s) { return evaluate(f, s, 0); }

std::optional<int64_t> ConstantValues::intValue(ScalarId s) const {
  if (s == kNone || s >= f_.scalars.size()) return std::nullopt;
  std::optional<ConstValue> v = constantScalarValue(f_, s);
  if (!v || v->kind != ConstValue::Kind::Int) return std::nullopt;
  return v->i;
}

}  // namespace fc
