// The CUDA segmented executor (see cuda_executor.h).
#include "exec/cuda/cuda_executor.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <deque>
#include <map>
#include <set>
#include <string>
#include <unordered_map>

#include "exec/cuda/cuda_status.h"
#include "exec/cuda/gemm.h"
#include "exec/cuda/kernels.h"
#include "exec/exec_error.h"
#include "exec/op_eval.h"
#include "support/internal_error.h"

namespace fc::exec::cuda {
namespace {

// A lazily evaluated pointwise value: a tree over leaves (materialized
// tensors seen through strides in the node's index space) and constants.
// Every node of a tree has the tree root's shape (operands are brought to
// the op's broadcast shape when the op is built).
struct Node {
  enum Kind : uint8_t { Leaf, Const, Op } kind = Const;
  Shape shape;
  // Leaf
  const DeviceTensor* tensor = nullptr;
  std::vector<int64_t> strides;
  // Const
  double value = 0;
  // Op
  OpKind op = OpKind::Set;
  bool approx = false;
  DType dtype = DType::Float;
  std::vector<std::shared_ptr<const Node>> kids;
  int ops = 0;     // op nodes in the tree (with repeats)
  int leaves = 0;  // leaf nodes in the tree (with repeats)
};
using NodeP = std::shared_ptr<const Node>;

NodeP leafOf(const DeviceTensor& t) {
  auto n = std::make_shared<Node>();
  n->kind = Node::Leaf;
  n->shape = t.shape();
  n->tensor = &t;
  n->strides = contiguousStrides(t.shape());
  n->leaves = 1;
  n->dtype = t.dtype();
  return n;
}

NodeP constOf(double v) {
  auto n = std::make_shared<Node>();
  n->kind = Node::Const;
  n->value = v;
  return n;
}

// Re-indexes a tree: new dim d reads old dim src[d] (-1: a new broadcast
// dim). Old dims of size 1 read with stride 0, so they may expand. Depth is
// bounded by the fusion cap (kMaxInstrs).
NodeP reindex(const NodeP& n, const Shape& shape, const std::vector<int64_t>& src) {
  if (n->kind == Node::Const) return n;
  auto r = std::make_shared<Node>(*n);
  r->shape = shape;
  if (n->kind == Node::Leaf) {
    r->strides.assign(shape.size(), 0);
    for (size_t d = 0; d < shape.size(); ++d)
      if (src[d] >= 0 && n->shape[src[d]] != 1) r->strides[d] = n->strides[src[d]];
    return r;
  }
  for (auto& k : r->kids) k = reindex(k, shape, src);
  return r;
}

// Brings a tree to `shape` by torch's right-aligned broadcasting.
NodeP broadcastTo(const NodeP& n, const Shape& shape) {
  if (n->kind == Node::Const || n->shape == shape) return n;
  std::vector<int64_t> src(shape.size(), -1);
  size_t off = shape.size() - n->shape.size();
  for (size_t d = off; d < shape.size(); ++d) src[d] = static_cast<int64_t>(d - off);
  return reindex(n, shape, src);
}

bool integralDType(DType t) { return isIntegral(t); }

struct SegmentIndex {
  std::vector<std::set<uint32_t>> consumers;  // per tensor: segments reading it
};

}  // namespace

struct CudaProgram::Impl {
  const SegmentedFusion& sf;
  const Fusion& f;
  const World& world;
  ScalarValues& sv;
  MemoryBudget* budget;
  Blas blas;
  std::vector<std::vector<std::optional<DeviceTensor>>> local;  // [TensorId][rank]
  std::vector<std::vector<NodeP>> pending;                      // [TensorId][rank]
  std::vector<bool> is_input;
  std::deque<DeviceTensor> temps;  // materialized lazy operands that are no tensor of the fusion
  std::vector<std::string> host_ops;
  int64_t only_rank = -1;  // restrictToRank: the one rank this process runs
  CudaProgram::CommunicationHook communicate;

