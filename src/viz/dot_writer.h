// Graphviz output of a VizGraph: the DOT text is built
// with libcgraph (agopen / agnode / agsubg / agedge / agsafeset, clusters
// named cluster_segN) and written through an in-memory I/O discipline; SVG
// is laid out and rendered in-process with gvc. Graphviz is optional: when
// fusecheck is built without it (no FC_HAVE_GRAPHVIZ), every call returns
// an error that says so and the caller maps it to exit code 3.
// Determinism: cgraph's default ID discipline orders subgraphs by the
// address of their interned name; a small ID discipline here numbers
// names in creation order instead, so the DOT text depends only on the
// graph. writeDot is O(nodes + edges + label text); renderSvg costs what
// Graphviz's dot layout costs.
#pragma once

#include <string>
#include <string_view>

#include "viz/graph_model.h"

namespace fc::viz {

// True when this build links libcgraph / libgvc.
bool graphvizAvailable();
// The sentence the commands print when it is not.
std::string graphvizMissingMessage();

struct DotOutput {
  bool ok = false;
  std::string text;   // the DOT document
  std::string error;  // when !ok
};
DotOutput writeDot(const VizGraph& g);

struct SvgOutput {
  bool ok = false;
  std::string svg;       // a standalone SVG document
  std::string warnings;  // what Graphviz reported while laying out / rendering
  std::string error;     // when !ok
};
SvgOutput renderSvg(const std::string& dot);

// `svg` without its XML prolog, DOCTYPE and comments: ready to inline in HTML.
std::string inlineSvg(std::string_view svg);

}  // namespace fc::viz
