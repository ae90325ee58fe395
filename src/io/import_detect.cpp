// Import format names, detection and dispatch (see import_detect.h).
#include "io/import_detect.h"

#include <cctype>
#include <vector>

#include "io/error_report.h"
#include "io/import_cpp_test.h"
#include "io/import_ir.h"
#include "io/import_paste.h"
#include "io/import_python.h"
#include "io/import_segments.h"
#include "io/json_validate.h"
#include "io/python_segment_dump.h"
#include "io/session_prompts.h"

namespace fc {
namespace {

constexpr ImportFormat kFormats[] = {ImportFormat::NvfuserPython, ImportFormat::NvfuserIr,
                                     ImportFormat::NvfuserSegments, ImportFormat::NvfuserCppTest,
                                     ImportFormat::Paste};

bool hasGroupHeading(std::string_view t) {
  for (size_t p = t.find("g{("); p != std::string_view::npos; p = t.find("g{(", p + 1))
    if (p == 0 || t[p - 1] == '\n') return true;
  return false;
}

// Locations of diagnostics about `edited` (a copy of `map`'s text given to an importer that reads
// a SourceText) moved to the user's file.
void remap(std::vector<Diagnostic>& diags, const SourceText& edited, const MappedText& map) {
  std::vector<size_t> starts{0};
  std::string_view t = edited.text();
  for (size_t i = 0; i < t.size(); ++i)
    if (t[i] == '\n') starts.push_back(i + 1);
  auto fix = [&](Location& l) {
    if (l.file != edited.path() || l.line <= 0 || static_cast<size_t>(l.line) > starts.size()) return;
    size_t off = starts[static_cast<size_t>(l.line - 1)] + static_cast<size_t>(std::max(l.col, 1) - 1);
    Location m = map.location(std::min(off, t.size()));
    l.line = m.line;
    l.col = m.col;
  };
  for (Diagnostic& d : diags) {
    fix(d.loc);
    for (Note& n : d.notes) fix(n.loc);
  }
}

}  // namespace

std::string_view importFormatName(ImportFormat f) {
  switch (f) {
    case ImportFormat::NvfuserPython: return "nvfuser-python";
    case ImportFormat::NvfuserIr: return "nvfuser-ir";
    case ImportFormat::NvfuserSegments: return "nvfuser-segments";
    case ImportFormat::NvfuserCppTest: return "nvfuser-cpp-test";
    case ImportFormat::Paste: return "paste";
  }
  return "?";
}

std::optional<ImportFormat> parseImportFormat(std::string_view s) {
  for (ImportFormat f : kFormats)
    if (importFormatName(f) == s) return f;
  return std::nullopt;
}

namespace {

bool hasPythonMarker(std::string_view text) {
  auto has = [&](std::string_view s) { return text.find(s) != std::string_view::npos; };
  if (has("FusionDefinition") || has("fd.define_tensor") || has("fd.ops.") || has(".define_tensor(") ||
      has("import nvfuser") || has("from nvfuser"))
    return true;
  // `fd.execute(` alone is a script's last line, or the line a pasted traceback quotes: only the
  // first is Python (the printed-IR reader says what a bare error report lacks).
  return has("fd.execute(") && !hasPythonTraceback(text);
}

bool hasCppMarker(std::string_view text) {
  auto has = [&](std::string_view s) { return text.find(s) != std::string_view::npos; };
  return has("TEST_F(") || has("TEST_P(") || has("makeSymbolicTensor(") || has("makeContigTensor(") ||
         has("makeConcreteTensor(") || has("makeContigConcreteTensor(") || has("TensorViewBuilder") ||
         has("FusionGuard") || has("->addInput(") || has(".addInput(");
}

// A tensor as nvFuser prints it in any era: `T3_g[`, `T3_l___half[`, `T0_g_float[`.
bool hasPrintedTensor(std::string_view t) {
  for (size_t i = t.find('T'); i != std::string_view::npos && i + 3 < t.size(); i = t.find('T', i + 1)) {
    if (i > 0 && (std::isalnum(static_cast<unsigned char>(t[i - 1])) || t[i - 1] == '_')) continue;
    size_t j = i + 1;
    while (j < t.size() && std::isdigit(static_cast<unsigned char>(t[j]))) ++j;
    if (j == i + 1 || j + 2 >= t.size() || t[j] != '_' ||
        std::string_view("glst").find(t[j + 1]) == std::string_view::npos)
      continue;
    size_t k = j + 2;
    while (k < t.size() && k < j + 24 && (std::isalnum(static_cast<unsigned char>(t[k])) || t[k] == '_')) ++k;
    if (k < t.size() && t[k] == '[') return true;
  }
  return false;
}

}  // namespace

ImportFormat detectImportFormat(std::string_view text) {
  auto has = [&](std::string_view s) { return text.find(s) != std::string_view::npos; };
  if (looksLikePaste(text)) return ImportFormat::Paste;
  if (has("Segmented_Fusion") || has("group details:") || hasGroupHeading(text))
    return ImportFormat::NvfuserSegments;
  if (hasPythonMarker(text)) return ImportFormat::NvfuserPython;
  if (hasCppMarker(text)) return ImportFormat::NvfuserCppTest;
  return ImportFormat::NvfuserIr;
}

std::optional<ImportFormat> recognizeImportFormat(std::string_view text) {
  // A fusecheck repro is a JSON object; its strings may quote any of the markers.
  size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || text[first] == '{') return std::nullopt;
  ImportFormat f = detectImportFormat(text);
  // Printed IR: a tensor as nvFuser prints it, or the print's own headings (a hand-written print
  // whose tensors lack them is then reported by the IR reader, not as malformed JSON).
  auto has = [&](std::string_view s) { return text.find(s) != std::string_view::npos; };
  // An nvFuser error report: the IR reader says that it holds no fusion and what import needs.
  if (f != ImportFormat::NvfuserIr || hasPrintedTensor(text) || has("%kernel_math") ||
      (has("Inputs:") && has("Outputs:")) || findErrorReport(text))
    return f;
  return std::nullopt;
}

