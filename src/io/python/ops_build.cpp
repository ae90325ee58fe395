// fd.ops calls (see frontend_ops.h): binds the arguments by the op's parameter list (older
// keyword spellings renamed), turns Python values into fusion operands and attributes, and
// records the op through ImportBuilder, which gives outputs nvFuser's shape and dtype rules.
// Ops on scalars only build derived scalars, as nvFuser's frontends do.
#include <algorithm>
#include <cmath>
#include <sstream>
#include <string_view>
#include <utility>

#include "io/python/bind.h"
#include "io/python/frontend_ops.h"
#include "io/python/interpreter.h"
#include "ir/constant_scalar.h"
#include "ir/op_rules.h"
#include "ir/printer.h"
#include "support/checked.h"
#include "support/suggest.h"

namespace fc::py {
namespace {

// `name` on constant scalars, folded where nvFuser's host evaluation gives one exactly rounded value
// (UnaryOp::evaluate, csrc/ir/internal_nodes.cpp:571-606 @ 99b644647: Reciprocal is 1.0 / in, Abs
// and Ceil as C's). Computed in double, the value rounds to a Float output exactly as a Float
// computation would (one division or no rounding at all). nullopt for anything else.
std::optional<ScalarId> foldScalarCall(ImportBuilder& b, const std::string& name,
                                       const std::vector<ValueRef>& ins, DType dt) {
  if (ins.size() != 1 || !ins[0].isScalar() || !isFloatingPoint(dt)) return std::nullopt;
  const Scalar& sc = b.fusion().scalars[ins[0].id];
  if (sc.kind != ScalarKind::Constant || sc.value.kind == ConstValue::Kind::Bool) return std::nullopt;
  const double x = sc.value.kind == ConstValue::Kind::Float ? sc.value.f : static_cast<double>(sc.value.i);
  if (sc.value.kind == ConstValue::Kind::Int && static_cast<int64_t>(x) != sc.value.i) return std::nullopt;
  if (name == "reciprocal") return b.constFloat(1.0 / x, dt);
  if (name == "abs") return b.constFloat(std::fabs(x), dt);
  if (name == "ceil") return b.constFloat(std::ceil(x), dt);
  return std::nullopt;
}

// The scalar expr the elementwise op fd.ops.`name` is on scalars only, where the name alone says
// it (integer `mod` depends on the operands' dtypes); None for the others.
ScalarOp scalarOpOf(std::string_view name) {
  static constexpr std::pair<std::string_view, ScalarOp> kOps[] = {
      {"add", ScalarOp::Add}, {"sub", ScalarOp::Sub},        {"mul", ScalarOp::Mul},
      {"div", ScalarOp::Div}, {"maximum", ScalarOp::Max},    {"minimum", ScalarOp::Min},
      {"neg", ScalarOp::Neg}, {"ceilDiv", ScalarOp::CeilDiv}};
  for (const auto& [n, op] : kOps)
    if (name == n) return op;
  return ScalarOp::None;
}

}  // namespace

void Interpreter::failUnknownOp(const std::string& name, uint32_t off) {
  std::vector<std::string> names;
  for (const FrontendOp& o : frontendOps()) names.emplace_back(o.name);
  fail("`fd.ops." + name + "` is not an nvFuser op" + didYouMean(name, names), off,
       DiagCode::ImportUnresolved);
}

Ref Interpreter::opsCall(const std::shared_ptr<FusionRecorder>& rec, const std::string& called,
                         Args& in_args) {
  // fd.ops.view(arg, original_shape, new_shape): reshape's name in PyTorch's tree (2022).
  if (called == "view") rec->markPreRepo("`fd.ops.view`", in_args.off);
  const std::string name = called == "view" ? std::string("reshape") : called;
  const FrontendOp* op = findFrontendOp(name);
  const std::string fname = "fd.ops." + name;
  if (!op) failUnknownOp(name, in_args.off);
  Fusion& f = rec->f;
  ImportBuilder& b = rec->b;
  rec->recorded = true;
  Args args = in_args;
  // Older positional forms: reshape(arg, original_shape, new_shape) and
  // squeeze(arg, original_shape, dims) until 2023-10 / 2024-01; full(value, shape=...) until 2023-08.
  // The form of reshape and squeeze is noted: each binding took only one.
  // squeeze's third positional is squeeze_expanded (a bool) in the later form.
  auto isList = [](const Ref& v) { return v->k == VK::List || v->k == VK::Tuple || v->k == VK::Vector; };
  const bool three_lists = args.pos.size() == 3 && isList(args.pos[1]) && isList(args.pos[2]);
  if (op->form == PyForm::Reshape || op->form == PyForm::Squeeze) {
    bool original = three_lists;
    for (const auto& [k, v] : args.kw) original = original || k == "original_shape";
    const bool reshape = op->form == PyForm::Reshape;
    rec->spell(fname,
               original ? (reshape ? "(arg, original_shape, new_shape)" : "(arg, original_shape, dims)")
                        : (reshape ? "(arg, new_shape)" : "(arg, dims)"),
               args.off);
  }
  // reshape(arg, original_shape, new_shape) is analysed at definition from original_shape.
  std::vector<int64_t> original_shape;
  auto keepOriginal = [&](const Ref& v, uint32_t off) {
    if (op->form != PyForm::Reshape) return;
    for (const Ref& x : asList(v, off, "fd.ops.reshape original_shape"))
      original_shape.push_back(asInt(x, off, "original_shape"));
  };
  if ((op->form == PyForm::Reshape || op->form == PyForm::Squeeze) && three_lists) {
    keepOriginal(args.pos[1], args.pos_off[1]);
    args.pos.erase(args.pos.begin() + 1);
    args.pos_off.erase(args.pos_off.begin() + 1);
  }
  for (size_t k = 0; k < args.kw.size(); ++k)
    if (args.kw[k].first == "original_shape") {
      keepOriginal(args.kw[k].second, args.kw_off[k]);
      args.kw.erase(args.kw.begin() + static_cast<long>(k));
      args.kw_off.erase(args.kw_off.begin() + static_cast<long>(k));
      break;
    }
  if (op->form == PyForm::Full && !args.pos.empty() && args.pos[0]->k != VK::List &&
      args.pos[0]->k != VK::Tuple && args.pos[0]->k != VK::Vector) {
    bool shape_kw = false;
    for (const auto& [k, v] : args.kw) shape_kw = shape_kw || k == "shape" || k == "size";
    if (shape_kw) {
      args.kw.emplace_back("fill_value", args.pos[0]);
      args.kw_off.push_back(args.pos_off[0]);
      args.pos.erase(args.pos.begin());
      args.pos_off.erase(args.pos_off.begin());
    }
  }
  const std::vector<std::string> params = paramNames(*op);
  if (op->form == PyForm::Reduce && args.pos.size() == 2 && args.pos[1]->k == VK::DType) {  // sum(arg, dtype)
    args.kw.emplace_back("dtype", args.pos[1]);
    args.kw_off.push_back(args.pos_off[1]);
    args.pos.pop_back();
    args.pos_off.pop_back();
  }
  Bound a = bind(*this, args, fname, params, keywordRenames(*op), rec.get());
  auto idx = [&](const char* p) {
    return static_cast<size_t>(std::find(params.begin(), params.end(), p) - params.begin());
  };
  auto need = [&](const char* p) -> const Ref& {
    size_t i = idx(p);
    if (i >= a.v.size() || !a.v[i])
      fail(fname + " is missing its `" + p + "` argument", args.off, DiagCode::ImportSyntax);
    return a.v[i];
  };
  auto offOf = [&](const char* p) { return a.off[std::min(idx(p), a.off.size() - 1)]; };
  auto has = [&](const char* p) { return a.has(idx(p)); };
  auto tensorArg = [&](const char* p) -> TensorId {
    const Ref& v = need(p);
    if (v->k != VK::Tensor) fail(fname + ": `" + p + "` must be a tensor, not a " + typeName(*v), offOf(p));
    if (v->rec != rec) fail(fname + ": the tensor belongs to another FusionDefinition", offOf(p));
    return v->id;
  };
  auto scalarOf = [&](const Ref& v, uint32_t off, DType int_dtype, const std::string& what) -> ScalarId {
    switch (v->k) {
      case VK::Scalar:
        if (v->rec != rec) fail(what + ": the scalar belongs to another FusionDefinition", off);
        return v->id;
      case VK::Int: return b.constInt(v->i, int_dtype);
      case VK::Bool: return b.constBool(v->i != 0);
      case VK::Float: return b.constFloat(v->f, DType::Double);
      case VK::Complex: return b.constComplex(v->f, v->im);
      default: fail(what + " must be a scalar or a number, not a " + typeName(*v), off);
    }
  };
  auto operand = [&](const Ref& v, uint32_t off) -> ValueRef {
    if (v->k == VK::Tensor) {
      if (v->rec != rec) fail(fname + ": the tensor belongs to another FusionDefinition", off);
      return ValueRef::tensor(v->id);
    }
    return ValueRef::scalar(scalarOf(v, off, DType::Int, fname));
  };
  auto scalarList = [&](const char* p) {
    const Ref& v = need(p);
    std::vector<ScalarId> r;
    if (v->k == VK::Vector) return std::vector<ScalarId>(v->ids.begin(), v->ids.end());
    if (v->k == VK::Int || v->k == VK::Scalar)
      return std::vector<ScalarId>{scalarOf(v, offOf(p), DType::Index, p)};
    for (const Ref& x : asList(v, offOf(p), fname + " " + p))
      r.push_back(scalarOf(x, offOf(p), DType::Index, p));
    return r;
  };
  auto intList = [&](const char* p) {
    const Ref& v = need(p);
    std::vector<int64_t> r;
    if (v->k == VK::Int) return std::vector<int64_t>{v->i};
    for (const Ref& x : asList(v, offOf(p), fname + " " + p)) r.push_back(asInt(x, offOf(p), p));
    return r;
  };
  auto dtypeArg = [&](const char* p) -> std::optional<DType> {
    if (!has(p)) return std::nullopt;
    const Ref& v = need(p);
    if (v->k != VK::DType && v->k != VK::TorchDType)
      fail(fname + ": `" + p + "` must be a DataType", offOf(p));
    return v->dtype;
  };
  auto finish = [&](OpKind k, std::vector<ValueRef> ins, Attrs attrs) -> Ref {
    std::string err;
    auto outs = b.op(k, std::move(ins), std::move(attrs), err);
    if (!outs) fail(fname + ": " + err, args.off);
    rec->noteExprs(args.off);
    for (TensorId t : *outs) rec->noteTensor(t, args.off);
    if (outs->size() == 1) return tensorValue(rec, (*outs)[0]);
    std::vector<Ref> items;
    for (TensorId t : *outs) items.push_back(tensorValue(rec, t));
    return mkSeq(VK::Tuple, items);
  };

  std::optional<OpKind> kind = frontendOpKind(*op);
  Attrs attrs;
  switch (op->form) {
    case PyForm::Unmodelled: fail("`" + fname + "` is an nvFuser op fusecheck does not model yet", args.off);
    case PyForm::OutputRule: return opaqueOpCall(rec, *op, in_args);
    case PyForm::Size:
    case PyForm::Shape:
    case PyForm::TensorSizes: {
      TensorId t = tensorArg("arg");
      size_t rank = b.nonReduction(t).size();
      if (op->form == PyForm::Size) {
        int64_t d = asInt(need("dim"), offOf("dim"), "dim");
        int64_t dd = d < 0 ? d + static_cast<int64_t>(rank) : d;
        if (dd < 0 || static_cast<size_t>(dd) >= rank) fail("fd.ops.size: dim out of range", offOf("dim"));
        ScalarId s = f.addSize(t, static_cast<int32_t>(dd));
        rec->noteScalar(s, args.off);
        return scalarValue(rec, s);
      }
      Ref v = mk(op->form == PyForm::Shape ? VK::Vector : VK::Tuple);
      v->rec = rec;
      for (size_t d = 0; d < rank; ++d) {
        ScalarId s = f.addSize(t, static_cast<int32_t>(d));
        if (v->k == VK::Vector)
          v->ids.push_back(s);
        else
          v->items.push_back(scalarValue(rec, s));
      }
      return v;
    }
    case PyForm::At: {
      const Ref& v = need("arg");
      if (v->k != VK::Vector) fail("fd.ops.at takes a vector", offOf("arg"));
      int64_t i = asInt(need("index"), offOf("index"), "index");
      if (i < 0) i += static_cast<int64_t>(v->ids.size());
      if (i < 0 || static_cast<size_t>(i) >= v->ids.size())
        fail("fd.ops.at: index out of range", offOf("index"));
      return scalarValue(rec, v->ids[static_cast<size_t>(i)]);
    }
    case PyForm::Elementwise: {
      std::vector<ValueRef> ins;
      for (const std::string& p : params) {
        if (p == "approximate") continue;
        ins.push_back(operand(need(p.c_str()), offOf(p.c_str())));
      }
      bool any_tensor = std::any_of(ins.begin(), ins.end(), [](const ValueRef& v) { return v.isTensor(); });
      if (any_tensor || !kind)
        if (Ref r = compositeOp(rec, fname, name, ins, args.off)) return r;
      if (name == "bitwise_not" && ins.size() == 1 &&
          (ins[0].isTensor() ? f.tensors[ins[0].id].dtype : f.scalars[ins[0].id].dtype) == DType::Bool)
        kind = OpKind::LogicalNot;  // bitwise_not of Bool is logical_not (csrc/ops/arith.cpp bitwise_not)
      if (!any_tensor) {
        // Scalars only: a derived scalar where fusecheck's scalar exprs can say it.
        ScalarOp sop = scalarOpOf(name);
        if ((name == "fmod" || name == "mod") && isIntegral(f.scalars[ins[0].id].dtype) &&
            isIntegral(f.scalars[ins[1].id].dtype))
          sop = ScalarOp::Mod;
        else if (name == "set" || name == "segment_set")
          return scalarValue(rec, ins[0].id);
        if (sop == ScalarOp::None) {
          if (!kind) fail("`" + fname + "` is an nvFuser op fusecheck does not model yet", args.off);
          // nvFuser records a scalar expr whose output has the operands' promoted dtype
          // (csrc/ops/arith.cpp unaryOp / binaryOp on Val*, computeTypes of
          // csrc/type_promotion.cpp); fusecheck's scalar exprs do not compute it, so it is a
          // value of its own, of that dtype.
          Expr x{*kind, ins, {}, attrs};
          DType dt = outputDType(f, x, 0).dtype.value_or(DType::Double);
          if (std::optional<ScalarId> c = foldScalarCall(b, name, ins, dt)) {
            rec->noteScalar(*c, args.off);
            return scalarValue(rec, *c);
          }
          // Marked, so that a verdict which needs its value says "not decided" instead of calling
          // it an unbound extent (pipeline/unbound_report.cpp).
          std::string call = name + "(";
          for (size_t i = 0; i < ins.size(); ++i) call += (i ? ", " : "") + scalarToString(f, ins[i].id);
          std::vector<ScalarId> operands;
          for (const ValueRef& v : ins) operands.push_back(v.id);
          ScalarId s = b.uncomputedScalar(dt, call + ")", operands);
          report(
              Severity::Note, DiagCode::ImportNote,
              std::string(f.scalarName(s)) + " stands for `" + fname +
                  "(...)` on scalars, a scalar expression fusecheck does not compute: a verdict that needs "
                  "its value is not decided (unless it is computed from scalar inputs and input extents "
                  "alone), and `run` refuses it",
              args.off);
          rec->noteScalar(s, args.off);
          return scalarValue(rec, s);
        }
        // A floating result has nvFuser's promoted dtype (an Int times a Double is a Double, a Float
        // times a Double too); an integer one keeps the first operand's.
        std::optional<DType> dt;
        if (kind) {
          dt = outputDType(f, Expr{*kind, ins, {}, attrs}, 0).dtype;
          if (dt && isIntegral(*dt)) dt.reset();
        }
        ScalarId s = b.derived(sop, ins[0].id, ins.size() > 1 ? ins[1].id : kNone, dt);
        rec->noteScalar(s, args.off);
        return scalarValue(rec, s);
      }
      if (!kind) fail("`" + fname + "` is an nvFuser op fusecheck does not model yet", args.off);
      if (*kind == OpKind::Gelu && has("approximate")) {
        const Ref& ap = need("approximate");
        if (ap->k != VK::Str || (ap->s != "none" && ap->s != "tanh"))
          fail("gelu approximate must be 'none' or 'tanh'", offOf("approximate"));
        attrs.approximate_tanh = ap->s == "tanh";
      }
      return finish(*kind, std::move(ins), std::move(attrs));
    }
    case PyForm::Cast: {
      ValueRef v = operand(need("arg"), offOf("arg"));
      const Ref& d = need("dtype");
      if (d->k != VK::DType && d->k != VK::TorchDType)
        fail(fname + ": `dtype` must be a DataType", offOf("dtype"));
      if (!d->dtype) fail("cast to DataType.Null", offOf("dtype"));
      if (v.isScalar()) {
        // A scalar cast: a value that constants determine converts (`2.5 * 7` to Int is 17,
        // ir/constant_scalar.h); an integer value keeps its value as Index / Int.
        bool out_of_range = false;
        if (std::optional<ScalarId> s = b.castScalar(v.id, *d->dtype, out_of_range))
          return scalarValue(rec, *s);
        const Scalar& sc = f.scalars[v.id];
        if (out_of_range)
          fail("`fd.ops.cast` of " + pyFloatRepr(constantScalarValue(f, v.id)->f) + " to " +
                   std::string(dtypeName(*d->dtype)) + ": the value does not fit in a 64-bit integer",
               args.off, DiagCode::NumberOutOfRange);
        // Another conversion (Bool or a float to a float, an integer to a float, ...) is nvFuser's
        // castOp on a Val (csrc/ops/arith.cpp): a value of its own, marked like the scalar ops
        // above, that a verdict needing it calls not decided.
        const std::string from(dtypeName(sc.dtype)), to(dtypeName(*d->dtype));
        const ScalarId from_id[] = {v.id};
        ScalarId s =
            b.uncomputedScalar(*d->dtype, "cast(" + scalarToString(f, v.id) + ", " + to + ")", from_id);
        report(Severity::Note, DiagCode::ImportNote,
               std::string(f.scalarName(s)) + " stands for `fd.ops.cast` of the " + from + " scalar " +
                   scalarToString(f, v.id) + " to " + to +
                   ", a conversion fusecheck does not compute: a verdict that needs its value is not decided "
                   "(unless it is computed from scalar inputs and input extents alone), and `run` refuses it",
               args.off);
        rec->noteScalar(s, args.off);
        return scalarValue(rec, s);
      }
      attrs.dtype = d->dtype;
      return finish(OpKind::Cast, {v}, attrs);
    }
    case PyForm::Broadcast: {
      TensorId t = tensorArg("arg");
      for (const Ref& x : asList(need("is_broadcast_dim"), offOf("is_broadcast_dim"), "is_broadcast_dim"))
        attrs.flags.push_back(truthy(x, offOf("is_broadcast_dim")));
      return finish(OpKind::Broadcast, {ValueRef::tensor(t)}, attrs);
    }
    case PyForm::BroadcastInDim:
    case PyForm::Expand: {
      TensorId t = tensorArg("arg");
      attrs.shape = scalarList("shape");
      if (op->form == PyForm::BroadcastInDim) {
        attrs.dims = intList("broadcast_dims");
        // nvfuser_direct wraps each dim by the output rank and reads them as a set
        // (python/python_direct/ops.cpp:2420-2446 @ 81c4b22fd); the legacy frontend takes them
        // increasing and non-negative.
        if (rec->frontend == Frontend::Direct) {
          const auto rank = static_cast<int64_t>(attrs.shape.size());
          for (int64_t& d : attrs.dims)
            if (d < 0 && d >= -rank) d += rank;
          std::sort(attrs.dims.begin(), attrs.dims.end());
        }
      }
      return finish(*kind, {ValueRef::tensor(t)}, attrs);
    }
    case PyForm::Squeeze:
    case PyForm::Permute: {
      TensorId t = tensorArg("arg");
      attrs.dims = intList("dims");
      if (has("squeeze_expanded")) truthy(need("squeeze_expanded"), offOf("squeeze_expanded"));
      return finish(*kind, {ValueRef::tensor(t)}, attrs);
    }
    case PyForm::Reshape: {
      TensorId t = tensorArg("arg");
      attrs.shape = scalarList("new_shape");
      // Each size is cast to Index (SimplifyingIrBuilder::maybeCastExpr, csrc/ops/alias.cpp:182 @
      // 81c4b22fd): a floating constant truncates; another floating scalar is a conversion fusecheck
      // does not compute.
      for (ScalarId& sz : attrs.shape) {
        const DType from_dtype = f.scalars[sz].dtype;  // a copy: the scalars grow below
        if (isIntegral(from_dtype)) continue;
        std::optional<ConstValue> cv = constantScalarValue(f, sz);
        if (cv && cv->kind == ConstValue::Kind::Float) {
          std::optional<int64_t> v = checkedTruncToInt64(cv->f);
          if (!v)
            fail(fname + ": a size of " + scalarToString(f, sz) + " has no Index value", offOf("new_shape"));
          sz = b.constInt(*v, DType::Index);
          continue;
        }
        const std::string from = scalarToString(f, sz);
        const ScalarId from_id[] = {sz};
        sz = b.uncomputedScalar(DType::Index, "cast(" + from + ", Index)", from_id);
        report(Severity::Note, DiagCode::ImportNote,
               std::string(f.scalarName(sz)) + " stands for the reshape size " + from + " (" +
                   std::string(dtypeName(from_dtype)) +
                   ") cast to Index, a conversion fusecheck does not compute: a verdict that needs its value "
                   "is not decided, and `run` refuses it",
               offOf("new_shape"));
        rec->noteScalar(sz, args.off);
      }
      attrs.original_shape = original_shape;
      return finish(OpKind::Reshape, {ValueRef::tensor(t)}, attrs);
    }
    case PyForm::Slice: {
      TensorId t = tensorArg("arg");
      std::vector<ScalarId> st = scalarList("start_indices"), en = scalarList("end_indices"), steps;
      if (has("strides")) steps = scalarList("strides");
      if (st.size() != en.size() || (!steps.empty() && steps.size() != st.size()))
        fail("slice: start_indices, end_indices and strides differ in length", args.off);
      for (size_t i = 0; i < st.size(); ++i)
        attrs.ranges.push_back(SliceRange{st[i], en[i], steps.empty() ? b.constInt(1) : steps[i]});
      return finish(OpKind::Slice, {ValueRef::tensor(t)}, attrs);
    }
    case PyForm::Pad: {
      TensorId t = tensorArg("arg");
      attrs.pad = scalarList("pad_widths");
      if (has("value")) attrs.value = scalarOf(need("value"), offOf("value"), DType::Int, "pad value");
      return finish(OpKind::Pad, {ValueRef::tensor(t)}, attrs);
    }
    case PyForm::Cat: {
      std::vector<ValueRef> ins;
      for (const Ref& x : asList(need("tensors"), offOf("tensors"), "cat tensors")) {
        if (x->k != VK::Tensor || x->rec != rec)
          fail(fname + ": every entry must be a tensor of this definition", offOf("tensors"));
        ins.push_back(ValueRef::tensor(x->id));
      }
      if (has("dim")) attrs.dim = asInt(need("dim"), offOf("dim"), "dim");
      return finish(OpKind::Cat, std::move(ins), attrs);
    }
    case PyForm::Reduce:
    case PyForm::Var:
    case PyForm::Mean: {
      TensorId t = tensorArg("arg");
      if (has("dims")) attrs.dims = intList("dims");
      if (has("keepdim")) attrs.keepdim = truthy(need("keepdim"), offOf("keepdim"));
      if (op->form == PyForm::Var && has("correction"))
        attrs.correction = asInt(need("correction"), offOf("correction"), "correction");
      if (op->form == PyForm::Reduce) {
        attrs.dtype = dtypeArg("dtype");
        if (attrs.dtype && !opAccepts(*kind, Attr::DType))
          fail(fname + " with a dtype other than DataType.Null", offOf("dtype"));
      }
      return finish(*kind, {ValueRef::tensor(t)}, attrs);
    }
    case PyForm::Full: {
      attrs.shape = scalarList("shape");
      if (*kind == OpKind::Full)
        attrs.value = scalarOf(need("fill_value"), offOf("fill_value"), DType::Int, "fill_value");
      attrs.dtype = dtypeArg("dtype");
      if (!attrs.dtype && *kind == OpKind::Full) attrs.dtype = f.scalars[attrs.value].dtype;
      if (!attrs.dtype) attrs.dtype = DType::Float;
      return finish(*kind, {}, attrs);
    }
    case PyForm::Rng: {
      // fd.ops.uniform(minval, maxval, shape, rng_seed=None, rng_offset=None, dtype=Float);
      // normal(mean, std, ...) alike. The seed and offset come together or not at all.
      const char* p0 = *kind == OpKind::Uniform ? "minval" : "mean";
      const char* p1 = *kind == OpKind::Uniform ? "maxval" : "std";
      std::vector<ValueRef> ins{ValueRef::scalar(scalarOf(need(p0), offOf(p0), DType::Double, p0)),
                                ValueRef::scalar(scalarOf(need(p1), offOf(p1), DType::Double, p1))};
      attrs.shape = scalarList("shape");
      bool seed = has("rng_seed"), offset = has("rng_offset");
      // Before the seed and offset (2023), the fourth argument was the dtype: `uniform(lo, hi,
      // shape, DataType.Double)` (csrc/python_frontend/python_bindings.cpp:2944-2978 @ 967b49d).
      std::optional<DType> positional_dtype;
      if (seed && !offset && !has("dtype") && need("rng_seed")->k == VK::DType) {
        positional_dtype = dtypeArg("rng_seed");
        seed = false;
      }
      if (seed != offset) fail(fname + ": rng_seed and rng_offset must be given together", args.off);
      if (seed) {
        ins.push_back(
            ValueRef::scalar(scalarOf(need("rng_seed"), offOf("rng_seed"), DType::Int, "rng_seed")));
        ins.push_back(
            ValueRef::scalar(scalarOf(need("rng_offset"), offOf("rng_offset"), DType::Int, "rng_offset")));
      }
      attrs.dtype = positional_dtype ? positional_dtype : dtypeArg("dtype").value_or(DType::Float);
      // Both frontends check it; the C++ API does not (python/python_frontend/python_bindings.cpp:254-257
      // @ 99b644647, python/python_direct/ops.cpp:3505-3508 @ 81c4b22fd).
      if (!isFloatingPoint(*attrs.dtype))
        fail(fname +
                 ": nvFuser's frontend stops with \"Random distributions only create floating point types!\" "
                 "(" +
                 std::string(dtypeName(*attrs.dtype)) + ")",
             offOf(positional_dtype ? "rng_seed" : "dtype"), DiagCode::ImportSyntax);
      return finish(*kind, std::move(ins), attrs);
    }
    case PyForm::Iota: {
      attrs.shape = {scalarOf(need("length"), offOf("length"), DType::Index, "length")};
      attrs.dtype = dtypeArg("dtype").value_or(DType::Int);
      if (has("start")) attrs.start = scalarOf(need("start"), offOf("start"), DType::Int, "start");
      if (has("step")) attrs.step = scalarOf(need("step"), offOf("step"), DType::Int, "step");
      return finish(OpKind::Iota, {}, attrs);
    }
    case PyForm::Matmul:
    case PyForm::Linear: {
      std::vector<ValueRef> ins{ValueRef::tensor(tensorArg("arg1")), ValueRef::tensor(tensorArg("arg2"))};
      if (op->form == PyForm::Linear && has("bias")) ins.push_back(ValueRef::tensor(tensorArg("bias")));
      return finish(*kind, std::move(ins), attrs);
    }
    case PyForm::StrideOrder: {
      // A copy whose allocation domain follows stride_order (csrc/ops/alias.cpp set + setAllocationDomain).
      TensorId t = tensorArg("arg");
      std::vector<int64_t> order = intList("stride_order");
      Ref out = finish(OpKind::Set, {ValueRef::tensor(t)}, attrs);
      Tensor& tv = f.tensors[out->id];
      if (order.size() != tv.logical.size())
        fail("stride_order: its length differs from the rank", offOf("stride_order"));
      std::vector<AxisId> alloc(order.size(), kNone);
      for (size_t d = 0; d < order.size(); ++d) {
        int64_t r = order[d];
        if (r < 0 || static_cast<size_t>(r) >= order.size() ||
            alloc[order.size() - 1 - static_cast<size_t>(r)] != kNone)
          fail("stride_order is not a permutation", offOf("stride_order"));
        alloc[order.size() - 1 - static_cast<size_t>(r)] = tv.logical[d];
      }
      if (alloc != tv.logical) tv.allocation = alloc;
      return out;
    }
  }
  fail("unhandled op form", args.off);
}

}  // namespace fc::py
