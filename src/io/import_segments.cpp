// Segmented-fusion dump importer (see import_segments.h).
#include "io/import_segments.h"

#include "io/import_ir.h"

namespace fc {

std::optional<Fusion> importSegments(const SourceText& source, DiagnosticSink& sink) {
  auto f = detail::importPrinted(source, sink, /*segmented_dump=*/true);
  if (f) f->provenance.emplace_back("imported_from", "nvfuser-segments");
  return f;
}

}  // namespace fc
