// The drawing and the report tell the verdict: every diagnostic with a
// place in the graph is drawn there (FC0302 on the tensor and axis its
// pointer names, FC0303 on the reshape), the title carries the verdict
// ("clean" only for a clean run), and report steps are diffed only against
// a step of the same pass (like states: bindings with bindings).
#include <gtest/gtest.h>

#include "profile_util.h"
#include "viz/graph_model.h"
#include "viz/report.h"
#include "viz_test_util.h"

namespace fc::viz {
namespace {

struct Case {
  const char* fixture;
  const char* point;  // --nvfuser
  const char* verdict;
};

class Verdict : public ::testing::TestWithParam<Case> {};

TEST_P(Verdict, EveryDiagnosticIsDrawnAndTheTitleSaysTheVerdict) {
  const Case& c = GetParam();
  auto r = viztest::loadText(c.fixture, viztest::slurp(viztest::sourcePath(c.fixture)));
  ASSERT_TRUE(r);
  PipelineOptions o;
  o.file = c.fixture;
  o.profile = test::eraProfile(r->fusion, c.point);
  r->result = runPipeline(r->fusion, o);
  VizGraph g = buildGraph(r->fusion, r->result, {});
  EXPECT_EQ(g.verdict, c.verdict);
  EXPECT_NE(g.title.find(c.verdict), std::string::npos) << g.title;
  EXPECT_EQ(g.diagnostics_drawn, g.diagnostics);
  // Each located diagnostic's code appears on some node, drawn in red.
  for (const Diagnostic& d : r->result.diagnostics) {
    if (d.severity != Severity::Error) continue;
    bool drawn = false;
    for (const VizNode& n : g.nodes)
      for (const std::string& code : n.codes) drawn |= code == diagCodeInfo(d.code).id && n.unbound;
    EXPECT_TRUE(drawn || d.code == DiagCode::UnboundExtent) << d.message;
  }
  if (std::string(c.verdict) == "clean") EXPECT_EQ(g.title.find("FAIL"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, Verdict,
    ::testing::Values(Case{"fixtures/seed/matmul_allreduce_bias.json", "2024-06", "FAIL: 1 error (FC0301)"},
                      Case{"fixtures/seed/matmul_allreduce_bias.json", "2024-07", "clean"},
                      Case{"fixtures/nvfuser/transpose_reduction_outer.json", "2024-06-24",
                           "FAIL: 1 error (FC0302)"},
                      Case{"fixtures/analysis/reshape_unevaluable.json", "head", "FAIL: 1 error (FC0303)"}));

TEST(Verdict, EdgeHazardMarksTheReductionAxisItNames) {
  auto r = viztest::loadFixture("fixtures/nvfuser/transpose_reduction_outer.json");
  ASSERT_TRUE(r);
  PipelineOptions o;
  o.profile = test::eraProfile(r->fusion, "2024-06-24");
  r->result = runPipeline(r->fusion, o);
  VizGraph g = buildGraph(r->fusion, r->result, {});
  size_t red_axes = 0;
  for (const VizNode& n : g.nodes)
    if (n.name == "T1") {
      EXPECT_NE(n.label.find("<font color=\"red\">rS"), std::string::npos) << n.label;
      EXPECT_NE(n.tooltip.find("error[FC0302]"), std::string::npos) << n.tooltip;
      red_axes += n.red_axes;
    }
  EXPECT_EQ(red_axes, 1u);
}

TEST(Verdict, ReportStepsCompareLikeStates) {
  auto r = viztest::loadFixture(viztest::kSeed);
  ASSERT_TRUE(r);
  PipelineOptions o;
  o.file = viztest::kSeed;
  o.profile = defaultProfile(r->fusion);  // the repro's own point, 2024-06
  ReportOptions ro;
  ro.render_graphs = false;
  ReportModel m = buildReport(r->fusion, r->source, o, ro);
  EXPECT_EQ(m.verdict, "FAIL: 1 error (FC0301)");
  size_t compared = 0;
  for (const ReportStep& s : m.steps) {
    if (!s.previous) continue;
    ASSERT_LE(*s.previous, m.steps.size());
    EXPECT_EQ(m.steps[*s.previous - 1].pass, s.pass)
        << "step " << s.index << " (" << s.pass << ", " << s.scope << ") is compared with a "
        << m.steps[*s.previous - 1].pass << " step";
    ++compared;
  }
  EXPECT_GT(compared, 0u);
  std::string html = renderHtml(m);
  EXPECT_NE(html.find("<title>fusecheck report: matmul_allreduce_bias — FAIL: 1 error (FC0301)</title>"),
            std::string::npos);
  EXPECT_EQ(html.find('`'), std::string::npos) << "no literal backticks";
  EXPECT_NE(html.find("<code>fusecheck fix</code> records"), std::string::npos);
  EXPECT_EQ(html.find("white-space:pre;"), std::string::npos) << "long lines wrap";
}

}  // namespace
}  // namespace fc::viz
