// dot and report (see viz_commands.h): argument checks, loading, then the
// src/viz library; this file only wires and writes files.
#include "driver/viz_commands.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>

#include "diag/render.h"
#include "driver/run.h"
#include "io/json_locate.h"
#include "support/atomic_file.h"
#include "viz/dot_writer.h"
#include "viz/graph_model.h"
#include "viz/report.h"

namespace fc::driver {
namespace {

int usage(DiagnosticSink& sink, std::ostream& err, const std::string& msg) {
  sink.error(DiagCode::Usage, msg);
  emitDiagnostics(sink.all(), nullptr, OutputFormat::Text, err);
  return kExitBadInput;
}

int writeOut(const std::string& path, const std::string& content, const std::string& input,
             std::ostream& err) {
  DiagnosticSink sink;
  if (sameFile(path, input)) {
    sink.error(DiagCode::Usage, "refusing to overwrite the input " + input + " (write the output elsewhere)");
    emitDiagnostics(sink.all(), nullptr, OutputFormat::Text, err);
    return kExitBadInput;
  }
  std::string why = writeFileAtomic(path, content);
  if (why.empty()) return kExitClean;
  sink.error(DiagCode::WriteFailed, why);
  emitDiagnostics(sink.all(), nullptr, OutputFormat::Text, err);
  return kExitEnvironment;
}

std::string errorSummary(const std::vector<Diagnostic>& diags) {
  std::vector<std::string> codes;
  size_t n = 0;
  for (const Diagnostic& d : diags) {
    if (d.severity != Severity::Error) continue;
    ++n;
    std::string id(diagCodeInfo(d.code).id);
    if (std::find(codes.begin(), codes.end(), id) == codes.end()) codes.push_back(id);
  }
  if (!n)
    return std::any_of(diags.begin(), diags.end(),
                       [](const Diagnostic& d) { return d.severity == Severity::NotDecided; })
               ? "not decided"
               : "clean";
  std::string s = std::to_string(n) + " error" + (n == 1 ? "" : "s") + " (";
  for (size_t i = 0; i < codes.size(); ++i) s += (i ? ", " : "") + codes[i];
  return s + ")";
}

std::string str(const nlohmann::json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_array()) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + str(v[i]);
    return s + "]";
  }
  return v.dump();
}

std::string field(const nlohmann::json& o, const char* key) {
  return o.is_object() && o.contains(key) ? str(o[key]) : std::string();
}

// Each member of `row` from its key of o, by field().
template <class Row>
void readFields(const nlohmann::json& o, Row& row,
                std::initializer_list<std::pair<std::string Row::*, const char*>> fields) {
  for (auto [member, key] : fields) row.*member = field(o, key);
}

// o[key] when it is a boolean, else false.
bool flag(const nlohmann::json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_boolean() && it->get<bool>();
}

// The repro and its pipeline options, or nullopt after printing the
// diagnostics (the caller exits kExitBadInput).
std::optional<std::pair<Loaded, PipelineOptions>> loadWithOptions(const std::string& file,
                                                                  const PipelineFlags& flags,
                                                                  uint64_t max_bytes, DiagnosticSink& sink,
                                                                  std::ostream& err) {
  auto loaded = loadRepro(file, sink, max_bytes);
  auto opts = loaded ? pipelineOptions(flags, loaded->fusion, file, sink) : std::nullopt;
  if (!opts) {
    emitDiagnostics(sink.all(), nullptr, OutputFormat::Text, err);
    return std::nullopt;
  }
  return std::make_pair(std::move(*loaded), std::move(*opts));
}

}  // namespace

