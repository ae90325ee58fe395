// DOT through libcgraph: golden files (tests/golden/dot/) for the seed
// (full, per stage, focused, after fix) and every valid fixture; the text
// is the same on every build of the graph; and the Graphviz CLI
// (`dot -Tsvg`) renders every one of them with nothing on stderr.
// Regenerate the goldens for review with FC_UPDATE_GOLDEN=1.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "profile_util.h"
#include "viz/dot_writer.h"
#include "viz/graph_model.h"
#include "viz_test_util.h"

namespace fc::viz {
namespace {

namespace fs = std::filesystem;

struct Case {
  std::string golden;   // file name under tests/golden/dot
  std::string fixture;  // repo-relative
  std::string stage;
  std::string focus;
  size_t depth = 2;
  bool fixed = false;
};

std::vector<Case> cases() {
  std::vector<Case> c = {
      {"seed.dot", viztest::kSeed, "", "", 2, false},
      {"seed.stage-segment.dot", viztest::kSeed, "segment", "", 2, false},
      {"seed.stage-bind.dot", viztest::kSeed, "bind", "", 2, false},
      {"seed.focus-T5.dot", viztest::kSeed, "", "T5", 2, false},
      {"seed.fixed.dot", viztest::kSeed, "", "", 2, true},
  };
  std::vector<std::string> valid;
  for (const auto& e : fs::directory_iterator(viztest::sourcePath("fixtures/valid")))
    if (e.path().extension() == ".json" && e.path().string().find(".expect.json") == std::string::npos)
      valid.push_back(e.path().filename().string());
  std::sort(valid.begin(), valid.end());
  for (const std::string& v : valid)
    c.push_back({v.substr(0, v.size() - 5) + ".dot", "fixtures/valid/" + v, "", "", 2, false});
  return c;
}

std::string dotFor(const Case& k) {
  auto r = viztest::loadFixture(k.fixture);
  if (!r) return "";
  std::unique_ptr<viztest::Repro> fx;
  const viztest::Repro* use = r.get();
  if (k.fixed) {
    fx = viztest::fixed(*r);
    if (!fx) return "";
    use = fx.get();
  }
  GraphOptions o;
  o.stage = k.stage;
  o.style = use->result.profile.print_style;
  VizGraph g = buildGraph(use->fusion, use->result, o);
  if (!k.focus.empty()) {
    auto c = findFocusNode(g, use->fusion, k.focus);
    EXPECT_TRUE(c) << k.focus;
    if (c) focusGraph(g, *c, k.depth);
  }
  DotOutput d = writeDot(g);
  EXPECT_TRUE(d.ok) << d.error;
  return d.text;
}

// "line N: want ... / got ..." for the first line that differs.
std::string firstDifference(const std::string& want, const std::string& got) {
  std::istringstream a(want), b(got);
  std::string la, lb;
  for (size_t n = 1;; ++n) {
    bool ha = static_cast<bool>(std::getline(a, la)), hb = static_cast<bool>(std::getline(b, lb));
    if (!ha && !hb) return "identical lines";
    if (ha != hb || la != lb)
      return "line " + std::to_string(n) + ":\n  want: " + (ha ? la : "<end>") +
             "\n  got:  " + (hb ? lb : "<end>");
  }
}

#ifndef FC_HAVE_GRAPHVIZ

TEST(DotGolden, WithoutGraphvizSaysSo) {
  auto r = viztest::loadFixture(viztest::kSeed);
  ASSERT_TRUE(r);
  DotOutput d = writeDot(buildGraph(r->fusion, r->result, {}));
  EXPECT_FALSE(d.ok);
  EXPECT_NE(d.error.find("without Graphviz"), std::string::npos);
  EXPECT_FALSE(graphvizAvailable());
  GTEST_SKIP() << "SKIPPED: fusecheck was built without Graphviz; DOT goldens are not checked";
}

#else

TEST(DotGolden, MatchesGoldenFiles) {
  const bool update = std::getenv("FC_UPDATE_GOLDEN") != nullptr;
  const fs::path dir = viztest::sourcePath("tests/golden/dot");
  for (const Case& k : cases()) {
    SCOPED_TRACE(k.golden);
    std::string text = dotFor(k);
    ASSERT_FALSE(text.empty());
    fs::path p = dir / k.golden;
    if (update) {
      fs::create_directories(dir);
      std::ofstream(p, std::ios::binary) << text;
      continue;
    }
    ASSERT_TRUE(fs::exists(p)) << p << " is missing; regenerate with FC_UPDATE_GOLDEN=1 and review";
    std::string want = viztest::slurp(p.string());
    EXPECT_TRUE(text == want) << firstDifference(want, text)
                              << "\nregenerate with FC_UPDATE_GOLDEN=1 and review the diff";
  }
}

TEST(DotGolden, SeedShape) {
  std::string text = dotFor(cases()[0]);
  for (int s = 0; s < 3; ++s)
    EXPECT_NE(text.find("subgraph cluster_seg" + std::to_string(s) + " {"), std::string::npos) << s;
  EXPECT_EQ(text.find("cluster_seg3"), std::string::npos);
  EXPECT_NE(text.find("<font color=\"red\">rS14{i0}</font>"), std::string::npos);
  // The dashed provenance edge from T0 (n0) to T5 (n7).
  EXPECT_NE(text.find("n0 -> n7"), std::string::npos);
  EXPECT_NE(text.find("style=dashed"), std::string::npos);
  // No pointers: node names are n<traversal index>.
  EXPECT_EQ(text.find("0x"), std::string::npos);
  std::string fixed = dotFor(cases()[4]);
  EXPECT_FALSE(viztest::drawsRed(fixed)) << "after fix nothing is red";
  EXPECT_NE(fixed.find("strip-reduction-axes"), std::string::npos);
  EXPECT_NE(fixed.find("darkgreen"), std::string::npos);
}

TEST(DotGolden, Deterministic) {
  for (const Case& k : {cases()[0], cases()[4]}) EXPECT_EQ(dotFor(k), dotFor(k)) << k.golden;
}

TEST(DotGolden, GraphvizRendersEveryFixtureWithoutWarnings) {
  if (!viztest::haveProgram("dot"))
    GTEST_SKIP() << "SKIPPED: the Graphviz CLI `dot` is not installed; cannot check that DOT renders";
  const fs::path tmp = fs::temp_directory_path() / ("fc-viz-dot-" + std::to_string(::getpid()));
  fs::create_directories(tmp);
  std::vector<Case> all = cases();
  all.push_back({"chain400.dot", "", "", "", 2, false});
  for (const Case& k : all) {
    SCOPED_TRACE(k.golden);
    std::string text;
    if (k.fixture.empty()) {
      auto r = viztest::loadText("chain.json", viztest::elementwiseChain(400));
      ASSERT_TRUE(r);
      text = writeDot(buildGraph(r->fusion, r->result, {})).text;
    } else {
      text = dotFor(k);
    }
    fs::path in = tmp / k.golden;
    std::ofstream(in, std::ios::binary) << text;
    std::string cmd = "dot -Tsvg '" + in.string() + "' -o '" + (tmp / "out.svg").string() + "'";
    viztest::CommandResult res = viztest::runCommand(cmd);
    EXPECT_EQ(res.rc, 0) << res.out;
    EXPECT_EQ(res.out, "") << "Graphviz printed warnings";
    EXPECT_NE(viztest::slurp((tmp / "out.svg").string()).find("<svg"), std::string::npos);
  }
  fs::remove_all(tmp);
}

// A graph of many segments: libcgraph's writer checks every subgraph of a
// level for each node and edge it writes there, so the clusters are nested
// in plain subgraphs of at most 16 children (O(nodes x 16 x depth), not
// O(nodes x clusters): a 100k-expr repro took minutes). Nothing is lost: the
// same clusters, nodes and edges, and Graphviz lays it out without warnings.
VizGraph manyClusters(size_t n) {
  VizGraph g;
  g.title = "many";
  for (size_t i = 0; i < n; ++i) {
    g.clusters.push_back({static_cast<uint32_t>(i), "cluster_seg" + std::to_string(i),
                          "segment " + std::to_string(i), "segment_" + std::to_string(i), false, false});
    VizNode a;
    a.name = "T" + std::to_string(i);
    a.anchor = "tensor_T" + std::to_string(i);
    a.label = "T" + std::to_string(i);
    a.cluster = static_cast<int>(i);
    g.nodes.push_back(a);
    if (i > 0) {
      VizEdge e;
      e.from = i - 1;
      e.to = i;
      g.edges.push_back(e);
    }
  }
  return g;
}

TEST(DotGolden, ManyClustersAreNestedInGroupsOfSixteen) {
  if (!graphvizAvailable()) GTEST_SKIP() << "SKIPPED: built without Graphviz";
  DotOutput d = writeDot(manyClusters(300));
  ASSERT_TRUE(d.ok) << d.error;
  auto count = [&](const std::string& needle) {
    size_t k = 0;
    for (size_t at = d.text.find(needle); at != std::string::npos; at = d.text.find(needle, at + 1)) ++k;
    return k;
  };
  EXPECT_EQ(count("subgraph cluster_seg"), 300u);
  EXPECT_EQ(count("subgraph group_1_"), 19u);  // ceil(300 / 16)
  EXPECT_EQ(count("subgraph group_2_"), 2u);   // ceil(19 / 16): the root's only subgraphs
  EXPECT_EQ(count("\n\tsubgraph "), 2u);       // one tab: a child of the root
  EXPECT_EQ(count(" -> "), 299u);
  for (size_t i = 0; i < 300; i += 37)
    EXPECT_NE(d.text.find("id=segment_" + std::to_string(i) + ","), std::string::npos);
  // At most 16 clusters: written flat, as before.
  DotOutput small = writeDot(manyClusters(16));
  ASSERT_TRUE(small.ok);
  EXPECT_EQ(small.text.find("group_"), std::string::npos);
  if (!viztest::haveProgram("dot")) GTEST_SKIP() << "SKIPPED: the Graphviz CLI `dot` is not installed";
  const fs::path tmp = fs::temp_directory_path() / ("fc-viz-many-" + std::to_string(::getpid()) + ".dot");
  std::ofstream(tmp, std::ios::binary) << writeDot(manyClusters(40)).text;
  viztest::CommandResult res = viztest::runCommand("dot -Tsvg '" + tmp.string() + "' -o /dev/null");
  EXPECT_EQ(res.rc, 0) << res.out;
  EXPECT_EQ(res.out, "") << "Graphviz printed warnings";
  fs::remove(tmp);
}

TEST(DotGolden, InProcessSvg) {
  std::string text = dotFor(cases()[0]);
  SvgOutput s = renderSvg(text);
  ASSERT_TRUE(s.ok) << s.error;
  EXPECT_EQ(s.warnings, "");
  EXPECT_NE(s.svg.find("id=\"tensor_T5\""), std::string::npos);
  EXPECT_NE(s.svg.find("id=\"segment_2\""), std::string::npos);
  std::string inl = inlineSvg(s.svg);
  EXPECT_EQ(inl.rfind("<svg", 0), 0u);
  EXPECT_EQ(inl.find("<!--"), std::string::npos);
  EXPECT_EQ(inl.find("<!DOCTYPE"), std::string::npos);
  SvgOutput bad = renderSvg("digraph { a -> ");
  EXPECT_FALSE(bad.ok);
}

#endif

}  // namespace
}  // namespace fc::viz
