// Segmented-fusion dump importer (see import_segments.h).
#include "io/import_segments.h"

#include "io/import_ir.h"

namespace fc {

std::optional<Fusion> importSegments(const MappedText& text, DiagnosticSink& sink, SourceMap* map) {
  IrImportOptions o;
  o.map = map;
  auto f = detail::importPrinted(text, sink, /*segmented=*/true, o);
  if (f) {
    f->provenance.emplace_back("imported_from", "nvfuser-segments");
    if (!f->origin) f->origin = ReproOrigin{"segmented-dump", "", "", "", {}, "", ""};
  }
  return f;
}

std::optional<Fusion> importSegments(const SourceText& source, DiagnosticSink& sink) {
  MappedText text(source);
  return importSegments(text, sink);
}

}  // namespace fc
