// Random well-formed fusions (see random_fusion.h).
#include "difftest/random_fusion.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "difftest/rng.h"
#include "io/import_builder.h"
#include "support/internal_error.h"

namespace fc::difftest {
namespace {

constexpr DType kFloatTypes[] = {DType::Float, DType::Float,    DType::Float,
                                 DType::Half,  DType::BFloat16, DType::Double};

class RandomGen {
 public:
  RandomGen(Fusion& f, uint64_t seed) : b_(f), f_(f), rng_{seed} {}

  void build(uint32_t max_exprs) {
    sharded_ = rng_.chance(1, 2);
    if (sharded_) {
      d_ = static_cast<int64_t>(2 + rng_.below(3));  // 2, 3 or 4 devices
      std::vector<int64_t> devs;
      for (int64_t i = 0; i < d_; ++i) devs.push_back(i);
      mesh_ = f_.addMesh({d_}, devs);
      did_extent_ = b_.freshSymbol();
      vals_[did_extent_] = d_;
    }
    int n_inputs = 1 + static_cast<int>(rng_.below(2));
    for (int i = 0; i < n_inputs; ++i) freshInput();
    for (uint32_t step = 0; step < max_exprs && f_.exprs.size() < max_exprs + 4; ++step) grow();
    if (f_.exprs.empty()) unary(pick());
    // Outputs: every tensor no expr uses (at most 3, newest first), so that
    // nothing generated is dead.
    std::vector<uint8_t> used(f_.tensors.size(), 0);
    for (const Expr& e : f_.exprs)
      for (const ValueRef& v : e.inputs)
        if (v.isTensor()) used[v.id] = 1;
    for (size_t t = f_.tensors.size(); t-- > 0 && f_.outputs.size() < 3;)
      if (!used[t] && f_.tensors[t].definition != kNone) f_.outputs.push_back(static_cast<TensorId>(t));
    if (f_.outputs.empty()) f_.outputs.push_back(pool_.back());
    b_.meshEveryTensorLikeItsInputs();
    b_.finish();
    f_.rebuildUses();
  }

 private:
  struct Val {
    TensorId t;
    bool did = false;  // non-Reduction axis 0 is DIDx
  };

  static ValueRef T(TensorId t) { return ValueRef::tensor(t); }
  static ValueRef S(ScalarId s) { return ValueRef::scalar(s); }

  std::vector<AxisId> dims(TensorId t) const { return b_.nonReduction(t); }
  std::vector<ScalarId> extents(TensorId t) const {
    std::vector<ScalarId> e;
    for (AxisId a : dims(t)) e.push_back(f_.axes[a].extent);
    return e;
  }
  int64_t value(ScalarId s) const {
    if (auto c = b_.constValue(s)) return *c;
    auto it = vals_.find(s);
    FC_CHECK(it != vals_.end(), "random fusion: an extent without a known value");
    return it->second;
  }
  bool isFloat(TensorId t) const {
    DType d = f_.tensors[t].dtype;
    return d == DType::Float || d == DType::Half || d == DType::BFloat16 || d == DType::Double;
  }

  Val pick() {
    // Prefer recent values: chains grow deeper than they grow wide.
    size_t n = pool_.size();
    size_t back = rng_.below(std::min<size_t>(n, 4));
    return vals_pool_[n - 1 - back];
  }

  ScalarId newExtent() {
    int64_t v = static_cast<int64_t>(1 + rng_.below(6));
    if (rng_.chance(1, 3)) return b_.constInt(v);
    ScalarId s = b_.freshSymbol();
    vals_[s] = v;
    return s;
  }

  // A fusion input with the given extents (axis 0 DIDx when `did`).
  Val input(const std::vector<ScalarId>& ext, bool did, DType dt) {
    std::vector<AxisId> axes;
    std::vector<int64_t> local;
    for (size_t d = 0; d < ext.size(); ++d) {
      int64_t v = value(ext[d]);
      IterType it = (b_.constValue(ext[d]) && v == 1) ? IterType::Broadcast : IterType::Iteration;
      AxisId a = b_.axis(it, ext[d]);
      if (d == 0 && did) {
        f_.axes[a].parallel = ParallelType::DIDx;
        v = 1;
        did_bound_ = did_bound_ || ext[d] == did_extent_;
      }
      axes.push_back(a);
      local.push_back(v);
    }
    TensorId t = b_.tensor(dt, axes);
    if (sharded_) f_.tensors[t].mesh = mesh_;
    f_.inputs.push_back(T(t));
    ConcreteInput ci;
    ci.value = T(t);
    ci.shape = local;
    f_.concrete_inputs.push_back(ci);
    return add({t, did});
  }

