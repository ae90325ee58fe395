// Importer for nvFuser's printed IR of every era: Fusion::printMath and Fusion::print output
// (`Inputs:` / `Outputs:` lists, `%kernel_math {`, `%kernel {`, the TransformPrinter section),
// the styles of 2023 (`T0_g[ iS0{T0.size[0]} ]`), mid-2024 (`T4_g[ iS11{i3} ] (DeviceMesh{0 1})`),
// late 2024 (`T3_l___half[ iS12{16} ]`) and head (`T0_g_float[iS0{i0}]`, `DeviceMesh{{0 1}{2 3}}`),
// host programs (`%HostIrContainer`), scheduled prints (`ca_pos( 2 )`, `iblockIdx.x27{...}`), bare
// exprs pasted into bug reports, and logs holding several dumps (before and after concretization,
// one per segment): one dump is read, the first symbolic one unless `dump` picks another.
// The reader is in src/io/ir/ (lexer, dumps, tensors, exprs by form, host programs, inference).
//
// Names, axis numbers, extents and meshes are kept as printed; what a print leaves out is inferred
// (io/ir/infer.cpp). Problems are located diagnostics (FC0601 syntax, FC0602 a construct not
// modeled, FC0603 a name that does not resolve); notes (FC0604) say what was skipped, chosen or
// inferred. Every form src/ir/printer.cpp writes reads back: print -> import -> print is the
// identity.
//
// Complexity: linear in the text (scalar expressions and brackets are depth-limited).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "diag/diagnostic.h"
#include "diag/source.h"
#include "io/source_map.h"
#include "io/text_map.h"
#include "ir/fusion.h"

namespace fc {

struct IrImportOptions {
  // Which dump of a log: "" (the first symbolic one), a 1-based number, "first", "last",
  // "before-concretization", "after-concretization" or "all" (every dump into one fusion; a
  // tensor printed again must agree with its first print).
  std::string dump;
  // Filled, when given, with where the fusion's tensors and exprs are in the user's file.
  SourceMap* map = nullptr;
};

std::optional<Fusion> importIr(const SourceText& source, DiagnosticSink& sink,
                               const IrImportOptions& opts = {});
std::optional<Fusion> importIr(const MappedText& text, DiagnosticSink& sink,
                               const IrImportOptions& opts = {});

// The dumps of a printed-IR text, for `import --list`.
struct IrDumpInfo {
  int index = 0;  // 1-based
  int first_line = 0, last_line = 0;
  std::string label;  // the header nvFuser printed, "" when none
  std::string kind;   // "symbolic", "concretized", "host program", "segments"
  size_t tensors = 0;
  std::string era;  // describePrintEra
};
std::vector<IrDumpInfo> listIrDumps(const MappedText& text);

namespace detail {
// The shared reader; `segmented` also reads NVFUSER_DUMP=segmented_fusion group blocks into an
// explicit segmentation (see import_segments.h), from the segmenter's re-written fusion on.
std::optional<Fusion> importPrinted(const MappedText& text, DiagnosticSink& sink, bool segmented,
                                    const IrImportOptions& opts);
}  // namespace detail

}  // namespace fc
