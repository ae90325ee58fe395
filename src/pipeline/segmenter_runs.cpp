#include "pipeline/segmenter_runs.h"

#include "pipeline/segment_input_ops.h"
#include "support/union_find.h"

namespace fc {

bool fusionGraphConnected(const Fusion& f, const std::vector<ExprId>& exprs) {
  UnionFind uf(f.tensors.size());
  for (ExprId e : exprs) {
    const Expr& x = f.exprs[e];
    if (x.outputs.empty()) continue;
    for (const ValueRef& v : x.inputs)
      if (v.isTensor()) uf.unite(x.outputs[0], v.id);
    for (TensorId t : x.outputs) uf.unite(x.outputs[0], t);
  }
  // An output that is a fusion input, made by no expr, is left out: whether nvFuser segments for
  // it is not what these checks ask.
  uint32_t root = UINT32_MAX;
  for (TensorId t : f.outputs) {
    if (f.tensors[t].definition == kNone) continue;
    const uint32_t here = uf.find(t);
    if (root == UINT32_MAX) root = here;
    if (here != root) return false;
  }
  return true;
}

SegmenterRuns segmenterRuns(const Fusion& f, const std::vector<ExprId>& exprs, const SegmentedFusion& s,
                            nv::FusionInputOps ops) {
  SegmenterRuns r;
  bool expr_eval_only = false;
  for (ExprId e : exprs) {
    const Expr& x = f.exprs[e];
    if (x.op == OpKind::SegmentSet) r.certain = true;
    expr_eval_only |= isExprEvalOnly(x.op);
    const OpCategory cat = opInfo(x.op).category;
    r.may |= cat == OpCategory::Reduction || cat == OpCategory::Matmul || cat == OpCategory::Opaque;
    for (TensorId t : needsSegmentInput(f, x, ops))
      if (f.tensors[t].definition != kNone) r.certain = true;
  }
  // An ExprEval-only op that the hard rules cut from other exprs: no scheduler takes both.
  if (expr_eval_only && s.segments.size() >= 2) r.certain = true;
  if (!r.certain && s.segments.size() >= 2 && !fusionGraphConnected(f, exprs)) r.certain = true;
  r.may |= r.certain;
  return r;
}

}  // namespace fc