  Val freshInput() {
    size_t rank = 1 + rng_.below(3);
    bool did = sharded_ && rng_.chance(2, 3);
    std::vector<ScalarId> ext;
    if (did) ext.push_back(did_extent_);
    while (ext.size() < rank + (did ? 1 : 0)) ext.push_back(newExtent());
    return input(ext, did, kFloatTypes[rng_.below(std::size(kFloatTypes))]);
  }

  Val add(Val v) {
    pool_.push_back(v.t);
    vals_pool_.push_back(v);
    return v;
  }

  std::vector<TensorId> ops(OpKind k, std::vector<ValueRef> in, Attrs attrs = {}) {
    std::string err;
    auto outs = b_.op(k, std::move(in), std::move(attrs), err);
    FC_CHECK(outs.has_value(), "random fusion: the builder rejected " + std::string(opName(k)) + ": " + err);
    return *outs;
  }
  // The op's output, DIDx on non-Reduction axis 0 when `did`.
  Val op(OpKind k, std::vector<ValueRef> in, Attrs attrs, bool did) {
    TensorId t = ops(k, std::move(in), std::move(attrs))[0];
    if (did) setDid(t, 0, true);
    return add({t, did});
  }
  void setDid(TensorId t, size_t pos, bool on) {
    f_.axes[dims(t)[pos]].parallel = on ? ParallelType::DIDx : ParallelType::Serial;
  }

  // A partner with the same extents as `x`: an existing value or a new input.
  TensorId partner(const Val& x) {
    std::vector<ScalarId> ext = extents(x.t);
    for (size_t i = vals_pool_.size(); i-- > 0;) {
      const Val& c = vals_pool_[i];
      if (c.t != x.t && c.did == x.did && extents(c.t) == ext && isFloat(c.t) && rng_.chance(2, 3))
        return c.t;
    }
    return input(ext, x.did, kFloatTypes[rng_.below(std::size(kFloatTypes))]).t;
  }

  void unary(const Val& x) {
    // Well-conditioned functions only (|f'| <= ~1.1): sin / cos of a large
    // argument would turn one rounding step of the argument into an O(1)
    // error, beyond any fixed tolerance (docs/fuzz.md, "Conditioning").
    static constexpr OpKind kUnary[] = {OpKind::Neg,     OpKind::Abs,  OpKind::Tanh,
                                        OpKind::Sigmoid, OpKind::Relu, OpKind::Gelu,
                                        OpKind::Erf,     OpKind::Silu, OpKind::Set};
    Attrs a;
    OpKind k = kUnary[rng_.below(std::size(kUnary))];
    if (k == OpKind::Gelu) a.approximate_tanh = rng_.chance(1, 2);
    op(k, {T(x.t)}, a, x.did);
  }

  void binary(const Val& x) {
    static constexpr OpKind kBinary[] = {OpKind::Add, OpKind::Sub, OpKind::Mul, OpKind::Maximum,
                                         OpKind::Minimum};
    TensorId y = partner(x);
    op(kBinary[rng_.below(std::size(kBinary))], {T(x.t), T(y)}, {}, x.did);
  }

  // x op scalar: a constant, or an extent of x used as a value (x / i0).
  void scalarOperand(const Val& x) {
    std::vector<ScalarId> ext = extents(x.t);
    if (!ext.empty() && rng_.chance(1, 2)) {
      // Any symbolic extent in the fusion, the DID extent included.
      std::vector<ScalarId> syms;
      for (auto& [s, v] : vals_)
        if (f_.scalars[s].kind != ScalarKind::Constant && v != 0 && (s != did_extent_ || did_bound_))
          syms.push_back(s);
      if (!syms.empty()) {
        ScalarId s = syms[rng_.below(syms.size())];
        op(OpKind::Div, {T(x.t), S(s)}, {}, x.did);  // x / i3: shrinks, never amplifies
        return;
      }
    }
    op(rng_.chance(1, 2) ? OpKind::Mul : OpKind::Add, {T(x.t), S(b_.constFloat(0.5))}, {}, x.did);
  }

  void cast(const Val& x) {
    Attrs a;
    a.dtype = kFloatTypes[rng_.below(std::size(kFloatTypes))];
    op(OpKind::Cast, {T(x.t)}, a, x.did);
  }

  void reduce(const Val& x) {
    size_t rank = dims(x.t).size();
    if (rank == 0) return unary(x);
    static constexpr OpKind kRed[] = {OpKind::Sum, OpKind::Sum, OpKind::Max, OpKind::Mean};
    OpKind k = kRed[rng_.below(std::size(kRed))];
    Attrs a;
    int64_t dim = static_cast<int64_t>(rng_.below(rank));
    a.dims = {dim};
    a.keepdim = rng_.chance(1, 5);
    bool over_did = x.did && dim == 0;
    if (over_did) {
      // Allreduce: a sum over the DID axis (the #2481 shape), sometimes
      // followed by a mean-like use of the DID extent as a value.
      k = OpKind::Sum;
      a.keepdim = false;
      Val r = op(k, {T(x.t)}, a, false);
      if (rng_.chance(1, 3)) op(OpKind::Div, {T(r.t), S(did_extent_)}, {}, false);
      return;
    }
    op(k, {T(x.t)}, a, x.did);
  }

