// The CUDA executor's non-pointwise compute exprs (see cuda_executor.h):
// reductions, matmul / linear through cuBLAS, the data-movement ops as
// device views or copies, and the host fallback for the rest.
#include <algorithm>
#include <cstring>
#include <string>

#include "exec/cuda/cuda_program_impl.h"
#include "exec/cuda/cuda_status.h"
#include "exec/exec_error.h"
#include "exec/sharding.h"

namespace fc::exec::cuda {

// ------------------------------------------------------------ reductions, matmul

bool CudaProgram::Impl::deviceReduction(const Fusion& f, const Expr& e) {
  if (e.op != OpKind::Sum && e.op != OpKind::Prod && e.op != OpKind::Max && e.op != OpKind::Min &&
      e.op != OpKind::Mean)
    return false;
  if (!e.inputs[0].isTensor()) return false;
  return !isIntegral(f.tensors[e.inputs[0].id].dtype) && !isIntegral(f.tensors[e.outputs[0]].dtype);
}

// The output shape of reduction `e` on `x` (keepdim honoured).
std::vector<bool> CudaProgram::Impl::reducedDims(const Expr& e, int64_t r, const Place& where) {
  std::vector<bool> red(r, e.attrs.dims.empty());
  for (int64_t d : e.attrs.dims) {
    int64_t n = d < 0 ? d + r : d;
    if (n < 0 || n >= r)
      fail(std::string(opName(e.op)) + ": dim " + std::to_string(d) + " is out of range for rank " +
               std::to_string(r),
           where);
    red[n] = true;
  }
  return red;
}

Shape CudaProgram::Impl::reducedShape(const Expr& e, const DeviceTensor& x, const Place& where) {
  int64_t r = x.rank();
  std::vector<bool> red = reducedDims(e, r, where);
  Shape out;
  for (int64_t d = 0; d < r; ++d)
    if (!red[d] || e.attrs.keepdim) out.push_back(red[d] ? 1 : x.shape()[d]);
  return out;
}

TensorP CudaProgram::Impl::reduce(const Expr& e, const DeviceTensor& x, const Place& where) {
  int64_t r = x.rank();
  if (r > kMaxRank) fail("rank beyond the CUDA backend's limit", where, DiagCode::ExecutionFailed);
  std::vector<bool> red = reducedDims(e, r, where);
  ReduceArgs a;
  a.in = x.data();
  a.in_dtype = x.dtype();
  a.op = e.op;
  a.out_dtype = f.tensors[e.outputs[0]].dtype;
  auto st = contiguousStrides(x.shape());
  Shape out;
  int k = 0;
  int64_t count = 1;
  for (int64_t d = 0; d < r; ++d)
    if (!red[d]) {
      a.shape[k] = x.shape()[d];
      a.strides[k++] = st[d];
    }
  for (int64_t d = 0; d < r; ++d)
    if (red[d]) {
      a.shape[k] = x.shape()[d];
      a.strides[k++] = st[d];
      ++a.n_red;
      count *= x.shape()[d];
    }
  a.rank = static_cast<int>(r);
  if (count == 0 && (e.op == OpKind::Max || e.op == OpKind::Min))
    fail(std::string(opName(e.op)) + ": max/min over an empty dimension has no identity", where);
  for (int64_t d = 0; d < r; ++d)
    if (!red[d] || e.attrs.keepdim) out.push_back(red[d] ? 1 : x.shape()[d]);
  std::shared_ptr<DeviceTensor> o = newTensor(a.out_dtype, out);
  a.out = o->data();
  launchReduce(a);
  return o;
}

// matmul / linear on the device, or nullopt when the shapes or dtypes
// need the host evaluator.
std::optional<TensorP> CudaProgram::Impl::matmul(const Expr& e, int64_t rank, const Place& where) {
  if (!e.inputs[0].isTensor() || !e.inputs[1].isTensor()) return std::nullopt;
  if (e.inputs.size() == 3 && !e.inputs[2].isTensor()) return std::nullopt;
  DType od = f.tensors[e.outputs[0]].dtype;
  DType ad = f.tensors[e.inputs[0].id].dtype, bd = f.tensors[e.inputs[1].id].dtype;
  bool linear = e.op == OpKind::Linear;
  bool bias = linear && e.inputs.size() == 3;
  DType gemm_out = bias ? (od == DType::Double ? DType::Double : DType::Float) : od;
  if (ad != bd || !Blas::supports(ad, gemm_out)) return std::nullopt;
  // A pending transpose of a contiguous tensor's last two dims (the
  // seed's permute) is read in place by cuBLAS instead of copied.
  const DeviceTensor* Ap = nullptr;
  bool a_t = false;
  Shape a_shape;
  if (const NodeP& pn = pending[e.inputs[0].id][rank]; !linear && pn && pn->kind == Node::Leaf &&
                                                       pn->shape.size() >= 2 && pn->tensor &&
                                                       pn->tensor->dtype() == ad) {
    const Shape& sh = pn->shape;
    size_t n = sh.size();
    Shape stored = sh;
    std::swap(stored[n - 1], stored[n - 2]);
    auto cs = contiguousStrides(stored);
    std::swap(cs[n - 1], cs[n - 2]);
    bool ok = pn->tensor->numel() == numelOf(sh).value_or(-1);
    for (size_t d = 0; ok && d < n; ++d) ok = sh[d] == 1 || pn->strides[d] == cs[d];
    if (ok) {
      Ap = pn->tensor.get();
      a_t = true;
      a_shape = sh;
    }
  }
  if (!Ap) {
    Ap = &need(e.inputs[0].id, rank, where);
    a_shape = Ap->shape();
  }
  const DeviceTensor& B = need(e.inputs[1].id, rank, where);
  struct View {
    const Shape& s;
    const void* p;
    int64_t rank() const { return static_cast<int64_t>(s.size()); }
    const Shape& shape() const { return s; }
    const void* data() const { return p; }
  } A{a_shape, Ap->data()};
  if (A.rank() < 2 || B.rank() < 2 || (linear && B.rank() != 2)) return std::nullopt;
  int64_t M = A.shape()[A.rank() - 2], K = A.shape()[A.rank() - 1];
  int64_t N = linear ? B.shape()[0] : B.shape()[B.rank() - 1];
  int64_t Kb = linear ? B.shape()[1] : B.shape()[B.rank() - 2];
  if (K != Kb)
    fail(std::string(opName(e.op)) + ": inner dims differ: " + shapeString(A.shape()) + " and " +
             shapeString(B.shape()) + (linear ? " (weight transposed)" : ""),
         where);
  Shape ab(A.shape().begin(), A.shape().end() - 2), bb(B.shape().begin(), B.shape().end() - 2);
  int64_t na = numelOf(ab).value_or(0), nb = numelOf(bb).value_or(0);
  Shape batch;
  int64_t stride_a = M * K, stride_b = K * N, n_batch = 1;
  if (linear) {  // x [..., M, K] is one [batch*M, K] matrix
    batch = ab;
    M *= na;
    stride_a = stride_b = 0;
  } else if (ab == bb) {
    batch = ab;
    n_batch = na;
  } else if (nb == 1 && bb.size() <= ab.size()) {
    batch = ab;
    n_batch = na;
    stride_b = 0;
  } else if (na == 1 && ab.size() <= bb.size()) {
    batch = bb;
    n_batch = nb;
    stride_a = 0;
  } else {
    return std::nullopt;  // general batch broadcasting: host
  }
  Shape out = batch;
  if (linear) {
    out.push_back(A.shape()[A.rank() - 2]);
  } else {
    out.push_back(M);
  }
  out.push_back(N);
  std::shared_ptr<DeviceTensor> C = newTensor(gemm_out, out);
  blas.gemm(A.data(), B.data(), C->data(), ad, gemm_out, M, N, K, n_batch, stride_a, stride_b, M * N, linear,
            nullptr, a_t);
  if (!bias) return C;
  // y = C + bias, rounded once to the output dtype (fused pointwise).
  NodeP add = opOf(OpKind::Add, od, C->shape(),
                   {leafOf(C), broadcastTo(leafOf(needP(e.inputs[2].id, rank, where)), C->shape())});
  return materialize(add, od);
}

// ------------------------------------------------------------ data movement

std::optional<Shape> CudaProgram::Impl::attrShape(const Expr& e) const {
  Shape s;
  for (ScalarId x : e.attrs.shape) {
    std::optional<int64_t> v = sv.evalInt(x);
    if (!v) return std::nullopt;
    s.push_back(*v);
  }
  Shape pos = s;
  for (auto& v : pos)
    if (v < 0) v = 1;
  Shape loc;
  try {
    TensorId t = e.outputs.at(0);
    loc = localShape(pos, shardDims(f, t), std::string(f.tensorName(t)));
  } catch (const ExecError&) {
    return std::nullopt;
  }
  for (size_t i = 0; i < s.size(); ++i)
    if (s[i] >= 0) s[i] = loc[i];
  return s;
}

namespace {

// `n` rounded to `od` when its values are of another dtype.
NodeP asDType(const NodeP& n, DType od) {
  if (valueDType(n) == od) return n;
  return opOf(OpKind::Cast, od, n->shape, {n});
}

}  // namespace

bool CudaProgram::Impl::dataMovement(ExprId id, int64_t rank) {
  const Expr& e = f.exprs[id];
  const Place where = Place::expr(id);
  if (e.outputs.size() != 1) return false;
  const TensorId out = e.outputs[0];
  const DType od = f.tensors[out].dtype;
  for (ValueRef v : e.inputs)
    if (!v.isTensor()) return false;
  auto input = [&](size_t i) { return nodeOf(e.inputs[i].id, rank, where); };
  auto scalarInt = [&](ScalarId s, int64_t dflt) -> std::optional<int64_t> {
    return s == kNone ? std::optional<int64_t>(dflt) : sv.evalInt(s);
  };
  auto scalarFloat = [&](ScalarId s, double dflt) -> std::optional<double> {
    if (s == kNone) return dflt;
    std::optional<ScalarValue> v = sv.eval(s);
    return v ? std::optional<double>(v->asDouble()) : std::nullopt;
  };
  switch (e.op) {
    case OpKind::Reshape: {
      if (e.inputs.size() != 1) return false;
      NodeP x = input(0);
      std::optional<Shape> target = attrShape(e);
      if (!target || target->size() > static_cast<size_t>(kMaxRank)) return false;
      int64_t numel = numelOf(x->shape).value_or(-1), known = 1, infer = -1;
      for (size_t d = 0; d < target->size(); ++d) {
        if ((*target)[d] < 0) {
          if (infer >= 0) return false;
          infer = static_cast<int64_t>(d);
        } else {
          known *= (*target)[d];
        }
      }
      if (infer >= 0) {
        if (known == 0 || numel % known != 0) return false;
        (*target)[infer] = numel / known;
        known = numel;
      }
      if (known != numel) return false;
      if (!isContiguousLeaf(x)) x = leafOf(materialize(x, valueDType(x)));
      auto v = std::make_shared<Node>(*x);
      v->shape = *target;
      v->strides = contiguousStrides(*target);
      pending[out][rank] = asDType(v, od);
      return true;
    }
    case OpKind::Expand:
    case OpKind::BroadcastInDim: {
      if (e.inputs.size() != 1) return false;
      NodeP x = input(0);
      std::optional<Shape> target = attrShape(e);
      if (!target || target->size() > static_cast<size_t>(kMaxRank)) return false;
      const int64_t xr = static_cast<int64_t>(x->shape.size()), tr = static_cast<int64_t>(target->size());
      std::vector<int64_t> src(target->size(), -1);
      if (e.op == OpKind::Expand) {
        if (tr < xr) return false;
        for (int64_t d = tr - xr; d < tr; ++d) src[d] = d - (tr - xr);
        for (int64_t d = 0; d < tr - xr; ++d)
          if ((*target)[d] < 0) return false;
      } else {
        if (static_cast<int64_t>(e.attrs.dims.size()) != xr) return false;
        int64_t prev = -1;
        for (int64_t i = 0; i < xr; ++i) {
          int64_t d = e.attrs.dims[i] < 0 ? e.attrs.dims[i] + tr : e.attrs.dims[i];
          if (d < 0 || d >= tr || d <= prev) return false;
          prev = d;
          src[d] = i;
        }
        for (int64_t d = 0; d < tr; ++d)
          if ((*target)[d] < 0 && src[d] < 0) return false;
      }
      for (int64_t d = 0; d < tr; ++d) {
        if (src[d] < 0) continue;
        int64_t a = x->shape[src[d]];
        if ((*target)[d] < 0) (*target)[d] = a;
        if (a != (*target)[d] && a != 1) return false;
      }
      pending[out][rank] = asDType(reindex(x, *target, src), od);
      return true;
    }
    case OpKind::Slice: {
      if (e.inputs.size() != 1) return false;
      NodeP x = input(0);
      const int64_t r = static_cast<int64_t>(x->shape.size());
      if (static_cast<int64_t>(e.attrs.ranges.size()) != r) return false;
      Shape shape;
      std::vector<int64_t> start, step;
      for (int64_t d = 0; d < r; ++d) {
        const int64_t n = x->shape[d];
        const SliceRange& rg = e.attrs.ranges[d];
        std::optional<int64_t> a = scalarInt(rg.start, 0), b = scalarInt(rg.stop, n),
                               c = scalarInt(rg.step, 1);
        if (!a || !b || !c || *c <= 0) return false;
        int64_t lo = *a < 0 ? *a + n : *a, hi = *b < 0 ? *b + n : *b;
        lo = std::clamp<int64_t>(lo, 0, n);
        hi = std::clamp<int64_t>(hi, 0, n);
        shape.push_back(hi > lo ? (hi - lo + *c - 1) / *c : 0);
        start.push_back(lo);
        step.push_back(*c);
      }
      if (numelOf(shape).value_or(0) == 0) {
        local[out][rank] = newTensor(od, shape);
        return true;
      }
      pending[out][rank] = asDType(sliceOf(x, shape, start, step), od);
      return true;
    }
    case OpKind::Pad: {
      if (e.inputs.size() != 1) return false;
      TensorP x = needP(e.inputs[0].id, rank, where);
      const int64_t r = x->rank();
      const auto& pad = e.attrs.pad;
      if (pad.size() % 2 != 0 || static_cast<int64_t>(pad.size() / 2) > r || r > kMaxRank) return false;
      std::vector<int64_t> lo(r, 0), hi(r, 0);
      for (size_t k = 0; k < pad.size() / 2; ++k) {
        int64_t d = r - 1 - static_cast<int64_t>(k);  // innermost first
        std::optional<int64_t> a = sv.evalInt(pad[2 * k]), b = sv.evalInt(pad[2 * k + 1]);
        if (!a || !b) return false;
        lo[d] = *a;
        hi[d] = *b;
      }
      std::optional<double> value = scalarFloat(e.attrs.value, 0.0);
      if (!value) return false;
      Shape shape(r), inner(r);
      int64_t dst_off = 0, src_off = 0;
      auto xs = contiguousStrides(x->shape());
      for (int64_t d = 0; d < r; ++d) {
        shape[d] = x->shape()[d] + lo[d] + hi[d];
        if (shape[d] < 0) return false;
      }
      auto os = contiguousStrides(shape);
      bool empty = false;
      for (int64_t d = 0; d < r; ++d) {
        inner[d] = x->shape()[d] + std::min<int64_t>(lo[d], 0) + std::min<int64_t>(hi[d], 0);
        if (inner[d] <= 0) empty = true;
        dst_off += std::max<int64_t>(lo[d], 0) * os[d];
        src_off += std::max<int64_t>(-lo[d], 0) * xs[d];
      }
      std::shared_ptr<DeviceTensor> o = newTensor(od, shape);
      void* od_data = o->data();
      launchIota(od_data, od, o->numel(), *value, 0.0);
      if (!empty)
        launchCopyView(x->data(), x->dtype(), src_off, xs.data(), od_data, od, dst_off, os.data(),
                       inner.data(), static_cast<int>(r));
      local[out][rank] = o;
      return true;
    }
    case OpKind::Cat: {
      std::vector<TensorP> xs;
      for (size_t i = 0; i < e.inputs.size(); ++i) xs.push_back(needP(e.inputs[i].id, rank, where));
      const int64_t r = xs[0]->rank();
      if (r < 1 || r > kMaxRank) return false;
      int64_t dim = e.attrs.dim < 0 ? e.attrs.dim + r : e.attrs.dim;
      if (dim < 0 || dim >= r) return false;
      Shape shape = xs[0]->shape();
      shape[dim] = 0;
      for (const TensorP& x : xs) {
        if (x->rank() != r) return false;
        for (int64_t d = 0; d < r; ++d)
          if (d != dim && x->shape()[d] != shape[d]) return false;
        shape[dim] += x->shape()[dim];
      }
      std::shared_ptr<DeviceTensor> o = newTensor(od, shape);
      auto os = contiguousStrides(shape);
      int64_t at = 0;
      for (const TensorP& x : xs) {
        if (x->numel() > 0) {
          auto xst = contiguousStrides(x->shape());
          launchCopyView(x->data(), x->dtype(), 0, xst.data(), o->data(), od, at * os[dim], os.data(),
                         x->shape().data(), static_cast<int>(r));
        }
        at += x->shape()[dim];
      }
      local[out][rank] = o;
      return true;
    }
    case OpKind::Full:
    case OpKind::Zeros:
    case OpKind::Ones:
    case OpKind::Iota: {
      std::optional<Shape> shape = attrShape(e);
      if (!shape || shape->size() > static_cast<size_t>(kMaxRank)) return false;
      for (int64_t v : *shape)
        if (v < 0) return false;
      if (e.op == OpKind::Iota) {
        std::optional<double> start = scalarFloat(e.attrs.start, 0.0), step = scalarFloat(e.attrs.step, 1.0);
        if (!start || !step) return false;
        std::shared_ptr<DeviceTensor> o = newTensor(od, *shape);
        launchIota(o->data(), od, o->numel(), *start, *step);
        local[out][rank] = o;
        return true;
      }
      double value = e.op == OpKind::Ones ? 1.0 : 0.0;
      if (e.op == OpKind::Full) {
        if (e.attrs.value == kNone) return false;
        std::optional<double> v = scalarFloat(e.attrs.value, 0.0);
        if (!v) return false;
        value = *v;
      }
      pending[out][rank] = opOf(OpKind::Set, od, *shape, {constOf(value)});
      return true;
    }
    default: return false;
  }
}

// ------------------------------------------------------------ host fallback

OpContext CudaProgram::Impl::hostCtx() {
  OpContext c{&f, &sv, Flavour::Faithful, budget, nullptr};
  const Fusion* fp = &f;
  c.localize = [fp](TensorId t, const Shape& g) {
    return localShape(g, shardDims(*fp, t), std::string(fp->tensorName(t)));
  };
  return c;
}

void CudaProgram::Impl::runOnHost(ExprId id, int64_t rank, const Place& where) {
  const Expr& e = f.exprs[id];
  std::vector<HostTensor> hin;
  hin.reserve(e.inputs.size());
  for (ValueRef v : e.inputs)
    hin.push_back(v.isTensor() ? need(v.id, rank, where).download(budget) : HostTensor());
  std::vector<const HostTensor*> args;
  for (size_t i = 0; i < e.inputs.size(); ++i) args.push_back(e.inputs[i].isTensor() ? &hin[i] : nullptr);
  std::vector<HostTensor> res = evalExpr(hostCtx(), id, args);
  for (size_t i = 0; i < res.size(); ++i)
    local[e.outputs[i]][rank] = std::make_shared<DeviceTensor>(DeviceTensor::upload(res[i], budget));
}

}  // namespace fc::exec::cuda
