#include "driver/reduce_cmd.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>

#include "diag/render.h"
#include "driver/mismatch_property.h"
#include "driver/run.h"
#include "io/export_check.h"
#include "io/export_python.h"
#include "io/import_detect.h"
#include "io/json_locate.h"
#include "io/place_pointer.h"
#include "io/writer.h"
#include "ir/verifier.h"
#include "reduce/oracle.h"
#include "reduce/property.h"
#include "reduce/reduce.h"
#include "support/atomic_file.h"

namespace fc::driver {

namespace {

std::atomic<bool> g_interrupted{false};

extern "C" void onSigint(int /*sig*/) {
  g_interrupted.store(true);
  signal(SIGINT, SIG_DFL);  // a second Ctrl-C kills at once
}

// Installs the SIGINT handler for the command's lifetime (no SA_RESTART:
// a blocking wait returns early).
class SigintGuard {
 public:
  SigintGuard() {
    g_interrupted.store(false);
    struct sigaction sa {};
    sa.sa_handler = onSigint;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;
    sigaction(SIGINT, &sa, &old_);
  }
  ~SigintGuard() { sigaction(SIGINT, &old_, nullptr); }
  SigintGuard(const SigintGuard&) = delete;
  SigintGuard& operator=(const SigintGuard&) = delete;

