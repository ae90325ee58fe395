#include "analysis/axis_map.h"

#include <algorithm>

namespace fc {

std::vector<AxisId> noReductions(const Fusion& f, const std::vector<AxisId>& dom) {
  std::vector<AxisId> out;
  out.reserve(dom.size());
  for (AxisId a : dom)
    if (f.axes[a].iter != IterType::Reduction) out.push_back(a);
  return out;
}

namespace {

size_t nonReductionCount(const Fusion& f, const std::vector<AxisId>& dom) {
  size_t n = 0;
  for (AxisId a : dom) n += f.axes[a].iter != IterType::Reduction;
  return n;
}

bool sameExtent(const Fusion& f, AxisId p, AxisId c) { return f.axes[p].extent == f.axes[c].extent; }

void pair(const Fusion& f, std::vector<AxisPair>& out, AxisId p, AxisId c, bool resize_sensitive) {
  const Axis& pa = f.axes[p];
  const Axis& ca = f.axes[c];
  bool exact = true;
  if (pa.iter == IterType::Broadcast && ca.iter != IterType::Broadcast) exact = false;
  if (pa.iter != IterType::Broadcast && ca.iter == IterType::Broadcast) exact = false;
  if (pa.expanded != ca.expanded) exact = false;
  if (resize_sensitive && !sameExtent(f, p, c)) exact = false;
  // Symbolic axes map only when their extents match (reference §3.5).
  if ((pa.iter == IterType::Symbolic || ca.iter == IterType::Symbolic) && !sameExtent(f, p, c)) exact = false;
  out.push_back({p, c, exact});
}

// Right-aligned position-wise pairing (elementwise ops).
void alignRight(const Fusion& f, std::vector<AxisPair>& out, const std::vector<AxisId>& P,
                const std::vector<AxisId>& C, bool resize_sensitive) {
  size_t n = std::min(P.size(), C.size());
  for (size_t k = 0; k < n; ++k) pair(f, out, P[P.size() - n + k], C[C.size() - n + k], resize_sensitive);
}

}  // namespace

std::vector<AxisPair> mapProducerConsumer(const Fusion& f, ExprId eid, size_t in_idx, size_t out_idx) {
  std::vector<AxisPair> out;
  appendProducerConsumer(f, eid, in_idx, out_idx, out);
  return out;
}

void appendProducerConsumer(const Fusion& f, ExprId eid, size_t in_idx, size_t out_idx,
                            std::vector<AxisPair>& out) {
  const Expr& e = f.exprs[eid];
  if (in_idx >= e.inputs.size() || out_idx >= e.outputs.size()) return;
  const ValueRef& in = e.inputs[in_idx];
  if (!in.isTensor() || in.id >= f.tensors.size() || e.outputs[out_idx] >= f.tensors.size()) return;
  const Tensor& pt = f.tensors[in.id];
  const Tensor& ct = f.tensors[e.outputs[out_idx]];
  // The producer's non-Reduction logical axes, in a buffer reused across
  // calls (this runs for every operand of every expr of every view).
  thread_local std::vector<AxisId> producer_axes;
  producer_axes.clear();
  for (AxisId a : pt.logical)
    if (f.axes[a].iter != IterType::Reduction) producer_axes.push_back(a);
  const std::vector<AxisId>& P = producer_axes;
  const std::vector<AxisId>& C = ct.root.empty() ? ct.logical : ct.root;
  const Attrs& at = e.attrs;
  switch (opInfo(e.op).category) {
    case OpCategory::Set:
    case OpCategory::Cast:
    case OpCategory::Unary:
    case OpCategory::Binary:
    case OpCategory::Compare:
    case OpCategory::Ternary: alignRight(f, out, P, C, false); break;
    case OpCategory::Reduction: alignRight(f, out, P, ct.logical, false); break;
    case OpCategory::Factory: break;
    case OpCategory::Matmul: {
      const auto& L = ct.logical;
      if (L.empty()) break;
      AxisId rk = L.back();
      if (e.op == OpKind::Linear) {
        if (in_idx == 0) {  // A [..., K]
          for (size_t k = 0; k + 1 < P.size() && k < L.size(); ++k) pair(f, out, P[k], L[k], false);
          if (!P.empty()) pair(f, out, P.back(), rk, false);
        } else if (in_idx == 1) {  // W [N, K] or [K]
          if (P.size() == 2 && L.size() >= 2) {
            pair(f, out, P[0], L[L.size() - 2], false);
            pair(f, out, P[1], rk, false);
          } else if (P.size() == 1) {
            pair(f, out, P[0], rk, false);
          }
        } else if (in_idx == 2 && P.size() == 1 && L.size() >= 2) {  // bias [N]
          pair(f, out, P[0], L[L.size() - 2], false);
        }
        break;
      }
      // matmul, torch semantics; output [batch..., (M), (N), rK]
      const Tensor& at_ = f.tensors[e.inputs[0].id];
      size_t a = nonReductionCount(f, at_.logical);
      size_t b = e.inputs.size() > 1 && e.inputs[1].isTensor() && e.inputs[1].id < f.tensors.size()
                     ? nonReductionCount(f, f.tensors[e.inputs[1].id].logical)
                     : 0;
      if (P.empty()) break;
      if (in_idx == 0) {
        pair(f, out, P.back(), rk, false);  // K
        if (a >= 2) {
          // M sits before N (if B is >= 2-D) and rK.
          size_t m_pos = L.size() - (b >= 2 ? 3 : 2);
          if (m_pos < L.size()) pair(f, out, P[a - 2], L[m_pos], false);
          for (size_t k = 0; k + 2 < a && k <= m_pos; ++k) {
            size_t pos = m_pos - (a - 2) + k;
            if (pos < m_pos) pair(f, out, P[k], L[pos], false);
          }
        }
      } else {
        if (b == 1) {
          pair(f, out, P[0], rk, false);
        } else {
          pair(f, out, P[b - 2], rk, false);               // K
          pair(f, out, P[b - 1], L[L.size() - 2], false);  // N
          size_t batch_end = L.size() - (a >= 2 ? 3 : 2);  // exclusive
          for (size_t k = 0; k + 2 < b; ++k) {
            size_t from_end = (b - 2) - k;  // distance from batch end
            if (from_end <= batch_end) pair(f, out, P[k], L[batch_end - from_end], false);
          }
        }
      }
      break;
    }
    case OpCategory::Shape:
      switch (e.op) {
        case OpKind::Broadcast: {
          size_t j = 0;
          for (size_t c = 0; c < C.size(); ++c) {
            bool flag = c < at.flags.size() && at.flags[c];
            if (flag) continue;
            if (j < P.size()) pair(f, out, P[j++], C[c], false);
          }
          break;
        }
        case OpKind::BroadcastInDim:
          for (size_t i = 0; i < P.size() && i < at.dims.size(); ++i) {
            int64_t d = at.dims[i];
            if (d >= 0 && static_cast<size_t>(d) < C.size())
              pair(f, out, P[i], C[static_cast<size_t>(d)], false);
          }
          break;
        case OpKind::Expand: alignRight(f, out, P, C, false); break;
        case OpKind::Squeeze: {
          size_t j = 0;
          for (size_t i = 0; i < P.size(); ++i) {
            if (std::find(at.dims.begin(), at.dims.end(), static_cast<int64_t>(i)) != at.dims.end()) continue;
            if (j < C.size()) pair(f, out, P[i], C[j++], false);
          }
          break;
        }
        case OpKind::Permute:
          if (!ct.root.empty()) {
            alignRight(f, out, P, ct.root, false);
          } else {
            for (size_t j = 0; j < ct.logical.size() && j < at.dims.size(); ++j) {
              int64_t d = at.dims[j];
              if (d >= 0 && static_cast<size_t>(d) < P.size())
                pair(f, out, P[static_cast<size_t>(d)], ct.logical[j], false);
            }
          }
          break;
        case OpKind::Reshape:
          if (!ct.root.empty()) alignRight(f, out, P, ct.root, false);
          break;
        case OpKind::Slice:
        case OpKind::Pad:
        case OpKind::Cat: alignRight(f, out, P, C, true); break;
        default: break;
      }
      break;
  }
}

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

bool isSharded(const Fusion& f, TensorId t) {
  for (ParallelType pt : {ParallelType::DIDx, ParallelType::DIDy, ParallelType::DIDz}) {
    int pos = shardedLogicalPos(f, t, pt);
    if (pos >= 0 && f.axes[f.tensors[t].logical[static_cast<size_t>(pos)]].iter != IterType::Reduction)
      return true;
  }
  return false;
}

}  // namespace fc