  Impl(const SegmentedFusion& s, const World& w, ScalarValues& v, MemoryBudget* b)
      : sf(s), f(*s.fusion), world(w), sv(v), budget(b) {
    local.resize(f.tensors.size());
    for (auto& l : local) l.resize(world.size());
    pending.assign(f.tensors.size(), std::vector<NodeP>(world.size()));
    is_input.assign(f.tensors.size(), false);
    for (ValueRef v2 : f.inputs)
      if (v2.isTensor()) is_input[v2.id] = true;
  }

  void reset() {
    for (size_t t = 0; t < f.tensors.size(); ++t) {
      if (is_input[t]) continue;
      for (auto& x : local[t]) x.reset();
      for (auto& p : pending[t]) p.reset();
    }
    temps.clear();
  }

  // ------------------------------------------------------------ pointwise

  // Flattens a tree into `p`; returns the operand that holds its value.
  PwRef flatten(const NodeP& n, PwProgram& p, std::map<const Node*, int>& regs) {
    PwRef ref;
    if (n->kind == Node::Const) {
      ref.kind = PwRef::Const;
      ref.value = n->value;
      return ref;
    }
    if (n->kind == Node::Leaf) {
      for (int l = 0; l < p.n_leaves; ++l) {
        bool same = p.leaves[l].data == n->tensor->data();
        for (int d = 0; same && d < p.rank; ++d) same = p.leaves[l].strides[d] == n->strides[d];
        if (same) return PwRef{PwRef::Leaf, static_cast<uint8_t>(l), 0};
      }
      FC_CHECK(p.n_leaves < kMaxLeaves, "pointwise program has too many leaves");
      LeafView& lv = p.leaves[p.n_leaves];
      lv.data = n->tensor->data();
      lv.dtype = n->tensor->dtype();
      for (int d = 0; d < p.rank; ++d) lv.strides[d] = n->strides[d];
      if (n->tensor->dtype() == DType::Double) p.fp64 = true;
      return PwRef{PwRef::Leaf, static_cast<uint8_t>(p.n_leaves++), 0};
    }
    auto it = regs.find(n.get());
    if (it != regs.end()) return PwRef{PwRef::Reg, static_cast<uint8_t>(it->second), 0};
    PwInstr in;
    in.op = n->op;
    in.approx_tanh = n->approx;
    in.round_to = n->dtype;
    in.nargs = static_cast<uint8_t>(n->kids.size());
    for (size_t k = 0; k < n->kids.size(); ++k) in.args[k] = flatten(n->kids[k], p, regs);
    FC_CHECK(p.n_instrs < kMaxInstrs, "pointwise program has too many instructions");
    if (n->dtype == DType::Double) p.fp64 = true;
    p.instrs[p.n_instrs] = in;
    regs[n.get()] = p.n_instrs;
    return PwRef{PwRef::Reg, static_cast<uint8_t>(p.n_instrs++), 0};
  }

  // Evaluates a tree into a new device tensor of `dtype`.
  DeviceTensor materialize(const NodeP& n, DType dtype) {
    if (n->shape.size() > static_cast<size_t>(kMaxRank))
      fail("the CUDA backend supports tensors of rank <= " + std::to_string(kMaxRank), "",
           DiagCode::ExecutionFailed);
    DeviceTensor out(dtype, n->shape, budget);
    PwProgram p;
    p.rank = static_cast<int>(n->shape.size());
    for (int d = 0; d < p.rank; ++d) p.shape[d] = n->shape[d];
    std::map<const Node*, int> regs;
    PwRef r = flatten(n, p, regs);
    if (r.kind != PwRef::Reg) {  // a bare leaf or constant: one copy instruction
      PwInstr in;
      in.op = OpKind::Set;
      in.round_to = dtype;
      in.nargs = 1;
      in.args[0] = r;
      p.instrs[p.n_instrs++] = in;
    }
    if (dtype == DType::Double) p.fp64 = true;
    p.out = out.data();
    p.out_dtype = dtype;
    launchPointwise(p);
    return out;
  }

