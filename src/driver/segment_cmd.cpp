#include <algorithm>
#include <filesystem>
#include <memory>
#include <optional>
#include <ostream>

#include "diag/render.h"
#include "driver/analysis_commands.h"
#include "driver/pipeline_json.h"
#include "io/json_locate.h"
#include "io/writer.h"
#include "ir/extract.h"
#include "ir/printer.h"
#include "passes/segment.h"
#include "support/atomic_file.h"

namespace fc::driver {
namespace {

std::string shapeText(const std::vector<std::optional<int64_t>>& s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i)
    r += (i ? ", " : "") + (s[i] ? std::to_string(*s[i]) : std::string("?"));
  return r + "]";
}

// Devices a segment runs on: the union of its tensors' meshes (all ranks of
// the first mesh when no tensor has one).
std::vector<int64_t> involvedDevices(const Fusion& f, const Segment& s) {
  std::vector<int64_t> devs;
  auto add = [&](TensorId t) {
    if (f.tensors[t].mesh == kNone) return;
    for (int64_t d : f.meshes[f.tensors[t].mesh].devices)
      if (std::find(devs.begin(), devs.end(), d) == devs.end()) devs.push_back(d);
  };
  for (const ValueRef& v : s.inputs)
    if (v.isTensor()) add(v.id);
  for (ExprId e : s.exprs)
    for (TensorId t : f.exprs[e].outputs) add(t);
  std::sort(devs.begin(), devs.end());
  return devs;
}

// Load, verify and run the pipeline, traced when `trace` (the per-segment
// trace costs O(fusion) per segment: only commands that print it ask), and
// then only segment `trace_segment` when it is not -1; on bad input the
// diagnostics are emitted and nullptr is returned (the caller exits 2).
// Heap-allocated and never moved: the result's evaluator (`result.whole`)
// refers to `loaded.fusion`. (Returning it by value moved the fusion out
// from under the evaluator: `segment --ranks` read freed memory.)
struct TracedRun {
  Loaded loaded;
  PipelineResult result;
};
std::unique_ptr<TracedRun> loadAndTrace(const std::string& file, const PipelineFlags& flags,
                                        OutputFormat format, uint64_t max_bytes, bool trace,
                                        int trace_segment, std::ostream& out, std::ostream& err) {
  DiagnosticSink sink;
  auto loaded = loadRepro(file, sink, max_bytes);
  if (!loaded) {
    emitDiagnostics(sink.all(), nullptr, format, format == OutputFormat::Text ? err : out);
    return nullptr;
  }
  auto opts = pipelineOptions(flags, loaded->fusion, file, sink);
  if (!opts) {
    emitDiagnostics(sink.all(), nullptr, format, err);
    return nullptr;
  }
  opts->trace = trace;
  opts->trace_segment = trace_segment;
  auto run = std::make_unique<TracedRun>();
  run->loaded = std::move(*loaded);
  run->result = runPipeline(run->loaded.fusion, *opts);
  locateDiagnostics(run->result.diagnostics, run->loaded);
  return run;
}

}  // namespace

