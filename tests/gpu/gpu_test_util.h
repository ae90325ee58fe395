// Helpers shared by the GPU tests (tests/gpu/*.cpp, label gpu): skipping
// loudly without a device, building small repros, running them through
// runFusion and explaining a result.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "driver/run.h"
#include "io/reader.h"
#if FC_HAVE_CUDA
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

}  // namespace fc::gputest
