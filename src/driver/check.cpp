#include <filesystem>
#include <nlohmann/json.hpp>
#include <ostream>

#include "diag/render.h"
#include "driver/analysis_commands.h"
#include "driver/pipeline_json.h"
#include "io/json_locate.h"
#include "passes/segment.h"
#include "support/atomic_file.h"
#include "support/keep_until_exit.h"
#include "support/phase_times.h"

namespace fc::driver {
namespace {

void emitTrace(const PipelineResult& r, const PipelineFlags& flags, std::ostream& out, std::ostream& err) {
  size_t n = 0;
  for (const PassTrace& t : r.trace) {
    ++n;
    bool show = flags.trace || flags.print_after == "all" || flags.print_after == t.pass;
    if (show) out << "== " << t.pass << " (" << t.scope << ") ==\n" << t.text;
    if (!flags.dump_dir.empty()) {
      std::error_code ec;
      std::filesystem::create_directories(flags.dump_dir, ec);
      std::string scope = t.scope;
      for (char& c : scope)
        if (c == ' ') c = '-';
      char idx[8];
      std::snprintf(idx, sizeof idx, "%02zu", n);
      std::string why =
          writeFileAtomic(flags.dump_dir + "/" + idx + "-" + t.pass + "-" + scope + ".txt", t.text);
      if (!why.empty())
        err << "fusecheck: cannot write into --dump-dir " << flags.dump_dir << ": " << why << "\n";
    }
  }
}

}  // namespace

void renderVerdictText(const PipelineResult& r, std::ostream& out) {
  for (const std::string& n : r.notes) out << "note: " << n << "\n";
  out << "check: " << verdictSummary(r) << "\n";
  if (r.verdict() == Verdict::Clean)
    for (const std::string& c : r.checked) out << "  checked: " << c << "\n";
  for (const std::string& a : r.approximations) out << "  approximate: " << a << "\n";
}

int check(const CheckArgs& a, std::ostream& out, std::ostream& err) {
  DiagnosticSink sink;
  auto loaded = loadRepro(a.file, sink, a.max_bytes);
  if (!loaded) {
    return badInput(sink, a.format, a.format == OutputFormat::Text ? err : out);
  }
  auto opts = pipelineOptions(a.flags, loaded->fusion, a.file, sink);
  if (!opts) {
    return badInput(sink, a.format, a.format == OutputFormat::Text ? err : out);
  }
  if (a.matrix) return checkMatrix(a, *loaded, *opts, out, err);
  PipelineResult r = runPipeline(loaded->fusion, *opts);
  PhaseScope locate_phase("report: locate diagnostics");
  locateDiagnostics(r.diagnostics, *loaded);
  locate_phase.stop();
  PhaseScope render_phase("report: render");
  if (a.format == OutputFormat::Text) {
    reportLoadWarnings(sink, *loaded, a.file, out);
    emitTrace(r, a.flags, out, err);
    renderText(r.diagnostics, &loaded->source, out);
    renderVerdictText(r, out);
  } else if (a.format == OutputFormat::Json) {
    if (!a.flags.dump_dir.empty()) emitTrace(r, a.flags, out, err);
    out << pipelineJson(r.fusion(loaded->fusion), r, a.file);
  } else {
    out << renderSarif(r.diagnostics, "0.1.0");
  }
  int rc = exitFor(r);
  keepUntilExit(*loaded);
  keepUntilExit(r);
  return rc;
}

}  // namespace fc::driver
