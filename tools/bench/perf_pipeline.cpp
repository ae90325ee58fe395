// fc_perf_pipeline: Google Benchmark of fusecheck's analysis per phase.
// For each case -- the two public worst cases of nvFuser's segmenter (#3510,
// PR #1440) and synthetic transformer
// repros of 10k / 100k (/ 1M with FC_PERF_BIG=1) exprs from fusecheck-synth's
// generators -- it times, on the same repro text in the same run:
//   parse_nlohmann  nlohmann::json::parse (DOM), a baseline
//   parse_simdjson  simdjson DOM parse, the practical limit
//   load            readFusion: text -> IR (simdjson On-Demand)
//   verify          verifyFusion
//   segment         segmentFusion
//   bind            bindView of the whole fusion (concrete inputs)
//   concretize      analyzeConcretization of the whole fusion
//   diagnose        runPipeline (everything the check command runs after verify)
//   fix             applyFixes(strip-reduction-axes) on the pipeline's result
//   dot             buildGraph + writeDot (viz module)
//   end_to_end      load + verify + runPipeline
// Counters: bytes_per_second of repro text, exprs, and peak_rss_MiB: the peak
// resident set of the process during the phase (VmHWM after resetting it
// through /proc/self/clear_refs; includes the data the case already holds).
// Complexity: each phase is what it measures; setup is O(case size).
#include <benchmark/benchmark.h>
#include <simdjson.h>

#include <cstdlib>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/binding.h"
#include "io/reader.h"
#include "io/writer.h"
#include "ir/verifier.h"
#include "passes/concretize.h"
#include "passes/segment.h"
#include "pipeline/pipeline.h"
#include "rewrite/fixes.h"
#include "synth.h"
#if __has_include("viz/dot_writer.h")  // the viz module may not be there yet
#include "viz/dot_writer.h"
#include "viz/graph_model.h"
#define FC_PERF_HAVE_VIZ 1
#endif

