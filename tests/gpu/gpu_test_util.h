// Helpers shared by the GPU tests (tests/gpu/*.cpp, label gpu): skipping
// loudly without a device, reading fixtures found at run time
// (source_tree.h), building small repros, running them through runFusion
// and explaining a result.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "driver/run.h"
#include "exec/inputs.h"
#include "io/reader.h"
#include "pipeline/pipeline.h"
#include "rewrite/fixes.h"
#include "source_tree.h"
#if FC_HAVE_CUDA
#include <memory>

#include "exec/cuda/cuda_executor.h"
#include "exec/cuda/cuda_status.h"
#endif

namespace fc::gputest {

#if FC_HAVE_CUDA
#define REQUIRE_GPU()                                                             \
  do {                                                                            \
    std::string why_;                                                             \
    if (!exec::cuda::deviceAvailable(&why_))                                      \
      GTEST_SKIP() << "SKIPPED: no CUDA device on this machine (" << why_ << ")"; \
  } while (0)
#else
#define REQUIRE_GPU() GTEST_SKIP() << "SKIPPED: this fusecheck is built without CUDA (FC_WITH_CUDA=OFF)"
#endif

inline Fusion parse(const std::string& text, const std::string& name = "gpu.json") {
  DiagnosticSink sink;
  SourceText src(name, text);
  auto f = readFusion(src, sink);
  EXPECT_TRUE(f.has_value()) << (sink.all().empty() ? "" : sink.all()[0].message) << "\n" << text;
  return f ? std::move(*f) : Fusion{};
}

// The fusion of fixtures/<rel>, or nullopt after a test failure that says
// why (MISSING / EMPTY file, or the reader's first diagnostic). Callers
// ASSERT on the result, so a lookup that fails ends the test there.
inline std::optional<Fusion> loadFixture(const std::string& rel) {
  std::string why;
  std::optional<std::string> text = test::readFixture(rel, &why);
  if (!text) {
    ADD_FAILURE() << why;
    return std::nullopt;
  }
  DiagnosticSink sink;
  SourceText src(rel, *text);
  auto f = readFusion(src, sink);
  if (!f)
    ADD_FAILURE() << "fixture " << rel
                  << " does not read: " << (sink.all().empty() ? "" : sink.all()[0].message);
  return f;
}

// A repro without meshes: tensors as (name, dtype, constant extents; 1 a
// Broadcast axis, -n a Reduction axis of extent n), exprs as raw JSON.
struct T {
  std::string name, dtype;
  std::vector<int64_t> dims;
  bool global = false;
};
inline std::string repro(const std::vector<T>& ts, const std::vector<std::string>& exprs,
                         const std::vector<std::string>& inputs, const std::vector<std::string>& outputs) {
  std::string s = "{\"format\": \"fusecheck.fusion/1\", \"name\": \"gpu\", \"era\": \"head\", \"tensors\": [";
  int id = 0;
  for (size_t i = 0; i < ts.size(); ++i) {
    s += (i ? ", " : "") + std::string("{\"name\": \"") + ts[i].name + "\", \"dtype\": \"" + ts[i].dtype +
         "\"" + (ts[i].global ? ", \"memory\": \"global\"" : "") + ", \"logical\": [";
    for (size_t d = 0; d < ts[i].dims.size(); ++d)
      s += (d ? ", " : "") + std::string("{\"id\": ") + std::to_string(id++) +
           ", \"extent\": " + std::to_string(std::abs(ts[i].dims[d])) +
           (ts[i].dims[d] == 1  ? ", \"iter\": \"Broadcast\""
            : ts[i].dims[d] < 0 ? ", \"iter\": \"Reduction\""
                                : "") +
           "}";
    s += "]}";
  }
  s += "], \"exprs\": [";
  for (size_t i = 0; i < exprs.size(); ++i) s += (i ? ", " : "") + exprs[i];
  auto list = [](const std::vector<std::string>& v) {
    std::string r = "[";
    for (size_t i = 0; i < v.size(); ++i) r += (i ? ", \"" : "\"") + v[i] + "\"";
    return r + "]";
  };
  s += "], \"inputs\": " + list(inputs) + ", \"outputs\": " + list(outputs) + ", \"seed\": 7}";
  return s;
}

inline RunResult runOn(const Fusion& f, RunDevice d, bool fix = false, const Fusion* against = nullptr) {
  RunOptions o;
  o.device = d;
  o.fix = fix;
  o.against = against;
  o.file = "gpu.json";
  return runFusion(f, o);
}

inline std::string explain(const RunResult& r) {
  std::string s = "exit " + std::to_string(r.exit_code);
  for (const Diagnostic& d : r.diagnostics) {
    s += "\n  " + std::string(diagCodeInfo(d.code).id) + " " + d.message;
    for (const auto& n : d.notes) s += "\n    " + n.message;
  }
  for (const auto& seg : r.segments)
    s += "\n  segment " + std::to_string(seg.id) + " " + seg.status + ": " + seg.summary;
  return s;
}

// Runs the repro on the GPU and expects it to match the exact reference.
inline void expectGpuPasses(const std::string& json, const std::string& what) {
  Fusion f = parse(json);
  RunResult r = runOn(f, RunDevice::Cuda);
  EXPECT_TRUE(r.passed) << what << ": " << explain(r);
  EXPECT_EQ(r.device, RunDevice::Cuda);
}

#if FC_HAVE_CUDA
// The seed repaired as --fix repairs it, at M = N = K = m in half on its
// two simulated ranks (each rank a [m, m/2] x [m/2, m] GEMM, as gpu_bench
// runs it), with generated inputs uploaded: a CudaProgram to run and time.
struct SeedOnGpu {
  Fusion fixed;
  PipelineResult pr;
  std::unique_ptr<exec::World> world;
  std::unique_ptr<exec::ScalarValues> sv;
  std::unique_ptr<exec::cuda::CudaProgram> prog;
};

// Null after a test failure that says why.
inline std::unique_ptr<SeedOnGpu> seedOnGpu(int64_t m) {
  std::string why;
  std::optional<std::string> text = test::readFixture("seed/matmul_allreduce_bias.json", &why);
  if (!text) {
    ADD_FAILURE() << why;
    return nullptr;
  }
  auto replace = [&](const std::string& from, const std::string& to) {
    size_t p = text->find(from);
    if (p == std::string::npos) {
      ADD_FAILURE() << "the seed fixture has no " << from;
      return false;
    }
    text->replace(p, from.size(), to);
    return true;
  };
  std::string k = std::to_string(m / 2), n = std::to_string(m);
  if (!replace("\"shape\": [1, 64, 128]", "\"shape\": [1, " + k + ", " + n + "]") ||
      !replace("\"shape\": [1, 64, 64]", "\"shape\": [1, " + k + ", " + n + "]") ||
      !replace("\"shape\": [64]", "\"shape\": [" + n + "]"))
    return nullptr;
  Fusion f = parse(*text, "seed.json");
  PipelineOptions po;
  po.profile = defaultProfile(f);  // the seed's own point and path
  PipelineResult before = runPipeline(f, po);
  FixResult fr = applyFixes(f, before, FixKind::Auto, "seed.json");
  auto s = std::make_unique<SeedOnGpu>();
  s->fixed = fr.changed ? std::move(fr.fixed) : std::move(f);
  s->pr = runPipeline(s->fixed, po);
  if (s->pr.failed()) {
    ADD_FAILURE() << "the repaired seed still fails at its own point";
    return nullptr;
  }
  s->world = std::make_unique<exec::World>(s->fixed);
  s->sv = std::make_unique<exec::ScalarValues>(s->fixed);
  exec::RunInputs in = exec::generateInputs(s->fixed, *s->world, *s->sv, 0, 8, nullptr);
  s->prog = std::make_unique<exec::cuda::CudaProgram>(s->pr.segmented, *s->world, *s->sv, nullptr);
  s->prog->uploadInputs(in);
  return s;
}
#endif

}  // namespace fc::gputest
