// The group blocks of a segmented-fusion dump (see reader.h, import_segments.h).
//
// NVFUSER_DUMP=segmented_fusion prints the re-written complete fusion, then `Segmented_Fusion{`
// with `groups:` (`g{2}`, or `reduction{3, 9}` from 2025), `edges:` (`e{ ... }`) and
// `group details:`: per group `g{(scheduler)` (`g{` alone when no scheduler was chosen, as gdb's
// detailGroupPrint shows), `group id: N` (late 2024 on), `inputs:` / `outputs:` lists
// (`T0_g[ ... ] float`) and the group's exprs, each followed by `(n)`, then `}`. Pasted dumps are
// often only some of the group blocks; those read the same way.
#include <algorithm>
#include <cctype>

#include "io/ir/reader.h"

namespace fc::ir_text {

bool Reader::segmentStep() {
  if (isIdent(p_, "group") && isIdent(p_ + 1, "details") && isPunct(p_ + 2, ":")) {
    flushSkipped();
    details_ = true;
    p_ += 3;
    return true;
  }
  if (isIdent(p_, "group") && isIdent(p_ + 1, "id") && isPunct(p_ + 2, ":")) {
    p_ = lineEnd(p_);
    return true;
  }
  if (tok(p_).line_start && isIdent(p_, "g") && isPunct(p_ + 1, "{")) {
    flushSkipped();
    const size_t heading = p_;
    std::string sched = "none";
    if (isPunct(p_ + 2, "(")) {
      // nvFuser prints a scheduler type name here (`pointwise`, `expr_eval`, ...).
      if (!isIdent(p_ + 3) || !isPunct(p_ + 4, ")")) {
        p_ += 3;
        return error(DiagCode::ImportSyntax,
                     "expected a scheduler name (letters, digits, '_') in `g{(...)`, the group's heading",
                     p_);
      }
      sched = std::string(str(p_ + 3));
      p_ += 5;
    } else if (p_ + 2 >= end_ || tok(p_ + 2).line_start) {
      p_ += 2;  // `g{` with no scheduler
    } else {
      p_ = lineEnd(p_);  // a `groups:` entry `g{2}`
      return true;
    }
    groups_.push_back(SegmentSpec{{}, sched});
    group_outputs_.emplace_back();
    group_inputs_.emplace_back();
    group_tok_.push_back(heading);
    group_ = static_cast<int>(groups_.size()) - 1;
    mode_ = Mode::None;
    return true;
  }
  if (group_ >= 0 && (isIdent(p_, "inputs") || isIdent(p_, "outputs")) && isPunct(p_ + 1, ":")) {
    mode_ = str(p_) == "inputs" ? Mode::GroupInputs : Mode::GroupOutputs;
    p_ += 2;
    return true;
  }
  if ((isIdent(p_, "edges") || isIdent(p_, "groups")) && isPunct(p_ + 1, ":")) {
    p_ += 2;
    return true;
  }
  // An edge `e{ a{1} -> b{2}(T2_g[ ... ]) }`, a 2025 group entry `reduction{3, 9, 11}`.
  if (tok(p_).line_start && isIdent(p_) && isPunct(p_ + 1, "{") &&
      (str(p_) == "e" || tok(p_ + 2).kind == Tok::Number)) {
    p_ = lineEnd(p_);
    return true;
  }
  if (group_ >= 0 && isPunct(p_, "}")) {
    group_ = -1;
    mode_ = Mode::None;
    ++p_;
    return true;
  }
  return false;
}

// A group block that lists its inputs and outputs but no expr (a PR description shows the
// segmentation, not the math): its outputs that no expr defines or reads become the outputs of one
// opaque expr over its inputs, named after the group's scheduler, so that the fusion and its
// segmentation import; every analysis answers not decided at that expr.
void Reader::opaqueGroups() {
  std::vector<char> used(f_.tensors.size(), 0);
  for (const Expr& e : f_.exprs)
    for (const ValueRef& v : e.inputs)
      if (v.isTensor()) used[v.id] = 1;
  for (size_t g = 0; g < groups_.size(); ++g) {
    if (!groups_[g].exprs.empty() || group_inputs_[g].empty()) continue;
    std::vector<TensorId> outs;
    for (TensorId t : group_outputs_[g])
      if (f_.tensors[t].definition == kNone && !used[t] &&
          std::find(group_inputs_[g].begin(), group_inputs_[g].end(), t) == group_inputs_[g].end())
        outs.push_back(t);
    if (outs.empty()) continue;
    std::vector<ValueRef> in;
    for (TensorId t : group_inputs_[g]) in.push_back(ValueRef::tensor(t));
    Attrs attrs;
    attrs.name = "segment(" + groups_[g].scheduler + ")";
    ExprId e = f_.addExpr(OpKind::Opaque, std::move(in), outs, std::move(attrs));
    expr_in_dtype_.emplace_back();
    expr_init_dtype_.emplace_back();
    expr_tok_.push_back(group_tok_[g]);
    groups_[g].exprs.push_back(e);
    note("group " + std::to_string(g + 1) + " (" + groups_[g].scheduler +
             ") lists its inputs and outputs but no expr: imported as one opaque op `" +
             f_.exprs[e].attrs.name +
             "` from its inputs to its outputs; analyses of this fusion answer not decided",
         group_tok_[g]);
  }
}

void Reader::addToGroup(ExprId e) {
  if (!opts_.segmented || group_ < 0) return;
  auto& ex = groups_[static_cast<size_t>(group_)].exprs;
  if (std::find(ex.begin(), ex.end(), e) == ex.end()) ex.push_back(e);
}

void Reader::finishSegments() {
  if (groups_.empty()) {
    error(DiagCode::ImportSyntax,
          "no group block (`g{(pointwise)` ... `}`) found: a segmented-fusion dump lists its segments under "
          "`group details:`",
          begin_);
    return;
  }
  opaqueGroups();
  std::vector<int> seen(f_.exprs.size(), 0);
  for (const SegmentSpec& g : groups_)
    for (ExprId e : g.exprs) ++seen[e];
  std::string none, twice;
  size_t n_none = 0, n_twice = 0;
  for (ExprId e = 0; e < f_.exprs.size(); ++e) {
    std::string name(f_.tensorName(f_.exprs[e].outputs[0]));
    if (seen[e] == 0 && n_none++ < 4) none += (none.empty() ? "" : ", ") + name;
    if (seen[e] > 1 && n_twice++ < 4) twice += (twice.empty() ? "" : ", ") + name;
  }
  if (n_none)
    error(DiagCode::ImportUnresolved,
          std::to_string(n_none) + " expr(s) of the dump are in no group (the ones defining " + none +
              (n_none > 4 ? ", ..." : "") + "): the dump is missing group blocks",
          expr_tok_[0]);
  if (n_twice)
    error(DiagCode::ImportUnresolved,
          std::to_string(n_twice) + " expr(s) are listed in more than one group (the ones defining " + twice +
              (n_twice > 4 ? ", ..." : "") + ")",
          expr_tok_[0]);
  Segmentation seg;
  for (const SegmentSpec& g : groups_)
    if (!g.exprs.empty()) seg.segments.push_back(g);
  if (seg.segments.size() != groups_.size())
    note(std::to_string(groups_.size() - seg.segments.size()) +
             " group(s) of the dump show no expr (a cut dump); they are left out of the segmentation",
         begin_);
  f_.segmentation = seg;
}

}  // namespace fc::ir_text
