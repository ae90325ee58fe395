// The composite ops of nvFuser's C++ API that its tests call (layer_norm, rms_norm, dropout,
// chunk, arange), built from the ops nvFuser builds them from, in the same order
// (csrc/ops/normalization.cpp:251-380, csrc/ops/composite.cpp:22-45 and csrc/ops/arith.cpp:447-480
// @ 81c4b22fd): the fusion fusecheck sees is the one nvFuser's
// segmenter sees. Welford and rand_like are opaque ops (opaque_calls.cpp), so a verdict that needs
// them is not decided; the rest (broadcasts, pointwise ops, the extents they read) is analysed.
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "io/cpp/reader.h"

namespace fc::cpp_text {

bool Reader::isCompositeOp(const std::string& fn) const {
  return fn == "layer_norm" || fn == "rms_norm" || fn == "dropout" || fn == "chunk";
}

std::optional<Value> Reader::compositeOp(const std::string& fn, std::vector<Value>& args, size_t at) {
  // One op of the composite, located at the call.
  auto apply = [&](OpKind k, std::vector<ValueRef> in, Attrs attrs = {}) -> std::optional<TensorId> {
    std::string why;
    auto outs = b_.op(k, std::move(in), std::move(attrs), why);
    if (!outs) return error(DiagCode::ImportSyntax, fn + ": " + why, at), std::nullopt;
    expr_tok_.push_back(at);
    return (*outs)[0];
  };
  auto bcast = [&](TensorId t, const std::vector<bool>& flags) {
    Attrs a;
    a.flags = flags;
    return apply(OpKind::Broadcast, {ValueRef::tensor(t)}, std::move(a));
  };
  auto optionalTensor = [&](size_t i, TensorId& out) {
    out = kNone;
    if (i >= args.size() || args[i].k == Value::K::None) return true;
    return toTensor(args[i], out, at, "argument " + std::to_string(i + 1) + " of " + fn);
  };
  auto field = [](std::string name, TensorId t) { return Field{std::move(name), Value::ofTensor(t)}; };
  auto structOf = [](std::vector<Field> fields) {
    Value v;
    v.k = Value::K::Struct;
    v.fields = std::move(fields);
    return v;
  };

  TensorId x = kNone;
  if (args.empty() || !toTensor(args[0], x, at, "the input of " + fn)) {
    if (args.empty()) error(DiagCode::ImportSyntax, fn + "(...) needs its input", at);
    return std::nullopt;
  }
  const auto rank = static_cast<int64_t>(b_.nonReduction(x).size());

  if (fn == "chunk") {
    // chunk(in, chunks, dim): `chunks` slices along dim, each ceilDiv(extent, chunks) long but the
    // last, which runs to the end (csrc/ops/alias.cpp:1002-1027 @ 81c4b22fd, from #2818).
    int64_t chunks = 0, dim = 0;
    if (args.size() != 3 || !toInt(args[1], chunks, at, "the chunks of chunk") ||
        !toInt(args[2], dim, at, "the dim of chunk"))
      return error(DiagCode::ImportSyntax, "chunk(in, chunks, dim) takes a tensor and two integers", at),
             std::nullopt;
    if (chunks <= 0 || chunks > 4096 || dim < -rank || dim >= rank)
      return error(DiagCode::ImportSyntax,
                   "chunk: " +
                       std::string(chunks <= 0 || chunks > 4096 ? "the number of chunks"
                                                                : "dim " + std::to_string(dim)) +
                       " is out of range",
                   at),
             std::nullopt;
    const auto d = static_cast<size_t>(dim < 0 ? dim + rank : dim);
    const ScalarId extent = f_.axes[b_.nonReduction(x)[d]].extent;
    const ScalarId size = b_.derived(ScalarOp::CeilDiv, extent, b_.constInt(chunks));
    Value list;
    list.k = Value::K::List;
    ScalarId start = kNone;
    for (int64_t i = 0; i < chunks; ++i) {
      Attrs a;
      a.ranges.assign(static_cast<size_t>(rank), SliceRange{});
      a.ranges[d].start = start;
      a.ranges[d].stop = i == chunks - 1 ? kNone : b_.derived(ScalarOp::Mul, size, b_.constInt(i + 1));
      start = a.ranges[d].stop;
      auto piece = apply(OpKind::Slice, {ValueRef::tensor(x)}, std::move(a));
      if (!piece) return std::nullopt;
      list.items.push_back(Value::ofTensor(*piece));
    }
    return list;
  }

  if (fn == "dropout") {
    // dropout(x, prob) computes the kept fraction and the scale from prob, then dropout(x, p1m,
    // scale): rand_like(x) < prob masks x, the product scaled (composite.cpp:22-45).
    if (args.size() != 2 && args.size() != 3)
      return error(DiagCode::ImportSyntax, "dropout(x, prob) or dropout(x, prob, scale)", at), std::nullopt;
    ScalarId prob = kNone, scale = kNone;
    if (!toScalar(args[1], prob, at, "the probability of dropout")) return std::nullopt;
    if (args.size() == 3) {
      if (!toScalar(args[2], scale, at, "the scale of dropout")) return std::nullopt;
    } else {
      ScalarId p1m = b_.derived(ScalarOp::Sub, b_.constFloat(1.0), prob);
      // add(eq(p1m, 0.), p1m): fusecheck's scalar exprs have no comparison, so the guard is a value
      // of its own, marked (ir/uncomputed_scalar.h) for a verdict that needs it to say not decided.
      const ScalarId from[] = {p1m};
      ScalarId guard = b_.uncomputedScalar(DType::Double, "add(eq(1.0 - p, 0.0), 1.0 - p)", from);
      note(std::string(f_.scalarName(guard)) +
               " stands for dropout's add(eq(1 - p, 0), 1 - p), a scalar expression fusecheck does not "
               "compute: a verdict that needs its value is not decided",
           at);
      scale = b_.derived(ScalarOp::Div, b_.constFloat(1.0), guard);
      prob = p1m;
    }
    std::vector<Value> like{Value::ofTensor(x)};
    std::optional<Value> rand = opaqueOp("rand_like", like, at);
    if (!rand || rand->k != Value::K::Tensor) return std::nullopt;
    auto mask = apply(OpKind::Lt, {ValueRef::tensor(rand->tensor), ValueRef::scalar(prob)});
    auto masked = mask ? apply(OpKind::Mul, {ValueRef::tensor(x), ValueRef::tensor(*mask)}) : std::nullopt;
    auto y = masked ? apply(OpKind::Mul, {ValueRef::tensor(*masked), ValueRef::scalar(scale)}) : std::nullopt;
    if (!y) return std::nullopt;
    return structOf({field("output", *y), field("mask", *mask)});
  }

  // layer_norm(x, norm_shape, weight, bias, eps) and rms_norm(x, norm_shape, weight, eps):
  // norm_shape is a list (its length counts) or the number of inner dims.
  const bool layer = fn == "layer_norm";
  const size_t nargs = layer ? 5 : 4;
  if (args.size() != nargs)
    return error(DiagCode::ImportSyntax,
                 fn + (layer ? "(x, norm_shape, weight, bias, eps)" : "(x, norm_shape, weight, eps)") +
                     " takes " + std::to_string(nargs) + " arguments",
                 at),
           std::nullopt;
  int64_t inner = 0;
  if (args[1].k == Value::K::List) {
    inner = static_cast<int64_t>(args[1].items.size());
  } else if (!toInt(args[1], inner, at, "the normalized shape of " + fn)) {
    return std::nullopt;
  }
  if (inner < 0 || inner > rank)
    return error(DiagCode::ImportSyntax,
                 fn + ": the normalized shape has " + std::to_string(inner) +
                     " dims but the input has rank " + std::to_string(rank),
                 at),
           std::nullopt;
  TensorId weight = kNone, bias = kNone;
  ScalarId eps = kNone;
  if (!optionalTensor(2, weight) || (layer && !optionalTensor(3, bias)) ||
      !toScalar(args[nargs - 1], eps, at, "the epsilon of " + fn))
    return std::nullopt;

  // norm_properties_from_num_dims: the inner `inner` dims are reduced, the number of features is
  // the product of their loop extents (x->getLoopDomain()[axis]), starting from 1.0.
  std::vector<bool> inner_mask(static_cast<size_t>(rank), false),
      outer_mask(static_cast<size_t>(rank), false);
  Value axes;
  axes.k = Value::K::List;
  ScalarId features = b_.constFloat(1.0);
  const std::vector<AxisId> loop = f_.tensors[x].loopDomain();
  for (int64_t i = 0; i < inner; ++i) {
    const int64_t axis = rank - 1 - i;
    axes.items.push_back(Value::integer(axis));
    inner_mask[static_cast<size_t>(axis)] = true;
    if (static_cast<size_t>(axis) < loop.size())
      features = b_.derived(ScalarOp::Mul, features, f_.axes[loop[static_cast<size_t>(axis)]].extent);
  }
  for (int64_t i = 0; i < rank - inner; ++i) outer_mask[static_cast<size_t>(i)] = true;
  // reciprocal(num_features): 1.0 / n, as a derived scalar of the same extents.
  const ScalarId recip = b_.derived(ScalarOp::Div, b_.constFloat(1.0), features);

  std::optional<TensorId> centred, var_sum_bcast, mean_bcast;
  if (layer) {
    std::vector<Value> wargs{Value::ofTensor(x), axes};
    std::optional<Value> w = opaqueOp("Welford", wargs, at);
    if (!w || w->k != Value::K::Struct || !w->field("avg") || !w->field("var_sum")) return std::nullopt;
    mean_bcast = bcast(w->field("avg")->tensor, inner_mask);
    if (mean_bcast) centred = apply(OpKind::Sub, {ValueRef::tensor(x), ValueRef::tensor(*mean_bcast)});
    if (centred) var_sum_bcast = bcast(w->field("var_sum")->tensor, inner_mask);
  } else {
    Attrs sum;
    sum.dims.assign(axes.items.size(), 0);
    for (size_t i = 0; i < axes.items.size(); ++i) sum.dims[i] = axes.items[i].i;
    auto sq = apply(OpKind::Mul, {ValueRef::tensor(x), ValueRef::tensor(x)});
    auto var_sum = sq ? apply(OpKind::Sum, {ValueRef::tensor(*sq)}, std::move(sum)) : std::nullopt;
    if (var_sum) var_sum_bcast = bcast(*var_sum, inner_mask);
  }
  if (!var_sum_bcast) return std::nullopt;
  auto var = apply(OpKind::Mul, {ValueRef::tensor(*var_sum_bcast), ValueRef::scalar(recip)});
  auto var_eps = var ? apply(OpKind::Add, {ValueRef::tensor(*var), ValueRef::scalar(eps)}) : std::nullopt;
  auto invstd = var_eps ? apply(OpKind::Rsqrt, {ValueRef::tensor(*var_eps)}) : std::nullopt;
  if (!invstd) return std::nullopt;
  auto y = apply(OpKind::Mul, {ValueRef::tensor(layer ? *centred : x), ValueRef::tensor(*invstd)});
  if (y && weight != kNone) {
    auto wb = bcast(weight, outer_mask);
    y = wb ? apply(OpKind::Mul, {ValueRef::tensor(*y), ValueRef::tensor(*wb)}) : std::nullopt;
  }
  if (y && bias != kNone) {
    auto bb = bcast(bias, outer_mask);
    y = bb ? apply(OpKind::Add, {ValueRef::tensor(*y), ValueRef::tensor(*bb)}) : std::nullopt;
  }
  if (!y) return std::nullopt;
  if (layer) return structOf({field("output", *y), field("mean", *mean_bcast), field("invstd", *invstd)});
  return structOf({field("output", *y), field("invstd", *invstd)});
}

std::optional<Value> Reader::arange(std::vector<Value>& args, size_t at) {
  // arange(start, end, step, dtype) is iota(ceilDiv(abs(end - start), abs(step)), start, step,
  // dtype), its length computed in Int for an integral dtype (csrc/ops/arith.cpp:447-480 @
  // 81c4b22fd).
  std::vector<Value> a = args;
  DType dtype = DType::Int;
  if (!a.empty() && a.back().k == Value::K::DType) {
    dtype = a.back().dtype;
    a.pop_back();
  }
  if (a.empty() || a.size() > 3)
    return error(DiagCode::ImportSyntax,
                 "arange(end), arange(start, end) or arange(start, end, step), each with an "
                 "optional dtype",
                 at),
           std::nullopt;
  ScalarId start = b_.constInt(0, DType::Int), end = kNone, step = b_.constInt(1, DType::Int);
  const size_t e = a.size() == 1 ? 0 : 1;
  if (!toScalar(a[e], end, at, "the end of arange")) return std::nullopt;
  if (a.size() > 1 && !toScalar(a[0], start, at, "the start of arange")) return std::nullopt;
  if (a.size() > 2 && !toScalar(a[2], step, at, "the step of arange")) return std::nullopt;
  // Literal bounds give the length at once (in double for a float dtype, as nvFuser computes it).
  auto literal = [&](const Value& v) -> std::optional<double> {
    if (v.k == Value::K::Int) return static_cast<double>(v.i);
    if (v.k == Value::K::Float && !v.is_complex) return v.f;
    if (v.k == Value::K::Scalar)
      if (auto c = b_.constValue(v.scalar)) return static_cast<double>(*c);
    return std::nullopt;
  };
  const std::optional<double> lo = a.size() > 1 ? literal(a[0]) : std::optional<double>(0.0);
  const std::optional<double> hi = literal(a[e]);
  const std::optional<double> by = a.size() > 2 ? literal(a[2]) : std::optional<double>(1.0);
  ScalarId length = kNone;
  if (lo && hi && by && *by != 0) {
    const double n = std::ceil(std::abs(*hi - *lo) / std::abs(*by));
    if (!(n >= 0 && n < 9.0e15))
      return error(DiagCode::ImportSyntax, "arange: a length fusecheck cannot hold", at), std::nullopt;
    length = b_.constInt(static_cast<int64_t>(n));
  } else if (isIntegral(dtype) && isIntegral(f_.scalars[start].dtype) && isIntegral(f_.scalars[end].dtype) &&
             isIntegral(f_.scalars[step].dtype)) {
    auto abs = [&](ScalarId x) { return b_.derived(ScalarOp::Max, x, b_.derived(ScalarOp::Neg, x)); };
    length =
        b_.derived(ScalarOp::CeilDiv, abs(b_.derived(ScalarOp::Sub, end, start)), abs(step), DType::Index);
  } else {
    const ScalarId from[] = {start, end, step};
    length = b_.uncomputedScalar(DType::Index, "ceilDiv(abs(end - start), abs(step))", from);
  }
  std::vector<Value> iota(4);
  for (size_t i = 0; i < 3; ++i) iota[i].k = Value::K::Scalar;
  iota[0].scalar = length;
  iota[1].scalar = start;
  iota[2].scalar = step;
  iota[3].k = Value::K::DType;
  iota[3].dtype = dtype;
  return call("iota", iota, at);
}

}  // namespace fc::cpp_text
