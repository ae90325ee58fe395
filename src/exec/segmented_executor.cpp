// Segment-by-segment execution over simulated ranks (see segmented_executor.h).
#include "exec/segmented_executor.h"

#include <algorithm>

#include "exec/exec_error.h"
#include "exec/op_eval.h"
#include "support/internal_error.h"
#include "support/progress.h"

namespace fc::exec {

namespace {

// Walks the `n` elements of a row-major layout `front` that holds dim k of
// another layout first, the other dims after it in order: calls
// f(i, off) with `i` the element's index in `front` and `off` its offset in
// the other layout, whose strides are `strides`.
template <class F>
void forEachMovedElement(int64_t n, const Shape& front, const std::vector<int64_t>& strides, int64_t k,
                         F&& f) {
  auto rank = static_cast<int64_t>(strides.size());
  std::vector<int64_t> idx(front.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t off = idx[0] * strides[k];
    for (int64_t d = 0, j = 1; d < rank; ++d)
      if (d != k) off += idx[j++] * strides[d];
    f(i, off);
    for (size_t d = front.size(); d-- > 0;) {
      if (++idx[d] < front[d]) break;
      idx[d] = 0;
    }
  }
}

}  // namespace

// Moves dim k to the front (so that its chunks are contiguous).
HostTensor moveToFront(const HostTensor& x, int64_t k) {
  Shape s = x.shape();
  Shape o{s[k]};
  for (int64_t d = 0; d < x.rank(); ++d)
    if (d != k) o.push_back(s[d]);
  HostTensor r(x.dtype(), o, x.budget());
  forEachMovedElement(r.numel(), o, x.strides(), k, [&](int64_t i, int64_t off) { r[i] = x[off]; });
  return r;
}

// Inverse of moveToFront: `x` has dim k in front.
HostTensor moveFromFront(const HostTensor& x, int64_t k) {
  Shape o;
  for (int64_t d = 1; d < x.rank(); ++d) o.push_back(x.size(d));
  o.insert(o.begin() + k, x.size(0));
  HostTensor r(x.dtype(), o, x.budget());
  forEachMovedElement(x.numel(), x.shape(), r.strides(), k, [&](int64_t i, int64_t off) { r[off] = x[i]; });
  return r;
}

CommunicationExpr communicationExpr(const Fusion& f, const Segment& s) {
  if (s.exprs.size() != 1)
    fail("communication segment " + std::to_string(s.id) + " has " + std::to_string(s.exprs.size()) +
             " exprs, not 1",
         Place::member(PlaceField::Segmentation), DiagCode::ExecutionFailed);
  CommunicationExpr c;
  c.expr = s.exprs[0];
  const Expr& ex = f.exprs[c.expr];
  c.where = Place::expr(c.expr);
  if (ex.inputs.empty() || !ex.inputs[0].isTensor() || ex.outputs.size() != 1)
    fail("a communication needs one tensor input and one output", c.where, DiagCode::ExecutionFailed);
  c.in = ex.inputs[0].id;
  c.out = ex.outputs[0];
  return c;
}

ReduceOp collectiveReduceOp(OpKind op, const Place& where) {
  switch (op) {
    case OpKind::Sum: return ReduceOp::Sum;
    case OpKind::Prod: return ReduceOp::Prod;
    case OpKind::Max: return ReduceOp::Max;
    case OpKind::Min: return ReduceOp::Min;
    default:
      fail(std::string(opName(op)) + " cannot be lowered to a reduction collective", where,
           DiagCode::UnlowerableResharding);
  }
}

namespace {

CommBuffer buf(HostTensor& t) { return CommBuffer{t.data(), t.numel(), t.dtype()}; }

std::string joinOps(const Fusion& f, const Segment& s) {
  std::string r;
  for (ExprId e : s.exprs) {
    if (!r.empty()) r += ", ";
    r += std::string(opName(f.exprs[e].op));
  }
  return r;
}

struct Runner {
  const SegmentedFusion& sf;
  const Fusion& f;
  const World& world;
  ScalarValues& sv;
  MemoryBudget* budget;
  const CommunicatorFactory& make_comm;
  SegmentedRun out;

  std::unique_ptr<Communicator> comm(int64_t n) {
    if (make_comm) return make_comm(n);
    return std::make_unique<SimulatedCommunicator>(n);
  }

  const HostTensor& localOf(TensorId t, int64_t rank, const Place& where) {
    if (rank < 0 || !out.local[t][rank])
      fail("tensor " + std::string(f.tensorName(t)) + " is not available on device " +
               std::to_string(rank >= 0 ? world.devices()[rank] : -1) + " when its consumer runs",
           where, DiagCode::ExecutionFailed);
    return *out.local[t][rank];
  }

