// The CPU segmented executor: runs a SegmentedFusion as nvFuser
// runs it — segments in run order, every rank of each mesh simulated with
// its own local (per-rank) tensors; compute segments evaluate their exprs on
// each rank with every produced tensor (boundary tensors included) rounded
// to its declared dtype; a communication segment performs its collective
// through a Communicator (exec/communicator.h) over the team of its input
// and output meshes: the local part of a reduction (over the rank's slice of
// the DID axis) first, then the ring reduction in the output dtype.
//
// `stop_at`: the segment where the era fails (from the pipeline's
// diagnostics): segments before it run, it is marked failed, later ones are
// not run. Cost: the sum of the ops' costs over all ranks.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analysis/segmented_fusion.h"
#include "exec/communicator.h"
#include "exec/inputs.h"
#include "exec/scalar_values.h"
#include "exec/sharding.h"

namespace fc::exec {

struct SegmentRun {
  uint32_t id = 0;
  SegmentKind kind = SegmentKind::Compute;
  CommKind comm = CommKind::None;
  std::string status;   // "ran", "failed", "not-run"
  std::string summary;  // "compute: cast, broadcast, add" / "Allreduce T4 -> T5 over 2 ranks"
};

// The records of a run before it starts, one per segment of `sf`: status
// "not-run" and the summary ("compute: matmul, add", or the communication's
// kind). Shared by the executors.
std::vector<SegmentRun> plannedRuns(const SegmentedFusion& sf);
// Whether segment `i` of `recs` runs: not at or past `stop_at` (the one at
// it is marked failed). One that runs is marked failed until it completes
// and told to the progress line (support/progress.h: reportStep, "segment 2:
// compute: add"; `how` follows the number: "queued" where the work runs
// later on a device).
bool startSegment(std::vector<SegmentRun>& recs, size_t i, std::optional<uint32_t> stop_at,
                  std::string_view how = {});

struct SegmentedRun {
  std::vector<std::vector<std::optional<HostTensor>>> local;  // [TensorId][world rank]
  std::vector<SegmentRun> segments;
};

// Moves dim k of `x` to the front (its chunks along k become contiguous, as
// collectives cut buffers), and back. O(numel).
HostTensor moveToFront(const HostTensor& x, int64_t k);
HostTensor moveFromFront(const HostTensor& x, int64_t k);

using CommunicatorFactory = std::function<std::unique_ptr<Communicator>(int64_t team_size)>;

// The one expr of a communication segment, its tensor input and output,
// and the expr's place; ExecError (FC0502) unless the segment is one
// expr with a tensor input and one output. Shared by the executors.
struct CommunicationExpr {
  ExprId expr = kNone;
  TensorId in = kNone, out = kNone;
  Place where;
};
CommunicationExpr communicationExpr(const Fusion& f, const Segment& s);
// The collective reduction of a Sum / Prod / Max / Min expr; ExecError
// (FC0307 unlowerable-resharding, at `where`) for any other op.
ReduceOp collectiveReduceOp(OpKind op, const Place& where);

// Performs one communication segment on host tensors, as runSegmented
// does: `local` ([TensorId][world rank]) holds the input tensor's per-rank
// values; the output's are stored into it and `rec.summary` is set. Used by
// the CUDA executor for the collectives it does not simulate on the device.
void runCommunicationOnHost(const SegmentedFusion& sf, const World& world, const Segment& s,
                            ScalarValues& scalars, MemoryBudget* budget,
                            std::vector<std::vector<std::optional<HostTensor>>>& local, SegmentRun& rec,
                            const CommunicatorFactory& make_comm = {});

// Throws ExecError on a failure of a segment (the segment is recorded as
// failed in `progress` first, when given).
SegmentedRun runSegmented(const SegmentedFusion& sf, const World& world, const RunInputs& in,
                          ScalarValues& scalars, MemoryBudget* budget, std::optional<uint32_t> stop_at,
                          const CommunicatorFactory& make_comm = {},
                          std::vector<SegmentRun>* progress = nullptr);

}  // namespace fc::exec
