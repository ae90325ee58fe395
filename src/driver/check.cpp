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

std::string orderText(const PipelineResult& r) {
  return r.whole_first ? "bind + concretize the whole fusion, then segment"
                       : "segment, then bind + concretize each compute segment alone";
}

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

int check(const CheckArgs& a, std::ostream& out, std::ostream& err) {
  DiagnosticSink sink;
  auto loaded = loadRepro(a.file, sink, a.max_bytes);
  if (!loaded) {
    emitDiagnostics(sink.all(), nullptr, a.format, a.format == OutputFormat::Text ? err : out);
    return kExitBadInput;
  }
  auto opts = pipelineOptions(a.flags, loaded->fusion, a.file, sink);
  if (!opts) {
    emitDiagnostics(sink.all(), nullptr, a.format, a.format == OutputFormat::Text ? err : out);
    return kExitBadInput;
  }
  if (a.matrix) {
    bool any_fail = false;
    std::vector<std::pair<Era, PipelineResult>> runs;
    for (Era e : kAllEras) {
      PipelineOptions o = *opts;
      o.era = e;
      o.trace = false;
      PipelineResult r = runPipeline(loaded->fusion, o);
      fillLocations(r.diagnostics, loaded->source);
      any_fail |= r.failed();
      runs.push_back({e, std::move(r)});
    }
    if (a.format == OutputFormat::Text) {
      out << "era      order                                                        result\n";
      std::optional<Era> first_clean_after_fail;
      bool seen_fail = false;
      for (auto& [e, r] : runs) {
        std::string res = "clean";
        if (r.failed()) {
          res = "FAIL";
          for (const auto& d : r.diagnostics) {
            if (d.severity != Severity::Error) continue;
            res += "  " + std::string(diagCodeInfo(d.code).id) + " " + d.message;
            break;
          }
          size_t n = 0;
          for (const auto& d : r.diagnostics) n += d.severity == Severity::Error;
          if (n > 1) res += " (+" + std::to_string(n - 1) + " more)";
          seen_fail = true;
        } else if (seen_fail && !first_clean_after_fail) {
          first_clean_after_fail = e;
        }
        std::string era(eraName(e));
        era.resize(9, ' ');
        std::string order = orderText(r);
        order.resize(61, ' ');
        out << era << order << res << "\n";
      }
      if (first_clean_after_fail == Era::E2024_07)
        out << "fixed from 2024-07 on: nvFuser PR #2487 \"Strip reduction axes in segmentation edges\" "
               "(2024-07-01)\n";
      else if (first_clean_after_fail == Era::Head)
        out << "fixed at head only\n";
      else if (!any_fail)
        out << "clean in every era\n";
      else
        out << "still failing at head\n";
    } else {
      nlohmann::ordered_json j;
      j["file"] = a.file;
      j["matrix"] = nlohmann::ordered_json::array();
      for (auto& [e, r] : runs)
        j["matrix"].push_back(nlohmann::ordered_json::parse(pipelineJson(loaded->fusion, r, a.file)));
      out << j.dump(2) << "\n";
    }
    return any_fail ? kExitFindings : kExitClean;
  }
  PipelineResult r = runPipeline(loaded->fusion, *opts);
  PhaseScope locate_phase("report: locate diagnostics");
  fillLocations(r.diagnostics, loaded->source);
  locate_phase.stop();
  PhaseScope render_phase("report: render");
  if (a.format == OutputFormat::Text) {
    emitTrace(r, a.flags, out, err);
    renderText(r.diagnostics, &loaded->source, out);
    size_t errors = 0;
    for (const auto& d : r.diagnostics) errors += d.severity == Severity::Error;
    out << "check: nvFuser " << eraName(r.era) << " (" << orderText(r) << "), " << r.segmented.segments.size()
        << " segments, " << (errors ? std::to_string(errors) + " error" + (errors > 1 ? "s" : "") : "clean")
        << "\n";
  } else if (a.format == OutputFormat::Json) {
    if (!a.flags.dump_dir.empty()) emitTrace(r, a.flags, out, err);
    out << pipelineJson(loaded->fusion, r, a.file);
  } else {
    out << renderSarif(r.diagnostics, "0.1.0");
  }
  int rc = r.failed() ? kExitFindings : kExitClean;
  keepUntilExit(*loaded);
  keepUntilExit(r);
  return rc;
}

}  // namespace fc::driver
