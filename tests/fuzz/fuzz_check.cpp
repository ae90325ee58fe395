// Harness: the whole `fusecheck check --matrix` path on graphs that load:
// read -> verify -> the era-faithful pipeline (segment, segment inputs, bind,
// concretize, apply) for every era, as the CLI runs it (concrete binding
// from the repro's inputs, the repro's own era first), then nvFuser-style
// printing in both styles and the writer round trip. Differential: every
// era without a trace also runs with the pipeline's parallel paths forced
// (3 threads, no size threshold: segmenting beside binding, concretizing
// and binding segments in chunks) and must give the one-thread diagnostics
// and segments.
#include "diag/render.h"
#include "fuzz_common.h"
#include "io/place_pointer.h"
#include "ir/printer.h"
#include "pipeline/pipeline.h"
#include "profile_util.h"

namespace {

std::string segmentsText(const fc::PipelineResult& r) {
  std::string out;
  for (const fc::Segment& s : r.segmented.segments) {
    out += std::to_string(s.id) + " " + s.scheduler + ":";
    for (fc::ExprId e : s.exprs) out += " " + std::to_string(e);
    out += "\n";
  }
  return out + std::to_string(r.unbound.size()) + " unbound\n";
}

}  // namespace

FC_FUZZ_TARGET(check) {
  return fc::fuzz::guarded("check", [&] {
    fc::DiagnosticSink sink;
    fc::SourceText src("fuzz.json", fc::fuzz::text(data, size));
    std::optional<fc::Fusion> f = fc::readFusion(src, sink);
    if (!f) return;
    if (!fc::verifyFusion(*f, sink, src.path())) return;
    f->rebuildUses();
    for (const std::string era : {"2024-06", "2024-07", "head"}) {
      fc::PipelineOptions opts;
      opts.file = src.path();
      opts.profile = fc::test::eraProfile(*f, era);
      opts.trace = era == "head";  // also print every pass's state once (--trace)
      fc::PipelineResult r = fc::runPipeline(*f, opts);
      if (opts.trace) continue;
      fc::PipelineOptions forced = opts;
      forced.threads = 3;
      forced.parallel_min_exprs = 0;
      fc::PipelineResult p = fc::runPipeline(*f, forced);
      if (fc::spelledJson(r.diagnostics) != fc::spelledJson(p.diagnostics) ||
          segmentsText(r) != segmentsText(p))
        fc::fuzz::fail("the parallel pipeline differs from one thread:\n" + fc::spelledJson(r.diagnostics) +
                       segmentsText(r) + "---\n" + fc::spelledJson(p.diagnostics) + segmentsText(p));
    }
    (void)fc::printFusionMath(*f, fc::PrintStyle::Y2024);
    (void)fc::printFusionMath(*f, fc::PrintStyle::Head);
    fc::fuzz::requireRoundTrip(*f);
  });
}
