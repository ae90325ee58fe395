// The import entry point behind `fusecheck import FILE [--from ...]`: the three input formats,
// their names on the command line, detection when --from is not given, and dispatch to the
// importers (import_python.h, import_ir.h, import_segments.h).
//
// Detection (linear in the text): a segmented-fusion dump has "Segmented_Fusion" and
// "group details:"; a Python repro has "FusionDefinition" or "fd.define_tensor" / "fd.ops.";
// anything else is read as printed IR.
#pragma once

#include <optional>
#include <string_view>

#include "diag/diagnostic.h"
#include "diag/source.h"
#include "ir/fusion.h"

namespace fc {

enum class ImportFormat { NvfuserPython, NvfuserIr, NvfuserSegments };

std::string_view importFormatName(ImportFormat f);  // "nvfuser-python", "nvfuser-ir", "nvfuser-segments"
std::optional<ImportFormat> parseImportFormat(std::string_view s);
ImportFormat detectImportFormat(std::string_view text);

// Imports `source` in `format`, or in the detected format when none is given.
std::optional<Fusion> importFusion(const SourceText& source, DiagnosticSink& sink,
                                   std::optional<ImportFormat> format = std::nullopt);

}  // namespace fc
