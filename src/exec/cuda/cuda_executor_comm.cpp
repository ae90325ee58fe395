// The CUDA executor's communication segments (see cuda_executor.h):
// Allreduce and Reduce as the device ring, the other collectives through
// the host executor's simulation.
#include <algorithm>
#include <string>

#include "exec/cuda/cuda_program_impl.h"
#include "exec/cuda/cuda_status.h"
#include "exec/exec_error.h"

namespace fc::exec::cuda {

// The collectives without a device simulation (ReduceScatter, Allgather,
// Gather, Scatter, Broadcast, SendRecv): the input's per-rank tensors are
// downloaded, the host executor's simulated ring performs the collective
// (same model, bit for bit), and the output's are uploaded.
void CudaProgram::Impl::runCommunicationOnHostFor(const Segment& s, TensorId I, TensorId O, SegmentRun& rec) {
  std::vector<std::vector<std::optional<HostTensor>>> host(
      f.tensors.size(), std::vector<std::optional<HostTensor>>(world.size()));
  Place where = Place::expr(s.exprs[0]);
  for (int64_t r : world.ranksOf(I))
    if (r >= 0) host[I][r] = need(I, r, where).download(budget);
  runCommunicationOnHost(sf, world, s, sv, budget, host, rec);
  for (int64_t r = 0; r < world.size(); ++r)
    if (host[O][r]) local[O][r] = std::make_shared<DeviceTensor>(DeviceTensor::upload(*host[O][r], budget));
  rec.summary += " (simulated on the host)";
}

// Allreduce: the ranks' local parts (their reduction over their slice of
// the reduced dims, or the input itself when that slice has one element in
// the output dtype) are the ring's sources. The result is the same on
// every rank, so the ranks share it: one RingSpec, deferred into the
// consumers' kernels (Options::fuse_collectives) unless it is a fusion
// output, else materialized once. Reduce: the ring to the root's buffer.
void CudaProgram::Impl::runCommunication(const Segment& s, SegmentRun& rec) {
  CommunicationExpr ce = communicationExpr(f, s);
  const Expr& e = f.exprs[ce.expr];
  const Place& where = ce.where;
  TensorId I = ce.in, O = ce.out;
  std::vector<int64_t> rin = world.ranksOf(I), rout = world.ranksOf(O);
  rec.summary = std::string(commKindName(s.comm)) + " " + std::string(f.tensorName(I)) + " -> " +
                std::string(f.tensorName(O)) + " over " + std::to_string(rin.size()) + " ranks (on the GPU)";
  for (TensorId t : {I, O}) {
    MeshId m = f.tensors[t].mesh;
    if (m != kNone && m < f.meshes.size() && f.meshes[m].shape.size() > 1)
      fail("communications over n-D meshes are not supported by the CUDA executor yet", where,
           DiagCode::ExecutionFailed);
  }
  if (s.comm != CommKind::Allreduce && s.comm != CommKind::Reduce) {
    runCommunicationOnHostFor(s, I, O, rec);
    return;
  }
  if (!deviceReduction(f, e) || e.op == OpKind::Mean)
    fail(std::string(opName(e.op)) + " cannot be lowered to a reduction collective on the GPU", where,
         DiagCode::UnlowerableResharding);
  DType odt = f.tensors[O].dtype;
  int64_t R = static_cast<int64_t>(rin.size());
  if (R > 64) fail("more than 64 simulated ranks", where, DiagCode::ExecutionFailed);
  std::vector<TensorP> src;
  Shape oshape;
  for (int64_t r : rin) {
    TensorP x = needP(I, r, where);
    Shape keep = reducedShape(e, *x, where);
    bool passthrough = x->dtype() == odt && numelOf(keep).value_or(-1) == x->numel();
    src.push_back(passthrough ? x : reduce(e, *x, where));
    if (r == rin[0]) oshape = keep;
    if (keep != oshape)
      fail("ranks hold different shapes for the collective", where, DiagCode::ExecutionFailed);
  }
  int64_t count = numelOf(oshape).value_or(0);
  auto indexIn = [](const std::vector<int64_t>& v, int64_t x) -> int64_t {
    auto it = std::find(v.begin(), v.end(), x);
    return it == v.end() ? -1 : it - v.begin();
  };
  if (s.comm == CommKind::Allreduce) {
    for (int64_t r : rout)
      if (indexIn(rin, r) < 0)
        fail("Allreduce output lives on a device outside its input mesh", where, DiagCode::ExecutionFailed);
    auto spec = std::make_shared<RingSpec>();
    spec->src = src;
    spec->op = e.op;
    spec->dtype = odt;
    spec->shape = oshape;
    spec->count = count;
    spec->segment = current;
    bool defer = opts.fuse_collectives && opts.share_replicas && !is_output[O] && count > 0;
    if (!opts.share_replicas) {  // one buffer per rank, as separate devices would hold
      std::vector<std::shared_ptr<DeviceTensor>> outs;
      std::vector<const void*> sp;
      std::vector<void*> dst;
      for (const TensorP& t : src) sp.push_back(t->data());
      for (int64_t k = 0; k < R; ++k) {
        outs.push_back(newTensor(odt, oshape));
        dst.push_back(outs.back()->data());
      }
      launchRingReduce(sp.data(), dst.data(), static_cast<int>(R), count, odt, e.op, true, 0);
      for (int64_t k = 0; k < R; ++k)
        if (indexIn(rout, rin[k]) >= 0) local[O][rin[k]] = outs[k];
      return;
    }
    NodeP leaf = ringLeafOf(spec);
    if (!defer) materializeRing(spec);
    for (int64_t k = 0; k < R; ++k) {
      if (indexIn(rout, rin[k]) < 0) continue;
      if (defer)
        pending[O][rin[k]] = leaf;
      else
        local[O][rin[k]] = spec->result;
    }
    if (defer) rec.summary += ", fused into its consumers";
    return;
  }
  if (rout.size() != 1 || indexIn(rin, rout[0]) < 0)
    fail("Reduce needs a one-device output mesh inside the input mesh", where, DiagCode::ExecutionFailed);
  int64_t root = indexIn(rin, rout[0]);
  std::shared_ptr<DeviceTensor> out = newTensor(odt, oshape);
  std::vector<const void*> sp;
  for (const TensorP& t : src) sp.push_back(t->data());
  void* dst[1] = {out->data()};
  launchRingReduce(sp.data(), dst, static_cast<int>(R), count, odt, e.op, false, static_cast<int>(root));
  local[O][rout[0]] = out;
}

}  // namespace fc::exec::cuda
