// The CUDA executor's lazily evaluated values (cuda_executor.h): a pointwise
// value is a tree over leaves and constants that is turned into one kernel
// (kernels.h PwProgram) only when a tensor must be materialized.
//
// A leaf reads device memory through a view (shape, element strides and
// offset in the leaf's index space), so that broadcast, expand, permute,
// squeeze, reshape of a contiguous tensor and slice cost nothing until the
// consumer's kernel runs. A leaf reads either a materialized tensor or a
// deferred Allreduce (RingSpec): the ring's result is then computed inside
// the consumer's kernel (kernels.h RingLeaf) and never stored, unless some
// consumer needs it as a tensor.
//
// Tensors are shared (TensorP): ranks that hold identical values (a
// replicated input, an Allreduce's result, anything computed from those
// alone) hold the same device buffer. O(tree size) per operation.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "exec/cuda/device_tensor.h"
#include "ir/op_kind.h"

namespace fc::exec::cuda {

using TensorP = std::shared_ptr<const DeviceTensor>;

// A simulated Allreduce whose result is not materialized yet: the same on
// every rank of the collective.
struct RingSpec {
  std::vector<TensorP> src;  // per input rank, in ring order
  OpKind op = OpKind::Sum;
  DType dtype = DType::Half;  // the output's dtype: every hop rounds to it
  Shape shape;                // the output's shape (contiguous, count elements)
  int64_t count = 0;
  size_t segment = 0;  // index of the communication segment in run order
  TensorP result;      // set once materialized
};
using RingP = std::shared_ptr<RingSpec>;

struct Node {
  enum Kind : uint8_t { Leaf, Const, Op } kind = Const;
  Shape shape;
  // Leaf: a view of `tensor`, or of `ring`'s result
  TensorP tensor;
  RingP ring;
  std::vector<int64_t> strides;  // elements, one per dim of `shape`
  int64_t offset = 0;            // elements
  // Const
  double value = 0;
  // Op
  OpKind op = OpKind::Set;
  bool approx = false;
  DType dtype = DType::Float;  // Op: the produced dtype; Leaf: the data's dtype
  std::vector<std::shared_ptr<const Node>> kids;
  int ops = 0;     // op nodes in the tree (with repeats)
  int leaves = 0;  // leaf nodes in the tree (with repeats)
};
using NodeP = std::shared_ptr<const Node>;

// The whole tensor, contiguous.
NodeP leafOf(const TensorP& t);
// The whole ring result, contiguous.
NodeP ringLeafOf(const RingP& r);
// A scalar constant (no shape: it broadcasts to anything).
NodeP constOf(double v);
// An op node over `kids` (already brought to `shape`).
NodeP opOf(OpKind op, DType dtype, const Shape& shape, std::vector<NodeP> kids, bool approx = false);

// Re-indexes a tree: new dim d reads old dim src[d] (-1: a new broadcast
// dim). Old dims of size 1 read with stride 0, so they may expand.
NodeP reindex(const NodeP& n, const Shape& shape, const std::vector<int64_t>& src);
// Brings a tree to `shape` by torch's right-aligned broadcasting.
NodeP broadcastTo(const NodeP& n, const Shape& shape);
// Dim d of the result reads elements start[d], start[d] + step[d], ... of
// dim d (shape: the result's extents).
NodeP sliceOf(const NodeP& n, const Shape& shape, const std::vector<int64_t>& start,
              const std::vector<int64_t>& step);
// The dtype of the value a tree produces.
DType valueDType(const NodeP& n);
// A leaf viewing its data contiguously in its own shape (offset any).
bool isContiguousLeaf(const NodeP& n);

}  // namespace fc::exec::cuda