namespace {

using namespace fc;

void resetPeakRss() {
  std::ofstream c("/proc/self/clear_refs");
  c << "5";
}

double peakRssMiB() {
  std::ifstream s("/proc/self/status");
  std::string line;
  while (std::getline(s, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
  return 0;
}

struct Case {
  std::string name;
  std::string text;
  std::unique_ptr<Fusion> fusion;
  PipelineOptions opts;
  std::unique_ptr<PipelineResult> result;
};

std::vector<std::unique_ptr<Case>>& cases() {
  static std::vector<std::unique_ptr<Case>> c;
  return c;
}

Fusion load(const Case& c) {
  DiagnosticSink sink;
  SourceText src(c.name, c.text);
  auto f = readFusion(src, sink);
  if (!f) {
    std::fprintf(stderr, "fc_perf_pipeline: %s does not load\n", c.name.c_str());
    std::exit(2);
  }
  return std::move(*f);
}

void addCase(std::string name, const Fusion& generated) {
  auto c = std::make_unique<Case>();
  c->name = std::move(name);
  c->text = writeFusion(generated);
  c->fusion = std::make_unique<Fusion>(load(*c));
  c->opts.profile = defaultProfile(*c->fusion);
  c->opts.file = c->name;
  c->result = std::make_unique<PipelineResult>(runPipeline(*c->fusion, c->opts));
  cases().push_back(std::move(c));
}

BindRequest wholeRequest(const Fusion& f, const PipelineOptions& opts) {
  BindRequest req;
  req.did = opts.profile.did_rule;
  std::vector<const ConcreteInput*> by_tensor(f.tensors.size(), nullptr);
  for (const auto& ci : f.concrete_inputs)
    if (ci.value.isTensor()) by_tensor[ci.value.id] = &ci;
  for (const ValueRef& in : f.inputs) {
    if (!in.isTensor()) {
      req.scalars.push_back({in.id, std::nullopt});
      continue;
    }
    BoundInput b;
    b.tensor = in.id;
    b.domain = f.tensors[in.id].logical;
    if (by_tensor[in.id] && !by_tensor[in.id]->shape.empty()) b.sizes = by_tensor[in.id]->shape;
    req.tensors.push_back(std::move(b));
  }
  for (ExprId e = 0; e < f.exprs.size(); ++e) req.exprs.push_back(e);
  return req;
}

template <class Fn>
void phase(benchmark::State& st, const Case& c, Fn fn) {
  double peak = 0;
  for (auto _ : st) {
    resetPeakRss();
    fn();
    peak = std::max(peak, peakRssMiB());
  }
  st.SetBytesProcessed(static_cast<int64_t>(st.iterations()) * static_cast<int64_t>(c.text.size()));
  st.counters["exprs"] = static_cast<double>(c.fusion->exprs.size());
  st.counters["peak_rss_MiB"] = peak;
  st.counters["MB"] = static_cast<double>(c.text.size()) / 1e6;
}

void registerCase(const Case* c) {
  auto reg = [&](const char* ph, auto fn) {
    benchmark::RegisterBenchmark((c->name + "/" + ph).c_str(),
                                 [c, fn](benchmark::State& st) { phase(st, *c, [&] { fn(*c); }); })
        ->Unit(benchmark::kMillisecond)
        ->MinTime(c->fusion->exprs.size() > 200000 ? 0.01 : 0.2);
  };
  reg("parse_nlohmann", [](const Case& c) { benchmark::DoNotOptimize(nlohmann::json::parse(c.text)); });
  reg("parse_simdjson", [](const Case& c) {
    simdjson::dom::parser p;
    simdjson::dom::element doc;
    auto err = p.parse(c.text).get(doc);
    benchmark::DoNotOptimize(err);
  });
  reg("load", [](const Case& c) { benchmark::DoNotOptimize(load(c)); });
  reg("verify", [](const Case& c) {
    DiagnosticSink sink;
    benchmark::DoNotOptimize(verifyFusion(*c.fusion, sink, c.name));
  });
  reg("segment", [](const Case& c) {
    DiagnosticSink sink;
    SegmentOptions so;
    so.lowering = c.opts.profile.lowering;
    so.mesh = c.opts.profile.mesh_segmenter;
    so.file = c.name;
    benchmark::DoNotOptimize(segmentFusion(*c.fusion, so, sink));
  });
  reg("bind", [](const Case& c) {
    DiagnosticSink sink;
    ScalarEval ev(*c.fusion);
    bindView(*c.fusion, wholeRequest(*c.fusion, c.opts), ev, sink);
  });
  reg("concretize", [](const Case& c) {
    DiagnosticSink sink;
    ScalarEval ev(*c.fusion);
    bindView(*c.fusion, wholeRequest(*c.fusion, c.opts), ev, sink);
    ViewSpec v;
    v.exprs = topoOrder(*c.fusion);
    for (const ValueRef& in : c.fusion->inputs)
      if (in.isTensor()) v.inputs.push_back({in.id, c.fusion->tensors[in.id].logical, std::nullopt, false});
    benchmark::DoNotOptimize(analyzeConcretization(*c.fusion, v, ev, c.opts.profile.did_rule, sink, c.name));
  });
  reg("diagnose", [](const Case& c) { benchmark::DoNotOptimize(runPipeline(*c.fusion, c.opts)); });
  reg("fix", [](const Case& c) {
    benchmark::DoNotOptimize(applyFixes(*c.fusion, *c.result, FixKind::StripReductionAxes, c.name));
  });
#ifdef FC_PERF_HAVE_VIZ
  reg("dot", [](const Case& c) {
    viz::GraphOptions go;
    benchmark::DoNotOptimize(viz::writeDot(viz::buildGraph(*c.fusion, *c.result, go)));
  });
#endif
  reg("end_to_end", [](const Case& c) {
    Fusion f = load(c);
    DiagnosticSink sink;
    verifyFusion(f, sink, c.name);
    benchmark::DoNotOptimize(runPipeline(f, c.opts));
  });
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  addCase("issue3510_linear_relu_30", synth::linearRelu(30));
  addCase("issue1440_adds_100", synth::chainedAdds(100));
  const char* big = std::getenv("FC_PERF_BIG");
  std::vector<uint64_t> sizes{10000, 100000};
  if (big && std::string(big) == "1") sizes.push_back(1000000);
  for (uint64_t n : sizes) {
    addCase("transformer_" + std::to_string(n), synth::transformer({n, 1, false}));
    addCase("tp_transformer_" + std::to_string(n), synth::transformer({n, 1, true}));
  }
  for (const auto& c : cases()) registerCase(c.get());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
