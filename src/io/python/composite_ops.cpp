// fd.ops calls that nvFuser builds from several exprs of other ops (its composites): each is recorded
// as the exprs nvFuser creates, so that segmentation and binding see what nvFuser saw.
#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "io/python/interpreter.h"
#include "io/python/recorder.h"
#include "ir/op_rules.h"
#include "ir/printer.h"
#include "support/checked.h"

namespace fc::py {
namespace {

// Builds one composite's exprs on the recorder's fusion. An op whose operands are all scalars is a
// scalar fusecheck does not compute (marked, as ops_build.cpp marks them): a verdict that needs its
// value is not decided.
class Composer {
 public:
  Composer(Interpreter& in, const std::shared_ptr<FusionRecorder>& rec, std::string fname, uint32_t off)
      : in_(in),
        rec_(rec),
        f_(rec->f),
        b_(rec->b),
        fname_(std::move(fname)),
        off_(off),
        first_(f_.tensors.size()) {}

  DType dtypeOf(const ValueRef& v) const {
    return v.isTensor() ? f_.tensors[v.id].dtype : f_.scalars[v.id].dtype;
  }
  PromotionOperand operand(const ValueRef& v) const {
    return {dtypeOf(v), v.isTensor(), v.isTensor() && b_.nonReduction(v.id).empty()};
  }
  DType common(const std::vector<ValueRef>& vs, bool int_to_float) {
    std::vector<PromotionOperand> po;
    for (const ValueRef& v : vs) po.push_back(operand(v));
    std::optional<DType> d = promoteTypes(po, int_to_float);
    if (!d) in_.fail(fname_ + ": the operands have no common dtype", off_);
    return *d;
  }

  ValueRef op(OpKind k, std::vector<ValueRef> ins, Attrs attrs = {}) {
    bool any_tensor = false;
    for (const ValueRef& v : ins) any_tensor |= v.isTensor();
    if (!any_tensor) {
      Expr x{k, ins, {}, attrs};
      const DType dt = outputDType(f_, x, 0).dtype.value_or(DType::Double);
      if (std::optional<ValueRef> v = foldIntegers(k, ins, dt)) return *v;
      std::vector<ScalarId> operands;
      for (const ValueRef& v : ins) operands.push_back(v.id);
      ScalarId s = b_.uncomputedScalar(dt, std::string(opInfo(k).python_name) + "(...)", operands);
      rec_->noteScalar(s, off_);
      return ValueRef::scalar(s);
    }
    std::string err;
    auto outs = b_.op(k, std::move(ins), std::move(attrs), err);
    if (!outs) in_.fail(fname_ + ": " + err, off_);
    return ValueRef::tensor((*outs)[0]);
  }

