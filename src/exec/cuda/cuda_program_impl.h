// The state and steps of a CudaProgram (cuda_executor.h), shared by its
// source files: cuda_executor.cpp (tensors, pointwise fusion, the segment
// loop), cuda_executor_ops.cpp (reductions, matmul, data movement, the host
// fallback) and cuda_executor_comm.cpp (collectives). Internal to the CUDA
// backend.
#pragma once

#include <cuda_runtime_api.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "exec/cuda/cuda_executor.h"
#include "exec/cuda/gemm.h"
#include "exec/cuda/kernels.h"
#include "exec/cuda/lazy_tree.h"
#include "exec/op_eval.h"

namespace fc::exec::cuda {

struct CudaProgram::Impl {
  const SegmentedFusion& sf;
  const Fusion& f;
  const World& world;
  ScalarValues& sv;
  MemoryBudget* budget;
  Blas blas;
  std::vector<std::vector<TensorP>> local;  // [TensorId][rank]; replicas share one buffer
  std::vector<std::vector<NodeP>> pending;  // [TensorId][rank]; replicas share one tree
  std::map<NodeP, TensorP> materialized;    // trees already materialized in this run
  std::vector<bool> is_input, is_output;
  int64_t only_rank = -1;  // restrictToRank: the one rank this process runs
  CudaProgram::CommunicationHook communicate;
  CudaProgram::Options opts;
  size_t current = 0;               // index (run order) of the segment running
  std::vector<cudaEvent_t> events;  // timing: 2 per segment (begin, end)
  SegmentTimeline timeline;

  Impl(const SegmentedFusion& s, const World& w, ScalarValues& v, MemoryBudget* b);
  void reset();

  // ---- tensors and pointwise fusion (cuda_executor.cpp)
  std::shared_ptr<DeviceTensor> newTensor(DType dtype, const Shape& shape);
  // Turns a tree into a PwProgram; rings: a ring leaf becomes the
  // program's RingLeaf (when `ring` allows it), else it is materialized.
  struct Flat {
    bool allow_ring = false;
    RingP ring;           // the ring leaf of the program
    bool failed = false;  // a second ring, an offset ring view or too many ranks
  };
  PwRef flatten(const NodeP& n, PwProgram& p, std::map<const Node*, int>& regs, Flat& fl);
  TensorP materialize(const NodeP& n, DType dtype);
  TensorP materializeRing(const RingP& r);
  TensorP needP(TensorId t, int64_t rank, const Place& where);
  const DeviceTensor& need(TensorId t, int64_t rank, const Place& where) { return *needP(t, rank, where); }
  NodeP nodeOf(TensorId t, int64_t rank, const Place& where);
  NodeP bounded(NodeP n);
  static bool fusible(const Fusion& f, const Expr& e);
  NodeP buildNode(ExprId id, int64_t rank);
  // An earlier rank of `done` whose operands of `e` are the same values as
  // `rank`'s, so that its results can be shared; nullopt otherwise.
  std::optional<int64_t> replicaOf(const Expr& e, int64_t rank, const std::vector<int64_t>& done) const;
  void runCompute(const Segment& s, std::vector<std::string>& host_here);

  // ---- reductions, matmul, data movement, host fallback (cuda_executor_ops.cpp)
  static bool deviceReduction(const Fusion& f, const Expr& e);
  // Which of a rank-r operand's dims reduction `e` reduces (all when it
  // names none); a dim out of range fails.
  static std::vector<bool> reducedDims(const Expr& e, int64_t r, const Place& where);
  static Shape reducedShape(const Expr& e, const DeviceTensor& x, const Place& where);
  TensorP reduce(const Expr& e, const DeviceTensor& x, const Place& where);
  std::optional<TensorP> matmul(const Expr& e, int64_t rank, const Place& where);
  // reshape, expand, broadcast_in_dim, slice, pad, cat and the factories:
  // true when done on the device; false leaves the expr to the host
  // evaluator (which also reports any error in its operands).
  bool dataMovement(ExprId id, int64_t rank);
  std::optional<Shape> attrShape(const Expr& e) const;
  OpContext hostCtx();
  void runOnHost(ExprId id, int64_t rank, const Place& where);

  // ---- collectives (cuda_executor_comm.cpp)
  void runCommunicationOnHostFor(const Segment& s, TensorId I, TensorId O, SegmentRun& rec);
  void runCommunication(const Segment& s, SegmentRun& rec);
};

}  // namespace fc::exec::cuda