  // The device tensor of `t` on `rank`, materializing a pending tree.
  const DeviceTensor& need(TensorId t, int64_t rank, const std::string& ptr) {
    if (rank < 0 || rank >= world.size())
      fail("tensor " + std::string(f.tensorName(t)) + " has no device here", ptr, DiagCode::ExecutionFailed);
    if (!local[t][rank] && pending[t][rank]) {
      local[t][rank] = materialize(pending[t][rank], f.tensors[t].dtype);
      pending[t][rank].reset();
    }
    if (!local[t][rank])
      fail("tensor " + std::string(f.tensorName(t)) + " is not available on device " +
               std::to_string(world.devices()[rank]) + " when its consumer runs",
           ptr, DiagCode::ExecutionFailed);
    return *local[t][rank];
  }

  NodeP nodeOf(TensorId t, int64_t rank, const std::string& ptr) {
    if (rank >= 0 && rank < world.size() && pending[t][rank]) return pending[t][rank];
    return leafOf(need(t, rank, ptr));
  }

  // Keeps fused trees within the kernel's limits: an operand tree that is
  // large is materialized into a temporary first.
  NodeP bounded(NodeP n) {
    if (n->kind != Node::Op) return n;
    if (n->ops < kMaxInstrs / 3 && n->leaves < kMaxLeaves / 3 + 1) return n;
    temps.push_back(materialize(n, n->dtype));
    return leafOf(temps.back());
  }

  static bool fusible(const Fusion& f, const Expr& e) {
    OpCategory c = opInfo(e.op).category;
    bool pw = c == OpCategory::Set || c == OpCategory::Cast || c == OpCategory::Unary ||
              c == OpCategory::Binary || c == OpCategory::Compare || c == OpCategory::Ternary;
    bool view = e.op == OpKind::Broadcast || e.op == OpKind::Permute || e.op == OpKind::Squeeze;
    if (!pw && !view) return false;
    for (TensorId o : e.outputs)
      if (integralDType(f.tensors[o].dtype)) return false;
    for (ValueRef v : e.inputs)
      if (v.isTensor() && integralDType(f.tensors[v.id].dtype)) return false;
    return true;
  }

