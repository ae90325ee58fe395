// The math of every op kind on host tensors (see op_eval.h).
#include "exec/op_eval.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

#include "exec/dtype_convert.h"
#include "exec/exec_error.h"
#include "ir/op_rules.h"
#include "support/checked.h"
#include "support/internal_error.h"

namespace fc::exec {
namespace {

constexpr double kExactIntLimit = 9007199254740992.0;  // 2^53
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct Ev {
  const OpContext& ctx;
  const Fusion& f;
  ExprId id;
  const Expr& e;
  const std::vector<const HostTensor*>& in;
  Place where;
  Shape want;  // the output's sizes under the op's shape rule (ir/op_rules.h)

  [[noreturn]] void bad(const std::string& msg) const { fail(std::string(opName(e.op)) + ": " + msg, where); }
  DType outDType(size_t i = 0) const { return f.tensors[e.outputs.at(i)].dtype; }
  HostTensor make(const Shape& s, size_t out = 0) const { return HostTensor(outDType(out), s, ctx.budget); }
  const HostTensor& tensorIn(size_t i) const {
    if (i >= in.size() || !in[i]) bad("operand " + std::to_string(i) + " must be a tensor");
    return *in[i];
  }
  double scalarIn(size_t i) const {
    std::string why;
    auto v = ctx.scalars->eval(e.inputs[i].id, &why);
    if (!v) bad("cannot evaluate scalar operand " + scalarLabel(f, e.inputs[i].id) + ": " + why);
    return v->asDouble();
  }
  int64_t intAttr(ScalarId s, const char* what) const {
    std::string why;
    auto v = ctx.scalars->evalInt(s, &why);
    if (!v) bad(std::string("cannot evaluate ") + what + " " + scalarLabel(f, s) + ": " + why);
    return *v;
  }
  double floatAttr(ScalarId s, const char* what) const {
    std::string why;
    auto v = ctx.scalars->eval(s, &why);
    if (!v) bad(std::string("cannot evaluate ") + what + " " + scalarLabel(f, s) + ": " + why);
    return v->asDouble();
  }
  // Attribute shape entries (global), mapped to the output's shape; -1 kept.
  Shape attrShape(size_t out = 0) const {
    Shape s;
    for (ScalarId x : e.attrs.shape) s.push_back(intAttr(x, "shape entry"));
    Shape pos = s;
    for (auto& v : pos)
      if (v < 0) v = 1;
    Shape loc = ctx.localize ? ctx.localize(e.outputs.at(out), pos) : pos;
    for (size_t i = 0; i < s.size(); ++i)
      if (s[i] >= 0) s[i] = loc[i];
    return s;
  }
  int64_t normDim(int64_t d, int64_t rank) const {
    int64_t r = d < 0 ? d + rank : d;
    if (r < 0 || r >= rank)
      bad("dim " + std::to_string(d) + " is out of range for rank " + std::to_string(rank));
    return r;
  }
};

bool isInt(DType t) { return isIntegral(t); }

// ---------------------------------------------------------------- elementwise

// An operand of an elementwise op: a tensor or a scalar.
struct Operand {
  const HostTensor* t = nullptr;
  double s = 0;
  bool integral = false;
};

Shape broadcastShapes(const Ev& ev, const std::vector<Operand>& ops) {
  size_t rank = 0;
  for (const Operand& o : ops)
    if (o.t) rank = std::max(rank, static_cast<size_t>(o.t->rank()));
  Shape out(rank, 1);
  for (const Operand& o : ops) {
    if (!o.t) continue;
    size_t off = rank - o.t->rank();
    for (int64_t d = 0; d < o.t->rank(); ++d) {
      int64_t a = out[off + d], b = o.t->size(d);
      if (a == b || b == 1) continue;
      if (a == 1) {
        out[off + d] = b;
        continue;
      }
      ev.bad("operand shapes " + shapeString(ops[0].t ? ops[0].t->shape() : Shape{}) + " and " +
             shapeString(o.t->shape()) + " do not broadcast");
    }
  }
  return out;
}

// `out_shape`: the rule's shape for the op's own output, or the operands'
// broadcast for an intermediate (linear's bias add). Every operand must fit
// it: equal sizes, or 1 (a broadcast), right-aligned.
template <typename F>
HostTensor elementwise(const Ev& ev, const std::vector<Operand>& ops, const Shape& out_shape, F fn) {
  for (const Operand& o : ops) {
    if (!o.t) continue;
    bool fits = o.t->rank() <= static_cast<int64_t>(out_shape.size());
    for (int64_t d = 0; fits && d < o.t->rank(); ++d) {
      int64_t k = o.t->size(d), n = out_shape[out_shape.size() - o.t->rank() + d];
      fits = k == n || k == 1;
    }
    if (!fits)
      ev.bad("operand shape " + shapeString(o.t->shape()) + " does not fit the output shape " +
             shapeString(out_shape));
  }
  HostTensor out = ev.make(out_shape);
  size_t rank = out_shape.size(), n_ops = ops.size();
  // Per operand strides aligned to the output (0 on broadcast dims).
  std::vector<std::vector<int64_t>> st(n_ops, std::vector<int64_t>(rank, 0));
  for (size_t k = 0; k < n_ops; ++k) {
    if (!ops[k].t) continue;
    auto s = ops[k].t->strides();
    size_t off = rank - ops[k].t->rank();
    for (int64_t d = 0; d < ops[k].t->rank(); ++d) st[k][off + d] = ops[k].t->size(d) == 1 ? 0 : s[d];
  }
  std::vector<int64_t> idx(rank, 0), offs(n_ops, 0);
  std::vector<double> args(n_ops);
  int64_t n = out.numel();
  for (int64_t i = 0; i < n; ++i) {
    for (size_t k = 0; k < n_ops; ++k) args[k] = ops[k].t ? (*ops[k].t)[offs[k]] : ops[k].s;
    out[i] = fn(args);
    for (size_t d = rank; d-- > 0;) {
      if (++idx[d] < out_shape[d]) {
        for (size_t k = 0; k < n_ops; ++k) offs[k] += st[k][d];
        break;
      }
      for (size_t k = 0; k < n_ops; ++k) offs[k] -= st[k][d] * (out_shape[d] - 1);
      idx[d] = 0;
    }
  }
  return out;
}

std::vector<Operand> operands(const Ev& ev) {
  std::vector<Operand> ops;
  for (size_t i = 0; i < ev.e.inputs.size(); ++i) {
    Operand o;
    if (ev.e.inputs[i].isTensor()) {
      o.t = &ev.tensorIn(i);
      o.integral = isInt(o.t->dtype()) || o.t->dtype() == DType::Bool;
    } else {
      o.s = ev.scalarIn(i);
      const Scalar& sc = ev.f.scalars[ev.e.inputs[i].id];
      o.integral = !isFloatingPoint(sc.dtype) && std::trunc(o.s) == o.s;
    }
    ops.push_back(o);
  }
  return ops;
}

double gelu(double x, bool tanh_approx) {
  if (tanh_approx) {
    const double k = std::sqrt(2.0 / M_PI);
    return 0.5 * x * (1.0 + std::tanh(k * (x + 0.044715 * x * x * x)));
  }
  return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
}

double unaryFn(OpKind op, double x, bool tanh_approx) {
  switch (op) {
    case OpKind::Neg: return -x;
    case OpKind::Abs: return std::fabs(x);
    case OpKind::Exp: return std::exp(x);
    case OpKind::Log: return std::log(x);
    case OpKind::Sqrt: return std::sqrt(x);
    case OpKind::Rsqrt: return 1.0 / std::sqrt(x);
    case OpKind::Tanh: return std::tanh(x);
    case OpKind::Sigmoid: return 1.0 / (1.0 + std::exp(-x));
    case OpKind::Relu: return std::isnan(x) ? x : (x > 0 ? x : 0.0);
    case OpKind::Gelu: return gelu(x, tanh_approx);
    case OpKind::Silu: return x / (1.0 + std::exp(-x));
    case OpKind::Reciprocal: return 1.0 / x;
    case OpKind::Sin: return std::sin(x);
    case OpKind::Cos: return std::cos(x);
    case OpKind::Erf: return std::erf(x);
    case OpKind::Floor: return std::floor(x);
    case OpKind::Ceil: return std::ceil(x);
    case OpKind::LogicalNot: return x == 0 ? 1.0 : 0.0;
    default:
      // An ops.def row that neither has arithmetic here nor the NotExecuted flag (which makes `run`
      // refuse the fusion first, FC0909): a bug in fusecheck, never a value.
      internalError(
          __FILE__, __LINE__,
          "unary op " + std::string(opName(op)) + " has no arithmetic and is not flagged NotExecuted");
  }
}

HostTensor binary(const Ev& ev) {
  std::vector<Operand> ops = operands(ev);
  DType od = ev.outDType();
  bool int_math = isInt(od) && ops[0].integral && ops[1].integral;
  OpKind op = ev.e.op;
  auto checkInt = [&](double r) {
    if (int_math && std::fabs(r) > kExactIntLimit)
      ev.bad("integer result " + std::to_string(r) +
             " is beyond 2^53, which the CPU reference cannot hold exactly");
    return r;
  };
  return elementwise(ev, ops, ev.want, [&](const std::vector<double>& a) -> double {
    double x = a[0], y = a[1];
    switch (op) {
      case OpKind::Add: return checkInt(x + y);
      case OpKind::Sub: return checkInt(x - y);
      case OpKind::Mul: return checkInt(x * y);
      case OpKind::Div:
        if (int_math) {
          if (y == 0) ev.bad("integer division by zero");
          return std::trunc(x / y);  // exact: |x|, |y| <= 2^53
        }
        return x / y;
      case OpKind::Pow: return checkInt(std::pow(x, y));
      case OpKind::Maximum: return (std::isnan(x) || std::isnan(y)) ? kNaN : std::max(x, y);
      case OpKind::Minimum: return (std::isnan(x) || std::isnan(y)) ? kNaN : std::min(x, y);
      case OpKind::Eq: return x == y;
      case OpKind::Ne: return x != y;
      case OpKind::Lt: return x < y;
      case OpKind::Le: return x <= y;
      case OpKind::Gt: return x > y;
      case OpKind::Ge: return x >= y;
      case OpKind::LogicalAnd: return (x != 0) && (y != 0);
      case OpKind::LogicalOr: return (x != 0) || (y != 0);
      default: ev.bad("not a binary op");
    }
  });
}

// ---------------------------------------------------------------- shape ops

// `x`'s values in row-major order under a new shape of as many elements
// (broadcast, squeeze, reshape, set and cast copy them unchanged).
HostTensor withShape(const Ev& ev, const HostTensor& x, const Shape& shape) {
  HostTensor r = ev.make(shape);
  std::copy(x.data(), x.data() + x.numel(), r.data());
  return r;
}

// Copies `src` into `out` where out index = mapping of src index.
HostTensor gatherBy(const Ev& ev, const HostTensor& src, const Shape& out_shape,
                    const std::vector<int64_t>& src_stride_per_out_dim, int64_t base = 0) {
  HostTensor out = ev.make(out_shape);
  size_t rank = out_shape.size();
  std::vector<int64_t> idx(rank, 0);
  int64_t off = base, n = out.numel();
  for (int64_t i = 0; i < n; ++i) {
    out[i] = src[off];
    for (size_t d = rank; d-- > 0;) {
      if (++idx[d] < out_shape[d]) {
        off += src_stride_per_out_dim[d];
        break;
      }
      off -= src_stride_per_out_dim[d] * (out_shape[d] - 1);
      idx[d] = 0;
    }
  }
  return out;
}

HostTensor expandTo(const Ev& ev, const HostTensor& x, const Shape& target) {
  // x is already aligned (same rank as target, trailing dims).
  size_t rank = target.size();
  FC_CHECK(static_cast<size_t>(x.rank()) <= rank, "expandTo rank");
  size_t off = rank - x.rank();
  std::vector<int64_t> st(rank, 0);
  auto xs = x.strides();
  for (int64_t d = 0; d < x.rank(); ++d) {
    int64_t a = x.size(d), b = target[off + d];
    if (a == b)
      st[off + d] = a == 1 ? 0 : xs[d];
    else if (a == 1)
      st[off + d] = 0;
    else
      ev.bad("cannot expand size " + std::to_string(a) + " to " + std::to_string(b));
  }
  return gatherBy(ev, x, target, st);
}

HostTensor broadcastOp(const Ev& ev) {
  const HostTensor& x = ev.tensorIn(0);
  const auto& flags = ev.e.attrs.flags;
  int64_t kept = std::count(flags.begin(), flags.end(), false);
  if (kept != x.rank())
    ev.bad("flags keep " + std::to_string(kept) + " axes but the input has rank " + std::to_string(x.rank()));
  Shape out;
  int64_t k = 0;
  for (bool b : flags) out.push_back(b ? 1 : x.size(k++));
  return withShape(ev, x, out);
}

HostTensor broadcastInDim(const Ev& ev) {
  const HostTensor& x = ev.tensorIn(0);
  Shape target = ev.attrShape();
  const auto& dims = ev.e.attrs.dims;
  if (static_cast<int64_t>(dims.size()) != x.rank())
    ev.bad("broadcast_dims has " + std::to_string(dims.size()) + " entries for an input of rank " +
           std::to_string(x.rank()));
  std::vector<int64_t> st(target.size(), 0);
  auto xs = x.strides();
  int64_t prev = -1;
  for (size_t i = 0; i < dims.size(); ++i) {
    int64_t d = ev.normDim(dims[i], static_cast<int64_t>(target.size()));
    if (d <= prev) ev.bad("broadcast_dims must be increasing");
    prev = d;
    if (target[d] < 0) target[d] = x.size(i);
    if (x.size(i) == target[d])
      st[d] = x.size(i) == 1 ? 0 : xs[i];
    else if (x.size(i) != 1)
      ev.bad("input size " + std::to_string(x.size(i)) + " does not fit output size " +
             std::to_string(target[d]));
  }
  for (auto& t : target)
    if (t < 0) ev.bad("shape entry -1 is only allowed on mapped dims");
  return gatherBy(ev, x, target, st);
}

HostTensor expandOp(const Ev& ev) {
  const HostTensor& x = ev.tensorIn(0);
  Shape target = ev.attrShape();
  if (static_cast<int64_t>(target.size()) < x.rank()) ev.bad("shape has fewer entries than the input's rank");
  size_t off = target.size() - x.rank();
  for (size_t d = 0; d < target.size(); ++d) {
    if (target[d] >= 0) continue;
    if (d < off) ev.bad("-1 is not allowed for a new leading dim");
    target[d] = x.size(d - off);
  }
  return expandTo(ev, x, target);
}

HostTensor squeezeOp(const Ev& ev) {
  const HostTensor& x = ev.tensorIn(0);
  std::vector<bool> drop(x.rank(), false);
  for (int64_t d : ev.e.attrs.dims) {
    int64_t n = ev.normDim(d, x.rank());
    if (x.size(n) != 1)
      ev.bad("dim " + std::to_string(n) + " has size " + std::to_string(x.size(n)) + ", not 1");
    drop[n] = true;
  }
  Shape out;
  for (int64_t d = 0; d < x.rank(); ++d)
    if (!drop[d]) out.push_back(x.size(d));
  return withShape(ev, x, out);
}

HostTensor permuteOp(const Ev& ev) {
  const HostTensor& x = ev.tensorIn(0);
  const auto& dims = ev.e.attrs.dims;
  if (static_cast<int64_t>(dims.size()) != x.rank()) ev.bad("dims is not a permutation of the input's axes");
  std::vector<bool> seen(x.rank(), false);
  Shape out;
  std::vector<int64_t> st;
  auto xs = x.strides();
  for (int64_t d : dims) {
    int64_t n = ev.normDim(d, x.rank());
    if (seen[n]) ev.bad("dims repeats axis " + std::to_string(n));
    seen[n] = true;
    out.push_back(x.size(n));
    st.push_back(xs[n]);
  }
  return gatherBy(ev, x, out, st);
}

HostTensor reshapeOp(const Ev& ev) {
  const HostTensor& x = ev.tensorIn(0);
  Shape target = ev.attrShape();
  int64_t infer = -1, known = 1;
  for (size_t d = 0; d < target.size(); ++d) {
    if (target[d] < 0) {
      if (infer >= 0) ev.bad("more than one -1 in the new shape");
      infer = static_cast<int64_t>(d);
      continue;
    }
    auto m = checkedMul(known, target[d]);
    if (!m) ev.bad("new shape overflows");
    known = *m;
  }
  if (infer >= 0) {
    if (known == 0 || x.numel() % known != 0)
      ev.bad("cannot infer -1: " + std::to_string(x.numel()) + " elements do not divide by " +
             std::to_string(known));
    target[infer] = x.numel() / known;
    known = x.numel();
  }
  if (known != x.numel())
    ev.bad("input " + shapeString(x.shape()) + " has " + std::to_string(x.numel()) + " elements; new shape " +
           shapeString(target) + " has " + std::to_string(known));
  return withShape(ev, x, target);
}

HostTensor sliceOp(const Ev& ev) {
  const HostTensor& x = ev.tensorIn(0);
  const auto& ranges = ev.e.attrs.ranges;
  if (static_cast<int64_t>(ranges.size()) != x.rank())
    ev.bad("ranges has " + std::to_string(ranges.size()) + " entries for an input of rank " +
           std::to_string(x.rank()));
  Shape out;
  std::vector<int64_t> st;
  auto xs = x.strides();
  int64_t base = 0;
  for (int64_t d = 0; d < x.rank(); ++d) {
    int64_t n = x.size(d);
    const SliceRange& r = ranges[d];
    int64_t start = r.start == kNone ? 0 : ev.intAttr(r.start, "slice start");
    int64_t stop = r.stop == kNone ? n : ev.intAttr(r.stop, "slice stop");
    int64_t step = r.step == kNone ? 1 : ev.intAttr(r.step, "slice step");
    if (step <= 0) ev.bad("slice step must be positive, got " + std::to_string(step));
    // Python-style normalization: negative indices count from the end; clamp.
    if (start < 0) start += n;
    if (stop < 0) stop += n;
    start = std::clamp<int64_t>(start, 0, n);
    stop = std::clamp<int64_t>(stop, 0, n);
    int64_t len = stop > start ? (stop - start + step - 1) / step : 0;
    out.push_back(len);
    st.push_back(xs[d] * step);
    base += start * xs[d];
  }
  if (numelOf(out).value_or(0) == 0) return ev.make(out);
  return gatherBy(ev, x, out, st, base);
}

HostTensor padOp(const Ev& ev) {
  const HostTensor& x = ev.tensorIn(0);
  const auto& pad = ev.e.attrs.pad;
  if (pad.size() % 2 != 0 || static_cast<int64_t>(pad.size() / 2) > x.rank())
    ev.bad("pad widths must be lo/hi pairs for at most rank axes");
  std::vector<int64_t> lo(x.rank(), 0), hi(x.rank(), 0);
  for (size_t p = 0; p < pad.size() / 2; ++p) {
    int64_t d = x.rank() - 1 - static_cast<int64_t>(p);  // innermost first
    lo[d] = ev.intAttr(pad[2 * p], "pad width");
    hi[d] = ev.intAttr(pad[2 * p + 1], "pad width");
  }
  double value = ev.e.attrs.value == kNone ? 0.0 : ev.floatAttr(ev.e.attrs.value, "pad value");
  Shape out(x.rank());
  for (int64_t d = 0; d < x.rank(); ++d) {
    out[d] = x.size(d) + lo[d] + hi[d];
    if (out[d] < 0) ev.bad("pad widths make dim " + std::to_string(d) + " negative");
  }
  HostTensor r = ev.make(out);
  std::fill(r.data(), r.data() + r.numel(), value);
  std::vector<int64_t> idx(x.rank(), 0);
  auto rs = r.strides();
  for (int64_t i = 0; i < x.numel(); ++i) {
    int64_t o = 0;
    bool inside = true;
    for (int64_t d = 0; d < x.rank(); ++d) {
      int64_t p = idx[d] + lo[d];
      if (p < 0 || p >= out[d]) inside = false;
      o += p * rs[d];
    }
    if (inside) r[o] = x[i];
    for (int64_t d = x.rank(); d-- > 0;) {
      if (++idx[d] < x.size(d)) break;
      idx[d] = 0;
    }
  }
  return r;
}

HostTensor catOp(const Ev& ev) {
  std::vector<const HostTensor*> xs;
  for (size_t i = 0; i < ev.e.inputs.size(); ++i) xs.push_back(&ev.tensorIn(i));
  int64_t rank = xs[0]->rank();
  int64_t dim = ev.normDim(ev.e.attrs.dim, rank);
  Shape out = xs[0]->shape();
  out[dim] = 0;
  for (const HostTensor* x : xs) {
    if (x->rank() != rank) ev.bad("inputs differ in rank");
    for (int64_t d = 0; d < rank; ++d)
      if (d != dim && x->size(d) != out[d])
        ev.bad("inputs differ in size on dim " + std::to_string(d) + ": " + shapeString(xs[0]->shape()) +
               " vs " + shapeString(x->shape()));
    out[dim] += x->size(dim);
  }
  HostTensor r = ev.make(out);
  int64_t outer = 1, inner_out = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= out[d];
  for (int64_t d = dim; d < rank; ++d) inner_out *= out[d];
  int64_t col = 0;
  for (const HostTensor* x : xs) {
    int64_t inner = 1;
    for (int64_t d = dim; d < rank; ++d) inner *= x->size(d);
    for (int64_t o = 0; o < outer; ++o)
      std::copy(x->data() + o * inner, x->data() + (o + 1) * inner, r.data() + o * inner_out + col);
    col += inner;
  }
  return r;
}

// ---------------------------------------------------------------- reductions

struct ReduceLayout {
  std::vector<bool> reduced;
  Shape out_keep;  // reduced dims as 1
  Shape out;       // keepdim applied
  int64_t count = 1;
};

ReduceLayout reduceLayout(const Ev& ev, const HostTensor& x) {
  ReduceLayout L;
  L.reduced.assign(x.rank(), ev.e.attrs.dims.empty());
  for (int64_t d : ev.e.attrs.dims) {
    int64_t n = ev.normDim(d, x.rank());
    if (L.reduced[n] && !ev.e.attrs.dims.empty()) {
      // repeated dims are tolerated as one
    }
    L.reduced[n] = true;
  }
  for (int64_t d = 0; d < x.rank(); ++d) {
    L.out_keep.push_back(L.reduced[d] ? 1 : x.size(d));
    if (L.reduced[d]) L.count *= x.size(d);
    if (!L.reduced[d] || ev.e.attrs.keepdim) L.out.push_back(L.reduced[d] ? 1 : x.size(d));
  }
  return L;
}

// For each input element, the flat index of its reduction bucket.
template <typename F>
void forEachReduced(const HostTensor& x, const ReduceLayout& L, F fn) {
  auto ost = contiguousStrides(L.out_keep);
  std::vector<int64_t> idx(x.rank(), 0);
  int64_t o = 0;
  for (int64_t i = 0; i < x.numel(); ++i) {
    fn(o, x[i]);
    for (int64_t d = x.rank(); d-- > 0;) {
      if (++idx[d] < x.size(d)) {
        if (!L.reduced[d]) o += ost[d];
        break;
      }
      if (!L.reduced[d]) o -= ost[d] * (x.size(d) - 1);
      idx[d] = 0;
    }
  }
}

std::vector<HostTensor> reduction(const Ev& ev) {
  const HostTensor& x = ev.tensorIn(0);
  ReduceLayout L = reduceLayout(ev, x);
  OpKind op = ev.e.op;
  HostTensor acc = ev.make(L.out);
  int64_t n_out = acc.numel();
  if (L.count == 0 && (op == OpKind::Max || op == OpKind::Min))
    ev.bad("max/min over an empty dimension has no identity");
  double init = op == OpKind::Prod ? 1.0 : op == OpKind::Max ? -INFINITY : op == OpKind::Min ? INFINITY : 0.0;
  std::fill(acc.data(), acc.data() + n_out, init);
  switch (op) {
    case OpKind::Sum:
    case OpKind::Mean:
    case OpKind::Var:
    case OpKind::VarMean:
    case OpKind::Welford: forEachReduced(x, L, [&](int64_t o, double v) { acc[o] += v; }); break;
    case OpKind::Prod: forEachReduced(x, L, [&](int64_t o, double v) { acc[o] *= v; }); break;
    case OpKind::Max:
      forEachReduced(x, L, [&](int64_t o, double v) {
        acc[o] = (std::isnan(v) || std::isnan(acc[o])) ? kNaN : std::max(acc[o], v);
      });
      break;
    case OpKind::Min:
      forEachReduced(x, L, [&](int64_t o, double v) {
        acc[o] = (std::isnan(v) || std::isnan(acc[o])) ? kNaN : std::min(acc[o], v);
      });
      break;
    default: ev.bad("not a reduction");
  }
  if ((op == OpKind::Sum || op == OpKind::Prod) && isInt(ev.outDType()))
    for (int64_t i = 0; i < n_out; ++i)
      if (std::fabs(acc[i]) > kExactIntLimit)
        ev.bad("integer result is beyond 2^53, which the CPU reference cannot hold exactly");
  if (op == OpKind::Sum || op == OpKind::Prod || op == OpKind::Max || op == OpKind::Min)
    return {std::move(acc)};
  double cnt = static_cast<double>(L.count);
  for (int64_t i = 0; i < n_out; ++i) acc[i] /= cnt;  // mean (0/0 = NaN as torch)
  if (op == OpKind::Mean) return {std::move(acc)};
  // var: sum of squared deviations from the exact mean, / (N - correction).
  HostTensor m2 = ev.make(L.out);
  forEachReduced(x, L, [&](int64_t o, double v) { m2[o] += (v - acc[o]) * (v - acc[o]); });
  if (op == OpKind::Welford) {  // avg, var_sum (the squared deviations, undivided), N
    HostTensor n = ev.make(L.out, 2);
    std::fill(n.data(), n.data() + n_out, cnt);
    return {std::move(acc), std::move(m2), std::move(n)};
  }
  double denom = cnt - static_cast<double>(ev.e.attrs.correction);
  for (int64_t i = 0; i < n_out; ++i) m2[i] /= std::max(denom, 0.0);  // x/0 = inf, 0/0 = NaN as torch
  if (op == OpKind::Var) return {std::move(m2)};
  HostTensor mean = ev.make(L.out, 1);
  std::copy(acc.data(), acc.data() + n_out, mean.data());
  return {std::move(m2), std::move(mean)};
}

// ---------------------------------------------------------------- factories

HostTensor factory(const Ev& ev) {
  Shape s = ev.attrShape();
  for (int64_t v : s)
    if (v < 0) ev.bad("factory shape entries must be non-negative");
  HostTensor r = ev.make(s);
  switch (ev.e.op) {
    case OpKind::Full: {
      if (ev.e.attrs.value == kNone) ev.bad("full needs a value");
      double v = ev.floatAttr(ev.e.attrs.value, "fill value");
      std::fill(r.data(), r.data() + r.numel(), v);
      break;
    }
    case OpKind::Zeros: break;
    case OpKind::Ones: std::fill(r.data(), r.data() + r.numel(), 1.0); break;
    case OpKind::Iota: {
      double start = ev.e.attrs.start == kNone ? 0.0 : ev.floatAttr(ev.e.attrs.start, "iota start");
      double step = ev.e.attrs.step == kNone ? 1.0 : ev.floatAttr(ev.e.attrs.step, "iota step");
      for (int64_t i = 0; i < r.numel(); ++i) r[i] = start + static_cast<double>(i) * step;
      break;
    }
    default: ev.bad("not a factory");
  }
  return r;
}

// ---------------------------------------------------------------- matmul

// torch.matmul: 1-D operands get a dim prepended (a) / appended (b) that is
// removed from the result; batch dims broadcast.
HostTensor matmulCore(const Ev& ev, const HostTensor& a, const HostTensor& b, bool b_transposed) {
  if (a.rank() == 0 || b.rank() == 0) ev.bad("operands must have rank >= 1");
  bool a1 = a.rank() == 1, b1 = b.rank() == 1;
  int64_t M = a1 ? 1 : a.size(a.rank() - 2), K = a.size(a.rank() - 1);
  int64_t Kb, N;
  if (b1) {
    Kb = b.size(0);
    N = 1;
  } else if (b_transposed) {  // b is [.., N, K]
    N = b.size(b.rank() - 2);
    Kb = b.size(b.rank() - 1);
  } else {
    Kb = b.size(b.rank() - 2);
    N = b.size(b.rank() - 1);
  }
  if (K != Kb)
    ev.bad("inner dims differ: " + shapeString(a.shape()) + " and " + shapeString(b.shape()) +
           (b_transposed ? " (weight transposed)" : ""));
  Shape ab(a.shape().begin(), a.shape().end() - (a1 ? 1 : 2));
  Shape bb(b.shape().begin(), b.shape().end() - (b1 ? 1 : 2));
  size_t br = std::max(ab.size(), bb.size());
  Shape batch(br, 1);
  for (size_t i = 0; i < br; ++i) {
    int64_t x = i + ab.size() >= br ? ab[i + ab.size() - br] : 1;
    int64_t y = i + bb.size() >= br ? bb[i + bb.size() - br] : 1;
    if (x != y && x != 1 && y != 1)
      ev.bad("batch dims " + shapeString(ab) + " and " + shapeString(bb) + " do not broadcast");
    batch[i] = std::max(x, y);
    if (x == 0 || y == 0) batch[i] = 0;
  }
  Shape out = batch;
  if (!a1) out.push_back(M);
  if (!b1) out.push_back(N);
  HostTensor r = ev.make(out);
  int64_t nb = numelOf(batch).value_or(0);
  std::vector<int64_t> bidx(br, 0);
  auto batchOffset = [&](const Shape& own, int64_t mat) {
    int64_t off = 0, stride = mat;
    for (size_t i = own.size(); i-- > 0;) {
      int64_t bi = bidx[i + br - own.size()];
      off += (own[i] == 1 ? 0 : bi) * stride;
      stride *= own[i];
    }
    return off;
  };
  std::vector<double> row(N);
  for (int64_t bt = 0; bt < nb; ++bt) {
    const double* A = a.data() + batchOffset(ab, M * K);
    const double* B = b.data() + batchOffset(bb, K * N);
    double* C = r.data() + bt * M * N;
    for (int64_t i = 0; i < M; ++i) {
      std::fill(row.begin(), row.end(), 0.0);
      for (int64_t k = 0; k < K; ++k) {
        double av = A[i * K + k];
        if (b_transposed && !b1)
          for (int64_t j = 0; j < N; ++j) row[j] += av * B[j * K + k];
        else
          for (int64_t j = 0; j < N; ++j) row[j] += av * B[k * N + j];
      }
      std::copy(row.begin(), row.end(), C + i * N);
    }
    for (size_t i = br; i-- > 0;) {
      if (++bidx[i] < batch[i]) break;
      bidx[i] = 0;
    }
  }
  return r;
}

HostTensor linearOp(const Ev& ev) {
  const HostTensor& x = ev.tensorIn(0);
  const HostTensor& w = ev.tensorIn(1);
  if (w.rank() > 2) ev.bad("a weight of rank 3 or more (a stacked {*_wb, N, K} weight) is not executed");
  HostTensor y = matmulCore(ev, x, w, /*b_transposed=*/true);
  if (ev.e.inputs.size() < 3) return y;
  Operand yo{&y, 0, false};
  Operand bo;
  if (ev.e.inputs[2].isTensor())
    bo.t = &ev.tensorIn(2);
  else
    bo.s = ev.scalarIn(2);
  std::vector<Operand> ops{yo, bo};
  return elementwise(ev, ops, broadcastShapes(ev, ops),
                     [](const std::vector<double>& a) { return a[0] + a[1]; });
}

// What the executor knows of an op's operands, for the shape rule.
class RunSizes final : public ConcreteOperands {
 public:
  explicit RunSizes(const Ev& ev) : ev_(ev) {
    for (const HostTensor* t : ev.in) sizes_.push_back(t ? t->shape() : Shape{});
    if (!ev.e.attrs.shape.empty()) {
      // The shape attribute is global; each rank sees its local sizes (-1 kept).
      for (ScalarId x : ev.e.attrs.shape) attr_.push_back(ev.intAttr(x, "shape entry"));
      Shape pos = attr_;
      for (auto& v : pos)
        if (v < 0) v = 1;
      Shape loc = ev.ctx.localize ? ev.ctx.localize(ev.e.outputs.at(0), pos) : pos;
      for (size_t i = 0; i < attr_.size(); ++i)
        if (attr_[i] >= 0) attr_[i] = loc[i];
    }
  }
  const std::vector<int64_t>* sizes(size_t i) const override {
    return i < ev_.in.size() && ev_.in[i] ? &sizes_[i] : nullptr;
  }
  int64_t shapeEntry(size_t d) const override { return attr_.at(d); }
  int64_t intValue(ScalarId s) const override { return ev_.intAttr(s, "size"); }

