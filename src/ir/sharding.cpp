#include "ir/sharding.h"

#include <algorithm>

namespace fc {

int shardedLogicalPos(const Fusion& f, TensorId tid, ParallelType ptype) {
  const Tensor& t = f.tensors[tid];
  for (size_t i = 0; i < t.logical.size(); ++i)
    if (f.axes[t.logical[i]].parallel == ptype) return static_cast<int>(i);
  // DID on a loop axis produced by a split of a logical axis (head).
  for (const AxisTransform& tr : t.transforms) {
    if (tr.kind != AxisTransform::Kind::Split) continue;
    bool outer = tr.out != kNone && f.axes[tr.out].parallel == ptype;
    bool inner = tr.out2 != kNone && f.axes[tr.out2].parallel == ptype;
    if (!outer && !inner) continue;
    auto it = std::find(t.logical.begin(), t.logical.end(), tr.in);
    if (it != t.logical.end()) return static_cast<int>(it - t.logical.begin());
  }
  return -1;
}

ParallelType shardingOf(const Fusion& f, TensorId t, size_t pos) {
  for (ParallelType pt : {ParallelType::DIDx, ParallelType::DIDy, ParallelType::DIDz})
    if (shardedLogicalPos(f, t, pt) == static_cast<int>(pos)) return pt;
  return ParallelType::Serial;
}

}  // namespace fc
