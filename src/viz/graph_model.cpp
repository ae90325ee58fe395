// Builds the VizGraph of a pipeline run and filters it by focus. See
// graph_model.h. Linear in the fusion (plus the unbound uses), except the
// label printing, which is linear in each tensor's rank.
#include "viz/graph_model.h"

#include <algorithm>
#include <charconv>
#include <deque>
#include <map>
#include <set>
#include <tuple>

#include "analysis/provenance.h"
#include "io/pointer_target.h"
#include "ir/live_exprs.h"
#include "passes/segment.h"
#include "passes/segment_inputs.h"
#include "support/internal_error.h"
#include "viz/markup.h"

namespace fc::viz {
namespace {

struct Overlays {
  bool clusters = true;  // segment
  bool rewrite = true;   // segment-inputs
  bool sizes = true;     // bind
  bool unbound = true;   // concretize / apply
};

Overlays overlaysFor(const PipelineResult& r, const std::string& stage) {
  Overlays o;
  if (stage.empty()) return o;
  std::vector<std::string> order = eraPassOrder(r);
  auto it = std::find(order.begin(), order.end(), stage);
  FC_CHECK(it != order.end(), "unknown stage " + stage);
  std::set<std::string> done(order.begin(), it + 1);
  o.clusters = done.count("segment") > 0;
  o.rewrite = done.count("segment-inputs") > 0;
  o.sizes = done.count("bind") > 0;
  o.unbound = done.count("concretize") > 0;
  return o;
}

// `printed` with the axes of `dom` found in order; red ones wrapped in a
// red font. Returns false when an axis is not found (then nothing is red).
bool colourAxes(const Fusion& f, const std::string& printed, const std::vector<AxisId>& dom,
                const std::set<AxisId>& red, std::string& html) {
  html.clear();
  size_t cursor = 0;
  for (AxisId a : dom) {
    std::string s = axisToString(f, a);
    size_t pos = printed.find(s, cursor);
    if (pos == std::string::npos) return false;
    html += escapeHtml(printed.substr(cursor, pos - cursor));
    if (red.count(a))
      html += "<font color=\"red\">" + escapeHtml(s) + "</font>";
    else
      html += escapeHtml(s);
    cursor = pos + s.size();
  }
  html += escapeHtml(printed.substr(cursor));
  return true;
}

std::string exprShort(const Fusion& f, ExprId e) {
  const Expr& x = f.exprs[e];
  std::string s;
  auto list = [](const std::vector<int64_t>& v) {
    std::string t = "[";
    for (size_t i = 0; i < v.size(); ++i) t += (i ? ", " : "") + std::to_string(v[i]);
    return t + "]";
  };
  if (!x.attrs.dims.empty()) s = "dims " + list(x.attrs.dims);
  if (x.attrs.dtype) s += std::string(s.empty() ? "" : ", ") + "to " + std::string(dtypeName(*x.attrs.dtype));
  return s;
}

std::string trimTrailingNewlines(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

class Builder {
 public:
  Builder(const Fusion& f, const PipelineResult& r, const GraphOptions& o)
      : f_(f), r_(r), opts_(o), ov_(overlaysFor(r, o.stage)) {}

  VizGraph build() {
    segment_of_expr_.assign(f_.exprs.size(), kNone);
    for (const Segment& s : r_.segmented.segments)
      for (ExprId e : s.exprs)
        if (e < f_.exprs.size() && segment_of_expr_[e] == kNone) segment_of_expr_[e] = s.id;
    collectUnbound();
    collectDiagnostics();
    makeClusters();
    std::vector<ExprId> order;
    std::vector<char> placed(f_.exprs.size(), 0);
    for (const Segment& s : r_.segmented.segments)
      for (ExprId e : s.exprs)
        if (e < f_.exprs.size() && !placed[e]) placed[e] = 1, order.push_back(e);
    for (ExprId e : topoOrder(f_))
      if (!placed[e]) placed[e] = 1, order.push_back(e);
    tensor_node_.assign(f_.tensors.size(), -1);
    // Input/output flags once, O(tensors): Fusion::isInput/isOutput scan the
    // lists, which made labelling every tensor quadratic on large fusions.
    is_input_.assign(f_.tensors.size(), 0);
    is_output_.assign(f_.tensors.size(), 0);
    for (const ValueRef& v : f_.inputs)
      if (v.isTensor() && v.id < f_.tensors.size()) is_input_[v.id] = 1;
    for (TensorId t : f_.outputs)
      if (t < f_.tensors.size()) is_output_[t] = 1;
    expr_node_.assign(f_.exprs.size(), -1);
    scalar_node_.assign(f_.scalars.size(), -1);
    for (ExprId e : order) addExpr(e);
    for (const ValueRef& v : f_.inputs)
      if (v.isTensor()) tensorNode(v.id);
    for (TensorId t : f_.outputs) tensorNode(t);
    if (ov_.rewrite) markSegmentEdges();
    if (ov_.unbound) addProvenance();
    g_.full_nodes = g_.nodes.size();
    if (ov_.unbound) g_.verdict = verdictText(r_.diagnostics);
    g_.title = title();
    return std::move(g_);
  }

 private:
  const Fusion& f_;
  const PipelineResult& r_;
  const GraphOptions& opts_;
  Overlays ov_;
  VizGraph g_;
  std::vector<int> tensor_node_, expr_node_, scalar_node_;
  std::vector<char> is_input_, is_output_;  // tensor -> flag
  std::vector<int> cluster_of_segment_;
  std::map<TensorId, std::set<AxisId>> red_axes_;
  std::map<ExprId, std::vector<std::string>> red_exprs_;  // expr -> symbols it needs as values
  // Diagnostics placed by their pointers: codes and tooltips per tensor /
  // expr, failing segments.
  std::map<TensorId, std::vector<const Diagnostic*>> tensor_diags_;
  std::map<ExprId, std::vector<const Diagnostic*>> expr_diags_;
  std::set<int> diag_segments_;
  std::set<std::pair<TensorId, AxisId>> unbound_axes_;  // from the unbound-extent records

  bool isUnboundAxis(TensorId t, AxisId a) const { return unbound_axes_.count({t, a}) > 0; }

  std::vector<uint32_t> segment_of_expr_;  // expr -> segment id (kNone: none)
  std::vector<int> cluster_of_expr_;       // expr -> cluster index (-1: none)

  uint32_t segmentOfExpr(ExprId e) const { return e < segment_of_expr_.size() ? segment_of_expr_[e] : kNone; }

  void collectUnbound() {
    if (!ov_.unbound) return;
    for (const UnboundExtent& rec : r_.unbound) {
      for (const UnboundUse& u : rec.uses) {
        if (u.tensor != kNone && u.tensor < f_.tensors.size() && u.axis != kNone && u.axis < f_.axes.size()) {
          red_axes_[u.tensor].insert(u.axis);
          unbound_axes_.insert({u.tensor, u.axis});
        } else if (u.expr != kNone && u.expr < f_.exprs.size())
          red_exprs_[u.expr].push_back(symbolToString(f_, rec.symbol));
      }
    }
  }

  // Every error and warning whose pointer names a place of the fusion is
  // drawn there: an axis in red, a tensor or expr in red with the code.
  void collectDiagnostics() {
    if (!ov_.unbound) return;
    for (const Diagnostic& d : r_.diagnostics) {
      if (d.severity != Severity::Error && d.severity != Severity::Warning) continue;
      ++g_.diagnostics;
      PointerTarget t = resolveLocation(f_, d.loc);
      if (t.tensor != kNone) {
        if (t.axis != kNone) red_axes_[t.tensor].insert(t.axis);
        tensor_diags_[t.tensor].push_back(&d);
      } else if (t.expr != kNone) {
        expr_diags_[t.expr].push_back(&d);
      } else if (t.segment >= 0) {
        diag_segments_.insert(t.segment);
      } else {
        continue;
      }
      ++g_.diagnostics_drawn;
    }
  }

  // The codes line and tooltip text of the diagnostics on one node.
  static void addDiagnostics(VizNode& n, const std::vector<const Diagnostic*>& diags) {
    if (diags.empty()) return;
    std::string codes;
    for (const Diagnostic* d : diags) {
      std::string id(diagCodeInfo(d->code).id);
      if (std::find(n.codes.begin(), n.codes.end(), id) == n.codes.end()) n.codes.push_back(id);
      n.tooltip += "\n" + std::string(severityName(d->severity)) + "[" + id + "]: " + d->message;
    }
    for (const std::string& c : n.codes) codes += (codes.empty() ? "" : " ") + c;
    n.label += "<br/><font point-size=\"9\" color=\"red\"><b>" + escapeHtml(codes) + "</b></font>";
    n.unbound = true;
  }

  void makeClusters() {
    cluster_of_segment_.assign(r_.segmented.segments.size(), -1);
    cluster_of_expr_.assign(f_.exprs.size(), -1);
    if (!ov_.clusters) return;
    std::set<int> failing = diag_segments_;
    if (ov_.unbound)
      for (const UnboundExtent& rec : r_.unbound)
        if (rec.segment >= 0) failing.insert(rec.segment);
    for (size_t i = 0; i < r_.segmented.segments.size(); ++i) {
      const Segment& s = r_.segmented.segments[i];
      VizCluster c;
      c.segment = s.id;
      c.name = "cluster_seg" + std::to_string(s.id);
      c.anchor = "segment_" + std::to_string(s.id);
      c.communication = s.kind == SegmentKind::Communication;
      std::string kind = c.communication ? (s.comm != CommKind::None ? std::string(commKindName(s.comm))
                                                                     : std::string("communication"))
                                         : std::string("compute");
      c.label = "segment " + std::to_string(s.id) + " · " + kind +
                " · executor: " + (s.scheduler.empty() ? std::string("unknown") : s.scheduler);
      c.failing = failing.count(static_cast<int>(s.id)) > 0;
      cluster_of_segment_[i] = static_cast<int>(g_.clusters.size());
      for (ExprId e : s.exprs)
        if (e < f_.exprs.size() && segment_of_expr_[e] == s.id) cluster_of_expr_[e] = cluster_of_segment_[i];
      g_.clusters.push_back(std::move(c));
    }
  }

  int clusterForExpr(ExprId e) const { return e < cluster_of_expr_.size() ? cluster_of_expr_[e] : -1; }

  size_t addEdge(size_t from, size_t to, EdgeKind kind) {
    VizEdge e;
    e.from = from;
    e.to = to;
    e.kind = kind;
    g_.edges.push_back(std::move(e));
    return g_.edges.size() - 1;
  }

  std::string sizesText(TensorId t) const {
    if (!ov_.sizes || !r_.whole) return "";
    std::vector<std::optional<int64_t>> shape = localShape(f_, *r_.whole, t, r_.profile.did_rule);
    std::string s = f_.tensors[t].mesh != kNone ? "local [" : "sizes [";
    for (size_t i = 0; i < shape.size(); ++i)
      s += (i ? ", " : "") + (shape[i] ? std::to_string(*shape[i]) : std::string("?"));
    return s + "]";
  }

  // A tensor sits in the cluster of the segment that produces it; fusion
  // inputs sit outside every cluster.
  size_t tensorNode(TensorId t) {
    if (tensor_node_[t] >= 0) return static_cast<size_t>(tensor_node_[t]);
    const Tensor& tv = f_.tensors[t];
    const int cluster = tv.definition != kNone ? clusterForExpr(tv.definition) : -1;
    VizNode n;
    n.kind = NodeKind::Tensor;
    n.ref = t;
    n.name = std::string(f_.tensorName(t));
    n.anchor = "tensor_" + safeId(f_.tensorName(t));
    n.cluster = cluster;
    std::string printed = tensorToString(f_, t, opts_.style);
    static const std::set<AxisId> kNoRed;
    auto it = red_axes_.find(t);
    const std::set<AxisId>& red = it == red_axes_.end() ? kNoRed : it->second;
    std::string first;
    const std::vector<AxisId>& loop = tv.loopDomain();
    bool coloured = colourAxes(f_, printed, loop, red, first);
    if (!coloured) first = escapeHtml(printed);
    std::string label = first;
    // A red axis that the printed (loop) domain does not show: add the logical domain.
    bool missing = false;
    for (AxisId a : red)
      if (!coloured || std::find(loop.begin(), loop.end(), a) == loop.end()) missing = true;
    if (missing) {
      std::string logical;
      std::string text = "logical " + domainToString(f_, tv.logical);
      if (!colourAxes(f_, text, tv.logical, red, logical)) logical = escapeHtml(text);
      label += "<br/>" + logical;
    }
    n.unbound = !red.empty();
    n.red_axes = red.size();
    std::string meta;
    if (is_input_[t]) meta = "input · ";
    if (is_output_[t]) meta += "output · ";
    meta += std::string(dtypeName(tv.dtype));
    std::string sizes = sizesText(t);
    if (!sizes.empty()) meta += " · " + sizes;
    label += "<br/><font point-size=\"9\" color=\"#555555\">" + escapeHtml(meta) + "</font>";
    n.label = label;
    n.tooltip = printed;
    if (loop != tv.logical) n.tooltip += "\nlogical " + domainToString(f_, tv.logical);
    bool located = tensor_diags_.count(t) > 0;
    for (AxisId a : red)
      if (!located || isUnboundAxis(t, a)) n.tooltip += "\nunbound extent: " + axisToString(f_, a);
    if (located) addDiagnostics(n, tensor_diags_[t]);
    tensor_node_[t] = static_cast<int>(g_.nodes.size());
    g_.unbound_axes += red.size();
    g_.nodes.push_back(std::move(n));
    return g_.nodes.size() - 1;
  }

  size_t scalarNode(ScalarId s) {
    if (scalar_node_[s] >= 0) return static_cast<size_t>(scalar_node_[s]);
    VizNode n;
    n.kind = NodeKind::Scalar;
    n.ref = s;
    std::string name = symbolToString(f_, s);
    n.name = name;
    n.anchor = "scalar_" + safeId(name);
    n.label = escapeHtml(name) + "<br/><font point-size=\"9\" color=\"#555555\">scalar input · " +
              escapeHtml(dtypeName(f_.scalars[s].dtype)) + "</font>";
    n.tooltip = "scalar input " + name;
    scalar_node_[s] = static_cast<int>(g_.nodes.size());
    g_.nodes.push_back(std::move(n));
    return g_.nodes.size() - 1;
  }

  void addExpr(ExprId e) {
    const Expr& x = f_.exprs[e];
    int cluster = clusterForExpr(e);
    std::vector<size_t> ins;
    for (const ValueRef& v : x.inputs) {
      if (v.isTensor() && v.id < f_.tensors.size()) {
        ins.push_back(tensorNode(v.id));
      } else if (v.isScalar() && v.id < f_.scalars.size() && f_.scalars[v.id].kind == ScalarKind::Input) {
        ins.push_back(scalarNode(v.id));
      }
    }
    VizNode n;
    n.kind = NodeKind::Expr;
    n.ref = e;
    const ExprId shown = userExprId(f_, e);  // the repro's id
    n.name = "e" + std::to_string(shown);
    n.anchor = "expr_" + std::to_string(shown);
    n.cluster = cluster;
    auto red = red_exprs_.find(e);
    // An opaque op is drawn by its own name, marked as having no rule.
    std::string op = escapeHtml(exprOpName(x));
    n.label = red != red_exprs_.end() ? "<font color=\"red\"><b>" + op + "</b></font>" : "<b>" + op + "</b>";
    if (isOpaque(x.op)) n.label += " <i>(opaque: no rule)</i>";
    n.label += " <font point-size=\"9\" color=\"#555555\">e" + std::to_string(shown) + "</font>";
    std::string attrs = exprShort(f_, e);
    if (!attrs.empty()) n.label += "<br/><font point-size=\"9\">" + escapeHtml(attrs) + "</font>";
    n.tooltip = trimTrailingNewlines(exprToString(f_, e, opts_.style));
    if (red != red_exprs_.end()) {
      std::string syms;
      for (size_t i = 0; i < red->second.size(); ++i) syms += (i ? ", " : "") + red->second[i];
      n.label += "<br/><font point-size=\"9\" color=\"red\">needs " + escapeHtml(syms) + "</font>";
      n.tooltip += "\nneeds the unbound value " + syms;
      n.unbound = true;
    }
    if (auto it = expr_diags_.find(e); it != expr_diags_.end()) addDiagnostics(n, it->second);
    expr_node_[e] = static_cast<int>(g_.nodes.size());
    g_.nodes.push_back(std::move(n));
    size_t self = g_.nodes.size() - 1;
    for (size_t i : ins) addEdge(i, self, EdgeKind::Data);
    for (TensorId t : x.outputs)
      if (t < f_.tensors.size()) addEdge(self, tensorNode(t), EdgeKind::Data);
  }

  bool fixApplied(std::string_view name) const {
    if (!f_.segmentation) return false;
    const auto& a = f_.segmentation->applied_fixes;
    return std::find(a.begin(), a.end(), name) != a.end();
  }

  void markSegmentEdges() {
    const bool strip_fix =
        fixApplied("strip-reduction-axes") && r_.input_rewrite == InputRewrite::StripReductions;
    std::set<std::pair<TensorId, uint32_t>> seen;
    std::vector<std::vector<size_t>> out(g_.nodes.size());
    for (size_t i = 0; i < g_.edges.size(); ++i)
      if (g_.edges[i].kind == EdgeKind::Data) out[g_.edges[i].from].push_back(i);
    for (const SegmentEdge& se : r_.segmented.edges) {
      if (se.tensor >= f_.tensors.size() || !seen.insert({se.tensor, se.to}).second) continue;
      // Only compute segments are built as fusions with rewritten inputs;
      // a communication receives the runtime tensor as it is.
      const Segment* consumer = nullptr;
      for (const Segment& s : r_.segmented.segments)
        if (s.id == se.to) consumer = &s;
      if (!consumer || consumer->kind != SegmentKind::Compute) continue;
      std::vector<AxisId> dom = segmentInputDomain(f_, se.tensor, r_.input_rewrite);
      if (dom == f_.tensors[se.tensor].logical) continue;
      int tn = tensor_node_[se.tensor];
      if (tn < 0) continue;
      for (size_t ei : out[static_cast<size_t>(tn)]) {
        VizEdge& e = g_.edges[ei];
        const VizNode& to = g_.nodes[e.to];
        if (to.kind != NodeKind::Expr || segmentOfExpr(to.ref) != se.to) continue;
        std::string enters = "enters segment " + std::to_string(se.to) + " as " + domainToString(f_, dom);
        e.rewritten = true;
        e.tooltip = std::string(f_.tensorName(se.tensor)) + " " + enters + " (input rewrite " +
                    std::string(inputRewriteName(r_.input_rewrite)) + ")";
        if (strip_fix) {
          e.repaired = true;
          e.label = "strip-reduction-axes\n" + enters;
          e.tooltip += "; repaired by the recorded fix strip-reduction-axes (nvFuser PR #2487)";
          ++g_.repaired_edges;
        } else {
          e.label = enters;
        }
      }
    }
    if (!fixApplied("forward-extent") || !f_.segmentation || !r_.whole) return;
    for (const ForwardedExtent& fw : f_.segmentation->forward) {
      if (fw.symbol >= f_.scalars.size()) continue;
      const Origin& o = r_.whole->origin(fw.symbol);
      if (o.tensor == kNone || o.tensor >= f_.tensors.size() || tensor_node_[o.tensor] < 0) continue;
      const Segment* seg = nullptr;
      for (const Segment& s : r_.segmented.segments)
        if (s.id == fw.segment) seg = &s;
      if (!seg || seg->exprs.empty() || seg->exprs.front() >= f_.exprs.size()) continue;
      int xn = expr_node_[seg->exprs.front()];
      if (xn < 0) continue;
      size_t k =
          addEdge(static_cast<size_t>(tensor_node_[o.tensor]), static_cast<size_t>(xn), EdgeKind::Forward);
      VizEdge& e = g_.edges[k];
      std::string sym = symbolToString(f_, fw.symbol);
      e.repaired = true;
      e.label = "forward-extent\n" + sym;
      e.tooltip = sym + " is passed into segment " + std::to_string(fw.segment) +
                  " as a scalar input bound on the producer side";
      e.anchor = "forward_" + std::to_string(fw.segment) + "_" + safeId(sym);
      ++g_.repaired_edges;
    }
  }

  void addProvenance() {
    std::set<std::tuple<size_t, size_t, ScalarId>> seen;
    size_t k = 0;
    for (const UnboundExtent& rec : r_.unbound) {
      if (rec.uses.empty()) continue;
      const UnboundUse& u = rec.uses.front();
      int target = -1;
      if (u.tensor != kNone && u.tensor < f_.tensors.size())
        target = tensor_node_[u.tensor];
      else if (u.expr != kNone && u.expr < f_.exprs.size())
        target = expr_node_[u.expr];
      TensorId birth = rec.hops.empty() ? kNone : rec.hops.front().tensor;
      if (birth == u.tensor || birth >= f_.tensors.size()) birth = kNone;
      if (birth == kNone && rec.whole_origin.tensor != kNone && rec.whole_origin.tensor != u.tensor &&
          rec.whole_origin.tensor < f_.tensors.size())
        birth = rec.whole_origin.tensor;
      if (target < 0 || birth == kNone || tensor_node_[birth] < 0) continue;
      size_t from = static_cast<size_t>(tensor_node_[birth]);
      if (!seen.insert({from, static_cast<size_t>(target), rec.symbol}).second) continue;
      size_t ei = addEdge(from, static_cast<size_t>(target), EdgeKind::Provenance);
      VizEdge& e = g_.edges[ei];
      std::string sym = symbolToString(f_, rec.symbol);
      e.label = sym + " unbound";
      e.anchor = "provenance_" + std::to_string(k++);
      std::string path;
      for (size_t i = 0; i < rec.hops.size(); ++i) {
        const Hop& h = rec.hops[i];
        if (h.tensor >= f_.tensors.size()) continue;
        if (i && h.expr != kNone && h.expr < f_.exprs.size())
          path += " -> " + std::string(exprOpName(f_.exprs[h.expr])) + " -> ";
        path += std::string(f_.tensorName(h.tensor));
        if (h.axis != kNone && h.axis < f_.axes.size()) path += " " + axisToString(f_, h.axis);
      }
      e.tooltip = "provenance of " + sym + (path.empty() ? std::string() : ": " + path);
      if (rec.whole_origin.kind != Origin::Kind::None)
        e.tooltip += "; the whole fusion binds it by " +
                     describeOrigin(f_, rec.symbol, rec.whole_origin, rec.whole_value, r_.profile.did_rule);
      if (rec.segment >= 0) e.tooltip += "; segment " + std::to_string(rec.segment) + " cannot evaluate it";
    }
  }

  std::string title() const {
    std::string t = f_.name.empty() ? std::string("fusion") : f_.name;
    t += " · nvFuser " + r_.profile.point.label();
    if (ov_.clusters) {
      size_t n = r_.segmented.segments.size();
      t += " · " + std::to_string(n) + (n == 1 ? " segment" : " segments");
    }
    if (!opts_.stage.empty()) t += " · after " + opts_.stage;
    if (ov_.unbound) {
      t += " · " + g_.verdict;
      size_t n = r_.unbound.size();
      if (n) t += ", " + std::to_string(n) + " unbound extent" + (n == 1 ? "" : "s");
    }
    if (g_.repaired_edges) t += " · repaired by " + fixesText();
    return t;
  }

  std::string fixesText() const {
    std::string s;
    if (!f_.segmentation) return s;
    for (size_t i = 0; i < f_.segmentation->applied_fixes.size(); ++i)
      s += (i ? ", " : "") + f_.segmentation->applied_fixes[i];
    return s;
  }
};

}  // namespace

std::string verdictText(const std::vector<Diagnostic>& diags) {
  std::vector<std::string> codes;
  size_t errors = 0, warnings = 0;
  for (const Diagnostic& d : diags) {
    if (d.severity == Severity::Error)
      ++errors;
    else if (d.severity == Severity::Warning)
      ++warnings;
    else
      continue;
    std::string id(diagCodeInfo(d.code).id);
    if (std::find(codes.begin(), codes.end(), id) == codes.end()) codes.push_back(id);
  }
  const bool open = std::any_of(diags.begin(), diags.end(),
                                [](const Diagnostic& d) { return d.severity == Severity::NotDecided; });
  if (!errors && !warnings) return open ? "not decided" : "clean";
  std::string s = errors ? "FAIL: " + std::to_string(errors) + " error" + (errors == 1 ? "" : "s") : "WARN: ";
  if (warnings)
    s += (errors ? ", " : "") + std::to_string(warnings) + " warning" + (warnings == 1 ? "" : "s");
  s += " (";
  for (size_t i = 0; i < codes.size(); ++i) s += (i ? ", " : "") + codes[i];
  return s + ")";
}

bool isPassName(std::string_view name) {
  for (const char* p : kPassNames)
    if (name == p) return true;
  return false;
}

std::string passNameList() {
  std::string s;
  for (const char* p : kPassNames) s += (s.empty() ? "" : ", ") + std::string(p);
  return s;
}

std::vector<std::string> eraPassOrder(const PipelineResult& r) {
  if (r.whole_first) return {"bind", "concretize", "apply", "segment", "segment-inputs"};
  return {"segment", "segment-inputs", "bind", "concretize", "apply"};
}

VizGraph buildGraph(const Fusion& f, const PipelineResult& r, const GraphOptions& opts) {
  FC_CHECK(opts.stage.empty() || isPassName(opts.stage), "unknown stage " + opts.stage);
  return Builder(f, r, opts).build();
}

std::optional<size_t> findFocusNode(const VizGraph& g, const Fusion& f, std::string_view name) {
  if (auto t = f.findTensor(name)) {
    for (size_t i = 0; i < g.nodes.size(); ++i)
      if (g.nodes[i].kind == NodeKind::Tensor && g.nodes[i].ref == *t) return i;
    return std::nullopt;
  }
  std::string_view digits = name;
  if (digits.rfind("expr", 0) == 0)
    digits.remove_prefix(4);
  else if (digits.rfind('e', 0) == 0)
    digits.remove_prefix(1);
  uint32_t e = 0;
  auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), e);
  if (digits.empty() || ec != std::errc() || p != digits.data() + digits.size()) return std::nullopt;
  for (size_t i = 0; i < g.nodes.size(); ++i)
    if (g.nodes[i].kind == NodeKind::Expr && g.nodes[i].ref == e) return i;
  return std::nullopt;
}