int dot(const DotArgs& a, std::ostream& out, std::ostream& err) {
  DiagnosticSink sink;
  if (!a.stage.empty() && !viz::isPassName(a.stage))
    return usage(
        sink, err,
        "--stage '" + a.stage + "' is not a pass name (expected one of " + viz::passNameList() + ")");
  if (a.depth < 0) return usage(sink, err, "--depth must be 0 or more");
  if (!viz::graphvizAvailable()) {
    sink.error(DiagCode::MissingTool, viz::graphvizMissingMessage());
    emitDiagnostics(sink.all(), nullptr, OutputFormat::Text, err);
    return kExitEnvironment;
  }
  auto in = loadWithOptions(a.file, a.flags, a.max_bytes, sink, err);
  if (!in) return kExitBadInput;
  auto& [loaded, opts] = *in;
  PipelineResult r = runPipeline(loaded.fusion, opts);
  viz::GraphOptions go;
  go.stage = a.stage;
  go.style = r.profile.print_style;
  viz::VizGraph g = viz::buildGraph(r.fusion(loaded.fusion), r, go);
  if (!a.focus.empty()) {
    auto center = viz::findFocusNode(g, loaded.fusion, a.focus);
    if (!center)
      return usage(sink, err,
                   "--focus '" + a.focus + "' names no tensor or expr of " + a.file +
                       " (tensors by name, e.g. T5; exprs as e<index>, e.g. e2)");
    viz::focusGraph(g, *center, static_cast<size_t>(a.depth));
  }
  viz::DotOutput d = viz::writeDot(g);
  if (!d.ok) {
    sink.error(DiagCode::MissingTool, d.error);
    emitDiagnostics(sink.all(), nullptr, OutputFormat::Text, err);
    return kExitEnvironment;
  }
  const bool to_stdout = a.output.empty() || a.output == "-";
  if (to_stdout) {
    out << d.text;
  } else if (int rc = writeOut(a.output, d.text, a.file, err); rc != kExitClean) {
    return rc;
  }
  std::ostream& info = to_stdout ? err : out;
  if (!a.svg.empty()) {
    viz::SvgOutput s = viz::renderSvg(d.text);
    if (!s.ok) {
      sink.error(DiagCode::MissingTool, s.error);
      emitDiagnostics(sink.all(), nullptr, OutputFormat::Text, err);
      return kExitEnvironment;
    }
    if (!s.warnings.empty()) err << "fusecheck: Graphviz: " << s.warnings;
    if (int rc = writeOut(a.svg, s.svg, a.file, err); rc != kExitClean) return rc;
  }
  info << "dot: " << (to_stdout ? std::string("stdout") : a.output) << (a.svg.empty() ? "" : " and " + a.svg)
       << ": " << g.clusters.size() << " segment cluster" << (g.clusters.size() == 1 ? "" : "s") << ", "
       << g.nodes.size() << " nodes, " << g.unbound_axes << " ax" << (g.unbound_axes == 1 ? "is" : "es")
       << " in red, " << g.diagnostics_drawn << " of " << g.diagnostics << " diagnostic"
       << (g.diagnostics == 1 ? "" : "s") << " drawn, " << g.repaired_edges << " repaired edge"
       << (g.repaired_edges == 1 ? "" : "s") << (g.focus_note.empty() ? "" : "; " + g.focus_note) << "; "
       << r.profile.label() << ": " << viz::verdictText(r.diagnostics) << "\n";
  return exitFor(r);
}

std::optional<viz::RunTable> parseRunResults(const std::string& text, std::string& error) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    error = "not valid JSON";
    return std::nullopt;
  }
  if (!j.is_object() || !j.contains("run") || !j["run"].is_object()) {
    error = "expected {\"run\": {...}} as `fusecheck run --format json` prints it";
    return std::nullopt;
  }
  const nlohmann::json& r = j["run"];
  if (!r.contains("outputs") || !r["outputs"].is_array()) {
    error = "\"run\" has no \"outputs\" array";
    return std::nullopt;
  }
  viz::RunTable t;
  readFields(r, t,
             {{&viz::RunTable::device, "device"},
              {&viz::RunTable::era, "nvfuser"},
              {&viz::RunTable::reference, "reference"},
              {&viz::RunTable::communicator, "communicator"},
              {&viz::RunTable::seed, "seed"},
              {&viz::RunTable::ranks, "ranks"}});
  t.fix = flag(r, "fix");
  t.passed = flag(r, "passed");
  if (r.contains("fix_actions") && r["fix_actions"].is_array())
    for (const auto& x : r["fix_actions"]) t.fix_actions.push_back(str(x));
  if (r.contains("segments") && r["segments"].is_array())
    for (const auto& s : r["segments"]) {
      viz::RunSegmentRow row;
      readFields(s, row,
                 {{&viz::RunSegmentRow::id, "id"},
                  {&viz::RunSegmentRow::kind, "kind"},
                  {&viz::RunSegmentRow::status, "status"},
                  {&viz::RunSegmentRow::summary, "summary"}});
      std::string comm = field(s, "comm");
      if (!comm.empty()) row.kind += " (" + comm + ")";
      t.segments.push_back(std::move(row));
    }
  for (const auto& o : r["outputs"]) {
    if (!o.is_object()) {
      error = "an entry of \"outputs\" is not an object";
      return std::nullopt;
    }
    using Out = viz::RunOutputRow;
    Out row;
    readFields(o, row,
               {{&Out::name, "name"},
                {&Out::dtype, "dtype"},
                {&Out::shape, "shape"},
                {&Out::numel, "numel"},
                {&Out::mismatches, "mismatches"},
                {&Out::max_abs, "max_abs_error"},
                {&Out::max_rel, "max_rel_error"},
                {&Out::max_ulp, "max_ulp"},
                {&Out::note, "replica_note"}});
    row.passed = flag(o, "passed");
    if (o.contains("tolerance") && o["tolerance"].is_object())
      readFields(o["tolerance"], row, {{&Out::rtol, "rtol"}, {&Out::atol, "atol"}, {&Out::policy, "policy"}});
    if (o.contains("worst") && o["worst"].is_array())
      for (const auto& w : o["worst"])
        row.worst.push_back("at " + field(w, "index") + ": got " + field(w, "actual") + ", reference " +
                            field(w, "expected") + " (error " + field(w, "abs_error") + ", allowed " +
                            field(w, "allowed") + ")");
    t.outputs.push_back(std::move(row));
  }
  if (r.contains("diagnostics") && r["diagnostics"].is_array())
    for (const auto& d : r["diagnostics"])
      t.diagnostics.push_back(field(d, "severity") + "[" + field(d, "code") + "]: " + field(d, "message"));
  return t;
}

