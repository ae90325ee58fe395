#include "driver/explain_entity.h"

#include <charconv>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>

#include "diag/render.h"
#include "io/json_locate.h"
#include "io/pointer_target.h"
#include "ir/live_exprs.h"
#include "ir/op_kind.h"
#include "ir/printer.h"
#include "passes/segment_inputs.h"

namespace fc::driver {
namespace {

using ojson = nlohmann::ordered_json;

// "rS14": the axis as nvFuser prints it, without its {extent}.
std::string axisShortName(const Fusion& f, AxisId a) {
  const Axis& ax = f.axes[a];
  return std::string(1, iterTypeLetter(ax.iter)) + std::string(parallelTypePrinted(ax.parallel)) +
         std::to_string(ax.number);
}

std::string segmentText(const SegmentedFusion& s, uint32_t id) {
  for (const Segment& seg : s.segments)
    if (seg.id == id)
      return "segment " + std::to_string(id) + " (" +
             (seg.kind == SegmentKind::Communication ? std::string("communication")
                                                     : std::string("compute")) +
             (seg.scheduler.empty() || seg.scheduler == "communication" ? std::string()
                                                                        : ", " + seg.scheduler) +
             ")";
  return "segment " + std::to_string(id);
}

// The segment of the repro's expr `e` (explain speaks in the repro's ids; the segments name the
// exprs of the fusion the pipeline ran). kNone for an expr no output depends on.
uint32_t segmentOfExpr(const Fusion& f, const PipelineResult& r, ExprId e) {
  std::optional<ExprId> ran = exprOfUserId(r.fusion(f), e);
  if (!ran) return kNone;
  for (const Segment& seg : r.segmented.segments)
    for (ExprId x : seg.exprs)
      if (x == *ran) return seg.id;
  return kNone;
}

// The diagnostics whose place is `ref` (an axis's also count for its tensor).
std::vector<Diagnostic> diagnosticsOn(const Fusion& f, const std::vector<Diagnostic>& diags, EntityRef ref) {
  std::vector<Diagnostic> out;
  for (const Diagnostic& d : diags) {
    PointerTarget t = resolveLocation(f, d.loc);
    bool on = false;
    switch (ref.kind) {
      case EntityRef::Kind::Tensor: on = t.tensor == ref.id; break;
      case EntityRef::Kind::Axis: on = t.axis == ref.id; break;
      case EntityRef::Kind::Expr: on = t.expr == ref.id; break;
    }
    if (on) out.push_back(d);
  }
  return out;
}

// "i0 unbound in segment 2 (`fusecheck explain FILE i0`), i3 bound": the
// state of each symbol `extent` depends on.
std::string symbolsBound(const Fusion& f, const PipelineResult& r, ScalarId extent, const std::string& file) {
  std::string s;
  for (ScalarId sym : ScalarEval::freeSymbols(f, extent)) {
    std::string name = symbolToString(f, sym);
    std::string where;
    for (const UnboundExtent& u : r.unbound)
      if (u.symbol == sym)
        where += (where.empty() ? "" : ", ") +
                 (u.segment < 0 ? std::string("the whole fusion") : "segment " + std::to_string(u.segment));
    s += (s.empty() ? "" : ", ") + name +
         (!where.empty() ? " unbound in " + where + " (`fusecheck explain " + file + " " + name + "`)"
          : r.whole->isKnown(sym) ? " bound"
                                  : " symbolic");
  }
  return s;
}

void explainTensor(const Fusion& f, const PipelineResult& r, TensorId t, const std::string& file, ojson& j,
                   std::ostream* os) {
  const Tensor& tv = f.tensors[t];
  std::string name(f.tensorName(t));
  std::string producer = tv.definition == kNone ? std::string("fusion input")
                                                : "e" + std::to_string(tv.definition) + " (" +
                                                      std::string(exprOpName(f.exprs[tv.definition])) + ")";
  uint32_t seg = tv.definition == kNone ? kNone : segmentOfExpr(f, r, tv.definition);
  j["kind"] = "tensor";
  j["dtype"] = std::string(dtypeName(tv.dtype));
  j["logical"] = domainToString(f, tv.logical);
  j["produced_by"] = producer;
  j["segment"] = seg == kNone ? ojson(nullptr) : ojson(seg);
  if (os) {
    *os << name << ": " << dtypeName(tv.dtype) << " tensor " << domainToString(f, tv.logical)
        << (f.isInput(t) ? ", a fusion input" : "") << (f.isOutput(t) ? ", a fusion output" : "") << "\n";
    if (tv.definition != kNone)
      *os << "  produced by " << producer << (seg == kNone ? "" : " in " + segmentText(r.segmented, seg))
          << ": " << exprToString(f, tv.definition, r.profile.print_style);
    if (tv.mesh != kNone && tv.mesh < f.meshes.size())
      *os << "  on " << f.meshes[tv.mesh].toString(r.profile.print_style == PrintStyle::Head) << "\n";
  }
  ojson enters = ojson::array();
  for (const SegmentEdge& e : r.segmented.edges) {
    if (e.tensor != t) continue;
    std::vector<AxisId> dom = segmentInputDomain(f, t, r.input_rewrite);
    enters.push_back({{"segment", e.to}, {"domain", domainToString(f, dom)}});
    if (os)
      *os << "  enters " << segmentText(r.segmented, e.to) << " as " << domainToString(f, dom)
          << " (input rewrite of " << r.profile.label() << ": " << inputRewriteName(r.input_rewrite) << ")\n";
  }
  j["enters"] = std::move(enters);
  ojson consumers = ojson::array();
  for (ExprId e : f.uses(t))
    consumers.push_back("e" + std::to_string(e) + " (" + std::string(exprOpName(f.exprs[e])) + ")");
  if (os && !consumers.empty()) {
    *os << "  used by";
    for (const auto& c : consumers) *os << " " << c.get<std::string>();
    *os << "\n";
  }
  j["used_by"] = std::move(consumers);
  if (os)
    for (AxisId a : tv.logical)
      if (std::string b = symbolsBound(f, r, f.axes[a].extent, file); !b.empty())
        *os << "  " << axisToString(f, a) << ": " << b << "\n";
}

void explainAxis(const Fusion& f, const PipelineResult& r, AxisId a, const std::string& file, ojson& j,
                 std::ostream* os) {
  const Axis& ax = f.axes[a];
  std::string owner = ax.owner == kNone ? std::string("?") : std::string(f.tensorName(ax.owner));
  j["kind"] = "axis";
  j["axis"] = axisToString(f, a);
  j["tensor"] = owner;
  j["iter_type"] = std::string(iterTypeName(ax.iter));
  j["parallel_type"] = std::string(parallelTypeName(ax.parallel));
  j["extent"] = symbolToString(f, ax.extent);
  if (!os) return;
  *os << axisToString(f, a) << ": " << iterTypeName(ax.iter) << " axis of " << owner;
  if (ax.owner != kNone) {
    const auto& logical = f.tensors[ax.owner].logical;
    for (size_t i = 0; i < logical.size(); ++i)
      if (logical[i] == a) *os << " (logical position " << i << ")";
  }
  *os << ", parallel type " << parallelTypeName(ax.parallel) << "\n";
  std::string extent = symbolToString(f, ax.extent);
  std::string b = symbolsBound(f, r, ax.extent, file);
  *os << "  extent " << (b.rfind(extent, 0) == 0 ? b : extent + (b.empty() ? "" : ": " + b)) << "\n";
  if (ax.iter == IterType::Reduction && ax.owner != kNone)
    for (const SegmentEdge& e : r.segmented.edges)
      if (e.tensor == ax.owner) {
        std::vector<AxisId> dom = segmentInputDomain(f, ax.owner, r.input_rewrite);
        bool kept = std::find(dom.begin(), dom.end(), a) != dom.end();
        *os << "  " << (kept ? "kept" : "stripped") << " when " << owner << " enters "
            << segmentText(r.segmented, e.to) << " (" << r.profile.label() << ")\n";
      }
}

void explainExpr(const Fusion& f, const PipelineResult& r, ExprId e, ojson& j, std::ostream* os) {
  uint32_t seg = segmentOfExpr(f, r, e);
  std::string printed = exprToString(f, e, r.profile.print_style);
  while (!printed.empty() && printed.back() == '\n') printed.pop_back();
  j["kind"] = "expr";
  j["op"] = std::string(opName(f.exprs[e].op));
  j["printed"] = printed;
  j["segment"] = seg == kNone ? ojson(nullptr) : ojson(seg);
  if (!os) return;
  *os << "e" << e << ": " << exprOpName(f.exprs[e])
      << (seg == kNone ? std::string() : " in " + segmentText(r.segmented, seg)) << "\n";
  *os << "  " << printed << "\n";
  for (const ValueRef& v : f.exprs[e].inputs)
    if (v.isTensor() && v.id < f.tensors.size())
      *os << "  input " << f.tensorName(v.id) << " " << domainToString(f, f.tensors[v.id].logical) << "\n";
  for (TensorId t : f.exprs[e].outputs)
    *os << "  output " << f.tensorName(t) << " " << domainToString(f, f.tensors[t].logical) << "\n";
}

}  // namespace

std::optional<EntityRef> findEntity(const Fusion& f, const std::string& name) {
  if (auto t = f.findTensor(name)) return EntityRef{EntityRef::Kind::Tensor, *t};
  std::string_view n = name;
  if (n.size() >= 2 && n[0] == 'e') {
    uint32_t e = 0;
    auto [p, ec] = std::from_chars(n.data() + 1, n.data() + n.size(), e);
    if (ec == std::errc() && p == n.data() + n.size() && e < f.exprs.size())
      return EntityRef{EntityRef::Kind::Expr, e};
  }
  std::string_view base = n.substr(0, n.find('{'));
  for (AxisId a = 0; a < f.axes.size(); ++a)
    if (axisShortName(f, a) == base && (base.size() == n.size() || axisToString(f, a) == n))
      return EntityRef{EntityRef::Kind::Axis, a};
  return std::nullopt;
}

std::vector<std::string> explainableNames(const Fusion& f) {
  std::vector<std::string> out;
  for (ScalarId s = 0; s < f.scalars.size(); ++s)
    if (!f.scalarName(s).empty()) out.emplace_back(f.scalarName(s));
  for (TensorId t = 0; t < f.tensors.size(); ++t) out.emplace_back(f.tensorName(t));
  for (AxisId a = 0; a < f.axes.size(); ++a) out.push_back(axisShortName(f, a));
  for (ExprId e = 0; e < f.exprs.size(); ++e) out.push_back("e" + std::to_string(e));
  return out;
}

int explainEntity(const ExplainArgs& a, const Loaded& loaded, EntityRef ref, std::ostream& out,
                  std::ostream& err) {
  const Fusion& f = loaded.fusion;
  DiagnosticSink sink;
  auto opts = pipelineOptions(a.flags, f, a.file, sink);
  if (!opts) {
    return badInput(sink, a.format, err);
  }
  PipelineResult r = runPipeline(f, *opts);
  locateDiagnostics(r.diagnostics, loaded);
  std::vector<Diagnostic> mine = diagnosticsOn(f, r.diagnostics, ref);
  ojson j;
  j["name"] = a.symbol;
  j["profile"] = r.profile.label();
  std::ostream* os = a.format == OutputFormat::Json ? nullptr : &out;
  switch (ref.kind) {
    case EntityRef::Kind::Tensor: explainTensor(f, r, ref.id, a.file, j, os); break;
    case EntityRef::Kind::Axis: explainAxis(f, r, ref.id, a.file, j, os); break;
    case EntityRef::Kind::Expr: explainExpr(f, r, ref.id, j, os); break;
  }
  if (a.format == OutputFormat::Json) {
    j["diagnostics"] = ojson::parse(renderJson(mine))["diagnostics"];
    out << j.dump(2) << "\n";
  } else if (mine.empty()) {
    out << "  no diagnostic of " << r.profile.label() << " is located on " << a.symbol << "\n";
  } else {
    renderText(mine, &loaded.source, out);
  }
  for (const Diagnostic& d : mine)
    if (d.severity == Severity::Error) return kExitFindings;
  if (r.opaque_open) {  // what the entity takes part in is not decided: say why
    std::vector<Diagnostic> open;
    for (const Diagnostic& d : r.diagnostics)
      if (d.severity == Severity::NotDecided) open.push_back(d);
    if (a.format != OutputFormat::Json) renderText(open, &loaded.source, out);
    return kExitNotDecided;
  }
  return kExitClean;
}

}  // namespace fc::driver
