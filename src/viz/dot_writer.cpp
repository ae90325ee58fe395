// libcgraph / gvc backend of dot_writer.h. The cgraph error hook is
// process-global: writeDot / renderSvg install a capturing hook for the
// duration of a call and restore the previous one (not thread-safe, like
// cgraph itself).
#include "viz/dot_writer.h"

#include <mutex>
#include <unordered_map>
#include <vector>

#include "support/escape.h"

#ifdef FC_HAVE_GRAPHVIZ
#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>
#endif

namespace fc::viz {

std::string graphvizMissingMessage() {
  return "fusecheck was built without Graphviz (libcgraph / libgvc were not found at configure time); "
         "install libgraphviz-dev and rebuild, or draw on a machine that has it";
}

std::string inlineSvg(std::string_view svg) {
  std::string out;
  size_t start = svg.find("<svg");
  if (start == std::string_view::npos) return std::string(svg);
  std::string_view body = svg.substr(start);
  out.reserve(body.size());
  size_t i = 0;
  while (i < body.size()) {
    size_t c = body.find("<!--", i);
    if (c == std::string_view::npos) {
      out.append(body.substr(i));
      break;
    }
    out.append(body.substr(i, c - i));
    size_t e = body.find("-->", c + 4);
    if (e == std::string_view::npos) break;
    i = e + 3;
    while (i < body.size() && body[i] == '\n' && !out.empty() && out.back() == '\n') ++i;
  }
  return out;
}

#ifndef FC_HAVE_GRAPHVIZ

bool graphvizAvailable() { return false; }

DotOutput writeDot(const VizGraph&) {
  DotOutput o;
  o.error = graphvizMissingMessage();
  return o;
}

SvgOutput renderSvg(const std::string&) {
  SvgOutput o;
  o.error = graphvizMissingMessage();
  return o;
}

#else

bool graphvizAvailable() { return true; }

namespace {

// ---- an ID discipline that numbers names in creation order ----
// Named objects get even ids 2, 4, 6, ...; anonymous ones odd ids. The
// names are interned with agstrdup: cgraph reads a flag in front of the
// string agnameof returns (aghtmlstr), so it must be one of its refstrs.
// They are freed with the graph's string dictionary when it closes.
struct IdState {
  Agraph_t* g = nullptr;
  std::vector<char*> names;  // refstrs, by id / 2 - 1
  std::unordered_map<std::string, IDTYPE> ids;
  IDTYPE next_anonymous = 1;
};

void* idOpen(Agraph_t* g, Agdisc_t*) {
  auto* s = new IdState;
  s->g = g;
  return s;
}

long idMap(void* state, int, char* str, IDTYPE* id, int createflag) {
  auto* s = static_cast<IdState*>(state);
  if (!str) {
    *id = s->next_anonymous;
    s->next_anonymous += 2;
    return 1;
  }
  auto it = s->ids.find(str);
  if (it != s->ids.end()) {
    *id = it->second;
    return 1;
  }
  if (!createflag) return 0;
  s->names.push_back(agstrdup(s->g, str));
  IDTYPE v = 2 * static_cast<IDTYPE>(s->names.size());
  s->ids.emplace(str, v);
  *id = v;
  return 1;
}

long idAlloc(void*, int, IDTYPE) { return 0; }  // callers may not choose ids
void idFree(void*, int, IDTYPE) {}              // names live until the graph closes

char* idPrint(void* state, int, IDTYPE id) {
  auto* s = static_cast<IdState*>(state);
  if (id % 2 != 0 || id == 0 || id / 2 > s->names.size()) return nullptr;
  return s->names[static_cast<size_t>(id / 2 - 1)];
}

void idClose(void* state) { delete static_cast<IdState*>(state); }
void idRegister(void*, int, void*) {}

Agiddisc_t kIdDisc = {idOpen, idMap, idAlloc, idFree, idPrint, idClose, idRegister};

// ---- writing into a std::string ----
int ioRead(void*, char*, int) { return 0; }
int ioPut(void* chan, const char* s) {
  static_cast<std::string*>(chan)->append(s);
  return 0;
}
int ioFlush(void*) { return 0; }
Agiodisc_t kIoDisc = {ioRead, ioPut, ioFlush};

Agdisc_t kDisc = {&AgMemDisc, &kIdDisc, &kIoDisc};

// ---- reading from memory with the same ID discipline ----
// agmemread() would number names by their string's address, which orders
// clusters in the SVG differently from run to run (ASLR); agread() with
// kIdDisc keeps creation order, so the SVG is byte-identical every time.
struct MemReader {
  const std::string* text;
  size_t cur;
};
int ioReadLine(void* chan, char* buf, int bufsize) {
  auto* r = static_cast<MemReader*>(chan);
  int n = 0;
  while (n < bufsize && r->cur < r->text->size()) {
    char c = (*r->text)[r->cur++];
    buf[n++] = c;
    if (c == '\n') break;
  }
  return n;
}
Agiodisc_t kReadIoDisc = {ioReadLine, ioPut, ioFlush};
Agdisc_t kReadDisc = {&AgMemDisc, &kIdDisc, &kReadIoDisc};

// ---- capturing cgraph / gvc messages ----
std::string* g_messages = nullptr;
int captureMessage(char* msg) {
  if (g_messages && msg) g_messages->append(msg);
  return 0;
}
class CaptureErrors {
 public:
  explicit CaptureErrors(std::string& sink) {
    g_messages = &sink;
    prev_f_ = agseterrf(captureMessage);
    prev_level_ = agseterr(AGWARN);
    agreseterrors();
  }
  ~CaptureErrors() {
    agseterrf(prev_f_);
    agseterr(prev_level_);
    g_messages = nullptr;
  }

