// Harness: the JSON repro reader (readFusion) and the verifier. On a graph
// that reads and verifies, the writer round trip must hold. Every input is
// also read and verified with the chunked paths forced (3 threads, no size
// threshold): the result and the diagnostics must be the one-thread ones.
#include "diag/render.h"
#include "fuzz_common.h"
#include "io/place_pointer.h"
#include "io/writer.h"

FC_FUZZ_TARGET(json) {
  return fc::fuzz::guarded("json", [&] {
    fc::DiagnosticSink sink;
    fc::SourceText src("fuzz.json", fc::fuzz::text(data, size));
    fc::ReadOptions one;
    one.threads = 1;
    std::optional<fc::Fusion> f = fc::readFusion(src, sink, one);
    fc::fuzz::requireErrorOnFailure("readFusion", f.has_value(), sink);

    fc::DiagnosticSink chunked_sink;
    fc::SourceText chunked_src("fuzz.json", fc::fuzz::text(data, size));
    fc::ReadOptions chunked;
    chunked.threads = 3;
    chunked.parallel_min_bytes = 0;
    chunked.split_min_block = 16;
    std::optional<fc::Fusion> g = fc::readFusion(chunked_src, chunked_sink, chunked);
    if (f.has_value() != g.has_value() || fc::spelledJson(sink.all()) != fc::spelledJson(chunked_sink.all()))
      fc::fuzz::fail("chunked reading differs from one thread:\n" + fc::spelledJson(sink.all()) + "---\n" +
                     fc::spelledJson(chunked_sink.all()));
    if (f && fc::writeFusion(*f) != fc::writeFusion(*g))
      fc::fuzz::fail("chunked reading built another fusion");
    if (!f) return;

    fc::VerifyOptions many;
    many.threads = 3;
    many.parallel_min_exprs = 0;
    fc::DiagnosticSink chunked_verify;
    bool chunked_ok = fc::verifyFusion(*g, chunked_verify, src.path(), many);
    fc::VerifyOptions single;
    single.threads = 1;
    bool ok = fc::verifyFusion(*f, sink, src.path(), single);
    if (ok != chunked_ok || fc::spelledJson(sink.all()) != fc::spelledJson(chunked_verify.all()))
      fc::fuzz::fail("chunked op checks differ from one thread:\n" + fc::spelledJson(sink.all()) + "---\n" +
                     fc::spelledJson(chunked_verify.all()));
    if (!ok) return;
    f->rebuildUses();
    fc::fuzz::requireRoundTrip(*f);
  });
}
