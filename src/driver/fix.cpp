#include <nlohmann/json.hpp>
#include <ostream>

#include "diag/render.h"
#include "driver/analysis_commands.h"
#include "io/json_locate.h"
#include "io/place_pointer.h"
#include "io/writer.h"
#include "rewrite/fixes.h"
#include "support/atomic_file.h"

namespace fc::driver {

int fix(const FixArgs& a, std::ostream& out, std::ostream& err) {
  DiagnosticSink sink;
  auto loaded = loadRepro(a.file, sink, a.max_bytes);
  if (!loaded) {
    return badInput(sink, a.format, a.format == OutputFormat::Text ? err : out);
  }
  auto kind = parseFixKind(a.fix);
  if (!kind) {
    sink.error(DiagCode::Usage,
               "unknown fix '" + a.fix + "' (expected auto, strip-reduction-axes or forward-extent)");
    return badInput(sink, a.format, err);
  }
  if (a.in_place && (loaded->imported || a.file == "-")) {
    sink.error(DiagCode::Usage,
               "--in-place would replace " + a.file + " with a fusecheck repro (JSON); write it with -o OUT");
    return badInput(sink, a.format, err);
  }
  std::string target = a.in_place ? a.file : a.output;
  if (target.empty()) {
    sink.error(DiagCode::Usage, "fix needs -o OUT (or --in-place)");
    return badInput(sink, a.format, err);
  }
  if (!a.in_place && sameFile(target, a.file)) {
    sink.error(DiagCode::Usage, "refusing to overwrite the input " + a.file + " without --in-place");
    return badInput(sink, a.format, err);
  }
  auto opts = pipelineOptions(a.flags, loaded->fusion, a.file, sink);
  if (!opts) {
    return badInput(sink, a.format, err);
  }
  PipelineResult before = runPipeline(loaded->fusion, *opts);
  // An op without a rule the pipeline could not follow, or a finding on a fusion that holds one (the
  // fixes rebuild exprs by their rules): no fix can be decided, and nothing is written.
  if (before.opaque_open || (holdsOpaqueOp(loaded->fusion) && before.failed())) {
    locateDiagnostics(before.diagnostics, *loaded);
    emitDiagnostics(before.diagnostics, &loaded->source, a.format,
                    a.format == OutputFormat::Text ? err : out);
    if (a.format == OutputFormat::Text)
      out << "fix: " << before.profile.label() << ": not decided; nothing written to " << target << "\n";
    return kExitNotDecided;
  }
  // The fusion the sharding passes left (their sets are what nvFuser runs).
  const Fusion& ran = before.fusion(loaded->fusion);
  FixResult fr = applyFixesToFixpoint(ran, before, *opts, *kind, a.file);
  const Fusion& result = fr.changed ? fr.fixed : loaded->fusion;
  std::string why = writeFileAtomic(target, writeFusion(result));
  if (!why.empty()) {
    sink.error(DiagCode::WriteFailed, why);
    emitDiagnostics(sink.all(), nullptr, a.format, err);
    return kExitEnvironment;
  }
  // Re-check what was written, as a user would.
  DiagnosticSink resink;
  auto reloaded = loadRepro(target, resink, 0, /*own_output=*/true);
  if (!reloaded) {
    err << "fusecheck: internal error: the repaired repro does not load back:\n";
    emitDiagnostics(resink.all(), nullptr, OutputFormat::Text, err);
    return kExitInternal;
  }
  PipelineOptions ro = *opts;
  ro.file = target;
  PipelineResult after = runPipeline(reloaded->fusion, ro);
  fillLocations(after.diagnostics, reloaded->source);
  size_t before_errors = 0;
  for (const auto& d : before.diagnostics) before_errors += d.severity == Severity::Error;

  if (a.format == OutputFormat::Json) {
    nlohmann::ordered_json j;
    j["changed"] = fr.changed;
    j["output"] = target;
    j["actions"] = nlohmann::ordered_json::array();
    for (const FixAction& x : fr.actions)
      j["actions"].push_back(
          {{"fix", x.fix}, {"since", x.since}, {"change", x.change}, {"obligation", x.obligation}});
    j["obligations"] = nlohmann::ordered_json::array();
    for (const Obligation& o : fr.obligations) {
      nlohmann::ordered_json oj;
      oj["fix"] = o.fix;
      oj["segment"] = o.segment;
      oj["tensor"] = o.tensor;
      oj["symbol"] = std::string(ran.scalarName(o.symbol));
      oj["statement"] = o.statement;
      oj["holds"] = o.holds;
      oj["discharge"] = o.discharge;
      oj["uses"] = o.uses;
      j["obligations"].push_back(std::move(oj));
    }
    j["refusals"] = nlohmann::ordered_json::parse(spelledJson(fr.refusals))["diagnostics"];
    j["recheck_clean"] = !after.failed();
    j["diagnostics"] = nlohmann::ordered_json::parse(spelledJson(after.diagnostics))["diagnostics"];
    out << j.dump(2) << "\n";
  } else {
    out << "fix: " << before.profile.label() << ": " << before_errors << " error"
        << (before_errors == 1 ? "" : "s") << " before"
        << (before.verdict() == Verdict::NotDecided ? ", not decided" : "") << "\n";
    if (!fr.changed) out << "  nothing to fix; " << target << " is the input, unchanged\n";
    for (const FixAction& x : fr.actions)
      out << "  fix[" << x.fix << "] " << x.change << "\n"
          << (x.since.empty() ? std::string() : "    what nvFuser does from " + x.since + "\n")
          << "    obligation: " << x.obligation << "\n";
    if (!fr.obligations.empty()) out << "  obligations:\n";
    for (const Obligation& o : fr.obligations) {
      out << "    [" << (o.holds ? "holds" : "FAILS") << "] " << o.fix << ": " << o.statement << "\n      "
          << (o.holds ? "discharged: " : "not discharged: ") << o.discharge << "\n";
      for (size_t i = 1; i < o.uses.size(); ++i) out << "      also used by " << o.uses[i] << "\n";
    }
    renderText(fr.refusals, nullptr, out);
    out << "wrote " << target << "\n";
    out << "re-check " << target << " (" << after.profile.label() << "): ";
    switch (after.verdict()) {
      case Verdict::Findings:
        out << "still failing\n";
        renderText(after.diagnostics, &reloaded->source, out);
        break;
      case Verdict::NotDecided:
        out << "not decided\n";
        renderText(after.diagnostics, &reloaded->source, out);
        break;
      case Verdict::Clean: out << "clean\n"; break;
    }
  }
  if (!fr.refusals.empty() || after.failed()) return kExitFindings;
  return exitFor(after);
}

}  // namespace fc::driver
