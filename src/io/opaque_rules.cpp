// The output rules of opaque ops (opaque_rules.h). Each rule cites the nvFuser function it follows,
// at 81c4b22fd (head) unless it says otherwise.
#include "io/opaque_rules.h"

#include <algorithm>

#include "ir/op_rules.h"
#include "ir/rng_like.h"
#include "support/internal_error.h"

namespace fc {

void OpaqueArgs::fail(const std::string& msg, const char* p) {
  stop(msg, p);
  internalError(__FILE__, __LINE__, "an opaque-op frontend returned from stop(): " + msg);
}

size_t OpaqueArgs::dim(const char* p, TensorId t, int64_t dflt) {
  int64_t d = integer(p, dflt);
  auto rank = static_cast<int64_t>(b_.nonReduction(t).size());
  int64_t n = d < 0 ? d + rank : d;
  if (n < 0 || n >= rank)
    fail("dim " + std::to_string(d) + " is out of range for a tensor of rank " + std::to_string(rank), p);
  return static_cast<size_t>(n);
}

std::vector<AxisId> OpaqueArgs::copyAxes(TensorId t) {
  std::vector<AxisId> r;
  for (AxisId a : b_.nonReduction(t)) r.push_back(b_.copyAxis(a));
  return r;
}

namespace {

ValueRef tv(TensorId t) { return ValueRef::tensor(t); }

using Out = std::pair<DType, std::vector<AxisId>>;

// Records op `name` with operands `in`, outputs built from `outs` and the axes `dims` it works on
// (an indexing op's `dim`, which the pipeline's concretization model reads); the call returns
// them all.
OpaqueCall finish(OpaqueArgs& a, std::string_view name, std::vector<ValueRef> in, std::vector<Out> outs,
                  std::vector<int64_t> dims = {}) {
  OpaqueCall r;
  for (auto& [dt, axes] : outs) r.outputs.push_back(a.b().tensor(dt, std::move(axes)));
  a.b().opaque(std::string(name), std::move(in), r.outputs, std::move(dims));
  r.results.assign(r.outputs.begin(), r.outputs.end());
  return r;
}

// Builds the modelled op `k` for a call the opaque table routes here; a rule's error stops the
// call at argument `p`.
OpaqueCall modelled(OpaqueArgs& a, OpKind k, std::vector<ValueRef> in, Attrs attrs, const char* p) {
  std::string err;
  auto outs = a.b().op(k, std::move(in), std::move(attrs), err);
  if (!outs) a.fail(err, p);
  OpaqueCall r;
  r.outputs = *outs;
  r.results.assign(r.outputs.begin(), r.outputs.end());
  return r;
}

// rand_like / randn_like of `t` as the modelled random factory `k` (see recordOpaqueOp), or
// nothing where the flags cannot say the operand's IterTypes.
std::optional<OpaqueCall> rngLike(OpaqueArgs& a, OpKind k, TensorId t) {
  ImportBuilder& b = a.b();
  const std::vector<AxisId> axes = b.nonReduction(t);
  std::optional<std::vector<bool>> flags = likeFlags(a.f(), axes);
  if (!flags) return std::nullopt;
  Attrs at;
  at.flags = std::move(*flags);
  for (AxisId x : axes) at.shape.push_back(a.f().axes[x].extent);
  at.dtype = a.dtypeOf(t);
  std::vector<ValueRef> in{ValueRef::scalar(b.constFloat(0.0)), ValueRef::scalar(b.constFloat(1.0))};
  if (a.seedReachesOp() && (a.has("rng_seed") || a.has("rng_offset"))) {
    if (!a.has("rng_seed") || !a.has("rng_offset"))
      a.fail("If either philox_seed or philox_offset is provided, the other must be also",
             a.has("rng_seed") ? "rng_seed" : "rng_offset");
    in.push_back(ValueRef::scalar(a.scalar("rng_seed", DType::Int)));
    in.push_back(ValueRef::scalar(a.scalar("rng_offset", DType::Int)));
  }
  return modelled(a, k, std::move(in), std::move(at), "arg");
}

}  // namespace

std::optional<OpaqueCall> recordOpaqueOp(std::string_view n, OpaqueArgs& a) {
  ImportBuilder& b = a.b();
  // rand_like / randn_like (arith.cpp:276-321): an RNGOp (Uniform / NormalStandard) whose inputs
  // are the operand's extents, not the operand (internal_nodes.cpp:1338-1375), and whose output
  // copies the operand's axes (newOutputTV). Modelled as uniform / normal with parameters 0 and 1,
  // the extents as shape and the IterTypes as flags (ops.def), where the copy is one the flags
  // can say: no Symbolic axis, no expanded broadcast. Otherwise an opaque op shaped like the
  // operand.
  if (n == "rand_like" || n == "randn_like") {
    TensorId t = a.tensor("arg");
    if (!isFloatingPoint(a.dtypeOf(t)))
      a.fail("input must have floating point type, but got " + std::string(dtypeName(a.dtypeOf(t))), "arg");
    if (auto r = rngLike(a, n == "rand_like" ? OpKind::Uniform : OpKind::Normal, t)) return r;
    return finish(a, n, {tv(t)}, {Out{a.dtypeOf(t), a.copyAxes(t)}});
  }
  // cumsum / cumprod / cummin / cummax (scan, arith.cpp:2586-2625), triu (composite.cpp:61-111),
  // index_put_accumulate (ops/indexing.cpp:129-150): shaped like the operand, its dtype.
  if (n == "cumsum" || n == "cumprod" || n == "cummin" || n == "cummax" || n == "triu" ||
      n == "index_put_accumulate") {
    const char* first = n == "triu" ? "input" : n == "index_put_accumulate" ? "acc" : "arg";
    TensorId t = a.tensor(first);
    std::vector<ValueRef> in{tv(t)};
    if (n == "index_put_accumulate") {
      in.push_back(tv(a.tensor("index")));
      in.push_back(tv(a.tensor("value")));
    } else if (n == "triu") {
      if (b.nonReduction(t).size() < 2) a.fail("triu needs a tensor of rank 2 or more", first);
    } else {
      a.dim("dim", t);
    }
    return finish(a, n, std::move(in), {Out{a.dtypeOf(t), a.copyAxes(t)}});
  }
  // argsort (arith.cpp:2259-2277): shaped like the operand, Int.
  if (n == "argsort") {
    TensorId t = a.tensor("arg");
    a.dim("dim", t);
    return finish(a, n, {tv(t)}, {Out{DType::Int, a.copyAxes(t)}});
  }
  // index_select (ops/indexing.cpp:51-121): the lookup's axes, axis `dim` the index's own.
  if (n == "index_select") {
    TensorId t = a.tensor("arg"), idx = a.tensor("index");
    size_t d = a.dim("dim", t);
    std::vector<AxisId> ia = b.nonReduction(idx), ta = b.nonReduction(t), axes;
    if (ia.size() > 1) {
      if (ia.size() != ta.size()) a.fail("the index must have rank 0, 1 or the lookup's rank", "index");
      for (size_t i = 0; i < ia.size(); ++i)
        if (i != d && b.fusion().axes[ia[i]].iter != IterType::Broadcast)
          a.fail("an index of the lookup's rank must be Broadcast on every axis but `dim`", "index");
    }
    for (size_t i = 0; i < ta.size(); ++i) {
      if (i != d)
        axes.push_back(b.copyAxis(ta[i]));
      else if (ia.empty())
        axes.push_back(b.axis(IterType::Broadcast, b.constInt(1)));  // select, then unsqueeze
      else
        axes.push_back(b.copyAxis(ia.size() == 1 ? ia[0] : ia[d]));
    }
    return finish(a, n, {tv(t), tv(idx)}, {Out{a.dtypeOf(t), std::move(axes)}}, {static_cast<int64_t>(d)});
  }
  // select (ops/indexing.cpp:23-48): the operand without axis `dim`.
  if (n == "select") {
    TensorId t = a.tensor("arg");
    size_t d = a.dim("dim", t);
    ScalarId i = a.scalar("index", DType::Index);
    std::vector<AxisId> axes = a.copyAxes(t);
    axes.erase(axes.begin() + static_cast<long>(d));
    return finish(a, n, {tv(t), ValueRef::scalar(i)}, {Out{a.dtypeOf(t), std::move(axes)}});
  }
  // gather (ops/indexing.cpp:153-195): every axis from the index, Iteration made GatherScatter.
  // take_along_axis (:306-369): axis i from the index where i is `dim` or the operand is
  // Broadcast there and the index is not (or both are and the index's is expanded), else the
  // operand's; IterTypes as they are.
  if (n == "gather" || n == "take_along_axis") {
    TensorId t = a.tensor("arg1"), idx = a.tensor("index");
    size_t d = a.dim("dim", t);
    std::vector<AxisId> ta = b.nonReduction(t), ia = b.nonReduction(idx), axes;
    if (ta.size() != ia.size()) a.fail("the operand and the index differ in rank", "index");
    const Fusion& f = b.fusion();
    for (size_t i = 0; i < ia.size(); ++i) {
      if (n == "gather") {
        AxisId x = b.copyAxis(ia[i]);
        if (b.fusion().axes[x].iter == IterType::Iteration) a.f().axes[x].iter = IterType::GatherScatter;
        axes.push_back(x);
        continue;
      }
      const Axis &ax = f.axes[ta[i]], &ix = f.axes[ia[i]];
      bool from_index =
          i == d || (ax.iter == IterType::Broadcast && ix.iter != IterType::Broadcast) ||
          (ax.iter == IterType::Broadcast && ix.iter == IterType::Broadcast && ix.expanded != kNone);
      axes.push_back(b.copyAxis(from_index ? ia[i] : ta[i]));
    }
    return finish(a, n, {tv(t), tv(idx)}, {Out{a.dtypeOf(t), std::move(axes)}}, {static_cast<int64_t>(d)});
  }
  // scatter (ops/indexing.cpp:197-304): the operand's axes, Iteration made GatherScatter.
  if (n == "scatter") {
    TensorId t = a.tensor("arg"), idx = a.tensor("index");
    a.dim("dim", t);
    ValueRef sv = a.isTensor("src") ? tv(a.tensor("src")) : ValueRef::scalar(a.scalar("src", DType::Int));
    std::vector<AxisId> axes = a.copyAxes(t);
    for (AxisId x : axes)
      if (a.f().axes[x].iter == IterType::Iteration) a.f().axes[x].iter = IterType::GatherScatter;
    return finish(a, n, {tv(t), tv(idx), sv}, {Out{a.dtypeOf(t), std::move(axes)}});
  }
  // embedding_fwd (composite.cpp:798-860): the input's axes and the weight's last, the weight's dtype.
  if (n == "embedding_fwd") {
    TensorId in = a.tensor("input"), w = a.tensor("weight");
    std::vector<AxisId> wa = b.nonReduction(w);
    if (wa.size() != 2) a.fail("the weight must have rank 2", "weight");
    std::vector<AxisId> axes = a.copyAxes(in);
    axes.push_back(b.copyAxis(wa[1]));
    std::vector<ValueRef> ins{tv(in), tv(w)};
    for (const char* p : {"padding_idx", "max_norm", "norm_type", "scale_grad_by_freq", "sparse"})
      if (a.has(p)) ins.push_back(ValueRef::scalar(a.scalar(p, DType::Int)));
    return finish(a, n, std::move(ins), {Out{a.dtypeOf(w), std::move(axes)}});
  }
  // topk (arith.cpp:2497-2584): values and Int indices; axis `dim` has extent k, Symbolic unless
  // k and the operand's extent are constants (then Broadcast for k = 1).
  if (n == "topk") {
    TensorId t = a.tensor("arg");
    size_t d = a.dim("dim", t, -1);
    ScalarId k = a.scalar("k", DType::Int);
    std::vector<AxisId> src = b.nonReduction(t);
    auto make = [&] {
      std::vector<AxisId> axes;
      auto kc = b.constValue(k);
      bool constant = kc && b.constValue(a.f().axes[src[d]].extent);
      for (size_t i = 0; i < src.size(); ++i)
        axes.push_back(i != d ? b.copyAxis(src[i])
                              : b.axis(!constant  ? IterType::Symbolic
                                       : *kc == 1 ? IterType::Broadcast
                                                  : IterType::Iteration,
                                       constant && *kc == 1 ? b.constInt(1) : k));
      return axes;
    };
    std::vector<AxisId> values = make(), indices = make();
    return finish(a, n, {tv(t), ValueRef::scalar(k)},
                  {Out{a.dtypeOf(t), std::move(values)}, Out{DType::Int, std::move(indices)}});
  }
  // sdpfa_fwd (composite.cpp:585-704): output [batch..., L, Ev] in the query's dtype, logsumexp
  // [batch..., L] Float, the philox seed and offset.
  if (n == "sdpfa_fwd") {
    TensorId q = a.tensor("query"), k = a.tensor("key"), v = a.tensor("value");
    std::vector<AxisId> qa = b.nonReduction(q), va = b.nonReduction(v);
    if (qa.size() < 4 || va.size() != qa.size() || b.nonReduction(k).size() != qa.size())
      a.fail("query, key and value must have the same rank, 4 or more", "query");
    std::vector<ValueRef> in{tv(q), tv(k), tv(v)};
    for (const char* p : {"bias", "mask"})
      if (auto t = a.optTensor(p)) in.push_back(tv(*t));
    for (const char* p : {"dropout_p", "is_causal", "scale"})
      if (a.has(p)) in.push_back(ValueRef::scalar(a.scalar(p, DType::Int)));
    std::vector<AxisId> out, lse;
    for (size_t i = 0; i + 1 < qa.size(); ++i) out.push_back(b.copyAxis(qa[i]));
    out.push_back(b.copyAxis(va.back()));
    for (size_t i = 0; i + 1 < qa.size(); ++i) lse.push_back(b.copyAxis(qa[i]));
    return finish(a, n, std::move(in),
                  {Out{a.dtypeOf(q), std::move(out)}, Out{DType::Float, std::move(lse)}, Out{DType::Int, {}},
                   Out{DType::Int, {}}});
  }
  // sdpfa_bwd (composite.cpp:706-796): gradients shaped like query, key and value.
  if (n == "sdpfa_bwd") {
    std::vector<ValueRef> in;
    std::vector<TensorId> qkv;
    for (const char* p : {"grad_output", "query", "key", "value", "output", "logsumexp"}) {
      TensorId t = a.tensor(p);
      in.push_back(tv(t));
      if (std::string_view(p) == "query" || std::string_view(p) == "key" || std::string_view(p) == "value")
        qkv.push_back(t);
    }
    for (const char* p : {"dropout_p", "is_causal", "scale"})
      if (a.has(p)) in.push_back(ValueRef::scalar(a.scalar(p, DType::Int)));
    for (const char* p : {"philox_seed", "philox_offset"})
      if (a.has(p)) in.push_back(a.isTensor(p) ? tv(a.tensor(p)) : ValueRef::scalar(a.scalar(p, DType::Int)));
    std::vector<Out> outs;
    for (TensorId t : qkv) outs.push_back(Out{a.dtypeOf(t), a.copyAxes(t)});
    return finish(a, n, std::move(in), std::move(outs));
  }
  // welford (WelfordRaw, arith.cpp:1561-1629): the modelled op Welford (avg, var_sum, N); the
  // Python frontend's fd.ops.welford calls WelfordRaw too (python/python_frontend/fusion_record.h:
  // 2427 @ 99b644647). WelfordRaw checks that some axis is given (:1577).
  if (n == "welford") {
    TensorId t = a.tensor("arg");
    Attrs at;
    at.dims = a.integers("dims");
    if (at.dims.empty()) a.fail("No reduction axis specified (WelfordRaw)", "dims");
    const auto rank = static_cast<int64_t>(b.nonReduction(t).size());
    for (int64_t d : at.dims)
      if (d < -rank || d >= rank) a.fail("a dim is out of range", "dims");
    return modelled(a, OpKind::Welford, {tv(t)}, std::move(at), "dims");
  }
  // batch_norm (ops/normalization.cpp:537-687): channel axis C = 1, or the last with
  // channels_last. In training, or without running stats, mean is Welford's avg (the operand's
  // axes, all but C Reduction but for squeezed trivial ones, its dtype) and invstd an rsqrt of [C]; in
  // inference mean *is* running_mean (the same tensor) and invstd rsqrt(running_var + eps). The output is
  // computed through sub / mul / add with the statistics, weight and bias broadcast, so its dtype is their
  // promotion (type_promotion.cpp). Training with running stats also makes nvFuser alias updated
  // running stats to those inputs as hidden outputs: not recorded here.
  if (n == "batch_norm") {
    TensorId x = a.tensor("arg");
    std::vector<AxisId> xa = b.nonReduction(x);
    const bool channels_last = a.flag("channels_last", false), training = a.flag("training", false);
    if (xa.size() < 2) a.fail("the operand must have rank 2 or more (batch, channels, ...)", "arg");
    const size_t c = channels_last ? xa.size() - 1 : 1;
    std::optional<TensorId> weight = a.optTensor("weight"), bias = a.optTensor("bias");
    std::optional<TensorId> rmean = a.optTensor("running_mean"), rvar = a.optTensor("running_var");
    if (rmean.has_value() != rvar.has_value()) a.fail("running stats should come in pairs", "running_mean");
    std::vector<ValueRef> in{tv(x)};
    for (auto t : {weight, bias, rmean, rvar})
      if (t) in.push_back(tv(*t));
    for (const char* p : {"momentum", "eps"}) in.push_back(ValueRef::scalar(a.scalar(p, DType::Int)));
    auto checkC = [&](std::optional<TensorId> t, const char* p) {
      if (t && b.nonReduction(*t).size() != 1) a.fail("must have rank 1 (the channels)", p);
    };
    checkC(weight, "weight");
    checkC(bias, "bias");
    checkC(rmean, "running_mean");
    checkC(rvar, "running_var");
    std::vector<PromotionOperand> promo{{a.dtypeOf(x), true}};
    for (auto t : {weight, bias})
      if (t) promo.push_back({a.dtypeOf(*t), true});
    const bool batch_stats = training || !rmean;
    if (!batch_stats)
      for (auto t : {rmean, rvar}) promo.push_back({a.dtypeOf(*t), true});
    DType y_dt = promoteTypes(promo).value_or(a.dtypeOf(x));
    if (batch_stats) {
      // Welford (arith.cpp:1631-1700) squeezes trivial reductions first: a Broadcast axis of
      // extent 1 that is not expanded leaves the mean's domain instead of becoming Reduction.
      std::vector<AxisId> mean;
      for (size_t i = 0; i < xa.size(); ++i) {
        const Axis& x_ax = a.f().axes[xa[i]];
        if (i != c && x_ax.iter == IterType::Broadcast && x_ax.expanded == kNone &&
            b.constValue(x_ax.extent) == 1)
          continue;
        AxisId ax = b.copyAxis(xa[i]);
        if (i != c) a.f().axes[ax].iter = IterType::Reduction;
        mean.push_back(ax);
      }
      return finish(a, n, std::move(in),
                    {Out{y_dt, a.copyAxes(x)}, Out{a.dtypeOf(x), std::move(mean)},
                     Out{a.dtypeOf(x), {b.copyAxis(xa[c])}}});
    }
    OpaqueCall r =
        finish(a, n, std::move(in), {Out{y_dt, a.copyAxes(x)}, Out{a.dtypeOf(*rvar), a.copyAxes(*rvar)}});
    r.results = {r.outputs[0], *rmean, r.outputs[1]};
    return r;
  }
  // grouped_mm (arith.cpp:2279-2394 createGroupedMmaOutput, :2406-2489; bindings
  // python/python_direct/ops.cpp:2074-2160): offsets [g]; [m, k] x [k, n] -> [g, m, n],
  // [g, m, k] x [k, n] -> [m, n] (mat1's axis 1), [m, k] x [g, k, n] -> [m, n]; then rk, a
  // Reduction axis, unless k is Broadcast. Three operands: mat1's dtype, one output. The scaled
  // form: `dtype` (BFloat16 by default) and three results, the block scales and the global scale
  // None unless asked for (those are not modelled).
  if (n == "grouped_mm") {
    TensorId m1 = a.tensor("mat1"), m2 = a.tensor("mat2"), offs = a.tensor("offsets");
    std::vector<AxisId> a1 = b.nonReduction(m1), a2 = b.nonReduction(m2), ao = b.nonReduction(offs);
    if (ao.size() != 1) a.fail("offsets needs to be 1-D for grouped mm", "offsets");
    if (a1.size() < 2 || a2.size() < 2) a.fail("mat1 and mat2 must have rank 2 or 3", "mat1");
    const Fusion& f = b.fusion();
    const bool k_bcast = f.axes[a1.back()].iter == IterType::Broadcast;
    if (k_bcast != (f.axes[a2[a2.size() - 2]].iter == IterType::Broadcast))
      a.fail("K should be broadcast in both A and B, or neither", "mat2");
    std::vector<AxisId> out;
    if (a1.size() == 2 && a2.size() == 2)
      out = {b.copyAxis(ao[0]), b.copyAxis(a1[0]), b.copyAxis(a2[1])};
    else if (a1.size() == 3 && a2.size() == 2)
      out = {b.copyAxis(a1[1]), b.copyAxis(a2[1])};
    else if (a1.size() == 2 && a2.size() == 3)
      out = {b.copyAxis(a1[0]), b.copyAxis(a2[2])};
    else
      a.fail("unexpected operand ranks (two 3-D operands are bmm / matmul, not grouped_mm)", "mat1");
    if (!k_bcast) {
      const Axis& k = f.axes[a1.back()];
      out.push_back(b.axis(IterType::Reduction, k.expanded != kNone ? k.expanded : k.extent));
    }
    std::vector<ValueRef> in{tv(m1), tv(m2), tv(offs)};
    const bool scaled = a.has("scale1") || a.has("scale2");
    if (!scaled) return finish(a, n, std::move(in), {Out{a.dtypeOf(m1), std::move(out)}});
    for (const char* p : {"scale1", "scale2"}) in.push_back(tv(a.tensor(p)));
    for (const char* p : {"alpha", "bias", "beta"})
      if (auto t = a.optTensor(p)) in.push_back(tv(*t));
    if (a.integer("output_block_scale_size", 0) > 0 || a.flag("output_gamma", false))
      a.fail("the block-scaled and global-scaled outputs have no output rule in fusecheck yet",
             "output_block_scale_size");
    OpaqueCall r =
        finish(a, n, std::move(in), {Out{a.dtype("dtype").value_or(DType::BFloat16), std::move(out)}});
    r.results = {r.outputs[0], std::nullopt, std::nullopt};
    return r;
  }
  // scaled_mm (composite.cpp:490-530; binding python/python_direct/ops.cpp:2280-2330): the output
  // is newForMatmul(mat1, mat2, dtype), the function matmul's output comes from, in `dtype`
  // (BFloat16 by default); three results, the block scales and the global scale None (nvFuser
  // refuses the block-scaled and global-scaled outputs: "not yet supported").
  if (n == "scaled_mm") {
    TensorId m1 = a.tensor("mat1"), m2 = a.tensor("mat2");
    std::vector<ValueRef> in{tv(m1), tv(m2)};
    for (const char* p : {"scale1", "scale2"}) in.push_back(tv(a.tensor(p)));
    for (const char* p : {"alpha", "bias", "beta"})
      if (auto t = a.optTensor(p)) in.push_back(tv(*t));
    if (a.integer("output_block_scale_size", 0) != 0)
      a.fail("output_block_scale is not yet supported", "output_block_scale_size");
    if (a.flag("output_gamma", false)) a.fail("output_gamma is not yet supported", "output_gamma");
    std::string err;
    auto out = b.opaqueLike("scaled_mm", OpKind::Matmul, {tv(m1), tv(m2)}, std::move(in),
                            a.dtype("dtype").value_or(DType::BFloat16), err);
    if (!out) a.fail(err, "mat2");
    return OpaqueCall{{*out}, {*out, std::nullopt, std::nullopt}};
  }
  // nv_block_quantize (blockQuantize, csrc/ops/arith.cpp:2638-2757; binding
  // python/python_direct/ops.cpp:3521-3556) and nv_grouped_block_quantize (groupedBlockQuantize,
  // arith.cpp:2762-2895, from #5777, 2026-01-20; binding ops.cpp:3559-3582): the quantized tensor,
  // the input's shape in `dtype` (Float4_e2m1fn by default, block size 16; or Float8_e4m3fn, block
  // size 32), and the block scales, the input's shape with the last extent divided by the block
  // size, in Float8_e4m3fn (for FP4) or Float8_e8m0fnu. The grouped form takes a 2-D input and the
  // groups' input and output offsets, and records the innermost extent and the number of groups (the
  // offsets' extent) as operands (GroupedBlockQuantizationOp, csrc/ir/composite_nodes.cpp:1832-1864).
  // swizzle_block_scales and the grouped form's Block128x4 layout change the scales' allocation only
  // (ir_utils::swizzleBlockScales, layoutAllocationDomain), which fusecheck does not model.
  if (n == "nv_block_quantize" || n == "nv_grouped_block_quantize") {
    const bool grouped = n == "nv_grouped_block_quantize";
    const std::string what = grouped ? "grouped block quantization" : "block quantization";
    TensorId x = a.tensor("input");
    std::optional<TensorId> gs = a.optTensor("global_scale");
    const bool swizzle = !grouped && a.flag("swizzle_block_scales", false);
    const int64_t bs = a.integer("block_size", 16);
    const DType out = a.dtype("dtype").value_or(DType::Float4_e2m1fn);
    if (out != DType::Float4_e2m1fn && out != DType::Float8_e4m3fn)
      a.fail("Currently only output data type of Float4_e2m1fn or Float8_e4m3fn is supported", "dtype");
    if (out == DType::Float4_e2m1fn && bs != 16)
      a.fail("Block size must be 16 for Float4_e2m1fn, got " + std::to_string(bs), "block_size");
    if (out == DType::Float8_e4m3fn) {
      if (bs != 32)
        a.fail("Block size must be 32 for Float8_e4m3fn, got " + std::to_string(bs), "block_size");
      if (swizzle) a.fail("swizzle_scales must be false for Float8_e4m3fn", "swizzle_block_scales");
      if (gs) a.fail("global_scaling_factor must be nullptr for Float8_e4m3fn", "global_scale");
    }
    const DType xd = a.dtypeOf(x);
    if (xd != DType::Float && xd != DType::BFloat16 && xd != DType::Half)
      a.fail(std::string(grouped ? "Grouped b" : "B") +
                 "lock quantization expects floating point input but got " + std::string(dtypeName(xd)),
             "input");
    if (gs) {
      if (!b.nonReduction(*gs).empty())
        a.fail("Global scaling factor for " + what + " must be a scalar tensor", "global_scale");
      if (a.dtypeOf(*gs) != DType::Float)
        a.fail("Global scaling factor for " + what + " must be of float data type", "global_scale");
    }
    std::vector<AxisId> xa = b.nonReduction(x);
    if (xa.empty() && !grouped)
      a.fail("Block quantization does not support zero-dimensional tensors", "input");
    if (grouped && xa.size() != 2)
      a.fail("Grouped block quantization only supports 2-dimensional tensors (the input has rank " +
                 std::to_string(xa.size()) + ")",
             "input");
    std::vector<AxisId> quantized = a.copyAxes(x), scales;  // in nvFuser's order of creation
    for (size_t i = 0; i + 1 < xa.size(); ++i) scales.push_back(b.copyAxis(xa[i]));
    scales.push_back(
        b.axis(IterType::Iteration, b.derived(ScalarOp::Div, a.f().axes[xa.back()].extent, b.constInt(bs))));
    std::vector<ValueRef> in{tv(x)};
    if (grouped) {
      TensorId io = a.tensor("input_offsets"), oo = a.tensor("output_offsets");
      std::vector<AxisId> groups = b.nonReduction(io);
      if (groups.empty())
        a.fail("input_offsets must be 1-D: its extent is the number of groups", "input_offsets");
      const Axis& k = a.f().axes[xa[1]];
      for (TensorId t : {io, oo}) in.push_back(tv(t));
      in.push_back(ValueRef::scalar(k.expanded != kNone ? k.expanded : k.extent));
      in.push_back(ValueRef::scalar(a.f().axes[groups[0]].extent));
    }
    if (gs) in.push_back(tv(*gs));
    const DType scale_dt = out == DType::Float4_e2m1fn ? DType::Float8_e4m3fn : DType::Float8_e8m0fnu;
    return finish(a, n, std::move(in), {Out{out, std::move(quantized)}, Out{scale_dt, std::move(scales)}});
  }
  // preprocess_grouped_matmul_input_sf (preprocessGroupedMatmulInputSf, csrc/ops/indexing.cpp:434-487,
  // from #5115, 2025-09-09; binding python/python_direct/ops.cpp:3179-3210, from #5345,
  // 2025-10-20): the 2-D block scales laid out per group; the output has the input's logical
  // domain and dtype (the padded Block128x4 allocation is not modelled). Operands as
  // PreprocessGroupedMatmulInputSf records them (composite_nodes.cpp:1720-1735): the input, both
  // offsets, the innermost extent and the number of groups.
  if (n == "preprocess_grouped_matmul_input_sf") {
    TensorId x = a.tensor("input"), io = a.tensor("input_offsets"), oo = a.tensor("output_offsets");
    std::vector<AxisId> xa = b.nonReduction(x), groups = b.nonReduction(io);
    if (xa.size() != 2)
      a.fail("the input must be 2-D (nvFuser: Expected (input_logical_dom.size())==(2), found " +
                 std::to_string(xa.size()) + " vs 2)",
             "input");
    if (groups.empty())
      a.fail("input_offsets must be 1-D: its extent is the number of groups", "input_offsets");
    const Axis& k = a.f().axes[xa[1]];
    std::vector<ValueRef> in{tv(x), tv(io), tv(oo),
                             ValueRef::scalar(k.expanded != kNone ? k.expanded : k.extent),
                             ValueRef::scalar(a.f().axes[groups[0]].extent)};
    return finish(a, n, std::move(in), {Out{a.dtypeOf(x), a.copyAxes(x)}});
  }
  // cutlass_nvfp4_grouped_mm (csrc/ops/composite.cpp:532-583, from #4762, 2025-08-22): mat1 [m, k]
  // and mat2 [g, k, n] give [m, n] in `dtype` (newOutputIterDomain of mat1's axis 0 and mat2's
  // axis 2); all eight tensors are operands (CutlassNvfp4GroupedMmaOp, composite_nodes.cpp:1574).
  // `dtype` is BFloat16 by default in both bindings (python/python_direct/ops.cpp:2217-2277).
  if (n == "cutlass_nvfp4_grouped_mm") {
    std::vector<ValueRef> in;
    for (const char* p :
         {"mat1", "mat2", "scale1", "scale2", "alpha", "problem_sizes", "expert_offsets", "sf_offsets"})
      in.push_back(tv(a.tensor(p)));
    TensorId m1 = in[0].id, m2 = in[1].id;
    std::vector<AxisId> a1 = b.nonReduction(m1), a2 = b.nonReduction(m2);
    if (a1.size() != 2)
      a.fail("Expected mat1_domain.size() == 2 (mat1 has rank " + std::to_string(a1.size()) + ")", "mat1");
    if (a2.size() != 3)
      a.fail("Expected mat2_domain.size() == 3 (mat2 has rank " + std::to_string(a2.size()) + ")", "mat2");
    const DType dt = a.dtype("dtype").value_or(DType::BFloat16);
    return finish(a, n, std::move(in), {Out{dt, {b.copyAxis(a1[0]), b.copyAxis(a2[2])}}});
  }
  return std::nullopt;
}

}  // namespace fc
