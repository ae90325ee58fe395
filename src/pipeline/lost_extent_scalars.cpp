#include "pipeline/lost_extent_scalars.h"

#include <algorithm>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "analysis/scalar_eval.h"
#include "ir/printer.h"
#include "passes/segment.h"
#include "pipeline/history.h"
#include "pipeline/segmenter_runs.h"

namespace fc {
namespace {

// Ops whose sizes nvFuser keeps in the output's axes only (ViewOp and FullOp take no size as an
// operand); an expand, broadcast_in_dim, iota, pad or slice takes its sizes as operands.
bool sizesInOutputOnly(OpKind k) {
  return k == OpKind::Reshape || k == OpKind::Full || k == OpKind::Zeros || k == OpKind::Ones;
}

// `s` with each size(T, d) replaced by the extent it names.
ScalarId throughSize(const Fusion& f, ScalarId s) {
  for (int guard = 0; s != kNone && guard < 64; ++guard) {
    const Scalar& sc = f.scalars[s];
    if (sc.kind != ScalarKind::Derived || sc.op != ScalarOp::Size) break;
    const AxisId a = f.sizeAxis(sc);
    if (a == kNone) return kNone;
    s = f.axes[a].extent;
  }
  return s;
}

void addLeaves(const Fusion& f, ScalarId s, std::unordered_set<ScalarId>& out) {
  if (s == kNone) return;
  for (ScalarId x : ScalarEval::freeSymbols(f, s)) out.insert(x);
}

// The leaves a segment has without #5669: the extents of the tensors it takes and the leaves of
// the scalars its exprs take as operands.
std::unordered_set<ScalarId> givenLeaves(const Fusion& f, const Segment& seg) {
  std::unordered_set<ScalarId> given;
  for (const ValueRef& v : seg.inputs) {
    if (!v.isTensor()) continue;
    for (AxisId a : f.tensors[v.id].logical) {
      if (f.axes[a].iter == IterType::Reduction) continue;
      given.insert(f.axes[a].extent);
      if (f.axes[a].expanded != kNone) given.insert(f.axes[a].expanded);
    }
  }
  for (ExprId e : seg.exprs) {
    const Expr& x = f.exprs[e];
    for (const ValueRef& v : x.inputs)
      if (v.isScalar()) addLeaves(f, v.id, given);
    const Attrs& at = x.attrs;
    if (!sizesInOutputOnly(x.op))
      for (ScalarId s : at.shape) addLeaves(f, s, given);
    for (ScalarId s : at.pad) addLeaves(f, s, given);
    for (const SliceRange& r : at.ranges)
      for (ScalarId s : {r.start, r.stop, r.step}) addLeaves(f, s, given);
    for (ScalarId s : {at.value, at.start, at.step}) addLeaves(f, s, given);
  }
  return given;
}

}  // namespace

bool lostExtentScalarUndecided(const Fusion& f, const std::vector<ExprId>& exprs, const SegmentedFusion& s,
                               const Profile& p, const std::string& file, DiagnosticSink& sink) {
  if (p.state.get<nv::SegmentScalarInputs>() != nv::SegmentScalarInputs::FusionInputs) return false;
  if (p.multi_device || p.executor != Executor::Fec || s.segments.size() < 2) return false;
  // Which fusion input each input extent belongs to; most fusions have no op with such sizes, and
  // then nothing is indexed.
  if (std::none_of(exprs.begin(), exprs.end(), [&](ExprId e) { return sizesInOutputOnly(f.exprs[e].op); }))
    return false;
  std::unordered_map<ScalarId, std::pair<TensorId, size_t>> owner;  // extent -> (input, axis position)
  for (const ValueRef& v : f.inputs) {
    if (!v.isTensor()) continue;
    const std::vector<AxisId>& logical = f.tensors[v.id].logical;
    for (size_t i = 0; i < logical.size(); ++i) {
      const Axis& a = f.axes[logical[i]];
      for (ScalarId x : {a.extent, a.expanded})
        if (x != kNone && f.scalars[x].kind == ScalarKind::Symbol) owner.emplace(x, std::pair(v.id, i));
    }
  }
  if (owner.empty()) return false;
  const SegmenterRuns runs = segmenterRuns(f, exprs, s, p.state.get<nv::FusionInputOps>());
  if (!runs.may) return false;

  for (const Segment& seg : s.segments) {
    if (seg.kind != SegmentKind::Compute) continue;
    std::unordered_set<TensorId> read;  // tensors an expr of the segment reads
    for (ExprId e : seg.exprs)
      for (const ValueRef& v : f.exprs[e].inputs)
        if (v.isTensor()) read.insert(v.id);
    std::optional<std::unordered_set<ScalarId>> given;
    for (ExprId e : seg.exprs) {
      const Expr& x = f.exprs[e];
      if (!sizesInOutputOnly(x.op) || x.outputs.empty()) continue;
      // Concretization replaces a reshape's size that has a definition by the input's axis, and
      // only an axis some op of the segment reads carries the size on.
      const bool reshape = x.op == OpKind::Reshape;
      if (reshape && !read.contains(x.outputs[0])) continue;
      for (size_t i = 0; i < x.attrs.shape.size(); ++i) {
        std::vector<ScalarId> leaves;
        if (reshape) {
          const ScalarId leaf = throughSize(f, x.attrs.shape[i]);
          if (leaf != kNone && f.scalars[leaf].kind == ScalarKind::Symbol) leaves.push_back(leaf);
        } else {
          leaves = ScalarEval::freeSymbols(f, x.attrs.shape[i]);
        }
        for (ScalarId leaf : leaves) {
          auto it = owner.find(leaf);
          if (it == owner.end() || read.contains(it->second.first)) continue;
          if (!given) given = givenLeaves(f, seg);
          if (given->contains(leaf)) continue;
          const std::string in(f.tensorName(it->second.first));
          const std::string sym = symbolToString(f, leaf);
          auto& d = sink.report(
              Severity::NotDecided, DiagCode::NotDecided,
              "size " + std::to_string(i) + " of " + exprLabel(f, e) + ", " +
                  scalarToString(f, x.attrs.shape[i]) + ", is the extent " + sym + " of axis " +
                  std::to_string(it->second.second) + " of the input " + in +
                  ", which no op of its segment reads: before #5669 the segmenter gave a segment, of the "
                  "scalars reached only from the extents of the tensors it computes, the fusion's scalar "
                  "inputs "
                  "alone, so nvFuser may stop with \"Could not launch kernel as program could not infer " +
                  sym + " for the buffer ...\" (the repro of #5669)" +
                  (runs.certain ? "" : ", if it segments this fusion, which the schedulers decide") +
                  "; whether it does depends on concretization and on the kernel's evaluator, which "
                  "fusecheck "
                  "does not replay",
              Location::at(file, Place::expr(e)));
          std::string takes;
          for (const ValueRef& v : seg.inputs)
            if (v.isTensor()) takes += (takes.empty() ? "" : ", ") + std::string(f.tensorName(v.id));
          d.note("segment " + std::to_string(seg.id) + " (" + describeSegment(f, seg) + ") takes " +
                 (takes.empty() ? std::string("no tensor") : takes) + ", not " + in);
          d.note(
              "resolveScalarsInGroup walks the scalars a segment's exprs and the extents of the tensors it "
              "computes reach, and adds a leaf only where it is a fusion input; SegmentedGroup::finalize "
              "adds "
              "the scalars the exprs take as operands, which a reshape's or full's sizes are not "
              "(csrc/fusion_segmenter.cpp:311-322,4989-5130 @ 7dff43a2f)");
          d.note(
              "concretization keeps a reshape's size only where it has no definition, replacing the axis "
              "otherwise (concretizeNonEmptyReshape, csrc/dynamic_transform.cpp:880-948 @ 7dff43a2f), and "
              "the kernel's "
              "evaluator propagates values across exactly mapped axes");
          if (const nv::Change* fixed = nv::firstChangeTo(nv::SegmentScalarInputs::AnyNotConstant))
            d.note("decided from " + fixed->label() +
                   ": every scalar without a definition that is no constant is made an input of the segment");
          return true;
        }
      }
    }
  }
  return false;
}

}  // namespace fc
