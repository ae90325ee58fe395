// The visualization commands as library calls:
//   dot    -- the fusion as Graphviz DOT (libcgraph), optionally SVG (gvc);
//   report -- one self-contained HTML file: summary, pipeline steps with
//             computed diffs, the fix's diff, the graph, diagnostics and
//             (given --results or --run) the numerics table.
// A report runs a fusion of at most kReportAutoRunWork element operations
// (viz::ReportModel::work) on the CPU without being asked: about a second.
// Exit codes: 0 clean, 1 findings (the pipeline reports errors;
// the drawing is still written), 2 bad input or usage, 3 environment
// (Graphviz missing for `dot`: FC0906; an unwritable output: FC0905).
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "driver/common.h"
#include "viz/report.h"

namespace fc::driver {

struct DotArgs {
  std::string file;
  std::string output;  // "" or "-": stdout
  std::string svg;     // also render SVG here ("" none)
  std::string stage;   // a pass name ("" all passes)
  std::string focus;   // tensor "T5" or expr "e2" ("" whole graph)
  int depth = 2;       // with focus
  PipelineFlags flags;
  uint64_t max_bytes = 0;
};
int dot(const DotArgs& a, std::ostream& out, std::ostream& err);

struct ReportArgs {
  std::string file;
  std::string output;
  bool run = false;            // execute the repro here (src/exec runFusion)
  bool no_run = false;         // do not execute it, however small (a small fusion runs on CPU by default)
  std::string device = "cpu";  // with run: cpu | cuda
  std::string results;         // a `fusecheck run --format json` file made elsewhere
  PipelineFlags flags;
  uint64_t max_bytes = 0;
};
inline constexpr double kReportAutoRunWork = 2e7;
int report(const ReportArgs& a, std::ostream& out, std::ostream& err);

// The report's numerics table from `run --format json` output ({"run": {...}},
// src/driver/run.h renderRunJson).
// Parses `text`; on failure returns nullopt with a reason in `error`.
std::optional<viz::RunTable> parseRunResults(const std::string& text, std::string& error);

}  // namespace fc::driver