  // Reduce over the last axis, broadcast back, combine (layer-norm shape).
  void normalize(const Val& x) {
    size_t rank = dims(x.t).size();
    if (rank < 1 || (x.did && rank < 2)) return unary(x);
    Attrs a;
    a.dims = {static_cast<int64_t>(rank - 1)};
    Val m = op(rng_.chance(1, 2) ? OpKind::Mean : OpKind::Max, {T(x.t)}, a, x.did);
    Attrs bf;
    bf.flags.assign(rank, false);
    bf.flags.back() = true;
    Val mb = op(OpKind::Broadcast, {T(m.t)}, bf, x.did);
    op(OpKind::Sub, {T(x.t), T(mb.t)}, {}, x.did);
  }

  void broadcast(const Val& x) {
    size_t rank = dims(x.t).size();
    if (rank >= 4) return unary(x);
    Attrs a;
    a.flags.assign(rank + 1, false);
    size_t lo = x.did ? 1 : 0;
    a.flags[lo + rng_.below(rank + 1 - lo)] = true;
    op(OpKind::Broadcast, {T(x.t)}, a, x.did);
  }

  void permute(const Val& x) {
    size_t rank = dims(x.t).size();
    size_t lo = x.did ? 1 : 0;
    if (rank < lo + 2) return unary(x);
    std::vector<int64_t> p(rank);
    for (size_t i = 0; i < rank; ++i) p[i] = static_cast<int64_t>(i);
    for (size_t i = rank - 1; i > lo; --i) std::swap(p[i], p[lo + rng_.below(i - lo + 1)]);
    Attrs a;
    a.dims = p;
    op(OpKind::Permute, {T(x.t)}, a, x.did);
  }

  // Merge two adjacent axes, or split an axis of even size in two.
  void reshape(const Val& x) {
    std::vector<ScalarId> ext = extents(x.t);
    size_t lo = x.did ? 1 : 0;
    if (ext.size() < lo + 1) return unary(x);
    std::vector<ScalarId> shape = ext;
    size_t i = lo + rng_.below(ext.size() - lo);
    if (i + 1 < ext.size() && ext.size() >= lo + 2 && rng_.chance(1, 2)) {
      ScalarId m = b_.derived(ScalarOp::Mul, ext[i], ext[i + 1]);
      if (!b_.constValue(m)) vals_[m] = value(ext[i]) * value(ext[i + 1]);
      shape.erase(shape.begin() + static_cast<std::ptrdiff_t>(i),
                  shape.begin() + static_cast<std::ptrdiff_t>(i) + 2);
      shape.insert(shape.begin() + static_cast<std::ptrdiff_t>(i), m);
    } else if (value(ext[i]) % 2 == 0 && ext.size() < 4) {
      ScalarId h = b_.derived(ScalarOp::Div, ext[i], b_.constInt(2));
      if (!b_.constValue(h)) vals_[h] = value(ext[i]) / 2;
      shape[i] = h;
      shape.insert(shape.begin() + static_cast<std::ptrdiff_t>(i), b_.constInt(2));
    } else {
      return unary(x);
    }
    Attrs a;
    a.shape = shape;
    op(OpKind::Reshape, {T(x.t)}, a, x.did);
  }

  // x [..., k] with a fresh weight: linear (w [n, k], bias sometimes) or
  // matmul (w [k, n]); on a mesh with an unsharded 2-D x, the row-parallel
  // shape: [1, m, k] @ w [D(DIDx), k, n] -> [D, m, n] (DIDx).
  void matmul(const Val& x) {
    std::vector<ScalarId> ext = extents(x.t);
    if (ext.size() < 2 || ext.size() > 3 || !isFloat(x.t)) return unary(x);
    ScalarId k = ext.back();
    ScalarId n = newExtent();
    DType dt = f_.tensors[x.t].dtype;
    if (sharded_ && !x.did && ext.size() == 2 && rng_.chance(2, 3)) {
      Attrs bf;
      bf.flags = {true, false, false};
      Val xb = op(OpKind::Broadcast, {T(x.t)}, bf, false);
      Val w = input({did_extent_, k, n}, true, dt);
      op(OpKind::Matmul, {T(xb.t), T(w.t)}, {}, true);
      return;
    }
    if (rng_.chance(1, 2)) {
      Val w = input({n, k}, false, dt);
      std::vector<ValueRef> in{T(x.t), T(w.t)};
      if (rng_.chance(1, 2)) in.push_back(T(input({n}, false, dt).t));
      op(OpKind::Linear, in, {}, x.did);
    } else {
      Val w = input({k, n}, false, dt);
      op(OpKind::Matmul, {T(x.t), T(w.t)}, {}, x.did);
    }
  }