  // Builds the lazy tree of a fusible expr on one rank.
  NodeP buildNode(ExprId id, int64_t rank) {
    const Expr& e = f.exprs[id];
    std::string ptr = "/exprs/" + std::to_string(id);
    auto bad = [&](const std::string& m) { fail(std::string(opName(e.op)) + ": " + m, ptr); };
    std::vector<NodeP> args;
    for (ValueRef v : e.inputs) {
      if (v.isTensor()) {
        args.push_back(bounded(nodeOf(v.id, rank, ptr)));
      } else {
        std::string why;
        auto s = sv.eval(v.id, &why);
        if (!s) bad("cannot evaluate scalar operand " + scalarLabel(f, v.id) + ": " + why);
        args.push_back(constOf(s->asDouble()));
      }
    }
    DType od = f.tensors[e.outputs[0]].dtype;
    if (e.op == OpKind::Broadcast || e.op == OpKind::Permute || e.op == OpKind::Squeeze) {
      if (args.empty() || args[0]->kind == Node::Const) bad("operand 0 must be a tensor");
      const Shape& in = args[0]->shape;
      int64_t r = static_cast<int64_t>(in.size());
      Shape out;
      std::vector<int64_t> src;
      auto norm = [&](int64_t d) {
        int64_t n = d < 0 ? d + r : d;
        if (n < 0 || n >= r)
          bad("dim " + std::to_string(d) + " is out of range for rank " + std::to_string(r));
        return n;
      };
      if (e.op == OpKind::Broadcast) {
        int64_t kept = std::count(e.attrs.flags.begin(), e.attrs.flags.end(), false);
        if (kept != r)
          bad("flags keep " + std::to_string(kept) + " axes but the input has rank " + std::to_string(r));
        int64_t k = 0;
        for (bool b : e.attrs.flags) {
          out.push_back(b ? 1 : in[k]);
          src.push_back(b ? -1 : k++);
        }
      } else if (e.op == OpKind::Permute) {
        if (static_cast<int64_t>(e.attrs.dims.size()) != r)
          bad("dims is not a permutation of the input's axes");
        std::vector<bool> seen(r, false);
        for (int64_t d : e.attrs.dims) {
          int64_t n = norm(d);
          if (seen[n]) bad("dims repeats axis " + std::to_string(n));
          seen[n] = true;
          out.push_back(in[n]);
          src.push_back(n);
        }
      } else {
        std::vector<bool> drop(r, false);
        for (int64_t d : e.attrs.dims) {
          int64_t n = norm(d);
          if (in[n] != 1) bad("dim " + std::to_string(n) + " has size " + std::to_string(in[n]) + ", not 1");
          drop[n] = true;
        }
        for (int64_t d = 0; d < r; ++d)
          if (!drop[d]) {
            out.push_back(in[d]);
            src.push_back(d);
          }
      }
      if (out.size() > static_cast<size_t>(kMaxRank)) bad("rank beyond the CUDA backend's limit");
      return reindex(args[0], out, src);
    }
    // Pointwise: torch broadcasting of the tensor operands.
    size_t rank_out = 0;
    for (auto& a : args)
      if (a->kind != Node::Const) rank_out = std::max(rank_out, a->shape.size());
    Shape out(rank_out, 1);
    for (auto& a : args) {
      if (a->kind == Node::Const) continue;
      size_t off = rank_out - a->shape.size();
      for (size_t d = 0; d < a->shape.size(); ++d) {
        int64_t x = out[off + d], y = a->shape[d];
        if (x == y || y == 1) continue;
        if (x == 1) {
          out[off + d] = y;
          continue;
        }
        bad("operand shapes do not broadcast");
      }
    }
    if (rank_out > static_cast<size_t>(kMaxRank)) bad("rank beyond the CUDA backend's limit");
    auto n = std::make_shared<Node>();
    n->kind = Node::Op;
    n->op = e.op;
    n->approx = e.attrs.approximate_tanh;
    n->dtype = od;
    n->shape = out;
    n->ops = 1;
    for (auto& a : args) {
      NodeP b = broadcastTo(a, out);
      n->ops += b->ops;
      n->leaves += b->leaves;
      n->kids.push_back(std::move(b));
    }
    if (n->kids.empty()) bad("a pointwise op needs a tensor operand");
    return n;
  }

  // ------------------------------------------------------------ reductions, matmul

  static bool deviceReduction(const Fusion& f, const Expr& e) {
    if (e.op != OpKind::Sum && e.op != OpKind::Prod && e.op != OpKind::Max && e.op != OpKind::Min &&
        e.op != OpKind::Mean)
      return false;
    if (!e.inputs[0].isTensor()) return false;
    return !integralDType(f.tensors[e.inputs[0].id].dtype) && !integralDType(f.tensors[e.outputs[0]].dtype);
  }

  // The output shape of reduction `e` on `x` (keepdim honoured).
  static Shape reducedShape(const Expr& e, const DeviceTensor& x, const std::string& ptr) {
    int64_t r = x.rank();
    std::vector<bool> red(r, e.attrs.dims.empty());
    for (int64_t d : e.attrs.dims) {
      int64_t n = d < 0 ? d + r : d;
      if (n < 0 || n >= r)
        fail(std::string(opName(e.op)) + ": dim " + std::to_string(d) + " is out of range for rank " +
                 std::to_string(r),
             ptr);
      red[n] = true;
    }
    Shape out;
    for (int64_t d = 0; d < r; ++d)
      if (!red[d] || e.attrs.keepdim) out.push_back(red[d] ? 1 : x.shape()[d]);
    return out;
  }