  OpContext ctx() {
    OpContext c{&f, &sv, Flavour::Faithful, budget, nullptr};
    const Fusion* fp = &f;
    c.localize = [fp](TensorId t, const Shape& g) {
      return localShape(g, shardDims(*fp, t), std::string(fp->tensorName(t)));
    };
    return c;
  }

  void runCompute(const Segment& s) {
    OpContext c = ctx();
    for (ExprId e : s.exprs) {
      const Expr& ex = f.exprs[e];
      Place where = Place::expr(e);
      FC_CHECK(!ex.outputs.empty(), "expr without outputs");
      for (int64_t r : world.ranksOf(ex.outputs[0])) {
        std::vector<const HostTensor*> args;
        for (ValueRef v : ex.inputs) args.push_back(v.isTensor() ? &localOf(v.id, r, where) : nullptr);
        std::vector<HostTensor> res = evalExpr(c, e, args);
        for (size_t i = 0; i < res.size(); ++i) out.local[ex.outputs[i]][r] = std::move(res[i]);
      }
    }
  }

  // The team: the input mesh's ranks, then the output mesh's ranks not in it.
  std::vector<int64_t> team(TensorId in, TensorId o) {
    std::vector<int64_t> t = world.ranksOf(in);
    for (int64_t r : world.ranksOf(o))
      if (std::find(t.begin(), t.end(), r) == t.end()) t.push_back(r);
    return t;
  }

  static int64_t indexIn(const std::vector<int64_t>& v, int64_t x) {
    auto it = std::find(v.begin(), v.end(), x);
    return it == v.end() ? -1 : it - v.begin();
  }