 private:
  struct sigaction old_ {};
};

std::optional<DiagCode> parseCode(const std::string& s) {
  for (const DiagCodeInfo& i : allDiagCodes())
    if (i.id == s || i.slug == s) return i.code;
  return std::nullopt;
}

// The property and what the summary calls it.
struct PropertySetup {
  ReduceProperty property;
  std::unique_ptr<Oracle> oracle;
  std::string description;
};

std::optional<PropertySetup> makeProperty(const ReduceArgs& a, const Fusion& f, const PipelineOptions& popts,
                                          DiagnosticSink& sink) {
  PropertySetup p;
  if (!a.until.empty()) {
    auto code = parseCode(a.until);
    if (!code) {
      sink.error(DiagCode::Usage, "--until: unknown diagnostic code '" + a.until + "' (e.g. FC0301)");
      return std::nullopt;
    }
    p.property = diagnosticProperty(*code, popts, a.match);
    p.description = std::string(diagCodeInfo(*code).id) + " (" + popts.profile.label() + ")";
    if (!a.match.empty()) p.description += " matching \"" + a.match + "\"";
  } else if (a.mismatch) {
    RunOptions ro;
    ro.profile = popts.profile;
    ro.reference = a.reference == "faithful" ? ReferenceKind::Faithful : ReferenceKind::Exact;
    ro.seed = a.seed;
    ro.rtol = a.rtol;
    ro.atol = a.atol;
    ro.binds = popts.binds;
    ro.max_bytes = a.max_bytes;
    p.property = mismatchProperty(ro);
    p.description = "numerics mismatch (CPU, " + a.reference + " reference, " + popts.profile.label() + ")";
  } else {
    OracleOptions oo;
    oo.command = a.oracle;
    oo.timeout_s = a.oracle_timeout_s;
    oo.passthrough = a.verbose;
    oo.interrupt = &g_interrupted;
    p.oracle = std::make_unique<Oracle>(oo);
    p.property = p.oracle->property();
    p.description = "oracle `" + a.oracle + "` exits 0";
  }
  if (!a.export_python.empty()) {
    // The result is exported too: keep only candidates the Python layout
    // can say whole (no fusion input with a Reduction axis, which
    // define_tensor would drop), so that the script reproduces the property.
    p.property = [inner = p.property](const Fusion& g) { return exportKeepsInputs(g) && inner(g); };
    p.description += ", exportable to nvFuser's Python";
  }
  return p;
}

// Writes the result in nvFuser's Python layout after checking that the
// script, imported back, still has the property (the oracle's is left to
// the oracle: it may need a GPU). Returns the exit code.
int exportResult(const ReduceArgs& a, const Fusion& best, const PropertySetup& setup, DiagnosticSink& sink) {
  if (!checkExportKeepsInputs(best, a.output, "nvFuser's define_tensor", sink)) return kExitFindings;
  auto py = exportPython(best, sink);
  if (!py) return kExitFindings;
  if (!setup.oracle) {
    DiagnosticSink back_sink;
    SourceText back_src(a.export_python, *py);
    auto back = importFusion(back_src, back_sink, ImportFormat::NvfuserPython);
    if (back) back->rebuildUses();
    if (!back || !verifyFusion(*back, back_sink, a.export_python) || !setup.property(*back)) {
      sink.error(DiagCode::ExportDropsAxis, "the Python export of " + a.output +
                                                " does not reproduce the property when imported back; not "
                                                "writing " +
                                                a.export_python)
          .note("the JSON result " + a.output + " has it; export what it needs by hand");
      return kExitFindings;
    }
  }
  std::string why = writeFileAtomic(a.export_python, *py);
  if (why.empty()) return kExitClean;
  sink.error(DiagCode::WriteFailed, "cannot export " + a.export_python + ": " + why);
  return kExitEnvironment;
}

// stderr progress: one updating line on a terminal, log lines with --verbose.
class Progress {
 public:
  Progress(const ReduceArgs& a, std::ostream& err, size_t exprs_before)
      : err_(err), verbose_(a.verbose), before_(exprs_before) {
    live_ = !verbose_ && (a.progress == "always" || (a.progress == "auto" && isatty(STDERR_FILENO)));
  }
  ~Progress() { done(); }
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  void event(const ReduceEvent& ev) {
    const ReduceStats& s = *ev.stats;
    if (verbose_) {
      err_ << "reduce: step " << s.steps << " [round " << s.rounds << ", " << s.phase << "] " << ev.what
           << ": " << ev.verdict << " (exprs " << ev.best->exprs.size() << ")\n";
      return;
    }
    if (!live_) return;
    auto now = std::chrono::steady_clock::now();
    if (!ev.accepted && now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    char t[32];
    std::snprintf(t, sizeof t, "%.1fs", s.seconds);
    err_ << "\r\033[Kreduce: round " << s.rounds << " " << s.phase << ": exprs " << before_ << " -> "
         << ev.best->exprs.size() << ", steps " << s.steps << ", property calls " << s.property_calls << ", "
         << t << std::flush;
    drawn_ = true;
  }
  void done() {
    if (drawn_) err_ << "\r\033[K" << std::flush;
    drawn_ = false;
  }

 private:
  std::ostream& err_;
  bool verbose_, live_ = false, drawn_ = false;
  size_t before_;
  std::chrono::steady_clock::time_point last_{};
};

std::string stopText(StopReason r) {
  switch (r) {
    case StopReason::Fixpoint: return "fixpoint (a whole round removed nothing)";
    case StopReason::MaxSteps: return "max-steps (--max-steps candidates tried)";
    case StopReason::TimeLimit: return "time-limit (--time-limit reached)";
    case StopReason::Interrupted: return "interrupted (SIGINT)";
    case StopReason::NotInteresting: return "not-interesting";
  }
  return "?";
}

nlohmann::ordered_json sizeJson(const FusionSize& s) {
  return {{"exprs", s.exprs},   {"tensors", s.tensors}, {"segments", s.segments},
          {"inputs", s.inputs}, {"outputs", s.outputs}, {"scalars", s.scalars}};
}

void printSummary(const ReduceArgs& a, const std::string& prop, const ReduceResult& r, uint64_t oracle_calls,
                  bool confirmed, const std::vector<Diagnostic>& diags, std::ostream& out) {
  if (a.format == OutputFormat::Json) {
    nlohmann::ordered_json j;
    j["reduce"] = {{"file", a.file},
                   {"output", a.output},
                   {"property", prop},
                   {"stop", std::string(stopReasonName(r.stop))},
                   {"confirmed", confirmed},
                   {"before", sizeJson(r.before)},
                   {"after", sizeJson(r.after)},
                   {"steps", r.stats.steps},
                   {"property_calls", r.stats.property_calls},
                   {"oracle_calls", oracle_calls},
                   {"invalid", r.stats.invalid},
                   {"cached", r.stats.cache_hits},
                   {"improvements", r.stats.improvements},
                   {"rounds", r.stats.rounds},
                   {"seconds", r.stats.seconds}};
    j["diagnostics"] = nlohmann::ordered_json::parse(spelledJson(diags))["diagnostics"];
    out << j.dump(2) << "\n";
    return;
  }
  out << "reduce: " << a.file << ", keeping " << prop << "\n";
  auto row = [&](const char* name, size_t b, size_t af) {
    char line[96];
    std::snprintf(line, sizeof line, "  %-9s %7zu -> %zu\n", name, b, af);
    out << line;
  };
  row("exprs", r.before.exprs, r.after.exprs);
  row("tensors", r.before.tensors, r.after.tensors);
  row("segments", r.before.segments, r.after.segments);
  row("inputs", r.before.inputs, r.after.inputs);
  row("outputs", r.before.outputs, r.after.outputs);
  row("scalars", r.before.scalars, r.after.scalars);
  char t[48];
  std::snprintf(t, sizeof t, "%.2f s", r.stats.seconds);
  out << "  steps " << r.stats.steps << " (property calls " << r.stats.property_calls << ", invalid "
      << r.stats.invalid << ", cached " << r.stats.cache_hits << "), " << r.stats.improvements
      << " improvements, " << r.stats.rounds << " rounds, " << t << "\n";
  if (!a.oracle.empty()) out << "  oracle calls " << oracle_calls << " (flakiness checks included)\n";
  out << "stopped: " << stopText(r.stop) << "\n";
  out << "wrote " << a.output << (confirmed ? " (re-checked: still interesting)" : " (re-check FAILED)")
      << "\n";
}

bool writeBest(const std::string& path, const Fusion& f, DiagnosticSink& sink) {
  std::string why = writeFileAtomic(path, writeFusion(f));
  if (why.empty()) return true;
  sink.error(DiagCode::WriteFailed, "cannot write " + path + ": " + why);
  return false;
}

}  // namespace

int reduceRepro(const ReduceArgs& a, std::ostream& out, std::ostream& err) {
  DiagnosticSink sink;
  auto fail = [&](int code) {
    emitDiagnostics(sink.all(), nullptr, a.format, err);
    return code;
  };
  int props = (a.until.empty() ? 0 : 1) + (a.oracle.empty() ? 0 : 1) + (a.mismatch ? 1 : 0);
  if (props != 1) {
    sink.error(DiagCode::Usage,
               "reduce needs exactly one property: --until CODE, --oracle CMD or --mismatch");
    return fail(kExitBadInput);
  }
  if (a.output.empty() || a.oracle_repeats < 1) {
    sink.error(DiagCode::Usage, "reduce needs -o OUT, and --oracle-repeats of at least 1");
    return fail(kExitBadInput);
  }
  std::error_code ec;
  if (std::filesystem::equivalent(a.file, a.output, ec)) {
    sink.error(DiagCode::Usage, "-o " + a.output + " is the input itself: reduce never overwrites its input");
    return fail(kExitBadInput);
  }
  auto loaded = loadRepro(a.file, sink, a.max_bytes);
  if (!loaded) {
    return badInput(sink, a.format, err);
  }
  auto popts = pipelineOptions(a.flags, loaded->fusion, a.file, sink);
  if (!popts) return fail(kExitBadInput);
  auto setup = makeProperty(a, loaded->fusion, *popts, sink);
  if (!setup) return fail(kExitBadInput);
  const Fusion& input = loaded->fusion;
  if (!a.export_python.empty() && !checkExportKeepsInputs(input, a.file, "nvFuser's define_tensor", sink)) {
    locateDiagnostics(sink.all(), *loaded);
    emitDiagnostics(sink.all(), &loaded->source, a.format, err);
    return kExitFindings;
  }

  SigintGuard guard;
  // The input must have the property; an oracle must say so every time.
  if (setup->oracle) {
    int yes = setup->oracle->countInteresting(input, a.oracle_repeats);
    if (!g_interrupted.load() && yes != a.oracle_repeats) {
      if (yes == 0)
        sink.error(DiagCode::ReduceNotInteresting, "the oracle does not find " + a.file +
                                                       " interesting: it exited non-zero on all " +
                                                       std::to_string(a.oracle_repeats) + " runs")
            .note("the oracle must exit 0 on the input (run it by hand: " + a.oracle + " " + a.file + ")");
      else
        sink.error(DiagCode::OracleFlaky, "the oracle is flaky: it exited 0 on " + std::to_string(yes) +
                                              " of " + std::to_string(a.oracle_repeats) +
                                              " runs on the unchanged input " + a.file)
            .note(
                "a reduction with an oracle that changes its mind is meaningless; make it deterministic "
                "(fixed seeds, no timing) or raise its margin");
      return fail(kExitBadInput);
    }
  } else if (!setup->property(input)) {
    sink.error(DiagCode::ReduceNotInteresting,
               "the input " + a.file + " does not have the property: " + setup->description);
    return fail(kExitBadInput);
  }
  if (!writeBest(a.output, input, sink)) return fail(kExitEnvironment);

  ReduceOptions ro;
  ro.max_steps = a.max_steps;
  ro.time_limit_s = a.time_limit_s;
  ro.interrupt = &g_interrupted;
  ro.profile = popts->profile;
  ro.shrink_sizes = !a.no_shrink_sizes;
  ro.shrink_meshes = !a.no_shrink_meshes;
  ro.check_input = false;
  bool write_ok = true;
  ro.on_improvement = [&](const Fusion& best, const ReduceStats&) {
    write_ok &= writeBest(a.output, best, sink);
  };
  Progress progress(a, err, input.exprs.size());
  ro.on_progress = [&](const ReduceEvent& ev) { progress.event(ev); };
  ReduceResult r = reduce(input, setup->property, ro);
  progress.done();
  if (!write_ok) return fail(kExitEnvironment);

  // Confirm what is on disk, as a user will load it.
  bool confirmed = false;
  DiagnosticSink reload_sink;
  auto written = loadRepro(a.output, reload_sink, 0, /*own_output=*/true);
  g_interrupted.store(false);
  if (written) {
    if (setup->oracle)
      confirmed = setup->oracle->countInteresting(written->fusion, a.oracle_repeats) == a.oracle_repeats;
    else
      confirmed = setup->property(written->fusion);
  }
  if (!confirmed)
    sink.error(DiagCode::OracleFlaky,
               "the written result " + a.output + " is not interesting when checked again")
        .note(setup->oracle ? "the oracle gave a different verdict on the same file: it is flaky"
                            : "the property is not deterministic");
  int rc = confirmed ? kExitClean : kExitFindings;
  if (confirmed && !a.export_python.empty()) rc = std::max(rc, exportResult(a, r.best, *setup, sink));
  printSummary(a, setup->description, r, setup->oracle ? setup->oracle->calls() : r.stats.property_calls,
               confirmed, sink.all(), out);
  if (a.format != OutputFormat::Json) emitDiagnostics(sink.all(), nullptr, a.format, err);
  return rc;
}

}  // namespace fc::driver
