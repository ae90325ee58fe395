// The segment pass. Replays the repro's explicit
// segmentation when present; otherwise applies the path's rule:
//  - multi-device (any tensor has a mesh): each resharding expr alone,
//    lowered to its collective (or FC0307), and between them maximal compute
//    regions (the MultiDeviceExecutor's segmenter), or also the host ops
//    alone (its later segmenter), or only the hard rules below (the
//    schedulers of FusionExecutorCache) -- the last two labelled approximate;
//  - single device: only nvFuser's hard rules (ExprEval-only ops alone,
//    segment_set boundaries, connectivity) -- labelled approximate.
// Compute regions are found by levels: an expr's level counts the
// barriers (resharding / ExprEval-only exprs, segment_set edges) on paths
// into it, scheduled as late as possible; compute exprs of one level that
// are connected form one segment. A path between two exprs of one level
// never crosses a barrier, so the segment graph is a DAG. O(exprs + uses).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "analysis/resharding.h"
#include "analysis/segmented_fusion.h"
#include "diag/diagnostic.h"
#include "ir/fusion.h"
#include "ir/topo_order.h"

namespace fc {

// How a path cuts a fusion with meshes.
enum class MeshSegmenter : uint8_t {
  ReshardingAlone,    // each resharding expr alone, maximal compute regions between
  StandaloneHostOps,  // and matmul, linear, slice, binary ops, reductions, sets alone (approximate)
  SchedulerDriven,    // each resharding expr alone, compute cut by the hard rules only (approximate)
};

struct SegmentOptions {
  LoweringRules lowering;
  MeshSegmenter mesh = MeshSegmenter::ReshardingAlone;
  std::string path;  // "nvFuser 2024-06-30 (4e7365d18), C++ ..." for the notes
  // Per expr: whether it reshards (the sharding passes computed it); null:
  // computed here.
  const std::vector<uint8_t>* resharding = nullptr;
  bool trace = false;
  std::string file;
};

struct SegmentPassResult {
  SegmentedFusion segmented;
  std::vector<std::string> trace;  // initial groups, merges made / refused (when asked)
};

// `topo`, when given, is topoOrder(f) computed by the caller (the pipeline
// needs it too; it is a walk over the whole graph).
SegmentPassResult segmentFusion(const Fusion& f, const SegmentOptions& so, DiagnosticSink& sink,
                                const std::vector<ExprId>* topo = nullptr);

// The same, computing topoOrder(f) on the calling thread while another
// gathers the operands and which exprs reshard (fusions of `overlap_min_exprs`
// exprs or more; in turn otherwise), and handing the order to `on_order` as
// soon as it is known, before segmenting. The pipeline segments on a second
// thread this way (docs/performance.md, fixes 29 and 37).
SegmentPassResult segmentFusion(const Fusion& f, const SegmentOptions& so, DiagnosticSink& sink,
                                const std::function<void(const std::vector<ExprId>&)>& on_order,
                                size_t overlap_min_exprs);

bool isMultiDevice(const Fusion& f);

// "compute: cast, broadcast, add" / "Allreduce".
std::string describeSegment(const Fusion& f, const Segment& s);
// "expr 3 (set -> T6)": an expr by its repro id, op and first output, as diagnostics name it.
std::string exprLabel(const Fusion& f, ExprId e);

}  // namespace fc