  DeviceTensor reduce(const Expr& e, const DeviceTensor& x, const std::string& ptr) {
    int64_t r = x.rank();
    if (r > kMaxRank) fail("rank beyond the CUDA backend's limit", ptr, DiagCode::ExecutionFailed);
    std::vector<bool> red(r, e.attrs.dims.empty());
    for (int64_t d : e.attrs.dims) {
      int64_t n = d < 0 ? d + r : d;
      if (n < 0 || n >= r)
        fail(std::string(opName(e.op)) + ": dim " + std::to_string(d) + " is out of range for rank " +
                 std::to_string(r),
             ptr);
      red[n] = true;
    }
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
      fail(std::string(opName(e.op)) + ": max/min over an empty dimension has no identity", ptr);
    for (int64_t d = 0; d < r; ++d)
      if (!red[d] || e.attrs.keepdim) out.push_back(red[d] ? 1 : x.shape()[d]);
    DeviceTensor o(a.out_dtype, out, budget);
    a.out = o.data();
    launchReduce(a);
    return o;
  }

  // matmul / linear on the device, or nullopt when the shapes or dtypes
  // need the host evaluator.
  std::optional<DeviceTensor> matmul(const Expr& e, int64_t rank, const std::string& ptr) {
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
    if (const NodeP& pn = pending[e.inputs[0].id][rank];
        !linear && pn && pn->kind == Node::Leaf && pn->shape.size() >= 2 && pn->tensor->dtype() == ad) {
      const Shape& sh = pn->shape;
      size_t n = sh.size();
      Shape stored = sh;
      std::swap(stored[n - 1], stored[n - 2]);
      auto cs = contiguousStrides(stored);
      std::swap(cs[n - 1], cs[n - 2]);
      bool ok = pn->tensor->numel() == numelOf(sh).value_or(-1);
      for (size_t d = 0; ok && d < n; ++d) ok = sh[d] == 1 || pn->strides[d] == cs[d];
      if (ok) {
        Ap = pn->tensor;
        a_t = true;
        a_shape = sh;
      }
    }
    if (!Ap) {
      Ap = &need(e.inputs[0].id, rank, ptr);
      a_shape = Ap->shape();
    }
    const DeviceTensor& B = need(e.inputs[1].id, rank, ptr);
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
           ptr);
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
    DeviceTensor C(gemm_out, out, budget);
    blas.gemm(A.data(), B.data(), C.data(), ad, gemm_out, M, N, K, n_batch, stride_a, stride_b, M * N, linear,
              nullptr, a_t);
    if (!bias) return C;
    // y = C + bias, rounded once to the output dtype (fused pointwise).
    auto add = std::make_shared<Node>();
    add->kind = Node::Op;
    add->op = OpKind::Add;
    add->dtype = od;
    add->shape = C.shape();
    add->ops = 1;
    add->kids = {leafOf(C), broadcastTo(leafOf(need(e.inputs[2].id, rank, ptr)), C.shape())};
    return materialize(add, od);
  }

  // ------------------------------------------------------------ host fallback

  OpContext hostCtx() {
    OpContext c{&f, &sv, Flavour::Faithful, budget, nullptr};
    const Fusion* fp = &f;
    c.localize = [fp](TensorId t, const Shape& g) {
      return localShape(g, shardDims(*fp, t), std::string(fp->tensorName(t)));
    };
    return c;
  }

