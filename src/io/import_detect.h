// The import entry point behind `fusecheck import FILE [--from ...]`: the input formats, their
// names on the command line, detection when --from is not given, and dispatch to the importers
// (import_python.h, import_ir.h, import_segments.h, import_cpp_test.h, import_paste.h).
//
// Detection (linear in the text), first match wins:
//   paste         a markdown code fence, mostly `>`-quoted lines, or a diff (import_paste.h)
//   segments      "Segmented_Fusion", "group details:" or a group heading `g{(`
//   python        "FusionDefinition", "fd.define_tensor", "fd.ops.", ".define_tensor(",
//                 "import nvfuser", "from nvfuser", or "fd.execute(" in a text without a traceback
//   cpp-test      a gtest frame or nvFuser's C++ builders (`TEST_F(`, `makeSymbolicTensor(`,
//                 `TensorViewBuilder`, `FusionGuard`, `->addInput(`)
//   ir            anything else
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "diag/diagnostic.h"
#include "diag/source.h"
#include "io/source_map.h"
#include "io/text_map.h"
#include "ir/fusion.h"

namespace fc {

enum class ImportFormat { NvfuserPython, NvfuserIr, NvfuserSegments, NvfuserCppTest, Paste };

// "nvfuser-python", "nvfuser-ir", "nvfuser-segments", "nvfuser-cpp-test", "paste"
std::string_view importFormatName(ImportFormat f);
std::optional<ImportFormat> parseImportFormat(std::string_view s);
ImportFormat detectImportFormat(std::string_view text);
// For commands that take a repro directly: a format only on positive evidence (the markers above,
// a tensor printed as nvFuser prints it in any era: `T3_g[`, `T3_l___half[`, `T0_g_float[`, or an
// nvFuser error report, error_report.h),
// else nullopt, so that any other text (a fusecheck repro, a broken one) goes to the JSON reader.
std::optional<ImportFormat> recognizeImportFormat(std::string_view text);
// The format a file's name gives when its text has no marker of any: `.py` Python, `.cpp` / `.cc`
// / `.cu` a C++ test; else nullopt.
std::optional<ImportFormat> importFormatOfName(std::string_view path);

struct ImportOptions {
  // Printed IR: which dump of a log (see IrImportOptions::dump).
  std::string dump;
  // Where the importers record the offsets of the tensors, scalars and exprs they build;
  // importFusion sets it and turns it into the fusion's `source` positions.
  SourceMap* map = nullptr;
};

// Imports `source` in `format`, or in the detected format when none is given. The fusion's
// `source` records where `source`'s text defines each node.
std::optional<Fusion> importFusion(const SourceText& source, DiagnosticSink& sink,
                                   std::optional<ImportFormat> format = std::nullopt,
                                   const ImportOptions& opts = {});

// The same for a text derived from the user's file (a paste's code block): diagnostics point into
// the user's file.
std::optional<Fusion> importMapped(const MappedText& text, DiagnosticSink& sink,
                                   std::optional<ImportFormat> format, const ImportOptions& opts = {});

}  // namespace fc
