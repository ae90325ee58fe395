#include "ir/sharding.h"

#include <algorithm>

namespace fc {

int shardedLogicalPos(const Fusion& f, TensorId tid, ParallelType ptype) {
  const Tensor& t = f.tensors[tid];
  for (size_t i = 0; i < t.logical.size(); ++i)
    if (f.axes[t.logical[i]].parallel == ptype) return static_cast<int>(i);
  // DID on a loop axis produced by a split of a logical axis (head), or by a split of a part of
  // one (an axis split by DIDx, its inner part split again by DIDy): the chain of splits is
  // followed back to the logical axis. Through a merge the axis is no single logical one.
  for (const AxisTransform& tr : t.transforms) {
    if (tr.kind != AxisTransform::Kind::Split) continue;
    bool outer = tr.out != kNone && f.axes[tr.out].parallel == ptype;
    bool inner = tr.out2 != kNone && f.axes[tr.out2].parallel == ptype;
    if (!outer && !inner) continue;
    AxisId in = tr.in;
    for (size_t hops = 0; hops <= t.transforms.size(); ++hops) {
      auto it = std::find(t.logical.begin(), t.logical.end(), in);
      if (it != t.logical.end()) return static_cast<int>(it - t.logical.begin());
      auto from = std::find_if(t.transforms.begin(), t.transforms.end(), [&](const AxisTransform& x) {
        return x.kind == AxisTransform::Kind::Split && (x.out == in || x.out2 == in);
      });
      if (from == t.transforms.end()) break;
      in = from->in;
    }
  }
  return -1;
}

int64_t shardCount(const Fusion& f, TensorId t, size_t pos, const Mesh& mesh) {
  int64_t n = 1;
  for (ParallelType pt : {ParallelType::DIDx, ParallelType::DIDy, ParallelType::DIDz})
    if (shardedLogicalPos(f, t, pt) == static_cast<int>(pos)) {
      const int64_t m = mesh.sizeFor(pt);
      if (m <= 0) return -1;
      n *= m;
    }
  return n;
}

ParallelType shardingOf(const Fusion& f, TensorId t, size_t pos) {
  for (ParallelType pt : {ParallelType::DIDx, ParallelType::DIDy, ParallelType::DIDz})
    if (shardedLogicalPos(f, t, pt) == static_cast<int>(pos)) return pt;
  return ParallelType::Serial;
}

}  // namespace fc