  // nvFuser's promoteValues / castOp: a tensor of another dtype gets a cast expr; a scalar of the
  // other kind (integral or not) converts when it is a constant. A scalar of the same kind stays: every
  // op casts a scalar operand to its tensors' dtype.
  ValueRef cast(ValueRef v, DType to) {
    if (dtypeOf(v) == to) return v;
    if (v.isTensor()) {
      Attrs a;
      a.dtype = to;
      return op(OpKind::Cast, {v}, a);
    }
    const Scalar& sc = f_.scalars[v.id];
    if (isIntegral(sc.dtype) == isIntegral(to)) return v;
    if (sc.kind != ScalarKind::Constant)
      in_.fail(fname_ + ": a non-constant " + std::string(dtypeName(sc.dtype)) + " scalar cast to " +
                   std::string(dtypeName(to)) + " is not modelled",
               off_);
    const ConstValue cv = sc.value;
    if (cv.kind != ConstValue::Kind::Float)
      return ValueRef::scalar(isIntegral(to) ? b_.constInt(cv.i, to)
                                             : b_.constFloat(static_cast<double>(cv.i), to));
    if (!isIntegral(to)) return ValueRef::scalar(b_.constFloat(cv.f, to));
    // A floating constant to an integer: C++'s truncation, where it is defined.
    std::optional<int64_t> i = checkedTruncToInt64(cv.f);
    if (!i)
      in_.fail(fname_ + ": " + scalarToString(f_, v.id) + " has no " + std::string(dtypeName(to)) + " value",
               off_);
    return ValueRef::scalar(b_.constInt(*i, to));
  }
  void castAll(std::vector<ValueRef>& vs, DType to) {
    for (ValueRef& v : vs) v = cast(v, to);
  }
  void broadcast(std::vector<ValueRef>& vs) {
    std::string err;
    if (!b_.maybeBroadcast(vs, err)) in_.fail(fname_ + ": " + err, off_);
  }
  // An op on integer and Bool constants whose value C++ defines (no overflow, shifts within the
  // width), folded to a constant of the op's dtype; nullopt otherwise.
  std::optional<ValueRef> foldIntegers(OpKind k, const std::vector<ValueRef>& ins, DType dt) {
    std::vector<int64_t> v;
    for (const ValueRef& r : ins) {
      const Scalar& sc = f_.scalars[r.id];
      if (sc.kind != ScalarKind::Constant || sc.value.kind == ConstValue::Kind::Float) return std::nullopt;
      v.push_back(sc.value.i);
    }
    int64_t out = 0;
    switch (k) {
      case OpKind::Ge: return ValueRef::scalar(b_.constBool(v[0] >= v[1]));
      case OpKind::Where: out = v[0] != 0 ? v[1] : v[2]; break;
      case OpKind::Sub: {
        std::optional<int64_t> d = checkedSub(v[0], v[1]);
        if (!d) return std::nullopt;
        out = *d;
        break;
      }
      case OpKind::Pow:
        if (v[1] < 0 || v[1] > 64) return std::nullopt;
        out = 1;
        for (int64_t i = 0; i < v[1]; ++i) {
          std::optional<int64_t> p = checkedMul(out, v[0]);
          if (!p) return std::nullopt;
          out = *p;
        }
        break;
      case OpKind::LeftShift:
        if (v[1] < 0 || v[1] >= 64) return std::nullopt;
        out = static_cast<int64_t>(static_cast<uint64_t>(v[0]) << v[1]);
        break;
      default: return std::nullopt;
    }
    if (!isIntegral(dt)) return std::nullopt;
    return ValueRef::scalar(b_.constInt(out, dt));
  }
  ValueRef uncomputed(DType dt, const std::string& call, std::span<const ScalarId> operands) {
    ScalarId s = b_.uncomputedScalar(dt, call, operands);
    rec_->noteScalar(s, off_);
    return ValueRef::scalar(s);
  }
  ValueRef dconst(double x) { return ValueRef::scalar(b_.constFloat(x, DType::Double)); }
  ValueRef iconst(int64_t x) { return ValueRef::scalar(b_.constInt(x, DType::Int)); }

  Ref finish(const ValueRef& out) {
    rec_->noteExprs(off_);
    for (size_t t = first_; t < f_.tensors.size(); ++t) rec_->noteTensor(static_cast<TensorId>(t), off_);
    return out.isTensor() ? tensorValue(rec_, out.id) : scalarValue(rec_, out.id);
  }