int report(const ReportArgs& a, std::ostream& out, std::ostream& err) {
  DiagnosticSink sink;
  if (a.output.empty()) return usage(sink, err, "report needs -o OUT.html");
  if (a.run && !a.results.empty()) return usage(sink, err, "--run and --results exclude each other");
  if (a.device != "cpu" && a.device != "cuda")
    return usage(sink, err, "--device '" + a.device + "' (expected cpu or cuda)");
  std::optional<viz::RunTable> table;
  if (!a.results.empty()) {
    std::ifstream in(a.results, std::ios::binary);
    if (!in) {
      sink.error(DiagCode::FileUnreadable, "cannot read --results " + a.results);
      emitDiagnostics(sink.all(), nullptr, OutputFormat::Text, err);
      return kExitBadInput;
    }
    std::stringstream ss;
    ss << in.rdbuf();
    std::string why;
    table = parseRunResults(ss.str(), why);
    if (!table) {
      sink.error(DiagCode::WrongType, "--results " + a.results + ": " + why);
      emitDiagnostics(sink.all(), nullptr, OutputFormat::Text, err);
      return kExitBadInput;
    }
    table->source = a.results;
  }
  auto in = loadWithOptions(a.file, a.flags, a.max_bytes, sink, err);
  if (!in) return kExitBadInput;
  auto& [loaded, opts] = *in;
  viz::ReportModel m = viz::buildReport(loaded.fusion, loaded.source, opts);
  std::string run_status;
  const bool auto_run = !a.run && !a.no_run && a.results.empty() && m.work <= kReportAutoRunWork;
  char work[32];
  std::snprintf(work, sizeof work, "%.2g", m.work);
  if (auto_run)
    m.run_note = "run on the CPU by default: the fusion is small (about " + std::string(work) +
                 " element operations); `--no-run` leaves the numerics out";
  else if (!a.run && !a.no_run && a.results.empty())
    m.run_note = "not run: the fusion is large (about " + std::string(work) +
                 " element operations); `--run` executes it here (`--device cuda` on a GPU build), or pass "
                 "`--results RUN.json` from `fusecheck run --format json`";
  else if (a.no_run)
    m.run_note = "not run (`--no-run`)";
  if (a.run || auto_run) {
    RunOptions ro;
    ro.device = a.device == "cuda" ? RunDevice::Cuda : RunDevice::Cpu;
    ro.profile = opts.profile;
    ro.file = a.file;
    ro.binds = opts.binds;
    RunResult rr = runFusion(loaded.fusion, ro);
    std::string why;
    table = parseRunResults(renderRunJson(rr), why);
    if (!table) {
      err << "fusecheck: internal error: the run's JSON does not read back: " << why << "\n";
      return kExitInternal;
    }
    table->source =
        auto_run ? std::string("run on cpu (by default: a small fusion)") : "--run on " + a.device;
    run_status = rr.passed ? "run passed" : "run failed (exit " + std::to_string(rr.exit_code) + ")";
    if (rr.exit_code == kExitEnvironment) {
      locateDiagnostics(rr.diagnostics, loaded);
      emitDiagnostics(rr.diagnostics, &loaded.source, OutputFormat::Text, err);
    }
  }
  m.run = table;
  std::string html = viz::renderHtml(m);
  if (int rc = writeOut(a.output, html, a.file, err); rc != kExitClean) return rc;
  size_t errors = 0;
  for (const Diagnostic& d : m.diagnostics) errors += d.severity == Severity::Error;
  out << "report: wrote " << a.output << " (" << m.steps.size() << " steps, " << errorSummary(m.diagnostics)
      << (m.fix_changed ? std::string(", fix: re-check ") + (m.fixed_clean ? "clean" : "still failing") : "")
      << (m.graphs.empty()               ? std::string(", no graph")
          : m.graphs.front().svg.empty() ? ", no graph: " + m.graphs.front().note
                                         : std::string(", graph embedded"))
      << (table ? ", numerics " + std::string(table->passed ? "PASS" : "FAIL") : "")
      << (run_status.empty() ? "" : ", " + run_status) << ")\n";
  bool findings = errors > 0 || (table && !table->passed);
  return findings ? kExitFindings : kExitClean;
}

}  // namespace fc::driver