  void runCommunication(const Segment& s, SegmentRun& rec) {
    CommunicationExpr ce = communicationExpr(f, s);
    ExprId e = ce.expr;
    const Expr& ex = f.exprs[e];
    const Place& where = ce.where;
    TensorId I = ce.in, O = ce.out;
    std::vector<int64_t> rin = world.ranksOf(I), rout = world.ranksOf(O), tm = team(I, O);
    std::vector<ShardDim> sin = shardDims(f, I), sout = shardDims(f, O);
    auto oneD = [&](TensorId t) {
      MeshId m = f.tensors[t].mesh;
      if (m != kNone && m < f.meshes.size() && f.meshes[m].shape.size() > 1)
        fail("communications over n-D meshes are not supported by the CPU executor yet", where,
             DiagCode::ExecutionFailed);
    };
    oneD(I);
    oneD(O);
    DType odt = f.tensors[O].dtype;
    auto store = [&](int64_t r, HostTensor t) {
      finishOutput(t, odt, Flavour::Faithful);
      out.local[O][r] = std::move(t);
    };
    rec.summary = std::string(commKindName(s.comm)) + " " + std::string(f.tensorName(I)) + " -> " +
                  std::string(f.tensorName(O)) + " over " + std::to_string(tm.size()) + " ranks";
    bool is_reduction = opInfo(ex.op).category == OpCategory::Reduction;
    ReduceOp rop = is_reduction ? collectiveReduceOp(ex.op, where) : ReduceOp::Sum;
    OpContext c = ctx();
    switch (s.comm) {
      case CommKind::Allreduce:
      case CommKind::ReduceScatter:
      case CommKind::Reduce: {
        if (!is_reduction)
          fail(std::string(commKindName(s.comm)) + " needs a reduction expr", where,
               DiagCode::ExecutionFailed);
        // Local part: reduce the rank's slice (a copy when the DID axis is 1 locally).
        std::vector<HostTensor> partial;
        for (int64_t r : rin) {
          std::vector<const HostTensor*> args{&localOf(I, r, where)};
          OpContext pc = c;
          pc.localize = nullptr;
          partial.push_back(std::move(evalExpr(pc, e, args)[0]));
        }
        int64_t R = static_cast<int64_t>(rin.size());
        auto cm = comm(R);
        if (s.comm == CommKind::Allreduce) {
          std::vector<CommBuffer> bufs;
          for (auto& p : partial) bufs.push_back(buf(p));
          cm->allreduce(bufs, rop);
          for (int64_t k = 0; k < R; ++k)
            if (indexIn(rout, rin[k]) >= 0) store(rin[k], partial[k]);
          for (int64_t r : rout)
            if (indexIn(rin, r) < 0)
              fail("Allreduce output lives on a device outside its input mesh", where,
                   DiagCode::ExecutionFailed);
        } else if (s.comm == CommKind::Reduce) {
          if (rout.size() != 1 || indexIn(rin, rout[0]) < 0)
            fail("Reduce needs a one-device output mesh inside the input mesh", where,
                 DiagCode::ExecutionFailed);
          int64_t root = indexIn(rin, rout[0]);
          std::vector<CommBuffer> bufs;
          for (auto& p : partial) bufs.push_back(buf(p));
          cm->reduce(bufs, root, rop);
          store(rout[0], partial[root]);
        } else {
          if (sout.size() != 1)
            fail("ReduceScatter needs an output sharded on exactly one dim", where,
                 DiagCode::ExecutionFailed);
          int64_t k = sout[0].dim;
          std::vector<HostTensor> send, recv;
          for (auto& p : partial) {
            if (k >= p.rank() || p.size(k) % R != 0)
              fail("ReduceScatter: the scattered dim does not divide by the mesh size", where,
                   DiagCode::ExecutionFailed);
            send.push_back(moveToFront(p, k));
          }
          Shape rs = send[0].shape();
          rs[0] /= R;
          for (int64_t q = 0; q < R; ++q) recv.emplace_back(odt, rs, budget);
          std::vector<CommBuffer> sb, rb;
          for (auto& t : send) sb.push_back(buf(t));
          for (auto& t : recv) rb.push_back(buf(t));
          cm->reduceScatter(sb, rb, rop);
          for (int64_t q = 0; q < R; ++q) store(rin[q], moveFromFront(recv[q], k));
        }
        return;
      }
      case CommKind::Allgather:
      case CommKind::Gather: {
        if (sin.size() != 1)
          fail("a gather needs an input sharded on exactly one dim", where, DiagCode::ExecutionFailed);
        int64_t k = sin[0].dim, R = static_cast<int64_t>(rin.size());
        std::vector<HostTensor> send;
        for (int64_t r : rin) send.push_back(moveToFront(localOf(I, r, where), k));
        Shape gs = send[0].shape();
        gs[0] *= R;
        std::vector<CommBuffer> sb;
        for (auto& t : send) sb.push_back(buf(t));
        if (s.comm == CommKind::Allgather) {
          std::vector<HostTensor> recv;
          for (int64_t q = 0; q < R; ++q) recv.emplace_back(send[0].dtype(), gs, budget);
          std::vector<CommBuffer> rb;
          for (auto& t : recv) rb.push_back(buf(t));
          comm(R)->allgather(sb, rb);
          for (int64_t q = 0; q < R; ++q)
            if (indexIn(rout, rin[q]) >= 0) store(rin[q], moveFromFront(recv[q], k));
        } else {
          // Gather to each output device (team: input ranks + the receiver).
          for (int64_t dst : rout) {
            HostTensor recv(send[0].dtype(), gs, budget);
            std::vector<CommBuffer> tsb = sb;
            int64_t root = indexIn(rin, dst);
            std::vector<HostTensor> extra;
            if (root < 0) {  // receiver outside the senders: it joins with an empty contribution
              root = R;
              extra.emplace_back(send[0].dtype(), send[0].shape(), budget);
              tsb.push_back(buf(extra[0]));
              Shape bs = gs;
              bs[0] = gs[0] / R * (R + 1);
              HostTensor big(send[0].dtype(), bs, budget);
              comm(R + 1)->gather(tsb, buf(big), root);
              std::copy(big.data(), big.data() + recv.numel(), recv.data());
            } else {
              comm(R)->gather(sb, buf(recv), root);
            }
            store(dst, moveFromFront(recv, k));
          }
        }
        return;
      }
      case CommKind::Scatter: {
        if (sout.size() != 1 || rin.size() != 1)
          fail("Scatter needs a one-device input and an output sharded on one dim", where,
               DiagCode::ExecutionFailed);
        int64_t k = sout[0].dim, R = static_cast<int64_t>(rout.size());
        HostTensor src = moveToFront(localOf(I, rin[0], where), k);
        if (src.size(0) % R != 0)
          fail("Scatter: the scattered dim does not divide by the mesh size", where,
               DiagCode::ExecutionFailed);
        Shape rs = src.shape();
        rs[0] /= R;
        // Team = output ranks (+ the root when outside).
        int64_t root = indexIn(rout, rin[0]);
        int64_t T = root < 0 ? R + 1 : R;
        if (root < 0) root = R;
        HostTensor padded(src.dtype(), Shape{src.numel() / R * T}, budget);
        std::copy(src.data(), src.data() + src.numel(), padded.data());
        std::vector<HostTensor> recv;
        for (int64_t q = 0; q < T; ++q) recv.emplace_back(src.dtype(), rs, budget);
        std::vector<CommBuffer> rb;
        for (auto& t : recv) rb.push_back(buf(t));
        comm(T)->scatter(buf(padded), root, rb);
        for (int64_t q = 0; q < R; ++q) store(rout[q], moveFromFront(recv[q], k));
        return;
      }
      case CommKind::Broadcast: {
        if (rin.size() != 1)
          fail("Broadcast needs a one-device input mesh", where, DiagCode::ExecutionFailed);
        const HostTensor& src = localOf(I, rin[0], where);
        std::vector<HostTensor> bufs;
        for (size_t q = 0; q < tm.size(); ++q)
          bufs.push_back(tm[q] == rin[0] ? src : HostTensor(src.dtype(), src.shape(), budget));
        std::vector<CommBuffer> bb;
        for (auto& t : bufs) bb.push_back(buf(t));
        comm(static_cast<int64_t>(tm.size()))->broadcast(bb, 0);
        for (size_t q = 0; q < tm.size(); ++q)
          if (indexIn(rout, tm[q]) >= 0) store(tm[q], bufs[q]);
        return;
      }
      case CommKind::SendRecv: {
        if (rin.size() != rout.size())
          fail("SendRecv needs meshes of one size", where, DiagCode::ExecutionFailed);
        auto cm = comm(static_cast<int64_t>(tm.size()));
        for (size_t q = 0; q < rin.size(); ++q) {
          const HostTensor& src = localOf(I, rin[q], where);
          HostTensor dst(src.dtype(), src.shape(), budget);
          HostTensor s2 = src;
          cm->sendRecv(buf(s2), indexIn(tm, rin[q]), buf(dst), indexIn(tm, rout[q]));
          store(rout[q], std::move(dst));
        }
        return;
      }
      default:
        fail(std::string("the CPU executor does not perform ") + std::string(commKindName(s.comm)) +
                 " communications",
             where, DiagCode::ExecutionFailed);
    }
  }
};

}  // namespace

void runCommunicationOnHost(const SegmentedFusion& sf, const World& world, const Segment& s,
                            ScalarValues& scalars, MemoryBudget* budget,
                            std::vector<std::vector<std::optional<HostTensor>>>& local, SegmentRun& rec,
                            const CommunicatorFactory& make_comm) {
  FC_CHECK(sf.fusion != nullptr && local.size() == sf.fusion->tensors.size(), "host communication setup");
  Runner run{sf, *sf.fusion, world, scalars, budget, make_comm, {}};
  run.out.local = std::move(local);
  struct Restore {  // hands the tensors back on every path, throws included
    Runner& r;
    std::vector<std::vector<std::optional<HostTensor>>>& l;
    ~Restore() { l = std::move(r.out.local); }
  } restore{run, local};
  run.runCommunication(s, rec);
}

std::vector<SegmentRun> plannedRuns(const SegmentedFusion& sf) {
  FC_CHECK(sf.fusion != nullptr, "segmented fusion without its fusion");
  std::vector<SegmentRun> recs;
  recs.reserve(sf.segments.size());
  for (const Segment& s : sf.segments)
    recs.push_back(SegmentRun{s.id, s.kind, s.comm, "not-run",
                              s.kind == SegmentKind::Compute ? "compute: " + joinOps(*sf.fusion, s)
                                                             : std::string(commKindName(s.comm))});
  return recs;
}

bool startSegment(std::vector<SegmentRun>& recs, size_t i, std::optional<uint32_t> stop_at,
                  std::string_view how) {
  SegmentRun& rec = recs[i];
  if (stop_at && rec.id >= *stop_at) {
    if (rec.id == *stop_at) rec.status = "failed";
    return false;
  }
  std::string detail = "segment " + std::to_string(rec.id);
  if (!how.empty()) detail += " " + std::string(how);
  reportStep(i, recs.size(), detail + ": " + rec.summary);
  rec.status = "failed";  // until it completes
  return true;
}

SegmentedRun runSegmented(const SegmentedFusion& sf, const World& world, const RunInputs& in,
                          ScalarValues& scalars, MemoryBudget* budget, std::optional<uint32_t> stop_at,
                          const CommunicatorFactory& make_comm, std::vector<SegmentRun>* progress) {
  FC_CHECK(sf.fusion != nullptr, "segmented fusion without its fusion");
  const Fusion& f = *sf.fusion;
  Runner run{sf, f, world, scalars, budget, make_comm, {}};
  run.out.local.assign(f.tensors.size(), std::vector<std::optional<HostTensor>>(world.size()));
  FC_CHECK(in.values.size() == f.inputs.size(), "inputs do not match the fusion");
  for (size_t p = 0; p < f.inputs.size(); ++p)
    if (f.inputs[p].isTensor()) run.out.local[f.inputs[p].id] = in.values[p].local;
  std::vector<SegmentRun>& recs = progress ? *progress : run.out.segments;
  recs = plannedRuns(sf);
  for (size_t i = 0; i < sf.segments.size(); ++i) {
    const Segment& s = sf.segments[i];
    SegmentRun& rec = recs[i];
    if (!startSegment(recs, i, stop_at)) continue;
    if (s.kind == SegmentKind::Compute)
      run.runCompute(s);
    else
      run.runCommunication(s, rec);
    rec.status = "ran";
  }
  if (progress) run.out.segments = *progress;
  return std::move(run.out);
}

}  // namespace fc::exec
