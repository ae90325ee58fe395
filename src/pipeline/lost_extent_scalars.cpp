#include "pipeline/lost_extent_scalars.h"

#include <algorithm>
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

bool isLeaf(const Scalar& sc) { return sc.kind == ScalarKind::Symbol || sc.kind == ScalarKind::Input; }

// A size that reaches extents without being an operand: a reshape's size that is a leaf itself
// (concretization keeps it; one with a definition it replaces by the concretized axis's extent,
// csrc/dynamic_transform.cpp:880-948 @ 7dff43a2f), or a leaf of a full's size.
struct KeptSize {
  ExprId expr = kNone;
  size_t index = 0;
  ScalarId size = kNone;  // the size as the repro gives it
};

void addLeaves(const Fusion& f, ScalarId s, std::unordered_set<ScalarId>& out) {
  if (s == kNone) return;
  for (ScalarId x : ScalarEval::freeSymbols(f, s)) out.insert(x);
}

// What a segment has of the scalars without #840 and #5669: the extents of the tensors it takes,
// and the leaves of the scalars its exprs take as operands (finalize, and resolveScalarsInGroup for
// fusion inputs).
std::unordered_set<ScalarId> givenScalars(const Fusion& f, const Segment& seg) {
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
  const nv::SegmentScalarInputs rule = p.state.get<nv::SegmentScalarInputs>();
  if (rule == nv::SegmentScalarInputs::AnyNotConstant) return false;
  if (p.multi_device || p.executor != Executor::Fec) return false;
  if (std::none_of(exprs.begin(), exprs.end(), [&](ExprId e) { return sizesInOutputOnly(f.exprs[e].op); }))
    return false;
  // The input each input extent belongs to.
  std::unordered_map<ScalarId, std::pair<TensorId, size_t>> owner;
  for (const ValueRef& v : f.inputs) {
    if (!v.isTensor()) continue;
    const std::vector<AxisId>& logical = f.tensors[v.id].logical;
    for (size_t i = 0; i < logical.size(); ++i)
      for (ScalarId x : {f.axes[logical[i]].extent, f.axes[logical[i]].expanded})
        if (x != kNone && f.scalars[x].kind == ScalarKind::Symbol) owner.emplace(x, std::pair(v.id, i));
  }
  // A leaf is lost where its segment lacks it: a fusion scalar input only before #840, the extent
  // of an input before #5669.
  auto losable = [&](ScalarId x) {
    const Scalar& sc = f.scalars[x];
    if (sc.kind == ScalarKind::Input) return rule == nv::SegmentScalarInputs::ExprOperands;
    return sc.kind == ScalarKind::Symbol && owner.contains(x);
  };
  std::unordered_map<ScalarId, KeptSize> kept;
  std::unordered_set<ScalarId> replaced;  // reshape sizes with a definition
  for (ExprId e : exprs) {
    const Expr& x = f.exprs[e];
    if (!sizesInOutputOnly(x.op)) continue;
    for (size_t i = 0; i < x.attrs.shape.size(); ++i) {
      const ScalarId size = x.attrs.shape[i];
      if (x.op == OpKind::Reshape) {
        const ScalarId leaf = throughSize(f, size);
        if (leaf != kNone && isLeaf(f.scalars[leaf])) {
          if (losable(leaf)) kept.emplace(leaf, KeptSize{e, i, size});
        } else if (size != kNone && f.scalars[size].kind == ScalarKind::Derived) {
          replaced.insert(size);
        }
      } else {
        for (ScalarId leaf : ScalarEval::freeSymbols(f, size))
          if (losable(leaf)) kept.emplace(leaf, KeptSize{e, i, size});
      }
    }
  }
  if (kept.empty()) return false;
  const SegmenterRuns runs = segmenterRuns(f, exprs, s, p.state.get<nv::FusionInputOps>());
  if (!runs.may) return false;

  // The first kept leaf that an extent `x` reaches, not through a scalar the segment has or one
  // concretization replaces.
  auto reaches = [&](ScalarId x, const std::unordered_set<ScalarId>& given) -> ScalarId {
    std::vector<ScalarId> stack{x};
    std::unordered_set<ScalarId> seen;
    while (!stack.empty()) {
      const ScalarId y = stack.back();
      stack.pop_back();
      if (y == kNone || given.contains(y) || replaced.contains(y) || !seen.insert(y).second) continue;
      if (isLeaf(f.scalars[y]) && kept.contains(y)) return y;
      ScalarEval::pushOperands(f, y, stack);
    }
    return kNone;
  };

  for (const Segment& seg : s.segments) {
    if (seg.kind != SegmentKind::Compute) continue;
    const std::unordered_set<ScalarId> given = givenScalars(f, seg);
    for (ExprId e : seg.exprs) {
      const Expr& x = f.exprs[e];
      // A reshape's output is the concretized one, whose extents are its input's.
      if (x.op == OpKind::Reshape) continue;
      for (TensorId t : x.outputs) {
        const std::vector<AxisId>& logical = f.tensors[t].logical;
        for (size_t k = 0; k < logical.size(); ++k) {
          const Axis& ax = f.axes[logical[k]];
          if (ax.iter == IterType::Reduction) continue;
          ScalarId leaf = reaches(ax.extent, given);
          if (leaf == kNone && ax.expanded != kNone) leaf = reaches(ax.expanded, given);
          if (leaf == kNone) continue;
          const KeptSize& from = kept.at(leaf);
          const bool input_scalar = f.scalars[leaf].kind == ScalarKind::Input;
          const std::string sym = symbolToString(f, leaf);
          std::string what = "the scalar input " + sym;
          if (!input_scalar) {
            const auto& [in, pos] = owner.at(leaf);
            what = "the extent " + sym + " of axis " + std::to_string(pos) + " of the input " +
                   std::string(f.tensorName(in)) + ", which no op of its segment reads";
          }
          const char* change = input_scalar ? "#840" : "#5669";
          std::string msg = std::string(f.tensorName(t)) + " (" + exprLabel(f, e) + ") has axis " +
                            std::to_string(k) + " of extent " + scalarToString(f, ax.extent) + ", ";
          if (from.expr != e)
            msg += "carrying size " + std::to_string(from.index) + " of " + exprLabel(f, from.expr) + ", ";
          msg += what;
          if (input_scalar) msg += ", which its segment does not take as an operand";
          msg += std::string(": before ") + change +
                 (input_scalar
                      ? " the segmenter gave a segment only the scalars its exprs take as operands"
                      : " the segmenter gave a segment, of the scalars reached only from the extents of "
                        "the tensors it computes, the fusion's scalar inputs alone") +
                 ", so nvFuser may stop with \"Could not launch kernel as program could not infer " + sym +
                 " for the buffer ...\" (nvFuser " + (input_scalar ? "#656" : "#5669") + ")" +
                 (runs.certain ? "" : ", if it segments this fusion, which the schedulers decide") +
                 "; whether it does depends on concretization and on the kernel's evaluator, which fusecheck "
                 "does "
                 "not replay";
          auto& d = sink.report(Severity::NotDecided, DiagCode::NotDecided, msg,
                                Location::at(file, Place::expr(e)));
          std::string takes;
          for (const ValueRef& v : seg.inputs)
            if (v.isTensor()) takes += (takes.empty() ? "" : ", ") + std::string(f.tensorName(v.id));
          d.note("segment " + std::to_string(seg.id) + " (" + describeSegment(f, seg) + ") takes " +
                 (takes.empty() ? std::string("no tensor") : takes) +
                 (s.approximate ? " by the hard rules" : "") + "; nvFuser's segments lie within these");
          d.note(
              input_scalar
                  ? "resolveScalarsInGroup walks only the scalars a segment's exprs take as operands "
                    "(csrc/fusion_segmenter.cpp:3911-3970 @ 971aa3395); a reshape's or full's sizes are none"
                  : "resolveScalarsInGroup walks the scalars a segment's exprs and the extents of the "
                    "tensors "
                    "it computes reach, and adds a leaf only where it is a fusion input; "
                    "SegmentedGroup::finalize "
                    "adds the scalars the exprs take as operands, which a reshape's or full's sizes are not "
                    "(csrc/fusion_segmenter.cpp:311-322,4989-5130 @ 7dff43a2f)");
          d.note(
              "concretization keeps a reshape's size only where it has no definition, replacing it otherwise "
              "(concretizeNonEmptyReshape, csrc/dynamic_transform.cpp:880-948 @ 7dff43a2f), and the kernel's "
              "evaluator propagates values across exactly mapped axes");
          const nv::Change* fixed = input_scalar ? nv::firstChangeTo(nv::SegmentScalarInputs::FusionInputs)
                                                 : nv::firstChangeTo(nv::SegmentScalarInputs::AnyNotConstant);
          if (fixed)
            d.note("decided from " + fixed->label() +
                   (input_scalar
                        ? ": the fusion scalar inputs that a segment's extents reach are made its inputs"
                        : ": every scalar without a definition that is no constant is made an input of "
                          "the segment"));
          return true;
        }
      }
    }
  }
  return false;
}

}  // namespace fc
