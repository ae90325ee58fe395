// runFusion end to end on the seed repro: the era's failure, --fix, eras,
// --against with planted wrong rewrites, the memory bound, and the JSON.
#include "driver/run.h"

#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>

#include "io/reader.h"
#include "profile_util.h"
#include "support/progress.h"
#if FC_HAVE_CUDA
#include "exec/cuda/cuda_status.h"
#endif

namespace fc {
namespace {

std::string seedText() {
  std::ifstream in(std::string(FC_SOURCE_DIR) + "/fixtures/seed/matmul_allreduce_bias.json");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Fusion parse(const std::string& text, const std::string& name = "seed.json") {
  DiagnosticSink sink;
  SourceText src(name, text);
  auto f = readFusion(src, sink);
  EXPECT_TRUE(f.has_value()) << (sink.all().empty() ? "" : sink.all()[0].message);
  return std::move(*f);
}

bool hasCode(const RunResult& r, DiagCode c) {
  for (const Diagnostic& d : r.diagnostics)
    if (d.code == c) return true;
  return false;
}

TEST(Run, SeedFailsWhere2024_06FailsWithTheCheckDiagnostic) {
  Fusion f = parse(seedText());
  RunOptions o;
  o.file = "seed.json";
  RunResult r = runFusion(f, o);
  EXPECT_EQ(r.profile.point.spec, "2024-06");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_FALSE(r.passed);
  EXPECT_TRUE(hasCode(r, DiagCode::UnboundExtent));
  ASSERT_EQ(r.segments.size(), 3u);
  EXPECT_EQ(r.segments[0].status, "ran");
  EXPECT_EQ(r.segments[1].status, "ran");
  EXPECT_EQ(r.segments[1].comm, CommKind::Allreduce);
  EXPECT_EQ(r.segments[2].status, "failed");
  EXPECT_TRUE(r.outputs.empty());
}

TEST(Run, SeedWithFixPasses) {
  Fusion f = parse(seedText());
  RunOptions o;
  o.file = "seed.json";
  o.fix = true;
  RunResult r = runFusion(f, o);
  EXPECT_EQ(r.exit_code, 0) << (r.diagnostics.empty() ? "" : r.diagnostics[0].message);
  EXPECT_TRUE(r.passed);
  EXPECT_FALSE(r.fix_actions.empty());
  ASSERT_EQ(r.outputs.size(), 1u);
  const exec::Comparison& c = r.outputs[0];
  EXPECT_EQ(c.name, "T9");
  EXPECT_EQ(c.shape, (exec::Shape{128, 64}));
  EXPECT_TRUE(c.passed());
  EXPECT_GT(c.max_abs, 0.0);  // Half rounding against the fp64 reference
  for (const exec::SegmentRun& s : r.segments) EXPECT_EQ(s.status, "ran");
}

// What a progress line on `fusecheck run` shows: the phases, then each
// segment the executor starts, in order, with the count; the reference's own
// executor steps are not reported as the run's segments.
TEST(Run, ReportsItsPhasesAndEachSegmentToTheProgressLine) {
  Fusion f = parse(seedText());
  RunOptions o;
  o.fix = true;
  std::vector<std::string> steps;
  RunResult r;
  {
    StepListener listen([&](uint64_t done, uint64_t total, std::string_view detail) {
      steps.push_back(std::to_string(done) + "/" + std::to_string(total) + " " + std::string(detail));
    });
    r = runFusion(f, o);
  }
  ASSERT_EQ(r.exit_code, 0);
  ASSERT_EQ(r.segments.size(), 3u);
  std::vector<std::string> want{"0/0 generating the inputs",
                                "0/0 the exact reference on cpu",
                                "0/0 segmentation and concretization",
                                "0/3 segment 0: " + r.segments[0].summary,
                                "1/3 segment 1: Allreduce",
                                "2/3 segment 2: " + r.segments[2].summary,
                                "0/0 comparing the outputs with the reference"};
  EXPECT_EQ(steps, want);
  steps.clear();
  runFusion(f, o);  // no listener any more: nothing is heard
  EXPECT_TRUE(steps.empty());
}

TEST(Run, SeedPassesIn2024_07AndHead) {
  Fusion f = parse(seedText());
  for (const char* e : {"2024-07", "head"}) {
    RunOptions o;
    o.profile = test::eraProfile(f, e);
    RunResult r = runFusion(f, o);
    EXPECT_EQ(r.exit_code, 0) << e << ": " << (r.diagnostics.empty() ? "" : r.diagnostics[0].message);
  }
}

TEST(Run, FaithfulReferenceMatchesExactlyOnTwoRanks) {
  Fusion f = parse(seedText());
  RunOptions o;
  o.fix = true;
  o.reference = ReferenceKind::Faithful;
  RunResult r = runFusion(f, o);
  ASSERT_EQ(r.outputs.size(), 1u);
  EXPECT_EQ(r.outputs[0].max_abs, 0.0);
}

TEST(Run, AgainstItselfWithFixPasses) {
  Fusion f = parse(seedText()), g = parse(seedText());
  RunOptions o;
  o.fix = true;
  o.against = &g;
  o.against_file = "before.json";
  RunResult r = runFusion(f, o);
  EXPECT_EQ(r.exit_code, 0);
}

ExprId exprOf(const Fusion& f, OpKind op) {
  for (ExprId e = 0; e < f.exprs.size(); ++e)
    if (f.exprs[e].op == op) return e;
  ADD_FAILURE() << "no " << opName(op) << " expr";
  return 0;
}

TEST(Run, PlantedWrongRewritesAreCaught) {
  Fusion original = parse(seedText());
  std::vector<std::pair<std::string, std::function<void(Fusion&)>>> mutants = {
      {"swap add for sub", [](Fusion& f) { f.exprs[exprOf(f, OpKind::Add)].op = OpKind::Sub; }},
      {"swap add for maximum", [](Fusion& f) { f.exprs[exprOf(f, OpKind::Add)].op = OpKind::Maximum; }},
      {"round the matmul boundary to bfloat16",
       [](Fusion& f) { f.tensors[*f.findTensor("T4")].dtype = DType::BFloat16; }},
      {"round the allreduce result to fp8",
       [](Fusion& f) { f.tensors[*f.findTensor("T5")].dtype = DType::Float8_e4m3fn; }},
      {"reduce the wrong axis", [](Fusion& f) { f.exprs[exprOf(f, OpKind::Sum)].attrs.dims = {1}; }},
      {"drop the permute",
       [](Fusion& f) {
         f.exprs[exprOf(f, OpKind::Permute)].attrs.dims = {0, 1, 2};
       }},
      {"broadcast on the wrong side",
       [](Fusion& f) {
         Expr& e = f.exprs[exprOf(f, OpKind::Broadcast)];
         e.attrs.flags = {false, true};
       }},
  };
  for (auto& [name, plant] : mutants) {
    Fusion mf = parse(seedText(), "mutant.json");
    plant(mf);
    RunOptions o;
    o.fix = true;
    o.against = &original;
    RunResult r = runFusion(mf, o);
    EXPECT_NE(r.exit_code, 0) << name << " was not caught";
    EXPECT_FALSE(r.passed) << name;
  }
}

TEST(Run, MaxBytesIsRefusedBeforeAllocating) {
  Fusion f = parse(seedText());
  RunOptions o;
  o.fix = true;
  o.max_bytes = 4096;
  RunResult r = runFusion(f, o);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_TRUE(hasCode(r, DiagCode::OutOfMemory));
  EXPECT_LE(r.peak_bytes, 4096u);
}

TEST(Run, CudaWithoutBackendIsAnEnvironmentError) {
  Fusion f = parse(seedText());
  RunOptions o;
  o.device = RunDevice::Cuda;
  RunResult r = runFusion(f, o);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_TRUE(hasCode(r, DiagCode::NoDevice));
}

TEST(Run, ReferenceDeviceDefaultsToTheHostForCpuRuns) {
  Fusion f = parse(seedText());
  RunOptions o;
  o.fix = true;
  RunResult r = runFusion(f, o);
  EXPECT_EQ(r.reference_device, RunDevice::Cpu);
  EXPECT_EQ(nlohmann::json::parse(renderRunJson(r))["run"]["reference_device"], "cpu");
}

TEST(Run, FaithfulReferenceOnTheGpuIsAUsageError) {
  Fusion f = parse(seedText());
  RunOptions o;
  o.fix = true;
  o.reference = ReferenceKind::Faithful;
  o.reference_device = RunDevice::Cuda;
  RunResult r = runFusion(f, o);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(hasCode(r, DiagCode::Usage));
  EXPECT_TRUE(r.outputs.empty());
}

TEST(Run, GpuReferenceWithoutADeviceIsAnEnvironmentError) {
#if FC_HAVE_CUDA
  if (exec::cuda::deviceAvailable()) GTEST_SKIP() << "SKIPPED: this machine has a CUDA device";
#endif
  Fusion f = parse(seedText());
  RunOptions o;
  o.fix = true;
  o.reference_device = RunDevice::Cuda;  // a CPU run checked against the GPU's exact reference
  RunResult r = runFusion(f, o);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_TRUE(hasCode(r, DiagCode::NoDevice));
  EXPECT_TRUE(r.outputs.empty());
}

TEST(Run, SeedChangesTheData) {
  Fusion f = parse(seedText());
  RunOptions a, b;
  a.fix = b.fix = true;
  a.reference = b.reference = ReferenceKind::Faithful;
  b.seed = 1;
  RunResult ra = runFusion(f, a), rb = runFusion(f, b);
  ASSERT_EQ(ra.outputs.size(), 1u);
  ASSERT_EQ(rb.outputs.size(), 1u);
  EXPECT_NE(ra.outputs[0].scale, rb.outputs[0].scale);
  EXPECT_EQ(rb.seed, 1u);
}

TEST(Run, JsonRendering) {
  Fusion f = parse(seedText());
  RunOptions o;
  o.file = "seed.json";
  RunResult failed = runFusion(f, o);
  auto j = nlohmann::json::parse(renderRunJson(failed));
  EXPECT_EQ(j["run"]["exit_code"], 1);
  EXPECT_EQ(j["run"]["segments"][2]["status"], "failed");
  EXPECT_EQ(j["run"]["diagnostics"][0]["code"], "FC0301");
  o.fix = true;
  auto k = nlohmann::json::parse(renderRunJson(runFusion(f, o)));
  EXPECT_EQ(k["run"]["passed"], true);
  EXPECT_EQ(k["run"]["outputs"][0]["name"], "T9");
  EXPECT_EQ(k["run"]["outputs"][0]["tolerance"]["path_dtype"], "Half");
  EXPECT_EQ(k["run"]["outputs"][0]["torch_defaults"]["rtol"], 1.3e-6);
  std::ostringstream os;
  renderRunText(runFusion(f, o), os);
  EXPECT_NE(os.str().find("output T9 Float [128, 64]: ok"), std::string::npos) << os.str();
}

}  // namespace
}  // namespace fc
