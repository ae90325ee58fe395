#include "pipeline/printed_range.h"

#include "pipeline/point_walk.h"

namespace fc {
namespace {

std::string verdictWords(const VerdictInterval& iv) {
  switch (iv.verdict) {
    case Verdict::Clean: return "clean";
    case Verdict::Findings: return "fails";
    case Verdict::NotDecided: return "not decided";
  }
  return "";
}

std::string spanText(const VerdictInterval& iv) {
  const bool head = iv.to + 1 == nv::commits().size();
  return pointDate(iv.from) + " .. " + (head ? "head" : pointDate(iv.to));
}

// A repro that no modelled point produced: what nvFuser did with it is not replayed. The first
// point's verdict is said in a note, not given as nvFuser's.
PipelineResult beforeHistory(PipelineResult r, const PrintedRange& range, const PipelineOptions& opts) {
  const nv::Commit& first = nv::commits().front();
  Diagnostic d;
  d.severity = Severity::NotDecided;
  d.code = DiagCode::NotDecided;
  d.loc.file = opts.file;
  d.message = "the repro was " + range.why +
              ": older than the history fusecheck models (nvFuser's main from " + std::string(first.date) +
              "), so what nvFuser did with it is not replayed";
  const Diagnostic* finding = nullptr;
  for (const Diagnostic& x : r.diagnostics)
    if (!finding && (x.severity == Severity::Error || x.severity == Severity::NotDecided)) finding = &x;
  d.note("at the history's first point (" + std::string(first.date) + ", " +
         std::string(first.hash.substr(0, 9)) + ") the fusion is " +
         (finding ? std::string(finding->severity == Severity::Error ? "not clean: " : "not decided: ") +
                        std::string(diagCodeInfo(finding->code).id) + " " + finding->message
                  : std::string("clean")));
  d.note("--nvfuser replays a point of the history (a date from " + std::string(first.date) +
         ", a commit of nvFuser's main, or a version)");
  r.diagnostics.clear();
  r.unbound.clear();
  r.diagnostics.push_back(std::move(d));
  return r;
}

}  // namespace

PipelineResult runOverPrintedRange(const Fusion& f, const PipelineOptions& opts) {
  const PrintedRange range = *opts.profile.printed_range;
  PipelineOptions at_last = opts;
  at_last.profile.printed_range.reset();
  PipelineResult r = runPipeline(f, at_last);
  r.profile.printed_range = range;
  // Before the history there is no range to walk: the one run above is the first point's.
  if (range.before_history) return beforeHistory(std::move(r), range, opts);
  std::vector<VerdictInterval> ivs =
      walkPoints(f, at_last, range.first, range.last, WalkPath{range.frontend, range.executor, false});

  const VerdictInterval* ref = nullptr;
  bool agree = true, same_findings = true, one_path = true;
  size_t stretches = 0;
  for (const VerdictInterval& iv : ivs) {
    if (!iv.exists) continue;
    ++stretches;
    if (!ref) ref = &iv;
    agree &= iv.verdict == ref->verdict;
    same_findings &= iv.sameVerdict(*ref);
    one_path &= iv.path == ref->path;
  }
  // One line per stretch: its span, verdict, first finding and the change that starts it.
  auto stretchLines = [&] {
    std::vector<std::string> lines;
    for (const VerdictInterval& iv : ivs) {
      std::string line = spanText(iv) + ": ";
      if (!iv.exists) {
        line += "n/a, " + iv.missing;
      } else {
        line += verdictWords(iv) + (one_path ? "" : " on " + iv.path);
        if (!iv.first.empty()) line += " (" + iv.first + ")";
      }
      if (!iv.start.empty() && iv.from != range.first) line += " [from " + changesText(iv.start) + "]";
      lines.push_back(std::move(line));
    }
    return lines;
  };
  const std::string span = pointDate(range.first) + " to " + pointDate(range.last);
  if (!ref || agree) {
    std::string path = one_path && ref ? "on " + ref->path : "on the path assumed at each point";
    std::vector<std::string> notes{"no nvFuser point given: the repro was " + range.why +
                                   "; every change point from " + span + " gives this verdict " + path +
                                   ", replayed here at its last point; --nvfuser replays another"};
    if (!same_findings) {
      notes.emplace_back("the findings differ across the range, stretch by stretch:");
      for (std::string& l : stretchLines()) notes.push_back("  " + l);
    }
    r.notes.insert(r.notes.begin(), notes.begin(), notes.end());
    r.printed_intervals = std::move(ivs);
    return r;
  }

  // The range disagrees: only the point the repro ran at decides.
  Diagnostic d;
  d.severity = Severity::NotDecided;
  d.code = DiagCode::NotDecided;
  d.loc.file = opts.file;
  d.message = "no nvFuser point given, and the repro was " + range.why + ": from " + span +
              " nvFuser's verdict " + (one_path ? "on " + ref->path + " " : "") + "differs between " +
              std::to_string(stretches) + " stretches";
  for (std::string& l : stretchLines()) d.note(std::move(l));
  d.note(
      "--nvfuser names the point the repro ran at (a date, a commit of nvFuser's main, or the version "
      "its log prints); `check --matrix` walks all of nvFuser's history");
  r.diagnostics.clear();
  r.unbound.clear();
  r.diagnostics.push_back(std::move(d));
  r.printed_intervals = std::move(ivs);
  return r;
}

}  // namespace fc
