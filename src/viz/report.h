// The HTML report: one self-contained file -- inline
// CSS, a little inline JS, inline SVG, no network -- that shows
//  - a summary (era, order, segments, the first error, the fix verdict);
//  - the graph (the VizGraph rendered by Graphviz; before and after fix);
//  - every pipeline step (PassTrace) with its printed state and a computed
//    line diff against the previous step of the same scope, the failing
//    step marked;
//  - the diff that `fix` makes: the repro, the check output and the
//    printed segment inputs, before vs after;
//  - the diagnostics with their notes, tensor and segment names linked to
//    the graph's SVG elements;
//  - the numerics table of a run (`run --format json`), when given.
// buildReport gathers (runs the pipeline with traces, plans the fixes,
// re-checks the fixed repro in memory, lays out the graphs); renderHtml
// only formats. Cost: the pipeline twice, the Graphviz layouts, and the
// diffs (O((N+M)·D) per step pair).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "diag/diagnostic.h"
#include "diag/source.h"
#include "ir/fusion.h"
#include "pipeline/pipeline.h"
#include "rewrite/fixes.h"
#include "viz/graph_model.h"

namespace fc::viz {

// The numerics of one run (the shape of `fusecheck run --format json`,
// src/driver/run.h); values are the JSON's text.
struct RunOutputRow {
  std::string name, dtype, shape;
  bool passed = false;
  std::string numel, mismatches, max_abs, max_rel, max_ulp, rtol, atol, policy;
  std::vector<std::string> worst;  // "at [0, 3]: got 1.5, reference 1.25 (error 0.25, allowed 0.1)"
  std::string note;                // replica note
};
struct RunSegmentRow {
  std::string id, kind, status, summary;
};
struct RunTable {
  std::string source;  // the --results file, or "--run on cpu"
  std::string device, era, reference, communicator, seed, ranks;
  bool fix = false;
  bool passed = false;
  std::vector<std::string> fix_actions;
  std::vector<RunSegmentRow> segments;
  std::vector<RunOutputRow> outputs;
  std::vector<std::string> diagnostics;  // "error[FC0301]: ..." one line each
};

struct ReportStep {
  size_t index = 0;  // 1-based, in trace order
  std::string pass, scope, text;
  std::optional<size_t> previous;  // index of the previous step of the same pass (comparable states)
  bool failing = false;            // the step where the era fails
};

struct ReportGraph {
  std::string caption;
  std::string svg;   // inline SVG ("" when not rendered)
  std::string note;  // why there is no SVG, or Graphviz's warnings
  std::string id_prefix;
};

struct ReportModel {
  std::string file;  // as given
  std::string name;  // the fusion's name
  std::string era, order;
  std::vector<std::string> segments;  // "segment 1 · Allreduce · executor: communication"
  std::vector<Diagnostic> diagnostics;
  std::vector<ReportStep> steps;
  std::vector<std::string> tensor_names;  // linkable names in diagnostics
  std::vector<ReportGraph> graphs;        // [0]: as given; [1]: after fix (when it changes)
  // The fix.
  bool fix_changed = false;
  std::vector<FixAction> fix_actions;
  std::vector<Diagnostic> fix_refusals;
  std::string fixed_name;  // "<stem>.fixed.json"
  std::string verdict;     // verdictText of the diagnostics: "clean", "FAIL: 1 error (FC0301)"
  std::string version;     // fusecheck's, for the footer
  double work = 0;         // about how many element operations a CPU run of the fusion takes
  bool fixed_clean = false;
  std::string repro_before, repro_after;    // canonical JSON
  std::string check_before, check_after;    // `fusecheck check` text
  std::string inputs_before, inputs_after;  // the segment-inputs steps
  std::optional<RunTable> run;
  std::string run_note;  // why there is no numerics table, or how it was made
};

struct ReportOptions {
  bool render_graphs = true;      // lay out SVG with Graphviz when available
  size_t max_graph_nodes = 1500;  // larger graphs get a note pointing at `dot --focus`
};

// `f` must have passed the verifier; `opts` as for runPipeline (trace is
// forced on).
ReportModel buildReport(const Fusion& f, const SourceText& source, const PipelineOptions& opts,
                        const ReportOptions& ropts = {});

std::string renderHtml(const ReportModel& m);

}  // namespace fc::viz