std::optional<ImportFormat> importFormatOfName(std::string_view path) {
  if (path.ends_with(".py")) return ImportFormat::NvfuserPython;
  if (path.ends_with(".cpp") || path.ends_with(".cc") || path.ends_with(".cu"))
    return ImportFormat::NvfuserCppTest;
  return std::nullopt;
}

std::optional<Fusion> importMapped(const MappedText& text, DiagnosticSink& sink,
                                   std::optional<ImportFormat> format, const ImportOptions& opts) {
  switch (format.value_or(detectImportFormat(text.text()))) {
    case ImportFormat::NvfuserPython: {
      // One segment of a python_definition_segments log; a pasted interactive session: its code,
      // without prompts and outputs.
      bool picked = true;
      const MappedText segment = pickPythonSegment(text, opts.dump, sink, picked);
      if (!picked) return std::nullopt;
      const MappedText code = unprompt(segment, sink);
      if (!code.edited()) return importPython(code.source(), sink, opts.map);
      SourceText copy(code.source().path(), std::string(code.text()));
      DiagnosticSink sub;
      auto f = importPython(copy, sub, opts.map);
      remap(sub.all(), copy, code);
      if (opts.map)
        for (auto* v : {&opts.map->tensors, &opts.map->scalars, &opts.map->exprs})
          for (uint32_t& off : *v)
            if (off != SourceMap::kUnknown) off = static_cast<uint32_t>(code.sourceOffset(off));
      sink.append(std::move(sub));
      return f;
    }
    case ImportFormat::NvfuserIr: {
      MappedText repaired = repairPrintedIr(text, sink);
      IrImportOptions o;
      o.dump = opts.dump;
      o.map = opts.map;
      return importIr(repaired, sink, o);
    }
    case ImportFormat::NvfuserSegments: {
      MappedText repaired = repairPrintedIr(text, sink);
      DiagnosticSink sub;
      auto f = importSegments(repaired, sub, opts.map);
      // A dump cut before its groups, after the fusion nvFuser prints before segmenting it
      // ("Segment the fusion (Original Fusion Un-modified):"): that fusion, without segmentation.
      const size_t dump = repaired.text().find("Segmented_Fusion Dump");
      if (!f && dump != std::string_view::npos &&
          repaired.text().find("group details:") == std::string_view::npos &&
          hasPrintedTensor(repaired.text().substr(0, dump))) {
        MappedText::Builder b(repaired);
        b.copy(0, dump);
        MappedText head = std::move(b).build();
        DiagnosticSink ir;
        IrImportOptions o;
        o.map = opts.map;
        if (auto g = importIr(head, ir, o)) {
          sink.report(Severity::Warning, DiagCode::ImportSyntax,
                      "the segmented-fusion dump ends before its groups (a cut paste?): the fusion printed "
                      "before it is imported, without the segmentation",
                      repaired.location(dump));
          sink.append(std::move(ir));
          return g;
        }
      }
      sink.append(std::move(sub));
      return f;
    }
    case ImportFormat::NvfuserCppTest: return importCppTest(text, sink, opts.map);
    case ImportFormat::Paste: return importPaste(text, sink, opts);
  }
  return std::nullopt;
}

std::optional<Fusion> importFusion(const SourceText& source, DiagnosticSink& sink,
                                   std::optional<ImportFormat> format, const ImportOptions& opts) {
  // nvFuser prints UTF-8 (and Python reads UTF-8 sources); anything else,
  // a UTF-16 byte-order mark included, is refused where it starts.
  if (auto bad = findInvalidUtf8(source.text())) {
    LineCol lc = source.lineCol(*bad);
    sink.error(DiagCode::InvalidUtf8, "the text is not valid UTF-8 (byte " + std::to_string(*bad) + ")",
               Location{source.path(), "", lc.line, lc.col});
    return std::nullopt;
  }
  MappedText text(source);
  SourceMap map;
  ImportOptions o = opts;
  o.map = &map;
  std::optional<Fusion> f = importMapped(text, sink, format, o);
  if (f) f->source = positionsOf(map, source);
  return f;
}

}  // namespace fc
