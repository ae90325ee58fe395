#include "driver/pipeline_json.h"

#include <nlohmann/json.hpp>

#include "analysis/provenance.h"
#include "diag/render.h"
#include "io/place_pointer.h"
#include "ir/live_exprs.h"
#include "ir/printer.h"
#include "passes/segment.h"

namespace fc::driver {

namespace {

std::string originKind(Origin::Kind k) {
  switch (k) {
    case Origin::Kind::None: return "none";
    case Origin::Kind::Constant: return "constant";
    case Origin::Kind::InputAxis: return "input-axis";
    case Origin::Kind::DidMesh: return "did-mesh";
    case Origin::Kind::Expanded: return "expanded";
    case Origin::Kind::ScalarInput: return "scalar-input";
    case Origin::Kind::UserBind: return "user-bind";
    case Origin::Kind::ExactMap: return "exact-map";
    case Origin::Kind::Derived: return "derived";
    case Origin::Kind::RewriteFresh: return "rewrite-fresh";
    case Origin::Kind::Forwarded: return "forwarded";
  }
  return "none";
}

}  // namespace

std::string pipelineJson(const Fusion& f, const PipelineResult& r, const std::string& file) {
  using nlohmann::ordered_json;
  ordered_json j;
  j["file"] = file;
  const Profile& p = r.profile;
  ordered_json prof;
  prof["point"] = p.point.spec;
  prof["commit"] = p.point.commit;
  prof["date"] = p.point.date;
  prof["frontend"] = std::string(frontendName(p.frontend));
  prof["executor"] = std::string(executorName(p.executor));
  prof["label"] = p.label();
  prof["how"] = p.point.how;
  prof["notes"] = p.point.notes;
  prof["assumed"] = r.notes;
  if (p.printed_range) {
    const PrintedRange& pr = *p.printed_range;
    auto point = [](uint32_t pos) {
      return ordered_json{{"commit", std::string(nv::commits()[pos].hash)},
                          {"date", std::string(nv::commits()[pos].date)}};
    };
    ordered_json range;
    range["printed"] = pr.why;
    range["before_history"] = pr.before_history;
    range["from"] = point(pr.first);
    range["to"] = point(pr.last);
    range["intervals"] = ordered_json::array();
    for (const VerdictInterval& iv : r.printed_intervals) {
      ordered_json x;
      x["from"] = point(iv.from);
      x["to"] = point(iv.to);
      x["verdict"] = iv.exists ? std::string(verdictName(iv.verdict)) : std::string("n/a");
      if (iv.exists) x["path"] = iv.path;
      if (!iv.exists) x["why"] = iv.missing;
      x["codes"] = std::vector<std::string>(iv.codes.begin(), iv.codes.end());
      if (!iv.first.empty()) x["first"] = iv.first;
      x["changes"] = ordered_json::array();
      for (const nv::Change* c : iv.start)
        x["changes"].push_back(
            {{"pr", c->pr}, {"commit", std::string(c->commit)}, {"date", std::string(c->date)}});
      range["intervals"].push_back(std::move(x));
    }
    prof["printed_range"] = std::move(range);
  }
  j["profile"] = prof;
  j["verdict"] = std::string(verdictName(r.verdict()));
  j["order"] = p.order == ConcretizeOrder::WholeFirst   ? "whole-first"
               : p.order == ConcretizeOrder::PerSegment ? "per-segment"
                                                        : "none";
  j["checked"] = r.checked;
  j["approximations"] = r.approximations;
  std::vector<Diagnostic> spelled;
  const std::vector<Diagnostic>& diags = withPointers(r.diagnostics, spelled);
  ordered_json open = ordered_json::array();
  for (const Diagnostic& d : diags)
    if (d.severity == Severity::NotDecided) {
      ordered_json x;
      x["message"] = d.message;
      x["pointer"] = d.loc.pointer;
      std::vector<std::string> notes;
      for (const Note& n : d.notes) notes.push_back(n.message);
      x["notes"] = notes;
      open.push_back(std::move(x));
    }
  j["not_decided"] = open;
  j["whole_first"] = r.whole_first;
  j["input_rewrite"] = std::string(inputRewriteName(r.input_rewrite));
  j["approximate_segmentation"] = r.segmented.approximate;
  ordered_json segs = ordered_json::array();
  for (const Segment& s : r.segmented.segments) {
    ordered_json js;
    js["id"] = s.id;
    js["kind"] = s.kind == SegmentKind::Compute ? "compute" : "communication";
    if (s.kind == SegmentKind::Communication) js["collective"] = std::string(commKindName(s.comm));
    js["scheduler"] = s.scheduler;
    js["description"] = describeSegment(f, s);
    ordered_json ex = ordered_json::array();  // the repro's ids
    for (ExprId e : s.exprs) ex.push_back(userExprId(f, e));
    js["exprs"] = std::move(ex);
    ordered_json ins = ordered_json::array();
    for (const ValueRef& v : s.inputs)
      ins.push_back(v.isTensor() ? std::string(f.tensorName(v.id)) : std::string(f.scalarName(v.id)));
    js["inputs"] = ins;
    ordered_json outs = ordered_json::array();
    for (TensorId t : s.outputs) outs.push_back(std::string(f.tensorName(t)));
    js["outputs"] = outs;
    js["reason"] = s.reason;
    segs.push_back(js);
  }
  j["segments"] = segs;
  ordered_json edges = ordered_json::array();
  for (const SegmentEdge& e : r.segmented.edges)
    edges.push_back({{"from", e.from}, {"to", e.to}, {"tensor", std::string(f.tensorName(e.tensor))}});
  j["edges"] = edges;
  ordered_json unbound = ordered_json::array();
  for (const UnboundExtent& u : r.unbound) {
    ordered_json ju;
    ju["segment"] = u.segment;
    ju["symbol"] = std::string(f.scalarName(u.symbol));
    ordered_json uses = ordered_json::array();
    for (const UnboundUse& use : u.uses) {
      ordered_json x;
      if (use.expr != kNone) {
        x["expr"] = use.expr;
      } else if (use.tensor == kNone) {
        // A scalar the segmenter forwards as a segment input and the
        // executor has no value for: no expr or axis of the segment names it.
        x["scalar_input"] = true;
      } else {
        x["tensor"] = std::string(f.tensorName(use.tensor));
        x["axis"] = axisToString(f, use.axis);
        x["position"] = use.pos;
        x["segment_input"] = use.on_input;
        x["reduction_axis"] = use.reduction_axis;
      }
      uses.push_back(x);
    }
    ju["uses"] = uses;
    ordered_json hops = ordered_json::array();
    for (const Hop& h : u.hops) {
      ordered_json x;
      x["tensor"] = std::string(f.tensorName(h.tensor));
      x["axis"] = axisToString(f, h.axis);
      if (h.expr != kNone) {
        x["expr"] = h.expr;
        x["op"] = std::string(opName(f.exprs[h.expr].op));
      }
      if (h.segment != kNone) x["segment"] = h.segment;
      hops.push_back(x);
    }
    ju["hops"] = hops;
    ordered_json wo;
    wo["kind"] = originKind(u.whole_origin.kind);
    if (u.whole_origin.tensor != kNone) {
      wo["tensor"] = std::string(f.tensorName(u.whole_origin.tensor));
      wo["position"] = u.whole_origin.axis_pos;
    }
    if (u.whole_value) wo["value"] = *u.whole_value;
    wo["text"] = describeOrigin(f, u.symbol, u.whole_origin, u.whole_value, r.profile.did_rule);
    ju["whole_fusion_binding"] = wo;
    ju["needed"] = u.needed;
    ju["missing_input"] = u.missing_input;
    ju["fixes"] = {{"strip-reduction-axes", u.strip_applies}, {"forward-extent", u.forward_applies}};
    unbound.push_back(ju);
  }
  j["unbound"] = unbound;
  j["diagnostics"] = nlohmann::ordered_json::parse(renderJson(diags))["diagnostics"];
  return j.dump(2) + "\n";
}

}  // namespace fc::driver
