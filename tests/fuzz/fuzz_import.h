// The body shared by the three importer harnesses (fuzz_import_*.cpp): the
// `fusecheck import` path (import -> rebuild uses -> verify -> write) with
// the writer round trip checked on every graph that verifies.
#pragma once

#include "fuzz_common.h"
#include "io/import_detect.h"

namespace fc::fuzz {

inline int importOne(const char* harness, ImportFormat format, const uint8_t* data, size_t size) {
  return guarded(harness, [&] {
    DiagnosticSink sink;
    SourceText src("fuzz-import.txt", text(data, size));
    std::optional<Fusion> f = importFusion(src, sink, format);
    requireErrorOnFailure("importFusion", f.has_value(), sink);
    if (!f) return;
    f->rebuildUses();
    if (!verifyFusion(*f, sink, src.path())) return;
    requireRoundTrip(*f);
  });
}

}  // namespace fc::fuzz
