#include "pipeline/opaque_ops.h"

#include <algorithm>
#include <optional>

#include "analysis/scalar_eval.h"
#include "ir/printer.h"
#include "pipeline/indexing_ops.h"

namespace fc::pipeline_detail {
namespace {

// Where the whole-first path's claim comes from.
constexpr const char* kWholeFirstSource =
    "FusionExecutorCache concretizes a copy of the complete fusion before FusionKernelRuntime "
    "segments it (csrc/runtime/fusion_executor_cache.cpp:469-496 @ 81c4b22fd)";

void addSymbols(const Fusion& f, ScalarId s, std::vector<ScalarId>& out) {
  if (s == kNone) return;
  for (ScalarId x : ScalarEval::freeSymbols(f, s)) out.push_back(x);
}

// Why the pipeline cannot follow `f` through opaque expr `e` on `p`'s path; nullopt when it can.
// `has_reduction`: the fusion holds a reduction or a tensor with a Reduction axis.
std::optional<std::string> whyOpen(const Fusion& f, const Profile& p, ExprId e, bool has_reduction) {
  const Expr& x = f.exprs[e];
  if (isOpaqueSegment(x))
    return std::string(
        "it stands for a whole segment whose exprs the dump does not show, and what they are (a dynamic "
        "reshape among them, a resize) decides what concretization does");
  if (p.multi_device)
    return std::string(
        "the fusion has meshes, and how nvFuser's sharding passes carry meshes and DID types through "
        "this op is not modelled");
  if (!p.wholeFirst())
    return "this path binds and concretizes each segment alone, and which segment nvFuser gives this op is "
           "not modelled";
  // An indexing op carries IterTypes by its root-domain map (pipeline/indexing_ops.h): its
  // Symbolic axes concretize as the index's, or fail before #1194 (FC0321).
  const std::optional<IndexingOp> indexing = indexingOp(f, x);
  const bool carries_symbolic = indexing.has_value();
  // Operands: their axes' extents and scalar operands bound the symbols the outputs may use.
  std::vector<ScalarId> known;
  for (const ValueRef& v : x.inputs) {
    if (v.isScalar()) {
      addSymbols(f, v.id, known);
      continue;
    }
    if (!v.isTensor()) continue;
    const Tensor& t = f.tensors[v.id];
    for (const std::vector<AxisId>* dom : {&t.root, &t.logical})
      for (AxisId a : *dom) {
        if (f.axes[a].iter == IterType::Symbolic && !carries_symbolic)
          return "its operand " + std::string(f.tensorName(v.id)) + " has the Symbolic axis " +
                 axisToString(f, a) +
                 ", and how concretization carries IterTypes through this op is not modelled";
        addSymbols(f, f.axes[a].extent, known);
        addSymbols(f, f.axes[a].expanded, known);
      }
  }
  std::sort(known.begin(), known.end());
  for (TensorId o : x.outputs) {
    const Tensor& t = f.tensors[o];
    if (indexing) {
      size_t pos = 0;
      for (AxisId a : t.logical) {
        if (f.axes[a].iter == IterType::Reduction) continue;
        if (f.axes[a].iter == IterType::Symbolic && !indexing->followsSymbolic(pos))
          return "its output " + std::string(f.tensorName(o)) + " has the Symbolic axis " +
                 axisToString(f, a) + " at axis " + std::to_string(pos) +
                 ", which both its lookup and its index map, and concretization gives it the promoted "
                 "IterType "
                 "of the two, which fusecheck does not model (a lookup axis of extent 1 against an index "
                 "axis "
                 "of another extent concretizes Iteration)";
        ++pos;
      }
    }
    for (const std::vector<AxisId>* dom : {&t.root, &t.logical})
      for (AxisId a : *dom) {
        const Axis& ax = f.axes[a];
        if (ax.iter == IterType::Symbolic && !carries_symbolic)
          return "its output " + std::string(f.tensorName(o)) + " has the Symbolic axis " +
                 axisToString(f, a) +
                 ", and how concretization carries IterTypes through this op is not modelled";
        std::vector<ScalarId> used;
        addSymbols(f, ax.extent, used);
        addSymbols(f, ax.expanded, used);
        for (ScalarId s : used)
          if (!std::binary_search(known.begin(), known.end(), s))
            return "the extent of its output axis " + axisToString(f, a) + " (of " +
                   std::string(f.tensorName(o)) + ") uses " +
                   (f.scalarName(s).empty() ? std::string("a scalar") : std::string(f.scalarName(s))) +
                   ", which no operand of the op holds, so binding cannot follow the op";
      }
  }
  // Before the transpose scheduler's fixes, a cut around the op matters once a Reduction axis can
  // reach one: the fusion's own reductions, or those of batch_norm, the one op here nvFuser builds
  // from several exprs with reductions among them (Welford, csrc/ops/normalization.cpp:537-589 @ 81c4b22fd).
  if ((p.transpose_tile_hazard || p.transpose_outer_hazard) &&
      (has_reduction || exprOpName(x) == "batch_norm"))
    return "at this point a segment input keeps its Reduction axes and the transpose scheduler merges them, "
           "and where nvFuser cuts the fusion around or inside this op (which decides whether a Reduction "
           "axis, the fusion's or one the op builds, reaches such a segment) is not modelled";
  return std::nullopt;
}

bool holdsReduction(const Fusion& f) {
  for (const Expr& x : f.exprs)
    if (opInfo(x.op).category == OpCategory::Reduction) return true;
  for (const Tensor& t : f.tensors)
    for (const std::vector<AxisId>* dom : {&t.root, &t.logical})
      for (AxisId a : *dom)
        if (f.axes[a].iter == IterType::Reduction) return true;
  return false;
}

}  // namespace

bool opaqueOpsOpen(const Fusion& f, const Profile& p, const std::string& file, DiagnosticSink& sink) {
  if (!holdsOpaqueOp(f)) return false;
  const bool has_reduction = holdsReduction(f);
  bool any = false;
  for (ExprId e = 0; e < f.exprs.size(); ++e) {
    const Expr& x = f.exprs[e];
    if (!isOpaque(x.op)) continue;
    auto why = whyOpen(f, p, e, has_reduction);
    if (!why) continue;
    any = true;
    std::string outs;
    for (TensorId t : x.outputs) outs += (outs.empty() ? "" : ", ") + std::string(f.tensorName(t));
    auto& d = sink.report(
        Severity::NotDecided, DiagCode::NotDecided,
        "expr " + std::to_string(e) + " is the opaque op `" + std::string(exprOpName(x)) + "` (defining " +
            outs + "), whose outputs fusecheck knows but whose behaviour it does not model: " + *why,
        Location::at(file, Place::expr(e)));
    d.note(
        "fusecheck follows an opaque op only on a single-device path that concretizes the complete fusion "
        "first, when the op takes and gives no Symbolic axis (an indexing op with a recorded dim may) and "
        "its "
        "outputs take their extents from its operands, and where no Reduction axis can reach the transpose "
        "scheduler (no reduction in the "
        "fusion, or a point where it no longer merges the Reduction axes of segment inputs)");
    d.note(kWholeFirstSource);
  }
  return any;
}

std::string opaqueOpNames(const Fusion& f) {
  std::vector<std::string_view> seen;
  std::string out;
  for (const Expr& x : f.exprs) {
    if (!isOpaque(x.op)) continue;
    std::string_view n = exprOpName(x);
    if (std::find(seen.begin(), seen.end(), n) != seen.end()) continue;
    out += (seen.empty() ? "" : ", ") + std::string(n);
    seen.push_back(n);
  }
  return out;
}

}  // namespace fc::pipeline_detail
