// Op-by-op Fusion construction with nvFuser's shape inference (see import_builder.h).
#include "io/import_builder.h"

#include <algorithm>

#include "ir/constant_scalar.h"
#include "ir/op_rules.h"
#include "ir/uncomputed_scalar.h"
#include "support/checked.h"
#include "support/internal_error.h"

namespace fc {
namespace {

char dtypePrefix(DType t) {
  switch (t) {
    case DType::Bool: return 'b';
    case DType::Double: return 'd';
    case DType::Float:
    case DType::Half:
    case DType::BFloat16:
    case DType::Float8_e4m3fn:
    case DType::Float8_e5m2:
    case DType::Float8_e8m0fnu:
    case DType::Float4_e2m1fn: return 'f';
    case DType::ComplexFloat:
    case DType::ComplexDouble: return 'c';  // csrc/type.cpp:1676-1678 @ 81c4b22fd typePrefix
    default: return 'i';
  }
}

// The constants an importer knows: literals it folded.
class BuilderValues final : public KnownValues {
 public:
  explicit BuilderValues(const ImportBuilder& b) : b_(b) {}
  std::optional<int64_t> intValue(ScalarId s) const override { return b_.constValue(s); }

 private:
  const ImportBuilder& b_;
};

}  // namespace

std::string importedMeshProblem(const std::vector<int64_t>& devices, DiagCode& code) {
  code = DiagCode::BadMesh;
  if (devices.empty()) {
    code = DiagCode::EmptyMesh;
    return "the device mesh has no devices";
  }
  std::vector<int64_t> sorted = devices;
  std::sort(sorted.begin(), sorted.end());
  if (sorted.front() < 0) return "the device mesh has the negative device " + std::to_string(sorted.front());
  auto dup = std::adjacent_find(sorted.begin(), sorted.end());
  if (dup != sorted.end()) return "the device mesh lists device " + std::to_string(*dup) + " twice";
  return {};
}

ScalarId ImportBuilder::freshSymbol() {
  return f_.addSymbol("i" + std::to_string(next_other_++), DType::Index);
}

ScalarId ImportBuilder::scalarInput(DType dtype) {
  return f_.addScalarInput(std::string(1, dtypePrefix(dtype)) + std::to_string(next_other_++), dtype);
}

ScalarId ImportBuilder::unknownScalar(DType dtype) {
  return f_.addSymbol(std::string(1, dtypePrefix(dtype)) + std::to_string(next_other_++), dtype);
}

ScalarId ImportBuilder::uncomputedScalar(DType dtype, std::string call, std::span<const ScalarId> operands) {
  ScalarId s = unknownScalar(dtype);
  markUncomputedScalar(f_, s, std::move(call));
  markUncomputedLeaves(f_, s, operands);
  return s;
}

ScalarId ImportBuilder::constInt(int64_t v, DType dtype) { return f_.addConstInt(v, dtype); }
ScalarId ImportBuilder::constFloat(double v, DType dtype) { return f_.addConstFloat(v, dtype); }
ScalarId ImportBuilder::constComplex(double re, double im, DType dtype) {
  return f_.addConstComplex(re, im, dtype);
}
ScalarId ImportBuilder::constBool(bool v) { return f_.addConstBool(v); }

std::optional<int64_t> ImportBuilder::constValue(ScalarId s) const { return constIntOf(f_, s); }

std::optional<ScalarId> ImportBuilder::castScalar(ScalarId s, DType to, bool& out_of_range) {
  out_of_range = false;
  const Scalar& sc = f_.scalars[s];
  const bool symbolic_integer = isIntegral(sc.dtype) && sc.kind != ScalarKind::Constant;
  if (std::optional<ConstValue> value = symbolic_integer ? std::nullopt : constantScalarValue(f_, s)) {
    const ConstValue cv = *value;
    const double as_float = cv.kind == ConstValue::Kind::Float ? cv.f : static_cast<double>(cv.i);
    if (to == DType::Bool) return constBool(cv.kind == ConstValue::Kind::Float ? cv.f != 0 : cv.i != 0);
    if (isComplex(to))  // a complex constant keeps its imaginary part
      return constComplex(as_float, isComplex(sc.dtype) && cv.kind == ConstValue::Kind::Float ? cv.im : 0.0,
                          to);
    if (isFloatingPoint(to)) return constFloat(as_float, to);
    std::optional<int64_t> i = cv.i;
    if (cv.kind == ConstValue::Kind::Float) i = checkedTruncToInt64(cv.f);
    if (!i) {
      out_of_range = true;
      return std::nullopt;
    }
    return constInt(*i, to);
  }
  if (isIntegral(sc.dtype) && isIntegral(to)) return s;
  return std::nullopt;
}

ScalarId ImportBuilder::derived(ScalarOp op, ScalarId a, ScalarId b, std::optional<DType> dtype) {
  auto ca = constValue(a);
  auto cb = b == kNone ? std::optional<int64_t>() : constValue(b);
  if (ca && (op == ScalarOp::Neg || cb)) {
    std::optional<int64_t> r = foldIntScalarOp(op, *ca, cb.value_or(0));
    if (r) return constInt(*r, f_.scalars[a].dtype);
  }
  // x + 0, x * 1, x / 1 keep x.
  if (cb && ((op == ScalarOp::Add || op == ScalarOp::Sub) && *cb == 0)) return a;
  if (cb && ((op == ScalarOp::Mul || op == ScalarOp::Div || op == ScalarOp::CeilDiv) && *cb == 1)) return a;
  if (ca && op == ScalarOp::Add && *ca == 0) return b;
  if (ca && op == ScalarOp::Mul && *ca == 1) return b;
  return f_.addDerived(op, a, b, dtype.value_or(f_.scalars[a].dtype));
}

AxisId ImportBuilder::axis(IterType iter, ScalarId extent, ScalarId expanded) {
  return f_.addAxis(next_axis_++, iter, ParallelType::Serial, extent, expanded);
}

TensorId ImportBuilder::tensor(DType dtype, std::vector<AxisId> logical) {
  return f_.addTensor("T" + std::to_string(next_tensor_++), dtype, MemoryType::Local, std::move(logical));
}

// [Trivial reductions] of csrc/ops/arith.cpp reductionOp (:1389-1460 @ 81c4b22fd; the same rule
// since the repository's first commit, 831821f3a, 2023-03-12) and Welford (:1631-1680): the
// reduced axes that are Broadcast of extent 1 and not expanded are squeezed first, and only the
// others are reduced; reducing nothing else, the squeeze is the result (broadcast back with
// keepdim). An expanded Broadcast axis stays a reduction here (its squeeze, and Add's product with
// the expanded extent, came with #1679 on 2024-02-02, which the builder does not date). Var and
// VarMean reducing only such axes (Welford's squeeze and full_like path), a sum or prod that
// would change the dtype, and an axis already parallelized over devices when the op is built
// (whose squeeze fusecheck's communication lowering does not model) are built as before: nothing
// is returned and `err` stays empty.
std::optional<std::vector<TensorId>> ImportBuilder::trivialReduction(OpKind k, TensorId t, Attrs& attrs,
                                                                     std::string& err) {
  if (k == OpKind::Welford) return std::nullopt;  // WelfordRaw reduces every axis it is given
  const std::vector<AxisId> ax = nonReduction(t);
  std::vector<bool> trivial(ax.size(), false);
  std::vector<int64_t> kept;
  bool any = false;
  for (int64_t d : attrs.dims) {
    if (d < 0 || static_cast<size_t>(d) >= ax.size()) return std::nullopt;  // the rule reports it
    const Axis& a = f_.axes[ax[static_cast<size_t>(d)]];
    if (a.iter == IterType::Broadcast && a.expanded == kNone && constValue(a.extent) == 1 &&
        !isDeviceDim(a.parallel)) {
      trivial[static_cast<size_t>(d)] = any = true;
    } else {
      kept.push_back(d);
    }
  }
  if (!any) return std::nullopt;
  const DType in_dt = f_.tensors[t].dtype;
  if (kept.empty()) {
    if (k == OpKind::Var || k == OpKind::VarMean) return std::nullopt;
    const bool retyped =
        (attrs.dtype && *attrs.dtype != in_dt) ||
        (k == OpKind::Sum && (isIntegral(in_dt) || in_dt == DType::Bool) && in_dt != DType::Int) ||
        (k == OpKind::Mean && !isFloatingPoint(in_dt));
    if (retyped) return std::nullopt;
  }
  Attrs sq;
  for (size_t d = 0; d < trivial.size(); ++d)
    if (trivial[d]) sq.dims.push_back(static_cast<int64_t>(d));
  auto squeezed = op(OpKind::Squeeze, {ValueRef::tensor(t)}, sq, err);
  if (!squeezed) return squeezed;
  if (kept.empty()) {
    if (!attrs.keepdim) return squeezed;
    Attrs bc;
    bc.flags = trivial;
    return op(OpKind::Broadcast, {ValueRef::tensor((*squeezed)[0])}, bc, err);
  }
  // The kept dims renumbered on the squeezed tensor; keepdim's restored axes come back through a
  // broadcast after the reduction, as reductionOp does.
  Attrs r = attrs;
  r.dims.clear();
  for (int64_t d : kept) r.dims.push_back(d - std::count(trivial.begin(), trivial.begin() + d, true));
  const bool keep = attrs.keepdim;
  r.keepdim = keep;
  auto out = op(k, {ValueRef::tensor((*squeezed)[0])}, r, err);
  if (!out || !keep) return out;
  Attrs bc;
  bc.flags = trivial;
  std::vector<TensorId> res;
  for (TensorId o : *out) {
    auto b = op(OpKind::Broadcast, {ValueRef::tensor(o)}, bc, err);
    if (!b) return b;
    res.push_back((*b)[0]);
  }
  return res;
}

std::vector<AxisId> ImportBuilder::nonReduction(TensorId t) const {
  std::vector<AxisId> r;
  for (AxisId a : f_.tensors[t].logical)
    if (f_.axes[a].iter != IterType::Reduction) r.push_back(a);
  return r;
}

AxisId ImportBuilder::cloneAxis(AxisId a) {
  Axis src = f_.axes[a];
  IterType it = src.iter == IterType::Reduction ? IterType::Iteration : src.iter;
  return axis(it, src.extent, src.expanded);
}

// Elementwise operands of lower rank get leading broadcast axes, each through a broadcast expr
// of its own in operand order, as nvFuser's ops::maybeBroadcast does (csrc/ops/utils.cpp:511-531,
// with maybe_broadcast_inner_to_rank :21-33 @81c4b22fd; called by binaryOp, where, lerp, addcmul,
// ...: csrc/ops/arith.cpp:753-800, 1843, 1894).
bool ImportBuilder::maybeBroadcast(std::vector<ValueRef>& in, std::string& err) {
  size_t rank = 0;
  for (const ValueRef& v : in)
    if (v.isTensor() && v.id < f_.tensors.size()) rank = std::max(rank, nonReduction(v.id).size());
  for (ValueRef& v : in) {
    if (!v.isTensor() || v.id >= f_.tensors.size()) continue;
    size_t r = nonReduction(v.id).size();
    if (r == rank) continue;
    Attrs b;
    b.flags.assign(rank, false);
    std::fill(b.flags.begin(), b.flags.begin() + static_cast<long>(rank - r), true);
    auto outs = op(OpKind::Broadcast, {v}, std::move(b), err);
    if (!outs) return false;
    v = ValueRef::tensor((*outs)[0]);
  }
  return true;
}

std::optional<std::vector<TensorId>> ImportBuilder::op(OpKind k, std::vector<ValueRef> in, Attrs attrs,
                                                       std::string& err) {
  const OpInfo& info = opInfo(k);
  int n_in = static_cast<int>(in.size());
  if (n_in < info.min_inputs || (info.max_inputs >= 0 && n_in > info.max_inputs)) {
    err = std::string(info.name) + " takes " + std::to_string(info.min_inputs) +
          (info.max_inputs == info.min_inputs ? "" : " or more") + " operand(s), got " + std::to_string(n_in);
    return std::nullopt;
  }
  if (info.category == OpCategory::Binary || info.category == OpCategory::Compare ||
      info.category == OpCategory::Ternary)
    if (!maybeBroadcast(in, err)) return std::nullopt;
  normalizeAttrs(f_, k, in, attrs);
  if (info.category == OpCategory::Reduction && !in.empty() && in[0].isTensor()) {
    if (auto out = trivialReduction(k, in[0].id, attrs, err); out || !err.empty()) return out;
  }
  Expr x{k, std::move(in), {}, std::move(attrs)};
  ShapeRule rule;
  outputShape(f_, x, BuilderValues(*this), RuleMode::Build, rule);
  if (!rule.ok()) {
    err = describeIssue(k, rule.issues.front(), x.attrs);
    return std::nullopt;
  }
  if (k == OpKind::Cast && !x.attrs.dtype) {
    err = "cast needs a dtype";
    return std::nullopt;
  }
  const DType dt = outputDType(f_, x, 0).dtype.value_or(DType::Float);

  // Operand axis `m` of the rule.
  auto operandAxis = [&](const AxisFrom& m) { return nonReduction(x.inputs[m.operand].id)[m.pos]; };
  auto build = [&](std::vector<AxisId>& out_axes, const std::vector<AxisId>* root) {
    for (size_t j = 0; j < rule.axes.size(); ++j) {
      const AxisRule& r = rule.axes[j];
      auto maps = rule.mapsOf(r);
      if (root) {  // permute: the logical axes are the root's, reordered
        out_axes.push_back((*root)[static_cast<size_t>(rule.perm[j])]);
        continue;
      }
      ScalarId ext = kNone;
      switch (r.extent) {
        case AxisRule::Extent::Operand: out_axes.push_back(cloneAxis(operandAxis(maps[0]))); continue;
        case AxisRule::Extent::One: out_axes.push_back(axis(IterType::Broadcast, constInt(1))); continue;
        case AxisRule::Extent::Expanded:
          out_axes.push_back(axis(IterType::Broadcast, constInt(1), x.attrs.shape[r.attr]));
          continue;
        case AxisRule::Extent::Reduced:
          out_axes.push_back(axis(IterType::Reduction, f_.axes[operandAxis(maps[0])].extent));
          continue;
        case AxisRule::Extent::Shape: out_axes.push_back(axis(r.make, x.attrs.shape[r.attr])); continue;
        case AxisRule::Extent::Sliced: {
          SliceRange& sr = x.attrs.ranges[r.attr];
          if (sr.start == kNone) sr.start = constInt(0);
          if (sr.stop == kNone) sr.stop = f_.axes[operandAxis(maps[0])].extent;
          if (sr.step == kNone) sr.step = constInt(1);
          if (r.whole) {
            out_axes.push_back(cloneAxis(operandAxis(maps[0])));
            continue;
          }
          ext = derived(ScalarOp::CeilDiv, derived(ScalarOp::Sub, sr.stop, sr.start), sr.step);
          if (auto c = constValue(ext); c && *c < 0) ext = constInt(0);
          break;
        }
        case AxisRule::Extent::Padded: {
          auto i = static_cast<size_t>(r.attr);
          ext = derived(ScalarOp::Add,
                        derived(ScalarOp::Add, x.attrs.pad[2 * i], f_.axes[operandAxis(maps[0])].extent),
                        x.attrs.pad[2 * i + 1]);
          break;
        }
        case AxisRule::Extent::Concat:
          ext = f_.axes[operandAxis(maps[0])].extent;
          for (size_t m = 1; m < maps.size(); ++m)
            ext = derived(ScalarOp::Add, ext, f_.axes[operandAxis(maps[m])].extent);
          break;
        case AxisRule::Extent::Reshaped:
          ext = x.attrs.shape[r.attr];
          if (constValue(ext) == -1) {
            ScalarId numel = constInt(1);
            for (AxisId a : nonReduction(x.inputs[0].id))
              numel = derived(ScalarOp::Mul, numel, f_.axes[a].extent);
            ScalarId others = constInt(1);
            for (size_t o = 0; o < x.attrs.shape.size(); ++o)
              if (static_cast<int>(o) != r.attr) others = derived(ScalarOp::Mul, others, x.attrs.shape[o]);
            ext = derived(ScalarOp::Div, numel, others);
          }
          break;
      }
      AxisId na = axis(r.make, ext);
      f_.axes[na].rfactor = true;  // slice, pad, cat and reshape outputs are rfactor products
      out_axes.push_back(na);
    }
  };

  std::vector<AxisId> out_root, out_axes;
  if (!rule.perm.empty()) {
    for (const AxisFrom& m : rule.root_from) out_root.push_back(cloneAxis(operandAxis(m)));
    build(out_axes, &out_root);
  } else {
    build(out_axes, nullptr);
    for (const AxisFrom& m : rule.root_from) out_root.push_back(cloneAxis(operandAxis(m)));
  }
  TensorId out = tensor(dt, out_axes);
  std::vector<TensorId> outs{out};
  if (!out_root.empty()) {
    f_.tensors[out].root = out_root;
    for (AxisId a : out_root) f_.axes[a].owner = out;
  }
  for (size_t o = 1; o < rule.outputs; ++o) {
    std::vector<AxisId> more;
    build(more, nullptr);
    outs.push_back(tensor(outputDType(f_, x, o).dtype.value_or(dt), more));
  }
  f_.addExpr(k, std::move(x.inputs), outs, std::move(x.attrs));
  return outs;
}

std::optional<TensorId> ImportBuilder::opaqueLike(std::string name, OpKind like,
                                                  std::vector<ValueRef> like_in, std::vector<ValueRef> in,
                                                  DType dtype, std::string& error) {
  auto outs = op(like, std::move(like_in), {}, error);
  if (!outs) return std::nullopt;
  FC_CHECK(outs->size() == 1, "opaqueLike: op " + std::string(opName(like)) + " has several outputs");
  // op() appended `like`'s expr last: it becomes the opaque op, its output kept.
  Expr& e = f_.exprs.back();
  e.op = OpKind::Opaque;
  e.inputs = std::move(in);
  e.attrs = Attrs{};
  e.attrs.name = std::move(name);
  f_.tensors[outs->front()].dtype = dtype;
  return outs->front();
}

std::vector<TensorId> ImportBuilder::opaque(std::string name, std::vector<ValueRef> in,
                                            std::vector<TensorId> outs, std::vector<int64_t> dims) {
  Attrs attrs;
  attrs.name = std::move(name);
  attrs.dims = std::move(dims);
  f_.addExpr(OpKind::Opaque, std::move(in), outs, std::move(attrs));
  return outs;
}

void ImportBuilder::finish() {
  for (Tensor& t : f_.tensors) t.memory = MemoryType::Local;
  for (const ValueRef& v : f_.inputs)
    if (v.isTensor() && v.id < f_.tensors.size()) f_.tensors[v.id].memory = MemoryType::Global;
  for (TensorId t : f_.outputs)
    if (t < f_.tensors.size()) f_.tensors[t].memory = MemoryType::Global;
  // A mesh set once every op was built is one set after the definition.
  for (Tensor& t : f_.tensors)
    if (t.mesh_set_at >= f_.exprs.size()) t.mesh_set_at = kMeshSetAfterDefinition;
}

void ImportBuilder::meshEveryTensorLikeItsInputs() {
  for (const Expr& e : f_.exprs) {
    MeshId m = kNone;
    for (const ValueRef& v : e.inputs)
      if (v.isTensor() && f_.tensors[v.id].mesh != kNone) {
        m = f_.tensors[v.id].mesh;
        break;
      }
    if (m == kNone) continue;
    for (TensorId o : e.outputs)
      if (f_.tensors[o].mesh == kNone) f_.tensors[o].mesh = m;
  }
}

void ImportBuilder::splitLoop(TensorId t, size_t i, ScalarId factor, bool inner_split) {
  std::vector<AxisId> loop = f_.tensors[t].loopDomain();
  FC_CHECK(i < loop.size(), "split of a loop axis out of range");
  AxisId src = loop[i];
  ScalarId rest = derived(ScalarOp::CeilDiv, f_.axes[src].extent, factor);
  AxisId outer = axis(f_.axes[src].iter, inner_split ? rest : factor);
  AxisId inner = axis(f_.axes[src].iter, inner_split ? factor : rest);
  f_.axes[outer].owner = t;
  f_.axes[inner].owner = t;
  Tensor& tv = f_.tensors[t];
  tv.transforms.push_back({.kind = AxisTransform::Kind::Split,
                           .in = src,
                           .out = outer,
                           .out2 = inner,
                           .factor = factor,
                           .inner_split = inner_split});
  loop.erase(loop.begin() + static_cast<std::ptrdiff_t>(i));
  loop.insert(loop.begin() + static_cast<std::ptrdiff_t>(i), {outer, inner});
  tv.loop = std::move(loop);
}

void ImportBuilder::mergeLoop(TensorId t, size_t a, size_t b) {
  std::vector<AxisId> loop = f_.tensors[t].loopDomain();
  FC_CHECK(a < loop.size() && b < loop.size() && a != b, "merge of loop axes out of range");
  AxisId x = loop[a], y = loop[b];
  AxisId out = axis(f_.axes[x].iter, derived(ScalarOp::Mul, f_.axes[x].extent, f_.axes[y].extent));
  f_.axes[out].owner = t;
  Tensor& tv = f_.tensors[t];
  tv.transforms.push_back({.kind = AxisTransform::Kind::Merge, .in = x, .in2 = y, .out = out});
  loop.erase(loop.begin() + static_cast<std::ptrdiff_t>(std::max(a, b)));
  loop[std::min(a, b)] = out;
  tv.loop = std::move(loop);
}

bool ImportBuilder::reorderLoop(TensorId t, const std::vector<std::pair<int64_t, int64_t>>& old2new,
                                std::string& why) {
  std::vector<AxisId> loop = f_.tensors[t].loopDomain();
  const auto n = static_cast<int64_t>(loop.size());
  std::vector<int64_t> to(loop.size(), -1);
  std::vector<char> taken(loop.size(), 0), placed(loop.size(), 0);
  for (auto [from, dst] : old2new) {
    if (from < 0) from += n;
    if (dst < 0) dst += n;
    if (from < 0 || dst < 0 || from >= n || dst >= n || taken[static_cast<size_t>(from)] ||
        placed[static_cast<size_t>(dst)]) {
      why = "reorder: a bad pair {" + std::to_string(from) + ", " + std::to_string(dst) + "} for " +
            std::to_string(n) + " loop axes";
      return false;
    }
    to[static_cast<size_t>(from)] = dst;
    taken[static_cast<size_t>(from)] = placed[static_cast<size_t>(dst)] = 1;
  }
  // The others keep their relative order in the free places.
  size_t slot = 0;
  for (size_t i = 0; i < loop.size(); ++i) {
    if (taken[i]) continue;
    while (slot < loop.size() && placed[slot]) ++slot;
    to[i] = static_cast<int64_t>(slot);
    placed[slot] = 1;
  }
  std::vector<AxisId> next(loop.size(), kNone);
  for (size_t i = 0; i < loop.size(); ++i) next[static_cast<size_t>(to[i])] = loop[i];
  f_.tensors[t].loop = std::move(next);
  return true;
}

}  // namespace fc
