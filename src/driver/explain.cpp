#include <algorithm>
#include <nlohmann/json.hpp>
#include <ostream>

#include "analysis/axis_map.h"
#include "diag/render.h"
#include "driver/analysis_commands.h"
#include "io/json_locate.h"
#include "ir/printer.h"
#include "passes/segment.h"

namespace fc::driver {

std::vector<std::string> codesForNvfuserError(const std::string& text) {
  struct Pattern {
    const char* needle;
    DiagCode code;
  };
  static const Pattern kPatterns[] = {
      {"Could not evaluate dynamic extent", DiagCode::UnboundExtent},
      {"Cannot evaluate the extent of a resized domain", DiagCode::UnboundExtent},
      {"Could not evaluate dynamic factory op output extent", DiagCode::UnboundExtent},
      {"could not infer", DiagCode::UnboundExtent},
      {"Merging IterDomains requires that their iteration types match", DiagCode::EdgeHazard},
      {"Values of -1 passed to reshape must be constant", DiagCode::ReshapeUnevaluable},
      {"Cannot evaluate the extent of an input domain to reshape", DiagCode::ReshapeUnevaluable},
      {"Cannot evaluate the extent of an output domain to reshape", DiagCode::ReshapeUnevaluable},
      {"Mismatch in sizes when concretizing expand", DiagCode::ExpandMismatch},
      {"is sharded and must have size 1", DiagCode::DidMeshMismatch},
      {"does not have parallel type", DiagCode::DidMeshMismatch},
      {"Tried to bind to a constant value", DiagCode::BadBinding},
      {"Tried to bind to a value", DiagCode::ConflictingBinding},
      {"is not lowerable", DiagCode::UnlowerableResharding},
      {"not supported for communication", DiagCode::UnlowerableResharding},
      {"Resharding on an inner axis", DiagCode::UnlowerableResharding},
  };
  std::string low = text;
  std::transform(low.begin(), low.end(), low.begin(), [](unsigned char c) { return std::tolower(c); });
  std::vector<std::string> out;
  for (const Pattern& p : kPatterns) {
    std::string n = p.needle;
    std::transform(n.begin(), n.end(), n.begin(), [](unsigned char c) { return std::tolower(c); });
    if (low.find(n) == std::string::npos) continue;
    std::string id(diagCodeInfo(p.code).id);
    if (std::find(out.begin(), out.end(), id) == out.end()) out.push_back(id);
  }
  return out;
}

int explain(const ExplainArgs& a, std::ostream& out, std::ostream& err) {
  if (!a.error_text.empty()) {
    auto codes = codesForNvfuserError(a.error_text);
    if (a.format == OutputFormat::Json) {
      nlohmann::ordered_json j;
      j["codes"] = nlohmann::ordered_json::array();
      for (auto& c : codes) {
        for (const auto& info : allDiagCodes())
          if (info.id == c)
            j["codes"].push_back(
                {{"code", c}, {"slug", std::string(info.slug)}, {"summary", std::string(info.summary)}});
      }
      out << j.dump(2) << "\n";
    } else if (codes.empty()) {
      out << "no fusecheck diagnostic is known to explain this nvFuser error\n";
    } else {
      for (auto& c : codes)
        for (const auto& info : allDiagCodes())
          if (info.id == c) out << c << " " << info.slug << ": " << info.summary << "\n";
      out << "run `fusecheck check --matrix REPRO` to see where it arises and which fix applies\n";
    }
    return codes.empty() ? kExitFindings : kExitClean;
  }
  DiagnosticSink sink;
  auto loaded = loadRepro(a.file, sink, a.max_bytes);
  if (!loaded) {
    emitDiagnostics(sink.all(), nullptr, a.format, a.format == OutputFormat::Text ? err : out);
    return kExitBadInput;
  }
  const Fusion& f = loaded->fusion;
  auto sym = f.findScalar(a.symbol);
  if (!sym) {
    sink.error(DiagCode::Usage, "'" + a.symbol + "' is not a named scalar of " + a.file);
    emitDiagnostics(sink.all(), nullptr, a.format, err);
    return kExitBadInput;
  }
  auto opts = pipelineOptions(a.flags, f, a.file, sink);
  if (!opts) {
    emitDiagnostics(sink.all(), nullptr, a.format, err);
    return kExitBadInput;
  }
  PipelineResult r = runPipeline(f, *opts);
  fillLocations(r.diagnostics, loaded->source);
  // Every axis whose extent mentions the symbol, in topological order of tensors.
  std::vector<std::pair<TensorId, AxisId>> carriers;
  for (TensorId t = 0; t < f.tensors.size(); ++t)
    for (AxisId ax : f.tensors[t].logical) {
      auto s1 = ScalarEval::freeSymbols(f, f.axes[ax].extent);
      bool has = std::binary_search(s1.begin(), s1.end(), *sym);
      if (!has && f.axes[ax].expanded != kNone) {
        auto s2 = ScalarEval::freeSymbols(f, f.axes[ax].expanded);
        has = std::binary_search(s2.begin(), s2.end(), *sym);
      }
      if (has) carriers.push_back({t, ax});
    }
  bool whole_known = r.whole->isKnown(*sym);
  auto value = r.whole->value(*sym);
  std::vector<const UnboundExtent*> unbound;
  for (const UnboundExtent& u : r.unbound)
    if (u.symbol == *sym) unbound.push_back(&u);
  if (a.format == OutputFormat::Json) {
    nlohmann::ordered_json j;
    j["symbol"] = a.symbol;
    j["era"] = std::string(eraName(r.era));
    j["whole_fusion"] =
        whole_known ? describeOrigin(f, *sym, r.whole->origin(*sym), value, r.era) : "unbound";
    j["carriers"] = nlohmann::ordered_json::array();
    for (auto [t, ax] : carriers)
      j["carriers"].push_back(
          {{"tensor", std::string(f.tensorName(t))},
           {"axis", axisToString(f, ax)},
           {"segment", r.segmented.producerOf(t) == kNone ? -1 : (int)r.segmented.producerOf(t)}});
    j["unbound_in_segments"] = nlohmann::ordered_json::array();
    for (auto* u : unbound) j["unbound_in_segments"].push_back(u->segment);
    out << j.dump(2) << "\n";
    return unbound.empty() ? kExitClean : kExitFindings;
  }
  const Scalar& sc = f.scalars[*sym];
  out << a.symbol << ": " << (sc.kind == ScalarKind::Input ? "fusion scalar input" : "symbolic extent")
      << " (" << dtypeName(sc.dtype) << ")\n";
  if (!carriers.empty()) {
    auto [t0, a0] = carriers.front();
    for (auto [t, ax] : carriers)
      if (f.tensors[t].definition == kNone) {
        t0 = t, a0 = ax;
        break;
      }
    out << "  born: " << f.tensorName(t0) << " " << axisToString(f, a0)
        << (f.tensors[t0].definition == kNone ? " (fusion input)" : "") << "\n";
  }
  out << "  whole fusion (nvFuser " << eraName(r.era) << "): "
      << (whole_known ? "bound by " + describeOrigin(f, *sym, r.whole->origin(*sym), value, r.era)
                      : std::string("unbound"))
      << "\n";
  out << "  carried by:\n";
  for (auto [t, ax] : carriers) {
    uint32_t s = r.segmented.producerOf(t);
    out << "    " << f.tensorName(t) << " " << axisToString(f, ax)
        << (s == kNone ? std::string(" (fusion input)") : " (segment " + std::to_string(s) + ")") << "\n";
  }
  if (unbound.empty()) {
    out << "  every view that needs " << a.symbol << " can evaluate it\n";
  } else {
    for (auto* u : unbound) {
      out << "  unbound in "
          << (u->segment < 0 ? std::string("the whole fusion") : "segment " + std::to_string(u->segment))
          << (u->needed ? " (its value is needed)" : " (it only sizes a Reduction axis)") << "\n";
      out << "  path:";
      for (const Hop& h : u->hops) out << " " << f.tensorName(h.tensor) << ":" << axisToString(f, h.axis);
      out << "\n";
    }
    std::vector<Diagnostic> mine;
    for (const Diagnostic& d : r.diagnostics)
      if (d.code == DiagCode::UnboundExtent && d.message.size() >= a.symbol.size() &&
          d.message.compare(d.message.size() - a.symbol.size(), a.symbol.size(), a.symbol) == 0)
        mine.push_back(d);
    renderText(mine, &loaded->source, out);
  }
  return unbound.empty() ? kExitClean : kExitFindings;
}

}  // namespace fc::driver