 private:
  const Ev& ev_;
  std::vector<Shape> sizes_;
  Shape attr_;
};

class RunValues final : public KnownValues {
 public:
  explicit RunValues(const Ev& ev) : ev_(ev) {}
  std::optional<int64_t> intValue(ScalarId s) const override { return ev_.ctx.scalars->evalInt(s); }

 private:
  const Ev& ev_;
};

// The output's sizes under the op's shape rule, evaluated on this run's operands.
Shape ruleShape(const Ev& ev) {
  ShapeRule rule;
  outputShape(ev.f, ev.e, RunValues(ev), RuleMode::Build, rule);
  if (!rule.ok()) fail(describeIssue(ev.e.op, rule.issues.front(), ev.e.attrs), ev.where);
  std::string why;
  auto s = concreteShape(rule, ev.e, RunSizes(ev), why);
  if (!s) ev.bad(why);
  return *s;
}

}  // namespace

void finishOutput(HostTensor& t, DType dtype, Flavour flavour) {
  t.setDType(dtype);
  if (flavour == Flavour::Faithful) {
    t.roundToDType();
    return;
  }
  if (dtype == DType::Bool || isIntegral(dtype)) {
    DType wide = dtype == DType::Bool ? DType::Bool : DType::Int;  // exact: no 32-bit range limit
    for (int64_t i = 0; i < t.numel(); ++i) t[i] = roundTo(wide, t[i]);
  }
}

std::vector<HostTensor> evalExpr(const OpContext& ctx, ExprId id,
                                 const std::vector<const HostTensor*>& inputs) {
  const Fusion& f = *ctx.fusion;
  const Expr& e = f.exprs[id];
  Ev ev{ctx, f, id, e, inputs, Place::expr(id), {}};
  const OpInfo& info = opInfo(e.op);
  if (isOpaque(e.op)) ev.bad("an opaque op `" + e.attrs.name + "` has no rule to compute it by");
  if (static_cast<int>(e.inputs.size()) < info.min_inputs ||
      (info.max_inputs >= 0 && static_cast<int>(e.inputs.size()) > info.max_inputs) ||
      static_cast<int>(e.outputs.size()) != info.num_outputs)
    ev.bad("wrong number of operands");
  ev.want = ruleShape(ev);
  std::vector<HostTensor> outs;
  switch (info.category) {
    case OpCategory::Set:
    case OpCategory::Cast: {
      const HostTensor& x = ev.tensorIn(0);
      outs.push_back(withShape(ev, x, x.shape()));
      break;
    }
    case OpCategory::Unary: {
      std::vector<Operand> ops = operands(ev);
      bool approx = e.attrs.approximate_tanh;
      OpKind op = e.op;
      outs.push_back(elementwise(ev, ops, ev.want,
                                 [&](const std::vector<double>& a) { return unaryFn(op, a[0], approx); }));
      break;
    }
    case OpCategory::Binary:
    case OpCategory::Compare: outs.push_back(binary(ev)); break;
    case OpCategory::Ternary:
      outs.push_back(elementwise(ev, operands(ev), ev.want,
                                 [](const std::vector<double>& a) { return a[0] != 0 ? a[1] : a[2]; }));
      break;
    case OpCategory::Shape:
      switch (e.op) {
        case OpKind::Broadcast: outs.push_back(broadcastOp(ev)); break;
        case OpKind::BroadcastInDim: outs.push_back(broadcastInDim(ev)); break;
        case OpKind::Expand: outs.push_back(expandOp(ev)); break;
        case OpKind::Squeeze: outs.push_back(squeezeOp(ev)); break;
        case OpKind::Permute: outs.push_back(permuteOp(ev)); break;
        case OpKind::Reshape: outs.push_back(reshapeOp(ev)); break;
        case OpKind::Slice: outs.push_back(sliceOp(ev)); break;
        case OpKind::Pad: outs.push_back(padOp(ev)); break;
        case OpKind::Cat: outs.push_back(catOp(ev)); break;
        default: ev.bad("unknown shape op");
      }
      break;
    case OpCategory::Reduction: outs = reduction(ev); break;
    case OpCategory::Factory: outs.push_back(factory(ev)); break;
    case OpCategory::Matmul:
      if (e.op == OpKind::Matmul)
        outs.push_back(matmulCore(ev, ev.tensorIn(0), ev.tensorIn(1), false));
      else
        outs.push_back(linearOp(ev));
      break;
    case OpCategory::Opaque: break;  // refused above
  }
  FC_CHECK(outs.size() == e.outputs.size(), "op produced the wrong number of outputs");
  for (size_t i = 0; i < outs.size(); ++i) {
    TensorId t = e.outputs[i];
    size_t want = 0;
    for (AxisId a : f.tensors[t].logical)
      if (f.axes[a].iter != IterType::Reduction) ++want;
    if (static_cast<size_t>(outs[i].rank()) != want)
      fail(std::string(opName(e.op)) + " produces a rank-" + std::to_string(outs[i].rank()) + " tensor " +
               shapeString(outs[i].shape()) + " but " + std::string(f.tensorName(t)) + " has " +
               std::to_string(want) + " non-Reduction axes",
           ev.where, DiagCode::RankMismatch);
    FC_CHECK(outs[i].shape() == ev.want, std::string(opName(e.op)) + " computed " +
                                             shapeString(outs[i].shape()) + " but its shape rule gives " +
                                             shapeString(ev.want));
    finishOutput(outs[i], f.tensors[t].dtype, ctx.flavour);
  }
  return outs;
}

int64_t reductionSize(const Fusion& f, ExprId id, const std::vector<const HostTensor*>& inputs) {
  if (inputs.empty() || !inputs[0]) return 1;
  return reductionSize(f, id, &inputs[0]->shape());
}

int64_t reductionSize(const Fusion& f, ExprId id, const Shape* input0) {
  const Expr& e = f.exprs[id];
  const OpInfo& info = opInfo(e.op);
  if (!input0) return 1;
  const Shape& x = *input0;
  int64_t rank = static_cast<int64_t>(x.size());
  if (info.category == OpCategory::Reduction) {
    if (e.attrs.dims.empty()) return std::max<int64_t>(1, numelOf(x).value_or(1));
    int64_t k = 1;
    std::vector<bool> seen(x.size(), false);
    for (int64_t d : e.attrs.dims) {
      int64_t n = d < 0 ? d + rank : d;
      if (n >= 0 && n < rank && !seen[n]) {
        seen[n] = true;
        k *= std::max<int64_t>(1, x[n]);
      }
    }
    return k;
  }
  if (info.category == OpCategory::Matmul && rank >= 1) return std::max<int64_t>(1, x[rank - 1]);
  return 1;
}

double unaryOpValue(OpKind op, double x, bool tanh_approx) { return unaryFn(op, x, tanh_approx); }

}  // namespace fc::exec
