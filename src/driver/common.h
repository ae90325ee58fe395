// What every command shares: exit codes, output formats, loading
// a repro (read -> verify -> locate) and emitting diagnostics.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "diag/diagnostic.h"
#include "diag/source.h"
#include "io/import_detect.h"
#include "ir/fusion.h"
#include "pipeline/pipeline.h"

namespace fc::driver {

enum ExitCode : int {
  kExitClean = 0,
  kExitFindings = 1,
  kExitBadInput = 2,
  kExitEnvironment = 3,
  kExitInternal = 4,
  kExitNotDecided = 5,  // the model cannot decide what nvFuser does
};

// Sarif and Github: the diagnostics alone, as SARIF 2.1.0 or GitHub Actions
// annotations (the CLI runs a command in Json and converts what it reports).
enum class OutputFormat { Text, Json, Sarif, Github };

// Flags shared by every command that segments.
struct PipelineFlags {
  std::string nvfuser;             // --nvfuser POINT; empty: the repro's point, else head
  std::string frontend;            // --frontend; empty: the repro's origin, else assumed
  std::string executor;            // --executor
  std::vector<std::string> binds;  // S=V
  std::string policy;
  bool trace = false;
  std::string print_after;  // pass name or "all"
  std::string dump_dir;
};

struct Loaded {
  SourceText source;
  Fusion fusion;
  std::optional<ImportFormat> imported;  // the nvFuser form the file was imported from
};

// Fills line:col of diagnostics about `l`'s fusion: at the definition the fusion's source positions
// record (an imported repro, or the JSON `import -o` wrote from one: the `fd.ops` call, the
// printed tensor or expr line, in the user's file), else JSON pointers located in a fusecheck
// repro's text; what neither locates points at the file's start.
void locateDiagnostics(std::vector<Diagnostic>& diags, const Loaded& l);

// verifyFusion on a repro read from `source`, the diagnostics it adds located: an imported repro's
// at the definitions in the user's file (its source positions), a fusecheck repro's in its JSON.
bool verifyLocated(const Fusion& f, DiagnosticSink& sink, const SourceText& source, bool imported);

// Reads and verifies `path` ("-": standard input). A repro in one of nvFuser's forms (a Python
// repro, printed IR, a segmented dump; io/import_detect.h) is imported on the way, so every
// command takes it directly; anything else is read as a fusecheck repro (JSON). On failure the
// diagnostics are in `sink` (with line:col) and nullopt is returned. `own_output`: the file is one
// fusecheck wrote (a reload), read as JSON whatever --from says.
std::optional<Loaded> loadRepro(const std::string& path, DiagnosticSink& sink, uint64_t max_bytes = 0,
                                bool own_output = false);

// What loading `l` said besides errors, for a command whose text output is about the fusion
// (check, run): the warnings in full (a cut paste, an assumption the import made), then one line
// counting the notes, which `fusecheck import` lists. Nothing when there were neither.
void reportLoadWarnings(const DiagnosticSink& sink, const Loaded& l, const std::string& path,
                        std::ostream& out);

// `--from NAME` of the commands that take a repro: every later loadRepro of this process reads its
// file as NAME, "fusecheck" (JSON) or an import format ("nvfuser-python", ...); empty: by content.
// The CLI runs one command per process. False (and nothing changed) for an unknown name.
bool forceReproFormat(std::string_view name);

// The whole of `path`, or of standard input for "-" (then named "<stdin>"): FC0001 when it
// cannot be read, FC0005 when it is larger than max_bytes (0: no limit).
std::optional<SourceText> readReproSource(const std::string& path, DiagnosticSink& sink, uint64_t max_bytes);

// Whether two paths name the same file (same inode when both exist, else the
// same normalized absolute path): commands refuse to write over their input
// unless told to (--in-place), whatever spelling the two paths use.
bool sameFile(const std::string& a, const std::string& b);

// Turns flags into pipeline options: the profile (point, frontend, executor)
// and the bindings; reports FC0901/FC0309 for bad values (a point, frontend
// or executor that does not exist is a usage error, with suggestions).
std::optional<PipelineOptions> pipelineOptions(const PipelineFlags& flags, const Fusion& f,
                                               const std::string& file, DiagnosticSink& sink);

// The exit code of a pipeline run: 1 an error, 5 not decided, 0 clean.
int exitFor(const PipelineResult& r);

// Renders diagnostics in the chosen format, their places spelled as
// pointers first (io/place_pointer.h). Text goes to `err` for commands
// whose stdout carries a result, else to `out`.
void emitDiagnostics(const std::vector<Diagnostic>& diags, const SourceText* source, OutputFormat fmt,
                     std::ostream& out);

// Renders what `sink` holds (emitDiagnostics, no source) and gives the
// exit code of bad input (2): a command refusing its arguments or repro.
int badInput(const DiagnosticSink& sink, OutputFormat fmt, std::ostream& os);

// Exit code for a set of diagnostics from loading (2) or analysis (1): any
// error gives `code_if_errors`; else a not-decided finding gives 5.
int exitCodeFor(const std::vector<Diagnostic>& diags, int code_if_errors);

}  // namespace fc::driver
