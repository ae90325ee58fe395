#include <algorithm>
#include <nlohmann/json.hpp>
#include <ostream>

#include "analysis/axis_map.h"
#include "diag/render.h"
#include "driver/analysis_commands.h"
#include "driver/explain_entity.h"
#include "io/json_locate.h"
#include "ir/printer.h"
#include "passes/segment.h"
#include "pipeline/nvfuser_checks.h"
#include "support/suggest.h"

namespace fc::driver {

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// nvFuser checks that fail for more reasons than the diagnostic they map to models: what else
// raises them, said with the code.
std::string_view otherCauses(std::string_view check) {
  if (check == "NoSchedulerForSegment")
    return "nvFuser raises this for any segment that no scheduler takes; fusecheck models two causes (a "
           "forwarded chain of unary ops before #1825, FC0323; a segment edge cast to half precision and "
           "back "
           "before #1889, FC0324), not the schedulers' other refusals";
  if (check == "MergeNotConnected")
    return "nvFuser raises this wherever the segmenter tests a merge of two segments that no edge joins; "
           "fusecheck models one cause (a forwarded chain's end read twice by one op, from #1825 to #1971)";
  return {};
}

// The diagnostics each nvFuser check is reported as (one for most; several where fusecheck models
// more than one cause of it).
std::vector<DiagCode> codesOfCheck(std::string_view check) {
  struct Map {
    std::string_view check;
    DiagCode code;
  };
  static const Map kMap[] = {
      {"ConcretizeExtent", DiagCode::UnboundExtent},
      {"InferShape", DiagCode::UnboundExtent},
      {"OutputSizeMismatch", DiagCode::DuplicateOutput},
      {"NoTensorInputs", DiagCode::ReductionWithoutInputs},
      {"SqueezeNonBroadcast", DiagCode::SymbolicSqueeze},
      {"SqueezedProducerBroadcast", DiagCode::SymbolicSqueeze},
      {"UnmappedSymbolicOutput", DiagCode::UnmappedSymbolicAxis},
      {"UnexpectedAxisSize", DiagCode::MinusOneExtent},
      {"NoSchedulerForSegment", DiagCode::ForwardedInputNoScheduler},
      {"NoSchedulerForSegment", DiagCode::LoweredEdgeNoScheduler},
      {"MergeNotConnected", DiagCode::ForwardedInputMergedTwice},
      {"MultiOutputMismatch", DiagCode::SdpaComputeAtMap},
      {"MdeNoBuffer", DiagCode::MissingSegmentInput},
      {"MdeScalarInput", DiagCode::MissingSegmentInput},
      {"HieNoBuffer", DiagCode::MissingSegmentInput},
      {"HieNotPrecomputed", DiagCode::MissingSegmentInput},
      {"LocalAllocation", DiagCode::DynamicLocalAllocation},
      {"DynamicBeforeLowering", DiagCode::UnconcretizedDynamic},
      {"MeshAtLeastOne", DiagCode::MeshMissing},
      {"MeshPerInput", DiagCode::MeshMissing},
      {"MeshAllOrNone", DiagCode::MeshMissing},
      {"MeshSomeWithout", DiagCode::MeshMissing},
      {"NonTvOp", DiagCode::ScalarExprInMultiDevice},
      {"LoweringNotSupported", DiagCode::UnlowerableResharding},
      {"InnerResharding", DiagCode::UnlowerableResharding},
      {"OneAxisResharding", DiagCode::UnlowerableResharding},
      {"OneShardingChange", DiagCode::UnlowerableResharding},
      {"UnmappedProducerAxis", DiagCode::UnmappedProducerAxis},
      {"MergeIterTypes", DiagCode::EdgeHazard},
      {"DidLocalSizeOne", DiagCode::DidMeshMismatch},
      {"DidBindConstantOne", DiagCode::DidMeshMismatch},
      {"OneDSharding", DiagCode::DidMeshMismatch},
      {"BindConstant", DiagCode::BadBinding},
      {"ReshapeMinusOne", DiagCode::ReshapeUnevaluable},
      {"ReshapeOutputExtent", DiagCode::ReshapeUnevaluable},
      {"ExpandMismatch", DiagCode::ExpandMismatch},
  };
  std::vector<DiagCode> out;
  for (const Map& m : kMap)
    if (m.check == check) out.push_back(m.code);
  if (out.empty()) out.push_back(DiagCode::NotDecided);
  return out;
}

// The literal pieces of a message template, between its <placeholders>.
std::vector<std::string> literalPieces(std::string_view tmpl) {
  std::vector<std::string> out;
  std::string cur;
  for (size_t i = 0; i < tmpl.size(); ++i) {
    if (tmpl[i] == '<') {
      size_t close = tmpl.find('>', i);
      if (close != std::string_view::npos) {
        if (!cur.empty()) out.push_back(cur);
        cur.clear();
        i = close;
        continue;
      }
    }
    cur += tmpl[i];
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

}  // namespace

std::vector<NvfuserErrorMatch> matchNvfuserError(const std::string& text) {
  const std::string low = lower(text);
  std::vector<NvfuserErrorMatch> out;
  auto add = [&](const std::string& check, DiagCode code) {
    const std::string id(diagCodeInfo(code).id);
    for (const auto& m : out)
      if (m.check == check && m.code == id) return;
    out.push_back({check, id});
  };
  for (const CheckMessage& m : checkMessages()) {
    // Every literal piece of 8 characters or more must be in the text, in order.
    size_t at = 0;
    bool ok = false;
    for (const std::string& piece : literalPieces(m.message)) {
      std::string p = piece;
      while (!p.empty() && (p.back() == ' ' || p.back() == '.' || p.back() == ':')) p.pop_back();
      while (!p.empty() && (p.front() == ' ' || p.front() == '.' || p.front() == ',')) p.erase(p.begin());
      if (p.size() < 8) continue;
      size_t hit = low.find(lower(p), at);
      if (hit == std::string::npos) {
        ok = false;
        break;
      }
      ok = true;
      at = hit + p.size();
    }
    if (ok)
      for (DiagCode code : codesOfCheck(m.check)) add(m.check, code);
  }
  // Messages from the same family that fusecheck reports with the same codes.
  struct Pattern {
    const char* needle;
    const char* check;
    DiagCode code;
  };
  static const Pattern kPatterns[] = {
      {"Cannot evaluate the extent of a resized domain", "", DiagCode::UnboundExtent},
      {"Could not evaluate dynamic factory op output extent", "", DiagCode::UnboundExtent},
      {"Tried to bind to a value", "", DiagCode::ConflictingBinding},
      {"does not have parallel type", "", DiagCode::DidMeshMismatch},
      {"not supported for communication", "", DiagCode::UnlowerableResharding},
      {"vector::_M_range_check", "", DiagCode::FrontendRejects},
      {"Can't concatenate tensors with different data types", "", DiagCode::DTypeMismatch},
      {"producer_id->isBroadcast() INTERNAL ASSERT FAILED", "SqueezedProducerBroadcast",
       DiagCode::SymbolicSqueeze},
  };
  for (const Pattern& p : kPatterns)
    if (low.find(lower(p.needle)) != std::string::npos) add(p.check[0] ? p.check : p.needle, p.code);
  return out;
}

std::vector<std::string> codesForNvfuserError(const std::string& text) {
  std::vector<std::string> out;
  for (const NvfuserErrorMatch& m : matchNvfuserError(text))
    if (std::find(out.begin(), out.end(), m.code) == out.end()) out.push_back(m.code);
  return out;
}

int explain(const ExplainArgs& a, std::ostream& out, std::ostream& err) {
  if (!a.error_text.empty()) {
    auto matches = matchNvfuserError(a.error_text);
    auto codes = codesForNvfuserError(a.error_text);
    if (a.format == OutputFormat::Json) {
      nlohmann::ordered_json j;
      j["codes"] = nlohmann::ordered_json::array();
      for (auto& c : codes) {
        for (const auto& info : allDiagCodes())
          if (info.id == c) {
            nlohmann::ordered_json x{
                {"code", c}, {"slug", std::string(info.slug)}, {"summary", std::string(info.summary)}};
            x["nvfuser_checks"] = nlohmann::ordered_json::array();
            for (const auto& m : matches)
              if (m.code == c) {
                x["nvfuser_checks"].push_back(m.check);
                if (!otherCauses(m.check).empty()) x["other_causes"] = std::string(otherCauses(m.check));
              }
            j["codes"].push_back(std::move(x));
          }
      }
      out << j.dump(2) << "\n";
    } else if (codes.empty()) {
      out << "no fusecheck diagnostic explains this (it matches none of the nvFuser errors fusecheck models; "
             "`fusecheck check REPRO` still reports what the repro does)\n";
    } else {
      std::vector<std::string> noted;
      for (auto& c : codes)
        for (const auto& info : allDiagCodes())
          if (info.id == c) {
            out << c << " " << info.slug << ": " << info.summary;
            std::string checks;
            for (const auto& m : matches)
              if (m.code == c) checks += (checks.empty() ? "" : ", ") + m.check;
            out << " (nvFuser check: " << checks << ")\n";
            // A check's other causes, once: under the first code it maps to.
            for (const auto& m : matches)
              if (m.code == c && !otherCauses(m.check).empty() &&
                  std::find(noted.begin(), noted.end(), m.check) == noted.end()) {
                out << "  note: " << otherCauses(m.check) << "\n";
                noted.push_back(m.check);
              }
          }
      out << "run `fusecheck check --matrix REPRO` to see where it arises and which fix applies\n";
    }
    return kExitClean;  // a lookup: finding no code is an answer, not a finding
  }
  DiagnosticSink sink;
  auto loaded = loadRepro(a.file, sink, a.max_bytes);
  if (!loaded) {
    return badInput(sink, a.format, a.format == OutputFormat::Text ? err : out);
  }
  auto sym = loaded->fusion.findScalar(a.symbol);
  if (!sym) {
    if (auto ref = findEntity(loaded->fusion, a.symbol)) return explainEntity(a, *loaded, *ref, out, err);
    sink.error(DiagCode::Usage, "'" + a.symbol +
                                    "' names no scalar (i0), tensor (T5), axis (rS14) or expr (e3) of " +
                                    a.file + didYouMean(a.symbol, explainableNames(loaded->fusion)));
    return badInput(sink, a.format, err);
  }
  auto opts = pipelineOptions(a.flags, loaded->fusion, a.file, sink);
  if (!opts) {
    return badInput(sink, a.format, err);
  }
  PipelineResult r = runPipeline(loaded->fusion, *opts);
  locateDiagnostics(r.diagnostics, *loaded);
  if (r.opaque_open) {  // no binding ran: a symbol's provenance is not decided
    emitDiagnostics(r.diagnostics, &loaded->source, a.format, out);
    return kExitNotDecided;
  }
  const Fusion& f = r.fusion(loaded->fusion);
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
    j["profile"] = r.profile.label();
    j["whole_fusion"] =
        whole_known ? describeOrigin(f, *sym, r.whole->origin(*sym), value, r.profile.did_rule) : "unbound";
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
  out << "  whole fusion (" << r.profile.label() << "): "
      << (whole_known
              ? "bound by " + describeOrigin(f, *sym, r.whole->origin(*sym), value, r.profile.did_rule)
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