  void runOnHost(ExprId id, int64_t rank, const std::string& ptr) {
    const Expr& e = f.exprs[id];
    std::vector<HostTensor> hin;
    hin.reserve(e.inputs.size());
    for (ValueRef v : e.inputs)
      hin.push_back(v.isTensor() ? need(v.id, rank, ptr).download(budget) : HostTensor());
    std::vector<const HostTensor*> args;
    for (size_t i = 0; i < e.inputs.size(); ++i) args.push_back(e.inputs[i].isTensor() ? &hin[i] : nullptr);
    std::vector<HostTensor> res = evalExpr(hostCtx(), id, args);
    for (size_t i = 0; i < res.size(); ++i) local[e.outputs[i]][rank] = DeviceTensor::upload(res[i], budget);
  }

  // ------------------------------------------------------------ segments

  void runCompute(const Segment& s, std::vector<std::string>& host_here) {
    for (ExprId id : s.exprs) {
      const Expr& e = f.exprs[id];
      std::string ptr = "/exprs/" + std::to_string(id);
      FC_CHECK(!e.outputs.empty(), "expr without outputs");
      bool pw = fusible(f, e);
      for (int64_t r : world.ranksOf(e.outputs[0])) {
        if (r < 0) fail("an expr's output lives on no device of the world", ptr, DiagCode::ExecutionFailed);
        if (only_rank >= 0 && r != only_rank) continue;
        if (pw) {
          pending[e.outputs[0]][r] = buildNode(id, r);
          continue;
        }
        if (deviceReduction(f, e)) {
          local[e.outputs[0]][r] = reduce(e, need(e.inputs[0].id, r, ptr), ptr);
          continue;
        }
        if (opInfo(e.op).category == OpCategory::Matmul) {
          if (auto c = matmul(e, r, ptr)) {
            local[e.outputs[0]][r] = std::move(*c);
            continue;
          }
        }
        runOnHost(id, r, ptr);
        std::string name(opName(e.op));
        if (std::find(host_here.begin(), host_here.end(), name) == host_here.end()) host_here.push_back(name);
      }
    }
    // Materialize what leaves the segment.
    for (TensorId t : s.outputs)
      for (int64_t r = 0; r < world.size(); ++r)
        if (pending[t][r]) need(t, r, "/segmentation");
  }

  // The collectives without a device simulation (ReduceScatter, Allgather,
  // Gather, Scatter, Broadcast, SendRecv): the input's per-rank tensors are
  // downloaded, the host executor's simulated ring performs the collective
  // (same model, bit for bit), and the output's are uploaded.
  void runCommunicationOnHostFor(const Segment& s, TensorId I, TensorId O, SegmentRun& rec) {
    std::vector<std::vector<std::optional<HostTensor>>> host(
        f.tensors.size(), std::vector<std::optional<HostTensor>>(world.size()));
    std::string ptr = "/exprs/" + std::to_string(s.exprs[0]);
    for (int64_t r : world.ranksOf(I))
      if (r >= 0) host[I][r] = need(I, r, ptr).download(budget);
    runCommunicationOnHost(sf, world, s, sv, budget, host, rec);
    for (int64_t r = 0; r < world.size(); ++r)
      if (host[O][r]) local[O][r] = DeviceTensor::upload(*host[O][r], budget);
    rec.summary += " (simulated on the host)";
  }

