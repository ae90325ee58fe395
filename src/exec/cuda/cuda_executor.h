// The CUDA segmented executor: runs a SegmentedFusion on one
// GPU as the CPU executor (exec/segmented_executor.h) does on the host —
// segments in run order, every rank of each mesh simulated, each with its
// own device tensors in their declared dtypes.
//
// Compute segments: chains of pointwise exprs (unary, binary, compare,
// where, cast, set) together with the views between them (broadcast,
// permute, squeeze, expand, broadcast_in_dim, slice, reshape of a
// contiguous tensor) are fused lazily into one kernel per materialized
// tensor (lazy_tree.h, kernels.h PwProgram; every produced value rounded
// to its declared dtype as the CPU executor does); a tensor is
// materialized only when a non-fusible expr, another segment or the
// fusion's outputs need it. pad and cat are device copies, full / zeros /
// ones constants and iota a device fill. Reductions (sum, prod, max, min,
// mean) run as device reductions with fp64 accumulation, matmul / linear
// through cuBLAS with fp32 accumulation (gemm.h). Every other expr
// (integer arithmetic, var / var_mean, 1-D matmul operands, views of
// integer tensors) is evaluated by the CPU evaluator (exec/op_eval.h) on
// the downloaded operands and uploaded again; the segment's summary names
// those exprs ("host: var").
//
// Ranks that hold the same values share one buffer (Options): a
// replicated input whose ranks' bits agree is uploaded once, and an expr
// whose operands are shared on two ranks (and whose output is not
// sharded) is computed once for both.
//
// Communication segments: Allreduce and Reduce are simulated on the device
// with the CPU simulation's ring order and per-hop rounding; an
// Allreduce's result (the same on every rank) is shared and, unless it is
// a fusion output, deferred into its consumers' kernel (kernels.h
// RingLeaf: the sources are read there, the result never stored; the
// summary says "fused into its consumers", and segment timing reports the
// two segments as one group). The other kinds (ReduceScatter, Allgather,
// Gather, Scatter, Broadcast, SendRecv) download the input's shards, run
// the host executor's simulation (runCommunicationOnHost: the same model,
// bit for bit) and upload the result; the summary says "simulated on the
// host". Cost: the kernels' O(numel) and the GEMMs; device memory is
// charged to the run's MemoryBudget.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "exec/cuda/device_inputs.h"
#include "exec/cuda/device_tensor.h"
#include "exec/cuda/segment_timeline.h"
#include "exec/segmented_executor.h"

namespace fc::exec::cuda {

class CudaProgram {
 public:
  CudaProgram(const SegmentedFusion& sf, const World& world, ScalarValues& sv, MemoryBudget* budget);
  ~CudaProgram();
  CudaProgram(const CudaProgram&) = delete;
  CudaProgram& operator=(const CudaProgram&) = delete;

  // Uploads the fusion inputs' per-rank tensors.
  // Inputs whose shards went to a sink (HeldInputs::None) take their
  // buffers from `device_inputs` (copies per rank unless share_replicas).
  void uploadInputs(const RunInputs& in, const DeviceInputs* device_inputs = nullptr);
  // Sets one tensor of one world rank directly (benchmarks, the
  // communication hook).
  void setTensor(TensorId t, int64_t rank, DeviceTensor d);

  // Multi-process runs (exec/multirank): compute and upload only world rank
  // `rank`'s tensors, and perform each communication segment through
  // `communicate` (it reads tensor() and stores with setTensor()) instead
  // of the simulated ring.
  using CommunicationHook = std::function<void(const Segment&, SegmentRun&)>;
  void restrictToRank(int64_t rank, CommunicationHook communicate);

  // Runs the segments (see segmented_executor.h for stop_at / progress);
  // throws ExecError. Intermediate tensors of earlier runs are dropped
  // first, so run() may be repeated (timing).
  void run(std::optional<uint32_t> stop_at, std::vector<SegmentRun>* progress);
  // uploadInputs, run, then collectOutputs, with the records in the result
  // (and in `progress`, when given).
  SegmentedRun runAndCollect(const RunInputs& in, std::optional<uint32_t> stop_at,
                             std::vector<SegmentRun>* progress);

  struct Options {
    // Waits for the device after each segment, so that a kernel's failure
    // is reported at its segment. Off, run() returns with the work
    // enqueued, as an eager framework does; the caller synchronizes
    // (tensor downloads do).
    bool sync_each_segment = true;
    // Brackets each segment by its own pair of CUDA events (segmentTimes).
    bool timing = false;
    // Ranks that hold the same values share one buffer and compute what
    // depends on those values alone once (a replicated input, an
    // Allreduce's result and the epilogue after it).
    bool share_replicas = true;
    // An Allreduce whose result is not a fusion output is deferred into
    // its consumers' kernels (kernels.h RingLeaf): the ring's sources are
    // read there and its result is stored only if a consumer needs it as a
    // tensor. The values are bit-identical either way.
    bool fuse_collectives = true;
  };
  void setOptions(const Options& o);
  const Options& options() const;
  // Per-segment device times (segment_timeline.h) of the last run() with
  // timing on; waits for the device. Segments fused into a later one's
  // kernels are reported with it as one group.
  SegmentTimes segmentTimes() const;

  // A materialized tensor of a rank after run(), or null.
  const DeviceTensor* tensor(TensorId t, int64_t rank) const;
  // Downloads the fusion outputs into a SegmentedRun (other tensors unset).
  SegmentedRun collectOutputs(MemoryBudget* budget) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace fc::exec::cuda
