// Gathering the report's content (see report.h); the HTML is formatted in
// report_html.cpp.
#include "viz/report.h"

#include <algorithm>
#include <sstream>

#include "diag/render.h"
#include "io/json_locate.h"
#include "io/reader.h"
#include "io/writer.h"
#include "ir/verifier.h"
#include "support/version.h"
#include "viz/dot_writer.h"

namespace fc::viz {
namespace {

// What `fusecheck check FILE` prints for `r` (diagnostics, then the summary line).
std::string checkText(const PipelineResult& r, const SourceText& source) {
  std::ostringstream os;
  renderText(r.diagnostics, &source, os);
  os << "check: " << verdictSummary(r) << "\n";
  return os.str();
}

// The segment-inputs steps, one block per segment.
std::string segmentInputsText(const PipelineResult& r) {
  std::string s;
  for (const PassTrace& t : r.trace)
    if (t.pass == "segment-inputs") s += t.scope + ":\n" + t.text;
  return s;
}

std::vector<ReportStep> steps(const PipelineResult& r) {
  std::vector<ReportStep> out;
  std::vector<std::string> failing_scopes;
  for (const UnboundExtent& rec : r.unbound)
    failing_scopes.push_back(rec.segment >= 0 ? "segment " + std::to_string(rec.segment) : "whole fusion");
  for (size_t i = 0; i < r.trace.size(); ++i) {
    ReportStep s;
    s.index = i + 1;
    s.pass = r.trace[i].pass;
    s.scope = r.trace[i].scope;
    s.text = r.trace[i].text;
    // Each pass prints its own kind of state (bindings, concretizations, the
    // segments, segment inputs, the applied fusion): compare like with like.
    for (size_t j = i; j-- > 0;)
      if (r.trace[j].pass == s.pass) {
        s.previous = j + 1;
        break;
      }
    s.failing = s.pass == "concretize" &&
                std::find(failing_scopes.begin(), failing_scopes.end(), s.scope) != failing_scopes.end();
    out.push_back(std::move(s));
  }
  return out;
}

ReportGraph graphOf(const Fusion& f, const PipelineResult& r, const std::string& caption,
                    const std::string& prefix, const ReportOptions& ro) {
  ReportGraph g;
  g.caption = caption;
  g.id_prefix = prefix;
  if (!ro.render_graphs) {
    g.note = "graph rendering was not requested";
    return g;
  }
  if (!graphvizAvailable()) {
    g.note = graphvizMissingMessage() + ". `fusecheck dot` draws it where Graphviz is installed.";
    return g;
  }
  GraphOptions go;
  go.style = r.profile.print_style;
  VizGraph vg = buildGraph(f, r, go);
  if (vg.nodes.size() > ro.max_graph_nodes) {
    g.note =
        "the graph has " + std::to_string(vg.nodes.size()) + " nodes (more than " +
        std::to_string(ro.max_graph_nodes) +
        " are not laid out in a report); draw a neighbourhood with `fusecheck dot --focus NAME --depth K`";
    return g;
  }
  vg.id_prefix = prefix;
  DotOutput d = writeDot(vg);
  if (!d.ok) {
    g.note = d.error;
    return g;
  }
  SvgOutput s = renderSvg(d.text);
  if (!s.ok) {
    g.note = s.error;
    return g;
  }
  g.svg = inlineSvg(s.svg);
  if (!s.warnings.empty()) g.note = "Graphviz: " + s.warnings;
  return g;
}

// About how many element operations evaluating every expr takes on all
// ranks: each expr's output elements, times K for a matmul or linear and
// times the reduced extent for a reduction (its input's elements); unknown
// sizes count as `unknown_extent`. Decides whether the report runs the
// fusion by default.
double estimateWork(const Fusion& f, const PipelineResult& r, int64_t unknown_extent = 8) {
  if (!r.whole) return 0;
  auto numel = [&](TensorId t) {
    double n = 1;
    for (const std::optional<int64_t>& s : localShape(f, *r.whole, t, r.profile.did_rule))
      n *= static_cast<double>(s ? *s : unknown_extent);
    return n;
  };
  double ranks = 1;
  for (const Mesh& m : f.meshes) ranks = std::max(ranks, static_cast<double>(m.size()));
  double work = 0;
  for (const Expr& x : f.exprs) {
    double out = 0, in = 0;
    for (TensorId t : x.outputs) out += numel(t);
    for (const ValueRef& v : x.inputs)
      if (v.isTensor() && v.id < f.tensors.size()) in = std::max(in, numel(v.id));
    if ((x.op == OpKind::Matmul || x.op == OpKind::Linear) && !x.inputs.empty() && x.inputs[0].isTensor()) {
      std::vector<std::optional<int64_t>> a = localShape(f, *r.whole, x.inputs[0].id, r.profile.did_rule);
      double k = a.empty() ? 1 : static_cast<double>(a.back() ? *a.back() : unknown_extent);
      work += out * k;
    } else {
      work += std::max(out, in);
    }
  }
  return work * ranks;
}

std::string fixedName(const std::string& file) {
  std::string base = file;
  size_t slash = base.find_last_of('/');
  if (slash != std::string::npos) base = base.substr(slash + 1);
  if (base.size() > 5 && base.compare(base.size() - 5, 5, ".json") == 0) base.resize(base.size() - 5);
  if (base.empty()) base = "repro";
  return base + ".fixed.json";
}

}  // namespace

ReportModel buildReport(const Fusion& input, const SourceText& source, const PipelineOptions& opts_in,
                        const ReportOptions& ro) {
  ReportModel m;
  PipelineOptions opts = opts_in;
  opts.trace = true;
  PipelineResult r = runPipeline(input, opts);
  const Fusion& f = r.fusion(input);  // with the sets the sharding passes added
  fillLocations(r.diagnostics, source);
  m.file = opts.file.empty() ? source.path() : opts.file;
  m.name = f.name;
  m.era = r.profile.label();
  m.order = std::string(orderText(r.profile.order));
  for (const Segment& s : r.segmented.segments) {
    std::string kind = s.kind == SegmentKind::Communication
                           ? (s.comm != CommKind::None ? std::string(commKindName(s.comm)) : "communication")
                           : std::string("compute");
    std::string ops;
    for (ExprId e : s.exprs)
      if (e < f.exprs.size()) ops += (ops.empty() ? "" : ", ") + std::string(exprOpName(f.exprs[e]));
    m.segments.push_back("segment " + std::to_string(s.id) + " · " + kind + " · executor: " +
                         (s.scheduler.empty() ? std::string("unknown") : s.scheduler) + " · " + ops);
  }
  m.diagnostics = r.diagnostics;
  m.verdict = verdictText(r.diagnostics);
  m.version = std::string(buildVersion());
  m.work = estimateWork(f, r);
  m.steps = steps(r);
  for (TensorId t = 0; t < f.tensors.size(); ++t) m.tensor_names.emplace_back(f.tensorName(t));
  m.check_before = checkText(r, source);
  m.inputs_before = segmentInputsText(r);
  m.repro_before = writeFusion(input);
  m.graphs.push_back(graphOf(f, r, "as given (" + m.era + ")", "", ro));

  FixResult fr = applyFixes(f, r, FixKind::Auto, opts.file);
  m.fix_changed = fr.changed;
  m.fix_actions = fr.actions;
  m.fix_refusals = fr.refusals;
  m.fixed_name = fixedName(m.file);
  if (!fr.changed) {
    m.fixed_clean = !r.failed();
    return m;
  }
  m.repro_after = writeFusion(fr.fixed);
  // Re-check the repaired repro as a user would: from its text.
  SourceText fixed_source(m.fixed_name, m.repro_after);
  DiagnosticSink sink;
  std::optional<Fusion> fixed = readFusion(fixed_source, sink);
  if (fixed && verifyFusion(*fixed, sink, m.fixed_name)) {
    fixed->rebuildUses();
    PipelineOptions o2 = opts;
    o2.file = m.fixed_name;
    PipelineResult r2 = runPipeline(*fixed, o2);
    fillLocations(r2.diagnostics, fixed_source);
    m.fixed_clean = !r2.failed();
    m.check_after = checkText(r2, fixed_source);
    m.inputs_after = segmentInputsText(r2);
    std::string fixes;
    for (const FixAction& a : fr.actions)
      if (fixes.find(a.fix) == std::string::npos) fixes += (fixes.empty() ? "" : ", ") + a.fix;
    m.graphs.push_back(graphOf(*fixed, r2, "after fix (" + fixes + ")", "fixed_", ro));
  } else {
    std::ostringstream os;
    renderText(sink.all(), &fixed_source, os);
    m.check_after = "the repaired repro does not load back (a bug in fusecheck):\n" + os.str();
  }
  return m;
}

}  // namespace fc::viz
