// Harness: the whole `fusecheck check --matrix` path on graphs that load:
// read -> verify -> the era-faithful pipeline (segment, segment inputs, bind,
// concretize, apply) for every era, as the CLI runs it (concrete binding
// from the repro's inputs, the repro's own era first), then nvFuser-style
// printing in both styles and the writer round trip.
#include "analysis/pipeline.h"
#include "fuzz_common.h"
#include "ir/printer.h"

FC_FUZZ_TARGET(check) {
  return fc::fuzz::guarded("check", [&] {
    fc::DiagnosticSink sink;
    fc::SourceText src("fuzz.json", fc::fuzz::text(data, size));
    std::optional<fc::Fusion> f = fc::readFusion(src, sink);
    if (!f) return;
    if (!fc::verifyFusion(*f, sink, src.path())) return;
    f->rebuildUses();
    for (fc::Era era : fc::kAllEras) {
      fc::PipelineOptions opts;
      opts.file = src.path();
      opts.era = era;
      opts.trace = era == fc::Era::Head;  // also print every pass's state once (--trace)
      fc::PipelineResult r = fc::runPipeline(*f, opts);
      (void)r;
    }
    (void)fc::printFusionMath(*f, fc::PrintStyle::Y2024);
    (void)fc::printFusionMath(*f, fc::PrintStyle::Head);
    fc::fuzz::requireRoundTrip(*f);
  });
}
