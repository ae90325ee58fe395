#include "rewrite/fixes.h"

#include <algorithm>

#include "ir/printer.h"
#include "passes/segment_inputs.h"

namespace fc {

std::optional<FixKind> parseFixKind(const std::string& s) {
  if (s == "auto" || s.empty()) return FixKind::Auto;
  if (s == "strip-reduction-axes") return FixKind::StripReductionAxes;
  if (s == "forward-extent") return FixKind::ForwardExtent;
  return std::nullopt;
}

namespace {

std::string domainString(const Fusion& f, const std::vector<AxisId>& dom) {
  std::string s = "[";
  for (size_t i = 0; i < dom.size(); ++i) s += (i ? ", " : "") + axisToString(f, dom[i]);
  return s + "]";
}

// The segmentation a fix records: the segments the pipeline ran, explicitly.
Segmentation explicitSegmentation(const Fusion& f, const PipelineResult& r) {
  Segmentation s = f.segmentation.value_or(Segmentation{});
  s.segments.clear();
  for (const Segment& seg : r.segmented.segments) s.segments.push_back({seg.exprs, seg.scheduler});
  return s;
}

}  // namespace

FixResult applyFixes(const Fusion& f, const PipelineResult& before, FixKind kind, const std::string& file) {
  FixResult out;
  out.fixed = f;
  const bool keeps = before.input_rewrite == InputRewrite::KeepReductions;
  bool want_strip = false;
  std::vector<ForwardedExtent> forwards;

  auto refuse = [&](const std::string& msg, const std::string& alt) {
    Diagnostic d;
    d.code = DiagCode::FixNotApplicable;
    d.message = msg;
    d.loc.file = file;
    if (!alt.empty()) d.notes.push_back(Note{"note", alt, {}});
    out.refusals.push_back(std::move(d));
  };

  for (const UnboundExtent& u : before.unbound) {
    std::string sym(f.scalarName(u.symbol));
    if (u.segment < 0) {
      refuse("no fix can bind " + sym + ": the whole fusion cannot evaluate it",
             "bind it from the inputs: give the repro concrete inputs or use --bind " + sym + "=V");
      continue;
    }
    bool on_reduction = !u.uses.empty() && u.uses[0].on_input && u.uses[0].reduction_axis;
    bool strip_ok = keeps && on_reduction && u.strip_applies;
    if (kind == FixKind::StripReductionAxes || (kind == FixKind::Auto && strip_ok)) {
      if (strip_ok) {
        want_strip = true;
        continue;
      }
      if (kind == FixKind::StripReductionAxes) {
        refuse("strip-reduction-axes does not discharge " + sym + " in segment " + std::to_string(u.segment) +
                   (u.needed ? ": " + sym + " has another use in the segment (its value is needed)"
                             : ": it does not come from a Reduction axis of a segment input"),
               u.forward_applies ? "use --fix forward-extent: " + sym + " is bound in the whole fusion" : "");
        continue;
      }
    }
    if (u.forward_applies) {
      forwards.push_back({static_cast<uint32_t>(u.segment), u.symbol});
    } else {
      refuse("forward-extent cannot discharge " + sym + " in segment " + std::to_string(u.segment) +
                 ": the complete fusion does not bind it either",
             "give the repro concrete inputs or --bind " + sym + "=V");
    }
  }
  // Edge hazards are discharged by stripping too.
  for (const Diagnostic& d : before.diagnostics)
    if (d.code == DiagCode::EdgeHazard && keeps && kind != FixKind::ForwardExtent) want_strip = true;

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
        out.actions.push_back({"strip-reduction-axes",
                               "segment " + std::to_string(s.id) + ": " + std::string(f.tensorName(v.id)) +
                                   " " + domainString(f, keep) + " -> " + domainString(f, strip),
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
    out.actions.push_back({"forward-extent",
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

}  // namespace fc
