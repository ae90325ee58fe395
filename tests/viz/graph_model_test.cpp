// The drawing as data: on the seed (nvFuser #2481) three segment clusters
// with kind and executor, the red rS14{i0} axis on T5 and a provenance
// edge from T0 (i0's birth); after the fix no red and a repaired edge;
// --stage hides what a pass has not done yet; --focus keeps a bounded
// neighbourhood (also on a 5,000-expr chain); node order is traversal order.
#include "viz/graph_model.h"

#include <gtest/gtest.h>

#include "profile_util.h"
#include "viz_test_util.h"

namespace fc::viz {
namespace {

using viztest::kSeed;

const VizNode* node(const VizGraph& g, NodeKind k, const std::string& name) {
  for (const VizNode& n : g.nodes)
    if (n.kind == k && n.name == name) return &n;
  return nullptr;
}

size_t indexOf(const VizGraph& g, const VizNode* n) { return static_cast<size_t>(n - g.nodes.data()); }

size_t countRed(const VizGraph& g) {
  size_t n = 0;
  for (const VizNode& v : g.nodes) n += viztest::drawsRed(v.label);
  return n;
}

TEST(GraphModel, SeedClustersRedAxisAndProvenance) {
  auto r = viztest::loadFixture(kSeed);
  ASSERT_TRUE(r);
  VizGraph g = buildGraph(r->fusion, r->result, {});
  ASSERT_EQ(g.clusters.size(), 3u);
  EXPECT_EQ(g.clusters[0].name, "cluster_seg0");
  EXPECT_EQ(g.clusters[2].name, "cluster_seg2");
  EXPECT_NE(g.clusters[0].label.find("compute"), std::string::npos);
  EXPECT_NE(g.clusters[1].label.find("Allreduce"), std::string::npos);
  EXPECT_NE(g.clusters[1].label.find("executor: communication"), std::string::npos);
  EXPECT_TRUE(g.clusters[1].communication);
  EXPECT_TRUE(g.clusters[2].failing);
  EXPECT_FALSE(g.clusters[0].failing);

  const VizNode* t5 = node(g, NodeKind::Tensor, "T5");
  ASSERT_NE(t5, nullptr);
  EXPECT_EQ(t5->label.rfind("T5_g[ <font color=\"red\">rS14{i0}</font>, iS15{i3}, iS16{i6} ]", 0), 0u)
      << t5->label;
  EXPECT_TRUE(t5->unbound);
  EXPECT_EQ(t5->red_axes, 1u);
  EXPECT_EQ(t5->anchor, "tensor_T5");
  EXPECT_EQ(g.unbound_axes, 1u);
  EXPECT_EQ(countRed(g), 1u) << "only T5 draws red";
  // T5 is produced by the Allreduce segment's sum.
  EXPECT_EQ(t5->cluster, 1);

  const VizNode* t0 = node(g, NodeKind::Tensor, "T0");
  ASSERT_NE(t0, nullptr);
  EXPECT_EQ(t0->cluster, -1) << "fusion inputs sit outside the clusters";
  size_t provenance = 0;
  for (const VizEdge& e : g.edges) {
    if (e.kind != EdgeKind::Provenance) continue;
    ++provenance;
    EXPECT_EQ(e.from, indexOf(g, t0));
    EXPECT_EQ(e.to, indexOf(g, t5));
    EXPECT_NE(e.label.find("i0"), std::string::npos);
    EXPECT_NE(e.tooltip.find("T0"), std::string::npos);
  }
  EXPECT_EQ(provenance, 1u);
  EXPECT_EQ(g.repaired_edges, 0u);
}

TEST(GraphModel, TraversalOrderIsSegmentRunOrder) {
  auto r = viztest::loadFixture(kSeed);
  ASSERT_TRUE(r);
  VizGraph g = buildGraph(r->fusion, r->result, {});
  // Segment 0 (permute, matmul) first: T0, e0, T3, T1, e1, T4; then the sum.
  std::vector<std::string> names;
  for (const VizNode& n : g.nodes) names.push_back(n.name);
  ASSERT_GE(names.size(), 8u);
  EXPECT_EQ((std::vector<std::string>(names.begin(), names.begin() + 8)),
            (std::vector<std::string>{"T0", "e0", "T3", "T1", "e1", "T4", "e2", "T5"}));
  EXPECT_EQ(g.nodes.size(), 17u);  // 10 tensors + 7 exprs
  // Built twice, the same graph.
  VizGraph h = buildGraph(r->fusion, r->result, {});
  ASSERT_EQ(h.nodes.size(), g.nodes.size());
  for (size_t i = 0; i < g.nodes.size(); ++i) EXPECT_EQ(h.nodes[i].label, g.nodes[i].label);
}

TEST(GraphModel, AfterFixNoRedAndRepairedEdge) {
  auto r = viztest::loadFixture(kSeed);
  ASSERT_TRUE(r);
  auto fx = viztest::fixed(*r);
  ASSERT_TRUE(fx);
  EXPECT_FALSE(fx->result.failed());
  VizGraph g = buildGraph(fx->fusion, fx->result, {});
  EXPECT_EQ(g.unbound_axes, 0u);
  EXPECT_EQ(countRed(g), 0u);
  for (const VizEdge& e : g.edges) EXPECT_NE(e.kind, EdgeKind::Provenance);
  for (const VizCluster& c : g.clusters) EXPECT_FALSE(c.failing);
  EXPECT_EQ(g.repaired_edges, 1u);
  const VizNode* t5 = node(g, NodeKind::Tensor, "T5");
  ASSERT_NE(t5, nullptr);
  size_t repaired = 0;
  for (const VizEdge& e : g.edges) {
    if (!e.repaired) continue;
    ++repaired;
    EXPECT_EQ(e.from, indexOf(g, t5));
    EXPECT_EQ(g.nodes[e.to].name, "e4");  // the cast in segment 2
    EXPECT_NE(e.label.find("strip-reduction-axes"), std::string::npos);
    EXPECT_NE(e.label.find("[iS15{i3}, iS16{i6}]"), std::string::npos);
  }
  EXPECT_EQ(repaired, 1u);
  EXPECT_NE(g.title.find("repaired by strip-reduction-axes"), std::string::npos);
}

TEST(GraphModel, StagesShowOnlyWhatHasRun) {
  auto r = viztest::loadFixture(kSeed);
  ASSERT_TRUE(r);
  // 2024-06 multi-device order: segment, segment-inputs, bind, concretize, apply.
  EXPECT_EQ(eraPassOrder(r->result),
            (std::vector<std::string>{"segment", "segment-inputs", "bind", "concretize", "apply"}));
  GraphOptions o;
  o.stage = "segment";
  VizGraph seg = buildGraph(r->fusion, r->result, o);
  EXPECT_EQ(seg.clusters.size(), 3u);
  EXPECT_EQ(countRed(seg), 0u);
  EXPECT_EQ(node(seg, NodeKind::Tensor, "T5")->label.find("local ["), std::string::npos);
  o.stage = "bind";
  VizGraph bind = buildGraph(r->fusion, r->result, o);
  EXPECT_EQ(countRed(bind), 0u);
  EXPECT_NE(node(bind, NodeKind::Tensor, "T0")->label.find("local [1, 64, 128]"), std::string::npos)
      << node(bind, NodeKind::Tensor, "T0")->label;
  o.stage = "concretize";
  EXPECT_EQ(buildGraph(r->fusion, r->result, o).unbound_axes, 1u);
  o.stage = "apply";
  EXPECT_EQ(buildGraph(r->fusion, r->result, o).unbound_axes, 1u);
  EXPECT_TRUE(isPassName("segment-inputs"));
  EXPECT_FALSE(isPassName("lower"));
}

TEST(GraphModel, WholeFirstEraHasNoSegmentFailure) {
  // At head the whole fusion is bound first: i0 is known, nothing is red.
  auto r = viztest::loadFixture(kSeed);
  ASSERT_TRUE(r);
  PipelineOptions o;
  o.profile = test::profileFor(r->fusion, "head", "cpp", "fec");  // FusionExecutorCache: whole-first
  PipelineResult head = runPipeline(r->fusion, o);
  EXPECT_EQ(eraPassOrder(head).front(), "bind");
  VizGraph g = buildGraph(r->fusion, head, {});
  EXPECT_EQ(g.unbound_axes, 0u);
  // FusionExecutorCache's segments at head: the communications alone, the
  // matmul's ExprEval segment and the compute around them.
  EXPECT_GE(g.clusters.size(), head.segmented.segments.size());
}

TEST(GraphModel, FocusKeepsTheNeighbourhood) {
  auto r = viztest::loadFixture(kSeed);
  ASSERT_TRUE(r);
  VizGraph g = buildGraph(r->fusion, r->result, {});
  auto c = findFocusNode(g, r->fusion, "T5");
  ASSERT_TRUE(c);
  focusGraph(g, *c, 1);
  std::vector<std::string> names;
  for (const VizNode& n : g.nodes) names.push_back(n.name);
  EXPECT_EQ(names, (std::vector<std::string>{"e2", "T5", "e4"}));
  EXPECT_TRUE(g.nodes[0].truncated);   // e2's input T4 was cut
  EXPECT_FALSE(g.nodes[1].truncated);  // T5's neighbours are all kept
  EXPECT_TRUE(g.nodes[2].truncated);
  EXPECT_EQ(g.clusters.size(), 2u);  // the sum's segment and segment 2
  EXPECT_EQ(g.unbound_axes, 1u);
  for (const VizEdge& e : g.edges) EXPECT_EQ(e.kind, EdgeKind::Data) << "T0 is outside: no provenance edge";
  EXPECT_EQ(g.focus_note, "focus T5, depth 1: 3 of 17 nodes");
}

TEST(GraphModel, FocusNames) {
  auto r = viztest::loadFixture(kSeed);
  ASSERT_TRUE(r);
  VizGraph g = buildGraph(r->fusion, r->result, {});
  auto e2 = findFocusNode(g, r->fusion, "e2");
  ASSERT_TRUE(e2);
  EXPECT_EQ(g.nodes[*e2].kind, NodeKind::Expr);
  EXPECT_EQ(g.nodes[*e2].ref, 2u);
  EXPECT_EQ(findFocusNode(g, r->fusion, "expr2"), e2);
  EXPECT_EQ(findFocusNode(g, r->fusion, "2"), e2);
  EXPECT_FALSE(findFocusNode(g, r->fusion, "e7"));
  EXPECT_FALSE(findFocusNode(g, r->fusion, "T99"));
  EXPECT_FALSE(findFocusNode(g, r->fusion, "e"));
  EXPECT_FALSE(findFocusNode(g, r->fusion, "e-1"));
  EXPECT_FALSE(findFocusNode(g, r->fusion, ""));
  focusGraph(g, *e2, 0);
  ASSERT_EQ(g.nodes.size(), 1u);
  EXPECT_EQ(g.nodes[0].name, "e2");
  EXPECT_TRUE(g.edges.empty());
}

TEST(GraphModel, FocusCutsALongChain) {
  auto r = viztest::loadText("chain.json", viztest::elementwiseChain(5000));
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->result.failed());
  VizGraph g = buildGraph(r->fusion, r->result, {});
  EXPECT_EQ(g.nodes.size(), 10001u);
  auto c = findFocusNode(g, r->fusion, "T2500");
  ASSERT_TRUE(c);
  focusGraph(g, *c, 4);
  EXPECT_EQ(g.nodes.size(), 9u);  // T2498 .. T2502 and the four exprs between
  EXPECT_EQ(g.edges.size(), 8u);
  EXPECT_EQ(g.nodes.front().name, "T2498");
  EXPECT_TRUE(g.nodes.front().truncated);
  EXPECT_EQ(g.nodes.back().name, "T2502");
  EXPECT_EQ(g.focus_note, "focus T2500, depth 4: 9 of 10001 nodes");
}

}  // namespace
}  // namespace fc::viz
