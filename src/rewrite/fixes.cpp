#include "rewrite/fixes.h"

#include <algorithm>
#include <set>

#include "analysis/scalar_eval.h"
#include "ir/live_exprs.h"
#include "ir/printer.h"
#include "passes/segment_inputs.h"
#include "pipeline/history.h"

namespace fc {

std::optional<FixKind> parseFixKind(const std::string& s) {
  if (s == "auto" || s.empty()) return FixKind::Auto;
  if (s == "strip-reduction-axes") return FixKind::StripReductionAxes;
  if (s == "forward-extent") return FixKind::ForwardExtent;
  return std::nullopt;
}

namespace {

// The segmentation a fix records: the segments the pipeline ran, explicitly.
Segmentation explicitSegmentation(const Fusion& f, const PipelineResult& r) {
  Segmentation s = f.segmentation.value_or(Segmentation{});
  s.segments.clear();
  for (const Segment& seg : r.segmented.segments) s.segments.push_back({seg.exprs, seg.scheduler});
  return s;
}

bool mentions(const Fusion& f, ScalarId s, ScalarId sym) {
  if (s == kNone) return false;
  if (s == sym) return true;
  auto free = ScalarEval::freeSymbols(f, s);
  return std::find(free.begin(), free.end(), sym) != free.end();
}

// Every use of `sym` in compute segment `seg` once its inputs' Reduction
// axes are stripped: scalar operands, attributes, and the extents of every
// axis the segment holds.
std::vector<std::string> usesInSegment(const Fusion& f, const Segment& seg, ScalarId sym) {
  std::vector<std::string> uses;
  const std::string name(f.scalarName(sym));
  auto axisUse = [&](TensorId t, AxisId a, const char* where) {
    const Axis& ax = f.axes[a];
    if (mentions(f, ax.extent, sym) || mentions(f, ax.expanded, sym))
      uses.push_back(std::string(where) + " axis " + axisToString(f, a) + " of " +
                     std::string(f.tensorName(t)));
  };
  for (const ValueRef& v : seg.inputs) {
    if (!v.isTensor()) continue;
    for (AxisId a : segmentInputDomain(f, v.id, InputRewrite::StripReductions)) axisUse(v.id, a, "input");
  }
  for (ExprId e : seg.exprs) {
    const Expr& x = f.exprs[e];
    const std::string ex =
        "expr " + std::to_string(userExprId(f, e)) + " (" + std::string(opName(x.op)) + ")";
    for (size_t i = 0; i < x.inputs.size(); ++i)
      if (x.inputs[i].isScalar() && mentions(f, x.inputs[i].id, sym))
        uses.push_back(ex + ": scalar operand " + std::to_string(i) + " (" +
                       scalarToString(f, x.inputs[i].id) + ")");
    const Attrs& at = x.attrs;
    auto attr = [&](const char* key, ScalarId s) {
      if (mentions(f, s, sym)) uses.push_back(ex + ": " + key + " (" + scalarToString(f, s) + ")");
    };
    for (ScalarId s : at.shape) attr("shape", s);
    for (ScalarId s : at.pad) attr("pad width", s);
    for (const SliceRange& r : at.ranges) {
      attr("slice start", r.start);
      attr("slice stop", r.stop);
      attr("slice step", r.step);
    }
    attr("value", at.value);
    attr("start", at.start);
    attr("step", at.step);
    for (TensorId t : x.outputs) {
      for (AxisId a : f.tensors[t].root) axisUse(t, a, "root");
      for (AxisId a : f.tensors[t].logical) axisUse(t, a, "logical");
    }
  }
  return uses;
}

// How segment `seg` binds `sym` without the stripped axes, or "".
std::string bindsInSegment(const Fusion& f, const SegmentedFusion& sf, const Segment& seg, ScalarId sym) {
  for (const ValueRef& v : seg.inputs) {
    if (v.isScalar() && v.id == sym) return "it is a scalar input of segment " + std::to_string(seg.id);
    if (!v.isTensor()) continue;
    auto dom = segmentInputDomain(f, v.id, InputRewrite::StripReductions);
    for (size_t i = 0; i < dom.size(); ++i) {
      const Axis& ax = f.axes[dom[i]];
      ScalarId bound = ax.iter == IterType::Broadcast ? ax.expanded : ax.extent;
      if (bound == sym)
        return "bound in segment " + std::to_string(seg.id) + " by " + std::string(f.tensorName(v.id)) +
               " axis " + std::to_string(i) + " (" + axisToString(f, dom[i]) + ")";
    }
  }
  for (const ForwardedExtent& fw : sf.forward)
    if (fw.segment == seg.id && fw.symbol == sym)
      return "forwarded into segment " + std::to_string(seg.id) + " as a scalar input";
  return "";
}

}  // namespace

FixResult applyFixes(const Fusion& f, const PipelineResult& before, FixKind kind, const std::string& file) {
  FixResult out;
  out.fixed = f;
  const bool keeps = before.input_rewrite == InputRewrite::KeepReductions;
  bool want_strip = false;
  std::vector<ForwardedExtent> forwards;
  std::vector<const UnboundExtent*> stripped;  // discharged by strip-reduction-axes, if it applies

  auto refuse = [&](const std::string& msg, const std::string& alt) {
    Diagnostic d;
    d.code = DiagCode::FixNotApplicable;
    d.message = msg;
    d.loc.file = file;
    if (!alt.empty()) d.notes.push_back(Note{"note", alt, {}});
    out.refusals.push_back(std::move(d));
  };

  const uint32_t pos = before.profile.point.pos;
  const nv::Change* strip_since = nv::nextChangeTo(nv::InputRewrite::StripReductions, pos);
  const nv::Change* forward_since = nv::nextChangeTo(nv::SegmentInputLookup::Evaluator, pos);
  for (const UnboundExtent& u : before.unbound) {
    std::string sym(f.scalarName(u.symbol));
    if (u.missing_input) {
      if (kind == FixKind::StripReductionAxes) continue;
      if (u.forward_applies)
        forwards.push_back({static_cast<uint32_t>(u.segment), u.symbol});
      else
        refuse("forward-extent cannot supply " + sym + " to segment " + std::to_string(u.segment) +
                   ": no later nvFuser binds it there either",
               "give the repro concrete inputs or --bind " + sym + "=V");
      continue;
    }
    if (u.segment < 0) {
      refuse("no fix can bind " + sym + ": the whole fusion cannot evaluate it",
             "bind it from the inputs: give the repro concrete inputs or use --bind " + sym + "=V");
      continue;
    }
    bool on_reduction = !u.uses.empty() && u.uses[0].on_input && u.uses[0].reduction_axis;
    bool strip_ok = keeps && on_reduction && u.strip_applies;
    // An explicit --fix strip-reduction-axes is tried (and its obligations
    // checked) even where the pipeline says the value is needed.
    if ((kind == FixKind::Auto && strip_ok) ||
        (kind == FixKind::StripReductionAxes && keeps && on_reduction)) {
      want_strip = true;
      stripped.push_back(&u);
      continue;
    }
    if (kind == FixKind::StripReductionAxes) {
      refuse("strip-reduction-axes does not discharge " + sym + " in segment " + std::to_string(u.segment) +
                 ": it does not come from a Reduction axis of a segment input",
             u.forward_applies ? "use --fix forward-extent: " + sym + " is bound in the whole fusion" : "");
      continue;
    }
    refuse("no fix nvFuser made later discharges " + sym + " in segment " + std::to_string(u.segment),
           "give the repro concrete inputs or --bind " + sym + "=V");
  }
  // Edge hazards are discharged by stripping too.
  for (const Diagnostic& d : before.diagnostics)
    if (d.code == DiagCode::EdgeHazard && keeps && kind != FixKind::ForwardExtent) want_strip = true;

  // Auto chose forward-extent where the pipeline saw the value needed:
  // record the strip's obligations too, to show why it was not used.
  if (!want_strip && keeps && kind == FixKind::Auto &&
      std::any_of(before.unbound.begin(), before.unbound.end(), [](const UnboundExtent& u) {
        return u.segment >= 0 && !u.uses.empty() && u.uses[0].on_input && u.uses[0].reduction_axis;
      }))
    out.obligations = stripObligations(f, before.segmented);
  // Validated fixes: prove every obligation of the strip on the segmented
  // program, or refuse it (FC0401) and forward what it would have discharged.
  if (want_strip) {
    out.obligations = stripObligations(f, before.segmented);
    bool all_hold = true;
    for (Obligation& o : out.obligations) {
      if (o.holds) continue;
      if (std::any_of(forwards.begin(), forwards.end(), [&](const ForwardedExtent& fw) {
            return fw.segment == o.segment && fw.symbol == o.symbol;
          })) {
        o.holds = true;
        o.discharge +=
            "; forward-extent passes it into segment " + std::to_string(o.segment) + " in this fix";
        continue;
      }
      all_hold = false;
      std::string sym(f.scalarName(o.symbol));
      refuse("strip-reduction-axes refused: obligation \"" + o.statement + "\" fails: " + o.discharge,
             "stripping " + sym + " from " + o.tensor + " would leave segment " + std::to_string(o.segment) +
                 " unable to evaluate it; forward-extent passes " + sym + " in as a scalar input instead");
    }
    if (!all_hold) {
      want_strip = false;
      for (const UnboundExtent* u : stripped) {
        if (kind == FixKind::StripReductionAxes) continue;  // asked for strip only: refused above
        if (u->forward_applies)
          forwards.push_back({static_cast<uint32_t>(u->segment), u->symbol});
        else
          refuse("forward-extent cannot discharge " + std::string(f.scalarName(u->symbol)) + " in segment " +
                     std::to_string(u->segment) + ": the complete fusion does not bind it either",
                 "give the repro concrete inputs or --bind " + std::string(f.scalarName(u->symbol)) + "=V");
      }
    }
  }
  if (!want_strip && forwards.empty()) return out;
  Segmentation seg = explicitSegmentation(f, before);
  if (want_strip) {
    seg.input_rewrite = InputRewrite::StripReductions;
    seg.applied_fixes.push_back("strip-reduction-axes");
    for (const Segment& s : before.segmented.segments) {
      if (s.kind != SegmentKind::Compute) continue;
      for (const ValueRef& v : s.inputs) {
        if (!v.isTensor()) continue;
        auto keep = segmentInputDomain(f, v.id, InputRewrite::KeepReductions);
        auto strip = segmentInputDomain(f, v.id, InputRewrite::StripReductions);
        if (keep.size() == strip.size()) continue;
        out.actions.push_back({"strip-reduction-axes", strip_since ? strip_since->label() : std::string(),
                               "segment " + std::to_string(s.id) + ": " + std::string(f.tensorName(v.id)) +
                                   " " + domainToString(f, keep) + " -> " + domainToString(f, strip),
                               "the stripped symbols have no other use in segment " + std::to_string(s.id)});
      }
    }
  }
  for (const ForwardedExtent& fw : forwards) {
    if (std::any_of(seg.forward.begin(), seg.forward.end(), [&](const ForwardedExtent& x) {
          return x.segment == fw.segment && x.symbol == fw.symbol;
        }))
      continue;
    seg.forward.push_back(fw);
    std::string sym(f.scalarName(fw.symbol));
    out.actions.push_back({"forward-extent", forward_since ? forward_since->label() : std::string(),
                           "segment " + std::to_string(fw.segment) + ": new scalar input " + sym,
                           sym + " is bound in the complete fusion, so the producer side can pass it"});
  }
  if (!forwards.empty() && std::find(seg.applied_fixes.begin(), seg.applied_fixes.end(), "forward-extent") ==
                               seg.applied_fixes.end())
    seg.applied_fixes.push_back("forward-extent");
  out.fixed.segmentation = std::move(seg);
  out.changed = true;
  return out;
}

FixResult applyFixesToFixpoint(const Fusion& f, const PipelineResult& before, const PipelineOptions& po,
                               FixKind kind, const std::string& file) {
  FixResult out = applyFixes(f, before, kind, file);
  for (int round = 1; round < 4 && out.changed && out.refusals.empty(); ++round) {
    PipelineResult after = runPipeline(out.fixed, po);
    if (!after.failed()) break;
    FixResult next = applyFixes(out.fixed, after, kind, file);
    if (!next.changed) break;
    out.fixed = std::move(next.fixed);
    for (FixAction& a : next.actions) out.actions.push_back(std::move(a));
    for (Obligation& o : next.obligations) out.obligations.push_back(std::move(o));
    for (Diagnostic& d : next.refusals) out.refusals.push_back(std::move(d));
  }
  return out;
}

std::vector<Obligation> stripObligations(const Fusion& f, const SegmentedFusion& sf) {
  std::vector<Obligation> out;
  for (const Segment& seg : sf.segments) {
    if (seg.kind != SegmentKind::Compute) continue;
    std::set<ScalarId> done;
    for (const ValueRef& v : seg.inputs) {
      if (!v.isTensor()) continue;
      for (AxisId a : segmentInputDomain(f, v.id, InputRewrite::KeepReductions)) {
        const Axis& ax = f.axes[a];
        if (ax.iter != IterType::Reduction || ax.extent == kNone) continue;
        for (ScalarId sym : ScalarEval::freeSymbols(f, ax.extent)) {
          if (!done.insert(sym).second) continue;
          Obligation o;
          o.fix = "strip-reduction-axes";
          o.segment = seg.id;
          o.tensor = std::string(f.tensorName(v.id));
          o.symbol = sym;
          const std::string name(f.scalarName(sym));
          o.statement = name + " (stripped with " + axisToString(f, a) + " of " + o.tensor +
                        ") has no other use in segment " + std::to_string(seg.id);
          o.uses = usesInSegment(f, seg, sym);
          if (o.uses.empty()) {
            o.holds = true;
            o.discharge = "no scalar operand, attribute or axis extent of segment " + std::to_string(seg.id) +
                          " uses " + name;
          } else if (std::string b = bindsInSegment(f, sf, seg, sym); !b.empty()) {
            o.holds = true;
            o.discharge = name + " is used (" + o.uses.front() + ") but " + b;
          } else {
            o.discharge = name + " is used and nothing else binds it in segment " + std::to_string(seg.id) +
                          ": " + o.uses.front() +
                          (o.uses.size() > 1 ? " (and " + std::to_string(o.uses.size() - 1) + " more)" : "");
          }
          out.push_back(std::move(o));
        }
      }
    }
  }
  return out;
}

std::optional<Fusion> withStrippedInputs(const Fusion& f, const PipelineResult& r) {
  bool any = false;
  for (const Segment& s : r.segmented.segments) {
    if (s.kind != SegmentKind::Compute) continue;
    for (const ValueRef& v : s.inputs)
      if (v.isTensor() && segmentInputDomain(f, v.id, InputRewrite::KeepReductions).size() !=
                              segmentInputDomain(f, v.id, InputRewrite::StripReductions).size())
        any = true;
  }
  if (!any) return std::nullopt;
  Fusion out = f;
  Segmentation seg = explicitSegmentation(f, r);
  seg.input_rewrite = InputRewrite::StripReductions;
  out.segmentation = std::move(seg);
  return out;
}

}  // namespace fc
