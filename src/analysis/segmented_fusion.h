// A segmented fusion: a partition of the complete fusion's exprs into
// segments in run order, with the edges between them. Segments are views
// of the complete fusion (expr and tensor ids), never copies, so building
// one is linear in the fusion.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ir/fusion.h"
#include "ir/ids.h"
#include "ir/segmentation.h"

namespace fc {

enum class SegmentKind : uint8_t { Compute, Communication };

// Collectives a resharding expr lowers to.
enum class CommKind : uint8_t {
  None,
  Allreduce,
  ReduceScatter,
  Reduce,
  Allgather,
  Gather,
  Scatter,
  Broadcast,
  SendRecv,
  AllToAll,
  CollectivePermute,
};
std::string_view commKindName(CommKind k);  // "Allreduce", ...

struct Segment {
  uint32_t id = 0;  // run order, from 0
  SegmentKind kind = SegmentKind::Compute;
  CommKind comm = CommKind::None;
  std::vector<ExprId> exprs;      // topological order
  std::vector<ValueRef> inputs;   // complete-fusion values entering: fusion inputs and edge tensors
  std::vector<TensorId> outputs;  // tensors leaving: edge tensors and fusion outputs
  std::string scheduler;          // "expr_eval", "communication", "pointwise", ... ("" unknown)
  std::string reason;             // why this segment is separate (printed in traces)
};

struct SegmentEdge {
  uint32_t from = 0;  // producer segment
  uint32_t to = 0;    // consumer segment
  TensorId tensor = kNone;
};

struct SegmentedFusion {
  const Fusion* fusion = nullptr;
  std::vector<Segment> segments;
  std::vector<SegmentEdge> edges;
  bool explicit_segmentation = false;  // replayed from the repro
  bool approximate = false;            // single-device hard rules only
  InputRewrite input_rewrite = InputRewrite::KeepReductions;
  std::vector<ForwardedExtent> forward;

  // Segment that produces `t`, or kNone for fusion inputs.
  uint32_t producerOf(TensorId t) const;
  std::vector<uint32_t> producer_of;  // per tensor; filled by the segmenter
};

}  // namespace fc
