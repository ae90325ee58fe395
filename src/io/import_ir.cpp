// Printed-IR import: dump selection, the reader, provenance (see import_ir.h).
#include "io/import_ir.h"

#include "io/ir/dumps.h"
#include "io/ir/lexer.h"
#include "io/ir/reader.h"
#include "io/ir/style.h"

namespace fc {

namespace detail {

std::optional<Fusion> importPrinted(const MappedText& text, DiagnosticSink& sink, bool segmented,
                                    const IrImportOptions& opts) {
  using namespace ir_text;
  Lexer lex(text.text());
  std::vector<Dump> dumps = findDumps(lex);
  size_t begin = 0, end = lex.tokens().size() - 1;
  std::string which = opts.dump;
  if (segmented) {
    // From the segmenter's re-written fusion on (the original fusion printed before it differs).
    for (const Dump& d : dumps)
      if (d.label.find("Re-written") != std::string::npos) {
        begin = d.begin;
        break;
      }
  } else if (dumps.size() > 1 && which != "all") {
    std::string why;
    auto k = pickDump(dumps, which, why);
    if (!k) {
      sink.error(DiagCode::Usage, why);
      return std::nullopt;
    }
    const Dump& d = dumps[*k];
    begin = d.begin;
    end = d.end;
    std::string label = d.label.empty() ? "" : " (`" + d.label + "`)";
    sink.report(Severity::Note, DiagCode::ImportNote,
                "the text holds " + std::to_string(dumps.size()) + " dumps; dump " + std::to_string(*k + 1) +
                    label + ", " + std::string(dumpKindName(d.kind)) + ", is imported" +
                    (which.empty() ? " (the first symbolic one)" : "") +
                    "; `import --list` shows them, `--dump N` picks another",
                text.location(lex.tokens()[begin].off));
  } else if (!which.empty() && which != "all") {
    std::string why;
    if (!pickDump(dumps, which, why)) {
      sink.error(DiagCode::Usage, why);
      return std::nullopt;
    }
  }
  ReadOptions ro;
  ro.segmented = segmented;
  Reader reader(text, lex, begin, end, sink, ro);
  auto f = reader.run();
  if (!f) return f;
  if (opts.map) *opts.map = reader.sourceMap();
  PrintEra era = detectPrintEra(lex, begin, end);
  if (!era.style.empty()) {
    f->provenance.emplace_back("nvfuser_print", describePrintEra(era));
    f->origin = ReproOrigin{segmented ? "segmented-dump" : "printed-ir",
                            "",
                            "",
                            describePrintEra(era),
                            {},
                            era.from_commit,
                            era.before_commit};
  }
  return f;
}

}  // namespace detail

std::optional<Fusion> importIr(const MappedText& text, DiagnosticSink& sink, const IrImportOptions& opts) {
  auto f = detail::importPrinted(text, sink, false, opts);
  if (f) {
    f->provenance.emplace_back("imported_from", "nvfuser-ir");
    if (!f->origin) f->origin = ReproOrigin{"printed-ir", "", "", "", {}, "", ""};
  }
  return f;
}

std::optional<Fusion> importIr(const SourceText& source, DiagnosticSink& sink, const IrImportOptions& opts) {
  MappedText text(source);
  return importIr(text, sink, opts);
}

std::vector<IrDumpInfo> listIrDumps(const MappedText& text) {
  using namespace ir_text;
  Lexer lex(text.text());
  std::vector<IrDumpInfo> out;
  int k = 0;
  for (const Dump& d : findDumps(lex)) {
    IrDumpInfo info;
    info.index = ++k;
    const auto& t = lex.tokens();
    info.first_line = text.location(t[d.begin].off).line;
    info.last_line = text.location(t[d.end > d.begin ? d.end - 1 : d.begin].off).line;
    info.label = d.label;
    info.kind = std::string(dumpKindName(d.kind));
    info.tensors = d.tensors;
    PrintEra era = detectPrintEra(lex, d.begin, d.end);
    if (!era.style.empty()) info.era = describePrintEra(era);
    out.push_back(info);
  }
  return out;
}

}  // namespace fc