  void runCommunication(const Segment& s, SegmentRun& rec) {
    CommunicationExpr ce = communicationExpr(f, s);
    const Expr& e = f.exprs[ce.expr];
    const std::string& ptr = ce.pointer;
    TensorId I = ce.in, O = ce.out;
    std::vector<int64_t> rin = world.ranksOf(I), rout = world.ranksOf(O);
    rec.summary = std::string(commKindName(s.comm)) + " " + std::string(f.tensorName(I)) + " -> " +
                  std::string(f.tensorName(O)) + " over " + std::to_string(rin.size()) +
                  " ranks (on the GPU)";
    for (TensorId t : {I, O}) {
      MeshId m = f.tensors[t].mesh;
      if (m != kNone && m < f.meshes.size() && f.meshes[m].shape.size() > 1)
        fail("communications over n-D meshes are not supported by the CUDA executor yet", ptr,
             DiagCode::ExecutionFailed);
    }
    if (s.comm != CommKind::Allreduce && s.comm != CommKind::Reduce) {
      runCommunicationOnHostFor(s, I, O, rec);
      return;
    }
    if (!deviceReduction(f, e) || e.op == OpKind::Mean)
      fail(std::string(opName(e.op)) + " cannot be lowered to a reduction collective on the GPU", ptr,
           DiagCode::UnlowerableResharding);
    DType odt = f.tensors[O].dtype;
    int64_t R = static_cast<int64_t>(rin.size());
    if (R > 64) fail("more than 64 simulated ranks", ptr, DiagCode::ExecutionFailed);
    // Local part: the rank's reduction over its slice of the reduced dims.
    // When that slice has one element in the output dtype it is the input
    // itself, and the ring reads the input buffers directly.
    std::vector<DeviceTensor> partial;
    std::vector<const void*> src;
    Shape oshape;
    for (int64_t r : rin) {
      const DeviceTensor& x = need(I, r, ptr);
      Shape keep = reducedShape(e, x, ptr);
      bool passthrough = x.dtype() == odt && numelOf(keep).value_or(-1) == x.numel();
      if (passthrough) {
        src.push_back(x.data());
      } else {
        partial.push_back(reduce(e, x, ptr));
        src.push_back(partial.back().data());
      }
      if (r == rin[0]) oshape = keep;
      if (keep != oshape)
        fail("ranks hold different shapes for the collective", ptr, DiagCode::ExecutionFailed);
    }
    int64_t count = numelOf(oshape).value_or(0);
    auto indexIn = [](const std::vector<int64_t>& v, int64_t x) -> int64_t {
      auto it = std::find(v.begin(), v.end(), x);
      return it == v.end() ? -1 : it - v.begin();
    };
    if (s.comm == CommKind::Allreduce) {
      for (int64_t r : rout)
        if (indexIn(rin, r) < 0)
          fail("Allreduce output lives on a device outside its input mesh", ptr, DiagCode::ExecutionFailed);
      std::vector<DeviceTensor> outs;
      std::vector<void*> dst;
      for (int64_t k = 0; k < R; ++k) {
        outs.emplace_back(odt, oshape, budget);
        dst.push_back(outs.back().data());
      }
      launchRingReduce(src.data(), dst.data(), static_cast<int>(R), count, odt, e.op, true, 0);
      for (int64_t k = 0; k < R; ++k)
        if (indexIn(rout, rin[k]) >= 0) local[O][rin[k]] = std::move(outs[k]);
    } else {
      if (rout.size() != 1 || indexIn(rin, rout[0]) < 0)
        fail("Reduce needs a one-device output mesh inside the input mesh", ptr, DiagCode::ExecutionFailed);
      int64_t root = indexIn(rin, rout[0]);
      DeviceTensor out(odt, oshape, budget);
      void* dst[1] = {out.data()};
      launchRingReduce(src.data(), dst, static_cast<int>(R), count, odt, e.op, false, static_cast<int>(root));
      local[O][rout[0]] = std::move(out);
    }
  }
};

CudaProgram::CudaProgram(const SegmentedFusion& sf, const World& world, ScalarValues& sv,
                         MemoryBudget* budget) {
  FC_CHECK(sf.fusion != nullptr, "segmented fusion without its fusion");
  std::string why;
  if (!deviceAvailable(&why)) fail("no CUDA device: " + why, "", DiagCode::NoDevice);
  impl_ = std::make_unique<Impl>(sf, world, sv, budget);
}

CudaProgram::~CudaProgram() = default;

