// The CUDA segmented executor (see cuda_executor.h): device tensors shared
// between ranks, pointwise fusion into one kernel per materialized tensor,
// and the segment loop. Reductions, matmul and data movement are in
// cuda_executor_ops.cpp, collectives in cuda_executor_comm.cpp.
#include "exec/cuda/cuda_executor.h"

#include <algorithm>
#include <cstring>
#include <set>
#include <string>

#include "exec/cuda/cuda_program_impl.h"
#include "exec/cuda/cuda_status.h"
#include "exec/exec_error.h"
#include "exec/sharding.h"
#include "support/internal_error.h"
#include "support/progress.h"

namespace fc::exec::cuda {

CudaProgram::Impl::Impl(const SegmentedFusion& s, const World& w, ScalarValues& v, MemoryBudget* b)
    : sf(s), f(*s.fusion), world(w), sv(v), budget(b) {
  local.assign(f.tensors.size(), std::vector<TensorP>(world.size()));
  pending.assign(f.tensors.size(), std::vector<NodeP>(world.size()));
  is_input.assign(f.tensors.size(), false);
  is_output.assign(f.tensors.size(), false);
  for (ValueRef v2 : f.inputs)
    if (v2.isTensor()) is_input[v2.id] = true;
  for (TensorId t : f.outputs) is_output[t] = true;
}

void CudaProgram::Impl::reset() {
  for (size_t t = 0; t < f.tensors.size(); ++t) {
    if (is_input[t]) continue;
    for (auto& x : local[t]) x.reset();
    for (auto& p : pending[t]) p.reset();
  }
  materialized.clear();
}

// ------------------------------------------------------------ pointwise

std::shared_ptr<DeviceTensor> CudaProgram::Impl::newTensor(DType dtype, const Shape& shape) {
  return std::make_shared<DeviceTensor>(dtype, shape, budget);
}

PwRef CudaProgram::Impl::flatten(const NodeP& n, PwProgram& p, std::map<const Node*, int>& regs, Flat& fl) {
  PwRef ref;
  if (n->kind == Node::Const) {
    ref.kind = PwRef::Const;
    ref.value = n->value;
    return ref;
  }
  if (n->kind == Node::Leaf) {
    const void* data = nullptr;
    bool ring = false;
    if (n->ring && !n->ring->result) {
      bool ok = fl.allow_ring && n->offset == 0 && (!fl.ring || fl.ring == n->ring) &&
                static_cast<int>(n->ring->src.size()) <= kMaxRingRanks;
      if (!ok) {
        fl.failed = true;
        return ref;
      }
      fl.ring = n->ring;
      ring = true;
    } else {
      const TensorP& t = n->ring ? n->ring->result : n->tensor;
      data = static_cast<const char*>(t->data()) + n->offset * static_cast<int64_t>(dtypeBytes(t->dtype()));
    }
    for (int l = 0; l < p.n_leaves; ++l) {
      bool same = ring ? l == p.ring_leaf : p.leaves[l].data == data && l != p.ring_leaf;
      for (int d = 0; same && d < p.rank; ++d) same = p.leaves[l].strides[d] == n->strides[d];
      if (same) return PwRef{PwRef::Leaf, static_cast<uint8_t>(l), 0};
    }
    if (ring && p.ring_leaf >= 0) {  // the same ring read through other strides
      fl.failed = true;
      return ref;
    }
    FC_CHECK(p.n_leaves < kMaxLeaves, "pointwise program has too many leaves");
    LeafView& lv = p.leaves[p.n_leaves];
    lv.data = data;
    lv.dtype = n->dtype;
    for (int d = 0; d < p.rank; ++d) lv.strides[d] = n->strides[d];
    if (n->dtype == DType::Double || isIntegral(n->dtype)) p.fp64 = true;
    if (ring) {
      p.ring_leaf = p.n_leaves;
      const RingSpec& r = *n->ring;
      p.ring.R = static_cast<int>(r.src.size());
      for (int k = 0; k < p.ring.R; ++k) p.ring.src[k] = r.src[k]->data();
      p.ring.count = r.count;
      p.ring.op = r.op;
    }
    return PwRef{PwRef::Leaf, static_cast<uint8_t>(p.n_leaves++), 0};
  }
  auto it = regs.find(n.get());
  if (it != regs.end()) return PwRef{PwRef::Reg, static_cast<uint8_t>(it->second), 0};
  PwInstr in;
  in.op = n->op;
  in.approx_tanh = n->approx;
  in.round_to = n->dtype;
  in.nargs = static_cast<uint8_t>(n->kids.size());
  for (size_t k = 0; k < n->kids.size(); ++k) in.args[k] = flatten(n->kids[k], p, regs, fl);
  FC_CHECK(p.n_instrs < kMaxInstrs, "pointwise program has too many instructions");
  if (n->dtype == DType::Double || isIntegral(n->dtype)) p.fp64 = true;
  p.instrs[p.n_instrs] = in;
  regs[n.get()] = p.n_instrs;
  return PwRef{PwRef::Reg, static_cast<uint8_t>(p.n_instrs++), 0};
}

// The rings a tree reads that are not materialized.
static void ringsOf(const NodeP& n, std::vector<RingP>& out) {
  if (n->kind == Node::Leaf && n->ring && !n->ring->result &&
      std::find(out.begin(), out.end(), n->ring) == out.end())
    out.push_back(n->ring);
  for (const NodeP& k : n->kids) ringsOf(k, out);
}

TensorP CudaProgram::Impl::materialize(const NodeP& n, DType dtype) {
  if (auto it = materialized.find(n); it != materialized.end() && it->second->dtype() == dtype)
    return it->second;
  if (n->shape.size() > static_cast<size_t>(kMaxRank))
    fail("the CUDA backend supports tensors of rank <= " + std::to_string(kMaxRank), {},
         DiagCode::ExecutionFailed);
  TensorP out;
  if (n->kind == Node::Leaf && n->ring && n->offset == 0 && isContiguousLeaf(n) && dtype == n->ring->dtype &&
      n->shape == n->ring->shape) {
    out = materializeRing(n->ring);  // the ring's result itself
  } else {
    auto t = std::make_shared<DeviceTensor>(dtype, n->shape, budget);
    bool launched = false;
    for (bool fused : {opts.fuse_collectives, false}) {
      PwProgram p;
      p.rank = static_cast<int>(n->shape.size());
      for (int d = 0; d < p.rank; ++d) p.shape[d] = n->shape[d];
      std::map<const Node*, int> regs;
      Flat fl;
      fl.allow_ring = fused;
      if (!fused) {  // the rings this tree reads, materialized first
        std::vector<RingP> rings;
        ringsOf(n, rings);
        for (const RingP& r : rings) materializeRing(r);
      }
      PwRef r = flatten(n, p, regs, fl);
      if (fl.failed) continue;
      if (r.kind != PwRef::Reg) {  // a bare leaf or constant: one copy instruction
        PwInstr in;
        in.op = OpKind::Set;
        in.round_to = dtype;
        in.nargs = 1;
        in.args[0] = r;
        p.instrs[p.n_instrs++] = in;
      }
      if (dtype == DType::Double || isIntegral(dtype)) p.fp64 = true;
      p.out = t->data();
      p.out_dtype = dtype;
      if (p.ring_leaf >= 0) {
        if (!launchPointwiseFused(p)) continue;
        timeline.fuse(fl.ring->segment, current);
      } else {
        launchPointwise(p);
      }
      launched = true;
      break;
    }
    FC_CHECK(launched, "a pointwise tree could not be lowered to a kernel");
    out = t;
  }
  materialized[n] = out;
  return out;
}

TensorP CudaProgram::Impl::materializeRing(const RingP& r) {
  if (r->result) return r->result;
  auto out = std::make_shared<DeviceTensor>(r->dtype, r->shape, budget);
  // One write of the result: the fused kernel over the bare ring, else the
  // ring kernel writing the same buffer for every rank.
  PwProgram p;
  p.rank = 1;
  p.shape[0] = r->count;
  p.leaves[0].dtype = r->dtype;
  p.leaves[0].strides[0] = 1;
  p.n_leaves = 1;
  p.ring_leaf = 0;
  p.ring.R = static_cast<int>(r->src.size());
  for (int k = 0; k < p.ring.R && k < kMaxRingRanks; ++k) p.ring.src[k] = r->src[k]->data();
  p.ring.count = r->count;
  p.ring.op = r->op;
  p.instrs[0].op = OpKind::Set;
  p.instrs[0].round_to = r->dtype;
  p.instrs[0].nargs = 1;
  p.instrs[0].args[0] = PwRef{PwRef::Leaf, 0, 0};
  p.n_instrs = 1;
  p.out = out->data();
  p.out_dtype = r->dtype;
  if (!(p.ring.R <= kMaxRingRanks && launchPointwiseFused(p))) {
    std::vector<const void*> src;
    for (const TensorP& s : r->src) src.push_back(s->data());
    std::vector<void*> dst(r->src.size(), out->data());
    launchRingReduce(src.data(), dst.data(), static_cast<int>(src.size()), r->count, r->dtype, r->op, true,
                     0);
  }
  timeline.fuse(r->segment, current);
  r->result = out;
  return out;
}

TensorP CudaProgram::Impl::needP(TensorId t, int64_t rank, const Place& where) {
  if (rank < 0 || rank >= world.size())
    fail("tensor " + std::string(f.tensorName(t)) + " has no device here", where, DiagCode::ExecutionFailed);
  if (!local[t][rank] && pending[t][rank]) {
    local[t][rank] = materialize(pending[t][rank], f.tensors[t].dtype);
    pending[t][rank].reset();
  }
  if (!local[t][rank])
    fail("tensor " + std::string(f.tensorName(t)) + " is not available on device " +
             std::to_string(world.devices()[rank]) + " when its consumer runs",
         where, DiagCode::ExecutionFailed);
  return local[t][rank];
}

NodeP CudaProgram::Impl::nodeOf(TensorId t, int64_t rank, const Place& where) {
  if (rank >= 0 && rank < world.size() && pending[t][rank]) return pending[t][rank];
  return leafOf(needP(t, rank, where));
}

// Keeps fused trees within the kernel's limits: an operand tree that is
// large is materialized into a temporary first.
NodeP CudaProgram::Impl::bounded(NodeP n) {
  if (n->kind != Node::Op) return n;
  if (n->ops < kMaxInstrs / 3 && n->leaves < kMaxLeaves / 3 + 1) return n;
  return leafOf(materialize(n, n->dtype));
}

bool CudaProgram::Impl::fusible(const Fusion& f, const Expr& e) {
  OpCategory c = opInfo(e.op).category;
  bool pw = c == OpCategory::Set || c == OpCategory::Cast || c == OpCategory::Unary ||
            c == OpCategory::Binary || c == OpCategory::Compare || c == OpCategory::Ternary;
  bool view = e.op == OpKind::Broadcast || e.op == OpKind::Permute || e.op == OpKind::Squeeze;
  if (!pw && !view) return false;
  for (TensorId o : e.outputs)
    if (isIntegral(f.tensors[o].dtype)) return false;
  for (ValueRef v : e.inputs)
    if (v.isTensor() && isIntegral(f.tensors[v.id].dtype)) return false;
  return true;
}

// Builds the lazy tree of a fusible expr on one rank.
NodeP CudaProgram::Impl::buildNode(ExprId id, int64_t rank) {
  const Expr& e = f.exprs[id];
  Place where = Place::expr(id);
  auto bad = [&](const std::string& m) { fail(std::string(opName(e.op)) + ": " + m, where); };
  std::vector<NodeP> args;
  for (ValueRef v : e.inputs) {
    if (v.isTensor()) {
      args.push_back(bounded(nodeOf(v.id, rank, where)));
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
      if (n < 0 || n >= r) bad("dim " + std::to_string(d) + " is out of range for rank " + std::to_string(r));
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

// ------------------------------------------------------------ segments

// Whether `t` has no sharded dim (a layout shardDims rejects counts as
// sharded: nothing is shared then).
static bool unsharded(const Fusion& f, TensorId t) {
  try {
    return shardDims(f, t).empty();
  } catch (const ExecError&) {
    return false;
  }
}

std::optional<int64_t> CudaProgram::Impl::replicaOf(const Expr& e, int64_t rank,
                                                    const std::vector<int64_t>& done) const {
  if (!opts.share_replicas || done.empty()) return std::nullopt;
  for (TensorId o : e.outputs)  // a sharded output differs between ranks by construction
    if (!unsharded(f, o)) return std::nullopt;
  for (int64_t r0 : done) {
    bool same = true;
    for (ValueRef v : e.inputs) {
      if (!v.isTensor()) continue;
      const NodeP& a = pending[v.id][rank];
      const NodeP& b = pending[v.id][r0];
      if (a || b)
        same = a == b;
      else
        same = local[v.id][rank] && local[v.id][rank] == local[v.id][r0];
      if (!same) break;
    }
    if (same) return r0;
  }
  return std::nullopt;
}

void CudaProgram::Impl::runCompute(const Segment& s, std::vector<std::string>& host_here) {
  for (ExprId id : s.exprs) {
    const Expr& e = f.exprs[id];
    Place where = Place::expr(id);
    FC_CHECK(!e.outputs.empty(), "expr without outputs");
    bool pw = fusible(f, e);
    std::vector<int64_t> done;
    for (int64_t r : world.ranksOf(e.outputs[0])) {
      if (r < 0) fail("an expr's output lives on no device of the world", where, DiagCode::ExecutionFailed);
      if (only_rank >= 0 && r != only_rank) continue;
      if (std::optional<int64_t> r0 = replicaOf(e, r, done)) {
        for (TensorId o : e.outputs) {
          local[o][r] = local[o][*r0];
          pending[o][r] = pending[o][*r0];
        }
        continue;
      }
      done.push_back(r);
      if (pw) {
        pending[e.outputs[0]][r] = buildNode(id, r);
        continue;
      }
      if (deviceReduction(f, e)) {
        local[e.outputs[0]][r] = reduce(e, need(e.inputs[0].id, r, where), where);
        continue;
      }
      if (opInfo(e.op).category == OpCategory::Matmul) {
        if (auto c = matmul(e, r, where)) {
          local[e.outputs[0]][r] = std::move(*c);
          continue;
        }
      }
      if (dataMovement(id, r)) continue;
      runOnHost(id, r, where);
      std::string name(opName(e.op));
      if (std::find(host_here.begin(), host_here.end(), name) == host_here.end()) host_here.push_back(name);
    }
  }
  // Materialize what leaves the segment.
  for (TensorId t : s.outputs)
    for (int64_t r = 0; r < world.size(); ++r)
      if (pending[t][r]) needP(t, r, Place::member(PlaceField::Segmentation));
}

// ------------------------------------------------------------ CudaProgram

CudaProgram::CudaProgram(const SegmentedFusion& sf, const World& world, ScalarValues& sv,
                         MemoryBudget* budget) {
  FC_CHECK(sf.fusion != nullptr, "segmented fusion without its fusion");
  std::string why;
  if (!deviceAvailable(&why)) fail("no CUDA device: " + why, {}, DiagCode::NoDevice);
  impl_ = std::make_unique<Impl>(sf, world, sv, budget);
}

CudaProgram::~CudaProgram() {
  for (cudaEvent_t e : impl_->events) cudaEventDestroy(e);
}

void CudaProgram::setOptions(const Options& o) { impl_->opts = o; }
const CudaProgram::Options& CudaProgram::options() const { return impl_->opts; }

SegmentTimes CudaProgram::segmentTimes() const {
  const Impl& m = *impl_;
  if (!m.opts.timing || m.events.empty()) return {};
  FC_CUDA(cudaDeviceSynchronize());
  return m.timeline.times([&](int a, int b) {
    float ms = 0;
    FC_CUDA(cudaEventElapsedTime(&ms, m.events[a], m.events[b]));
    return static_cast<double>(ms);
  });
}

void CudaProgram::uploadInputs(const RunInputs& in, const DeviceInputs* device_inputs) {
  Impl& m = *impl_;
  const Fusion& f = m.f;
  FC_CHECK(in.values.size() == f.inputs.size(), "inputs do not match the fusion");
  for (size_t p = 0; p < f.inputs.size(); ++p) {
    if (!f.inputs[p].isTensor()) continue;
    TensorId t = f.inputs[p].id;
    if (in.values[p].shards_in_sink) {
      FC_CHECK(device_inputs != nullptr, "inputs held on the device without their buffers");
      const bool share = m.opts.share_replicas && unsharded(f, t);
      std::set<const DeviceTensor*> given;  // buffers a rank already holds
      for (size_t r = 0; r < m.local[t].size(); ++r) {
        if (m.only_rank >= 0 && static_cast<int64_t>(r) != m.only_rank) continue;
        std::shared_ptr<DeviceTensor> d = device_inputs->shard(p, static_cast<int64_t>(r));
        m.local[t][r].reset();
        if (!d) continue;
        if (share || given.insert(d.get()).second) {
          m.local[t][r] = d;
        } else {
          auto c = std::make_shared<DeviceTensor>(d->dtype(), d->shape(), m.budget);
          c->copyBlockFrom(*d, std::vector<int64_t>(d->shape().size(), 0));
          m.local[t][r] = std::move(c);
        }
      }
      continue;
    }
    const auto& locals = in.values[p].local;
    // A replicated input whose ranks hold the same bits is uploaded once.
    bool replicated = m.opts.share_replicas && unsharded(f, t);
    for (size_t r = 0; r < locals.size() && r < m.local[t].size(); ++r) {
      if (!locals[r] || (m.only_rank >= 0 && static_cast<int64_t>(r) != m.only_rank)) continue;
      const HostTensor& h = *locals[r];
      m.local[t][r].reset();
      for (size_t r0 = 0; replicated && r0 < r; ++r0) {
        const HostTensor* h0 = locals[r0] ? &*locals[r0] : nullptr;
        if (m.local[t][r0] && h0 && h0->dtype() == h.dtype() && h0->shape() == h.shape() &&
            std::memcmp(h0->data(), h.data(), static_cast<size_t>(h.numel()) * sizeof(double)) == 0) {
          m.local[t][r] = m.local[t][r0];
          break;
        }
      }
      if (!m.local[t][r]) m.local[t][r] = std::make_shared<DeviceTensor>(DeviceTensor::upload(h, m.budget));
    }
  }
}

void CudaProgram::setTensor(TensorId t, int64_t rank, DeviceTensor d) {
  impl_->local.at(t).at(rank) = std::make_shared<DeviceTensor>(std::move(d));
  impl_->pending.at(t).at(rank).reset();
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
  recs = plannedRuns(m.sf);
  const size_t n = m.sf.segments.size();
  std::vector<uint32_t> ids;
  for (const Segment& s : m.sf.segments) ids.push_back(s.id);
  m.timeline.reset(ids);
  if (m.opts.timing)
    while (m.events.size() < 2 * n) {
      cudaEvent_t e = nullptr;
      FC_CUDA(cudaEventCreate(&e));
      m.events.push_back(e);
    }
  auto runs = [&](size_t i) { return !(stop_at && m.sf.segments[i].id >= *stop_at); };
  bool begun = false;  // segment i's begin event is recorded
  for (size_t i = 0; i < n; ++i) {
    const Segment& s = m.sf.segments[i];
    SegmentRun& rec = recs[i];
    if (!startSegment(recs, i, stop_at, m.opts.sync_each_segment ? "" : "queued")) continue;
    m.current = i;
    if (m.opts.timing && !begun) FC_CUDA(cudaEventRecord(m.events[2 * i], nullptr));
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
    begun = false;
    if (m.opts.timing) {
      // The next segment's begin right after this one's end: the host's
      // work between them (waiting, preparing the next launches) is the
      // next segment's.
      FC_CUDA(cudaEventRecord(m.events[2 * i + 1], nullptr));
      m.timeline.ran(i, static_cast<int>(2 * i), static_cast<int>(2 * i + 1));
      if (i + 1 < n && runs(i + 1)) {
        FC_CUDA(cudaEventRecord(m.events[2 * i + 2], nullptr));
        begun = true;
      }
    }
    if (m.opts.sync_each_segment) FC_CUDA(cudaDeviceSynchronize());  // a kernel's failure, at its segment
    rec.status = "ran";
  }
}

const DeviceTensor* CudaProgram::tensor(TensorId t, int64_t rank) const {
  if (t >= impl_->local.size() || rank < 0 || rank >= static_cast<int64_t>(impl_->local[t].size()))
    return nullptr;
  return impl_->local[t][rank].get();
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

SegmentedRun CudaProgram::runAndCollect(const RunInputs& in, std::optional<uint32_t> stop_at,
                                        std::vector<SegmentRun>* progress) {
  uploadInputs(in);
  std::vector<SegmentRun> own;
  std::vector<SegmentRun>& recs = progress ? *progress : own;
  run(stop_at, &recs);
  reportStep(recs.size(), recs.size(), "copying the outputs to the host");
  SegmentedRun out = collectOutputs(impl_->budget);
  out.segments = recs;
  return out;
}

}  // namespace fc::exec::cuda