 private:
  Interpreter& in_;
  const std::shared_ptr<FusionRecorder>& rec_;
  Fusion& f_;
  ImportBuilder& b_;
  std::string fname_;
  uint32_t off_;
  size_t first_;
};

}  // namespace

Ref Interpreter::compositeOp(const std::shared_ptr<FusionRecorder>& rec, const std::string& fname,
                             const std::string& name, std::vector<ValueRef> ins, uint32_t off) {
  Composer c(*this, rec, fname, off);
  if (name == "addcmul") {
    // addcmul(v1, v2, v3, s) = v1 + v2 * (v3 * s) (csrc/ops/arith.cpp:1834-1847 @ 81c4b22fd): the
    // operands cast to the common dtype of v1, v2 and v3 (Half / BFloat16 / fp8 made Float), broadcast
    // to the common rank, then mul(v3, s), mul(v2, that) and add(v1, that).
    const DType d = c.common({ins[0], ins[1], ins[2]}, false);
    c.castAll(ins, d);
    c.broadcast(ins);
    ValueRef prod = c.op(OpKind::Mul, {ins[2], ins[3]});
    prod = c.op(OpKind::Mul, {ins[1], prod});
    return c.finish(c.op(OpKind::Add, {ins[0], prod}));
  }
  if (name == "add_alpha" || name == "sub_alpha") {
    // v1 +/- v2 * s, the three cast to the common dtype of v1 and v2 (csrc/ops/arith.cpp:1742-1786 @
    // 81c4b22fd).
    const DType d = c.common({ins[0], ins[1]}, false);
    c.castAll(ins, d);
    c.broadcast(ins);
    ValueRef prod = c.op(OpKind::Mul, {ins[1], ins[2]});
    return c.finish(c.op(name == "add_alpha" ? OpKind::Add : OpKind::Sub, {ins[0], prod}));
  }
  if (name == "truediv") {
    // binaryOp(Div, ..., float_op_config) (csrc/ops/arith.cpp:891-909 @ 81c4b22fd): integers and Bool cast to
    // the floating common dtype first.
    // A scalar operand keeps its dtype: the div's promotion gives the same floating output.
    const DType d = c.common(ins, true);
    if (!ins[0].isTensor() && !ins[1].isTensor()) {
      const ScalarId operands[] = {ins[0].id, ins[1].id};
      return c.finish(c.uncomputed(d, "truediv(...)", operands));
    }
    for (ValueRef& v : ins)
      if (v.isTensor() && !isFloatingPoint(c.dtypeOf(v))) v = c.cast(v, d);
    return c.finish(c.op(OpKind::Div, ins));
  }
  if (name == "sign") {
    // castOp(x's dtype, where(x > 0, 1, where(x < 0, -1, 0))) with Double constants
    // (csrc/ops/composite.cpp:250-268 @ 81c4b22fd).
    const ValueRef zero = c.dconst(0.0);
    ValueRef gt = c.op(OpKind::Gt, {ins[0], zero});
    ValueRef lt = c.op(OpKind::Lt, {ins[0], zero});
    ValueRef inner = c.op(OpKind::Where, {lt, c.dconst(-1.0), zero});
    ValueRef out = c.op(OpKind::Where, {gt, c.dconst(1.0), inner});
    return c.finish(c.cast(out, c.dtypeOf(ins[0])));
  }
  if (name == "logical_right_shift") {
    // mask = where(shift >= bits, -1, 2 ** shift - 1); the arithmetic shift, and where the value is
    // negative, its bits xor'ed with mask << (bits - shift) (csrc/ops/arith.cpp:1096-1138 @
    // 81c4b22fd); bits is 64 for Int, else 32.
    const ValueRef x = ins[0], shift = ins[1];
    const ValueRef bits = c.iconst(c.dtypeOf(x) == DType::Int ? 64 : 32);
    ValueRef mask =
        c.op(OpKind::Where, {c.op(OpKind::Ge, {shift, bits}), c.iconst(-1),
                             c.op(OpKind::Sub, {c.op(OpKind::Pow, {c.iconst(2), shift}), c.iconst(1)})});
    ValueRef shifted = c.op(OpKind::LeftShift, {mask, c.op(OpKind::Sub, {bits, shift})});
    ValueRef value = c.op(OpKind::RightShift, {x, shift});
    ValueRef out =
        c.op(OpKind::Where, {c.op(OpKind::SignBit, {x}), c.op(OpKind::BitwiseXor, {shifted, value}), value});
    return c.finish(out);
  }
  if (name == "real" && !isComplex(c.dtypeOf(ins[0]))) {
    // A real (not complex) operand: set(v) (csrc/ops/arith.cpp:615-634 @ 81c4b22fd).
    if (ins[0].isScalar()) return scalarValue(rec, ins[0].id);
    return c.finish(c.op(OpKind::Set, {ins[0]}));
  }
  if (name == "imag" && !isComplex(c.dtypeOf(ins[0])))
    fail(fname + ": imag not supported for non-complex tensors (csrc/ops/arith.cpp:647 @ 81c4b22fd)", off);
  if ((name == "bitwise_and" || name == "bitwise_or" || name == "bitwise_xor") && ins.size() == 2 &&
      c.dtypeOf(ins[0]) == DType::Bool && c.dtypeOf(ins[1]) == DType::Bool) {
    // Two Bool operands: logical_and, logical_or, ne (csrc/ops/arith.cpp:1005-1046 @ 81c4b22fd).
    const OpKind k = name == "bitwise_and"  ? OpKind::LogicalAnd
                     : name == "bitwise_or" ? OpKind::LogicalOr
                                            : OpKind::Ne;
    return c.finish(c.op(k, ins));
  }
  return nullptr;
}

}  // namespace fc::py