  // full / iota of x's shape (fill value a constant or an extent), added to x.
  void factory(const Val& x) {
    std::vector<ScalarId> ext = extents(x.t);
    if (ext.empty() || !isFloat(x.t)) return unary(x);
    Attrs a;
    a.shape = ext;
    a.dtype = f_.tensors[x.t].dtype;
    Val fv;
    if (rng_.chance(1, 3) && ext.size() == 1 && !x.did) {
      a.start = b_.constInt(0, DType::Int);
      a.step = b_.constInt(1, DType::Int);
      fv = op(OpKind::Iota, {}, a, false);
    } else {
      // The fill value is a constant, or an extent used as a value through a
      // floating expression (1.0 / i3, Double): the FC0401 shape of
      // fixtures/fuzz/strip_refused_fill_value.json.
      ScalarId v = ext[rng_.below(ext.size())];
      a.value = b_.constValue(v) ? b_.constFloat(0.25) : b_.derived(ScalarOp::Div, b_.constFloat(1.0), v);
      fv = op(OpKind::Full, {}, a, x.did);
    }
    if (sharded_) f_.tensors[fv.t].mesh = mesh_;
    op(OpKind::Add, {T(x.t), T(fv.t)}, {}, x.did);
  }

  // Allgather: a set that drops DIDx from axis 0.
  void allgather(const Val& x) {
    if (!x.did) return unary(x);
    op(OpKind::Set, {T(x.t)}, {}, false);
  }

  // ReduceScatter: [D, S, ...] -> [D, D, S/D, ...] -> sum over 0 with DIDx on the new D.
  void reduceScatter(const Val& x) {
    std::vector<ScalarId> ext = extents(x.t);
    if (!x.did || ext.size() < 2 || ext.size() > 3 || value(ext[1]) % d_ != 0) return reduce(x);
    std::vector<ScalarId> shape = ext;
    ScalarId part = b_.derived(ScalarOp::Div, ext[1], b_.constInt(d_));
    if (!b_.constValue(part)) vals_[part] = value(ext[1]) / d_;
    shape[1] = part;
    shape.insert(shape.begin() + 1, b_.constInt(d_));
    Attrs ra;
    ra.shape = shape;
    Val r = op(OpKind::Reshape, {T(x.t)}, ra, true);
    Attrs sa;
    sa.dims = {0};
    TensorId rs = ops(OpKind::Sum, {T(r.t)}, sa)[0];
    setDid(rs, 0, true);  // non-Reduction axis 0 is the new D
    add({rs, true});
  }

  void grow() {
    Val x = pick();
    uint64_t r = rng_.below(100);
    if (r < 14) return unary(x);
    if (r < 30) return binary(x);
    if (r < 38) return scalarOperand(x);
    if (r < 44) return cast(x);
    if (r < 56) return reduce(x);
    if (r < 62) return normalize(x);
    if (r < 67) return broadcast(x);
    if (r < 72) return permute(x);
    if (r < 79) return reshape(x);
    if (r < 87) return matmul(x);
    if (r < 91) return factory(x);
    if (r < 96) return allgather(x);
    return reduceScatter(x);
  }

  ImportBuilder b_;
  Fusion& f_;
  Rng rng_;
  bool sharded_ = false;
  int64_t d_ = 1;
  MeshId mesh_ = kNone;
  ScalarId did_extent_ = kNone;
  bool did_bound_ = false;            // an input's DIDx axis has did_extent_ (binds it)
  std::map<ScalarId, int64_t> vals_;  // values of the non-constant extents generated
  std::vector<TensorId> pool_;
  std::vector<Val> vals_pool_;
};

}  // namespace

Fusion randomFusion(const RandomFusionOptions& opts) {
  Fusion f;
  f.name = "fuzz_seed" + std::to_string(opts.seed);
  f.provenance.emplace_back("source", "fusecheck fuzz (issue #9)");
  f.provenance.emplace_back("generator", "random seed=" + std::to_string(opts.seed) +
                                             " max_exprs=" + std::to_string(opts.max_exprs));
  f.seed = opts.seed;
  RandomGen g(f, opts.seed ^ 0x66757a7a00000000ull);
  g.build(opts.max_exprs);
  return f;
}

}  // namespace fc::difftest
