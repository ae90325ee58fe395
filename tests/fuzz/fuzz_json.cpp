// Harness: the JSON repro reader (readFusion) and the verifier. On a graph
// that reads and verifies, the writer round trip must hold.
#include "fuzz_common.h"

FC_FUZZ_TARGET(json) {
  return fc::fuzz::guarded("json", [&] {
    fc::DiagnosticSink sink;
    fc::SourceText src("fuzz.json", fc::fuzz::text(data, size));
    std::optional<fc::Fusion> f = fc::readFusion(src, sink);
    fc::fuzz::requireErrorOnFailure("readFusion", f.has_value(), sink);
    if (!f) return;
    if (!fc::verifyFusion(*f, sink, src.path())) return;
    f->rebuildUses();
    fc::fuzz::requireRoundTrip(*f);
  });
}