void CudaProgram::uploadInputs(const RunInputs& in) {
  const Fusion& f = impl_->f;
  FC_CHECK(in.values.size() == f.inputs.size(), "inputs do not match the fusion");
  for (size_t p = 0; p < f.inputs.size(); ++p) {
    if (!f.inputs[p].isTensor()) continue;
    TensorId t = f.inputs[p].id;
    for (size_t r = 0; r < in.values[p].local.size() && r < impl_->local[t].size(); ++r)
      if (in.values[p].local[r] && (impl_->only_rank < 0 || static_cast<int64_t>(r) == impl_->only_rank))
        impl_->local[t][r] = DeviceTensor::upload(*in.values[p].local[r], impl_->budget);
  }
}

void CudaProgram::setTensor(TensorId t, int64_t rank, DeviceTensor d) {
  impl_->local.at(t).at(rank) = std::move(d);
}

void CudaProgram::restrictToRank(int64_t rank, CommunicationHook communicate) {
  impl_->only_rank = rank;
  impl_->communicate = std::move(communicate);
}

void CudaProgram::run(std::optional<uint32_t> stop_at, std::vector<SegmentRun>* progress) {
  Impl& m = *impl_;
  m.reset();
  std::vector<SegmentRun> own;
  std::vector<SegmentRun>& recs = progress ? *progress : own;
  recs.clear();
  for (const Segment& s : m.sf.segments) {
    std::string ops;
    for (ExprId e : s.exprs) ops += (ops.empty() ? "" : ", ") + std::string(opName(m.f.exprs[e].op));
    recs.push_back(
        SegmentRun{s.id, s.kind, s.comm, "not-run",
                   s.kind == SegmentKind::Compute ? "compute: " + ops : std::string(commKindName(s.comm))});
  }
  for (size_t i = 0; i < m.sf.segments.size(); ++i) {
    const Segment& s = m.sf.segments[i];
    SegmentRun& rec = recs[i];
    if (stop_at && s.id >= *stop_at) {
      if (s.id == *stop_at) rec.status = "failed";
      continue;
    }
    rec.status = "failed";
    if (s.kind == SegmentKind::Compute) {
      std::vector<std::string> host_here;
      m.runCompute(s, host_here);
      if (!host_here.empty()) {
        std::string h;
        for (auto& x : host_here) h += (h.empty() ? "" : ", ") + x;
        rec.summary += " (host: " + h + ")";
      }
    } else if (m.communicate) {
      m.communicate(s, rec);
    } else {
      m.runCommunication(s, rec);
    }
    FC_CUDA(cudaDeviceSynchronize());  // reports a kernel's failure at its segment
    rec.status = "ran";
  }
}

const DeviceTensor* CudaProgram::tensor(TensorId t, int64_t rank) const {
  if (t >= impl_->local.size() || rank < 0 || rank >= static_cast<int64_t>(impl_->local[t].size()))
    return nullptr;
  const auto& x = impl_->local[t][rank];
  return x ? &*x : nullptr;
}

SegmentedRun CudaProgram::collectOutputs(MemoryBudget* budget) const {
  const Fusion& f = impl_->f;
  SegmentedRun out;
  out.local.assign(f.tensors.size(), std::vector<std::optional<HostTensor>>(impl_->world.size()));
  for (TensorId t : f.outputs)
    for (int64_t r = 0; r < impl_->world.size(); ++r)
      if (const DeviceTensor* d = tensor(t, r)) out.local[t][r] = d->download(budget);
  return out;
}

SegmentedRun runSegmentedCuda(const SegmentedFusion& sf, const World& world, const RunInputs& in,
                              ScalarValues& scalars, MemoryBudget* budget, std::optional<uint32_t> stop_at,
                              std::vector<SegmentRun>* progress) {
  CudaProgram prog(sf, world, scalars, budget);
  prog.uploadInputs(in);
  std::vector<SegmentRun> recs;
  std::vector<SegmentRun>& r = progress ? *progress : recs;
  prog.run(stop_at, &r);
  SegmentedRun out = prog.collectOutputs(budget);
  out.segments = r;
  return out;
}

}  // namespace fc::exec::cuda