 private:
  agusererrf prev_f_;
  agerrlevel_t prev_level_;
};

char* c(const std::string& s) { return const_cast<char*>(s.c_str()); }

void set(void* obj, const char* name, const std::string& value) {
  agsafeset(obj, const_cast<char*>(name), c(value), const_cast<char*>(""));
}

// An edge and its label drawn in `color`; an overlay edge (provenance,
// forwarding) is dashed and does not take part in ranking.
void styleEdge(Agedge_t* e, const char* color, const char* width, bool overlay) {
  if (overlay) set(e, "style", "dashed");
  set(e, "color", color);
  set(e, "fontcolor", color);
  if (overlay) set(e, "constraint", "false");
  set(e, "penwidth", width);
}

// A filled node of the given shape.
void fill(Agnode_t* n, const char* shape, const char* color) {
  set(n, "shape", shape);
  set(n, "style", "filled");
  set(n, "fillcolor", color);
}

void setHtml(Agraph_t* root, void* obj, const char* name, const std::string& html) {
  char* h = agstrdup_html(root, c(html));
  agsafeset(obj, const_cast<char*>(name), h, const_cast<char*>(""));
  agstrfree(root, h);
}

// Graphviz escString: a literal backslash must be doubled; "\n" centres a line.
std::string escString(const std::string& s) {
  static constexpr EscapeTable kEscString{{'\\', "\\\\"}, {'\n', "\\n"}};
  return escaped(s, kEscString);
}

void declare(Agraph_t* g, int kind, const char* name, const char* def) {
  agattr(g, kind, const_cast<char*>(name), const_cast<char*>(def));
}

}  // namespace

DotOutput writeDot(const VizGraph& vg) {
  DotOutput out;
  std::string messages;
  CaptureErrors capture(messages);
  Agraph_t* g = agopen(const_cast<char*>("fusion"), Agdirected, &kDisc);
  if (!g) {
    out.error = "libcgraph could not open a graph: " + messages;
    return out;
  }
  // Defaults (declared once; written as graph / node / edge statements).
  declare(g, AGRAPH, "fontname", "Helvetica");
  declare(g, AGRAPH, "fontsize", "12");
  declare(g, AGRAPH, "labelloc", "t");
  declare(g, AGRAPH, "newrank", "true");
  declare(g, AGRAPH, "nodesep", "0.3");
  declare(g, AGRAPH, "ranksep", "0.35");
  declare(g, AGRAPH, "linelength", "0");  // never fold long labels in the written text
  declare(g, AGRAPH, "label", "");
  declare(g, AGRAPH, "id", "");
  declare(g, AGRAPH, "style", "");
  declare(g, AGRAPH, "color", "");
  declare(g, AGRAPH, "fillcolor", "");
  declare(g, AGRAPH, "penwidth", "1");
  declare(g, AGNODE, "fontname", "Helvetica");
  declare(g, AGNODE, "fontsize", "10");
  declare(g, AGNODE, "shape", "box");
  declare(g, AGNODE, "style", "rounded,filled");
  declare(g, AGNODE, "fillcolor", "white");
  declare(g, AGNODE, "color", "#444444");
  declare(g, AGNODE, "penwidth", "1");
  declare(g, AGNODE, "peripheries", "1");
  declare(g, AGNODE, "label", "\\N");
  declare(g, AGNODE, "tooltip", "");
  declare(g, AGNODE, "id", "");
  declare(g, AGEDGE, "fontname", "Helvetica");
  declare(g, AGEDGE, "fontsize", "9");
  declare(g, AGEDGE, "color", "#555555");
  declare(g, AGEDGE, "fontcolor", "#555555");
  declare(g, AGEDGE, "arrowsize", "0.7");
  declare(g, AGEDGE, "style", "solid");
  declare(g, AGEDGE, "penwidth", "1");
  declare(g, AGEDGE, "constraint", "true");
  declare(g, AGEDGE, "label", "");
  declare(g, AGEDGE, "tooltip", "");
  declare(g, AGEDGE, "id", "");

  std::string title = vg.title;
  if (!vg.focus_note.empty()) title += "\n" + vg.focus_note;
  set(g, "label", escString(title));
  set(g, "id", vg.id_prefix + "graph");

  // libcgraph's writer checks, for every node and edge it writes at a level,
  // each subgraph of that level for membership: O((nodes + edges) x
  // clusters) with all clusters at the root (minutes at 100k exprs). Past
  // kFanout clusters they are nested in plain (non-cluster) subgraphs of at
  // most kFanout children each, which changes nothing in the layout and
  // makes a check O(kFanout x depth).
  constexpr size_t kFanout = 16;
  std::vector<size_t> groups;  // groups[k]: how many at level k + 1 (level 0: the clusters)
  for (size_t n = vg.clusters.size(); n > kFanout;) {
    n = (n + kFanout - 1) / kFanout;
    groups.push_back(n);
  }
  std::vector<Agraph_t*> above;  // the level built last (none yet: the root)
  for (size_t k = groups.size(); k-- > 0;) {
    std::vector<Agraph_t*> level(groups[k]);
    for (size_t j = 0; j < groups[k]; ++j) {
      std::string name = "group_" + std::to_string(k + 1) + "_" + std::to_string(j);
      level[j] = agsubg(above.empty() ? g : above[j / kFanout], c(name), 1);
    }
    above = std::move(level);
  }
  std::vector<Agraph_t*> parent_of(vg.clusters.size(), g);
  if (!above.empty())
    for (size_t i = 0; i < vg.clusters.size(); ++i) parent_of[i] = above[i / kFanout];

  std::vector<Agraph_t*> clusters;
  for (size_t ci = 0; ci < vg.clusters.size(); ++ci) {
    const VizCluster& vc = vg.clusters[ci];
    Agraph_t* sg = agsubg(parent_of[ci], c(vc.name), 1);
    set(sg, "label", escString(vc.label));
    set(sg, "id", vg.id_prefix + vc.anchor);
    set(sg, "style", "rounded,filled");
    set(sg, "fillcolor", vc.communication ? "#fff6e8" : "#f3f8ff");
    set(sg, "color", vc.failing ? "red" : (vc.communication ? "#d9a441" : "#7a9cc6"));
    set(sg, "penwidth", vc.failing ? "2" : "1");
    clusters.push_back(sg);
  }

  std::vector<Agnode_t*> nodes;
  nodes.reserve(vg.nodes.size());
  for (size_t i = 0; i < vg.nodes.size(); ++i) {
    const VizNode& vn = vg.nodes[i];
    std::string name = "n" + std::to_string(i);
    Agnode_t* n = agnode(g, c(name), 1);
    if (vn.cluster >= 0 && static_cast<size_t>(vn.cluster) < clusters.size())
      agsubnode(clusters[static_cast<size_t>(vn.cluster)], n, 1);
    setHtml(g, n, "label", vn.label);
    set(n, "id", vg.id_prefix + vn.anchor);
    set(n, "tooltip", escString(vn.tooltip));
    switch (vn.kind) {
      case NodeKind::Tensor: break;  // the default box
      case NodeKind::Expr: fill(n, "ellipse", "#e8e8f4"); break;
      case NodeKind::Scalar: fill(n, "note", "#fffbe6"); break;
    }
    if (vn.unbound && vn.kind != NodeKind::Scalar) set(n, "color", "red"), set(n, "penwidth", "2");
    if (vn.truncated) set(n, "peripheries", "2");
    if (vn.focus) set(n, "fillcolor", "#fff3c4");
    nodes.push_back(n);
  }

  for (size_t k = 0; k < vg.edges.size(); ++k) {
    const VizEdge& ve = vg.edges[k];
    if (ve.from >= nodes.size() || ve.to >= nodes.size()) continue;
    Agedge_t* e = agedge(g, nodes[ve.from], nodes[ve.to], nullptr, 1);
    if (!ve.label.empty()) set(e, "label", escString(ve.label));
    if (!ve.tooltip.empty()) set(e, "tooltip", escString(ve.tooltip));
    set(e, "id", vg.id_prefix + (ve.anchor.empty() ? "edge_" + std::to_string(k) : ve.anchor));
    switch (ve.kind) {
      case EdgeKind::Data:
        if (ve.repaired) styleEdge(e, "darkgreen", "2", false);
        break;
      case EdgeKind::Provenance: styleEdge(e, "red", "1.5", true); break;
      case EdgeKind::Forward: styleEdge(e, "darkgreen", "2", true); break;
    }
  }

  std::string text;
  int rc = agwrite(g, &text);
  agclose(g);
  if (rc != 0) {
    out.error = "libcgraph could not write the graph: " + messages;
    return out;
  }
  out.ok = true;
  out.text = std::move(text);
  return out;
}

// One rendering context for the whole process, never freed. Graphviz 2.42's
// pango text-layout plugin caches a raw pointer to the last font name it
// measured; that string belongs to the GVC_t's font dictionary, so freeing the
// context and laying out a second graph (the report draws several) reads freed
// memory (ASan: heap-use-after-free in strcmp under textspan_size). A context
// that lives as long as the process keeps the pointer valid. Graphviz is not
// thread-safe, so every render holds renderMutex().
namespace {

GVC_t* processContext() {
  static GVC_t* gvc = gvContext();
  return gvc;
}

std::mutex& renderMutex() {
  static std::mutex m;
  return m;
}

}  // namespace

SvgOutput renderSvg(const std::string& dot) {
  SvgOutput out;
  std::string messages;
  {
    std::lock_guard<std::mutex> lock(renderMutex());
    CaptureErrors capture(messages);
    MemReader reader{&dot, 0};
    Agraph_t* g = agread(&reader, &kReadDisc);
    if (!g) {
      out.error = "Graphviz could not parse the DOT text: " + messages;
      return out;
    }
    GVC_t* gvc = processContext();
    if (!gvc) {
      agclose(g);
      out.error = "Graphviz could not create a rendering context";
      return out;
    }
    if (gvLayout(gvc, g, "dot") != 0) {
      out.error = "Graphviz dot layout failed: " + messages;
    } else {
      char* data = nullptr;
      unsigned int len = 0;
      if (gvRenderData(gvc, g, "svg", &data, &len) != 0 || !data) {
        out.error = "Graphviz could not render SVG (is the core plugin installed? run `dot -c`): " + messages;
      } else {
        out.svg.assign(data, len);
        out.ok = true;
      }
      if (data) gvFreeRenderData(data);
      gvFreeLayout(gvc, g);
    }
    agclose(g);
  }
  out.warnings = messages;
  return out;
}

#endif

}  // namespace fc::viz
