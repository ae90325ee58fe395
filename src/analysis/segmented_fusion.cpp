#include "analysis/segmented_fusion.h"

namespace fc {

std::string_view commKindName(CommKind k) {
  switch (k) {
    case CommKind::None: return "None";
    case CommKind::Allreduce: return "Allreduce";
    case CommKind::ReduceScatter: return "ReduceScatter";
    case CommKind::Reduce: return "Reduce";
    case CommKind::Allgather: return "Allgather";
    case CommKind::Gather: return "Gather";
    case CommKind::Scatter: return "Scatter";
    case CommKind::Broadcast: return "Broadcast";
    case CommKind::SendRecv: return "SendRecv";
    case CommKind::AllToAll: return "AllToAll";
    case CommKind::CollectivePermute: return "CollectivePermute";
  }
  return "?";
}

uint32_t SegmentedFusion::producerOf(TensorId t) const {
  return t < producer_of.size() ? producer_of[t] : kNone;
}

}  // namespace fc
