#include "driver/interchange.h"

#include <ostream>

#include "io/export_check.h"
#include "io/export_cpp_test.h"
#include "io/export_python.h"
#include "io/import_detect.h"
#include "io/import_ir.h"
#include "io/import_paste.h"
#include "io/json_locate.h"
#include "io/python_segment_dump.h"
#include "io/reader.h"
#include "io/writer.h"
#include "ir/verifier.h"
#include "support/atomic_file.h"

namespace fc::driver {
namespace {

int writeOut(const std::string& target, const std::string& text, const std::string& input,
             DiagnosticSink& sink, std::ostream& out) {
  if (target.empty() || target == "-") {
    out << text;
    return kExitClean;
  }
  if (sameFile(target, input)) {
    sink.error(DiagCode::Usage, "refusing to overwrite the input " + input + " (write the output elsewhere)");
    return kExitBadInput;
  }
  std::string why = writeFileAtomic(target, text);
  if (!why.empty()) {
    sink.error(DiagCode::WriteFailed, why);
    return kExitEnvironment;
  }
  return kExitClean;
}

// `import --list`: the dumps of a printed-IR log, one line each.
int listDumps(const SourceText& src, std::ostream& out) {
  MappedText text(src);
  // A python_definition_segments log: its segment definitions.
  const std::vector<PythonSegment> segs = findPythonSegments(src.text());
  for (size_t k = 0; k < segs.size(); ++k)
    out << k + 1 << "  lines " << text.location(segs[k].begin).line << "-"
        << text.location(segs[k].end - (segs[k].end > segs[k].begin ? 1 : 0)).line << "  python definition  `"
        << segs[k].label << "`\n";
  if (!segs.empty()) return kExitClean;
  std::vector<IrDumpInfo> dumps = listIrDumps(text);
  for (const IrDumpInfo& d : dumps) {
    out << d.index << "  lines " << d.first_line << "-" << d.last_line << "  " << d.kind << ", " << d.tensors
        << " tensor(s)";
    if (!d.label.empty()) out << "  `" << d.label << "`";
    if (!d.era.empty()) out << "  " << d.era;
    out << "\n";
  }
  return kExitClean;
}

}  // namespace

int importRepro(const ImportArgs& a, std::ostream& out, std::ostream& err) {
  DiagnosticSink sink;
  // Machine-readable diagnostics go to stdout when stdout carries no repro.
  std::ostream& diag_out = a.format == OutputFormat::Text ? err : out;
  std::optional<ImportFormat> fmt;
  if (!a.from.empty()) {
    fmt = parseImportFormat(a.from);
    if (!fmt)
      sink.error(DiagCode::Usage,
                 "--from takes nvfuser-python, nvfuser-ir, nvfuser-segments, nvfuser-cpp-test or paste");
  }
  std::optional<SourceText> src;
  if (!sink.hasErrors()) src = readReproSource(a.file, sink, a.max_bytes);
  if (!src) {
    return badInput(sink, a.format, diag_out);
  }
  if (a.list) return listDumps(*src, out);
  // Without --from: a text with no marker of any form is read as its file's name says (`.py`).
  if (!fmt && !recognizeImportFormat(src->text())) fmt = importFormatOfName(a.file);
  ImportOptions opts;
  opts.dump = a.dump;
  auto f = importFusion(*src, sink, fmt, opts);
  if (f) {
    f->rebuildUses();
    if (!verifyLocated(*f, sink, *src, true)) f.reset();
  }
  if (!f) {
    emitDiagnostics(sink.all(), &*src, a.format, diag_out);
    return kExitBadInput;
  }
  emitDiagnostics(sink.all(), &*src, a.format, err);
  int rc = writeOut(a.output, writeFusion(*f), a.file, sink, out);
  if (rc != kExitClean) emitDiagnostics(sink.all(), nullptr, a.format, err);
  return rc;
}

int exportRepro(const ExportArgs& a, std::ostream& out, std::ostream& err) {
  DiagnosticSink sink;
  auto loaded = loadRepro(a.file, sink, a.max_bytes);
  if (!loaded) {
    return badInput(sink, a.format, a.format == OutputFormat::Text ? err : out);
  }
  std::optional<std::string> text;
  const std::string form =
      a.to == "nvfuser-cpp-test" ? "nvFuser's TensorViewBuilder" : "nvFuser's define_tensor";
  if (!checkExportKeepsInputs(loaded->fusion, a.file, form, sink)) {
    locateDiagnostics(sink.all(), *loaded);
    emitDiagnostics(sink.all(), &loaded->source, a.format, a.format == OutputFormat::Text ? err : out);
    return kExitFindings;
  }
  if (a.to == "nvfuser-python")
    text = exportPython(loaded->fusion, sink);
  else if (a.to == "nvfuser-cpp-test")
    text = exportCppTest(loaded->fusion, sink);
  else
    sink.error(DiagCode::Usage, "--to takes nvfuser-python or nvfuser-cpp-test");
  if (!text) {  // no repro on stdout: machine-readable diagnostics go there
    locateDiagnostics(sink.all(), *loaded);
    emitDiagnostics(sink.all(), &loaded->source, a.format, a.format == OutputFormat::Text ? err : out);
    return sink.hasErrors() && a.to != "nvfuser-python" && a.to != "nvfuser-cpp-test" ? kExitBadInput
                                                                                      : kExitFindings;
  }
  int rc = writeOut(a.output, *text, a.file, sink, out);
  emitDiagnostics(sink.all(), &loaded->source, a.format, err);
  return rc;
}

}  // namespace fc::driver