void focusGraph(VizGraph& g, size_t center, size_t depth) {
  FC_CHECK(center < g.nodes.size(), "focus node out of range");
  const size_t n = g.nodes.size();
  std::vector<std::vector<size_t>> adj(n);
  for (const VizEdge& e : g.edges) {
    if (e.kind != EdgeKind::Data) continue;
    adj[e.from].push_back(e.to);
    adj[e.to].push_back(e.from);
  }
  const size_t kUnseen = static_cast<size_t>(-1);
  std::vector<size_t> dist(n, kUnseen);
  std::deque<size_t> q;
  dist[center] = 0;
  q.push_back(center);
  while (!q.empty()) {
    size_t v = q.front();
    q.pop_front();
    if (dist[v] == depth) continue;
    for (size_t w : adj[v])
      if (dist[w] == kUnseen) dist[w] = dist[v] + 1, q.push_back(w);
  }
  std::vector<size_t> remap(n, kUnseen);
  std::vector<VizNode> nodes;
  for (size_t i = 0; i < n; ++i) {
    if (dist[i] == kUnseen) continue;
    remap[i] = nodes.size();
    VizNode node = std::move(g.nodes[i]);
    node.focus = i == center;
    for (size_t w : adj[i])
      if (dist[w] == kUnseen) node.truncated = true;
    nodes.push_back(std::move(node));
  }
  std::vector<VizEdge> edges;
  size_t repaired = 0;
  for (VizEdge& e : g.edges) {
    if (remap[e.from] == kUnseen || remap[e.to] == kUnseen) continue;
    e.from = remap[e.from];
    e.to = remap[e.to];
    repaired += e.repaired;
    edges.push_back(std::move(e));
  }
  std::vector<int> cluster_remap(g.clusters.size(), -1);
  std::vector<VizCluster> clusters;
  size_t unbound_axes = 0;
  for (VizNode& node : nodes) {
    if (node.cluster >= 0) {
      size_t c = static_cast<size_t>(node.cluster);
      if (cluster_remap[c] < 0) {
        cluster_remap[c] = 0;  // marked; numbered below in cluster order
      }
    }
  }
  for (size_t c = 0; c < g.clusters.size(); ++c) {
    if (cluster_remap[c] < 0) continue;
    cluster_remap[c] = static_cast<int>(clusters.size());
    clusters.push_back(std::move(g.clusters[c]));
  }
  for (VizNode& node : nodes) {
    if (node.cluster >= 0) node.cluster = cluster_remap[static_cast<size_t>(node.cluster)];
    unbound_axes += node.red_axes;
  }
  const std::string center_name = nodes[remap[center]].name;
  g.focus_note = "focus " + center_name + ", depth " + std::to_string(depth) + ": " +
                 std::to_string(nodes.size()) + " of " + std::to_string(g.full_nodes) + " nodes";
  g.nodes = std::move(nodes);
  g.edges = std::move(edges);
  g.clusters = std::move(clusters);
  g.repaired_edges = repaired;
  g.unbound_axes = unbound_axes;
}

}  // namespace fc::viz
