// The drawing of a fusion as data: tensors and exprs as nodes, segments as
// clusters, data edges, and the analysis overlaid on them -- unbound axes
// in red with a dashed provenance edge from the symbol's birth tensor,
// every other diagnostic drawn in red on the tensor, axis, expr or segment
// its JSON pointer names (with its code on the node), the verdict in the
// title, repaired segment edges in green after `fix`. Renderer-independent: the DOT writer (libcgraph)
// and the HTML report read it, and --focus filters it. Node order is the
// traversal order (segments in run order, each expr's new inputs, the
// expr, its outputs), so every rendering is deterministic.
// O(tensors + exprs + axes + unbound uses).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/fusion.h"
#include "ir/printer.h"
#include "pipeline/pipeline.h"

namespace fc::viz {

enum class NodeKind : uint8_t { Tensor, Expr, Scalar };
enum class EdgeKind : uint8_t { Data, Provenance, Forward };

struct VizNode {
  NodeKind kind = NodeKind::Tensor;
  uint32_t ref = kNone;  // TensorId / ExprId / ScalarId
  std::string name;      // "T5", "e2", "s0"
  std::string anchor;    // element id in SVG / HTML: "tensor_T5", "expr_2", "scalar_s0"
  std::string label;     // Graphviz HTML-like label body (markup, already escaped)
  std::string tooltip;   // plain text
  int cluster = -1;      // index into VizGraph::clusters; -1: top level
  bool unbound = false;  // drawn in red: an unbound axis, an unbound value it needs, or a diagnostic on it
  size_t red_axes = 0;   // axes drawn in red on this tensor
  std::vector<std::string> codes;  // the codes of the diagnostics located on it ("FC0302")
  bool truncated = false;          // --focus hid some of its neighbours
  bool focus = false;              // the --focus node itself
};

struct VizEdge {
  size_t from = 0, to = 0;  // node indexes
  EdgeKind kind = EdgeKind::Data;
  std::string label;       // plain text ("" none)
  std::string tooltip;     // plain text
  std::string anchor;      // element id ("" none)
  bool repaired = false;   // a segment edge a recorded fix changed (green)
  bool rewritten = false;  // a segment edge whose input rewrite changes the domain (grey label)
};

struct VizCluster {
  uint32_t segment = 0;
  std::string name;    // "cluster_seg0"
  std::string label;   // plain text: "segment 1 · Allreduce · executor: communication"
  std::string anchor;  // "segment_1"
  bool communication = false;
  bool failing = false;  // an unbound extent, or a diagnostic, is reported in this segment
};

struct VizGraph {
  std::string title;  // plain text
  std::vector<VizCluster> clusters;
  std::vector<VizNode> nodes;
  std::vector<VizEdge> edges;
  size_t unbound_axes = 0;       // red axes drawn
  std::string verdict;           // "clean", or "FAIL: 2 errors (FC0302)" ("" before the analysis stages)
  size_t diagnostics = 0;        // errors and warnings the pipeline reported
  size_t diagnostics_drawn = 0;  // those drawn on a node or segment (the others have no place in the graph)
  size_t repaired_edges = 0;     // green edges drawn
  size_t full_nodes = 0;         // before --focus
  std::string focus_note;        // "focus T5, depth 2: 9 of 23 nodes" ("" without --focus)
  std::string id_prefix;         // prepended to every element id the renderings emit
};

// What the drawing shows. `stage` is a pass name of kPassNames (""
// draws the state after every pass): the passes the era runs up to and
// including it decide which overlays appear -- segment: clusters;
// segment-inputs: rewritten / repaired edges; bind: local sizes;
// concretize and apply: unbound axes and provenance.
struct GraphOptions {
  std::string stage;
  PrintStyle style = PrintStyle::Y2024;
};

// "clean", "FAIL: 2 errors (FC0302)", "FAIL: 1 error, 1 warning (FC0301,
// FC0306)": the verdict of a set of diagnostics, as titles and reports say it.
std::string verdictText(const std::vector<Diagnostic>& diags);

// True when `name` is one of kPassNames.
bool isPassName(std::string_view name);
// "bind, concretize, apply, segment, segment-inputs".
std::string passNameList();
// The passes of `r`'s profile, in the order that path runs them.
std::vector<std::string> eraPassOrder(const PipelineResult& r);

// `f` must have passed the verifier and `r` be runPipeline(f, ...).
VizGraph buildGraph(const Fusion& f, const PipelineResult& r, const GraphOptions& opts);

// Node index of the tensor `name`, or of an expr written "e2" / "expr2" /
// "2"; nullopt when nothing matches.
std::optional<size_t> findFocusNode(const VizGraph& g, const Fusion& f, std::string_view name);

// Keeps the nodes within `depth` edges of node `center` (data edges, both
// directions; BFS, O(nodes + edges)), the edges among them, and the
// clusters they use; marks kept nodes whose neighbours were cut.
void focusGraph(VizGraph& g, size_t center, size_t depth);

}  // namespace fc::viz
