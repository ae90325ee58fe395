// The analysis commands: check (one profile or --matrix), segment, concretize,
// explain (a symbol's provenance, or a pasted nvFuser error), fix, demo.
#pragma once

#include <iosfwd>
#include <string>

#include "driver/common.h"
#include "driver/repro_args.h"

namespace fc::driver {

struct CheckArgs : PipelineArgs {
  bool matrix = false;      // --matrix: the repro's path at every change point
  bool matrix_all = false;  // --matrix=all: every frontend x executor that existed
  int expect_fixed_by = 0;  // --expect-fixed-by PR (with --matrix)
};
int check(const CheckArgs& a, std::ostream& out, std::ostream& err);
// The --matrix part of check (matrix.cpp).
int checkMatrix(const CheckArgs& a, const Loaded& loaded, const PipelineOptions& opts, std::ostream& out,
                std::ostream& err);
// The text after a check's diagnostics: the profile's assumptions, the
// verdict line, and what it rests on (checked, approximate).
void renderVerdictText(const PipelineResult& r, std::ostream& out);

struct SegmentArgs : PipelineArgs {
  bool ranks = false;
  std::string emit_dir;
};
int segment(const SegmentArgs& a, std::ostream& out, std::ostream& err);

struct ConcretizeArgs : PipelineArgs {
  int segment = -1;  // -1: all
};
int concretize(const ConcretizeArgs& a, std::ostream& out, std::ostream& err);

struct ExplainArgs : PipelineArgs {
  std::string symbol;
  std::string error_text;  // --error
};
int explain(const ExplainArgs& a, std::ostream& out, std::ostream& err);

struct FixArgs : PipelineArgs {
  std::string output;
  std::string fix = "auto";
  bool in_place = false;
};
int fix(const FixArgs& a, std::ostream& out, std::ostream& err);

struct DemoArgs {
  std::string workdir;    // where the fixed repro is written (default: a temp dir)
  std::string seed_file;  // default: the built-in seed
};
int demo(const DemoArgs& a, std::ostream& out, std::ostream& err);

// Codes whose nvFuser messages match `text` (explain --error), and the
// nvFuser check each match stands for.
struct NvfuserErrorMatch {
  std::string check;  // "ConcretizeExtent" (pipeline/history.h), or the words matched
  std::string code;   // "FC0301"
};
std::vector<NvfuserErrorMatch> matchNvfuserError(const std::string& text);
std::vector<std::string> codesForNvfuserError(const std::string& text);

}  // namespace fc::driver