int segment(const SegmentArgs& a, std::ostream& out, std::ostream& err) {
  // Only --trace prints a pass's state here; the segments come from the result.
  auto run = loadAndTrace(a.file, a.flags, a.format, a.max_bytes, a.flags.trace, -1, out, err);
  if (!run) return kExitBadInput;
  const Loaded* loaded = &run->loaded;
  PipelineResult& r = run->result;
  const Fusion& f = r.fusion(loaded->fusion);
  if (a.format == OutputFormat::Json) {
    out << pipelineJson(f, r, a.file);
  } else {
    for (const PassTrace& t : r.trace)
      if (t.pass == std::string("segment") && a.flags.trace) out << "== segment ==\n" << t.text;
    for (const std::string& n : r.notes) out << "note: " << n << "\n";
    out << r.profile.label() << ": " << r.segmented.segments.size()
        << (r.segmented.segments.size() == 1 ? " segment" : " segments")
        << (r.segmented.explicit_segmentation ? " (replayed from the repro)" : "")
        << (r.segmented.approximate && !r.segmented.explicit_segmentation
                ? (r.profile.multi_device ? " (approximate: the path's schedulers are not replayed)"
                                          : " (approximate: single-device hard rules only)")
                : "")
        << "\n";
    for (const Segment& s : r.segmented.segments) {
      out << "segment " << s.id << ": " << describeSegment(f, s) << " [" << s.scheduler << "]\n";
      out << "  reason: " << s.reason << "\n";
      for (ExprId e : s.exprs) {
        std::string text = exprToString(f, e, PrintStyle::Y2024);
        size_t pos = 0;
        while ((pos = text.find('\n', pos)) != std::string::npos && pos + 1 < text.size())
          text.replace(pos, 1, "\n    "), pos += 5;
        out << "    " << text << (text.empty() || text.back() != '\n' ? "\n" : "");
      }
      if (a.ranks) {
        for (int64_t d : involvedDevices(f, s)) {
          out << "  rank " << d << ":";
          for (const ValueRef& v : s.inputs)
            if (v.isTensor())
              out << " in " << f.tensorName(v.id)
                  << shapeText(localShape(f, *r.whole, v.id, r.profile.did_rule));
          for (TensorId t : s.outputs)
            out << " out " << f.tensorName(t) << shapeText(localShape(f, *r.whole, t, r.profile.did_rule));
          out << "\n";
        }
      }
    }
    for (const SegmentEdge& e : r.segmented.edges)
      out << "edge " << e.from << " -> " << e.to << ": " << f.tensorName(e.tensor) << "\n";
  }
  if (!a.emit_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(a.emit_dir, ec);
    for (const Segment& s : r.segmented.segments) {
      Fusion g = extractSubfusion(f, s.exprs, s.outputs, r.input_rewrite == InputRewrite::StripReductions);
      g.name = (f.name.empty() ? std::string("fusion") : f.name) + ".segment" + std::to_string(s.id);
      g.provenance.push_back({"segment_of", a.file + " segment " + std::to_string(s.id) + " (" +
                                                describeSegment(f, s) + ", " + r.profile.label() + ")"});
      // Concrete per-rank sizes of the segment's inputs, where known.
      for (const ValueRef& v : g.inputs) {
        if (!v.isTensor()) continue;
        auto src = f.findTensor(g.tensorName(v.id));
        if (!src) continue;
        auto shape = localShape(f, *r.whole, *src, r.profile.did_rule);
        ConcreteInput ci;
        ci.value = v;
        bool ok = true;
        for (auto& x : shape) ok &= x.has_value(), ci.shape.push_back(x.value_or(0));
        if (ok) g.concrete_inputs.push_back(ci);
      }
      std::string path = a.emit_dir + "/segment" + std::to_string(s.id) + ".json";
      std::string why = writeFileAtomic(path, writeFusion(g));
      if (!why.empty()) {
        err << "fusecheck: " << why << "\n";
        return kExitEnvironment;
      }
      if (a.format == OutputFormat::Text) out << "wrote " << path << "\n";
    }
  }
  if (a.format == OutputFormat::Text) renderText(r.diagnostics, &loaded->source, out);
  return exitFor(r);
}

int concretize(const ConcretizeArgs& a, std::ostream& out, std::ostream& err) {
  // --segment N: only that segment's passes are traced (and printed).
  auto run = loadAndTrace(a.file, a.flags, a.format, a.max_bytes, /*trace=*/true, a.segment, out, err);
  if (!run) return kExitBadInput;
  const Loaded* loaded = &run->loaded;
  PipelineResult& r = run->result;
  if (a.format == OutputFormat::Json) {
    out << pipelineJson(r.fusion(loaded->fusion), r, a.file);
    return exitFor(r);
  }
  std::string want = a.segment >= 0 ? "segment " + std::to_string(a.segment) : std::string();
  for (const PassTrace& t : r.trace) {
    if (t.pass != std::string("bind") && t.pass != std::string("concretize") &&
        t.pass != std::string("segment-inputs"))
      if (!a.flags.trace) continue;
    if (!want.empty() && t.scope != want && t.scope != "whole fusion") continue;
    out << "== " << t.pass << " (" << t.scope << ") ==\n" << t.text;
  }
  renderText(r.diagnostics, &loaded->source, out);
  return exitFor(r);
}

}  // namespace fc::driver
