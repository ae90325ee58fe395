// Import format names, detection and dispatch (see import_detect.h).
#include "io/import_detect.h"

#include "io/import_ir.h"
#include "io/import_python.h"
#include "io/import_segments.h"
#include "io/json_validate.h"

namespace fc {

std::string_view importFormatName(ImportFormat f) {
  switch (f) {
    case ImportFormat::NvfuserPython: return "nvfuser-python";
    case ImportFormat::NvfuserIr: return "nvfuser-ir";
    case ImportFormat::NvfuserSegments: return "nvfuser-segments";
  }
  return "?";
}

std::optional<ImportFormat> parseImportFormat(std::string_view s) {
  for (ImportFormat f : {ImportFormat::NvfuserPython, ImportFormat::NvfuserIr, ImportFormat::NvfuserSegments})
    if (importFormatName(f) == s) return f;
  return std::nullopt;
}

ImportFormat detectImportFormat(std::string_view text) {
  auto has = [&](std::string_view s) { return text.find(s) != std::string_view::npos; };
  if (has("Segmented_Fusion") && has("group details:")) return ImportFormat::NvfuserSegments;
  if (has("FusionDefinition") || has("fd.define_tensor") || has("fd.ops."))
    return ImportFormat::NvfuserPython;
  return ImportFormat::NvfuserIr;
}

std::optional<Fusion> importFusion(const SourceText& source, DiagnosticSink& sink,
                                   std::optional<ImportFormat> format) {
  // nvFuser prints UTF-8 (and Python reads UTF-8 sources); anything else,
  // a UTF-16 byte-order mark included, is refused where it starts.
  if (auto bad = findInvalidUtf8(source.text())) {
    LineCol lc = source.lineCol(*bad);
    sink.error(DiagCode::InvalidUtf8, "the text is not valid UTF-8 (byte " + std::to_string(*bad) + ")",
               Location{source.path(), "", lc.line, lc.col});
    return std::nullopt;
  }
  switch (format.value_or(detectImportFormat(source.text()))) {
    case ImportFormat::NvfuserPython: return importPython(source, sink);
    case ImportFormat::NvfuserIr: return importIr(source, sink);
    case ImportFormat::NvfuserSegments: return importSegments(source, sink);
  }
  return std::nullopt;
}

}  // namespace fc
