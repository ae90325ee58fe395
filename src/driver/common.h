// What every command shares: exit codes (DESIGN §3), output formats, loading
// a repro (read -> verify -> locate) and emitting diagnostics.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "diag/diagnostic.h"
#include "diag/source.h"
#include "ir/fusion.h"
#include "pipeline/pipeline.h"

namespace fc::driver {

enum ExitCode : int {
  kExitClean = 0,
  kExitFindings = 1,
  kExitBadInput = 2,
  kExitEnvironment = 3,
  kExitInternal = 4,
};

enum class OutputFormat { Text, Json, Sarif };

// Flags shared by every command that segments.
struct PipelineFlags {
  std::string era;                 // empty: the repro's era, else 2024-06
  std::vector<std::string> binds;  // S=V
  std::string policy;
  bool trace = false;
  std::string print_after;  // pass name or "all"
  std::string dump_dir;
};

struct Loaded {
  SourceText source;
  Fusion fusion;
};

// Reads and verifies `path`. On failure the diagnostics are in `sink` (with
// line:col) and nullopt is returned.
std::optional<Loaded> loadRepro(const std::string& path, DiagnosticSink& sink, uint64_t max_bytes = 0);

// Whether two paths name the same file (same inode when both exist, else the
// same normalized absolute path): commands refuse to write over their input
// unless told to (--in-place), whatever spelling the two paths use.
bool sameFile(const std::string& a, const std::string& b);

// Turns flags into pipeline options; reports FC0901/FC0309 for bad values.
std::optional<PipelineOptions> pipelineOptions(const PipelineFlags& flags, const Fusion& f,
                                               const std::string& file, DiagnosticSink& sink);

// Renders diagnostics in the chosen format. Text goes to `err` for
// commands whose stdout carries a result, else to `out`.
void emitDiagnostics(const std::vector<Diagnostic>& diags, const SourceText* source, OutputFormat fmt,
                     std::ostream& out);

// Exit code for a set of diagnostics from loading (2) or analysis (1).
int exitCodeFor(const std::vector<Diagnostic>& diags, int code_if_errors);

}  // namespace fc::driver
