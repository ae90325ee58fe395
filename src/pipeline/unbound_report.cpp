// The unbound-extent report: one FC0301 per symbol a view
// cannot evaluate, with a note per hop of its provenance, the nvFuser check
// it stands for, and the fix nvFuser itself made at a later change point.
#include <algorithm>
#include <map>

#include "ir/printer.h"
#include "ir/uncomputed_scalar.h"
#include "passes/segment.h"
#include "passes/segment_inputs.h"
#include "pipeline/context.h"

namespace fc::pipeline_detail {

namespace {

std::string useText(const Fusion& f, const UnboundUse& u, const std::string& sym, int seg) {
  if (u.expr != kNone)
    return sym + " is used as a value by expr " + std::to_string(u.expr) + " (" +
           std::string(opName(f.exprs[u.expr].op)) + ")";
  std::string what = u.reduction_axis ? "Reduction axis " : "axis ";
  std::string where = u.on_input ? (seg >= 0 ? "segment input " : "fusion input ") : "";
  const Axis& ax = f.axes[u.axis];
  std::string axis_name = std::string(1, iterTypeLetter(ax.iter)) +
                          std::string(parallelTypePrinted(ax.parallel)) + std::to_string(ax.number);
  bool direct = f.axes[u.axis].extent == u.symbol || f.axes[u.axis].expanded == u.symbol;
  return sym + (direct ? " is the extent of " : " appears in the extent of ") + what + axis_name + " of " +
         where + std::string(f.tensorName(u.tensor));
}

}  // namespace

void Ctx::reportUnbound(const ConcretizationInfo& info, int seg_idx, const Segment* seg,
                        const std::vector<BoundInput>& inputs, InputRewrite rw, bool rewrite_from_repro,
                        DiagnosticSink& sink, std::vector<UnboundExtent>& unbound) {
  // Group uses by symbol, in discovery order.
  std::vector<ScalarId> order;
  std::map<ScalarId, std::vector<UnboundUse>> by_sym;
  for (const UnboundUse& u : info.unbound) {
    if (!by_sym.count(u.symbol)) order.push_back(u.symbol);
    by_sym[u.symbol].push_back(u);
  }
  const std::string scope = seg ? "segment " + std::to_string(seg->id) + " (" + describeSegment(f, *seg) + ")"
                                : std::string("the fusion");
  for (ScalarId sym : order) {
    auto& uses = by_sym[sym];
    // Report at an input's Reduction axis first (the #2481 shape), else the first use.
    auto primary_it = std::find_if(uses.begin(), uses.end(),
                                   [](const UnboundUse& u) { return u.on_input && u.reduction_axis; });
    if (primary_it == uses.end()) primary_it = uses.begin();
    std::rotate(uses.begin(), primary_it, primary_it + 1);
    const UnboundUse& use = uses.front();
    const std::string name = symbolToString(f, sym);
    if (std::optional<std::string> call = uncomputedScalarCall(f, sym)) {
      // Computed from fusion scalar inputs alone, or on FusionExecutorCache's path also from the
      // extents of fusion input tensors: nvFuser computes it in every segment that uses it
      // (resolveScalarsInGroup, ir/uncomputed_scalar.h), so it is no open question.
      if (uncomputedFromInputs(f, sym, seg == nullptr && r.profile.executor == Executor::Fec)) continue;
      // No unbound extent: a value nvFuser computes from the call's operands, which fusecheck does
      // not compute (ir/uncomputed_scalar.h).
      Location loc =
          use.expr != kNone ? Location::at(opts.file, Place::expr(use.expr)) : axisLoc(use.tensor, use.pos);
      auto& d = sink.report(Severity::NotDecided, DiagCode::NotDecided,
                            scope + " needs " + name + ", which stands for `" + *call +
                                "` on scalars: fusecheck does not compute that op, so whether nvFuser can "
                                "evaluate " +
                                name + " here is not decided",
                            loc);
      d.note(useText(f, use, name, seg_idx));
      d.note("nvFuser computes " + name +
             " from its operands, in the kernel or on the host; fusecheck neither computes nor bounds it");
      continue;
    }

    UnboundExtent rec;
    rec.segment = seg_idx;
    rec.symbol = sym;
    rec.uses = uses;
    if (use.axis != kNone) rec.hops = traceHops(f, &r.segmented, use.tensor, use.axis, sym);
    bool whole_known = whole.isKnown(sym);
    if (whole_known) {
      rec.whole_origin = whole.origin(sym);
      rec.whole_value = whole.value(sym);
    }
    rec.needed = std::any_of(uses.begin(), uses.end(),
                             [](const UnboundUse& u) { return !(u.on_input && u.reduction_axis); });
    bool keeps = rw == InputRewrite::KeepReductions;
    rec.strip_applies = seg && keeps && !rec.needed;

    Location loc =
        use.expr != kNone ? Location::at(opts.file, Place::expr(use.expr)) : axisLoc(use.tensor, use.pos);
    auto& d = sink.error(DiagCode::UnboundExtent, scope + " cannot evaluate extent " + name, loc);
    d.note(useText(f, use, name, seg_idx));
    const BoundInput* carrier = nullptr;
    for (const BoundInput& in : inputs)
      if (in.tensor == use.tensor) carrier = &in;
    if (carrier && use.reduction_axis && keeps) {
      std::string who = rewrite_from_repro ? "the repro's segmentation keeps Reduction axes (input_rewrite: "
                                             "keep-reductions)"
                                           : "the input rewrite at this point keeps Reduction axes";
      d.note(who + ": " + std::string(f.tensorName(use.tensor)) + " enters segment " +
             std::to_string(seg_idx) + " as " + domainToString(f, carrier->domain));
    }
    if (carrier) {
      std::vector<std::string> binds;
      for (AxisId a : carrier->domain) {
        const Axis& ax = f.axes[a];
        if (ax.iter == IterType::Reduction) continue;
        ScalarId e = ax.iter == IterType::Broadcast ? ax.expanded : ax.extent;
        if (e == kNone || f.scalars[e].kind == ScalarKind::Constant) continue;
        binds.push_back(symbolToString(f, e));
      }
      std::string from;
      uint32_t ps = r.segmented.producerOf(use.tensor);
      size_t rank = 0;
      for (AxisId a : carrier->domain) rank += f.axes[a].iter != IterType::Reduction;
      if (ps != kNone)
        from = "the rank-" + std::to_string(rank) + " tensor from segment " + std::to_string(ps) + " (" +
               describeSegment(f, r.segmented.segments[ps]) + ")";
      else
        from = "the fusion input " + std::string(f.tensorName(use.tensor));
      std::string list;
      for (size_t i = 0; i < binds.size(); ++i) list += (i ? ", " : "") + binds[i];
      d.note("binding covers non-Reduction axes only: " + from + " binds " +
             (list.empty() ? "nothing" : list));
    }
    if (whole_known) {
      std::string n = name + " was bound in the whole fusion by " +
                      describeOrigin(f, sym, rec.whole_origin, rec.whole_value, p.did_rule);
      if (seg && rec.whole_origin.tensor != kNone) {
        bool enters = std::any_of(inputs.begin(), inputs.end(),
                                  [&](const BoundInput& b) { return b.tensor == rec.whole_origin.tensor; });
        if (!enters)
          n += "; " + std::string(f.tensorName(rec.whole_origin.tensor)) + " does not enter segment " +
               std::to_string(seg_idx);
      }
      d.note(n);
    } else {
      d.note(name +
             " is not bound in the whole fusion either: no input axis, scalar input or --bind "
             "determines it");
    }
    if (rec.hops.size() > 1) {
      std::string path = name + " travelled ";
      for (size_t i = 0; i < rec.hops.size(); ++i) {
        const Hop& h = rec.hops[i];
        if (i) {
          ExprId e = h.expr;
          path += " -> " + std::string(opName(f.exprs[e].op));
          uint32_t s = r.segmented.producerOf(h.tensor);
          if (s != kNone) path += " (segment " + std::to_string(s) + ")";
          path += " -> ";
        }
        path += std::string(f.tensorName(h.tensor)) + " " + axisToString(f, h.axis);
      }
      if (seg) {
        uint32_t s = r.segmented.producerOf(use.tensor);
        if (s != kNone && use.on_input)
          path += " -> edge segment " + std::to_string(s) + " -> segment " + std::to_string(seg_idx);
      }
      d.note(path);
    }
    if (!rec.needed) {
      d.note("no value in " + (seg ? "segment " + std::to_string(seg_idx) : std::string("the fusion")) +
             " depends on " + name + " (it only sizes a Reduction axis)");
    } else {
      std::vector<std::string> needs;
      for (const UnboundUse& u : uses)
        if (!(u.on_input && u.reduction_axis)) needs.push_back(useText(f, u, name, seg_idx));
      std::string n = name + " is needed in " +
                      (seg ? "segment " + std::to_string(seg_idx) : std::string("the fusion")) + ": " +
                      needs.front();
      if (needs.size() > 1) n += " (and " + std::to_string(needs.size() - 1) + " more)";
      d.note(n);
    }
    d.check = CheckRef{"ConcretizeExtent", {{"extent", name}}};
    if (seg && use.reduction_axis && use.on_input && keeps) {
      std::vector<AxisId> stripped = segmentInputDomain(f, use.tensor, InputRewrite::StripReductions);
      const nv::Change* later = nv::nextChangeTo(nv::InputRewrite::StripReductions, p.point.pos);
      std::string msg = std::string(f.tensorName(use.tensor)) + " enters segment " + std::to_string(seg_idx) +
                        " as " + domainToString(f, stripped) +
                        (later ? " (what nvFuser does from " + later->label() + "); " : " (PR #2487); ");
      if (rec.strip_applies) {
        msg += "obligation holds";
      } else {
        msg += "obligation fails: " + name + " has another use in segment " + std::to_string(seg_idx);
      }
      d.notes.push_back(Note{"fix[strip-reduction-axes]", msg, {}});
    }
    if (!whole_known)
      d.note("no fix applies: " + name +
             " is not bound anywhere; give the repro concrete inputs or --bind it");
    unbound.push_back(std::move(rec));
  }
}

}  // namespace fc::pipeline_detail
